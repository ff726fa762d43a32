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
    const uint64_t total = total_count(hist, bins);
    const uint32_t m = first_used_bin(hist, bins);
    const uint64_t base =
        fxi_scale_base(scale, m, bins, m < bins ? hist[m] : 0, hist[0], total, identity);
    float factor = *identity ? 0.0f : fxi_level_factor(maxval, total - base);
    uint64_t cdf = 0;
    for (uint32_t b = 0; b < bins; b++) {
        cdf += hist[b];
        lut[b] = (uint16_t)(*identity || cdf < base ? 0u : fxi_level(cdf - base, factor, maxval));
    }
}

void fxi_eq_float_lut(const uint32_t *hist, uint32_t bins, int scale, float *lut, int *identity)
{
    const uint32_t m = first_used_bin(hist, bins);
    (void)fxi_scale_base(scale, m, bins, m < bins ? hist[m] : 0, hist[0], total_count(hist, bins),
                         identity);
    const uint32_t start = scale == FX_EQ_SCALE_MAX ? 0u : scale == FX_EQ_SCALE_MMS ? 1u : m + 1;
    fxi_hsvf_lut(hist, bins, start, *identity, lut);
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
