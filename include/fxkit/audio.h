/* fxkit — audio buffers.
 *
 * Samples are doubles, nominally in [-1, 1), interleaved by frame
 * (L R L R … for stereo). Integer files map full scale as x / 2^(bits-1), so
 * reading and writing back the same integer format is lossless.
 */
#ifndef FXKIT_AUDIO_H
#define FXKIT_AUDIO_H

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sample format of an audio file. */
typedef enum fx_sample_format {
    FX_SF_SAME = 0, /* on write: same as the input's, or s16 when unknown */
    FX_SF_S16 = 1,
    FX_SF_S24 = 2,
    FX_SF_S32 = 3,
    FX_SF_F32 = 4,
    FX_SF_F64 = 5,
    FX_SF_U8 = 6 /* read only: 8-bit files */
} fx_sample_format;

/* "s16", "s24", … ; "same" for FX_SF_SAME. */
FX_API const char *fx_sample_format_name(fx_sample_format fmt);
/* Parse "s16", "s24", "s32", "f32", "f64" or "same". */
FX_API fx_status fx_parse_sample_format(const char *text, fx_sample_format *fmt);

typedef struct fx_audio {
    double *data; /* frames * channels samples, interleaved */
    size_t frames;
    int channels;
    int rate;                /* frames per second */
    fx_sample_format format; /* format of the file it came from (FX_SF_SAME if none) */
} fx_audio;

/* Allocate a zeroed buffer, checked against the context's limits. */
FX_API fx_status fx_audio_alloc(fx_context *ctx, fx_audio *audio, size_t frames, int channels,
                                int rate);
/* Free a buffer from fx_audio_alloc or a reader; leaves *audio zeroed. */
FX_API void fx_audio_free(fx_audio *audio);

#ifdef __cplusplus
}
#endif
#endif
