/* Which part of the work list this process does (--shard K/N, or the launcher's
 * environment), and which GPU its local rank picks.
 *
 * fxkit has no scheduler of its own: Slurm, MPI, GNU parallel or Kubernetes start N
 * copies of the same command, and each takes the K-th of N stable slices of the sorted
 * work list (shard_of in worklist.c). The launchers say K and N in their own variables;
 * the first that is set wins, most specific first:
 *
 *   SLURM_ARRAY_TASK_ID   a Slurm job array: the task's place in the array (from
 *                         _MIN, _MAX, _STEP or _COUNT), times the tasks of its step
 *                         when one array task runs several (srun -n inside sbatch --array)
 *   OMPI_COMM_WORLD_RANK  Open MPI's mpirun (with OMPI_COMM_WORLD_SIZE)
 *   PMI_RANK              MPICH, Intel MPI, srun --mpi=pmi2 (with PMI_SIZE)
 *   SLURM_PROCID          tasks of an srun step (with SLURM_STEP_NUM_TASKS, or
 *                         SLURM_NTASKS when srun set it); never the batch script itself,
 *                         which Slurm also gives SLURM_PROCID=0 and the allocation's
 *                         SLURM_NTASKS: that one process must do everything
 *   JOB_COMPLETION_INDEX  a Kubernetes indexed job; its count is not in the
 *                         environment, so --shard auto/N must give it
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Parse a whole non-negative decimal number; false otherwise. */
static bool parse_count(const char *text, uint64_t *out)
{
    if (!text || !*text || *text == '-' || *text == '+') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno) return false;
    *out = v;
    return true;
}

/* A variable as a number: 1 when set and whole, 0 when unset, -1 when set but not a number. */
static int env_number(fxcli_getenv_fn env, const char *name, uint64_t *out)
{
    const char *text = env(name);
    if (!text) return 0;
    return parse_count(text, out) ? 1 : -1;
}

