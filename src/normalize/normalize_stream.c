/* The streaming normalizer: frames in flight, the gain ramp, the output queue.
 *
 * Input is gathered into frame slots of `advance` samples. A full slot is
 * analysed at once (pre-processed in place, local gains into the history); a
 * frame's smoothed gain is known min_half + gauss_half frames later. On the
 * CPU its gain ramp is then applied when it is pulled, straight into the
 * caller's buffer (one pass over the samples fewer); only when a push needs
 * the slot of a frame not pulled yet does that frame go through the output
 * queue first. On the GPU the slot ring holds a batch of frames more than the
 * look-ahead and has a copy on the device. Frames are analysed there a batch at
 * a time (their levels measured on the device, the gains and filters on the
 * host), unless DC correction, compression or overlap make the analysis
 * sequential, when the host analyses each frame as it comes and the frames go
 * up before their ramp. The ramp runs on the device a batch at a time, back into
 * the host's slots: once a batch's worth of frames has its gains, at the end of
 * the input, or when a push needs the slot of a frame not ramped yet; pulls then
 * copy the ramped samples out. At the end of the input ffmpeg's pad frames drive the history
 * until every real frame has its gain. So the result is the same whatever the
 * chunk sizes, and memory is the look-ahead's slots plus what has not been
 * pulled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normalize_gpu_plan.h"
#include "normalize/normalize_cost.h"
#include "normalize/normalize_gpu.h"
#include "normalize_internal.h"
#include "normalize_ramp.h"
#include "normalize_tuning.h"

struct fx_normalize {
    fx_context *ctx;
    fxi_nm_params p;
    fxi_nm_carry carry;
    int gain_channels;       /* 1 when coupled, else the channel count */
    fxi_nm_history *history; /* one per gain channel */
    fxi_nm_gain *gains;      /* the frame being analysed, per gain channel */

    size_t slot_count, slot_samples;
    double *slots;       /* slot_count * slot_samples: frames in flight */
    double *slot_gain;   /* slot_count * gain_channels: smoothed gains waiting */
    double *previous;    /* per gain channel: the last ramp's end */
    double *pad;         /* one pad frame */
    bool on_gpu;         /* the gain ramp runs on the context's GPU */
    char device_why[160]; /* where it runs and why (fx_normalize_explain) */
    bool cpu_only;        /* auto, after the GPU ran out of memory for this stream */
    size_t batch_frames; /* GPU: frames per ramp batch */
    double *ramp_params; /* GPU: a batch's parameter block */
    uint64_t gpu_ramped; /* GPU: frames ramped in place in their slots */
    bool gpu_analysis;   /* GPU: levels measured on the device, a batch at a time */
    uint64_t pushed;     /* GPU analysis: real frames filled (analysed or not) */
    double *levels;      /* GPU analysis: a batch's (peak, sum of squares) pairs */
    fxi_normalize_gpu *gpu;     /* GPU: the device copy of the slot ring */
    uint64_t analysed;   /* real frames analysed */
    uint64_t smoothed;   /* smoothed gains known (real and pad frames) */
    uint64_t amplified;  /* frames ramped to the output in full */
    size_t amplify_pos;  /* samples of frame `amplified` already ramped */
    size_t fill;         /* frames in the slot being filled */
    size_t last_length;  /* length of the final (partial) frame after flush */
    bool flushed;

    double *out; /* output queue: frames [out_begin, out_end) of out_capacity */
    size_t out_begin, out_end, out_capacity;

    bool timing;
    fx_normalize_stage_times times;
    fx_normalize_gain_fn gain_log;
    void *gain_log_user;
    fx_status failed;
};

static double *slot_of(const fx_normalize *n, uint64_t frame)
{
    return n->slots + (size_t)(frame % n->slot_count) * n->slot_samples;
}

static double *slot_gain_of(const fx_normalize *n, uint64_t frame)
{
    return n->slot_gain + (size_t)(frame % n->slot_count) * (size_t)n->gain_channels;
}

