/* Per-sample arithmetic of dynamic audio normalization, shared by the C path
 * and the CUDA kernels (FX_HD is empty in C and __host__ __device__ in CUDA), so
 * the CPU tests exercise exactly what each GPU thread computes.
 *
 * Every expression is ffmpeg 5.1 dynaudnorm's, operation for operation, in
 * double; the build forbids contraction into fused multiply-adds on both sides
 * (-ffp-contract=off, nvcc --fmad=false), so the bits agree. Keep this header to
 * the C/CUDA common subset.
 */
#ifndef FXKIT_NORMALIZE_MATH_H
#define FXKIT_NORMALIZE_MATH_H

#include <math.h>
#include <stddef.h>

#include "core/host_device.h"

/* The cross-fade below with its two per-frame and per-sample inputs computed
 * by the caller: step = 1 / length and position = pos + 1 (vectorised loops
 * count in 32-bit integers, which convert to double in SIMD registers). */
static inline FX_HD double fxi_nm_fade_step(double prev, double next, double step, double position)
{
    const double f0 = 1.0 - (step * position);
    const double f1 = 1.0 - f0;
    return f0 * prev + f1 * next;
}

/* Linear cross-fade inside a frame of `length` samples: at sample `pos` the
 * weight of `next` is (pos + 1) / length, so the frame ends exactly on `next`. */
static inline FX_HD double fxi_nm_fade(double prev, double next, size_t pos, size_t length)
{
    return fxi_nm_fade_step(prev, next, 1.0 / (double)length, (double)pos + 1.0);
}

/* The gain of sample `pos` of a frame whose gain goes from prev to next;
 * without the ramp the frame's own gain holds throughout. */
static inline FX_HD double fxi_nm_gain_at(double prev, double next, size_t pos, size_t length,
                                          int ramp)
{
    return ramp ? fxi_nm_fade(prev, next, pos, length) : next;
}

/* A DC-corrected sample: the offset estimate ramps from the previous frame's to
 * this frame's. */
static inline FX_HD double fxi_nm_remove_dc(double x, double dc_prev, double dc_next, size_t pos,
                                            size_t length)
{
    return x - fxi_nm_fade(dc_prev, dc_next, pos, length);
}

/* ---- levels: peak and sum of squares ----
 * The frame analysis (CPU and GPU), and the CLI's --verbose report, measure with
 * these. The peak is max |x| where a NaN sample changes nothing (the maximum only
 * takes a value greater than itself), so it does not depend on the order of the
 * samples. The sum of squares does: it is added sample after sample in the order
 * given, sum + x * x each time (ffmpeg's order: channel after channel, position
 * after position), which every caller keeps so that the bits agree. */

/* The greater of a and b, a kept unless b is greater (so a NaN b is ignored). */
static inline FX_HD double fxi_nm_keep_greater(double a, double b)
{
    return b > a ? b : a;
}

/* max(peak, |x[i * stride]|) over count samples. */
static inline FX_HD double fxi_nm_peak_add(double peak, const double *x, size_t count,
                                           size_t stride)
{
    for (size_t i = 0; i < count; i++)
        peak = fxi_nm_keep_greater(peak, fabs(x[i * stride]));
    return peak;
}

/* sum + x[i * stride]^2, added one sample after the other, i = 0 .. count - 1. */
static inline FX_HD double fxi_nm_sumsq_add(double sum, const double *x, size_t count,
                                            size_t stride)
{
    for (size_t i = 0; i < count; i++)
        sum += x[i * stride] * x[i * stride];
    return sum;
}

#endif
