/* The GPU gain ramp's batches, launch geometry and parameter block, and the
 * per-element work of one thread, shared by the C side (tests, the host
 * launcher) and the kernel (src/normalize/normalize_kernels.cu).
 *
 * A batch is a run of consecutive frames, interleaved, every frame `frame_samples`
 * samples long but the last, which may be shorter (the end of the stream). The
 * kernel reads everything it needs from the batch description and one double
 * array, the parameter block: (frames + 1) rows of G gains (G = 1 when coupled,
 * else one per channel), frame k's ramp going from row k to row k + 1, then C
 * process flags. Indices are 32-bit: a batch holds fewer than 2^31 samples. */
#ifndef FXKIT_NORMALIZE_GPU_PLAN_H
#define FXKIT_NORMALIZE_GPU_PLAN_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "normalize_math.h"
#include "normalize_tuning.h"

/* The ramp's launch shape and batch size (FXI_NM_RAMP_THREADS,
 * FXI_NM_RAMP_BLOCKS_PER_SM, FXI_NM_BATCH_SAMPLES) are in normalize_tuning.h. */

/* The frame levels of a run of frames in consecutive slots: one block per frame
 * and gain channel measures the peak and, with want_rms, the sum of squares. */
typedef struct fxi_nm_levels_job {
    uint32_t frames;       /* frames in the run */
    uint32_t slot_samples; /* between the starts of consecutive frames */
    uint32_t length;       /* positions of each frame but the last */
    uint32_t last_length;  /* of the last frame */
    int channels, gain_channels, want_rms;
} fxi_nm_levels_job;

typedef struct fxi_nm_ramp_batch {
    uint32_t frames;        /* frames in the batch */
    uint32_t frame_samples; /* samples (positions x channels) of each frame but the last */
    uint32_t samples;       /* of the whole batch */
    int channels, gain_channels, ramp;
    double step, last_step; /* 1 / positions of a full frame, and of the last one */
} fxi_nm_ramp_batch;

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks for `elements` samples on a GPU of that many SMs. */
size_t fxi_nm_ramp_blocks(size_t elements, int multiprocessors);
/* Doubles in the parameter block of a batch of `frames` frames. */
size_t fxi_nm_ramp_param_count(size_t frames, int channels, int gain_channels);
/* Whole frames per batch for frames of `frame_samples` samples (at least one). */
size_t fxi_nm_batch_frames(size_t frame_samples);
/* Describe a batch of `frames` frames of `length` positions each, the last one
 * `last_length` positions long. */
void fxi_nm_batch_describe(fxi_nm_ramp_batch *b, size_t frames, size_t length, size_t last_length,
                           int channels, int gain_channels, int ramp);
/* The process flags at the end of the parameter block of `frames` frames. */
void fxi_nm_batch_pack_process(const bool *process, int channels, int gain_channels, size_t frames,
                               double *params);

#ifdef __cplusplus
}
#endif

/* Peak (max |x|, from DBL_EPSILON, NaN ignored) and sum of squares of channel c of
 * n interleaved positions, or of every channel when c < 0: the CPU analysis's
 * quantities in its order of summation (channel after channel, position after
 * position), so the sums have its bits; the maximum does not depend on order. */
static inline FX_HD void fxi_nm_frame_levels(const double *x, uint32_t n, int channels, int c,
                                             int want_rms, double *peak, double *sumsq)
{
    const int first = c < 0 ? 0 : c, last = c < 0 ? channels : c + 1;
    double max = DBL_EPSILON, sum = 0.0;
    for (int ch = first; ch < last; ch++) {
        max = fxi_nm_peak_add(max, x + ch, n, (size_t)channels);
        if (want_rms) sum = fxi_nm_sumsq_add(sum, x + ch, n, (size_t)channels);
    }
    *peak = max;
    *sumsq = sum;
}

/* What block t of the levels kernel measures (blocks frame after frame, gain channel
 * after gain channel within a frame: t = frame * gain_channels + gain channel, the
 * order the host reads the pairs in): the offset of its frame's first sample from the
 * run's start, and fxi_nm_frame_levels' n and c (c < 0: every channel, coupled). */
static inline FX_HD size_t fxi_nm_levels_block(const fxi_nm_levels_job *job, uint32_t t,
                                               uint32_t *n, int *c)
{
    const uint32_t gains = (uint32_t)job->gain_channels;
    const uint32_t k = t / gains, g = t - k * gains;
    *n = k + 1 == job->frames ? job->last_length : job->length;
    *c = gains == 1 ? -1 : (int)g;
    return (size_t)k * job->slot_samples;
}

/* What the thread for sample e of a batch writes: the sample times its gain (the
 * cross-fade of its frame, at its position), or the sample itself in a channel
 * that is not processed. The CPU ramp computes the same expression. */
static inline FX_HD double fxi_nm_batch_element(const double *src, const double *params, uint32_t e,
                                                const fxi_nm_ramp_batch *b)
{
    const uint32_t k = e / b->frame_samples, r = e - k * b->frame_samples;
    const uint32_t channels = (uint32_t)b->channels, pos = r / channels;
    const uint32_t c = r - pos * channels;
    const uint32_t gains = (uint32_t)b->gain_channels;
    if (params[(b->frames + 1) * gains + c] == 0.0) return src[e];
    const uint32_t g = gains == 1 ? 0 : c;
    const double from = params[k * gains + g], to = params[(k + 1) * gains + g];
    if (!b->ramp) return src[e] * to;
    const double step = k + 1 == b->frames ? b->last_step : b->step;
    return src[e] * fxi_nm_fade_step(from, to, step, (double)pos + 1.0);
}

#endif
