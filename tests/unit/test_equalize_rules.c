/* equalize_math.h's rules that the CPU and the GPU share:
 *  - fxi_eq_cdf_origin_of (where a global scale's CDF starts) against OpenCV's
 *    equalizeHist transcribed and the published scalers' definitions, and the LUTs
 *    built from it against the same references;
 *  - fxi_eq_u8_fast_path (which images the 8-bit fast passes may take) against a
 *    reference that checks the passes' premises by brute force (a key is its bin for
 *    all 256 keys, ...), exhaustively over its small domain. */
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

/* ---- the 8-bit fast path ---- */

#define MODES 6
#define MAX_CHANNELS 4

/* The general path's bin of every 8-bit key equals the key (what the fast counting
 * passes assume): histogram.c's fxi_bin_of, or hsv-float's bin of the float V, for
 * all 256 values. */
static int keys_are_their_bins(int mode, uint32_t bins)
{
    for (uint32_t k = 0; k < 256; k++) {
        if (mode == FXI_EQ_MODE_HSV_FLOAT) {
            const fxi_hsvf hsv = fxi_hsvf_from_rgb(k, 0, 0, U8_MAX);
            if (fxi_hsvf_bin(hsv.v, bins) != fxi_hsvf_bin(hsv.v, 256)) return 0;
        } else if (fxi_bin_of(k, bins, 8) != k) {
            return 0;
        }
    }
    return 1;
}

/* The fast kernels' pixel layouts: gray alone, or three colour channels. */
static int layout_fits(int mode, int channels)
{
    switch (mode) {
    case FXI_EQ_MODE_GRAY: return channels == 1;
    case FXI_EQ_MODE_TO_GRAY: /* RGB in, gray out (the GPU's kernels only) */
    case FXI_EQ_MODE_HSV:
    case FXI_EQ_MODE_LUMA:
    case FXI_EQ_MODE_RGB:
    case FXI_EQ_MODE_HSV_FLOAT: return channels == 3;
    default: return 0;
    }
}

static int reference_fast(unsigned passes, const int *kernels, int u8, int mode, int channels,
                          uint32_t bins, int masked, int adaptive)
{
    if (!u8 || !kernels[mode] || !layout_fits(mode, channels)) return 0;
    /* Counting: every pixel counts, into the bin that is its key, in histograms of
     * 256 entries a plane (more bins than 8-bit levels is outside a plan's domain). */
    if ((passes & FXI_EQ_FAST_COUNT) && (masked || bins > 256 || !keys_are_their_bins(mode, bins)))
        return 0;
    /* Mapping: one global LUT; hsv-float's V' is looked up by its 256-bin index. */
    if ((passes & FXI_EQ_FAST_MAP) &&
        (adaptive || (mode == FXI_EQ_MODE_HSV_FLOAT && !keys_are_their_bins(mode, bins))))
        return 0;
    return 1;
}

FXT_TEST(fast_path_rule_matches_its_premises)
{
    /* The modes each side has fast kernels for: fast_u8.c (gray, hsv, luma) and the
     * GPU's eq_hist_u8 / eq_map_u8 (those, to-gray, rgb and hsv-float). */
    static const int cpu[MODES] = {1, 0, 1, 1, 0, 0}, gpu[MODES] = {1, 1, 1, 1, 1, 1};
    static const unsigned sets[] = {FXI_EQ_FAST_MODES_CPU, FXI_EQ_FAST_MODES_GPU};
    static const int *const kernels[] = {cpu, gpu};
    static const uint32_t bins_list[] = {2, 3, 128, 255, 256, 257, 512, 4096, 65536};
    static const unsigned passes_list[] = {FXI_EQ_FAST_COUNT, FXI_EQ_FAST_MAP,
                                           FXI_EQ_FAST_COUNT | FXI_EQ_FAST_MAP};
    int bad = 0, accepted = 0;
    for (int side = 0; side < 2; side++)
        for (size_t pi = 0; pi < 3; pi++)
            for (int u8 = 0; u8 < 2; u8++)
                for (int mode = 0; mode < MODES; mode++)
                    for (int ch = 1; ch <= MAX_CHANNELS; ch++)
                        for (size_t bi = 0; bi < sizeof bins_list / sizeof *bins_list; bi++)
                            for (int masked = 0; masked < 2; masked++)
                                for (int adaptive = 0; adaptive < 2; adaptive++) {
                                    const unsigned passes = passes_list[pi];
                                    const uint32_t bins = bins_list[bi];
                                    const int got = fxi_eq_u8_fast_path(
                                        passes, sets[side], u8, mode, ch, bins, masked, adaptive);
                                    const int want = reference_fast(passes, kernels[side], u8, mode,
                                                                    ch, bins, masked, adaptive);
                                    if (got != want && bad++ < 10)
                                        fprintf(stderr,
                                                "  side %d passes %u u8 %d mode %d ch %d bins %u "
                                                "mask %d adaptive %d: %d, want %d\n",
                                                side, passes, u8, mode, ch, bins, masked, adaptive,
                                                got, want);
                                    accepted += got;
                                }
    FXT_CHECK_EQ(bad, 0);
    FXT_CHECK(accepted > 0);
}

FXT_MAIN(FXT_CASE(cdf_origin_matches_the_definitions),
         FXT_CASE(global_luts_match_opencv_and_the_published_scalers),
         FXT_CASE(fast_path_rule_matches_its_premises))