/* Real frames in the slots so far (analysed or, with GPU analysis, waiting). */
static uint64_t filled(const fx_normalize *n)
{
    return n->gpu_analysis ? n->pushed : n->analysed;
}

static size_t length_of(const fx_normalize *n, uint64_t frame)
{
    return n->flushed && frame + 1 == filled(n) ? n->last_length : n->p.advance;
}

/* The first sample of frame `frame`'s slot, counted from the ring's start. */
static size_t slot_offset(const fx_normalize *n, uint64_t frame)
{
    return (size_t)(frame % n->slot_count) * n->slot_samples;
}

/* Samples of `frames` consecutive frames from `first` (the last may be short). */
static size_t run_samples(const fx_normalize *n, uint64_t first, size_t frames)
{
    return (frames - 1) * n->slot_samples +
           length_of(n, first + frames - 1) * (size_t)n->p.channels;
}

/* Frames from `first` on, at most `limit`, that lie in consecutive slots. */
static size_t run_frames(const fx_normalize *n, uint64_t first, uint64_t limit)
{
    const size_t to_wrap = n->slot_count - (size_t)(first % n->slot_count);
    uint64_t frames = limit < to_wrap ? limit : to_wrap;
    return (size_t)(frames < n->batch_frames ? frames : n->batch_frames);
}

static void stage_add(const fx_normalize *n, double *field, uint64_t *since)
{
    if (!n->timing) return;
    uint64_t now = fx_time_ns();
    *field += fx_elapsed_ms(*since, now);
    *since = now;
}

static fx_status gpu_analyze(fx_normalize *n);

/* ---- output queue ---- */

static fx_status out_reserve(fx_normalize *n, size_t frames, double **at)
{
    fx_context *ctx = n->ctx;
    const size_t channels = (size_t)n->p.channels;
    if (n->out_end + frames > n->out_capacity && n->out_begin > 0) {
        memmove(n->out, n->out + n->out_begin * channels,
                (n->out_end - n->out_begin) * channels * sizeof *n->out);
        n->out_end -= n->out_begin;
        n->out_begin = 0;
    }
    if (n->out_end + frames > n->out_capacity) {
        size_t capacity = n->out_capacity ? n->out_capacity : n->p.advance;
        while (capacity < n->out_end + frames)
            FXI_RETURN_IF(!fxi_mul_size(capacity, 2, &capacity), FX_EOVERFLOW,
                         "normalize: output queue overflows");
        size_t bytes;
        FXI_RETURN_IF(!fxi_mul3_size(capacity, channels, sizeof(double), &bytes), FX_EOVERFLOW,
                     "normalize: output queue of %zu frames overflows", capacity);
        double *grown = realloc(n->out, bytes);
        FXI_RETURN_IF(!grown, FX_ENOMEM, "normalize: out of memory for %zu bytes of output", bytes);
        n->out = grown;
        n->out_capacity = capacity;
    }
    *at = n->out + n->out_end * channels;
    n->out_end += frames;
    return FX_OK;
}

/* ---- the gain ramp ---- */

static void ramp_range(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const fxi_nm_ramp_job *job = arg;
    fxi_nm_ramp_range(job, job->first + begin, job->first + end);
}

/* Frames whose gain is known and whose samples are still in their slots. */
static uint64_t ramp_ready_end(const fx_normalize *n)
{
    return n->smoothed < n->analysed ? n->smoothed : n->analysed;
}

/* GPU: ramp `frames` frames from frame gpu_ramped on, consecutive slots, in place;
 * `previous` holds the gain each ramp starts from. */
