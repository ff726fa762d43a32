/* fxkit gen image / gen audio: deterministic synthetic inputs (include/fxkit/gen.h).
 * The same options and seed give the same bytes on every machine; --count N
 * writes N files with seeds seed, seed+1, …  Audio is generated and written chunk
 * by chunk, so hours of it need one chunk of memory. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Frames generated and written at a time. */
#define AUDIO_CHUNK_FRAMES ((size_t)1 << 16)
/* Name of generated files in a folder: gen_0001.png, gen_0002.png, … */
#define NAME_PREFIX "gen"
#define MAX_COUNT 1000000
#define MAX_SEED INT_MAX
#define MAX_DURATION_S 31536000.0 /* a year: the frame limit stops it well before */
#define MAX_RATE 768000
#define MAX_FREQUENCY_HZ 384000.0
#define MAX_CELL 65536

/* ---- gen image ---- */

/* Same order as fx_gen_image_kind. */
static const char *const image_kinds[] = {"noise", "gradient", "checker", "photo", NULL};
static const char *const depth_names[] = {"8", "16", "f32", NULL};
static const fx_sample_type depth_types[] = {FX_U8, FX_U16, FX_F32};
static const char *const image_formats[] = {"png", "jpg", "ppm", "pgm", "pfm", NULL};

typedef struct gen_image_options {
    int kind;
    const char *size;
    int channels;
    int depth;
    int seed;
    int count;
    int cell;
    int to;
} gen_image_options;

#define FXCLI_STR_(x) #x
#define FXCLI_STR(x) FXCLI_STR_(x)
#define DEFAULT_SIZE FXCLI_STR(FX_DEFAULT_GEN_IMAGE_WIDTH) "x" FXCLI_STR(FX_DEFAULT_GEN_IMAGE_HEIGHT)
#define IMG(field) offsetof(gen_image_options, field)

/* Every default is the library's (gen.h); --size's is text, so it is written from
 * the library's width and height. */
static const fx_option gen_image_table[] = {
    {"kind", 'k', FX_OPT_ENUM, IMG(kind), FX_GEN_PHOTO, 0, 0, NULL, image_kinds, "KIND",
     "what to draw"},
    {"size", 's', FX_OPT_STRING, IMG(size), 0, 0, 0, DEFAULT_SIZE, NULL, "WxH",
     "width x height in pixels"},
    {"channels", 'c', FX_OPT_INT, IMG(channels), FX_DEFAULT_GEN_IMAGE_CHANNELS, 1, FX_MAX_IMAGE_CHANNELS, NULL, NULL, "N",
     "1 gray, 2 gray+alpha, 3 RGB, 4 RGBA"},
    {"depth", 'd', FX_OPT_ENUM, IMG(depth), 0, 0, 0, NULL, depth_names, "BITS",
     "sample type: 8 or 16-bit integers, or 32-bit float"},
    {"seed", 0, FX_OPT_INT, IMG(seed), FX_DEFAULT_GEN_SEED, 0, MAX_SEED, NULL, NULL, "N",
     "random seed (file i of --count gets seed + i)"},
    {"count", 'n', FX_OPT_INT, IMG(count), 1, 1, MAX_COUNT, NULL, NULL, "N",
     "number of files (more than one needs -o FOLDER/)"},
    {"cell", 0, FX_OPT_INT, IMG(cell), FX_DEFAULT_GEN_CELL, 1, MAX_CELL, NULL, NULL, "N",
     "checker square size in pixels"},
    {"to", 0, FX_OPT_ENUM, IMG(to), 0, 0, 0, NULL, image_formats, "FORMAT",
     "file format of files named in a folder (a file -o names its own)"},
    FX_OPTION_END};

typedef struct gen_image_state {
    int width, height;
} gen_image_state;

/* "WxH" with both in [1, INT_MAX]; the context's limits apply later. */
static bool parse_size(const char *text, int *width, int *height)
{
    char *end;
    errno = 0;
    long w = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X') || errno) return false;
    const char *rest = end + 1;
    long h = strtol(rest, &end, 10);
    if (end == rest || *end || errno) return false;
    if (w < 1 || h < 1 || w > INT_MAX || h > INT_MAX) return false;
    *width = (int)w;
    *height = (int)h;
    return true;
}

