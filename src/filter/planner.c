/* The filter plan: analysis, strategy choice and allocation once; runs that only
 * compute.
 *
 * The planner's rules (auto) look at the kernel and the image, never the device, so a
 * result does not depend on where it ran:
 *   1. every tap the same and at least FXI_BOX_MIN_TAPS of them: box (running sums);
 *   2. rank 1 with at least FXI_SEPARABLE_MIN_TAPS taps: separable (kw + kh per output);
 *   3. otherwise direct, unless the non-zero taps reach FXI_FFT_MIN_TAPS and an fft is there
 *      (FFTW in the build on the CPU; cuFFT, always, on the GPU): then fft, which is
 *      within 1 unit of the exact result and far faster there.
 * The thresholds (filter_tuning.h says how they were chosen and how to re-measure them
 * with bench/filter_bench.c) are crossover points on the 2-core development machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/cpu_common.h"
#include "filter/filter_cost.h"
#include "filter/filter_gpu.h"
#include "filter/filter_tuning.h"


struct fx_filter_plan {
    fx_context *ctx;
    fx_image_desc desc;
    fx_filter_strategy strategy;
    fxi_taps taps;
    int border;
    double border_value[FX_MAX_IMAGE_CHANNELS];
    int filter_channels;
    fxi_cpu_state cpu;
    /* fx_filter_run_batch on the CPU: one worker's scratch of cpu.worker_bytes per
     * context thread, each filtering whole images (grown on first use) */
    uint8_t *batch_scratch;
    int batch_workers;
    void *fft_state;
    void *gpu; /* the GPU side, when the plan runs there (filter_gpu.h) */
    bool cpu_ready; /* the CPU side is prepared (geometry, fft state) */
    int gpu_block, gpu_memory_mib; /* kept for a GPU side made at run time */
    bool strategy_forced;
    fxi_device_estimate device;    /* where it runs and why (core/device_cost.h) */
    char strategy_why[320];
    char device_why[160];
    char explain[640];
};

static const char *acc_words(const fxi_taps *t)
{
    switch (t->acc) {
    case FXI_ACC_I32: return "exact integer sums (int32)";
    case FXI_ACC_I64: return "exact integer sums (int64)";
    default: return "float sums, fused multiply-adds in tap order";
    }
}

static fx_filter_strategy choose(const fxi_taps *t, bool fft_available, char *why, size_t size)
{
    const int taps = t->kw * t->kh;
    if (t->box && taps >= FXI_BOX_MIN_TAPS) {
        snprintf(why, size, "all %d taps are equal: running sums, O(1) per output", taps);
        return FX_STRATEGY_BOX;
    }
    if (t->rank1 && taps >= FXI_SEPARABLE_MIN_TAPS) {
        snprintf(why, size, "rank 1: %d + %d taps per output instead of %d", t->kw, t->kh, taps);
        return FX_STRATEGY_SEPARABLE;
    }
    if (t->nonzero >= FXI_FFT_MIN_TAPS && fft_available) {
        snprintf(why, size,
                 "%d non-zero taps, not rank 1: FFT is far faster than direct here (results "
                 "within 1 unit of the exact sums)",
                 t->nonzero);
        return FX_STRATEGY_FFT;
    }
    snprintf(why, size, "%d non-zero taps of %d", t->nonzero, taps);
    return FX_STRATEGY_DIRECT;
}

/* What auto picks on this context: fft needs FFTW on the CPU, cuFFT is always there
 * (an FX_DEVICE_AUTO context with a GPU runs an fft plan there when the build has no
 * FFTW: see plan_device). Only a kernel for which fft would be picked asks whether the
 * GPU is there, which starts a pending auto context's GPU (fxi_gpu_start). */
static fx_filter_strategy auto_choice(fx_context *ctx, const fxi_taps *t, char *why, size_t size)
{
    const fx_filter_strategy s = choose(t, true, why, size);
    if (s != FX_STRATEGY_FFT || fxi_fft_available() || fxi_gpu_start(ctx)) return s;
    return choose(t, false, why, size);
}