static fx_status gpu_ramp_run(fx_normalize *n, size_t frames)
{
    const uint64_t first = n->gpu_ramped;
    const size_t gains = (size_t)n->gain_channels;
    double *params = n->ramp_params;
    memcpy(params, n->previous, gains * sizeof *params);
    for (size_t k = 0; k < frames; k++)
        memcpy(params + (k + 1) * gains, slot_gain_of(n, first + k), gains * sizeof *params);
    fxi_nm_batch_pack_process(n->p.process, n->p.channels, n->gain_channels, frames, params);
    fxi_nm_ramp_batch b;
    fxi_nm_batch_describe(&b, frames, n->p.advance, length_of(n, first + frames - 1),
                          n->p.channels, n->gain_channels, n->p.ramp);
    /* Frames the host analysed (and may have changed) go up now. */
    if (!n->gpu_analysis)
        FXI_TRY(fxi_normalize_gpu_upload(n->ctx, n->gpu, slot_offset(n, first), b.samples));
    FXI_TRY(fxi_normalize_gpu_ramp(n->ctx, n->gpu, slot_offset(n, first), &b, params,
                            fxi_nm_ramp_param_count(frames, n->p.channels, n->gain_channels)));
    memcpy(n->previous, params + frames * gains, gains * sizeof *params);
    n->gpu_ramped += frames;
    return FX_OK;
}

/* GPU: ramp every frame whose gain is known, in batches that stop where the
 * slot ring wraps. */
static fx_status gpu_ramp_ready(fx_normalize *n)
{
    uint64_t since = n->timing ? fx_time_ns() : 0;
    const uint64_t end = ramp_ready_end(n);
    while (n->gpu_ramped < end)
        FXI_TRY(gpu_ramp_run(n, run_frames(n, n->gpu_ramped, end - n->gpu_ramped)));
    stage_add(n, &n->times.gain_ms, &since);
    return FX_OK;
}

/* GPU: whether pulls may ramp the frames whose gain is known (a batch's worth,
 * or the end of the stream), rather than wait for more. */
static bool gpu_batch_due(const fx_normalize *n)
{
    return n->flushed || ramp_ready_end(n) - n->gpu_ramped >= n->batch_frames;
}

/* The end of the frames a pull may take now. */
static uint64_t pullable_end(const fx_normalize *n)
{
    return n->on_gpu && !gpu_batch_due(n) ? n->gpu_ramped : ramp_ready_end(n);
}

/* The next `count` samples of frame `amplified` (from amplify_pos), ramped
 * into dst; the frame is done when its last sample is. */
static fx_status ramp_next(fx_normalize *n, double *dst, size_t count)
{
    const uint64_t frame = n->amplified;
    const size_t length = length_of(n, frame);
    const size_t at = n->amplify_pos * (size_t)n->p.channels;
    const double *to = slot_gain_of(n, frame);
    if (n->on_gpu) {
        if (frame >= n->gpu_ramped) FXI_TRY(gpu_ramp_ready(n));
        memcpy(dst, slot_of(n, frame) + at, count * (size_t)n->p.channels * sizeof *dst);
    } else {
        uint64_t since = n->timing ? fx_time_ns() : 0;
        fxi_nm_ramp_job job = {&n->p, slot_of(n, frame) + at, dst, n->previous, to,
                               length, n->amplify_pos};
        size_t grain = FXI_NM_RAMP_GRAIN_SAMPLES / (size_t)n->p.channels + 1;
        fxi_parallel_for(n->ctx, count, grain, ramp_range, &job);
        stage_add(n, &n->times.gain_ms, &since);
    }
    n->amplify_pos += count;
    if (n->amplify_pos == length) {
        /* (the GPU's batches keep their own start gain) */
        if (!n->on_gpu) memcpy(n->previous, to, (size_t)n->gain_channels * sizeof *n->previous);
        n->amplified++;
        n->amplify_pos = 0;
    }
    return FX_OK;
}

/* Ramp the rest of frame `amplified` into the output queue. */
static fx_status amplify_next(fx_normalize *n)
{
    if (n->gpu_analysis && n->amplified >= ramp_ready_end(n)) FXI_TRY(gpu_analyze(n));
    const size_t count = length_of(n, n->amplified) - n->amplify_pos;
    double *dst = NULL;
    FXI_TRY(out_reserve(n, count, &dst));
    return ramp_next(n, dst, count);
}

/* ffmpeg 5.1 passes a stream shorter than the window through without gain
 * (pre-processing included); compat mode only. */
