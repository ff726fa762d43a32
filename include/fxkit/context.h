/* fxkit — the context: device choice, threads, CUDA stream, scratch memory,
 * limits against hostile inputs, log callback and the last error's detail.
 *
 * A context is used by one thread at a time. To work on several files at once,
 * create one context per worker. The library never reads the environment,
 * never prints and never exits: everything it needs is in here.
 */
#ifndef FXKIT_CONTEXT_H
#define FXKIT_CONTEXT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_context fx_context;

typedef enum fx_device_kind {
    /* Each plan (fx_filter_plan_create, fx_equalize_plan_create, fx_normalize_open) runs
     * on the CPU or the first GPU, whichever a cost model expects to be faster for its
     * item. The GPU is looked for and started (CUDA's start) only when an item could use
     * it: a context whose items all stay small makes no CUDA call at all. The model: the
     * plan's arithmetic over the context's CPU threads against the GPU's fixed cost,
     * its arithmetic there and the PCIe transfers of a host image at rates measured once
     * per process (fx_gpu_rates_get). An image in device memory always runs on the GPU;
     * an auto plan the GPU has no memory for runs on the CPU (a warning through the
     * log). The plans' explain calls say which device and why. docs/ALGORITHMS.md,
     * "Choosing the device". */
    FX_DEVICE_AUTO = 0,
    FX_DEVICE_CPU = 1,
    FX_DEVICE_GPU = 2
} fx_device_kind;

typedef enum fx_log_level {
    FX_LOG_ERROR = 0,
    FX_LOG_WARNING = 1,
    FX_LOG_INFO = 2,
    FX_LOG_DEBUG = 3
} fx_log_level;

/* The level fx_context_options_init sets: warnings and errors are delivered. */
#define FX_DEFAULT_LOG_LEVEL FX_LOG_WARNING

/* Receives the library's messages (strategy chosen, fallbacks, errors). Called on
 * the thread that made the call into the library. */
typedef void (*fx_log_fn)(void *user, fx_log_level level, const char *message);

/* Limits applied by every decoder and generator before it allocates. */
typedef struct fx_limits {
    uint64_t max_pixels; /* width * height */
    int max_dimension;   /* width or height */
    int max_channels;    /* image or audio channels (images have at most 4 anyway) */
    uint64_t max_audio_frames;
} fx_limits;

#define FX_DEFAULT_MAX_PIXELS (UINT64_C(1) << 31) /* 2 gigapixels */
#define FX_DEFAULT_MAX_DIMENSION (1 << 20)        /* 1048576 pixels a side */
#define FX_DEFAULT_MAX_AUDIO_CHANNELS 64
#define FX_DEFAULT_MAX_AUDIO_FRAMES (UINT64_C(1) << 36) /* about 18 days at 44.1 kHz */

typedef struct fx_context_options {
    fx_device_kind device; /* FX_DEVICE_AUTO by default */
    int gpu_index;         /* which GPU for FX_DEVICE_GPU; 0 by default */
    int threads;           /* CPU worker threads; 0 = one per online CPU */
    fx_log_fn log;         /* NULL = no messages */
    void *log_user;
    fx_log_level log_level; /* messages above this level are not delivered */
    fx_limits limits;       /* zeros mean the FX_DEFAULT_* values */
    /* FX_DEVICE_AUTO in a batch: the bytes of every item the process will run on its
     * contexts (images and samples as filtered; file sizes will do). The GPU's one-time
     * costs, CUDA's start and each context's first use, are then shared out among the
     * items in proportion to their bytes, rather than charged whole to each item that
     * could start them. 0 (the default): every item as if alone. */
    uint64_t batch_bytes;
    /* FX_DEVICE_GPU: 1 starts the GPU (CUDA's start: ~0.3 s for a process's first
     * context on the H200 machine) on a thread of the context's own, so that
     * fx_context_create returns at once and the caller's first work (opening files,
     * reading the first rows) overlaps it. The first call that needs the GPU waits for
     * the start; a GPU that is not there or cannot start is then that call's error
     * (FX_ENODEVICE, FX_ECUDA), and every later GPU call's, never a silent fall back to
     * the CPU (fx_context_device still says FX_DEVICE_GPU; fx_context_stream gives
     * NULL). fx_context_gpu_ready waits for the start and says how it went. 0 (the
     * default): the GPU is started inside fx_context_create, which fails if it cannot.
     * Where no thread can be made, the start runs inside fx_context_create, as with 0. */
    int start_gpu_in_background;
} fx_context_options;