/* The plan's item for the cost model. */
static void work_of(const fxi_taps *t, fx_filter_strategy s, const fx_image_desc *d,
                    int filter_channels, bool on_device, bool streamed, fxi_item_cost *cost)
{
    fxi_filter_work w = {s, t->kw, t->kh, t->nonzero, *d, filter_channels, on_device, streamed};
    fxi_filter_cost(&w, cost);
}

fx_device_kind fxi_filter_device_for(fx_context *ctx, const fx_kernel *kernel,
                                     const fx_filter_options *o, const fx_image_desc *d,
                                     fxi_device_estimate *e)
{
    fxi_device_estimate local;
    if (!e) e = &local;
    memset(e, 0, sizeof *e);
    e->device = ctx->device;
    e->reason = FXI_REASON_FORCED;
    if (!fxi_device_auto(ctx)) return e->device;
    fxi_taps t;
    if (fxi_taps_resolve(ctx, kernel, o, d->type, (int64_t)d->width * d->channels, &t) != FX_OK) {
        fx_context_clear_error(ctx);
        return ctx->device;
    }
    char why[320];
    fx_filter_strategy s = o->strategy == FX_STRATEGY_AUTO ? auto_choice(ctx, &t, why, sizeof why)
                                                            : (fx_filter_strategy)o->strategy;
    fxi_item_cost cost;
    /* fft filters whole images on the CPU too (stream.c's auto_band): nothing overlaps. */
    work_of(&t, s, d, d->channels, false, s != FX_STRATEGY_FFT, &cost);
    const bool needs_gpu = s >= FX_STRATEGY_GPU_GLOBAL || (s == FX_STRATEGY_FFT && !fxi_fft_available());
    fxi_taps_free(&t);
    return fxi_device_predict(ctx, &cost, needs_gpu, e);
}

fx_filter_strategy fxi_filter_strategy_for(fx_context *ctx, const fx_kernel *kernel,
                                           const fx_filter_options *o, const fx_image_desc *d)
{
    if (o->strategy != FX_STRATEGY_AUTO) return (fx_filter_strategy)o->strategy;
    fxi_taps t;
    if (fxi_taps_resolve(ctx, kernel, o, d->type, (int64_t)d->width * d->channels, &t) != FX_OK)
        return FX_STRATEGY_AUTO;
    char why[200];
    fx_filter_strategy s = auto_choice(ctx, &t, why, sizeof why);
    fxi_taps_free(&t);
    return s;
}

static fx_status check_forced(fx_context *ctx, fx_filter_strategy s, const fxi_taps *t, bool gpu)
{
    FXI_RETURN_IF(s >= FX_STRATEGY_GPU_GLOBAL && !gpu, FX_ENODEVICE,
                 "--strategy %s runs on a GPU: use it with --device gpu",
                 fx_filter_strategy_name(s));
    FXI_RETURN_IF(s == FX_STRATEGY_SEPARABLE && !t->rank1, FX_EINVAL,
                 "--strategy separable: this %dx%d kernel is not separable (not rank 1)", t->kw,
                 t->kh);
    FXI_RETURN_IF(s == FX_STRATEGY_BOX && !t->box, FX_EINVAL,
                 "--strategy box: this %dx%d kernel is not a box (its taps differ)", t->kw, t->kh);
    FXI_RETURN_IF(s == FX_STRATEGY_FFT && !gpu && !fxi_fft_available(), FX_EUNSUPPORTED,
                 "--strategy fft needs FFTW3 (libfftw3-dev) at build time; this build has none");
    return FX_OK;
}

static fx_status check_desc(fx_context *ctx, const fx_image_desc *d)
{
    FXI_RETURN_IF(!d || d->width < 1 || d->height < 1, FX_EINVAL, "filter: image size %dx%d",
                 d ? d->width : 0, d ? d->height : 0);
    FXI_RETURN_IF(d->channels < 1 || d->channels > FX_MAX_IMAGE_CHANNELS, FX_EINVAL,
                 "filter: %d channels (1 to %d)", d->channels, FX_MAX_IMAGE_CHANNELS);
    FXI_RETURN_IF(!fx_sample_size(d->type), FX_EINVAL, "filter: unknown sample type %d",
                 (int)d->type);
    return FX_OK;
}

