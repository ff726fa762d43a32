/* PNG row filters for the writer (png_filter.h).
 *
 * The encoder filters rows it has whole, so every filter depends only on the raw
 * bytes of the row and the row above: each is a loop over independent bytes that
 * the compiler vectorises, compiled for the baseline and for AVX2 (cpu_simd.h).
 * AUTO runs all five and keeps the one with the least sum of absolute residuals,
 * the cost the PNG specification suggests (section 12.8).
 */
#include "io/png_filter.h"

#include <stdbool.h>
#include <string.h>

#include "core/cpu_simd.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Sum of |residual| taken as a signed byte (small negative residuals are as cheap
 * as small positive ones), in blocks whose 16-bit lane sums cannot overflow
 * (COST_BLOCK * 128 <= 65535), which the compiler vectorises with narrow lanes. */
#define COST_BLOCK 256
ALWAYS_INLINE uint32_t row_cost(const uint8_t *r, size_t n)
{
    uint32_t total = 0;
    for (size_t start = 0; start < n; start += COST_BLOCK) {
        size_t end = start + COST_BLOCK < n ? start + COST_BLOCK : n;
        uint16_t block = 0;
        for (size_t i = start; i < end; i++) {
            uint8_t v = r[i];
            block = (uint16_t)(block + (v < 128 ? v : (uint8_t)(256 - v)));
        }
        total += block;
    }
    return total;
}

/* The Paeth predictor in bytes only, so that 32 run in one AVX2 register: with
 * p = a + b - c, |p - a| = |b - c| and |p - b| = |a - c| are differences of byte
 * maxima and minima, and |p - c| = |(b - c) + (a - c)| is their sum when both have
 * the same sign, else the difference of their magnitudes. The sum saturates at 255,
 * which keeps every comparison's outcome (the other two are at most 255). */
ALWAYS_INLINE uint8_t paeth_predict(uint8_t a, uint8_t b, uint8_t c)
{
    uint8_t pa = (uint8_t)(b > c ? b - c : c - b);
    uint8_t pb = (uint8_t)(a > c ? a - c : c - a);
    bool same_sign = (b >= c) == (a >= c);
    unsigned sum = (unsigned)pa + pb;
    uint8_t saturated = (uint8_t)(sum > UINT8_MAX ? UINT8_MAX : sum);
    uint8_t difference = (uint8_t)(pa > pb ? pa - pb : pb - pa);
    uint8_t pc = same_sign ? saturated : difference;
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* One loop per filter; the first bpp bytes have no left neighbour (a = c = 0). */
ALWAYS_INLINE void filter_none(const uint8_t *cur, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = cur[i];
    }
}

ALWAYS_INLINE void filter_sub(const uint8_t *cur, size_t n, size_t bpp, uint8_t *out)
{
    for (size_t i = 0; i < bpp && i < n; i++) {
        out[i] = cur[i];
    }
    for (size_t i = bpp; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - cur[i - bpp]);
    }
}

ALWAYS_INLINE void filter_up(const uint8_t *cur, const uint8_t *prev, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - prev[i]);
    }
}

ALWAYS_INLINE void filter_avg(const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp,
                                  uint8_t *out)
{
    for (size_t i = 0; i < bpp && i < n; i++) {
        out[i] = (uint8_t)(cur[i] - (prev[i] >> 1));
    }
    for (size_t i = bpp; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - ((cur[i - bpp] + prev[i]) >> 1));
    }
}

ALWAYS_INLINE void filter_paeth(const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp,
                                    uint8_t *out)
{
    for (size_t i = 0; i < bpp && i < n; i++) {
        out[i] = (uint8_t)(cur[i] - prev[i]); /* Paeth of (0, b, 0) is b */
    }
    for (size_t i = bpp; i < n; i++) {
        out[i] = (uint8_t)(cur[i] - paeth_predict(cur[i - bpp], prev[i], prev[i - bpp]));
    }
}

ALWAYS_INLINE void filter_one(fxi_png_filter_type type, const uint8_t *cur,
                                  const uint8_t *prev, size_t n, size_t bpp, uint8_t *out)
{
    switch (type) {
    case FXI_PNG_FILTER_SUB: filter_sub(cur, n, bpp, out); break;
    case FXI_PNG_FILTER_UP: filter_up(cur, prev, n, out); break;
    case FXI_PNG_FILTER_AVG: filter_avg(cur, prev, n, bpp, out); break;
    case FXI_PNG_FILTER_PAETH: filter_paeth(cur, prev, n, bpp, out); break;
    default: filter_none(cur, n, out); break;
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
        filter_sub(cur, n, bpp, scratch + n);                                                      \
        filter_up(cur, prev, n, scratch + 2 * n);                                                  \
        filter_avg(cur, prev, n, bpp, scratch + 3 * n);                                            \
        filter_paeth(cur, prev, n, bpp, scratch + 4 * n);                                          \
        costs[FXI_PNG_FILTER_NONE] = row_cost(cur, n); /* None's residuals are the row */          \
        for (int t = FXI_PNG_FILTER_SUB; t < FXI_PNG_FILTER_TYPES; t++)                            \
            costs[t] = row_cost(scratch + (size_t)t * n, n);                                       \
        int best = FXI_PNG_FILTER_NONE;                                                            \
        for (int t = 1; t < FXI_PNG_FILTER_TYPES; t++)                                             \
            if (costs[t] < costs[best]) best = t;                                                  \
        out[0] = (uint8_t)best;                                                                    \
        memcpy(out + 1, best == FXI_PNG_FILTER_NONE ? cur : scratch + (size_t)best * n, n);        \
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
