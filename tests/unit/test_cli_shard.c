/* Scale-out logic of the CLI, called directly: shards from --shard and from each
 * launcher's variables, every item in exactly one shard for N = 1…5 whatever the order of
 * the list, and --device lists (which GPU each worker uses). The end-to-end runs under
 * Slurm and MPI are tests/cluster; the thread counts under taskset and cgroups are
 * tests/cli/test_scale_out.sh. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fxtest.h"

/* A fake environment: NAME=VALUE pairs, NULL-terminated. */
static const char *const *fake_env;

static char *lookup(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = fake_env; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=') return (char *)(*e + n + 1);
    return NULL;
}

/* Resolve `text` under the variables; returns 0 or -1, filling s and err. */
static int shard_under(const char *text, const char *const *env, fxcli_shard *s, char *err)
{
    fake_env = env;
    err[0] = '\0';
    return fxcli_shard_resolve(text, lookup, s, err, FXCLI_MESSAGE_MAX);
}

static void check_shard(const char *text, const char *const *env, uint64_t index, uint64_t count)
{
    fxcli_shard s;
    char err[FXCLI_MESSAGE_MAX];
    if (!FXT_CHECK(shard_under(text, env, &s, err) == 0)) {
        fprintf(stderr, "    %s: %s\n", text ? text : "(auto)", err);
        return;
    }
    FXT_CHECK_EQ(s.index, index);
    FXT_CHECK_EQ(s.count, count);
}

static void check_refused(const char *text, const char *const *env, const char *needle)
{
    fxcli_shard s;
    char err[FXCLI_MESSAGE_MAX];
    FXT_CHECK(shard_under(text, env, &s, err) == -1);
    FXT_CHECK_CONTAINS(err, needle);
}

FXT_TEST(explicit_shards)
{
    static const char *const none[] = {NULL};
    check_shard("0/1", none, 0, 1);
    check_shard("3/4", none, 3, 4);
    check_shard("all", none, 0, 1);
    check_shard(NULL, none, 0, 1);
    check_shard("auto", none, 0, 1);
    check_refused("4/4", none, "not below the count");
    check_refused("1/0", none, "at least 1");
    check_refused("1", none, "not K/N");
    check_refused("-1/3", none, "not K/N");
    check_refused("a/3", none, "not K/N");
    check_refused("1/3x", none, "not K/N");
    check_refused("auto/3", none, "no launcher variable");
    /* --shard all ignores the launcher, even a broken one. */
    static const char *const broken[] = {"SLURM_ARRAY_TASK_ID=x", NULL};
    check_shard("all", broken, 0, 1);
}

FXT_TEST(slurm_arrays)
{
    static const char *const counted[] = {"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=4",
                                          "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=3",
                                          NULL};
    check_shard(NULL, counted, 2, 4);
    check_shard("auto/4", counted, 2, 4);
    check_refused("auto/5", counted, "the launcher says 4 shards");
    /* --array=1-8:2 → 1,3,5,7: task 5 is the third of four. */
    static const char *const stepped[] = {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=1",
                                          "SLURM_ARRAY_TASK_MAX=7", "SLURM_ARRAY_TASK_STEP=2",
                                          NULL};
    check_shard(NULL, stepped, 2, 4);
    /* Each array task running an srun step of 3 tasks: 12 shards in all. */
    static const char *const nested[] = {"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=4",
                                         "SLURM_PROCID=2", "SLURM_STEP_NUM_TASKS=3",
                                         "SLURM_NTASKS=3", NULL};
    check_shard(NULL, nested, 1 * 3 + 2, 12);
    static const char *const uncounted[] = {"SLURM_ARRAY_TASK_ID=1", NULL};
    check_refused(NULL, uncounted, "how many tasks");
    static const char *const listed[] = {"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=1",
                                         "SLURM_ARRAY_TASK_MAX=9", "SLURM_ARRAY_TASK_STEP=2",
                                         NULL};
    check_refused(NULL, listed, "needs --shard K/N");
    static const char *const garbage[] = {"SLURM_ARRAY_TASK_ID=two", NULL};
    check_refused(NULL, garbage, "not a whole number");
}

