/* Per-frame work before the gain, as ffmpeg 5.1 dynaudnorm does it: DC
 * correction, soft-knee compression (both in place, on the samples that are
 * later output), then the frame's peak and RMS and its local gain.
 *
 * Sums run sequentially in ffmpeg's order (channel by channel, sample by
 * sample) so that every rounding matches; peaks and minima are order-free.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "normalize_internal.h"
#include "normalize_math.h"

/* 2^63: ffmpeg compares thresholds as llrint(x * 2^63). */
#define TWO_POW_63 9223372036854775808.0

double fxi_nm_bound(double limit, double v)
{
    return erf(FXI_NM_BOUND_SCALE * (v / limit)) * limit;
}

/* x86-64 llrint: out-of-range arguments give INT64_MIN (cvtsd2si's "integer
 * indefinite"), which ffmpeg's knee search depends on; emulated so that the
 * result is the same on any machine. */
static int64_t llrint_x86(double v)
{
    if (!(v >= -TWO_POW_63 && v < TWO_POW_63)) return INT64_MIN;
    return llrint(v);
}

static double update_value(double value, double old, double weight)
{
    return weight * value + (1.0 - weight) * old;
}

double fxi_nm_compress_knee(double threshold)
{
    if (!(threshold > DBL_EPSILON && threshold < (1.0 - DBL_EPSILON))) return threshold;
    double current = threshold;
    for (double step = 1.0; step > DBL_EPSILON; step /= 2.0) {
        while (llrint_x86((current + step) * TWO_POW_63) > llrint_x86(current * TWO_POW_63) &&
               fxi_nm_bound(current + step, 1.0) <= threshold)
            current += step;
    }
    return current;
}

fx_status fxi_nm_carry_init(fx_context *ctx, const fxi_nm_params *p, fxi_nm_carry *carry)
{
    memset(carry, 0, sizeof *carry);
    carry->first = true;
    const size_t channels = (size_t)p->channels;
    void *mem;
    FXI_TRY(fxi_calloc(ctx, channels, sizeof(double), &mem));
    carry->dc = mem;
    FXI_TRY(fxi_calloc(ctx, channels, sizeof(double), &mem));
    carry->threshold = mem;
    if (p->advance != p->frame_length) {
        /* ffmpeg analyses a buffer of 2 * frame_length samples whose upper half stays 0. */
        size_t samples;
        FXI_RETURN_IF(!fxi_mul3_size(2, p->frame_length, channels, &samples), FX_EOVERFLOW,
                     "overlap window of %zu samples x %d channels overflows", p->frame_length,
                     p->channels);
        FXI_TRY(fxi_calloc(ctx, samples, sizeof(double), &mem));
        carry->window = mem;
    }
    return FX_OK;
}

void fxi_nm_carry_free(fxi_nm_carry *carry)
{
    free(carry->dc);
    free(carry->threshold);
    free(carry->window);
    memset(carry, 0, sizeof *carry);
}

/* ---- DC correction ---- */

static void correct_dc(const fxi_nm_params *p, fxi_nm_carry *carry, double *x, size_t n)
{
    const size_t channels = (size_t)p->channels;
    const double diff = 1.0 / (double)n;
    for (size_t c = 0; c < channels; c++) {
        double mean = 0.0;
        for (size_t i = 0; i < n; i++)
            mean += x[i * channels + c] * diff;
        const double prev = carry->first ? mean : carry->dc[c];
        carry->dc[c] = carry->first ? mean : update_value(mean, carry->dc[c], FXI_NM_DC_WEIGHT);
        if (!p->process[c]) continue;
        for (size_t i = 0; i < n; i++)
            x[i * channels + c] = fxi_nm_remove_dc(x[i * channels + c], prev, carry->dc[c], i, n);
    }
}

/* ---- compression ---- */

/* sqrt(sum x^2 / (count - 1)), at least DBL_EPSILON: ffmpeg's "standard
 * deviation" with the mean taken as zero. Channel `c`, or all when c < 0. */
