/* The audio reader's and writer's integer <-> double conversions
 * (src/io/audio_convert.c, vectorised) against a plain per-sample reference:
 * reads are v / 2^(bits-1), writes are nearbyint(x * 2^(bits-1)) saturated to
 * the b-bit range with NaN as 0. Inputs include exact ties on both sides of
 * zero, the saturation edges, out-of-range values, infinities, NaN, signed
 * zeros, subnormals, random values, every length around the SIMD width and
 * unaligned starts. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxtest.h"
#include "io/audio_convert.h"

/* Longest run converted (covers the vector body and every tail length). */
#define MAX_SAMPLES 4096
/* Starting offsets tried, in elements, so that loads and stores are unaligned. */
#define MAX_OFFSET 3
#define RANDOM_SAMPLES 100000

/* ---- the plain reference ---- */

static int64_t reference_integer(double x, int bits)
{
    const double full = ldexp(1.0, bits - 1);
    double v = nearbyint(x * full);
    if (isnan(v)) return 0;
    if (v < -full) v = -full;
    if (v > full - 1) v = full - 1;
    return (int64_t)v;
}

/* ---- inputs ---- */

/* Doubles that probe the rounding and saturation of a `bits`-bit write. */
static size_t special_values(int bits, double *out)
{
    const double full = ldexp(1.0, bits - 1);
    size_t n = 0;
    const double fixed[] = {
        0.0,     -0.0,     1.0,      -1.0,      1.5,          -1.5,
        2.0,     -7.0,     1e300,    -1e300,    INFINITY,     -INFINITY,
        NAN,     -NAN,     DBL_MIN,  -DBL_MIN,  DBL_TRUE_MIN, -DBL_TRUE_MIN,
        DBL_MAX, -DBL_MAX, 0.999999, -0.999999, 1e-300,       0.49999999999999994};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        out[n++] = fixed[i];
    /* Ties k + 1/2 (even and odd k, both signs) and their neighbours, near 0
     * and near both ends of the range. */
    const double centres[] = {0.0,        1.0,        2.0,        3.0,  100.0,
                              full - 3.0, full - 2.0, full - 1.0, full, full + 1.0};
    for (size_t i = 0; i < sizeof centres / sizeof *centres; i++)
        for (int sign = -1; sign <= 1; sign += 2) {
            const double t = sign * (centres[i] + 0.5);
            out[n++] = t / full;
            out[n++] = nextafter(t, 0.0) / full;
            out[n++] = nextafter(t, sign * INFINITY) / full;
            out[n++] = sign * centres[i] / full;
        }
    return n;
}

static double random_value(uint64_t *seed)
{
    /* Mostly in [-1.25, 1.25), with a few at odd magnitudes. */
    uint64_t r = fxt_rand(seed);
    double u = (double)(r >> 11) / 9007199254740992.0;
    return (r & 15) == 0 ? (u - 0.5) * 1e6 : (u - 0.5) * 2.5;
}

/* ---- writes ---- */

static void check_writes(int bits, const double *x, size_t count)
{
    static int16_t s16[MAX_SAMPLES + MAX_OFFSET];
    static int32_t s32[MAX_SAMPLES + MAX_OFFSET];
    for (size_t offset = 0; offset <= MAX_OFFSET; offset++)
        for (size_t n = 0; n <= count && n <= MAX_SAMPLES; n += n < 40 ? 1 : 97) {
            memset(s16, 0x55, sizeof s16);
            memset(s32, 0x55, sizeof s32);
            if (bits == 16)
                fxi_audio_double_to_s16(x, s16 + offset, n);
            else
                fxi_audio_double_to_left_aligned(x, s32 + offset, n, bits);
            for (size_t i = 0; i < n; i++) {
                const int64_t want = reference_integer(x[i], bits);
                const int64_t got =
                    bits == 16 ? s16[offset + i] : (int64_t)(s32[offset + i] >> (32 - bits));
                const bool low_bits_clear =
                    bits == 16 || bits == 32 ||
                    (s32[offset + i] & (int32_t)((1u << (32 - bits)) - 1)) == 0;
                if (!FXT_CHECK(got == want && low_bits_clear)) {
                    fprintf(stderr, "  %d bits, x = %.17g: got %lld, want %lld\n", bits, x[i],
                            (long long)got, (long long)want);
                    return;
                }
            }
            /* Nothing past the end is touched. */
            if (bits == 16)
                FXT_CHECK(s16[offset + n] == 0x5555);
            else
                FXT_CHECK(s32[offset + n] == 0x55555555);
        }
}