static int gen_image_setup(fxcli_run *run)
{
    const gen_image_options *o = run->options;
    gen_image_state *s = calloc(1, sizeof *s);
    if (!s) return fxcli_usage(run, "out of memory");
    run->state = s;
    if (!parse_size(o->size, &s->width, &s->height))
        return fxcli_usage(run,
                           "--size: '%s' is not WIDTHxHEIGHT with both at least 1 "
                           "(e.g. 1920x1080)",
                           o->size);
    return FXCLI_EXIT_OK;
}

static int gen_image_plan(fxcli_run *run, fxcli_worklist *list)
{
    const gen_image_options *o = run->options;
    return fxcli_plan_generated(run, list, (uint64_t)o->count, NAME_PREFIX, image_formats[o->to]);
}

static fx_status gen_image_item(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                                const char *out_path, fxcli_result *res)
{
    const gen_image_options *o = run->options;
    const gen_image_state *s = run->state;
    const fxcli_image_target *target = fxcli_image_target_of(item->output);
    if (!target)
        return fxcli_fail(res, FX_EUNSUPPORTED, "'%s': unknown image format (use one of: %s)",
                          item->output, fxcli_image_extensions());
    fx_sample_type type = depth_types[o->depth];
    char why[FXCLI_MESSAGE_MAX];
    if (!fxcli_image_target_check(target, o->channels, type, why, sizeof why))
        return fxcli_fail(res, FX_EUNSUPPORTED, "%s (see --channels, --depth)", why);

    fx_gen_image_params p;
    fx_gen_image_params_init(&p);
    p.kind = (fx_gen_image_kind)o->kind;
    p.width = s->width;
    p.height = s->height;
    p.channels = o->channels;
    p.type = type;
    p.seed = (uint64_t)o->seed + item->index;
    p.cell = o->cell;

    fx_image img = {0};
    uint64_t t0 = fx_time_ns();
    fx_status st = fx_gen_image(ctx, &p, &img);
    res->timings.compute_ms = fx_elapsed_ms(t0, fx_time_ns());
    if (st == FX_OK) {
        fx_image_write_options wo;
        fx_image_write_options_init(&wo);
        wo.format = target->format;
        wo.in_place = 1; /* the path is the batch's own temporary file (cli/tempfile.c) */
        t0 = fx_time_ns();
        st = fx_image_write_file(ctx, out_path, &img, &wo);
        res->timings.encode_ms = fx_elapsed_ms(t0, fx_time_ns());
    }
    fx_image_free(&img);
    res->width = s->width;
    res->height = s->height;
    res->channels = o->channels;
    return st;
}

static void gen_finish(fxcli_run *run)
{
    free(run->state);
    run->state = NULL;
}

const fxcli_job fxcli_job_gen_image = {
    .name = "gen image",
    .summary = "Write deterministic synthetic test images",
    .usage = "[options] -o OUTPUT",
    .description = "Examples:\n"
                   "  fxkit gen image --kind photo --size 3840x2160 -o 4k.png\n"
                   "  fxkit gen image --kind noise --count 100 --size 640x480 -o noise/",
    .options = gen_image_table,
    .options_size = sizeof(gen_image_options),
    .common = FXCLI_COMMON_OUTPUT | FXCLI_COMMON_BATCH | FXCLI_COMMON_DEVICE | FXCLI_COMMON_LIMITS |
              FXCLI_COMMON_GENERAL,
    .media = FXCLI_MEDIA_IMAGE,
    .takes_inputs = false,
    .setup = gen_image_setup,
    .plan = gen_image_plan,
    .run_item = gen_image_item,
    .finish = gen_finish,
};

/* ---- gen audio ---- */

/* Same order as fx_gen_audio_kind. */
static const char *const audio_kinds[] = {"tones", "white", "silence", "speech", NULL};
/* Names fx_parse_sample_format understands. */
static const char *const sample_format_names[] = {"s16", "s24", "s32", "f32", "f64", NULL};
static const char *const audio_formats[] = {"wav", "flac", "aiff", "ogg", NULL};

