/* fxkit normalize: dynamic audio normalization (include/fxkit/normalize.h).
 *
 * Each file is streamed: read a chunk, push it, pull and write what is ready
 * (normalize_pipeline.c, overlapped on two threads), so memory is the
 * normalizer's look-ahead whatever the length; on a GPU a file up to
 * WHOLE_FILE_MAX_BYTES is normalized whole instead (the library's whole-buffer
 * path), with the same bytes. The option
 * table is the library's, followed by the program's own rows (output sample
 * format and the two logs); the library's rows point into the first member of
 * normalize_cli_options, so they work unchanged there.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "normalize_pipeline.h"

/* Room for the library's rows plus the program's. */
#define TABLE_ROWS 64
#define US_PER_MS 1000.0
/* Any rate will do to check the options before the files are read. */
#define CHECK_RATE 48000
#define STAGE_LOG_HEADER                                                                           \
    "file,samples,frame_length,filter_width,analyze_us,min_filter_us,gauss_us,gain_us,total_us"
#define GAIN_LOG_HEADER "file,frame,channel,gain,minimum,smoothed"
/* On a GPU a file of at most this many bytes of doubles is normalized whole (read,
 * one fx_normalize_audio call, written): the library's whole-buffer path, a few
 * launches per file, the samples up in the file's width. 128 MiB is 25 minutes of
 * stereo at 44.1 kHz; a worker holds the file twice (in and out). Longer files stream. */
#define WHOLE_FILE_MAX_BYTES ((uint64_t)128 << 20)

/* --sample-format: names fx_parse_sample_format understands. */
static const char *const sample_format_names[] = {"same", "s16", "s24", "s32", "f32", "f64", NULL};

typedef struct normalize_cli_options {
    fx_normalize_options lib; /* first: the library's rows point into it */
    int sample_format;
    const char *gain_log;
    const char *stage_log;
    int explain;
} normalize_cli_options;

#define OPT(field) offsetof(normalize_cli_options, field)

static const fx_option program_rows[] = {
    {"sample-format", 0, FX_OPT_ENUM, OPT(sample_format), 0, 0, 0, NULL, sample_format_names, "FMT",
     "output sample format (same: the input's)"},
    {"gain-log", 0, FX_OPT_STRING, OPT(gain_log), 0, 0, 0, NULL, NULL, "FILE",
     "write every frame's gains per channel (own, minimum, smoothed) as CSV"},
    {"stage-log", 0, FX_OPT_STRING, OPT(stage_log), 0, 0, 0, NULL, NULL, "FILE",
     "append each file's stage times (us) as CSV, in the published GPU variant's columns"},
    {"explain", 0, FX_OPT_BOOL, OPT(explain), 0, 0, 1, NULL, NULL, NULL,
     "say on which device each file runs and why (--device auto: the estimates)"},
    FX_OPTION_END};

static fx_option normalize_table[TABLE_ROWS];

/* The job's table: the library's rows, then the program's. Runs before main. */
__attribute__((constructor)) static void build_table(void)
{
    size_t n = 0;
    for (const fx_option *o = fx_normalize_options_table(); o->name && n + 1 < TABLE_ROWS; o++)
        normalize_table[n++] = *o;
    for (const fx_option *o = program_rows; n + 1 < TABLE_ROWS; o++) {
        normalize_table[n++] = *o;
        if (!o->name) break;
    }
}

/* Files shared by the workers; rows are written under the lock. */
typedef struct normalize_state {
    fx_sample_format sample_format;
    pthread_mutex_t lock;
    FILE *gain_log;
    FILE *stage_log;
} normalize_state;

/* Open a CSV file (appending or new); a header when it is empty. */
static FILE *open_csv(const char *path, const char *mode, const char *header)
{
    FILE *f = fopen(path, mode);
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && st.st_size == 0) fprintf(f, "%s\n", header);
    return f;
}

/* Check the options once, before any file, so a bad value is a usage error. */
static int check_options(fxcli_run *run, const normalize_cli_options *o)
{
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = 1;
    fx_context *ctx;
    if (fx_context_create(&co, &ctx) != FX_OK) return fxcli_usage(run, "out of memory");
    fx_normalize_options lib = o->lib;
    lib.channels = NULL; /* a list depends on each file's channel count */
    fx_normalize *n = NULL;
    fx_status st = fx_normalize_open(ctx, &lib, 1, CHECK_RATE, &n);
    int code = FXCLI_EXIT_OK;
    if (st != FX_OK) code = fxcli_usage(run, "%s", fx_context_error(ctx));
    fx_normalize_close(n);
    fx_context_destroy(ctx);
    return code;
}