/* The strategy runs only on the GPU: a published GPU variant, or fft in a build without
 * FFTW. */
static bool needs_gpu(const fx_filter_plan *p)
{
    return p->strategy >= FX_STRATEGY_GPU_GLOBAL ||
           (p->strategy == FX_STRATEGY_FFT && !fxi_fft_available());
}

static void explain_update(fx_filter_plan *p, const char *kernel_name)
{
    const fxi_taps *t = &p->taps;
    snprintf(p->explain, sizeof p->explain, "%s: %s %dx%d; %s; %s; device: %s",
             fx_filter_strategy_name(p->strategy), kernel_name, t->kw, t->kh, p->strategy_why,
             p->strategy == FX_STRATEGY_FFT ? "float FFT (within 1 unit)" : acc_words(t),
             p->device_why);
}

/* The same strategy on the context's GPU: same bytes (fft within 1 unit). */
static fx_status plan_gpu_side(fx_filter_plan *p)
{
    fx_context *ctx = p->ctx;
    const fxi_taps *t = &p->taps;
    fxi_filter_gpu_desc g = {t,
                             p->desc,
                             p->strategy,
                             p->border,
                             p->border_value,
                             p->filter_channels,
                             p->gpu_block,
                             p->gpu_memory_mib};
    fx_status st = fxi_filter_gpu_prepare(ctx, &g, &p->gpu);
    const char *kernel_words = st == FX_OK ? fxi_filter_gpu_kernel_words(p->gpu) : "";
    if (kernel_words[0]) { /* which GPU kernel runs */
        const size_t used = strlen(p->explain);
        snprintf(p->explain + used, sizeof p->explain - used, "; %s", kernel_words);
    }
    /* No silent fallback to direct: its bytes are not the CPU's fft bytes. */
    if (st == FX_ENOMEM && !p->strategy_forced && p->strategy == FX_STRATEGY_FFT)
        fxi_error_prefix(ctx, "auto picked fft for this %dx%d kernel, as on the CPU "
                              "(--strategy direct needs less GPU memory): ",
                         t->kw, t->kh);
    return st;
}

static fx_status plan_cpu_side(fx_filter_plan *p)
{
    fx_context *ctx = p->ctx;
    const fxi_taps *t = &p->taps;
    const fx_image_desc *d = &p->desc;
    if (p->cpu_ready) return FX_OK;
    fx_status st = FX_OK;
    switch (p->strategy) {
    case FX_STRATEGY_DIRECT:
        st = fxi_direct_geometry(ctx, t, d->width, d->height, d->channels, &p->cpu);
        break;
    case FX_STRATEGY_SEPARABLE:
        st = fxi_separable_geometry(ctx, t, d->width, d->height, d->channels, &p->cpu);
        break;
    case FX_STRATEGY_BOX:
        st = fxi_box_geometry(ctx, t, d->width, d->height, d->channels, &p->cpu);
        break;
    case FX_STRATEGY_FFT: st = fxi_fft_prepare(ctx, t, d, &p->fft_state); break;
    default: break;
    }
    p->cpu_ready = st == FX_OK;
    return st;
}

