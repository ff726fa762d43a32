/* A whole buffer normalized on the context's GPU (normalize_whole.h), host side.
 *
 * Up: the buffer goes in chunks through two pinned staging blocks that alternate: the
 * host's threads pack chunk i into one (to the file's width where every sample of the
 * chunk packs losslessly, else as doubles) while chunk i - 1 crosses the bus from the
 * other; on the device each packed chunk is widened back to doubles (the reader's own
 * arithmetic, normalize_pcm.h) into the whole buffer. Then the frame levels of every
 * frame (one launch), their pairs down, the gains on the host (per-frame values only),
 * the gain rows up and the ramp (one launch per 2^30 samples) into a second device
 * buffer. Down: the same two blocks alternate, the device filling one while the
 * host's threads copy the other out. One stream: the device's steps run in order, and
 * the host waits on an event per staging block only before reusing it.
 *
 * The staging blocks come from the context's pinned pool and go back to it, so a batch
 * of files on one context pins them once; the two whole-buffer device
 * buffers are the context's own (kept between calls), the rest stream-ordered
 * allocations. */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.h"
#include "normalize/normalize_kernels.h"
#include "normalize/normalize_pcm.h"
#include "normalize/normalize_tuning.h"
#include "normalize/normalize_whole.h"

enum { STAGING = 2 };

typedef struct whole_run {
    fx_context *ctx;
    const fxi_nm_params *p;
    size_t samples;     /* positions x channels */
    size_t count;       /* analysis frames */
    size_t last_length; /* positions of the last */
    int gain_channels;
    fxi_nm_pcm pcm; /* the width the samples try to travel in */
    size_t chunk;   /* samples per staging block (staging_chunk) */
    void *pinned[STAGING];
    size_t pinned_size[STAGING];
    cudaEvent_t done[STAGING]; /* the last copy that used pinned[b] */
    bool done_made[STAGING];
    void *raw; /* device: one packed chunk */
    double *x; /* device: the whole buffer as doubles */
    double *y; /* device: the ramped buffer */
    double *levels_dev, *params_dev;
    double *levels, *rows, *params; /* host */
} whole_run;

/* Samples per staging block: FXI_NM_WHOLE_CHUNK_PER_THREAD per thread of the context,
 * at most FXI_NM_WHOLE_CHUNK_SAMPLES: a library call on all the CPUs packs a large
 * chunk while the last crosses the bus, while each of a batch's one-thread workers
 * (many contexts at once) pins only a little. */
static size_t staging_chunk(fx_context *ctx)
{
    const size_t chunk = (size_t)fx_context_threads(ctx) * FXI_NM_WHOLE_CHUNK_PER_THREAD;
    return chunk < FXI_NM_WHOLE_CHUNK_SAMPLES ? chunk : FXI_NM_WHOLE_CHUNK_SAMPLES;
}

/* Wait until the event's copy is done, yielding the core (fxi_stream_sync_yielding's
 * reason: the process's other threads run meanwhile). */
static fx_status event_wait(fx_context *ctx, cudaEvent_t event)
{
    for (;;) {
        const cudaError_t r = cudaEventQuery(event);
        if (r == cudaSuccess) return FX_OK;
        if (r != cudaErrorNotReady) return fxi_cuda_error(ctx, (int)r, "cudaEventQuery");
        sched_yield();
    }
}

/* ---- host copies into and out of the staging, on the context's threads ---- */

typedef struct pack_job {
    const double *src;
    void *dst;
    fxi_nm_pcm pcm;
    atomic_int failed; /* a sample did not pack: the chunk goes as doubles */
} pack_job;

