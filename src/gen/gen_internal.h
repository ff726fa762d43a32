/* Shared helpers of the synthetic-data generators (src/gen/).
 *
 * Every generated sample is a pure function of (coordinates, seed, parameters):
 * randomness comes from a counter-based hash of the coordinates, never from a
 * sequential generator, so rows and chunks can be produced in any order, on any
 * number of threads, and still give identical bytes. The hash is integer-only
 * and all float arithmetic is plain IEEE (no contraction, see -ffp-contract=off),
 * so the bytes are also identical across machines.
 */
#ifndef FXKIT_GEN_INTERNAL_H
#define FXKIT_GEN_INTERNAL_H

#include <stdint.h>

#include "core/internal.h"

/* Odd 64-bit constants (golden ratio and the splitmix64 multipliers) that spread
 * consecutive counters over the whole word before mixing. */
#define FXI_GEN_K1 UINT64_C(0x9E3779B97F4A7C15)
#define FXI_GEN_K2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define FXI_GEN_K3 UINT64_C(0x165667B19E3779F9)

/* splitmix64's finaliser: a bijection of 64-bit words with full avalanche. */
static inline uint64_t fxi_gen_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A key for one independent stream of randomness ("stream" names what it is for,
 * e.g. a noise field), derived from the user's seed. */
static inline uint64_t fxi_gen_key(uint64_t seed, uint64_t stream)
{
    return fxi_gen_mix(fxi_gen_mix(seed + FXI_GEN_K1) ^ (stream * FXI_GEN_K2));
}

/* Hash of one coordinate under a key. */
static inline uint64_t fxi_gen_hash1(uint64_t key, uint64_t a)
{
    return fxi_gen_mix(key ^ ((a + 1) * FXI_GEN_K1));
}

/* Hash of two coordinates under a key. */
static inline uint64_t fxi_gen_hash2(uint64_t key, uint64_t a, uint64_t b)
{
    return fxi_gen_mix(fxi_gen_hash1(key, a) ^ ((b + 1) * FXI_GEN_K3));
}

/* Top 24 bits as a float in [0, 1): exactly representable, so no rounding. */
static inline float fxi_gen_unit_f(uint64_t h)
{
    return (float)(h >> 40) * (1.0f / 16777216.0f);
}

/* Top 53 bits as a double in [0, 1). */
static inline double fxi_gen_unit_d(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* Photo-like image rows (gen_photo.c), called by fx_gen_image. */
fx_status fxi_gen_photo(fx_context *ctx, const fx_gen_image_params *p, fx_image *img);

/* Store a value in [0, 1] (clamped) into sample i of a row: integers round to
 * nearest (half up; the value is never negative). */
void fxi_gen_store_unit(uint8_t *row, size_t i, fx_sample_type type, float v);

/* Speech-like signal (gen_speech.c) for absolute frames [start, start + frames),
 * written to every channel of the interleaved `out`. Each frame is a pure function
 * of (frame number, seed, rate); the peak is at most `amplitude`. */
void fxi_gen_speech_range(uint64_t seed, int rate, double amplitude, uint64_t start, size_t frames,
                          int channels, double *out);

#endif
