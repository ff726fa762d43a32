/* equalize_math.h's rules that the CPU and the GPU share:
 *  - fxi_eq_cdf_origin_of (where a global scale's CDF starts) against OpenCV's
 *    equalizeHist transcribed and the published scalers' definitions, and the LUTs
 *    built from it against the same references. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "equalize/equalize_internal.h"
#include "fxtest.h"

#define MAX_TEST_BINS 4096
#define U8_MAX 255u
#define RANDOM_HISTOGRAMS 200

/* ---- CDF origin ---- */

typedef enum shape { EMPTY, ONE_BIN, ALL_IN_ZERO, SPARSE, DENSE, SHAPES } shape;

static void make_hist(uint32_t *h, uint32_t bins, shape s, uint64_t *seed)
{
    memset(h, 0, bins * sizeof *h);
    switch (s) {
    case EMPTY: break;
    case ONE_BIN: h[fxt_rand(seed) % bins] = 1 + (uint32_t)(fxt_rand(seed) % 1000); break;
    case ALL_IN_ZERO: h[0] = 1 + (uint32_t)(fxt_rand(seed) % 1000); break;
    case SPARSE:
        for (int k = 0; k < 5; k++)
            h[fxt_rand(seed) % bins] += 1 + (uint32_t)(fxt_rand(seed) % 50);
        break;
    default:
        for (uint32_t b = 0; b < bins; b++)
            h[b] = (uint32_t)(fxt_rand(seed) % 4 ? fxt_rand(seed) % 300 : 0);
        break;
    }
}

/* OpenCV's equalizeHist (imgproc histogram.cpp) for 8-bit images, transcribed:
 * i = first non-empty bin; one used bin: the LUT is i (the image unchanged); else
 * scale = 255 / (total - hist[i]), lut[i] = 0 and above it saturate(sum * scale). */
static int opencv_equalize_lut(const uint32_t *hist, uint32_t *lut)
{
    int i = 0;
    uint32_t total = 0;
    for (int b = 0; b < 256; b++)
        total += hist[b];
    memset(lut, 0, 256 * sizeof *lut);
    if (total == 0) return 1;
    while (!hist[i])
        ++i;
    if (hist[i] == total) return 1;
    const float scale = 255.f / (float)(total - hist[i]);
    uint32_t sum = 0;
    for (lut[i] = 0, ++i; i < 256; ++i) {
        sum += hist[i];
        const float v = rintf((float)sum * scale);
        lut[i] = v < 0 ? 0 : v > 255 ? 255 : (uint32_t)v;
    }
    return 0;
}

/* The published scalers: max = rint(cdf * maxval / N); mms = rint((cdf - h0) * maxval
 * / (N - h0)), the image unchanged when everything is in bin 0 (or nothing is). */
static int published_lut(const uint32_t *hist, uint32_t bins, int scale, uint32_t maxval,
                         uint32_t *lut)
{
    uint64_t total = 0, cdf = 0;
    for (uint32_t b = 0; b < bins; b++)
        total += hist[b];
    const uint64_t base = scale == FX_EQ_SCALE_MMS ? hist[0] : 0;
    if (scale == FX_EQ_SCALE_MMS && (total == 0 || hist[0] == total)) {
        memset(lut, 0, bins * sizeof *lut);
        return 1;
    }
    const float f = (float)maxval / (float)(total - base);
    for (uint32_t b = 0; b < bins; b++) {
        cdf += hist[b];
        const float v = rintf((float)(cdf - base) * f);
        lut[b] = v < 0 ? 0 : v > (float)maxval ? maxval : (uint32_t)v;
    }
    return 0;
}

static uint32_t first_nonzero(const uint32_t *h, uint32_t bins)
{
    for (uint32_t b = 0; b < bins; b++)
        if (h[b]) return b;
    return bins;
}

