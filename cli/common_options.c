/* The options every job shares, in groups a job picks from. Each default is
 * written here once; --help and the parser read the same rows. */
#include <stddef.h>

#include "cli.h"

#define COMMON(field) offsetof(fxcli_common, field)

/* Upper ends of the ranges: generous, but small enough to catch typos. */
#define MAX_THREADS 4096
#define MAX_PIXELS_LIMIT 9007199254740992.0 /* 2^53: every integer up to here is exact */
#define MAX_DIMENSION_LIMIT 2147483647.0
#define MAX_CHANNELS_LIMIT 65535
#define MAX_MEMORY_MIB 2147483647

const char *const fxcli_log_level_names[] = {"error", "warning", "info", "debug", NULL};

static const fx_option output_options[] = {
    {"output", 'o', FX_OPT_STRING, COMMON(output), 0, 0, 0, NULL, NULL, "PATH",
     "output file, or folder (ending in '/' or existing) for several inputs"},
    FX_OPTION_END};

static const fx_option naming_options[] = {
    {"suffix", 0, FX_OPT_STRING, COMMON(suffix), 0, 0, 0, NULL, NULL, "TEXT",
     "add TEXT to output names before the extension"},
    {"in-place", 0, FX_OPT_BOOL, COMMON(in_place), 0, 0, 1, NULL, NULL, NULL,
     "replace each input with its result (atomically)"},
    FX_OPTION_END};

static const fx_option batch_options[] = {
    {"jobs", 'j', FX_OPT_STRING, COMMON(jobs_text), 0, 0, 0, "auto", NULL, "N",
     "process N files at once, each with threads/N threads (auto: as many as the CPUs and "
     "--memory allow, estimated from the images' headers)"},
    {"memory", 0, FX_OPT_INT, COMMON(memory_mib), 0, 0, MAX_MEMORY_MIB, NULL, NULL, "MIB",
     "memory the files processed at once may hold, in MiB (0 = half of physical memory)"},
    {"timings", 0, FX_OPT_BOOL, COMMON(timings), 0, 0, 1, NULL, NULL, NULL,
     "print each file's stage times (ms) on stderr"},
    {"timings-csv", 0, FX_OPT_STRING, COMMON(timings_csv), 0, 0, 0, NULL, NULL, "FILE",
     "append each file's stage times to FILE as CSV"},
    FX_OPTION_END};

static const fx_option scale_out_options[] = {
    {"shard", 0, FX_OPT_STRING, COMMON(shard_text), 0, 0, 0, "auto", NULL, "K/N",
     "do the K-th of N slices (K = 0…N-1) of the inputs sorted by name; auto: from the "
     "launcher (Slurm array or tasks, Open MPI, PMI), else all; auto/N: K from the launcher "
     "or JOB_COMPLETION_INDEX; all: ignore the launcher"},
    {"skip-existing", 0, FX_OPT_BOOL, COMMON(skip_existing), 0, 0, 1, NULL, NULL, NULL,
     "leave inputs whose output exists (outputs are written whole or not at all, so a rerun "
     "of a killed batch does only what is missing)"},
    {"report", 0, FX_OPT_STRING, COMMON(report), 0, 0, 0, NULL, NULL, "FILE",
     "write a JSON report of this process's items (done, failed, refused, existing), its "
     "shard and stage times to FILE ({shard} in FILE becomes the shard's K)"},
    FX_OPTION_END};

static const fx_option device_options[] = {
    {"device", 0, FX_OPT_STRING, COMMON(device), 0, 0, 0, "auto", NULL, "DEV",
     "auto, cpu, gpu, gpu:N, gpu:N,M,… or gpu:all (auto: each item on the CPU or the first "
     "GPU, whichever the cost model expects to be faster, see --explain; "
     "several GPUs share one batch; without a number an MPI or Slurm local rank picks the "
     "GPU)"},
    {"threads", 't', FX_OPT_INT, COMMON(threads), 0, 0, MAX_THREADS, NULL, NULL, "N",
     "CPU threads in all (0 = what the process may use: its CPU affinity, cgroup quota and "
     "SLURM_CPUS_PER_TASK; see fxkit info)"},
    FX_OPTION_END};

static const fx_option limit_options[] = {
    {"max-pixels", 0, FX_OPT_DOUBLE, COMMON(max_pixels), 0, 0, MAX_PIXELS_LIMIT, NULL, NULL, "N",
     "refuse images of more than N pixels (0 = 2^31)"},
    {"max-dimension", 0, FX_OPT_INT, COMMON(max_dimension), 0, 0, MAX_DIMENSION_LIMIT, NULL, NULL,
     "N", "refuse images wider or taller than N (0 = 2^20)"},
    {"max-channels", 0, FX_OPT_INT, COMMON(max_channels), 0, 0, MAX_CHANNELS_LIMIT, NULL, NULL,
     "N", "refuse inputs with more than N channels (0 = 64)"},
    FX_OPTION_END};

static const fx_option general_options[] = {
    {"quiet", 'q', FX_OPT_BOOL, COMMON(quiet), 0, 0, 1, NULL, NULL, NULL,
     "no progress bar or summary; errors only"},
    {"verbose", 'v', FX_OPT_BOOL, COMMON(verbose), 0, 0, 1, NULL, NULL, NULL,
     "show the library's info messages (same as --log-level info)"},
    {"log-level", 0, FX_OPT_ENUM, COMMON(log_level), FX_DEFAULT_LOG_LEVEL, 0, 0, NULL,
     fxcli_log_level_names, "LEVEL", "library messages to show"},
    {"help", 'h', FX_OPT_BOOL, COMMON(help), 0, 0, 1, NULL, NULL, NULL, "show this help"},
    FX_OPTION_END};

const fxcli_option_group fxcli_common_groups[] = {
    {FXCLI_COMMON_OUTPUT, "Output", output_options},
    {FXCLI_COMMON_NAMING, "Output names", naming_options},
    {FXCLI_COMMON_BATCH, "Batch", batch_options},
    {FXCLI_COMMON_BATCH, "Scale-out (see docs/CLUSTER.md)", scale_out_options},
    {FXCLI_COMMON_DEVICE, "Device", device_options},
    {FXCLI_COMMON_LIMITS, "Limits against hostile inputs", limit_options},
    {FXCLI_COMMON_GENERAL, "General", general_options},
};
const size_t fxcli_common_group_count = sizeof fxcli_common_groups / sizeof *fxcli_common_groups;