typedef struct gen_audio_options {
    int kind;
    double duration;
    int frames;
    int rate;
    int channels;
    int sample_format;
    int seed;
    int count;
    double frequency;
    double amplitude;
    int to;
} gen_audio_options;

#define AUD(field) offsetof(gen_audio_options, field)

/* --duration, --channels, --seed, --frequency and --amplitude default to the
 * library's (gen.h). */
static const fx_option gen_audio_table[] = {
    {"kind", 'k', FX_OPT_ENUM, AUD(kind), FX_GEN_TONES, 0, 0, NULL, audio_kinds, "KIND",
     "what to synthesise"},
    {"duration", 0, FX_OPT_DOUBLE, AUD(duration), FX_DEFAULT_GEN_AUDIO_SECONDS, 0, MAX_DURATION_S, NULL, NULL, "SECONDS",
     "length in seconds"},
    {"frames", 0, FX_OPT_INT, AUD(frames), 0, 0, INT_MAX, NULL, NULL, "N",
     "length in frames, instead of --duration (0 = use --duration)"},
    {"rate", 'r', FX_OPT_INT, AUD(rate), FX_DEFAULT_GEN_AUDIO_RATE, 1, MAX_RATE, NULL, NULL, "HZ",
     "sample rate in frames per second"},
    {"channels", 'c', FX_OPT_INT, AUD(channels), FX_DEFAULT_GEN_AUDIO_CHANNELS, 1, FX_DEFAULT_MAX_AUDIO_CHANNELS, NULL, NULL,
     "N", "number of channels"},
    {"sample-format", 0, FX_OPT_ENUM, AUD(sample_format), 0, 0, 0, NULL, sample_format_names, "FMT",
     "sample format of the file"},
    {"seed", 0, FX_OPT_INT, AUD(seed), FX_DEFAULT_GEN_SEED, 0, MAX_SEED, NULL, NULL, "N",
     "random seed (file i of --count gets seed + i)"},
    {"count", 'n', FX_OPT_INT, AUD(count), 1, 1, MAX_COUNT, NULL, NULL, "N",
     "number of files (more than one needs -o FOLDER/)"},
    {"frequency", 0, FX_OPT_DOUBLE, AUD(frequency), FX_DEFAULT_GEN_FREQUENCY, 0, MAX_FREQUENCY_HZ,
     NULL, NULL, "HZ", "tone frequency"},
    {"amplitude", 0, FX_OPT_DOUBLE, AUD(amplitude), FX_DEFAULT_GEN_AMPLITUDE, 0, 1, NULL, NULL,
     "X", "peak level of the loudest part (1 = full scale)"},
    {"to", 0, FX_OPT_ENUM, AUD(to), 0, 0, 0, NULL, audio_formats, "FORMAT",
     "file format of files named in a folder (a file -o names its own)"},
    FX_OPTION_END};

typedef struct gen_audio_state {
    uint64_t frames;
    fx_sample_format format;
} gen_audio_state;

static int gen_audio_setup(fxcli_run *run)
{
    const gen_audio_options *o = run->options;
    gen_audio_state *s = calloc(1, sizeof *s);
    if (!s) return fxcli_usage(run, "out of memory");
    run->state = s;
    s->frames = o->frames ? (uint64_t)o->frames : (uint64_t)llround(o->duration * o->rate);
    if (s->frames == 0)
        return fxcli_usage(run, "the audio would be empty: give a --duration or --frames above 0");
    if (fx_parse_sample_format(sample_format_names[o->sample_format], &s->format) != FX_OK)
        return fxcli_usage(run, "--sample-format: '%s' is not supported by this library",
                           sample_format_names[o->sample_format]);
    return FXCLI_EXIT_OK;
}

static int gen_audio_plan(fxcli_run *run, fxcli_worklist *list)
{
    const gen_audio_options *o = run->options;
    return fxcli_plan_generated(run, list, (uint64_t)o->count, NAME_PREFIX, audio_formats[o->to]);
}

