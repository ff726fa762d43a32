/* Samples in their file's width on the way to the GPU: the conversions of one PCM
 * sample to the double the normalizer works on, shared by the host (which checks that
 * a double packs losslessly) and the device (which unpacks), and the host's packing.
 *
 * The widths are those the audio reader produces (src/io/audio_convert.h): a 16-bit
 * sample v reads as v * 2^-15 (8-bit files arrive shifted to 16 bits), a 24- or 32-bit
 * one left-aligned in 32 bits as v * 2^-31, a float as itself. Each is exact (a power
 * of two scale, an integer or float that a double holds), and the expressions are the
 * reader's, operation for operation (tests/unit/test_normalize_pcm.c compares them for
 * every 16-bit value and random 32-bit ones).
 *
 * A double packs when unpacking the packed value gives back the same bits (so -0.0, a
 * NaN, anything off the grid or out of range does not, and travels as a double): the
 * device then starts from exactly the host's samples. C/CUDA common subset.
 */
#ifndef FXKIT_NORMALIZE_PCM_H
#define FXKIT_NORMALIZE_PCM_H

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/host_device.h"
#include "fxkit/audio.h"

/* How a chunk of samples travels to the device. */
typedef enum fxi_nm_pcm {
    FXI_NM_PCM_F64 = 0, /* as the doubles they are */
    FXI_NM_PCM_S16 = 1, /* int16, v * 2^-15 */
    FXI_NM_PCM_S32 = 2, /* int32 left-aligned (24- and 32-bit files), v * 2^-31 */
    FXI_NM_PCM_F32 = 3  /* float */
} fxi_nm_pcm;

/* 2^-15 and 2^-31, as src/io/audio_convert.c writes them. */
#define FXI_NM_S16_INVERSE (1.0 / 32768.0)
#define FXI_NM_S32_INVERSE (1.0 / 2147483648.0)

static inline FX_HD double fxi_nm_from_s16(int16_t v)
{
    return (double)v * FXI_NM_S16_INVERSE;
}

static inline FX_HD double fxi_nm_from_s32(int32_t v)
{
    return (double)v * FXI_NM_S32_INVERSE;
}

static inline FX_HD double fxi_nm_from_f32(float v)
{
    return (double)v;
}

/* Bytes of one sample travelling as `pcm`. */
static inline FX_HD size_t fxi_nm_pcm_bytes(fxi_nm_pcm pcm)
{
    return pcm == FXI_NM_PCM_S16 ? 2 : pcm == FXI_NM_PCM_F64 ? 8 : 4;
}

/* ---- host: packing (a double that unpacks to itself, else false) ---- */

/* The width a buffer read from a file of this format packs to. */
static inline fxi_nm_pcm fxi_nm_pcm_of(fx_sample_format format)
{
    switch (format) {
    case FX_SF_S16:
    case FX_SF_U8: return FXI_NM_PCM_S16;
    case FX_SF_S24:
    case FX_SF_S32: return FXI_NM_PCM_S32;
    case FX_SF_F32: return FXI_NM_PCM_F32;
    default: return FXI_NM_PCM_F64;
    }
}

static inline bool fxi_nm_same_bits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static inline bool fxi_nm_pack_s16(double x, int16_t *v)
{
    const double scaled = x * 32768.0;
    /* (the range test is false for a NaN) */
    if (!(scaled >= -32768.0 && scaled <= 32767.0)) return false;
    *v = (int16_t)scaled;
    return fxi_nm_same_bits(fxi_nm_from_s16(*v), x);
}

static inline bool fxi_nm_pack_s32(double x, int32_t *v)
{
    const double scaled = x * 2147483648.0;
    if (!(scaled >= -2147483648.0 && scaled <= 2147483647.0)) return false;
    *v = (int32_t)scaled;
    return fxi_nm_same_bits(fxi_nm_from_s32(*v), x);
}

static inline bool fxi_nm_pack_f32(double x, float *v)
{
    if (!(x >= -FLT_MAX && x <= FLT_MAX)) return false;
    *v = (float)x;
    return fxi_nm_same_bits(fxi_nm_from_f32(*v), x);
}

#endif