static void pack_range(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    pack_job *j = arg;
    if (atomic_load_explicit(&j->failed, memory_order_relaxed)) return;
    bool ok = true;
    switch (j->pcm) {
    case FXI_NM_PCM_S16: {
        int16_t *d = j->dst;
        for (size_t i = begin; i < end && ok; i++)
            ok = fxi_nm_pack_s16(j->src[i], &d[i]);
        break;
    }
    case FXI_NM_PCM_S32: {
        int32_t *d = j->dst;
        for (size_t i = begin; i < end && ok; i++)
            ok = fxi_nm_pack_s32(j->src[i], &d[i]);
        break;
    }
    case FXI_NM_PCM_F32: {
        float *d = j->dst;
        for (size_t i = begin; i < end && ok; i++)
            ok = fxi_nm_pack_f32(j->src[i], &d[i]);
        break;
    }
    default: ok = false; break;
    }
    if (!ok) atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
}

/* Samples per packing task: the chunk shared out over the context's threads, but not
 * below FXI_NM_WHOLE_COPY_GRAIN. */
static size_t copy_grain(fx_context *ctx, size_t count)
{
    const size_t share = count / (size_t)fx_context_threads(ctx) + 1;
    return share > FXI_NM_WHOLE_COPY_GRAIN ? share : FXI_NM_WHOLE_COPY_GRAIN;
}

/* Chunk `src` (count samples) into staging `pinned`: packed when every sample packs,
 * else as doubles. Returns the width it went in. */
static fxi_nm_pcm stage_chunk(whole_run *r, const double *src, size_t count, void *pinned)
{
    if (r->pcm != FXI_NM_PCM_F64) {
        pack_job j = {src, pinned, r->pcm, 0};
        fxi_parallel_for(r->ctx, count, copy_grain(r->ctx, count), pack_range, &j);
        if (!atomic_load(&j.failed)) return r->pcm;
    }
    /* samples as rows of one double: contiguous, one memcpy a task */
    fxi_parallel_copy_rows(r->ctx, pinned, sizeof(double), src, sizeof(double), sizeof(double),
                           count);
    return FXI_NM_PCM_F64;
}

/* ---- the steps ---- */

static fx_status whole_alloc(whole_run *r)
{
    fx_context *ctx = r->ctx;
    size_t bytes, levels_pairs, rows;
    FXI_RETURN_IF(!fxi_mul_size(r->samples, sizeof(double), &bytes), FX_EOVERFLOW,
                  "normalize: %zu samples on the GPU overflow", r->samples);
    /* The context's own buffers, kept between calls: a batch on one context allocates
     * them once (the largest file's size). */
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, bytes, (void **)&r->x));
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, bytes, (void **)&r->y));
    const size_t chunk = r->chunk * sizeof(double);
    FXI_TRY(fxi_device_alloc(ctx, chunk, &r->raw));
    for (int b = 0; b < STAGING; b++) {
        FXI_TRY(fxi_pinned_take(ctx, chunk, &r->pinned[b], &r->pinned_size[b]));
        FX_CUDA(cudaEventCreateWithFlags(&r->done[b], cudaEventDisableTiming));
        r->done_made[b] = true;
    }
    const size_t gains = (size_t)r->gain_channels;
    FXI_RETURN_IF(!fxi_mul3_size(2, r->count, gains, &levels_pairs) ||
                      !fxi_mul_size(r->count + 1, gains, &rows),
                  FX_EOVERFLOW, "normalize: %zu frames overflow", r->count);
    FXI_TRY(fxi_device_alloc(ctx, levels_pairs * sizeof(double), (void **)&r->levels_dev));
    FXI_TRY(fxi_calloc(ctx, levels_pairs, sizeof(double), (void **)&r->levels));
    FXI_TRY(fxi_calloc(ctx, rows, sizeof(double), (void **)&r->rows));
    return FX_OK;
}