static fx_status plan_build(fx_filter_plan *p, const fx_kernel *kernel, const fx_filter_options *o,
                            const fxi_device_estimate *decided)
{
    fx_context *ctx = p->ctx;
    const fx_image_desc *d = &p->desc;
    FXI_RETURN_IF(o->border < 0 || o->border > FX_BORDER_WRAP, FX_EINVAL, "filter: border mode %d",
                 o->border);
    FXI_RETURN_IF(o->strategy < 0 || o->strategy >= FX_STRATEGY_COUNT, FX_EUNSUPPORTED,
                 "filter: strategy %d is not one of this build's strategies", o->strategy);
    FXI_TRY(fxi_taps_resolve(ctx, kernel, o, d->type, (int64_t)d->width * d->channels, &p->taps));
    p->border = o->border;
    FXI_TRY(fxi_parse_border_value(ctx, o->border_value, d->channels, p->border_value));
    if (d->type != FX_F32)
        for (int c = 0; c < d->channels; c++)
            FXI_RETURN_IF(p->border_value[c] < 0 || p->border_value[c] > p->taps.maxval ||
                             p->border_value[c] != (double)(int64_t)p->border_value[c],
                         FX_ERANGE, "--border-value %g is not a %s sample (whole numbers 0…%g)",
                         p->border_value[c], fx_sample_type_name(d->type), p->taps.maxval);
    bool has_alpha = d->channels == 2 || d->channels == 4;
    p->filter_channels = has_alpha && o->alpha == FX_ALPHA_KEEP ? d->channels - 1 : d->channels;

    char *why = p->strategy_why;
    const size_t why_size = sizeof p->strategy_why;
    fx_filter_strategy automatic = auto_choice(ctx, &p->taps, why, why_size);
    p->strategy = o->strategy == FX_STRATEGY_AUTO ? automatic : (fx_filter_strategy)o->strategy;
    if (o->strategy != FX_STRATEGY_AUTO) {
        /* A strategy that runs only on a GPU asks for it (a pending auto context starts). */
        const bool gpu = needs_gpu(p) ? fxi_gpu_start(ctx) : ctx->device == FX_DEVICE_GPU;
        FXI_TRY(check_forced(ctx, p->strategy, &p->taps, gpu));
        snprintf(why, why_size, "forced by --strategy (auto would pick %s)",
                 fx_filter_strategy_name(automatic));
    }
    p->strategy_forced = o->strategy != FX_STRATEGY_AUTO;
    p->gpu_block = o->gpu_block;
    p->gpu_memory_mib = o->gpu_memory_mib;
    /* The device, by cost on an FX_DEVICE_AUTO context (a host image assumed: a device
     * image moves the plan to the GPU when it comes, plan_gpu_side). */
    fxi_item_cost cost;
    work_of(&p->taps, p->strategy, d, p->filter_channels, false, false, &cost);
    fx_device_kind where;
    if (decided && fxi_device_auto(ctx) && !needs_gpu(p)) {
        fxi_device_adopt(ctx, decided, &p->device, p->device_why, sizeof p->device_why);
        where = p->device.device;
    } else {
        where = fxi_device_choose(ctx, &cost, needs_gpu(p), &p->device, p->device_why,
                                  sizeof p->device_why);
    }
    explain_update(p, fx_kernel_name(kernel));
    fxi_log(ctx, FX_LOG_INFO, "filter plan: %s", p->explain);
    if (where == FX_DEVICE_GPU) {
        fx_status st = plan_gpu_side(p);
        if (st != FX_ENOMEM || !fxi_device_auto(ctx) || needs_gpu(p)) return st;
        fxi_device_fallback(ctx, "filter", &p->device, p->device_why, sizeof p->device_why);
        explain_update(p, fx_kernel_name(kernel));
    }
    return plan_cpu_side(p);
}

fx_status fx_filter_plan_create(fx_context *ctx, const fx_kernel *kernel,
                                const fx_filter_options *options, const fx_image_desc *desc,
                                fx_filter_plan **out)
{
    return fxi_filter_plan_create_decided(ctx, kernel, options, desc, NULL, out);
}

fx_status fxi_filter_plan_create_decided(fx_context *ctx, const fx_kernel *kernel,
                                         const fx_filter_options *options,
                                         const fx_image_desc *desc,
                                         const fxi_device_estimate *decided,
                                         fx_filter_plan **out)
{
    *out = NULL;
    FXI_RETURN_IF(!kernel, FX_EINVAL, "filter: no kernel");
    FXI_TRY(check_desc(ctx, desc));
    fx_filter_options defaults;
    if (!options) {
        fx_filter_options_init(&defaults);
        options = &defaults;
    }
    FXI_TRY(fx_options_validate(ctx, fx_filter_options_table(), options));
    fx_filter_plan *p;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *p, (void **)&p));
    p->ctx = ctx;
    p->desc = *desc;
    fx_status st = plan_build(p, kernel, options, decided);
    if (st != FX_OK) {
        fx_filter_plan_free(p);
        return st;
    }
    *out = p;
    return FX_OK;
}

