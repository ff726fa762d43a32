/* From histograms to output levels. The GPU's LUT kernel (src/equalize/gpu_kernels.cu)
 * computes the same entries with the same equalize_math.h functions; sums are
 * exact integers on both sides, so only the final float step could differ, and it
 * is the same IEEE operation in the same order. */
#include "equalize_internal.h"

/* First non-empty bin (bins when none). */
static uint32_t first_used_bin(const uint32_t *hist, uint32_t bins)
{
    uint32_t m = 0;
    while (m < bins && hist[m] == 0)
        m++;
    return m;
}

static uint64_t total_count(const uint32_t *hist, uint32_t bins)
{
    uint64_t n = 0;
    for (uint32_t b = 0; b < bins; b++)
        n += hist[b];
    return n;
}

void fxi_eq_global_lut(const uint32_t *hist, uint32_t bins, uint32_t maxval, int scale,
                       uint16_t *lut, int *identity)
{
    const fxi_eq_cdf_origin o = fxi_eq_cdf_origin_of(scale, hist, bins, first_used_bin(hist, bins),
                                                     total_count(hist, bins), maxval);
    *identity = o.identity;
    uint64_t cdf = 0;
    for (uint32_t b = 0; b < bins; b++) {
        cdf += hist[b];
        lut[b] =
            (uint16_t)(o.identity || cdf < o.base ? 0u : fxi_level(cdf - o.base, o.factor, maxval));
    }
}

void fxi_eq_float_lut(const uint32_t *hist, uint32_t bins, int scale, float *lut, int *identity)
{
    /* maxval only sets the integer levels' factor, which hsv-float does not use. */
    const fxi_eq_cdf_origin o = fxi_eq_cdf_origin_of(scale, hist, bins, first_used_bin(hist, bins),
                                                     total_count(hist, bins), 1u);
    *identity = o.identity;
    fxi_hsvf_lut(hist, bins, o.start, o.identity, lut);
}

void fxi_eq_tile_lut(uint32_t *hist, uint32_t bins, uint32_t limit, uint32_t area, uint32_t maxval,
                     uint16_t *lut)
{
    if (limit > 0) {
        uint64_t clipped = 0;
        for (uint32_t b = 0; b < bins; b++) {
            if (hist[b] > limit) {
                clipped += hist[b] - limit;
                hist[b] = limit;
            }
        }
        uint32_t batch = (uint32_t)(clipped / bins);
        uint32_t residual = (uint32_t)(clipped - (uint64_t)batch * bins);
        for (uint32_t b = 0; b < bins; b++)
            hist[b] += batch + (uint32_t)fxi_residual_hit(b, residual, bins);
    }
    float factor = fxi_level_factor(maxval, area);
    uint64_t cdf = 0;
    for (uint32_t b = 0; b < bins; b++) {
        cdf += hist[b];
        lut[b] = (uint16_t)fxi_level(cdf, factor, maxval);
    }
}