static fx_status pass_through_next(fx_normalize *n)
{
    const uint64_t frame = n->amplified;
    const size_t length = length_of(n, frame);
    double *dst = NULL;
    FXI_TRY(out_reserve(n, length, &dst));
    memcpy(dst, slot_of(n, frame), length * (size_t)n->p.channels * sizeof *dst);
    n->amplified++;
    return FX_OK;
}

/* ---- analysis ---- */

/* Extend the histories with the local gains in n->gains of the frame just
 * analysed, and smooth the next frame's gain when it is known. */
static void take_gains(fx_normalize *n, uint64_t *since)
{
    bool ready = false;
    for (int gc = 0; gc < n->gain_channels; gc++)
        ready = fxi_nm_history_add(&n->p, &n->history[gc], n->gains[gc]);
    if (n->smoothed == 0 && n->history[0].frames == 1)
        for (int gc = 0; gc < n->gain_channels; gc++)
            n->previous[gc] = fxi_nm_history_start(&n->history[gc]);
    stage_add(n, &n->times.min_filter_ms, since);
    if (ready) {
        const uint64_t frame = n->smoothed++;
        double *gain = slot_gain_of(n, frame);
        for (int gc = 0; gc < n->gain_channels; gc++) {
            double local, minimum;
            gain[gc] = fxi_nm_history_smooth(&n->p, &n->history[gc], &local, &minimum);
            if (n->gain_log)
                for (int c = 0; c < n->p.channels; c++)
                    if (n->p.coupled || c == gc)
                        n->gain_log(n->gain_log_user, frame, c, local, minimum, gain[gc]);
        }
    }
    stage_add(n, &n->times.gauss_ms, since);
}

/* Analyse one frame (a real one or a pad) on the host and extend the histories. */
static void process_frame(fx_normalize *n, double *x, size_t length, bool real)
{
    uint64_t since = n->timing ? fx_time_ns() : 0;
    fxi_nm_analyze(n->ctx, &n->p, &n->carry, x, length, n->gains);
    stage_add(n, &n->times.analyze_ms, &since);
    if (real) n->analysed++;
    take_gains(n, &since);
}

/* GPU analysis: every frame filled but not analysed goes up, its levels are
 * measured on the device, and its gains extend the histories, in order. */
static fx_status gpu_analyze(fx_normalize *n)
{
    const size_t gains = (size_t)n->gain_channels;
    const bool want_rms = n->p.target_rms > DBL_EPSILON;
    /* Samples behind one sum of squares: a frame's positions times its channels. */
    const size_t per_sum = n->p.coupled ? (size_t)n->p.channels : 1;
    while (n->analysed < n->pushed) {
        uint64_t since = n->timing ? fx_time_ns() : 0;
        const uint64_t first = n->analysed;
        const size_t frames = run_frames(n, first, n->pushed - first);
        const size_t last_length = length_of(n, first + frames - 1), at = slot_offset(n, first);
        FXI_TRY(fxi_normalize_gpu_upload(n->ctx, n->gpu, at, run_samples(n, first, frames)));
        const fxi_nm_levels_job job = {(uint32_t)frames,     (uint32_t)n->slot_samples,
                                       (uint32_t)n->p.advance, (uint32_t)last_length,
                                       n->p.channels,        n->gain_channels,
                                       want_rms};
        FXI_TRY(fxi_normalize_gpu_levels(n->ctx, n->gpu, at, &job, n->levels));
        stage_add(n, &n->times.analyze_ms, &since);
        for (size_t k = 0; k < frames; k++) {
            const size_t length = k + 1 == frames ? last_length : n->p.advance;
            for (size_t gc = 0; gc < gains; gc++) {
                const double *level = n->levels + 2 * (k * gains + gc);
                const double rms = want_rms ? fxi_nm_rms_of_sum(level[1], length * per_sum) : 0.0;
                n->gains[gc] = fxi_nm_local_gain(&n->p, level[0], rms);
            }
            n->carry.first = false;
            n->analysed++;
            take_gains(n, &since);
        }
    }
    return FX_OK;
}