void fx_filter_plan_free(fx_filter_plan *p)
{
    if (!p) return;
    fxi_taps_free(&p->taps);
    free(p->cpu.scratch);
    free(p->batch_scratch);
    fxi_fft_release(p->fft_state);
    fxi_filter_gpu_release(p->gpu);
    free(p);
}

fx_filter_strategy fx_filter_plan_strategy(const fx_filter_plan *p)
{
    return p->strategy;
}

const char *fx_filter_plan_explain(const fx_filter_plan *p)
{
    return p->explain;
}

fx_status fxi_filter_check_image(fx_context *ctx, const fx_image_desc *d, const fx_image *img,
                                 const char *which)
{
    FXI_RETURN_IF(!img || !img->data, FX_EINVAL, "filter: %s image has no pixels", which);
    FXI_RETURN_IF(img->width != d->width || img->height != d->height ||
                     img->channels != d->channels || img->type != d->type,
                 FX_EINVAL, "filter: %s image is %dx%dx%d %s, the plan is for %dx%dx%d %s", which,
                 img->width, img->height, img->channels, fx_sample_type_name(img->type), d->width,
                 d->height, d->channels, fx_sample_type_name(d->type));
    size_t row;
    FXI_TRY(fx_image_size(img->width, img->height, img->channels, img->type, &row, NULL));
    FXI_RETURN_IF(img->stride < row, FX_EINVAL, "filter: %s stride %zu is shorter than a row (%zu)",
                 which, img->stride, row);
    return FX_OK;
}

static fx_status check_image(fx_context *ctx, const fx_filter_plan *p, const fx_image *img,
                             const char *which)
{
    FXI_RETURN_IF(img && img->memory != FX_MEMORY_HOST, FX_EINVAL,
                 "filter: the %s image is on the GPU but this plan runs on the CPU", which);
    return fxi_filter_check_image(ctx, &p->desc, img, which);
}

/* The plan's CPU strategy on one image, with this geometry and scratch. */
static fx_status run_cpu(const fx_filter_plan *p, const fx_image *src, fx_image *dst,
                         const fxi_cpu_state *cpu)
{
    fxi_filter_job job = {p->ctx, &p->taps, p->border, {0}, p->desc.channels,
                          p->filter_channels, src, dst};
    memcpy(job.border_value, p->border_value, sizeof job.border_value);
    void *state = (void *)cpu; /* the strategies only read it */
    switch (p->strategy) {
    case FX_STRATEGY_SEPARABLE: return fxi_filter_separable(&job, state);
    case FX_STRATEGY_BOX: return fxi_filter_box(&job, state);
    case FX_STRATEGY_FFT: return fxi_filter_fft(&job, p->fft_state);
    default: return fxi_filter_direct(&job, state);
    }
}

/* FX_DEVICE_AUTO: a device image takes a CPU plan to the GPU (where it lives). */
static fx_status move_to_gpu(fx_filter_plan *p)
{
    FXI_TRY(plan_gpu_side(p));
    p->device.device = FX_DEVICE_GPU;
    p->device.reason = FXI_REASON_ON_DEVICE;
    /* (adopted: the context's GPU is set up from now on) */
    fxi_device_adopt(p->ctx, &p->device, &p->device, p->device_why, sizeof p->device_why);
    char *cut = strstr(p->explain, "; device: ");
    if (cut) snprintf(cut, sizeof p->explain - (size_t)(cut - p->explain), "; device: %s",
                      p->device_why);
    return FX_OK;
}

/* FX_DEVICE_AUTO, run time: a device image takes a CPU plan to the GPU (where it lives);
 * a host image the GPU has no memory for goes to the CPU. */