/* Every sample up into r->x, chunk by chunk through the alternating staging. */
static fx_status whole_upload(whole_run *r, const double *src)
{
    fx_context *ctx = r->ctx;
    for (size_t at = 0, i = 0; at < r->samples; at += r->chunk, i++) {
        const int b = (int)(i % STAGING);
        size_t count = r->samples - at;
        if (count > r->chunk) count = r->chunk;
        FXI_TRY(event_wait(ctx, r->done[b])); /* the copy that last read this block */
        const fxi_nm_pcm pcm = stage_chunk(r, src + at, count, r->pinned[b]);
        if (pcm == FXI_NM_PCM_F64) {
            FXI_TRY(fxi_copy_h2d(ctx, r->x + at, r->pinned[b], count * sizeof(double)));
        } else {
            /* (the next chunk's copy into r->raw queues behind this widening) */
            FXI_TRY(fxi_copy_h2d(ctx, r->raw, r->pinned[b], count * fxi_nm_pcm_bytes(pcm)));
            FXI_TRY(fxi_normalize_unpack_launch(ctx, r->raw, pcm, r->x + at, count));
        }
        FX_CUDA(cudaEventRecord(r->done[b], ctx->cuda->stream));
    }
    return FX_OK;
}

/* The levels of every frame, down to r->levels (the stream waits for them). */
static fx_status whole_levels(whole_run *r)
{
    fx_context *ctx = r->ctx;
    const fxi_nm_params *p = r->p;
    const size_t gains = (size_t)r->gain_channels;
    const size_t per_launch = FXI_NM_WHOLE_LEVELS_BLOCKS / gains;
    for (size_t first = 0; first < r->count; first += per_launch) {
        size_t frames = r->count - first;
        if (frames > per_launch) frames = per_launch;
        const bool last = first + frames == r->count;
        const fxi_nm_levels_job job = {(uint32_t)frames,
                                       (uint32_t)(p->advance * (size_t)p->channels),
                                       (uint32_t)p->advance,
                                       (uint32_t)(last ? r->last_length : p->advance),
                                       p->channels,
                                       r->gain_channels,
                                       p->target_rms > DBL_EPSILON};
        FXI_TRY(fxi_normalize_levels_launch(ctx, r->x + first * p->advance * (size_t)p->channels,
                                            &job, r->levels_dev + 2 * first * gains));
    }
    FXI_TRY(fxi_copy_d2h(ctx, r->levels, r->levels_dev, 2 * r->count * gains * sizeof(double)));
    return fxi_stream_sync_yielding(ctx);
}

/* Frames per ramp launch: whole frames within the launch limit. */
static size_t ramp_launch_frames(const whole_run *r)
{
    const size_t frame_samples = r->p->advance * (size_t)r->p->channels;
    const size_t frames = FXI_NM_WHOLE_LAUNCH_SAMPLES / frame_samples;
    return frames > 0 ? frames : 1;
}

/* The gain rows up, one parameter block per launch (normalize_gpu_plan.h), and the
 * ramp of every frame from r->x into r->y. */
static fx_status whole_ramp(whole_run *r)
{
    fx_context *ctx = r->ctx;
    const fxi_nm_params *p = r->p;
    const size_t gains = (size_t)r->gain_channels, per_launch = ramp_launch_frames(r);
    const size_t launches = (r->count + per_launch - 1) / per_launch;
    /* Each block: (frames + 1) rows of gains, then the process flags. */
    const size_t block = fxi_nm_ramp_param_count(per_launch, p->channels, r->gain_channels);
    size_t total;
    FXI_RETURN_IF(!fxi_mul_size(launches, block, &total), FX_EOVERFLOW,
                  "normalize: gain rows overflow");
    FXI_TRY(fxi_calloc(ctx, total, sizeof(double), (void **)&r->params));
    FXI_TRY(fxi_device_alloc(ctx, total * sizeof(double), (void **)&r->params_dev));
    for (size_t l = 0; l < launches; l++) {
        const size_t first = l * per_launch;
        const size_t frames = r->count - first < per_launch ? r->count - first : per_launch;
        double *params = r->params + l * block;
        memcpy(params, r->rows + first * gains, (frames + 1) * gains * sizeof(double));
        fxi_nm_batch_pack_process(p->process, p->channels, r->gain_channels, frames, params);
    }
    /* From pageable memory: the runtime stages it (a few doubles per frame). */
    FXI_TRY(fxi_copy_h2d(ctx, r->params_dev, r->params, total * sizeof(double)));
    for (size_t l = 0; l < launches; l++) {
        const size_t first = l * per_launch;
        const size_t frames = r->count - first < per_launch ? r->count - first : per_launch;
        const bool last = first + frames == r->count;
        fxi_nm_ramp_batch b;
        fxi_nm_batch_describe(&b, frames, p->advance, last ? r->last_length : p->advance,
                              p->channels, r->gain_channels, p->ramp);
        const size_t at = first * p->advance * (size_t)p->channels;
        FXI_TRY(
            fxi_normalize_ramp_launch(ctx, r->x + at, r->y + at, r->params_dev + l * block, &b));
    }
    return FX_OK;
}