/* Fill *opts with the defaults (auto device, all CPUs, default limits). */
FX_API void fx_context_options_init(fx_context_options *opts);

/* Create a context. opts may be NULL for the defaults. FX_DEVICE_GPU with no such
 * GPU fails with FX_ENODEVICE; FX_DEVICE_AUTO falls back to the CPU silently
 * (and logs at info level) when it first looks for its GPU, which is not here. On failure *out is NULL; a detail for the failure is
 * available only through the log callback. */
FX_API fx_status fx_context_create(const fx_context_options *opts, fx_context **out);
FX_API void fx_context_destroy(fx_context *ctx);

/* Detail of the last error reported on this context ("" when none). The pointer
 * stays valid until the next call that uses the context. */
FX_API const char *fx_context_error(const fx_context *ctx);
FX_API void fx_context_clear_error(fx_context *ctx);

/* The resolved device: FX_DEVICE_CPU or FX_DEVICE_GPU (never AUTO) and, for a GPU, its
 * index. On an FX_DEVICE_AUTO context FX_DEVICE_GPU means a GPU is ready: each plan
 * still chooses between it and the CPU. Asking an FX_DEVICE_AUTO context whose GPU no
 * item has needed yet starts that GPU (the CUDA start, ~0.3 s for a process's first). */
FX_API fx_device_kind fx_context_device(const fx_context *ctx, int *gpu_index);
/* A context made with start_gpu_in_background: wait until its GPU has started and
 * return how the start went (FX_OK, or its error, whose detail fx_context_error then
 * gives). FX_OK at once on any other context. Like every call on a context, from the
 * thread that uses it. */
FX_API fx_status fx_context_gpu_ready(fx_context *ctx);
FX_API int fx_context_threads(const fx_context *ctx);
FX_API const fx_limits *fx_context_limits(const fx_context *ctx);

/* Number of CPU threads this process should use: what threads = 0 means. The
 * smallest of the limits that apply (fx_cpu_budget_get), at least 1 — never the
 * host's core count when the process was given fewer. */
FX_API int fx_cpu_count(void);

/* Which limit set the thread count. */
typedef enum fx_cpu_limit {
    FX_CPU_LIMIT_ONLINE,   /* the online CPUs (no affinity mask could be read) */
    FX_CPU_LIMIT_AFFINITY, /* the CPU affinity mask: taskset, cpusets, Slurm's task binding */
    FX_CPU_LIMIT_CGROUP,   /* the cgroup's CPU quota (cpu.max, cpu.cfs_quota_us), rounded up */
    FX_CPU_LIMIT_SLURM     /* SLURM_CPUS_PER_TASK */
} fx_cpu_limit;

/* What the process is allowed, limit by limit (0 where a limit does not apply). */
typedef struct fx_cpu_budget {
    int threads;         /* the smallest that applies, at least 1 */
    fx_cpu_limit limit;  /* the one that set it */
    int online_cpus;     /* sysconf(_SC_NPROCESSORS_ONLN) */
    int affinity_cpus;   /* CPUs in the affinity mask */
    double cgroup_cpus;  /* quota / period of the process's cgroup or an ancestor */
    int slurm_cpus;      /* SLURM_CPUS_PER_TASK */
} fx_cpu_budget;

FX_API void fx_cpu_budget_get(fx_cpu_budget *out);
/* "online CPUs", "CPU affinity", "cgroup CPU quota", "SLURM_CPUS_PER_TASK". */
FX_API const char *fx_cpu_limit_name(fx_cpu_limit limit);

/* Parse "auto", "cpu", "gpu" or "gpu:N". */
FX_API fx_status fx_parse_device(const char *text, fx_device_kind *kind, int *gpu_index);

#ifdef __cplusplus
}
#endif
#endif