static double frame_deviation(const fxi_nm_params *p, const double *x, size_t n, int c)
{
    const size_t channels = (size_t)p->channels;
    double variance = 0.0;
    size_t first = c < 0 ? 0 : (size_t)c, last = c < 0 ? channels : (size_t)c + 1;
    for (size_t ch = first; ch < last; ch++)
        for (size_t i = 0; i < n; i++)
            variance += x[i * channels + ch] * x[i * channels + ch];
    const double count = (double)((last - first) * n) - 1.0;
    variance /= count;
    return fmax(sqrt(variance), DBL_EPSILON);
}

static void compress_channel(const fxi_nm_params *p, double *x, size_t n, size_t c, double knee_a,
                             double knee_b)
{
    const size_t channels = (size_t)p->channels;
    for (size_t i = 0; i < n; i++) {
        const double knee = fxi_nm_fade(knee_a, knee_b, i, n);
        double *v = &x[i * channels + c];
        *v = copysign(fxi_nm_bound(knee, fabs(*v)), *v);
    }
}

static void compress(const fxi_nm_params *p, fxi_nm_carry *carry, double *x, size_t n)
{
    if (p->coupled) {
        const double current = fmin(1.0, p->compress * frame_deviation(p, x, n, -1));
        const double prev = carry->first ? current : carry->threshold[0];
        carry->threshold[0] =
            carry->first ? current
                         : update_value(current, carry->threshold[0], FXI_NM_COMPRESS_WEIGHT);
        const double knee_a = fxi_nm_compress_knee(prev);
        const double knee_b = fxi_nm_compress_knee(carry->threshold[0]);
        for (int c = 0; c < p->channels; c++)
            if (p->process[c]) compress_channel(p, x, n, (size_t)c, knee_a, knee_b);
        return;
    }
    for (int c = 0; c < p->channels; c++) {
        /* ffmpeg applies the knee search to the channel's threshold twice: here ... */
        const double current =
            fxi_nm_compress_knee(fmin(1.0, p->compress * frame_deviation(p, x, n, c)));
        const double prev = carry->first ? current : carry->threshold[c];
        carry->threshold[c] =
            carry->first ? current
                         : update_value(current, carry->threshold[c], FXI_NM_COMPRESS_WEIGHT);
        /* ... and again here. */
        const double knee_a = fxi_nm_compress_knee(prev);
        const double knee_b = fxi_nm_compress_knee(carry->threshold[c]);
        if (p->process[c]) compress_channel(p, x, n, (size_t)c, knee_a, knee_b);
    }
}

/* ---- levels and local gain ---- */

/* The frame that is measured: the samples themselves, or with overlap the
 * window of the last frame_length samples (planar) followed by as many zeros. */
typedef struct measured {
    const double *x;
    size_t n;       /* samples per channel */
    size_t stride;  /* between samples of a channel */
    size_t channel; /* between channels */
} measured;

/* max(start, |x[i]|) over contiguous samples, NaN ignored as in peak_of. */
static double contiguous_peak(const double *x, size_t count, double start)
{
    size_t i = 0;
    double max = start;
#if defined(__SSE2__)
    /* Four independent maxima; maxpd(v, m) is "v > m ? v : m" lane by lane,
     * so a NaN sample leaves the maximum unchanged, as in the scalar loop. */
    enum { LANES = 4 };
    const __m128d sign = _mm_set1_pd(-0.0);
    __m128d m0 = _mm_set1_pd(start), m1 = m0;
    for (; i + LANES <= count; i += LANES) {
        m0 = _mm_max_pd(_mm_andnot_pd(sign, _mm_loadu_pd(x + i)), m0);
        m1 = _mm_max_pd(_mm_andnot_pd(sign, _mm_loadu_pd(x + i + 2)), m1);
    }
    double lanes[LANES];
    _mm_storeu_pd(lanes, m0);
    _mm_storeu_pd(lanes + 2, m1);
    for (int l = 0; l < LANES; l++)
        max = fxi_nm_keep_greater(max, lanes[l]);
#endif
    return fxi_nm_peak_add(max, x + i, count - i, 1);
}

