/* The context: device resolution, threads, limits, GPU state. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

void fx_context_options_init(fx_context_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->device = FX_DEVICE_AUTO;
    opts->log_level = FX_DEFAULT_LOG_LEVEL;
}

static void fill_default_limits(fx_limits *limits)
{
    if (!limits->max_pixels) limits->max_pixels = FX_DEFAULT_MAX_PIXELS;
    if (!limits->max_dimension) limits->max_dimension = FX_DEFAULT_MAX_DIMENSION;
    if (!limits->max_channels) limits->max_channels = FX_DEFAULT_MAX_AUDIO_CHANNELS;
    if (!limits->max_audio_frames) limits->max_audio_frames = FX_DEFAULT_MAX_AUDIO_FRAMES;
}

/* Whether any context of this process has started a GPU: CUDA's start (the driver and the
 * primary context) is paid once a process, by the first. */
static atomic_bool gpu_started_in_process;

bool fxi_gpu_started_in_process(void)
{
    return atomic_load(&gpu_started_in_process);
}

/* GPU `index` for ctx, started (its CUDA context and streams). */
static fx_status open_gpu(fx_context *ctx, int index)
{
    ctx->device = FX_DEVICE_GPU;
    ctx->gpu_index = index;
    FXI_TRY(fxi_gpu_context_init(ctx));
    atomic_store(&gpu_started_in_process, true);
    return FX_OK;
}

/* FX_DEVICE_AUTO's GPU, looked for now: the one asked for (a launcher's local rank), else
 * the first, when one is present and usable; else the CPU, quietly (info level; a
 * warning when a present GPU cannot be used). */
static void start_auto_gpu(fx_context *ctx, int index)
{
    int count = 0;
    fx_status st = fx_gpu_count(ctx, &count);
    if (st != FX_OK || count == 0) {
        fx_context_clear_error(ctx);
        fxi_log(ctx, FX_LOG_INFO, "no usable GPU: running on the CPU");
        ctx->device = FX_DEVICE_CPU;
        return;
    }
    if (index < 0 || index >= count) index = 0;
    if (open_gpu(ctx, index) != FX_OK) {
        fxi_log(ctx, FX_LOG_WARNING, "GPU %d unusable (%s): running on the CPU", index, ctx->error);
        fx_context_clear_error(ctx);
        ctx->device = FX_DEVICE_CPU;
        return;
    }
    fxi_log(ctx, FX_LOG_DEBUG, "GPU %d started for this context", index);
}

bool fxi_gpu_start(fx_context *ctx)
{
    if (ctx->gpu_pending) {
        ctx->gpu_pending = false;
        start_auto_gpu(ctx, ctx->gpu_index);
    }
    return ctx->device == FX_DEVICE_GPU;
}

/* FX_DEVICE_GPU's GPU `index`: there, and started. */
static fx_status open_asked_gpu(fx_context *ctx, int index)
{
    int count = 0;
    FXI_TRY(fx_gpu_count(ctx, &count));
    FXI_RETURN_IF(count == 0, FX_ENODEVICE, "a GPU was requested but none is present");
    FXI_RETURN_IF(index < 0 || index >= count, FX_ENODEVICE,
                 "GPU %d was requested but only %d GPU%s present (0..%d)", index, count,
                 count == 1 ? " is" : "s are", count - 1);
    return open_gpu(ctx, index);
}

/* ---- start_gpu_in_background: open_asked_gpu on a thread of the context's own ----
 * The thread works on a context of its own (`start`), so that it never writes the
 * caller's, which the caller goes on using: its error detail and, on success, its GPU
 * state, which fxi_gpu_join moves into the caller's context. */
struct fxi_gpu_background {
    pthread_t thread;
    pthread_mutex_t lock;
    bool joined;
    fx_status status;
    fx_context start;
};

static void *background_start(void *arg)
{
    fxi_gpu_background *b = arg;
    b->status = open_asked_gpu(&b->start, b->start.gpu_index);
    return NULL;
}

static fx_status start_in_background(fx_context *ctx, int index)
{
    fxi_gpu_background *b = calloc(1, sizeof *b);
    /* Without a thread the start runs here, as without the option. */
    if (!b) return open_asked_gpu(ctx, index);
    b->start.gpu_index = index;
    pthread_mutex_init(&b->lock, NULL);
    if (pthread_create(&b->thread, NULL, background_start, b) != 0) {
        pthread_mutex_destroy(&b->lock);
        free(b);
        return open_asked_gpu(ctx, index);
    }
    ctx->device = FX_DEVICE_GPU; /* as asked: a failed start is an error, never the CPU */
    ctx->gpu_index = index;
    ctx->gpu_background = b;
    return FX_OK;
}

fx_status fxi_gpu_wait(fx_context *ctx)
{
    fxi_gpu_background *b = ctx ? ctx->gpu_background : NULL;
    if (!b) return FX_OK;
    pthread_mutex_lock(&b->lock);
    if (!b->joined) {
        pthread_join(b->thread, NULL);
        b->joined = true;
        ctx->cuda = b->start.cuda;
        b->start.cuda = NULL;
    }
    pthread_mutex_unlock(&b->lock);
    return b->status;
}