static fx_status run_auto(fx_filter_plan *p, const fx_image *src, fx_image *dst,
                          fx_timings *timings, bool *done)
{
    fx_context *ctx = p->ctx;
    *done = false;
    if (!fxi_device_auto(ctx) || !src) return FX_OK;
    /* (A device image starts a pending auto context's GPU; without one, the CPU side
     * refuses the image.) */
    if (!p->gpu && src->memory == FX_MEMORY_DEVICE && fxi_gpu_start(ctx)) FXI_TRY(move_to_gpu(p));
    if (!p->gpu || src->memory != FX_MEMORY_HOST || needs_gpu(p)) return FX_OK;
    fx_status st = fxi_filter_gpu_run(p->gpu, src, dst, timings);
    *done = st != FX_ENOMEM;
    if (*done) return st;
    /* Out of GPU memory: this item, and the plan's later ones, on the CPU. */
    fxi_device_fallback(ctx, "filter", &p->device, p->device_why, sizeof p->device_why);
    FXI_TRY(plan_cpu_side(p));
    fxi_filter_gpu_release(p->gpu);
    p->gpu = NULL;
    char *cut = strstr(p->explain, "; device: ");
    if (cut) snprintf(cut, sizeof p->explain - (size_t)(cut - p->explain), "; device: %s",
                      p->device_why);
    return FX_OK;
}

fx_status fx_filter_run(fx_filter_plan *p, const fx_image *src, fx_image *dst, fx_timings *timings)
{
    fx_context *ctx = p->ctx;
    bool done;
    fx_status auto_status = run_auto(p, src, dst, timings, &done);
    if (done || auto_status != FX_OK) return auto_status;
    if (p->gpu) return fxi_filter_gpu_run(p->gpu, src, dst, timings);
    FXI_TRY(check_image(ctx, p, src, "input"));
    FXI_TRY(check_image(ctx, p, dst, "output"));
    FXI_RETURN_IF(src->data == dst->data, FX_EINVAL,
                 "filter: input and output must be different buffers");
    uint64_t t0 = timings ? fx_time_ns() : 0;
    fx_status st = run_cpu(p, src, dst, &p->cpu);
    if (timings) timings->compute_ms += fx_elapsed_ms(t0, fx_time_ns());
    return st;
}

/* ---- batches ---- */

typedef struct cpu_batch {
    const fx_filter_plan *p;
    const fx_image *src;
    fx_image *dst;
    fx_status *failed; /* per worker: its first failure */
} cpu_batch;

/* Images [begin, end) by this worker alone: the plan's geometry with the whole image as
 * one band (the pool is not woken again from inside it) and this worker's scratch. */
static void cpu_batch_images(void *arg, size_t begin, size_t end, int worker)
{
    const cpu_batch *b = arg;
    const fx_filter_plan *p = b->p;
    fxi_cpu_state one = p->cpu;
    one.workers = 1;
    one.band_h = p->desc.height;
    one.scratch = p->batch_scratch + (size_t)worker * p->cpu.worker_bytes;
    for (size_t i = begin; i < end; i++) {
        fx_status st = run_cpu(p, &b->src[i], &b->dst[i], &one);
        if (st != FX_OK && b->failed[worker] == FX_OK) b->failed[worker] = st;
    }
}

static fx_status run_batch_cpu(fx_filter_plan *p, const fx_image *src, fx_image *dst, int count)
{
    fx_context *ctx = p->ctx;
    /* fft plans its own tiles over every thread: image after image */
    if (p->strategy == FX_STRATEGY_FFT || count == 1) {
        for (int i = 0; i < count; i++)
            FXI_TRY(run_cpu(p, &src[i], &dst[i], &p->cpu));
        return FX_OK;
    }
    const int threads = fx_context_threads(ctx) > 0 ? fx_context_threads(ctx) : 1;
    if (p->batch_workers < threads) {
        size_t bytes;
        FXI_RETURN_IF(!fxi_mul_size(p->cpu.worker_bytes, (size_t)threads, &bytes), FX_EOVERFLOW,
                     "filter batch scratch size overflows");
        void *mem = NULL;
        FXI_RETURN_IF(posix_memalign(&mem, FXI_SCRATCH_ALIGN, bytes ? bytes : FXI_SCRATCH_ALIGN),
                     FX_ENOMEM, "out of memory: %zu bytes of filter batch scratch", bytes);
        free(p->batch_scratch);
        p->batch_scratch = mem;
        p->batch_workers = threads;
    }
    fx_status *status; /* zeroed: FX_OK */
    FXI_TRY(fxi_calloc(ctx, (size_t)threads, sizeof *status, (void **)&status));
    cpu_batch b = {p, src, dst, status};
    fxi_parallel_for(ctx, (size_t)count, 1, cpu_batch_images, &b);
    fx_status st = FX_OK;
    for (int w = 0; w < threads && st == FX_OK; w++)
        st = status[w];
    free(status);
    return st;
}

