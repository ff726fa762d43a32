/* A whole buffer on the GPU (fx_normalize_audio): when the analysis is per frame
 * without state carried through the samples (no DC correction, no compression, no
 * overlap), every frame's levels are measured on the device in one go; the gains
 * follow here from those levels alone (a few doubles per frame: the minimum filter and
 * the Gaussian in the streaming path's own functions and order, so the gains have its
 * bits), and the ramp runs on the device.
 */
#include <stdlib.h>
#include <string.h>

#include "normalize_internal.h"
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

/* Extend every gain channel's history with `gains` and smooth the next frame when it
 * is known (the stream's take_gains, without its log). */
static void add_gains(const fxi_nm_params *p, fxi_nm_history *h, int gain_channels,
                      const fxi_nm_gain *gains, uint64_t *smoothed, double *rows)
{
    bool ready = false;
    for (int gc = 0; gc < gain_channels; gc++)
        ready = fxi_nm_history_add(p, &h[gc], gains[gc]);
    if (*smoothed == 0 && h[0].frames == 1)
        for (int gc = 0; gc < gain_channels; gc++)
            rows[gc] = fxi_nm_history_start(&h[gc]);
    if (!ready) return;
    const uint64_t j = (*smoothed)++;
    for (int gc = 0; gc < gain_channels; gc++) {
        double local, minimum;
        rows[(size_t)(j + 1) * (size_t)gain_channels + (size_t)gc] =
            fxi_nm_history_smooth(p, &h[gc], &local, &minimum);
    }
}

fx_status fxi_nm_whole_gains(fx_context *ctx, const fxi_nm_params *p, const double *levels,
                             size_t frames, size_t last_length, double *rows)
{
    const int gain_channels = p->coupled ? 1 : p->channels;
    const size_t gains_n = (size_t)gain_channels;
    const bool want_rms = p->target_rms > DBL_EPSILON;
    /* Samples behind one sum of squares: a frame's positions times its channels. */
    const size_t per_sum = p->coupled ? (size_t)p->channels : 1;
    fxi_nm_history *h = NULL;
    fxi_nm_gain *gains = NULL;
    FXI_TRY(fxi_calloc(ctx, gains_n, sizeof *h, (void **)&h));
    fx_status st = fxi_calloc(ctx, gains_n, sizeof *gains, (void **)&gains);
    int ready_histories = 0;
    for (; st == FX_OK && ready_histories < gain_channels; ready_histories++)
        st = fxi_nm_history_init(ctx, p, &h[ready_histories]);
    uint64_t smoothed = 0;
    for (size_t k = 0; st == FX_OK && k < frames; k++) {
        const size_t length = k + 1 == frames ? last_length : p->advance;
        for (size_t gc = 0; gc < gains_n; gc++) {
            const double *level = levels + 2 * (k * gains_n + gc);
            const double rms = want_rms ? fxi_nm_rms_of_sum(level[1], length * per_sum) : 0.0;
            gains[gc] = fxi_nm_local_gain(p, level[0], rms);
        }
        add_gains(p, h, gain_channels, gains, &smoothed, rows);
    }
    /* ffmpeg's pad frames drive the histories until every real frame has its gain. */
    if (st == FX_OK && smoothed < frames) st = pad_gains(ctx, p, gains);
    while (st == FX_OK && smoothed < frames)
        add_gains(p, h, gain_channels, gains, &smoothed, rows);
    for (int gc = 0; gc < ready_histories; gc++)
        fxi_nm_history_free(&h[gc]);
    free(h);
    free(gains);
    return st;
}