/* A frame's slot is full (or the input ended inside it): analyse it, now on the
 * host or with its batch on the GPU. */
static fx_status frame_filled(fx_normalize *n, size_t length)
{
    if (!n->gpu_analysis) {
        process_frame(n, slot_of(n, n->analysed), length, true);
        return FX_OK;
    }
    n->pushed++;
    return n->flushed || n->pushed - n->analysed >= n->batch_frames ? gpu_analyze(n) : FX_OK;
}

/* ---- public calls ---- */

static fx_status allocate(fx_normalize *n)
{
    fx_context *ctx = n->ctx;
    const size_t channels = (size_t)n->p.channels, gains = (size_t)n->gain_channels;
    n->on_gpu = fxi_normalize_device(ctx, n->p.channels, n->p.rate, 0, n->device_why,
                                     sizeof n->device_why) == FX_DEVICE_GPU &&
                !n->cpu_only;
    n->slot_count = (size_t)n->p.min_half + (size_t)n->p.gauss_half + 2;
    FXI_RETURN_IF(!fxi_mul_size(n->p.advance, channels, &n->slot_samples), FX_EOVERFLOW,
                 "normalize: frame of %zu samples x %d channels overflows", n->p.advance,
                 n->p.channels);
    if (n->on_gpu) {
        /* The GPU's indices are 32-bit (normalize_gpu_plan.h). */
        FXI_RETURN_IF(n->slot_samples > INT32_MAX, FX_EOVERFLOW,
                     "normalize: a frame of %zu samples is too long for the GPU",
                     n->slot_samples);
        n->batch_frames = fxi_nm_batch_frames(n->slot_samples);
        n->slot_count += n->batch_frames;
        /* Frame after frame on the host when the analysis carries state through
         * the samples (DC, compression) or measures an overlapping window. */
        n->gpu_analysis = !n->p.correct_dc && !(n->p.compress > DBL_EPSILON) &&
                          n->p.advance == n->p.frame_length;
    }
    size_t slot_total;
    FXI_RETURN_IF(!fxi_mul_size(n->slot_count, n->slot_samples, &slot_total), FX_EOVERFLOW,
                 "normalize: %zu frames in flight overflow", n->slot_count);
    void *mem;
    /* On the GPU the ring is pinned, so that frames go up and come back by DMA. */
    if (n->on_gpu) {
        FXI_TRY(fxi_normalize_gpu_prepare(ctx, slot_total, &n->slots, &n->gpu));
    } else {
        FXI_TRY(fxi_calloc(ctx, slot_total, sizeof(double), &mem));
        n->slots = mem;
    }
    FXI_TRY(fxi_calloc(ctx, n->slot_samples, sizeof(double), &mem));
    n->pad = mem;
    FXI_TRY(fxi_calloc(ctx, n->slot_count * gains, sizeof(double), &mem));
    n->slot_gain = mem;
    FXI_TRY(fxi_calloc(ctx, gains, sizeof(double), &mem));
    n->previous = mem;
    if (n->on_gpu) {
        FXI_TRY(fxi_calloc(ctx,
                          fxi_nm_ramp_param_count(n->batch_frames, n->p.channels,
                                                  n->gain_channels),
                          sizeof(double), &mem));
        n->ramp_params = mem;
    }
    if (n->gpu_analysis) {
        FXI_TRY(fxi_calloc(ctx, 2 * n->batch_frames * gains, sizeof(double), &mem));
        n->levels = mem;
    }
    FXI_TRY(fxi_calloc(ctx, gains, sizeof(fxi_nm_gain), &mem));
    n->gains = mem;
    FXI_TRY(fxi_calloc(ctx, gains, sizeof(fxi_nm_history), &mem));
    n->history = mem;
    for (size_t gc = 0; gc < gains; gc++)
        FXI_TRY(fxi_nm_history_init(ctx, &n->p, &n->history[gc]));
    return fxi_nm_carry_init(ctx, &n->p, &n->carry);
}

static fx_status open_on(fx_context *ctx, const fx_normalize_options *opts, int channels,
                         int rate, bool cpu_only, fx_normalize **out);