/* Every image of the batch: the plan's shape, distinct buffers, and in the memory of
 * src[0] (whose side runs the batch). */
static fx_status check_batch(fx_filter_plan *p, const fx_image *src, fx_image *dst, int count)
{
    fx_context *ctx = p->ctx;
    FXI_RETURN_IF(count < 0, FX_EINVAL, "filter batch: count %d", count);
    FXI_RETURN_IF(count > 0 && (!src || !dst), FX_EINVAL, "filter batch: no image arrays");
    const fx_memory memory = count > 0 ? src[0].memory : FX_MEMORY_HOST;
    for (int i = 0; i < count; i++) {
        char which[48];
        FXI_RETURN_IF(src[i].memory != memory || dst[i].memory != memory, FX_EINVAL,
                     "filter batch: image %d: the input is in %s memory and the output in %s "
                     "memory, image 0's input in %s memory: give all device images or all host "
                     "images",
                     i, src[i].memory == FX_MEMORY_DEVICE ? "device" : "host",
                     dst[i].memory == FX_MEMORY_DEVICE ? "device" : "host",
                     memory == FX_MEMORY_DEVICE ? "device" : "host");
        snprintf(which, sizeof which, "batch image %d's input", i);
        FXI_TRY(fxi_filter_check_image(ctx, &p->desc, &src[i], which));
        snprintf(which, sizeof which, "batch image %d's output", i);
        FXI_TRY(fxi_filter_check_image(ctx, &p->desc, &dst[i], which));
        FXI_RETURN_IF(src[i].data == dst[i].data, FX_EINVAL,
                     "filter batch: image %d: input and output must be different buffers", i);
    }
    return FX_OK;
}

fx_status fx_filter_run_batch(fx_filter_plan *p, const fx_image *src, fx_image *dst, int count,
                              fx_timings *timings)
{
    fx_context *ctx = p->ctx;
    FXI_TRY(check_batch(p, src, dst, count));
    if (count == 0) return FX_OK;
    const bool device = src[0].memory == FX_MEMORY_DEVICE;
    if (device && !p->gpu && fxi_device_auto(ctx) && fxi_gpu_start(ctx)) FXI_TRY(move_to_gpu(p));
    if (p->gpu && device) return fxi_filter_gpu_run_batch(p->gpu, src, dst, count, timings);
    if (p->gpu) { /* host images on a GPU plan: each as fx_filter_run (bands, auto's fallback) */
        for (int i = 0; i < count; i++)
            FXI_TRY(fx_filter_run(p, &src[i], &dst[i], timings));
        return FX_OK;
    }
    FXI_RETURN_IF(device, FX_EINVAL,
                 "filter batch: the images are on the GPU but this plan runs on the CPU");
    uint64_t t0 = timings ? fx_time_ns() : 0;
    fx_status st = run_batch_cpu(p, src, dst, count);
    if (timings) timings->compute_ms += fx_elapsed_ms(t0, fx_time_ns());
    return st;
}

fx_status fx_filter(fx_context *ctx, const fx_kernel *kernel, const fx_filter_options *options,
                    const fx_image *src, fx_image *dst)
{
    memset(dst, 0, sizeof *dst);
    FXI_RETURN_IF(!src, FX_EINVAL, "filter: no input image");
    fx_image_desc d = fx_image_desc_of(src);
    fx_filter_plan *p;
    FXI_TRY(fx_filter_plan_create(ctx, kernel, options, &d, &p));
    fx_status st =
        src->memory == FX_MEMORY_DEVICE
            ? fx_image_alloc_device(ctx, dst, src->width, src->height, src->channels, src->type)
            : fx_image_alloc(ctx, dst, src->width, src->height, src->channels, src->type);
    if (st == FX_OK) st = fx_filter_run(p, src, dst, NULL);
    if (st != FX_OK) fx_image_free(dst);
    fx_filter_plan_free(p);
    return st;
}