FXT_TEST(slurm_tasks_only_inside_a_step)
{
    /* srun -n 4: the step's tasks. */
    static const char *const step[] = {"SLURM_PROCID=3", "SLURM_NTASKS=4",
                                       "SLURM_STEP_NUM_TASKS=4", NULL};
    check_shard(NULL, step, 3, 4);
    /* The batch script of sbatch -n 4: one process, which must do everything. */
    static const char *const batch[] = {"SLURM_PROCID=0", "SLURM_NTASKS=4", NULL};
    check_shard(NULL, batch, 0, 1);
}

FXT_TEST(mpi_and_pmi_and_kubernetes)
{
    static const char *const ompi[] = {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=3",
                                       "SLURM_PROCID=0", "SLURM_NTASKS=3", NULL};
    check_shard(NULL, ompi, 1, 3);
    static const char *const pmi[] = {"PMI_RANK=4", "PMI_SIZE=5", NULL};
    check_shard(NULL, pmi, 4, 5);
    static const char *const bad_size[] = {"PMI_RANK=4", "PMI_SIZE=0", NULL};
    check_refused(NULL, bad_size, "not a positive whole number");
    static const char *const too_big[] = {"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=3",
                                          NULL};
    check_refused(NULL, too_big, "is not below");
    static const char *const k8s[] = {"JOB_COMPLETION_INDEX=6", NULL};
    check_shard("auto/8", k8s, 6, 8);
    check_refused("auto/6", k8s, "not below the count");
    check_refused(NULL, k8s, "give --shard auto/N");
}

FXT_TEST(local_rank_picks_in_order)
{
    static const char *const env[] = {"SLURM_LOCALID=1", "OMPI_COMM_WORLD_LOCAL_RANK=3", NULL};
    fake_env = env;
    int rank = -1;
    const char *variable = NULL;
    FXT_CHECK(fxcli_local_rank(lookup, &rank, &variable));
    FXT_CHECK_EQ(rank, 3);
    FXT_CHECK(variable && !strcmp(variable, "OMPI_COMM_WORLD_LOCAL_RANK"));
    static const char *const none[] = {NULL};
    fake_env = none;
    FXT_CHECK(!fxcli_local_rank(lookup, &rank, &variable));
}

/* A list of generated items (no inputs) named out/NNN in a shuffled order. */
static void make_list(fxcli_worklist *list, size_t count, const fxcli_shard *shard)
{
    memset(list, 0, sizeof *list);
    list->shard = shard;
    for (size_t i = 0; i < count; i++) {
        size_t k = (i * 7919) % count; /* a fixed permutation: count is never a multiple */
        char name[64];
        snprintf(name, sizeof name, "/nonexistent-fxkit-shard-test/%03zu.png", k);
        FXT_CHECK(fxcli_worklist_add(list, NULL, strdup(name)) != NULL);
    }
    fxcli_worklist_check(list, false);
}

FXT_TEST(every_item_in_exactly_one_shard)
{
    enum { ITEMS = 23 };
    for (uint64_t n = 1; n <= 5; n++) {
        int seen[ITEMS] = {0};
        size_t largest = 0, smallest = ITEMS;
        for (uint64_t k = 0; k < n; k++) {
            fxcli_shard shard = {.index = k, .count = n};
            fxcli_worklist list;
            make_list(&list, ITEMS, &shard);
            FXT_CHECK_EQ(list.refused, 0);
            size_t mine = 0;
            for (size_t i = 0; i < list.count; i++) {
                if (list.items[i].skip) {
                    FXT_CHECK_EQ(list.items[i].reason, FXCLI_SKIP_ELSEWHERE);
                    continue;
                }
                int number = atoi(strrchr(list.items[i].output, '/') + 1);
                seen[number]++;
                mine++;
            }
            FXT_CHECK_EQ(fxcli_worklist_owned(&list), mine);
            FXT_CHECK_EQ(fxcli_worklist_runnable(&list), mine);
            if (mine > largest) largest = mine;
            if (mine < smallest) smallest = mine;
            fxcli_worklist_free(&list);
        }
        for (int i = 0; i < ITEMS; i++)
            FXT_CHECK_EQ(seen[i], 1);
        /* Strided slices: sizes differ by one at most. */
        FXT_CHECK(largest - smallest <= 1);
    }
}