fx_status fxi_gpu_join(fx_context *ctx)
{
    const fx_status st = fxi_gpu_wait(ctx);
    if (st != FX_OK) return fxi_error(ctx, st, "%s", ctx->gpu_background->start.error);
    return FX_OK;
}

/* The start, waited for and forgotten (fx_context_destroy: its state, if any, is in
 * ctx->cuda now and released with it; a failed start is not reported again there). */
static void background_free(fx_context *ctx)
{
    if (!ctx->gpu_background) return;
    (void)fxi_gpu_wait(ctx);
    pthread_mutex_destroy(&ctx->gpu_background->lock);
    free(ctx->gpu_background);
    ctx->gpu_background = NULL;
}

fx_status fx_context_gpu_ready(fx_context *ctx)
{
    return fxi_gpu_join(ctx);
}

/* Decide CPU or GPU. An explicit GPU request that cannot be met is an error. AUTO makes
 * no CUDA call here: its GPU is started by the first item that could use it
 * (fxi_gpu_start), so that a process whose items all run on the CPU never pays the CUDA
 * start (~0.3 s on the H200 machine, issue 25) nor carries a CUDA context. */
static fx_status resolve_device(fx_context *ctx, fx_device_kind wanted, int index,
                                bool background)
{
    ctx->requested = wanted;
    ctx->device = FX_DEVICE_CPU;
    if (wanted == FX_DEVICE_CPU) return FX_OK;
    if (wanted == FX_DEVICE_AUTO) {
        ctx->gpu_index = index;
        /* Without CUDA there is nothing to wait for: the CPU now, as before. */
        if (!fx_gpu_built())
            start_auto_gpu(ctx, index);
        else
            ctx->gpu_pending = true;
        return FX_OK;
    }
    if (!fx_gpu_built())
        return fxi_error(ctx, FX_ENODEVICE,
                         "a GPU was requested but this build has no CUDA support");
    if (background) return start_in_background(ctx, index);
    return open_asked_gpu(ctx, index);
}

fx_status fx_context_create(const fx_context_options *opts, fx_context **out)
{
    if (!out) return FX_EINVAL;
    *out = NULL;
    fx_context_options defaults;
    if (!opts) {
        fx_context_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->threads < 0 || opts->gpu_index < 0) return FX_EINVAL;
    if (opts->device != FX_DEVICE_AUTO && opts->device != FX_DEVICE_CPU &&
        opts->device != FX_DEVICE_GPU)
        return FX_EINVAL;

    fx_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return FX_ENOMEM;
    ctx->log = opts->log;
    ctx->log_user = opts->log_user;
    ctx->log_level = opts->log_level;
    ctx->limits = opts->limits;
    fill_default_limits(&ctx->limits);
    ctx->machine_cpus = fx_cpu_count();
    ctx->threads = opts->threads ? opts->threads : ctx->machine_cpus;
    ctx->batch_bytes = opts->batch_bytes;

    fx_status st = FX_OK;
    if (ctx->threads > 1) st = fxi_pool_create(ctx->threads, &ctx->pool);
    if (st == FX_OK)
        st = resolve_device(ctx, opts->device, opts->gpu_index, opts->start_gpu_in_background);
    if (st != FX_OK) {
        fx_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return FX_OK;
}

void fx_context_destroy(fx_context *ctx)
{
    if (!ctx) return;
    background_free(ctx);
    fxi_gpu_context_release(ctx);
    fxi_pool_destroy(ctx->pool);
    free(ctx->scratch);
    free(ctx);
}

fx_device_kind fx_context_device(const fx_context *ctx, int *gpu_index)
{
    /* Whether a GPU is ready is known only once it has been looked for: the question
     * starts a pending auto context's GPU (the context is the caller's, used by one
     * thread at a time; the library's own paths ask fxi_gpu_possible instead). */
    if (ctx->gpu_pending) (void)fxi_gpu_start((fx_context *)ctx);
    if (gpu_index) *gpu_index = ctx->device == FX_DEVICE_GPU ? ctx->gpu_index : -1;
    return ctx->device;
}

int fx_context_threads(const fx_context *ctx)
{
    return ctx->threads;
}

const fx_limits *fx_context_limits(const fx_context *ctx)
{
    return &ctx->limits;
}

fx_status fx_parse_device(const char *text, fx_device_kind *kind, int *gpu_index)
{
    if (!text || !kind) return FX_EINVAL;
    int index = 0;
    if (!strcasecmp(text, "auto")) {
        *kind = FX_DEVICE_AUTO;
    } else if (!strcasecmp(text, "cpu")) {
        *kind = FX_DEVICE_CPU;
    } else if (!strcasecmp(text, "gpu") || !strcasecmp(text, "cuda")) {
        *kind = FX_DEVICE_GPU;
    } else if (!strncasecmp(text, "gpu:", 4) || !strncasecmp(text, "cuda:", 5)) {
        const char *num = strchr(text, ':') + 1;
        char *end;
        long v = strtol(num, &end, 10);
        if (!*num || *end || v < 0 || v > 1024) return FX_EINVAL;
        *kind = FX_DEVICE_GPU;
        index = (int)v;
    } else {
        return FX_EINVAL;
    }
    if (gpu_index) *gpu_index = index;
    return FX_OK;
}
