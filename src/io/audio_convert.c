/* Integer PCM <-> double sample conversions (see audio_convert.h).
 *
 * Rounding half to even without a call: for |v| <= 2^52 adding and subtracting
 * 1.5 * 2^52 leaves v rounded to an integer in the current rounding mode
 * (round to nearest even by default, as nearbyint uses): the sum lies in
 * [2^52, 2^53), where doubles are exactly the integers. The build never
 * reassociates floating point (no -ffast-math), so the two additions stay.
 * Clamping before rounding gives the same result as after, because the bounds
 * are integers and rounding is monotonic.
 *
 * Built with -fno-trapping-math (src/CMakeLists.txt), without which GCC keeps
 * the comparisons as branches and does not vectorise: only floating-point
 * exception flags, which the library never reads, may differ.
 */
#include "io/audio_convert.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* 1.5 * 2^52: see above. */
#define ROUND_MAGIC 6755399441055744.0
/* Full scale of a 16-bit sample and of a left-aligned 32-bit one. */
#define S16_SCALE 32768.0
#define S16_INVERSE (1.0 / S16_SCALE)
#define LEFT_ALIGNED_INVERSE (1.0 / 2147483648.0)
#define SAMPLE_WORD_BITS 32

void fxi_audio_s16_to_double(const int16_t *src, double *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (double)src[i] * S16_INVERSE; /* a power of two: exact */
}

void fxi_audio_left_aligned_to_double(const int32_t *src, double *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (double)src[i] * LEFT_ALIGNED_INVERSE;
}

/* x * full, NaN as 0, clamped to [-full, full - 1], rounded half to even. */
static inline double scaled_integer(double x, double full)
{
    double v = x * full;
    v = v == v ? v : 0.0;
    v = v < -full ? -full : v;
    v = v > full - 1.0 ? full - 1.0 : v;
    return (v + ROUND_MAGIC) - ROUND_MAGIC;
}

#if defined(__SSE2__)
/* Eight samples: GCC's own vectorisation of the loop below narrows its masks
 * lane by lane and runs about five times slower than this. cvtpd2dq rounds in
 * the current rounding mode, as nearbyint does; NaN is zeroed before the
 * max/min, so their operand order does not matter. */
static size_t double_to_s16_sse2(const double *src, int16_t *dst, size_t n)
{
    enum { LANES = 8 };
    const __m128d scale = _mm_set1_pd(S16_SCALE);
    const __m128d low = _mm_set1_pd(-S16_SCALE), high = _mm_set1_pd(S16_SCALE - 1.0);
    size_t i = 0;
    for (; i + LANES <= n; i += LANES) {
        __m128i quads[2];
        for (int q = 0; q < 2; q++) {
            __m128i pairs[2];
            for (int h = 0; h < 2; h++) {
                __m128d v = _mm_mul_pd(_mm_loadu_pd(src + i + 4 * q + 2 * h), scale);
                v = _mm_and_pd(v, _mm_cmpeq_pd(v, v));
                v = _mm_min_pd(_mm_max_pd(v, low), high);
                pairs[h] = _mm_cvtpd_epi32(v);
            }
            quads[q] = _mm_unpacklo_epi64(pairs[0], pairs[1]);
        }
        _mm_storeu_si128((__m128i *)(dst + i), _mm_packs_epi32(quads[0], quads[1]));
    }
    return i;
}
#endif

void fxi_audio_double_to_s16(const double *src, int16_t *dst, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    i = double_to_s16_sse2(src, dst, n);
#endif
    for (; i < n; i++)
        dst[i] = (int16_t)(int32_t)scaled_integer(src[i], S16_SCALE);
}

void fxi_audio_double_to_left_aligned(const double *src, int32_t *dst, size_t n, int bits)
{
    const double full = (double)((int64_t)1 << (bits - 1));
    const int shift = SAMPLE_WORD_BITS - bits;
    /* The shift in unsigned arithmetic: a negative value shifted left is
     * undefined in C, its two's complement bit pattern is what libsndfile wants. */
    for (size_t i = 0; i < n; i++)
        dst[i] = (int32_t)((uint32_t)(int32_t)scaled_integer(src[i], full) << shift);
}