static double peak_of(const fxi_nm_params *p, const measured *m, int c)
{
    /* All channels of interleaved samples: one contiguous run (the maximum
     * does not depend on the order). */
    if (c < 0 && m->stride == (size_t)p->channels && m->channel == 1)
        return contiguous_peak(m->x, m->n * m->stride, DBL_EPSILON);
    double max = DBL_EPSILON;
    size_t first = c < 0 ? 0 : (size_t)c, last = c < 0 ? (size_t)p->channels : (size_t)c + 1;
    /* fxi_nm_peak_add is fmax(max, |x|) without the call: max is never NaN, and a
     * NaN sample leaves it unchanged either way. */
    for (size_t ch = first; ch < last; ch++)
        max = fxi_nm_peak_add(max, m->x + ch * m->channel, m->n, m->stride);
    return max;
}

static double rms_of(const fxi_nm_params *p, const measured *m, int c)
{
    double sum = 0.0;
    size_t first = c < 0 ? 0 : (size_t)c, last = c < 0 ? (size_t)p->channels : (size_t)c + 1;
    for (size_t ch = first; ch < last; ch++)
        sum = fxi_nm_sumsq_add(sum, m->x + ch * m->channel, m->n, m->stride);
    return fxi_nm_rms_of_sum(sum, m->n * (last - first));
}

fxi_nm_gain fxi_nm_local_gain(const fxi_nm_params *p, double peak, double rms)
{
    const double peak_gain = p->peak / peak;
    double rms_gain = DBL_MAX;
    if (p->target_rms > DBL_EPSILON) {
        rms_gain = p->target_rms / rms;
        if (p->min_gain > 0.0) rms_gain = fmax(rms_gain, p->min_gain);
    }
    fxi_nm_gain g;
    g.flag = peak > p->threshold ? 1.0 : 0.0;
    g.gain = fxi_nm_bound(p->max_gain, fmin(peak_gain, rms_gain));
    return g;
}

double fxi_nm_rms_of_sum(double sumsq, size_t count)
{
    return fmax(sqrt(sumsq / (double)count), DBL_EPSILON);
}

static fxi_nm_gain local_gain(const fxi_nm_params *p, const measured *m, int c)
{
    const double rms = p->target_rms > DBL_EPSILON ? rms_of(p, m, c) : 0.0;
    return fxi_nm_local_gain(p, peak_of(p, m, c), rms);
}

/* Overlap: slide the window by `advance` and append this frame (zero-padded). */
static measured slide_window(const fxi_nm_params *p, fxi_nm_carry *carry, const double *x, size_t n)
{
    const size_t channels = (size_t)p->channels, length = p->frame_length;
    const size_t keep = length - p->advance;
    for (size_t c = 0; c < channels; c++) {
        double *w = carry->window + c * 2 * length;
        memmove(w, w + p->advance, keep * sizeof *w);
        for (size_t i = 0; i < n; i++)
            w[keep + i] = x[i * channels + c];
        memset(w + keep + n, 0, (p->advance - n) * sizeof *w);
    }
    return (measured){carry->window, 2 * length, 1, 2 * length};
}

void fxi_nm_analyze(fx_context *ctx, const fxi_nm_params *p, fxi_nm_carry *carry, double *x,
                    size_t n, fxi_nm_gain *gains)
{
    (void)ctx;
    if (p->correct_dc) correct_dc(p, carry, x, n);
    if (p->compress > DBL_EPSILON) compress(p, carry, x, n);
    carry->first = false;
    measured m =
        carry->window ? slide_window(p, carry, x, n) : (measured){x, n, (size_t)p->channels, 1};
    if (p->coupled) {
        gains[0] = local_gain(p, &m, -1);
        return;
    }
    for (int c = 0; c < p->channels; c++)
        gains[c] = local_gain(p, &m, c);
}

double fxi_nm_pad_sample(const fxi_nm_params *p, const fxi_nm_carry *carry, int c, size_t i)
{
    double v = p->alt_boundary               ? DBL_EPSILON
               : p->target_rms > DBL_EPSILON ? fmin(p->peak, p->target_rms)
                                             : p->peak;
    if (p->correct_dc) {
        v *= (i % 2) == 1 ? -1 : 1;
        v += carry->dc[c];
    }
    return v;
}
