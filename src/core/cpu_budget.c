/* How many CPU threads this process should use: the smallest of the limits it was given.
 *
 * A batch node that runs 8 tasks of a 128-core machine must not start 8 × 128 threads.
 * Each task may be limited three ways, and each is honoured:
 *   - its CPU affinity mask (taskset, cpusets, Slurm's or mpirun's task binding);
 *   - its cgroup's CPU quota (docker --cpus, Kubernetes limits, systemd CPUQuota): the
 *     CPUs may all be visible but only quota/period of them usable, so the quota is read
 *     from the process's cgroup and every ancestor (cgroup v2 cpu.max, v1
 *     cpu.cfs_quota_us / cpu.cfs_period_us), rounded up;
 *   - SLURM_CPUS_PER_TASK, for Slurm set-ups that bind no CPUs.
 * The online CPU count is used only when no affinity mask can be read.
 */
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Where cgroup file systems are mounted on every distribution since 2014. */
#define CGROUP_ROOT "/sys/fs/cgroup"
/* The longest line of /proc/self/cgroup read (controllers and a path). */
#define CGROUP_LINE_MAX 4096
/* The most CPUs a quota is taken to mean: beyond it the quota is not a limit. */
#define CGROUP_CPUS_MAX 1048576.0

const char *fx_cpu_limit_name(fx_cpu_limit limit)
{
    switch (limit) {
    case FX_CPU_LIMIT_AFFINITY: return "CPU affinity";
    case FX_CPU_LIMIT_CGROUP: return "cgroup CPU quota";
    case FX_CPU_LIMIT_SLURM: return "SLURM_CPUS_PER_TASK";
    case FX_CPU_LIMIT_ONLINE: break;
    }
    return "online CPUs";
}

/* The first number(s) of a small file; false when it cannot be read. */
static bool read_numbers(const char *path, const char *format, void *a, void *b)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    int want = b ? 2 : 1;
    int got = fscanf(f, format, a, b);
    fclose(f);
    return got == want;
}

/* folder + "/" + name into path; false when it does not fit. */
static bool join(char *path, size_t size, const char *folder, const char *name)
{
    int n = snprintf(path, size, "%s/%s", folder, name);
    return n >= 0 && (size_t)n < size;
}

/* CPUs allowed by the quota in one cgroup folder, 0 when it sets none. */
static double quota_in_folder(const char *folder, bool v2)
{
    char path[PATH_MAX];
    if (v2) {
        char quota[32];
        long long period = 0;
        if (!join(path, sizeof path, folder, "cpu.max") ||
            !read_numbers(path, "%31s %lld", quota, &period))
            return 0;
        if (!strcmp(quota, "max") || period <= 0) return 0;
        double q = strtod(quota, NULL);
        return q > 0 ? q / (double)period : 0;
    }
    long long quota = -1, period = 0;
    if (!join(path, sizeof path, folder, "cpu.cfs_quota_us") ||
        !read_numbers(path, "%lld", &quota, NULL) || quota <= 0)
        return 0;
    if (!join(path, sizeof path, folder, "cpu.cfs_period_us") ||
        !read_numbers(path, "%lld", &period, NULL) || period <= 0)
        return 0;
    return (double)quota / (double)period;
}

/* The smallest quota on the way from `mount + cgroup` up to `mount`; 0 when none. In a
 * container with its own cgroup namespace the path may not exist under the mount (the
 * mount is the container's own cgroup): then the mount's root alone is read. */
static double smallest_quota(const char *mount, const char *cgroup, bool v2)
{
    char folder[PATH_MAX];
    int n = snprintf(folder, sizeof folder, "%s%s", mount, cgroup);
    if (n < 0 || (size_t)n >= sizeof folder) return 0;
    size_t root = strlen(mount);
    if (access(folder, F_OK) != 0) folder[root] = '\0';
    double best = 0;
    for (;;) {
        double q = quota_in_folder(folder, v2);
        if (q > 0 && (best == 0 || q < best)) best = q;
        char *slash = strrchr(folder + root, '/');
        if (!slash) break;
        *slash = '\0';
    }
    return best;
}

/* The process's CPU quota in CPUs (fractional), 0 when it has none. */
static double cgroup_cpus(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return 0;
    char line[CGROUP_LINE_MAX];
    double best = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        /* "ID:CONTROLLERS:PATH"; v2's unified line is "0::PATH". */
        char *first = strchr(line, ':');
        char *second = first ? strchr(first + 1, ':') : NULL;
        if (!second) continue;
        *second = '\0';
        const char *controllers = first + 1, *path = second + 1;
        double q = 0;
        if (!controllers[0]) {
            char probe[PATH_MAX];
            snprintf(probe, sizeof probe, "%s/cgroup.controllers", CGROUP_ROOT);
            if (access(probe, F_OK) == 0) q = smallest_quota(CGROUP_ROOT, path, true);
        } else {
            /* v1: the cpu controller, mounted alone or with cpuacct. */
            char copy[CGROUP_LINE_MAX], *save = NULL;
            snprintf(copy, sizeof copy, "%s", controllers);
            bool has_cpu = false;
            for (char *c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save))
                if (!strcmp(c, "cpu")) has_cpu = true;
            if (has_cpu) {
                char mount[PATH_MAX];
                snprintf(mount, sizeof mount, "%s/%s", CGROUP_ROOT, controllers);
                if (access(mount, F_OK) != 0) snprintf(mount, sizeof mount, "%s/cpu", CGROUP_ROOT);
                q = smallest_quota(mount, path, false);
            }
        }
        if (q > 0 && (best == 0 || q < best)) best = q;
    }
    fclose(f);
    return best < CGROUP_CPUS_MAX ? best : 0;
}

/* SLURM_CPUS_PER_TASK as a positive integer, 0 when unset or not one. */
static int slurm_cpus(void)
{
    const char *text = getenv("SLURM_CPUS_PER_TASK");
    if (!text || !*text) return 0;
    char *end;
    long n = strtol(text, &end, 10);
    return *end == '\0' && n >= 1 && n <= INT_MAX ? (int)n : 0;
}

static void take_if_smaller(fx_cpu_budget *b, int cpus, fx_cpu_limit limit)
{
    if (cpus >= 1 && cpus < b->threads) {
        b->threads = cpus;
        b->limit = limit;
    }
}

void fx_cpu_budget_get(fx_cpu_budget *out)
{
    fx_cpu_budget b;
    memset(&b, 0, sizeof b);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    b.online_cpus = online < 1 ? 1 : online > INT_MAX ? INT_MAX : (int)online;
    b.threads = b.online_cpus;
    b.limit = FX_CPU_LIMIT_ONLINE;

    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) >= 1) {
        b.affinity_cpus = CPU_COUNT(&allowed);
        /* The mask is the truth about which CPUs exist for us, even above the online count. */
        b.threads = b.affinity_cpus;
        b.limit = FX_CPU_LIMIT_AFFINITY;
    }
    b.cgroup_cpus = cgroup_cpus();
    if (b.cgroup_cpus > 0) take_if_smaller(&b, (int)ceil(b.cgroup_cpus), FX_CPU_LIMIT_CGROUP);
    b.slurm_cpus = slurm_cpus();
    take_if_smaller(&b, b.slurm_cpus, FX_CPU_LIMIT_SLURM);
    *out = b;
}

int fx_cpu_count(void)
{
    fx_cpu_budget b;
    fx_cpu_budget_get(&b);
    return b.threads;
}
