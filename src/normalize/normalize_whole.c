/* A whole buffer on the GPU (fx_normalize_audio): when the analysis is per frame
 * without state carried through the samples (no DC correction, no compression, no
 * overlap), every frame's levels are measured on the device in one go; the gains
 * follow here from those levels alone (a few doubles per frame), and the ramp runs on
 * the device. With every frame known at once, the minimum filter and the Gaussian have
 * no queue to wait for: each frame's value is computed on its own (normalize_smooth.h,
 * the history's arithmetic in closed form) on the context's threads, in three parallel
 * steps (local gains, minima, smoothed gains) with the short left prefix between.
 */
#include <stdlib.h>
#include <string.h>

#include "normalize_internal.h"
#include "normalize_smooth.h"
#include "normalize_tuning.h"
#include "normalize_whole.h"

bool fxi_nm_whole_eligible(const fxi_nm_params *p, size_t frames)
{
    /* compat's pass-through of short inputs is the stream's; a frame's samples must
     * fit the kernels' 32-bit indices. */
    return frames > 0 && !p->correct_dc && !(p->compress > DBL_EPSILON) &&
           p->advance == p->frame_length && !p->compat &&
           p->advance <= (size_t)INT32_MAX / (size_t)p->channels;
}

void fxi_nm_whole_shape(const fxi_nm_params *p, size_t frames, size_t *count, size_t *last_length)
{
    *count = (frames + p->advance - 1) / p->advance;
    *last_length = frames - (*count - 1) * p->advance;
}

/* The local gain of ffmpeg's pad frame (constant samples: without DC correction every
 * pad frame is the same, so its gains are computed once). */
static fx_status pad_gains(fx_context *ctx, const fxi_nm_params *p, fxi_nm_gain *gains)
{
    fxi_nm_carry carry;
    double *pad = NULL;
    fx_status st = fxi_nm_carry_init(ctx, p, &carry);
    if (st == FX_OK)
        st = fxi_calloc(ctx, p->advance * (size_t)p->channels, sizeof *pad, (void **)&pad);
    if (st == FX_OK) {
        for (size_t i = 0; i < p->advance; i++)
            for (int c = 0; c < p->channels; c++)
                pad[i * (size_t)p->channels + (size_t)c] = fxi_nm_pad_sample(p, &carry, c, i);
        fxi_nm_analyze(ctx, p, &carry, pad, p->advance, gains);
    }
    free(pad);
    fxi_nm_carry_free(&carry);
    return st;
}

/* The frames' arrays of every gain channel (normalize_smooth.h's layout), and what
 * the parallel steps read. */
typedef struct gains_job {
    const fxi_nm_params *p;
    const double *levels;
    size_t count, last_length;
    size_t total; /* real frames and ffmpeg's pads: count + mh + gh */
    size_t queue; /* minimum queue positions: count + 2 gh */
    size_t gain_channels, per_sum;
    bool want_rms;
    double *g, *t;               /* [gc * total + frame] */
    double *m, *mt;              /* [gc * queue + position] */
    fxi_nm_smooth_shape *shapes; /* per gain channel */
    fxi_nm_gain *pad;            /* per gain channel: a pad frame's local gain */
    double *rows;
} gains_job;

static void local_gains(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const gains_job *j = arg;
    for (size_t k = begin; k < end; k++) {
        /* Samples behind one sum of squares: the frame's positions times its channels. */
        const size_t length = k + 1 == j->count ? j->last_length : j->p->advance;
        for (size_t gc = 0; gc < j->gain_channels; gc++) {
            const double *level = j->levels + 2 * (k * j->gain_channels + gc);
            const double rms = j->want_rms ? fxi_nm_rms_of_sum(level[1], length * j->per_sum) : 0.0;
            const fxi_nm_gain gain = fxi_nm_local_gain(j->p, level[0], rms);
            j->g[gc * j->total + k] = gain.gain;
            j->t[gc * j->total + k] = gain.flag;
        }
    }
}

