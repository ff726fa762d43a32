/* fxkit bench: the inputs, made by the library's own generators (include/fxkit/gen.h):
 * a "photo" image (smooth shapes, edges, texture and noise: histograms and filters see
 * photo-like statistics) and "speech" audio. The same case gives the same bytes on every
 * machine, so the peers and a later run see the same input. One image and one audio
 * buffer are kept, since consecutive cases mostly share their input. */
#include <string.h>

#include "bench.h"

/* Fixed seed: every run and machine measures the same bytes. */
#define BENCH_SEED 28

static struct {
    fx_image image;
    fx_audio audio;
} cache;

fx_status bench_input_image(fx_context *ctx, const bench_case *c, const fx_image **img)
{
    fx_image *have = &cache.image;
    if (!have->data || have->width != c->width || have->height != c->height ||
        have->channels != c->channels) {
        fx_image_free(have);
        fx_gen_image_params p;
        fx_gen_image_params_init(&p);
        p.kind = FX_GEN_PHOTO;
        p.width = c->width;
        p.height = c->height;
        p.channels = c->channels;
        p.type = FX_U8;
        p.seed = BENCH_SEED;
        fx_status st = fx_gen_image(ctx, &p, have);
        if (st != FX_OK) return st;
    }
    *img = have;
    return FX_OK;
}

fx_status bench_input_audio(fx_context *ctx, const bench_case *c, const fx_audio **audio)
{
    fx_audio *have = &cache.audio;
    if (!have->data || have->frames != (size_t)c->width || have->channels != c->channels ||
        have->rate != c->rate) {
        fx_audio_free(have);
        fx_gen_audio_params p;
        fx_gen_audio_params_init(&p);
        p.kind = FX_GEN_SPEECH;
        p.frames = (uint64_t)c->width;
        p.channels = c->channels;
        p.rate = c->rate;
        p.seed = BENCH_SEED;
        fx_status st = fx_gen_audio(ctx, &p, have);
        if (st != FX_OK) return st;
    }
    *audio = have;
    return FX_OK;
}

void bench_inputs_free(void)
{
    fx_image_free(&cache.image);
    fx_audio_free(&cache.audio);
    memset(&cache, 0, sizeof cache);
}
