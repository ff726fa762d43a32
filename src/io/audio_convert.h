/* Integer PCM <-> double sample conversions of the audio reader and writer.
 *
 * The contract (DESIGN.md's numerics): a b-bit integer sample v reads as exactly
 * v / 2^(b-1); a double x writes as x * 2^(b-1) rounded half to even, saturated
 * to [-2^(b-1), 2^(b-1) - 1], NaN as 0. Every step is exact or a single
 * correctly rounded operation, and the loops are written so that the compiler
 * vectorises them (no calls, no branches), with the same results as the plain
 * per-sample definition (tests/unit/test_audio_convert.c checks them against it).
 */
#ifndef FXKIT_IO_AUDIO_CONVERT_H
#define FXKIT_IO_AUDIO_CONVERT_H

#include <stddef.h>
#include <stdint.h>

/* 16-bit samples (libsndfile's short calls: 8-bit files arrive shifted to 16 bits). */
void fxi_audio_s16_to_double(const int16_t *src, double *dst, size_t n);
void fxi_audio_double_to_s16(const double *src, int16_t *dst, size_t n);

/* Left-aligned 32-bit samples (libsndfile's int calls): a b-bit sample v is
 * v * 2^(32-b), so reading divides by 2^31 whatever b is; writing rounds to b
 * bits (1 <= b <= 32) and left-aligns. */
void fxi_audio_left_aligned_to_double(const int32_t *src, double *dst, size_t n);
void fxi_audio_double_to_left_aligned(const double *src, int32_t *dst, size_t n, int bits);

#endif