static void check_all_writes(int bits)
{
    static double x[MAX_SAMPLES];
    size_t n = special_values(bits, x);
    uint64_t seed = (uint64_t)bits;
    while (n < MAX_SAMPLES)
        x[n++] = random_value(&seed);
    check_writes(bits, x, n);
    /* The specials again at every position of a vector. */
    for (size_t shift = 1; shift < 8; shift++)
        check_writes(bits, x + shift, MAX_SAMPLES / 2);
}

FXT_TEST(s16_writes_match_reference)
{
    check_all_writes(16);
}

FXT_TEST(s24_writes_match_reference)
{
    check_all_writes(24);
}

FXT_TEST(s32_writes_match_reference)
{
    check_all_writes(32);
}

/* Every 16-bit value survives double -> s16 -> double, and many random
 * doubles round as the reference says (a wider sweep than above). */
FXT_TEST(s16_writes_random_sweep)
{
    static double x[RANDOM_SAMPLES];
    static int16_t y[RANDOM_SAMPLES];
    uint64_t seed = 99;
    for (size_t i = 0; i < RANDOM_SAMPLES; i++)
        x[i] = random_value(&seed);
    fxi_audio_double_to_s16(x, y, RANDOM_SAMPLES);
    size_t bad = 0;
    for (size_t i = 0; i < RANDOM_SAMPLES; i++)
        bad += y[i] != reference_integer(x[i], 16);
    FXT_CHECK_EQ(bad, 0);
}

/* ---- reads ---- */

FXT_TEST(s16_reads_are_exact)
{
    enum { VALUES = 65536 };
    static int16_t v[VALUES + 1];
    static double x[VALUES + 1];
    for (int i = 0; i < VALUES; i++)
        v[i + 1] = (int16_t)(i - VALUES / 2);
    fxi_audio_s16_to_double(v + 1, x + 1, VALUES); /* unaligned */
    size_t bad = 0;
    for (int i = 0; i < VALUES; i++)
        bad += x[i + 1] != (double)(i - VALUES / 2) / 32768.0;
    FXT_CHECK_EQ(bad, 0);
    /* And back: each value writes as itself. */
    static int16_t back[VALUES];
    fxi_audio_double_to_s16(x + 1, back, VALUES);
    FXT_CHECK(memcmp(back, v + 1, sizeof back) == 0);
}

FXT_TEST(left_aligned_reads_are_exact)
{
    enum { COUNT = 4099 };
    static int32_t v[COUNT];
    static double x[COUNT];
    uint64_t seed = 5;
    for (size_t i = 0; i < COUNT; i++)
        v[i] = (int32_t)(uint32_t)fxt_rand(&seed);
    v[0] = INT32_MIN;
    v[1] = INT32_MAX;
    v[2] = 0;
    v[3] = -1;
    fxi_audio_left_aligned_to_double(v, x, COUNT);
    size_t bad = 0;
    for (size_t i = 0; i < COUNT; i++)
        bad += x[i] != ldexp((double)v[i], -31);
    FXT_CHECK_EQ(bad, 0);
    /* 24-bit values left-aligned read as v / 2^23 and write back as themselves. */
    static int32_t back[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        v[i] = (int32_t)((uint32_t)v[i] & 0xffffff00u);
    fxi_audio_left_aligned_to_double(v, x, COUNT);
    fxi_audio_double_to_left_aligned(x, back, COUNT, 24);
    FXT_CHECK(memcmp(back, v, sizeof back) == 0);
}

FXT_MAIN(FXT_CASE(s16_writes_match_reference), FXT_CASE(s24_writes_match_reference),
         FXT_CASE(s32_writes_match_reference), FXT_CASE(s16_writes_random_sweep),
         FXT_CASE(s16_reads_are_exact), FXT_CASE(left_aligned_reads_are_exact))