FXT_TEST(shards_follow_names_not_list_order)
{
    /* Rank by name: 000 → shard 0, 001 → shard 1, 002 → shard 2, 003 → shard 0 … */
    fxcli_shard shard = {.index = 1, .count = 3};
    fxcli_worklist list;
    make_list(&list, 10, &shard);
    for (size_t i = 0; i < list.count; i++) {
        int number = atoi(strrchr(list.items[i].output, '/') + 1);
        FXT_CHECK_EQ(!list.items[i].skip, number % 3 == 1);
    }
    fxcli_worklist_free(&list);
}

/* Parse --device TEXT into a run of the filter job. */
static int parse_device(fxcli_run *run, const char *text)
{
    const fxcli_job *job = NULL;
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++)
        if (!strcmp((*j)->name, "filter")) job = *j;
    if (!FXT_CHECK(job && fxcli_run_init(run, job))) return -1;
    run->common.device = text;
    return fxcli_devices_parse(run);
}

FXT_TEST(device_lists)
{
    fxcli_run run;
    FXT_CHECK_EQ(parse_device(&run, "gpu:0,2,2"), FXCLI_EXIT_OK);
    FXT_CHECK_EQ(run.device, FX_DEVICE_GPU);
    FXT_CHECK_EQ(run.gpu_count, 3);
    /* Workers take the GPUs in turn. */
    int want[] = {0, 2, 2, 0, 2, 2, 0};
    for (int w = 0; w < 7; w++)
        FXT_CHECK_EQ(fxcli_worker_gpu(&run, w), want[w]);
    FXT_CHECK(!run.gpu_by_rank);
    fxcli_run_free(&run);

    FXT_CHECK_EQ(parse_device(&run, "gpu:all"), FXCLI_EXIT_OK);
    FXT_CHECK(run.gpu_all);
    fxcli_run_free(&run);

    FXT_CHECK_EQ(parse_device(&run, "gpu:1"), FXCLI_EXIT_OK);
    FXT_CHECK_EQ(run.gpu_count, 0);
    FXT_CHECK_EQ(fxcli_worker_gpu(&run, 5), 1);
    FXT_CHECK(!run.gpu_by_rank);
    fxcli_run_free(&run);

    FXT_CHECK_EQ(parse_device(&run, "gpu"), FXCLI_EXIT_OK);
    FXT_CHECK(run.gpu_by_rank);
    fxcli_run_free(&run);
    FXT_CHECK_EQ(parse_device(&run, "cpu"), FXCLI_EXIT_OK);
    FXT_CHECK(!run.gpu_by_rank);
    fxcli_run_free(&run);

    static const char *const bad[] = {"gpu:0,", "gpu:,1", "gpu:0,x", "gpu:-1,2", "gpu:alll",
                                      "tpu"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FXT_CHECK_EQ(parse_device(&run, bad[i]), FXCLI_EXIT_USAGE);
        FXT_CHECK_CONTAINS(run.error, bad[i]);
        fxcli_run_free(&run);
    }
}

FXT_TEST(cpu_budget_is_the_smallest_limit)
{
    fx_cpu_budget b;
    fx_cpu_budget_get(&b);
    FXT_CHECK(b.threads >= 1);
    if (b.affinity_cpus) FXT_CHECK(b.threads <= b.affinity_cpus);
    FXT_CHECK_EQ(fx_cpu_count(), b.threads);
    setenv("SLURM_CPUS_PER_TASK", "1", 1);
    fx_cpu_budget_get(&b);
    FXT_CHECK_EQ(b.threads, 1);
    FXT_CHECK_EQ(b.slurm_cpus, 1);
    if (b.affinity_cpus > 1) FXT_CHECK_EQ(b.limit, FX_CPU_LIMIT_SLURM);
    setenv("SLURM_CPUS_PER_TASK", "many", 1);
    fx_cpu_budget_get(&b);
    FXT_CHECK_EQ(b.slurm_cpus, 0);
    unsetenv("SLURM_CPUS_PER_TASK");
}

FXT_MAIN(FXT_CASE(explicit_shards), FXT_CASE(slurm_arrays), FXT_CASE(slurm_tasks_only_inside_a_step),
         FXT_CASE(mpi_and_pmi_and_kubernetes), FXT_CASE(local_rank_picks_in_order),
         FXT_CASE(every_item_in_exactly_one_shard), FXT_CASE(shards_follow_names_not_list_order),
         FXT_CASE(device_lists), FXT_CASE(cpu_budget_is_the_smallest_limit))