/* Every ramped sample down into out: the device fills one staging block while the
 * host copies the other out. */
static fx_status whole_download(whole_run *r, double *out)
{
    fx_context *ctx = r->ctx;
    const size_t chunk = r->chunk;
    const size_t chunks = (r->samples + chunk - 1) / chunk;
    for (size_t i = 0; i <= chunks; i++) {
        if (i < chunks) { /* queue chunk i (its block was last emptied by the host) */
            const size_t at = i * chunk;
            const size_t count = r->samples - at < chunk ? r->samples - at : chunk;
            const int b = (int)(i % STAGING);
            FXI_TRY(fxi_copy_d2h(ctx, r->pinned[b], r->y + at, count * sizeof(double)));
            FX_CUDA(cudaEventRecord(r->done[b], ctx->cuda->stream));
        }
        if (i > 0) { /* copy chunk i - 1 out while chunk i crosses the bus */
            const size_t at = (i - 1) * chunk;
            const size_t count = r->samples - at < chunk ? r->samples - at : chunk;
            const int b = (int)((i - 1) % STAGING);
            FXI_TRY(event_wait(ctx, r->done[b]));
            fxi_parallel_copy_rows(ctx, out + at, sizeof(double), r->pinned[b], sizeof(double),
                                   sizeof(double), count);
        }
    }
    return FX_OK;
}

static void whole_release(whole_run *r)
{
    fx_context *ctx = r->ctx;
    /* Queued copies may still use the staging. */
    (void)fxi_stream_sync(ctx);
    for (int b = 0; b < STAGING; b++) {
        if (r->done_made[b]) cudaEventDestroy(r->done[b]);
        fxi_pinned_give(ctx, r->pinned[b], r->pinned_size[b]);
    }
    fxi_device_free(ctx, r->raw);
    fxi_device_free(ctx, r->levels_dev);
    fxi_device_free(ctx, r->params_dev);
    free(r->levels);
    free(r->rows);
    free(r->params);
}

static fx_status whole_steps(whole_run *r, const fx_audio *in, double *out)
{
    FXI_TRY(whole_alloc(r));
    FXI_TRY(whole_upload(r, in->data));
    FXI_TRY(whole_levels(r));
    FXI_TRY(fxi_nm_whole_gains(r->ctx, r->p, r->levels, r->count, r->last_length, r->rows));
    FXI_TRY(whole_ramp(r));
    return whole_download(r, out);
}

fx_status fxi_normalize_gpu_whole(fx_context *ctx, const fxi_nm_params *p, const fx_audio *in,
                                  double *out)
{
    FXI_TRY(fxi_cuda_require(ctx, "normalize a whole buffer"));
    whole_run r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.p = p;
    r.samples = in->frames * (size_t)p->channels;
    r.gain_channels = p->coupled ? 1 : p->channels;
    r.pcm = fxi_nm_pcm_of(in->format);
    r.chunk = staging_chunk(ctx);
    fxi_nm_whole_shape(p, in->frames, &r.count, &r.last_length);
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = whole_steps(&r, in, out);
    whole_release(&r);
    fxi_device_leave(&guard);
    return st;
}