static int normalize_setup(fxcli_run *run)
{
    const normalize_cli_options *o = run->options;
    int code = check_options(run, o);
    if (code != FXCLI_EXIT_OK) return code;
    normalize_state *s = calloc(1, sizeof *s);
    if (!s) return fxcli_usage(run, "out of memory");
    run->state = s;
    pthread_mutex_init(&s->lock, NULL);
    if (fx_parse_sample_format(sample_format_names[o->sample_format], &s->sample_format) != FX_OK)
        return fxcli_usage(run, "--sample-format: '%s' is not supported by this library",
                           sample_format_names[o->sample_format]);
    if (o->gain_log && !(s->gain_log = open_csv(o->gain_log, "w", GAIN_LOG_HEADER)))
        return fxcli_usage(run, "--gain-log %s: %s", o->gain_log, strerror(errno));
    if (o->stage_log && !(s->stage_log = open_csv(o->stage_log, "a", STAGE_LOG_HEADER)))
        return fxcli_usage(run, "--stage-log %s: %s", o->stage_log, strerror(errno));
    return FXCLI_EXIT_OK;
}

static void normalize_finish(fxcli_run *run)
{
    normalize_state *s = run->state;
    if (!s) return;
    if (s->gain_log) fclose(s->gain_log);
    if (s->stage_log) fclose(s->stage_log);
    pthread_mutex_destroy(&s->lock);
    free(s);
    run->state = NULL;
}

/* ---- one file ---- */

typedef struct gain_rows {
    normalize_state *state;
    const char *file;
} gain_rows;

static void log_gain(void *user, uint64_t frame, int channel, double local, double minimum,
                     double smoothed)
{
    gain_rows *g = user;
    pthread_mutex_lock(&g->state->lock);
    fxcli_csv_field(g->state->gain_log, g->file);
    fprintf(g->state->gain_log, ",%" PRIu64 ",%d,%.17g,%.17g,%.17g\n", frame, channel, local,
            minimum, smoothed);
    pthread_mutex_unlock(&g->state->lock);
}

static void log_stages(normalize_state *s, const char *file, uint64_t samples,
                       const fx_normalize *n, double total_ms)
{
    fx_normalize_info info;
    fx_normalize_info_get(n, &info);
    fx_normalize_stage_times t;
    fx_normalize_stage_times_get(n, &t);
    pthread_mutex_lock(&s->lock);
    fxcli_csv_field(s->stage_log, file);
    fprintf(s->stage_log, ",%" PRIu64 ",%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f\n", samples,
            info.frame_length, info.gauss_window, t.analyze_ms * US_PER_MS,
            t.min_filter_ms * US_PER_MS, t.gauss_ms * US_PER_MS, t.gain_ms * US_PER_MS,
            total_ms * US_PER_MS);
    fflush(s->stage_log);
    pthread_mutex_unlock(&s->lock);
}

/* Keep the first error's detail before clean-up calls can overwrite it. */
static void keep_detail(fx_context *ctx, fxcli_result *res)
{
    if (!res->message[0] && fx_context_error(ctx)[0])
        snprintf(res->message, sizeof res->message, "%s", fx_context_error(ctx));
}

static double dbfs(double v)
{
    return 20.0 * log10(v);
}

static double levels_rms(const fxcli_levels *l)
{
    return l->samples ? sqrt(l->sum_squares / (double)l->samples) : 0.0;
}