fx_status fx_normalize_open(fx_context *ctx, const fx_normalize_options *opts, int channels,
                            int rate, fx_normalize **out)
{
    fx_status st = open_on(ctx, opts, channels, rate, false, out);
    if (st != FX_ENOMEM || !fxi_device_auto(ctx)) return st;
    /* FX_DEVICE_AUTO: the GPU had no memory for this stream; the CPU takes it. */
    fxi_log(ctx, FX_LOG_WARNING, "normalize: the GPU ran out of memory (%s): this stream runs "
            "on the CPU", ctx->error);
    fx_context_clear_error(ctx);
    st = open_on(ctx, opts, channels, rate, true, out);
    if (st == FX_OK)
        snprintf((*out)->device_why, sizeof (*out)->device_why,
                 "cpu (auto: the GPU ran out of memory)");
    return st;
}

static fx_status open_on(fx_context *ctx, const fx_normalize_options *opts, int channels,
                         int rate, bool cpu_only, fx_normalize **out)
{
    *out = NULL;
    void *mem;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof(fx_normalize), &mem));
    fx_normalize *n = mem;
    n->ctx = ctx;
    n->cpu_only = cpu_only;
    fx_status st = fxi_nm_params_resolve(ctx, opts, channels, rate, &n->p);
    if (st == FX_OK) {
        n->gain_channels = n->p.coupled ? 1 : channels;
        st = allocate(n);
    }
    if (st != FX_OK) {
        fx_normalize_close(n);
        return st;
    }
    *out = n;
    return FX_OK;
}

void fx_normalize_close(fx_normalize *n)
{
    if (!n) return;
    if (n->history)
        for (int gc = 0; gc < n->gain_channels; gc++)
            fxi_nm_history_free(&n->history[gc]);
    free(n->history);
    fxi_nm_carry_free(&n->carry);
    fxi_nm_params_free(&n->p);
    free(n->gains);
    if (!n->gpu) free(n->slots); /* else the GPU's pinned ring */
    free(n->slot_gain);
    free(n->previous);
    free(n->pad);
    free(n->ramp_params);
    free(n->levels);
    fxi_normalize_gpu_release(n->ctx, n->gpu);
    free(n->out);
    free(n);
}

void fx_normalize_info_get(const fx_normalize *n, fx_normalize_info *info)
{
    memset(info, 0, sizeof *info);
    info->frame_length = (int)n->p.frame_length;
    info->advance = (int)n->p.advance;
    info->min_window = 2 * n->p.min_half + 1;
    info->gauss_window = 2 * n->p.gauss_half + 1;
    info->latency_frames = n->p.min_half + n->p.gauss_half;
    info->on_gpu = n->on_gpu;
}

const char *fx_normalize_explain(const fx_normalize *n)
{
    return n ? n->device_why : "";
}

void fx_normalize_set_timing(fx_normalize *n, int enabled)
{
    n->timing = enabled != 0;
}

void fx_normalize_stage_times_get(const fx_normalize *n, fx_normalize_stage_times *t)
{
    *t = n->times;
}

void fx_normalize_set_gain_log(fx_normalize *n, fx_normalize_gain_fn fn, void *user)
{
    n->gain_log = fn;
    n->gain_log_user = user;
}

/* Record the first failure: the stream is unusable after it. */
static fx_status fail(fx_normalize *n, fx_status st)
{
    if (st != FX_OK && n->failed == FX_OK) n->failed = st;
    return st;
}

