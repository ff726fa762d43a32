/* Image or audio? And what each image format can hold. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* Enough leading bytes to recognise every audio container below. */
#define SIGNATURE_BYTES 12

typedef struct signature {
    size_t offset;
    const char *bytes;
} signature;

/* Containers libsndfile reads: WAV (RIFF/RIFX/RF64), Wave64, FLAC, AIFF, Ogg, AU, CAF. */
static const signature audio_signatures[] = {
    {0, "RIFF"}, {0, "RIFX"}, {0, "RF64"}, {0, "riff"}, {0, "fLaC"},
    {0, "FORM"}, {0, "OggS"}, {0, ".snd"}, {0, "caff"},
};

static bool has_audio_signature(const char *path)
{
    unsigned char head[SIGNATURE_BYTES];
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    for (size_t i = 0; i < sizeof audio_signatures / sizeof *audio_signatures; i++) {
        const signature *s = &audio_signatures[i];
        size_t len = strlen(s->bytes);
        if (got >= s->offset + len && !memcmp(head + s->offset, s->bytes, len)) return true;
    }
    return false;
}

bool fxcli_is_audio_path(const char *path)
{
    return fx_audio_container_from_path(path) != FX_AUDIO_AUTO;
}

fxcli_media fxcli_media_of_input(const char *path)
{
    /* The name counts too: a damaged "x.wav" should fail as audio, with the
     * audio reader's message, not as an unrecognised image. */
    return has_audio_signature(path) || fxcli_is_audio_path(path) ? FXCLI_MEDIA_AUDIO
                                                                  : FXCLI_MEDIA_IMAGE;
}

/* ---- image formats ---- */

#define CH(n) (1u << (n))
#define TY(t) (1u << (t))
#define INTEGER_TYPES (TY(FX_U8) | TY(FX_U16))

static const fxcli_image_target image_targets[] = {
    {"png", "PNG", FX_IMAGE_PNG, CH(1) | CH(2) | CH(3) | CH(4), INTEGER_TYPES,
     "1 to 4 channels of 8 or 16 bits"},
    {"jpg", "JPEG", FX_IMAGE_JPEG, CH(1) | CH(3), TY(FX_U8), "gray or RGB, 8 bits"},
    {"jpeg", "JPEG", FX_IMAGE_JPEG, CH(1) | CH(3), TY(FX_U8), "gray or RGB, 8 bits"},
    {"pgm", "PGM", FX_IMAGE_PNM, CH(1), INTEGER_TYPES, "gray only, 8 or 16 bits"},
    {"ppm", "PPM", FX_IMAGE_PNM, CH(3), INTEGER_TYPES, "RGB only, 8 or 16 bits"},
    {"pnm", "PNM", FX_IMAGE_PNM, CH(1) | CH(3), INTEGER_TYPES, "gray or RGB, 8 or 16 bits"},
    {"pfm", "PFM", FX_IMAGE_PFM, CH(1) | CH(3), TY(FX_F32), "gray or RGB, 32-bit float"},
};

const char *fxcli_image_extensions(void)
{
    return "png, jpg, jpeg, pgm, ppm, pnm, pfm";
}

const fxcli_image_target *fxcli_image_target_of(const char *path)
{
    const char *ext = fxcli_path_extension(path);
    for (size_t i = 0; i < sizeof image_targets / sizeof *image_targets; i++)
        if (!strcasecmp(ext, image_targets[i].ext)) return &image_targets[i];
    return NULL;
}

fx_status fxcli_read_image(fx_context *ctx, const char *path, fx_image *img, fxcli_result *res)
{
    uint64_t t0 = fx_time_ns();
    fx_status st = fx_image_read_file(ctx, path, img);
    res->timings.decode_ms = fx_elapsed_ms(t0, fx_time_ns());
    if (st != FX_OK) return st;
    res->width = img->width;
    res->height = img->height;
    res->channels = img->channels;
    return FX_OK;
}

fx_status fxcli_write_image(fx_context *ctx, const char *path, const fx_image *img,
                            const fxcli_image_target *target, fxcli_result *res)
{
    fx_image_write_options wo;
    fx_image_write_options_init(&wo);
    wo.format = target->format;
    wo.in_place = 1; /* the path is the batch's own temporary file (cli/tempfile.c) */
    uint64_t t0 = fx_time_ns();
    fx_status st = fx_image_write_file(ctx, path, img, &wo);
    res->timings.encode_ms = fx_elapsed_ms(t0, fx_time_ns());
    return st;
}

fx_sample_type fxcli_image_target_type(const fxcli_image_target *t, fx_sample_type want)
{
    /* Closest first: never lose precision when a wider type is available. */
    static const struct {
        fx_sample_type from;
        fx_sample_type order[3];
    } preference[] = {
        {FX_U8, {FX_U8, FX_U16, FX_F32}},
        {FX_U16, {FX_U16, FX_F32, FX_U8}},
        {FX_F32, {FX_F32, FX_U16, FX_U8}},
    };
    for (size_t i = 0; i < sizeof preference / sizeof *preference; i++) {
        if (preference[i].from != want) continue;
        for (size_t k = 0; k < 3; k++)
            if (t->type_mask & TY(preference[i].order[k])) return preference[i].order[k];
    }
    return want;
}

const char *fxcli_channel_names(int channels)
{
    static const char *const names[] = {"none", "gray", "gray+alpha", "RGB", "RGBA"};
    return channels >= 1 && channels <= FX_MAX_IMAGE_CHANNELS ? names[channels] : "unknown";
}

bool fxcli_image_target_check(const fxcli_image_target *t, int channels, fx_sample_type type,
                              char *msg, size_t size)
{
    if (channels < 1 || channels > FX_MAX_IMAGE_CHANNELS || !(t->channel_mask & CH(channels))) {
        snprintf(msg, size, "%s holds %s; this image is %s (%d channel%s)", t->name, t->holds,
                 fxcli_channel_names(channels), channels, channels == 1 ? "" : "s");
        return false;
    }
    if (!(t->type_mask & TY(type))) {
        snprintf(msg, size, "%s holds %s; this image has %s samples", t->name, t->holds,
                 fx_sample_type_name(type));
        return false;
    }
    return true;
}
