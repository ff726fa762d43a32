/* PNG row filters for the writer (png_filter.h).
 *
 * The encoder filters rows it has whole, so every filter depends only on the raw
 * bytes of the row and the row above: each is a loop over independent bytes that
 * the compiler vectorises, compiled for the baseline and for AVX2 (cpu_simd.h).
 * AUTO runs all five and keeps the one with the least sum of absolute residuals,
 * the cost the PNG specification suggests (section 12.8).
 */
#include "io/png_filter.h"

#include <stdlib.h>
#include <string.h>

#include "filter/cpu_simd.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* |residual| as a signed byte: small negative residuals are as cheap as small positive ones. */
ALWAYS_INLINE uint32_t cost_of(uint8_t r)
{
    int v = (int8_t)r;
    return (uint32_t)(v < 0 ? -v : v);
}

ALWAYS_INLINE uint8_t paeth_predict(int a, int b, int c)
{
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* One loop per filter; the first bpp bytes have no left neighbour (a = c = 0). */
ALWAYS_INLINE uint32_t filter_none(const uint8_t *cur, size_t n, uint8_t *out)
{
    uint32_t cost = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = cur[i];
        cost += cost_of(out[i]);
    }
    return cost;
}

ALWAYS_INLINE uint32_t filter_sub(const uint8_t *cur, size_t n, size_t bpp, uint8_t *out)
{
    uint32_t cost = 0;
    for (size_t i = 0; i < bpp && i < n; i++) {
        out[i] = cur[i];
        cost += cost_of(out[i]);
    }
    for (size_t i = bpp; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - cur[i - bpp]);
        cost += cost_of(out[i]);
    }
    return cost;
}

ALWAYS_INLINE uint32_t filter_up(const uint8_t *cur, const uint8_t *prev, size_t n, uint8_t *out)
{
    uint32_t cost = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - prev[i]);
        cost += cost_of(out[i]);
    }
    return cost;
}

ALWAYS_INLINE uint32_t filter_avg(const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp,
                                  uint8_t *out)
{
    uint32_t cost = 0;
    for (size_t i = 0; i < bpp && i < n; i++) {
        out[i] = (uint8_t)(cur[i] - (prev[i] >> 1));
        cost += cost_of(out[i]);
    }
    for (size_t i = bpp; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - ((cur[i - bpp] + prev[i]) >> 1));
        cost += cost_of(out[i]);
    }
    return cost;
}

ALWAYS_INLINE uint32_t filter_paeth(const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp,
                                    uint8_t *out)
{
    uint32_t cost = 0;
    for (size_t i = 0; i < bpp && i < n; i++) {
        out[i] = (uint8_t)(cur[i] - prev[i]); /* Paeth of (0, b, 0) is b */
        cost += cost_of(out[i]);
    }
    for (size_t i = bpp; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - paeth_predict(cur[i - bpp], prev[i], prev[i - bpp]));
        cost += cost_of(out[i]);
    }
    return cost;
}

ALWAYS_INLINE uint32_t filter_one(fxi_png_filter_type type, const uint8_t *cur,
                                  const uint8_t *prev, size_t n, size_t bpp, uint8_t *out)
{
    switch (type) {
    case FXI_PNG_FILTER_SUB: return filter_sub(cur, n, bpp, out);
    case FXI_PNG_FILTER_UP: return filter_up(cur, prev, n, out);
    case FXI_PNG_FILTER_AVG: return filter_avg(cur, prev, n, bpp, out);
    case FXI_PNG_FILTER_PAETH: return filter_paeth(cur, prev, n, bpp, out);
    default: return filter_none(cur, n, out);
    }
}

#define DEFINE_FILTER_ROW(suffix, attr)                                                            \
    attr static void filter_row_##suffix(fxi_png_filter_type type, const uint8_t *cur,             \
                                         const uint8_t *prev, size_t n, size_t bpp, uint8_t *out,  \
                                         uint8_t *scratch)                                         \
    {                                                                                              \
        if (type != FXI_PNG_FILTER_AUTO) {                                                         \
            out[0] = (uint8_t)type;                                                                \
            filter_one(type, cur, prev, n, bpp, out + 1);                                          \
            return;                                                                                \
        }                                                                                          \
        uint32_t costs[FXI_PNG_FILTER_TYPES];                                                      \
        costs[FXI_PNG_FILTER_NONE] = filter_none(cur, n, scratch);                                 \
        costs[FXI_PNG_FILTER_SUB] = filter_sub(cur, n, bpp, scratch + n);                          \
        costs[FXI_PNG_FILTER_UP] = filter_up(cur, prev, n, scratch + 2 * n);                       \
        costs[FXI_PNG_FILTER_AVG] = filter_avg(cur, prev, n, bpp, scratch + 3 * n);                \
        costs[FXI_PNG_FILTER_PAETH] = filter_paeth(cur, prev, n, bpp, scratch + 4 * n);            \
        int best = FXI_PNG_FILTER_NONE;                                                            \
        for (int t = 1; t < FXI_PNG_FILTER_TYPES; t++)                                             \
            if (costs[t] < costs[best]) best = t;                                                  \
        out[0] = (uint8_t)best;                                                                    \
        memcpy(out + 1, scratch + (size_t)best * n, n);                                            \
    }
FXI_SIMD_VARIANTS(DEFINE_FILTER_ROW)

void fxi_png_filter_row(fxi_png_filter_type type, const uint8_t *cur, const uint8_t *prev,
                        size_t n, size_t bpp, uint8_t *out, uint8_t *scratch)
{
    FXI_PICK(filter_row)(type, cur, prev, n, bpp, out, scratch);
}

/* Adler-32 (RFC 1950) in blocks short enough that 32-bit sums cannot overflow:
 * over a block of k bytes, b grows by k * a plus each byte weighted by the number
 * of sums it enters (k - i), and a by the bytes' sum. Both loops vectorise. */
#define ADLER_MOD 65521u
#define ADLER_BLOCK 4096 /* 255 * 4096 * 4097 / 2 + 4096 * 65520 + 65520 < 2^32 */
#define DEFINE_ADLER(suffix, attr)                                                                 \
    attr static uint32_t adler32_##suffix(uint32_t adler, const uint8_t *p, size_t n)             \
    {                                                                                              \
        uint32_t a = adler & 0xffffu, b = adler >> 16;                                             \
        while (n) {                                                                                \
            uint32_t k = n < ADLER_BLOCK ? (uint32_t)n : ADLER_BLOCK;                              \
            uint32_t sum = 0, weighted = 0;                                                        \
            for (uint32_t i = 0; i < k; i++) {                                                     \
                sum += p[i];                                                                       \
                weighted += (k - i) * p[i];                                                        \
            }                                                                                      \
            b = (b + k * a + weighted) % ADLER_MOD;                                                \
            a = (a + sum) % ADLER_MOD;                                                             \
            p += k;                                                                                \
            n -= k;                                                                                \
        }                                                                                          \
        return b << 16 | a;                                                                        \
    }
FXI_SIMD_VARIANTS(DEFINE_ADLER)

uint32_t fxi_png_adler32(uint32_t adler, const uint8_t *data, size_t n)
{
    return FXI_PICK(adler32)(adler, data, n);
}
