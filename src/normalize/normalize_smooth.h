/* The minimum filter and the Gaussian over a whole buffer's frames at once: the closed
 * form of history.c's queue arithmetic (docs/ALGORITHMS.md), one output per call, so
 * that every frame's minimum and smoothed gain can be computed independently (on the
 * host's threads; FX_HD so that a kernel could do the same). Each output's operations
 * and their order are history.c's exactly, so the bits are the stream's
 * (tests/unit/test_normalize_whole.c compares them).
 *
 * Arrays over the frames of one gain channel, real frames then ffmpeg's pad frames:
 * g, t: local gains and threshold flags of frames 0 .. real + mh + gh - 1;
 * m, mt: the minimum queue and its flags, positions 0 .. real + 2 gh - 1
 * (positions below gh: the left prefix; position gh + c: the minimum centred on c).
 */
#ifndef FXKIT_NORMALIZE_SMOOTH_H
#define FXKIT_NORMALIZE_SMOOTH_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "core/host_device.h"

/* What the closed form needs of the parameters. */
typedef struct fxi_nm_smooth_shape {
    size_t real;      /* real frames */
    int min_half;     /* mh */
    int gauss_half;   /* gh */
    int alt_boundary; /* alt: the left padding is g[0] itself */
    int ffmpeg_flags; /* compat or no threshold: M[gh + c] takes frame c + mh's flag */
    int divide_flags; /* !compat and a threshold: divide by the flags' weight */
    double first;     /* the ramp's start and the left padding (fxi_nm_smooth_first) */
} fxi_nm_smooth_shape;

/* alt ? g0 : min(1, g0). */
static inline FX_HD double fxi_nm_smooth_first(double g0, int alt_boundary)
{
    return alt_boundary ? g0 : fmin(1.0, g0);
}

/* The left prefix of the minimum queue, positions 0 .. gh - 1: a running minimum
 * (sequential, gh values). */
static inline FX_HD void fxi_nm_smooth_prefix(const fxi_nm_smooth_shape *s, const double *g,
                                              const double *t, double *m, double *mt)
{
    for (int q = 0; q < s->gauss_half; q++) {
        const double before = q == 0 ? (s->alt_boundary ? s->first : 1.0) : m[q - 1];
        m[q] = fmin(before, g[q + 1]);
        mt[q] = t[0];
    }
}

/* The minimum centred on frame c (position gh + c of the queue) and its flag. */
static inline FX_HD void fxi_nm_smooth_minimum(const fxi_nm_smooth_shape *s, const double *g,
                                               const double *t, size_t c, double *m, double *mt)
{
    const size_t mh = (size_t)s->min_half;
    double min = c < mh ? s->first : DBL_MAX;
    for (size_t k = c < mh ? 0 : c - mh; k <= c + mh; k++)
        if (g[k] < min) min = g[k]; /* (gains are never NaN) */
    m[(size_t)s->gauss_half + c] = min;
    mt[(size_t)s->gauss_half + c] = t[s->ffmpeg_flags ? c + mh : c];
}

/* Frame j's smoothed gain: the Gaussian over positions j .. j + 2 gh of the queue, in
 * that order, limited by frame j + 1's local gain. */
static inline FX_HD double fxi_nm_smooth_gain(const fxi_nm_smooth_shape *s, const double *g,
                                              const double *m, const double *mt,
                                              const double *weights, size_t j)
{
    const int size = 2 * s->gauss_half + 1;
    double result = 0.0, flag_sum = 0.0;
    for (int k = 0; k < size; k++) {
        const double weight = mt[j + (size_t)k] * weights[k];
        flag_sum += weight;
        result += weight * m[j + (size_t)k];
    }
    if (flag_sum == 0.0)
        result = 1.0;
    else if (s->divide_flags)
        result /= flag_sum;
    return fmin(result, g[j + 1]);
}

#endif
