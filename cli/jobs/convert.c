/* fxkit convert: image and audio format conversion.
 *
 * Images are decoded whole, converted to the sample type asked for (or the
 * closest one the target format holds) and encoded. Audio is streamed chunk by
 * chunk, so files of any length need only one chunk of memory.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Frames per audio chunk: 64 Ki frames is 0.5 MB per channel of doubles. */
#define AUDIO_CHUNK_FRAMES ((size_t)1 << 16)

/* --to: the order is the table's; "auto" must stay first (index 0). */
static const char *const format_names[] = {"auto", "png", "jpg",  "jpeg", "ppm", "pgm", "pnm",
                                           "pfm",  "wav", "flac", "aiff", "ogg", NULL};
enum { TO_AUTO = 0 };

/* --depth: auto and same first, then the fx_sample_type names. */
static const char *const depth_names[] = {"auto", "same", "u8", "u16", "f32", NULL};
enum { DEPTH_AUTO = 0, DEPTH_SAME = 1, DEPTH_FIRST_TYPE = 2 };
static const fx_sample_type depth_types[] = {FX_U8, FX_U16, FX_F32};

/* --sample-format: names fx_parse_sample_format understands. */
static const char *const sample_format_names[] = {"same", "s16", "s24", "s32", "f32", "f64", NULL};

/* --compression: "fast" (the library's FX_PNG_COMPRESSION_FAST), then the zlib
 * levels, so that choice i is level i - 1. */
static const char *const compression_names[] = {"fast", "0", "1", "2", "3", "4", "5",
                                                "6",    "7", "8", "9", NULL};
enum { COMPRESSION_FAST = 0, COMPRESSION_FIRST_LEVEL = 1 };

/* --png-filter: in fx_png_filter's order. */
static const char *const png_filter_names[] = {"auto", "none", "sub", "up", "avg", "paeth", NULL};

typedef struct convert_options {
    int to;
    int quality;
    int compression;
    int png_filter;
    int depth;
    int sample_format;
} convert_options;

#define OPT(field) offsetof(convert_options, field)

/* The JPEG and PNG defaults are the library's (fx_image_write_options_init): the
 * quality from io.h; a unit test checks the PNG choices' order against it. */
static const fx_option convert_table[] = {
    {"to", 0, FX_OPT_ENUM, OPT(to), TO_AUTO, 0, 0, NULL, format_names, "FORMAT",
     "output format for outputs named after inputs (auto: -o's extension, else the input's)"},
    {"quality", 0, FX_OPT_INT, OPT(quality), FX_DEFAULT_JPEG_QUALITY, FX_MIN_JPEG_QUALITY,
     FX_MAX_JPEG_QUALITY, NULL, NULL, "N", "JPEG quality"},
    {"compression", 0, FX_OPT_ENUM, OPT(compression), COMPRESSION_FAST, 0, 0, NULL,
     compression_names, "LEVEL",
     "PNG compression: fast (own coder, on all threads) or a zlib level (0 = none, 9 = smallest)"},
    {"png-filter", 0, FX_OPT_ENUM, OPT(png_filter), FX_PNG_FILTER_AUTO, 0, 0, NULL,
     png_filter_names, "FILTER", "PNG row filter (auto: the best of the five per row)"},
    {"depth", 0, FX_OPT_ENUM, OPT(depth), DEPTH_AUTO, 0, 0, NULL, depth_names, "TYPE",
     "image sample type (auto: the input's when the format holds it, else the closest; "
     "same: the input's or fail)"},
    {"sample-format", 0, FX_OPT_ENUM, OPT(sample_format), 0, 0, 0, NULL, sample_format_names, "FMT",
     "audio sample format (same: the input's)"},
    FX_OPTION_END};

typedef struct convert_state {
    fx_sample_format sample_format;
} convert_state;

static int convert_setup(fxcli_run *run)
{
    const convert_options *o = run->options;
    if (o->to != TO_AUTO && run->common.in_place)
        return fxcli_usage(run,
                           "--to %s changes the file's format; it cannot be used with "
                           "--in-place (use -o or --suffix)",
                           format_names[o->to]);
    convert_state *s = calloc(1, sizeof *s);
    if (!s) return fxcli_usage(run, "out of memory");
    run->state = s;
    if (fx_parse_sample_format(sample_format_names[o->sample_format], &s->sample_format) != FX_OK)
        return fxcli_usage(run, "--sample-format: '%s' is not supported by this library",
                           sample_format_names[o->sample_format]);
    return FXCLI_EXIT_OK;
}

