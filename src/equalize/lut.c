/* From histograms to output levels. The GPU's LUT kernel (src/cuda/equalize.cu)
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

/* What the scale subtracts from the cumulative count, and whether the image has
 * nothing to stretch (returned unchanged). */
static uint64_t scale_base(const uint32_t *hist, uint32_t bins, int scale, uint64_t total,
                           int *identity)
{
    uint32_t m = first_used_bin(hist, bins);
    *identity = 0;
    switch (scale) {
    case FX_EQ_SCALE_MAX: return 0;
    case FX_EQ_SCALE_MMS: *identity = total == 0 || hist[0] == total; return hist[0];
    default: *identity = m == bins || hist[m] == total; return m < bins ? hist[m] : 0;
    }
}

void fxi_eq_global_lut(const uint32_t *hist, uint32_t bins, uint32_t maxval, int scale,
                       uint16_t *lut, int *identity)
{
    uint64_t total = total_count(hist, bins);
    uint64_t base = scale_base(hist, bins, scale, total, identity);
    float factor = *identity ? 0.0f : fxi_level_factor(maxval, total - base);
    uint64_t cdf = 0;
    for (uint32_t b = 0; b < bins; b++) {
        cdf += hist[b];
        lut[b] = (uint16_t)(*identity || cdf < base ? 0u : fxi_level(cdf - base, factor, maxval));
    }
}

void fxi_eq_float_lut(const uint32_t *hist, uint32_t bins, int scale, float *lut, int *identity)
{
    (void)scale_base(hist, bins, scale, total_count(hist, bins), identity);
    /* The published code accumulates the CDF in float, bin by bin, then divides by
     * its last entry. Bins up to the base (bin 0 for mms, the first used bin for
     * minmax) start the sum at zero. */
    uint32_t start = scale == FX_EQ_SCALE_MAX   ? 0u
                     : scale == FX_EQ_SCALE_MMS ? 1u
                                                : first_used_bin(hist, bins) + 1;
    float cdf = 0.0f;
    for (uint32_t b = 0; b < bins; b++) {
        if (b >= start) cdf = cdf + (float)hist[b];
        lut[b] = cdf;
    }
    float last = lut[bins - 1];
    for (uint32_t b = 0; b < bins; b++)
        lut[b] = *identity || last == 0.0f ? 0.0f : lut[b] / last;
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
