/* fxkit — deterministic synthetic images and audio.
 *
 * The same (kind, size, seed) gives the same bytes on every machine, whatever the
 * thread count: every sample is a pure function of its coordinates and the seed.
 */
#ifndef FXKIT_GEN_H
#define FXKIT_GEN_H

#include "audio.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fx_gen_image_kind {
    FX_GEN_NOISE = 0,    /* uniform white noise in every channel */
    FX_GEN_GRADIENT = 1, /* horizontal/vertical ramps, one direction per channel */
    FX_GEN_CHECKER = 2,  /* black/white squares of `cell` pixels */
    FX_GEN_PHOTO = 3     /* smooth shapes, edges, texture and noise: photo-like statistics */
} fx_gen_image_kind;

/* Defaults of fx_gen_image_params_init and fx_gen_audio_params_init, which the CLI's
 * `fxkit gen` options show and use too (one copy). */
#define FX_DEFAULT_GEN_SEED 1
#define FX_DEFAULT_GEN_IMAGE_WIDTH 1024
#define FX_DEFAULT_GEN_IMAGE_HEIGHT 768
#define FX_DEFAULT_GEN_IMAGE_CHANNELS 3
#define FX_DEFAULT_GEN_CELL 32
#define FX_DEFAULT_GEN_AUDIO_CHANNELS 2
#define FX_DEFAULT_GEN_AUDIO_RATE 44100
#define FX_DEFAULT_GEN_AUDIO_SECONDS 10
#define FX_DEFAULT_GEN_FREQUENCY 440.0
#define FX_DEFAULT_GEN_AMPLITUDE 0.5

typedef struct fx_gen_image_params {
    fx_gen_image_kind kind;
    int width, height, channels;
    fx_sample_type type;
    uint64_t seed;
    int cell; /* checker square size in pixels (default FX_DEFAULT_GEN_CELL) */
} fx_gen_image_params;

FX_API void fx_gen_image_params_init(fx_gen_image_params *p);
/* Allocate and fill *img (release with fx_image_free). Uses the context's threads. */
FX_API fx_status fx_gen_image(fx_context *ctx, const fx_gen_image_params *p, fx_image *img);

typedef enum fx_gen_audio_kind {
    FX_GEN_TONES = 0,   /* a sine whose level steps between loud and quiet sections */
    FX_GEN_WHITE = 1,   /* white noise */
    FX_GEN_SILENCE = 2, /* digital silence */
    FX_GEN_SPEECH = 3   /* speech-like bursts: modulated harmonics and pauses at varying levels */
} fx_gen_audio_kind;

typedef struct fx_gen_audio_params {
    fx_gen_audio_kind kind;
    uint64_t frames;
    int channels;
    int rate;
    uint64_t seed;
    double frequency; /* tone frequency in Hz (default FX_DEFAULT_GEN_FREQUENCY) */
    double amplitude; /* peak of the loudest part, 0..1 (default FX_DEFAULT_GEN_AMPLITUDE) */
} fx_gen_audio_params;

FX_API void fx_gen_audio_params_init(fx_gen_audio_params *p);
/* Fill `frames` interleaved frames starting at frame `start`, so a long file can
 * be generated chunk by chunk with the same result as in one piece. */
FX_API fx_status fx_gen_audio_chunk(fx_context *ctx, const fx_gen_audio_params *p, uint64_t start,
                                    size_t frames, double *out);
/* Whole buffer in one go (release with fx_audio_free). */
FX_API fx_status fx_gen_audio(fx_context *ctx, const fx_gen_audio_params *p, fx_audio *audio);

#ifdef __cplusplus
}
#endif
#endif