static void minima(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const gains_job *j = arg;
    for (size_t gc = 0; gc < j->gain_channels; gc++)
        for (size_t c = begin; c < end; c++)
            fxi_nm_smooth_minimum(&j->shapes[gc], j->g + gc * j->total, j->t + gc * j->total, c,
                                  j->m + gc * j->queue, j->mt + gc * j->queue);
}

static void smoothed(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const gains_job *j = arg;
    for (size_t gc = 0; gc < j->gain_channels; gc++)
        for (size_t f = begin; f < end; f++)
            j->rows[(f + 1) * j->gain_channels + gc] =
                fxi_nm_smooth_gain(&j->shapes[gc], j->g + gc * j->total, j->m + gc * j->queue,
                                   j->mt + gc * j->queue, j->p->weights, f);
}

static fx_status gains_steps(fx_context *ctx, gains_job *j)
{
    const fxi_nm_params *p = j->p;
    const size_t gcs = j->gain_channels;
    void *mem[4];
    FXI_TRY(fxi_calloc(ctx, 2 * gcs * j->total, sizeof(double), &mem[0]));
    j->g = mem[0];
    j->t = j->g + gcs * j->total;
    FXI_TRY(fxi_calloc(ctx, 2 * gcs * j->queue, sizeof(double), &mem[1]));
    j->m = mem[1];
    j->mt = j->m + gcs * j->queue;
    FXI_TRY(fxi_calloc(ctx, gcs, sizeof *j->shapes, &mem[2]));
    j->shapes = mem[2];
    FXI_TRY(fxi_calloc(ctx, gcs, sizeof(fxi_nm_gain), &mem[3]));
    j->pad = mem[3];

    fxi_parallel_for(ctx, j->count, FXI_NM_WHOLE_GAINS_GRAIN, local_gains, j);
    /* ffmpeg's pad frames drive the histories until every real frame has its gain:
     * mh + gh of them, all alike without DC correction. */
    FXI_TRY(pad_gains(ctx, p, j->pad));
    for (size_t gc = 0; gc < gcs; gc++) {
        for (size_t k = j->count; k < j->total; k++) {
            j->g[gc * j->total + k] = j->pad[gc].gain;
            j->t[gc * j->total + k] = j->pad[gc].flag;
        }
        fxi_nm_smooth_shape *s = &j->shapes[gc];
        s->real = j->count;
        s->min_half = p->min_half;
        s->gauss_half = p->gauss_half;
        s->alt_boundary = p->alt_boundary;
        s->ffmpeg_flags = p->compat || p->threshold == 0.0;
        s->divide_flags = !p->compat && p->threshold > 0.0;
        s->first = fxi_nm_smooth_first(j->g[gc * j->total], p->alt_boundary);
        fxi_nm_smooth_prefix(s, j->g + gc * j->total, j->t + gc * j->total, j->m + gc * j->queue,
                             j->mt + gc * j->queue);
        j->rows[gc] = s->first;
    }
    fxi_parallel_for(ctx, j->count + (size_t)p->gauss_half, FXI_NM_WHOLE_GAINS_GRAIN, minima, j);
    fxi_parallel_for(ctx, j->count, FXI_NM_WHOLE_GAINS_GRAIN, smoothed, j);
    return FX_OK;
}

fx_status fxi_nm_whole_gains(fx_context *ctx, const fxi_nm_params *p, const double *levels,
                             size_t count, size_t last_length, double *rows)
{
    gains_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.levels = levels;
    j.count = count;
    j.last_length = last_length;
    j.total = count + (size_t)p->min_half + (size_t)p->gauss_half;
    j.queue = count + 2 * (size_t)p->gauss_half;
    j.gain_channels = p->coupled ? 1 : (size_t)p->channels;
    j.per_sum = p->coupled ? (size_t)p->channels : 1;
    j.want_rms = p->target_rms > DBL_EPSILON;
    j.rows = rows;
    fx_status st = gains_steps(ctx, &j);
    free(j.g);
    free(j.m);
    free(j.shapes);
    free(j.pad);
    return st;
}