/* Generate chunk after chunk into the open writer. */
static fx_status write_chunks(fx_context *ctx, const fx_gen_audio_params *p,
                              fx_audio_writer *writer, fxcli_result *res)
{
    double *buf = calloc(AUDIO_CHUNK_FRAMES, (size_t)p->channels * sizeof *buf);
    if (!buf) return fxcli_fail(res, FX_ENOMEM, "out of memory for an audio chunk");
    fx_status st = FX_OK;
    for (uint64_t start = 0; start < p->frames && st == FX_OK;) {
        uint64_t left = p->frames - start;
        size_t n = left < AUDIO_CHUNK_FRAMES ? (size_t)left : AUDIO_CHUNK_FRAMES;
        uint64_t t0 = fx_time_ns();
        st = fx_gen_audio_chunk(ctx, p, start, n, buf);
        uint64_t t1 = fx_time_ns();
        res->timings.compute_ms += fx_elapsed_ms(t0, t1);
        if (st != FX_OK) break;
        st = fx_audio_writer_write(writer, buf, n);
        res->timings.encode_ms += fx_elapsed_ms(t1, fx_time_ns());
        start += n;
        fxcli_progress_item(res->slot, start, p->frames);
    }
    free(buf);
    return st;
}

static fx_status gen_audio_item(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                                const char *out_path, fxcli_result *res)
{
    const gen_audio_options *o = run->options;
    const gen_audio_state *s = run->state;
    fx_audio_container container = fx_audio_container_from_path(item->output);
    if (container == FX_AUDIO_AUTO)
        return fxcli_fail(res, FX_EUNSUPPORTED,
                          "'%s': unknown audio format (name it .wav, .flac, .aiff or .ogg)",
                          item->output);
    fx_gen_audio_params p;
    fx_gen_audio_params_init(&p);
    p.kind = (fx_gen_audio_kind)o->kind;
    p.frames = s->frames;
    p.channels = o->channels;
    p.rate = o->rate;
    p.seed = (uint64_t)o->seed + item->index;
    p.frequency = o->frequency;
    p.amplitude = o->amplitude;

    fx_audio_writer *writer = NULL;
    uint64_t t0 = fx_time_ns();
    fx_status st =
        fx_audio_writer_open(ctx, out_path, container, p.channels, p.rate, s->format, &writer);
    res->timings.encode_ms = fx_elapsed_ms(t0, fx_time_ns());
    if (st != FX_OK) return st;
    st = write_chunks(ctx, &p, writer, res);
    /* Keep the first error's detail: closing may report its own. */
    if (st != FX_OK && !res->message[0] && fx_context_error(ctx)[0])
        snprintf(res->message, sizeof res->message, "%s", fx_context_error(ctx));
    t0 = fx_time_ns();
    fx_status closed = fx_audio_writer_close(writer);
    res->timings.encode_ms += fx_elapsed_ms(t0, fx_time_ns());
    res->width = (int64_t)s->frames;
    res->height = 1;
    res->channels = o->channels;
    return st != FX_OK ? st : closed;
}

const fxcli_job fxcli_job_gen_audio = {
    .name = "gen audio",
    .summary = "Write deterministic synthetic test audio",
    .usage = "[options] -o OUTPUT",
    .description = "Examples:\n"
                   "  fxkit gen audio --kind speech --duration 60 -o speech.wav\n"
                   "  fxkit gen audio --kind white --duration 3600 --sample-format f32 -o hour.wav",
    .options = gen_audio_table,
    .options_size = sizeof(gen_audio_options),
    .common = FXCLI_COMMON_OUTPUT | FXCLI_COMMON_BATCH | FXCLI_COMMON_DEVICE | FXCLI_COMMON_LIMITS |
              FXCLI_COMMON_GENERAL,
    .media = FXCLI_MEDIA_AUDIO,
    .takes_inputs = false,
    .setup = gen_audio_setup,
    .plan = gen_audio_plan,
    .run_item = gen_audio_item,
    .finish = gen_finish,
};
