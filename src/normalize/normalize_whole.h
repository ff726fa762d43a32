/* A whole buffer normalized on the GPU at once (normalize_whole.c: which buffers
 * qualify and their gains from the frame levels; normalize_whole_cuda.c: the device
 * work and the transfers, with its stub in normalize_whole_nocuda.c). */
#ifndef FXKIT_NORMALIZE_WHOLE_H
#define FXKIT_NORMALIZE_WHOLE_H

#include "normalize_internal.h"

/* Whether `frames` frames (positions) of audio can go through the whole-buffer path:
 * an analysis that needs only each frame's levels (no DC correction, compression or
 * overlap), not compat's pass-through, frames within 32-bit indices. */
bool fxi_nm_whole_eligible(const fxi_nm_params *p, size_t frames);
/* Analysis frames of a buffer of `frames` positions and the length of the last. */
void fxi_nm_whole_shape(const fxi_nm_params *p, size_t frames, size_t *count, size_t *last_length);
/* The ramp's gain rows of a whole buffer from its frame levels (count x gain channels
 * pairs of peak and sum of squares, the levels kernel's output): rows[0 .. G) the
 * ramp's start, rows[(k + 1) * G ..] frame k's smoothed gains, G = 1 when coupled,
 * else one per channel; (count + 1) * G doubles. The streaming path's arithmetic and
 * order, so the same bits. */
fx_status fxi_nm_whole_gains(fx_context *ctx, const fxi_nm_params *p, const double *levels,
                             size_t count, size_t last_length, double *rows);

/* Normalize in->frames positions of in->data into out (as many, interleaved) on the
 * context's GPU; eligible parameters only. Samples go up packed to in->format's width
 * where they pack losslessly (normalize_pcm.h), chunk by chunk through pinned staging
 * (the packing of the next chunk overlapping the copy of the last), the levels, gains
 * and ramp follow, and the result comes back through the same staging. FX_ENOMEM when
 * the device cannot hold the buffer twice (the caller may stream instead). */
fx_status fxi_normalize_gpu_whole(fx_context *ctx, const fxi_nm_params *p, const fx_audio *in,
                                  double *out);

#endif
