/* normalize_math.h's level arithmetic (the frame analysis on the CPU and the GPU, and
 * the CLI's --verbose levels) against plain references: the peak as fmax over |x|
 * (C's fmax ignores a NaN argument), the sum of squares as ffmpeg's loop with every
 * product and every sum rounded to double on its own (stored through volatile, so
 * nothing is fused or reassociated), bit for bit, in the order given. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fxtest.h"
#include "normalize/normalize_gpu_plan.h"
#include "normalize/normalize_math.h"

#define MAX_CHANNELS 5
#define MAX_POSITIONS 1031
/* 2^53: uniform doubles in [0, 1) from 53 random bits. */
#define TWO_POW_53 9007199254740992.0

static double ref_peak(double start, const double *x, size_t count, size_t stride)
{
    double m = start;
    for (size_t i = 0; i < count; i++)
        m = fmax(m, fabs(x[i * stride]));
    return m;
}

static double ref_sumsq(double start, const double *x, size_t count, size_t stride)
{
    volatile double sum = start;
    for (size_t i = 0; i < count; i++) {
        volatile double square = x[i * stride] * x[i * stride];
        sum = sum + square;
    }
    return sum;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Samples of very different sizes, so that the order of the sum shows in its bits. */
static void fill(double *x, size_t n, uint64_t *seed)
{
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(fxt_rand(seed) >> 11) / TWO_POW_53 - 0.5;
        x[i] = u * (i % 7 == 0 ? 1.0e3 : i % 3 ? 0.3 : 1.0e-4);
    }
}

FXT_TEST(peak_and_sum_match_the_references)
{
    static double x[MAX_CHANNELS * MAX_POSITIONS];
    uint64_t seed = 7;
    fill(x, sizeof x / sizeof *x, &seed);
    int bad = 0;
    for (size_t stride = 1; stride <= MAX_CHANNELS; stride++)
        for (size_t n = 0; n <= MAX_POSITIONS; n += n < 20 ? 1 : 101) {
            const double starts[] = {0.0, DBL_EPSILON, 0.25};
            for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
                bad += !same_bits(fxi_nm_peak_add(starts[s], x, n, stride),
                                  ref_peak(starts[s], x, n, stride));
                bad += !same_bits(fxi_nm_sumsq_add(starts[s], x, n, stride),
                                  ref_sumsq(starts[s], x, n, stride));
            }
        }
    FXT_CHECK_EQ(bad, 0);
}

/* The test sees the order: the same samples summed backwards differ in their bits. */
FXT_TEST(sum_order_is_visible)
{
    static double x[MAX_POSITIONS], r[MAX_POSITIONS];
    uint64_t seed = 11;
    fill(x, MAX_POSITIONS, &seed);
    for (size_t i = 0; i < MAX_POSITIONS; i++)
        r[i] = x[MAX_POSITIONS - 1 - i];
    FXT_CHECK(!same_bits(fxi_nm_sumsq_add(0.0, x, MAX_POSITIONS, 1),
                         fxi_nm_sumsq_add(0.0, r, MAX_POSITIONS, 1)));
}

/* NaN samples leave the peak as it was; -0, infinities and the start are handled as
 * fmax does; keep_greater keeps its first argument unless the second is greater. */
FXT_TEST(peak_special_values)
{
    const double nan = NAN, inf = INFINITY;
    const double x[] = {-0.0, nan, -2.5, nan, 1.0};
    FXT_CHECK(same_bits(fxi_nm_peak_add(0.0, x, 5, 1), 2.5));
    FXT_CHECK(same_bits(fxi_nm_peak_add(3.0, x, 5, 1), 3.0));
    FXT_CHECK(same_bits(fxi_nm_peak_add(0.0, x, 2, 1), 0.0));
    FXT_CHECK(same_bits(fxi_nm_peak_add(DBL_EPSILON, x + 1, 1, 1), DBL_EPSILON));
    const double y[] = {1.0, -inf};
    FXT_CHECK(same_bits(fxi_nm_peak_add(0.0, y, 2, 1), inf));
    FXT_CHECK(same_bits(fxi_nm_keep_greater(1.0, nan), 1.0));
    FXT_CHECK(same_bits(fxi_nm_keep_greater(1.0, 2.0), 2.0));
    FXT_CHECK(same_bits(fxi_nm_keep_greater(2.0, 1.0), 2.0));
    FXT_CHECK(isnan(fxi_nm_sumsq_add(0.0, x, 2, 1)));
}

/* fxi_nm_frame_levels (what the GPU's levels kernel computes per frame and gain
 * channel): ffmpeg's order, channel after channel, over interleaved samples. */
FXT_TEST(frame_levels_match_the_references)
{
    static double x[MAX_CHANNELS * MAX_POSITIONS];
    uint64_t seed = 3;
    fill(x, sizeof x / sizeof *x, &seed);
    int bad = 0;
    for (int channels = 1; channels <= MAX_CHANNELS; channels++)
        for (uint32_t n = 1; n <= MAX_POSITIONS; n += 97)
            for (int c = -1; c < channels; c++)
                for (int want_rms = 0; want_rms < 2; want_rms++) {
                    double peak, sumsq, want_peak = DBL_EPSILON, want_sum = 0.0;
                    fxi_nm_frame_levels(x, n, channels, c, want_rms, &peak, &sumsq);
                    const int first = c < 0 ? 0 : c, last = c < 0 ? channels : c + 1;
                    for (int ch = first; ch < last; ch++) {
                        want_peak = ref_peak(want_peak, x + ch, n, (size_t)channels);
                        if (want_rms) want_sum = ref_sumsq(want_sum, x + ch, n, (size_t)channels);
                    }
                    bad += !same_bits(peak, want_peak) || !same_bits(sumsq, want_sum);
                }
    FXT_CHECK_EQ(bad, 0);
}

FXT_MAIN(FXT_CASE(peak_and_sum_match_the_references), FXT_CASE(sum_order_is_visible),
         FXT_CASE(peak_special_values), FXT_CASE(frame_levels_match_the_references))