static fx_status normalize_item(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                                const char *out_path, fxcli_result *res)
{
    const normalize_cli_options *o = run->options;
    normalize_state *s = run->state;
    fx_audio_container container = fx_audio_container_from_path(item->output);
    if (container == FX_AUDIO_AUTO)
        return fxcli_fail(res, FX_EUNSUPPORTED,
                          "'%s': unknown audio format (name it .wav, .flac, .aiff or .ogg)",
                          item->output);
    uint64_t start = fx_time_ns();
    fx_audio_reader *reader = NULL;
    fx_status st = fx_audio_reader_open(ctx, item->input, &reader);
    res->timings.decode_ms = fx_elapsed_ms(start, fx_time_ns());
    if (st != FX_OK) return st;
    fx_audio_info info;
    fx_audio_reader_info(reader, &info);
    res->height = 1;
    res->channels = info.channels;

    /* Whole on a GPU when the library takes the buffer whole (an analysis from each
     * frame's levels alone: no DC correction, compression, overlap or compat; with
     * --device auto, the cost model's choice for this length) and no per-frame log or
     * stage time is asked for (those come from a stream). */
    char whole_why[200];
    const bool whole =
        !s->gain_log && !o->stage_log && !run->common.timings && info.frames > 0 &&
        info.channels > 0 &&
        info.frames <= WHOLE_FILE_MAX_BYTES / sizeof(double) / (uint64_t)info.channels &&
        fx_normalize_whole_on_gpu(ctx, &o->lib, info.channels, info.rate, info.frames,
                                  info.format, whole_why, sizeof whole_why);
    fx_normalize *n = NULL;
    if (!whole) st = fx_normalize_open(ctx, &o->lib, info.channels, info.rate, &n);
    gain_rows rows = {s, item->input};
    /* Where the file runs and why: the stream's choice, or the whole-buffer path's. */
    const char *device_why = n ? fx_normalize_explain(n) : whole_why;
    if (st == FX_OK) fxcli_result_device(res, device_why);
    if (st == FX_OK && (o->explain || run->common.verbose))
        fxcli_note("%s: device: %s", item->input, device_why);
    if (st == FX_OK && n) {
        fx_normalize_set_timing(n, o->stage_log != NULL || run->common.timings);
        if (s->gain_log) fx_normalize_set_gain_log(n, log_gain, &rows);
    }
    fx_sample_format format = s->sample_format;
    /* "same": the input's; 8-bit files are read-only, so they widen to s16. */
    if (format == FX_SF_SAME) format = info.format == FX_SF_U8 ? FX_SF_S16 : info.format;
    fx_audio_writer *writer = NULL;
    if (st == FX_OK)
        st = fx_audio_writer_open(ctx, out_path, container, info.channels, info.rate, format,
                                  &writer);
    fxcli_stream_levels lv = {.wanted = run->log_level >= FX_LOG_INFO};
    if (st == FX_OK) {
        /* With two threads or more, reading and writing overlap the normalizing. */
        const bool overlap = fx_context_threads(ctx) >= 2;
        st = whole ? fxcli_normalize_whole(ctx, &o->lib, reader, writer, &info, &lv, res)
                   : fxcli_normalize_stream(n, reader, writer, &info, overlap, &lv, res);
        if (st != FX_OK) keep_detail(ctx, res);
        uint64_t t0 = fx_time_ns();
        fx_status closed = fx_audio_writer_close(writer);
        res->timings.encode_ms += fx_elapsed_ms(t0, fx_time_ns());
        if (st == FX_OK) st = closed;
    }
    if (st == FX_OK && s->stage_log)
        log_stages(s, item->input, info.frames, n, fx_elapsed_ms(start, fx_time_ns()));
    if (st == FX_OK && run->common.timings) {
        fx_normalize_stage_times t;
        fx_normalize_stage_times_get(n, &t);
        fxcli_note("%s: stages: analyze %.2f ms, minimum filter %.2f ms, gaussian filter %.2f "
                   "ms, gain %.2f ms",
                   item->input, t.analyze_ms, t.min_filter_ms, t.gauss_ms, t.gain_ms);
    }
    if (st == FX_OK && lv.wanted)
        fxcli_note("%s: peak %.1f -> %.1f dBFS, RMS %.1f -> %.1f dBFS", item->input,
                   dbfs(lv.in.peak), dbfs(lv.out.peak), dbfs(levels_rms(&lv.in)),
                   dbfs(levels_rms(&lv.out)));
    fx_normalize_close(n);
    fx_audio_reader_close(reader);
    return st;
}

const fxcli_job fxcli_job_normalize = {
    .name = "normalize",
    .summary = "Even out quiet and loud passages of audio (ffmpeg's dynaudnorm, bit-exact)",
    .usage = "[options] INPUT... -o OUTPUT",
    .description =
        "The Dynamic Audio Normalizer: each frame gets the gain that brings it to the target\n"
        "peak (or RMS); a minimum and a Gaussian filter over neighbouring frames smooth the\n"
        "gains, and the gain is ramped sample by sample. With the defaults the output is\n"
        "bit-identical to ffmpeg 5.1's -af dynaudnorm (inputs of at least --window frames).\n"
        "Files are streamed, so any length works. ffmpeg's short names -f -g -p -m -r -c -b -s\n"
        "are accepted.\n"
        "Examples:\n"
        "  fxkit normalize speech.wav -o speech_norm.wav\n"
        "  fxkit normalize -f 250 -g 15 --target-rms 0.1 podcast/*.flac -o out/\n"
        "  fxkit normalize --preset danpi --timings --stage-log Log.csv in.wav -o out.wav",
    .options = normalize_table,
    .options_size = sizeof(normalize_cli_options),
    .common = FXCLI_COMMON_FILE_JOB,
    .media = FXCLI_MEDIA_AUDIO,
    .takes_inputs = true,
    .setup = normalize_setup,
    .run_item = normalize_item,
    .finish = normalize_finish,
};