fx_status fx_normalize_push(fx_normalize *n, const double *in, size_t frames)
{
    fx_context *ctx = n->ctx;
    FXI_RETURN_IF(n->failed != FX_OK, FX_EBADSTATE, "normalize: the stream failed earlier");
    FXI_RETURN_IF(n->flushed, FX_EBADSTATE, "normalize: push after flush");
    FXI_RETURN_IF(!in && frames, FX_EINVAL, "normalize: no samples to push");
    const size_t channels = (size_t)n->p.channels;
    while (frames > 0) {
        /* A frame not pulled yet whose slot this one needs goes to the queue. */
        while (n->fill == 0 && n->amplified + n->slot_count <= filled(n))
            FXI_TRY(fail(n, amplify_next(n)));
        size_t take = n->p.advance - n->fill;
        if (take > frames) take = frames;
        memcpy(slot_of(n, filled(n)) + n->fill * channels, in, take * channels * sizeof *in);
        n->fill += take;
        in += take * channels;
        frames -= take;
        if (n->fill == n->p.advance) {
            n->fill = 0;
            FXI_TRY(fail(n, frame_filled(n, n->p.advance)));
        }
    }
    return FX_OK;
}

static fx_status drain(fx_normalize *n)
{
    if (n->analysed == 0) return FX_OK;
    if (n->p.compat && n->smoothed == 0) {
        while (n->amplified < n->analysed)
            FXI_TRY(pass_through_next(n));
        return FX_OK;
    }
    const size_t channels = (size_t)n->p.channels;
    while (n->smoothed < n->analysed) {
        /* A pad sample depends on its channel and the parity of its position
         * only: fill the first two rows, then double the filled part (an even
         * number of rows, so the parities line up). */
        const size_t rows = n->p.advance;
        for (size_t i = 0; i < 2 && i < rows; i++)
            for (size_t c = 0; c < channels; c++)
                n->pad[i * channels + c] = fxi_nm_pad_sample(&n->p, &n->carry, (int)c, i);
        for (size_t done = 2; done < rows; done *= 2) {
            const size_t copy = done < rows - done ? done : rows - done;
            memcpy(n->pad + done * channels, n->pad, copy * channels * sizeof *n->pad);
        }
        process_frame(n, n->pad, n->p.advance, false);
    }
    return FX_OK;
}

fx_status fx_normalize_flush(fx_normalize *n)
{
    fx_context *ctx = n->ctx;
    FXI_RETURN_IF(n->failed != FX_OK, FX_EBADSTATE, "normalize: the stream failed earlier");
    if (n->flushed) return FX_OK;
    n->flushed = true;
    if (n->fill > 0) {
        n->last_length = n->fill;
        n->fill = 0;
        FXI_TRY(fail(n, frame_filled(n, n->last_length)));
    } else {
        n->last_length = n->p.advance;
    }
    if (n->gpu_analysis) FXI_TRY(fail(n, gpu_analyze(n)));
    return fail(n, drain(n));
}

size_t fx_normalize_ready(const fx_normalize *n)
{
    size_t ready = n->out_end - n->out_begin;
    const uint64_t end = pullable_end(n);
    for (uint64_t frame = n->amplified; frame < end; frame++)
        ready += length_of(n, frame);
    return ready - (n->amplified < end ? n->amplify_pos : 0);
}

fx_status fx_normalize_pull(fx_normalize *n, double *out, size_t max_frames, size_t *got)
{
    fx_context *ctx = n->ctx;
    *got = 0;
    FXI_RETURN_IF(n->failed != FX_OK, FX_EBADSTATE, "normalize: the stream failed earlier");
    if (max_frames == 0 || fx_normalize_ready(n) == 0) return FX_OK;
    FXI_RETURN_IF(!out, FX_EINVAL, "normalize: no room to pull into");
    const size_t channels = (size_t)n->p.channels;
    /* First what went through the queue, then frames ramped straight into out. */
    size_t done = n->out_end - n->out_begin;
    if (done > max_frames) done = max_frames;
    if (done) memcpy(out, n->out + n->out_begin * channels, done * channels * sizeof *out);
    n->out_begin += done;
    if (n->out_begin == n->out_end) n->out_begin = n->out_end = 0;
    while (done < max_frames && n->amplified < pullable_end(n)) {
        size_t take = length_of(n, n->amplified) - n->amplify_pos;
        if (take > max_frames - done) take = max_frames - done;
        FXI_TRY(fail(n, ramp_next(n, out + done * channels, take)));
        done += take;
    }
    *got = done;
    return FX_OK;
}
