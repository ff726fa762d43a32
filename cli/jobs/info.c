/* fxkit info: version, build features, CPU threads (and which limit set them), the
 * shard a batch would take and the GPUs (text or JSON). */
#include <stddef.h>
#include <stdio.h>

#include "cli.h"

#define BYTES_PER_GIB (1024.0 * 1024.0 * 1024.0)
/* CUDA encodes versions as 1000 * major + 10 * minor. */
#define CUDA_VERSION_MAJOR_UNIT 1000
#define CUDA_VERSION_MINOR_UNIT 10

#define BYTES_PER_GB 1e9

typedef struct info_options {
    int json;
    int rates;
} info_options;

static const fx_option info_table[] = {
    {"json", 0, FX_OPT_BOOL, offsetof(info_options, json), 0, 0, 1, NULL, NULL, NULL,
     "print JSON instead of text"},
    {"rates", 0, FX_OPT_BOOL, offsetof(info_options, rates), 0, 0, 1, NULL, NULL, NULL,
     "measure each GPU's copy rates as --device auto's cost model does (PCIe up and down, "
     "on the device)"},
    FX_OPTION_END};

/* The rates --device auto measures for GPU `index` (fx_gpu_rates_get), on a context of
 * its own; false with the detail in `why` when they cannot be had. */
static bool measure_rates(int index, fx_gpu_rates *r, char *why, size_t size)
{
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_GPU;
    co.gpu_index = index;
    co.threads = 1;
    fx_context *gpu = NULL;
    fx_status st = fx_context_create(&co, &gpu);
    if (st == FX_OK) st = fx_gpu_rates_get(gpu, r);
    snprintf(why, size, "%s", st == FX_OK ? "" : gpu ? fx_context_error(gpu) : fx_strerror(st));
    fx_context_destroy(gpu);
    return st == FX_OK;
}

static void json_features(FILE *out, const char *features)
{
    fputc('[', out);
    bool first = true;
    for (const char *p = features; *p;) {
        while (*p == ' ')
            p++;
        if (!*p) break;
        size_t n = 0;
        while (p[n] && p[n] != ' ')
            n++;
        fprintf(out, "%s\"%.*s\"", first ? "" : ", ", (int)n, p);
        first = false;
        p += n;
    }
    fputc(']', out);
}

static void print_version_pair(FILE *out, const char *label, int version)
{
    if (version > 0)
        fprintf(out, ", %s %d.%d", label, version / CUDA_VERSION_MAJOR_UNIT,
                version % CUDA_VERSION_MAJOR_UNIT / CUDA_VERSION_MINOR_UNIT);
}

/* "2 (CPU affinity; online 2, affinity 2, no cgroup quota, SLURM_CPUS_PER_TASK unset)" */
static void print_threads(FILE *out, const fx_cpu_budget *b)
{
    fprintf(out, "CPU threads: %d (from the %s; online %d, affinity ", b->threads,
            fx_cpu_limit_name(b->limit), b->online_cpus);
    if (b->affinity_cpus) fprintf(out, "%d", b->affinity_cpus);
    else fputs("unknown", out);
    if (b->cgroup_cpus > 0) fprintf(out, ", cgroup quota %.2f CPUs", b->cgroup_cpus);
    else fputs(", no cgroup quota", out);
    if (b->slurm_cpus) fprintf(out, ", SLURM_CPUS_PER_TASK %d)\n", b->slurm_cpus);
    else fputs(", SLURM_CPUS_PER_TASK unset)\n", out);
}

static void json_threads(FILE *out, const fx_cpu_budget *b)
{
    fprintf(out, ",\n  \"cpu_threads\": %d,\n  \"cpu_threads_from\": ", b->threads);
    fxcli_json_string(out, fx_cpu_limit_name(b->limit));
    fprintf(out, ",\n  \"cpu_limits\": {\"online\": %d, \"affinity\": %d, \"cgroup_quota\": ",
            b->online_cpus, b->affinity_cpus);
    fxcli_json_number(out, b->cgroup_cpus);
    fprintf(out, ", \"slurm_cpus_per_task\": %d}", b->slurm_cpus);
}

/* The shard a batch started here would take, or why it would refuse to start. */
static void print_shard(FILE *out, bool json)
{
    fxcli_shard shard;
    char why[FXCLI_MESSAGE_MAX];
    bool ok = fxcli_shard_resolve(NULL, NULL, &shard, why, sizeof why) == 0;
    int rank;
    const char *variable;
    bool ranked = fxcli_local_rank(NULL, &rank, &variable);
    if (json) {
        if (ok)
            fprintf(out, ",\n  \"shard\": {\"index\": %llu, \"count\": %llu, \"source\": ",
                    (unsigned long long)shard.index, (unsigned long long)shard.count);
        else
            fputs(",\n  \"shard\": {\"error\": ", out);
        fxcli_json_string(out, ok ? shard.source : why);
        fputc('}', out);
        if (ranked) {
            fprintf(out, ",\n  \"local_rank\": {\"rank\": %d, \"variable\": ", rank);
            fxcli_json_string(out, variable);
            fputc('}', out);
        }
        return;
    }
    if (ok)
        fprintf(out, "shard: %llu/%llu (%s)\n", (unsigned long long)shard.index,
                (unsigned long long)shard.count, shard.source);
    else
        fprintf(out, "shard: none, a batch would refuse to start: %s\n", why);
    if (ranked)
        fprintf(out, "local rank: %d (%s; picks the GPU for --device gpu or auto)\n", rank,
                variable);
}

