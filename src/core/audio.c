/* Audio buffers and sample-format names. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static const char *const format_names[] = {
    [FX_SF_SAME] = "same", [FX_SF_S16] = "s16", [FX_SF_S24] = "s24", [FX_SF_S32] = "s32",
    [FX_SF_F32] = "f32",   [FX_SF_F64] = "f64", [FX_SF_U8] = "u8",
};

const char *fx_sample_format_name(fx_sample_format fmt)
{
    if ((unsigned)fmt < sizeof format_names / sizeof *format_names) return format_names[fmt];
    return "unknown";
}

fx_status fx_parse_sample_format(const char *text, fx_sample_format *fmt)
{
    /* u8 is a read-only format, so it is not accepted here. */
    for (int f = FX_SF_SAME; f <= FX_SF_F64; f++) {
        if (text && !strcasecmp(text, format_names[f])) {
            *fmt = (fx_sample_format)f;
            return FX_OK;
        }
    }
    return FX_EINVAL;
}

fx_status fx_audio_alloc(fx_context *ctx, fx_audio *audio, size_t frames, int channels, int rate)
{
    memset(audio, 0, sizeof *audio);
    FXI_RETURN_IF(channels < 1 || channels > ctx->limits.max_channels, FX_ELIMIT,
                 "%d audio channels (allowed: 1 to %d)", channels, ctx->limits.max_channels);
    FXI_RETURN_IF(rate <= 0, FX_EINVAL, "sample rate %d is not positive", rate);
    FXI_RETURN_IF(frames > ctx->limits.max_audio_frames, FX_ELIMIT,
                 "%zu audio frames exceed the limit of %llu", frames,
                 (unsigned long long)ctx->limits.max_audio_frames);
    size_t samples;
    FXI_RETURN_IF(!fxi_mul_size(frames, (size_t)channels, &samples), FX_EOVERFLOW,
                 "%zu frames x %d channels overflows", frames, channels);
    void *data;
    FXI_TRY(fxi_calloc(ctx, samples, sizeof(double), &data));
    audio->data = data;
    audio->frames = frames;
    audio->channels = channels;
    audio->rate = rate;
    audio->format = FX_SF_SAME;
    return FX_OK;
}

void fx_audio_free(fx_audio *audio)
{
    if (!audio) return;
    free(audio->data);
    memset(audio, 0, sizeof *audio);
}