/* Write the message; returns -1, the error result of the functions below. */
static int failed(char *err, size_t size, const char *fmt, ...) FXCLI_PRINTF(3, 4);
static int failed(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

/* K and N from a rank/size pair of variables. 0: rank unset; 1: found; -1: error. */
static int from_pair(fxcli_getenv_fn env, const char *rank_var, const char *size_var,
                     fxcli_shard *s, char *err, size_t size)
{
    uint64_t rank, count;
    int r = env_number(env, rank_var, &rank);
    if (r == 0) return 0;
    if (r < 0) return failed(err, size, "%s='%s' is not a whole number", rank_var, env(rank_var));
    if (env_number(env, size_var, &count) != 1 || count == 0)
        return failed(err, size, "%s is set but %s is not a positive whole number", rank_var,
                    size_var);
    if (rank >= count)
        return failed(err, size, "%s=%" PRIu64 " is not below %s=%" PRIu64, rank_var, rank,
                      size_var, count);
    s->index = rank;
    s->count = count;
    snprintf(s->source, sizeof s->source, "%s=%" PRIu64 " of %s=%" PRIu64, rank_var, rank,
             size_var, count);
    return 1;
}

/* The tasks of the current srun step: SLURM_PROCID of SLURM_STEP_NUM_TASKS (srun sets
 * both; the batch script has neither SLURM_STEP_NUM_TASKS nor a step of its own). */
static int slurm_step(fxcli_getenv_fn env, uint64_t *rank, uint64_t *count)
{
    if (env_number(env, "SLURM_STEP_NUM_TASKS", count) != 1 || *count == 0) return 0;
    return env_number(env, "SLURM_PROCID", rank) == 1 && *rank < *count ? 1 : 0;
}

/* A Slurm job array task: its place among the array's tasks. */
static int from_slurm_array(fxcli_getenv_fn env, fxcli_shard *s, char *err, size_t size)
{
    uint64_t id, min = 0, max, step = 1, count = 0;
    int r = env_number(env, "SLURM_ARRAY_TASK_ID", &id);
    if (r == 0) return 0;
    if (r < 0)
        return failed(err, size, "SLURM_ARRAY_TASK_ID='%s' is not a whole number",
                    env("SLURM_ARRAY_TASK_ID"));
    env_number(env, "SLURM_ARRAY_TASK_MIN", &min);
    if (env_number(env, "SLURM_ARRAY_TASK_STEP", &step) != 1 || step == 0) step = 1;
    if (env_number(env, "SLURM_ARRAY_TASK_COUNT", &count) != 1 &&
        env_number(env, "SLURM_ARRAY_TASK_MAX", &max) == 1 && max >= min)
        count = (max - min) / step + 1;
    if (count == 0)
        return failed(err, size,
                    "SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor "
                    "SLURM_ARRAY_TASK_MAX says how many tasks the array has");
    /* Arrays given as lists (--array=1,5,9) have no step to number them by. */
    if (id < min || (id - min) % step || (id - min) / step >= count)
        return failed(err, size,
                    "SLURM_ARRAY_TASK_ID=%s does not fit the array's range; an array given "
                    "as a list needs --shard K/N",
                    env("SLURM_ARRAY_TASK_ID"));
    s->index = (id - min) / step;
    s->count = count;
    snprintf(s->source, sizeof s->source, "SLURM_ARRAY_TASK_ID=%" PRIu64 ", task %" PRIu64
             " of the array's %" PRIu64, id, s->index, count);
    uint64_t rank, tasks;
    if (slurm_step(env, &rank, &tasks) && tasks > 1) {
        s->index = s->index * tasks + rank;
        s->count = count * tasks;
        size_t n = strlen(s->source);
        snprintf(s->source + n, sizeof s->source - n,
                 ", SLURM_PROCID=%" PRIu64 " of its %" PRIu64 " step tasks", rank, tasks);
    }
    return 1;
}

/* Tasks of an srun step outside an array. */
static int from_slurm_tasks(fxcli_getenv_fn env, fxcli_shard *s)
{
    uint64_t rank, count;
    if (!slurm_step(env, &rank, &count)) return 0;
    s->index = rank;
    s->count = count;
    snprintf(s->source, sizeof s->source,
             "SLURM_PROCID=%" PRIu64 " of SLURM_STEP_NUM_TASKS=%" PRIu64, rank, count);
    return 1;
}

/* The launcher's shard, if any. 1 found, 0 none, -1 error (in err). */
static int from_environment(fxcli_getenv_fn env, fxcli_shard *s, char *err, size_t size)
{
    int r = from_slurm_array(env, s, err, size);
    if (!r) r = from_pair(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", s, err, size);
    if (!r) r = from_pair(env, "PMI_RANK", "PMI_SIZE", s, err, size);
    if (!r) r = from_slurm_tasks(env, s);
    return r;
}

static void whole(fxcli_shard *s, const char *why)
{
    s->index = 0;
    s->count = 1;
    snprintf(s->source, sizeof s->source, "%s", why);
}

int fxcli_shard_resolve(const char *text, fxcli_getenv_fn env, fxcli_shard *s, char *err,
                         size_t size)
{
    if (!env) env = getenv;
    if (text && !strcmp(text, "all")) {
        whole(s, "--shard all");
        return 0;
    }
    if (!text || !strcmp(text, "auto")) {
        int r = from_environment(env, s, err, size);
        if (r != 0) return r < 0 ? -1 : 0;
        if (env("JOB_COMPLETION_INDEX"))
            return failed(err, size,
                        "JOB_COMPLETION_INDEX=%s is set (a Kubernetes indexed job) but the "
                        "number of shards is not: give --shard auto/N with N = the job's "
                        "completions, or --shard all",
                        env("JOB_COMPLETION_INDEX"));
        whole(s, "no launcher variables set");
        return 0;
    }
    const char *slash = strchr(text, '/');
    char left[FXCLI_MESSAGE_MAX];
    uint64_t count;
    if (!slash || (size_t)(slash - text) >= sizeof left || !parse_count(slash + 1, &count))
        return failed(err, size, "--shard: '%s' is not K/N, auto/N, auto or all", text);
    snprintf(left, sizeof left, "%.*s", (int)(slash - text), text);
    if (count == 0) return failed(err, size, "--shard: '%s': N must be at least 1", text);
    if (!strcmp(left, "auto")) {
        int r = from_environment(env, s, err, size);
        if (r < 0) return -1;
        if (r > 0) {
            if (s->count == count) return 0;
            snprintf(err, size, "--shard %s: the launcher says %" PRIu64 " shards (%s)", text,
                     s->count, s->source);
            return -1;
        }
        uint64_t index;
        int k = env_number(env, "JOB_COMPLETION_INDEX", &index);
        if (k == 0)
            return failed(err, size,
                        "--shard %s: no launcher variable gives this process's index (Slurm, "
                        "MPI, PMI or JOB_COMPLETION_INDEX)",
                        text);
        if (k < 0)
            return failed(err, size, "JOB_COMPLETION_INDEX='%s' is not a whole number",
                        env("JOB_COMPLETION_INDEX"));
        s->index = index;
        s->count = count;
        snprintf(s->source, sizeof s->source, "JOB_COMPLETION_INDEX=%" PRIu64 " of --shard auto/%"
                 PRIu64, index, count);
    } else {
        if (!parse_count(left, &s->index))
            return failed(err, size, "--shard: '%s' is not K/N, auto/N, auto or all", text);
        s->count = count;
        snprintf(s->source, sizeof s->source, "--shard %s", text);
    }
    if (s->index >= s->count) {
        snprintf(err, size, "--shard: index %" PRIu64 " is not below the count %" PRIu64
                 " (K counts from 0: 0/%" PRIu64 " … %" PRIu64 "/%" PRIu64 ")",
                 s->index, s->count, s->count, s->count - 1, s->count);
        return -1;
    }
    return 0;
}

bool fxcli_local_rank(fxcli_getenv_fn env, int *rank, const char **variable)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                        "SLURM_LOCALID", NULL};
    if (!env) env = getenv;
    for (const char *const *n = names; *n; n++) {
        uint64_t v;
        if (env_number(env, *n, &v) == 1 && v <= INT32_MAX) {
            *rank = (int)v;
            *variable = *n;
            return true;
        }
    }
    return false;
}