static int info_main(fxcli_run *run)
{
    const info_options *o = run->options;
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = 1;
    fx_context *ctx = NULL;
    if (fx_context_create(&co, &ctx) != FX_OK) {
        fxcli_error("info: cannot create a context");
        return FXCLI_EXIT_FAILED;
    }
    fx_cpu_budget cpus;
    fx_cpu_budget_get(&cpus);
    int count = 0;
    fx_status st = fx_gpu_count(ctx, &count);
    if (st != FX_OK) count = 0;
    int code = FXCLI_EXIT_OK;

    if (o->json) {
        printf("{\n  \"version\": ");
        fxcli_json_string(stdout, fx_version());
        printf(",\n  \"features\": ");
        json_features(stdout, fx_build_features());
        printf(",\n  \"cuda\": %s", fx_gpu_built() ? "true" : "false");
        json_threads(stdout, &cpus);
        print_shard(stdout, true);
        printf(",\n  \"gpus\": [");
    } else {
        printf("%s %s\nfeatures: %s\n", FXCLI_PROGRAM, fx_version(), fx_build_features());
        print_threads(stdout, &cpus);
        print_shard(stdout, false);
    }
    for (int i = 0; i < count; i++) {
        fx_gpu_info g;
        fx_context_clear_error(ctx);
        if (fx_gpu_info_get(ctx, i, &g) != FX_OK) {
            fxcli_error("GPU %d: %s", i, fx_context_error(ctx));
            code = FXCLI_EXIT_FAILED;
            continue;
        }
        if (o->json) {
            printf("%s\n    {\"index\": %d, \"name\": ", i ? "," : "", g.index);
            fxcli_json_string(stdout, g.name);
            printf(", \"memory_bytes\": %llu, \"free_bytes\": %llu, \"compute_capability\": "
                   "\"%d.%d\", \"multiprocessors\": %d, \"driver_version\": %d, "
                   "\"runtime_version\": %d",
                   (unsigned long long)g.total_memory, (unsigned long long)g.free_memory,
                   g.cc_major, g.cc_minor, g.multiprocessors, g.driver_version, g.runtime_version);
            fx_gpu_rates r;
            char why[FXCLI_MESSAGE_MAX];
            if (o->rates && measure_rates(i, &r, why, sizeof why))
                printf(", \"upload_bytes_per_s\": %.0f, \"download_bytes_per_s\": %.0f, "
                       "\"device_bytes_per_s\": %.0f, \"rates_ms\": %.2f",
                       r.upload_bytes_per_s, r.download_bytes_per_s, r.device_bytes_per_s,
                       r.measured_ms);
            putchar('}');
        } else {
            printf("GPU %d: %s, %.1f GiB, compute capability %d.%d, %d SMs", g.index, g.name,
                   (double)g.total_memory / BYTES_PER_GIB, g.cc_major, g.cc_minor,
                   g.multiprocessors);
            print_version_pair(stdout, "driver", g.driver_version);
            print_version_pair(stdout, "runtime", g.runtime_version);
            putchar('\n');
            fx_gpu_rates r;
            char why[FXCLI_MESSAGE_MAX];
            if (!o->rates) continue;
            if (measure_rates(i, &r, why, sizeof why))
                printf("  rates: upload %.1f GB/s, download %.1f GB/s (pinned), on the device "
                       "%.0f GB/s; measured in %.1f ms\n",
                       r.upload_bytes_per_s / BYTES_PER_GB, r.download_bytes_per_s / BYTES_PER_GB,
                       r.device_bytes_per_s / BYTES_PER_GB, r.measured_ms);
            else
                printf("  rates: not measured (%s)\n", why);
        }
    }
    if (o->json) {
        printf("%s]", count ? "\n  " : "");
        if (!count) {
            printf(",\n  \"gpu_note\": ");
            fxcli_json_string(stdout, fxcli_no_gpu_reason(st, ctx));
        }
        printf("\n}\n");
    } else if (!count) {
        printf("GPU: none (%s)\n", fxcli_no_gpu_reason(st, ctx));
    }
    fx_context_destroy(ctx);
    return code;
}

const fxcli_job fxcli_job_info = {
    .name = "info",
    .summary = "Show the version, build features, CPU threads, shard and GPUs",
    .usage = "[--json] [--rates]",
    .options = info_table,
    .options_size = sizeof(info_options),
    .common = FXCLI_COMMON_GENERAL,
    .takes_inputs = false,
    .main = info_main,
};