FXT_TEST(cdf_origin_matches_the_definitions)
{
    static const uint32_t bins_list[] = {2, 3, 256, MAX_TEST_BINS};
    static const int scales[] = {FX_EQ_SCALE_MINMAX, FX_EQ_SCALE_MAX, FX_EQ_SCALE_MMS};
    static uint32_t h[MAX_TEST_BINS];
    uint64_t seed = 5;
    int bad = 0;
    for (size_t bi = 0; bi < sizeof bins_list / sizeof *bins_list; bi++)
        for (int r = 0; r < RANDOM_HISTOGRAMS; r++) {
            const uint32_t bins = bins_list[bi];
            make_hist(h, bins, (shape)(r % SHAPES), &seed);
            const uint32_t first = first_nonzero(h, bins);
            uint64_t total = 0;
            for (uint32_t b = 0; b < bins; b++)
                total += h[b];
            for (size_t s = 0; s < sizeof scales / sizeof *scales; s++) {
                const fxi_eq_cdf_origin o =
                    fxi_eq_cdf_origin_of(scales[s], h, bins, first, total, U8_MAX);
                uint64_t base;
                uint32_t start;
                int identity;
                if (scales[s] == FX_EQ_SCALE_MAX) {
                    base = 0, start = 0, identity = 0;
                } else if (scales[s] == FX_EQ_SCALE_MMS) {
                    base = h[0], start = 1, identity = total == 0 || h[0] == total;
                } else { /* OpenCV: the first used bin maps to 0; one used bin: unchanged */
                    base = first < bins ? h[first] : 0;
                    start = first + 1;
                    identity = total == 0 || h[first] == total;
                }
                const float factor = identity ? 0.0f : (float)U8_MAX / (float)(total - base);
                bad += o.base != base || o.start != start || o.identity != identity ||
                       memcmp(&o.factor, &factor, sizeof factor) != 0;
            }
        }
    FXT_CHECK_EQ(bad, 0);
}

/* The LUTs lut.c builds from the origin (the GPU's LUT kernel builds the same from
 * the same function) against OpenCV's equalizeHist and the published scalers. */
FXT_TEST(global_luts_match_opencv_and_the_published_scalers)
{
    static const uint32_t bins_list[] = {2, 3, 256, MAX_TEST_BINS};
    static const int scales[] = {FX_EQ_SCALE_MINMAX, FX_EQ_SCALE_MAX, FX_EQ_SCALE_MMS};
    static uint32_t h[MAX_TEST_BINS], want[MAX_TEST_BINS];
    static uint16_t got[MAX_TEST_BINS];
    uint64_t seed = 17;
    int bad = 0;
    for (size_t bi = 0; bi < sizeof bins_list / sizeof *bins_list; bi++)
        for (int r = 0; r < RANDOM_HISTOGRAMS; r++) {
            const uint32_t bins = bins_list[bi];
            make_hist(h, bins, (shape)(r % SHAPES), &seed);
            for (size_t s = 0; s < sizeof scales / sizeof *scales; s++) {
                /* max never leaves an image unchanged; an empty histogram (no pixel
                 * counted) cannot reach it: plans reject masks that select nothing. */
                if (scales[s] == FX_EQ_SCALE_MAX && r % SHAPES == EMPTY) continue;
                int identity, want_identity;
                fxi_eq_global_lut(h, bins, U8_MAX, scales[s], got, &identity);
                if (scales[s] == FX_EQ_SCALE_MINMAX) {
                    if (bins != 256) continue; /* OpenCV's is for 256 bins */
                    want_identity = opencv_equalize_lut(h, want);
                } else {
                    want_identity = published_lut(h, bins, scales[s], U8_MAX, want);
                }
                bad += identity != want_identity;
                if (!want_identity)
                    for (uint32_t b = 0; b < bins; b++)
                        bad += got[b] != want[b];
            }
        }
    FXT_CHECK_EQ(bad, 0);
}

FXT_MAIN(FXT_CASE(cdf_origin_matches_the_definitions),
         FXT_CASE(global_luts_match_opencv_and_the_published_scalers))