static void convert_finish(fxcli_run *run)
{
    free(run->state);
    run->state = NULL;
}

static const char *convert_extension(const fxcli_run *run)
{
    const convert_options *o = run->options;
    return o->to == TO_AUTO ? NULL : format_names[o->to];
}

/* Keep the first error's detail before clean-up calls can overwrite it. */
static void keep_detail(fx_context *ctx, fxcli_result *res)
{
    if (!res->message[0] && fx_context_error(ctx)[0])
        snprintf(res->message, sizeof res->message, "%s", fx_context_error(ctx));
}

/* ---- images ---- */

static fx_sample_type pick_type(const convert_options *o, const fxcli_image_target *t,
                                fx_sample_type input)
{
    if (o->depth == DEPTH_AUTO) return fxcli_image_target_type(t, input);
    if (o->depth == DEPTH_SAME) return input;
    return depth_types[o->depth - DEPTH_FIRST_TYPE];
}

static fx_status convert_image(const convert_options *o, fx_context *ctx, const fxcli_item *item,
                               const char *out_path, fxcli_result *res)
{
    const fxcli_image_target *target = fxcli_image_target_of(item->output);
    if (!target) {
        if (fxcli_is_audio_path(item->output))
            return fxcli_fail(res, FX_EUNSUPPORTED, "an image cannot be written as audio ('%s')",
                              item->output);
        return fxcli_fail(res, FX_EUNSUPPORTED,
                          "'%s': unknown image format (name it .png, .jpg, .ppm, .pgm, .pfm, "
                          "or use --to)",
                          item->output);
    }
    fx_image img = {0}, converted = {0};
    uint64_t t0 = fx_time_ns();
    fx_status st = fx_image_read_file(ctx, item->input, &img);
    res->timings.decode_ms = fx_elapsed_ms(t0, fx_time_ns());
    if (st != FX_OK) return st;

    char why[FXCLI_MESSAGE_MAX];
    fx_sample_type type = pick_type(o, target, img.type);
    if (!fxcli_image_target_check(target, img.channels, type, why, sizeof why)) {
        bool depth_problem = img.channels >= 1 && img.channels <= FX_MAX_IMAGE_CHANNELS &&
                             (target->channel_mask & (1u << img.channels));
        st = fxcli_fail(res, FX_EUNSUPPORTED, "%s%s", why,
                        depth_problem ? " (see --depth)" : "; write another format");
        goto out;
    }
    const fx_image *to_write = &img;
    if (type != img.type) {
        st = fx_image_alloc(ctx, &converted, img.width, img.height, img.channels, type);
        if (st == FX_OK) st = fx_image_convert(ctx, &img, &converted, &res->timings);
        if (st != FX_OK) goto out;
        to_write = &converted;
    }
    fx_image_write_options wo;
    fx_image_write_options_init(&wo);
    wo.format = target->format;
    wo.jpeg_quality = o->quality;
    wo.png_compression = o->compression == COMPRESSION_FAST
                             ? FX_PNG_COMPRESSION_FAST
                             : o->compression - COMPRESSION_FIRST_LEVEL;
    wo.png_filter = (fx_png_filter)o->png_filter;
    wo.in_place = 1; /* the path is the batch's own temporary file (cli/tempfile.c) */
    t0 = fx_time_ns();
    st = fx_image_write_file(ctx, out_path, to_write, &wo);
    res->timings.encode_ms = fx_elapsed_ms(t0, fx_time_ns());
    res->width = img.width;
    res->height = img.height;
    res->channels = img.channels;
out:
    fx_image_free(&converted);
    fx_image_free(&img);
    return st;
}

/* ---- audio ---- */

/* Copy every frame from reader to writer in chunks, timing both sides. */
static fx_status copy_frames(fx_audio_reader *reader, fx_audio_writer *writer, int channels,
                             uint64_t total_frames, fxcli_result *res)
{
    size_t samples;
    if (__builtin_mul_overflow(AUDIO_CHUNK_FRAMES, (size_t)channels, &samples))
        return fxcli_fail(res, FX_EOVERFLOW, "%d channels are too many", channels);
    double *buf = malloc(samples * sizeof *buf);
    if (!buf) return fxcli_fail(res, FX_ENOMEM, "out of memory for an audio chunk");
    fx_status st = FX_OK;
    uint64_t frames = 0;
    for (;;) {
        size_t got = 0;
        uint64_t t0 = fx_time_ns();
        st = fx_audio_reader_read(reader, buf, AUDIO_CHUNK_FRAMES, &got);
        uint64_t t1 = fx_time_ns();
        res->timings.decode_ms += fx_elapsed_ms(t0, t1);
        if (st != FX_OK || got == 0) break;
        st = fx_audio_writer_write(writer, buf, got);
        res->timings.encode_ms += fx_elapsed_ms(t1, fx_time_ns());
        if (st != FX_OK) break;
        frames += got;
        fxcli_progress_item(res->slot, frames, total_frames);
    }
    free(buf);
    res->width = (int64_t)frames;
    return st;
}

static fx_status convert_audio(const convert_state *s, fx_context *ctx, const fxcli_item *item,
                               const char *out_path, fxcli_result *res)
{
    fx_audio_container container = fx_audio_container_from_path(item->output);
    if (container == FX_AUDIO_AUTO) {
        if (fxcli_image_target_of(item->output))
            return fxcli_fail(res, FX_EUNSUPPORTED, "audio cannot be written as an image ('%s')",
                              item->output);
        return fxcli_fail(res, FX_EUNSUPPORTED,
                          "'%s': unknown audio format (name it .wav, .flac, .aiff or .ogg, or "
                          "use --to)",
                          item->output);
    }
    fx_audio_reader *reader = NULL;
    uint64_t t0 = fx_time_ns();
    fx_status st = fx_audio_reader_open(ctx, item->input, &reader);
    res->timings.decode_ms = fx_elapsed_ms(t0, fx_time_ns());
    if (st != FX_OK) return st;
    fx_audio_info info;
    fx_audio_reader_info(reader, &info);

    fx_sample_format format = s->sample_format;
    /* "same": the input's format; 8-bit files are read-only, so they widen to s16,
     * which holds every 8-bit value exactly. */
    if (format == FX_SF_SAME) format = info.format == FX_SF_U8 ? FX_SF_S16 : info.format;
    fx_audio_writer *writer = NULL;
    t0 = fx_time_ns();
    st = fx_audio_writer_open(ctx, out_path, container, info.channels, info.rate, format, &writer);
    res->timings.encode_ms = fx_elapsed_ms(t0, fx_time_ns());
    if (st == FX_OK) {
        st = copy_frames(reader, writer, info.channels, info.frames, res);
        if (st != FX_OK) keep_detail(ctx, res);
        t0 = fx_time_ns();
        fx_status closed = fx_audio_writer_close(writer);
        res->timings.encode_ms += fx_elapsed_ms(t0, fx_time_ns());
        if (st == FX_OK) st = closed;
    }
    fx_audio_reader_close(reader);
    res->height = 1;
    res->channels = info.channels;
    return st;
}

static fx_status convert_item(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                              const char *out_path, fxcli_result *res)
{
    if (fxcli_media_of_input(item->input) == FXCLI_MEDIA_AUDIO)
        return convert_audio(run->state, ctx, item, out_path, res);
    return convert_image(run->options, ctx, item, out_path, res);
}

const fxcli_job fxcli_job_convert = {
    .name = "convert",
    .summary = "Convert images and audio between file formats and sample types",
    .usage = "[options] INPUT... -o OUTPUT",
    .description =
        "Images: PNG, JPEG, PPM/PGM/PNM and PFM, chosen by the output's extension (or --to).\n"
        "Audio: WAV, FLAC, AIFF and Ogg Vorbis, streamed, so any length works.\n"
        "Examples:\n"
        "  fxkit convert photo.png -o photo.jpg --quality 85\n"
        "  fxkit convert --to png --jobs 4 scans/*.ppm -o png/\n"
        "  fxkit convert take.wav -o take.flac --sample-format s24",
    .options = convert_table,
    .options_size = sizeof(convert_options),
    .common = FXCLI_COMMON_FILE_JOB,
    .media = FXCLI_MEDIA_IMAGE | FXCLI_MEDIA_AUDIO,
    .takes_inputs = true,
    .setup = convert_setup,
    .output_extension = convert_extension,
    .run_item = convert_item,
    .finish = convert_finish,
};
