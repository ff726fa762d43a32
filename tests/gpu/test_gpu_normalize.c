/* Dynamic audio normalization on the GPU gives the CPU's bits: every option set,
 * mono to 8 channels, partial last frames, silence, short inputs and streaming in
 * odd chunk sizes. Skips without a GPU (fails with FXKIT_REQUIRE_GPU=1). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"

#define RATE 44100

/* Under compute-sanitizer (tests/gpu/check.sh: four tools, every launch and access
 * checked, racecheck alone ran past 10 minutes over the whole matrix on an H100) the
 * tests take a sample that still reaches every option set, width, channel count and
 * length at least once: the GPU kernels' code paths, not the matrix's products. */
static bool under_sanitizer(void)
{
    return getenv("FXKIT_UNDER_SANITIZER") != NULL;
}

/* Noise with a slow level envelope, so the gains vary from frame to frame. */
static fx_audio make_noise(int channels, size_t frames, uint64_t seed)
{
    fx_audio a = {0};
    a.frames = frames;
    a.channels = channels;
    a.rate = RATE;
    a.data = calloc(frames * (size_t)channels + 1, sizeof(double));
    for (size_t i = 0; i < frames * (size_t)channels; i++) {
        double level = 0.01 + 0.6 * fabs(sin((double)i / 200000.0));
        a.data[i] = level * ((double)(fxt_rand(&seed) >> 11) / 9007199254740992.0 - 0.5);
    }
    return a;
}

static void set_options(fx_context *ctx, fx_normalize_options *o, const char *text)
{
    fx_normalize_options_init(o);
    static char buf[256]; /* (string options such as channels= point into it) */
    snprintf(buf, sizeof buf, "%s", text);
    for (char *word = strtok(buf, " "); word; word = strtok(NULL, " ")) {
        char *eq = strchr(word, '=');
        *eq = '\0';
        FXT_CHECK_OK(
            fx_option_set(ctx, fx_option_find(fx_normalize_options_table(), word), o, eq + 1), ctx);
    }
}

/* Stream `in` through a normalizer on ctx in chunks of `chunk` frames. */
static fx_status run(fx_context *ctx, const fx_normalize_options *o, const fx_audio *in,
                     size_t chunk, double *out)
{
    fx_normalize *n;
    fx_status st = fx_normalize_open(ctx, o, in->channels, in->rate, &n);
    if (st != FX_OK) return st;
    const size_t ch = (size_t)in->channels;
    size_t done = 0, pulled = 0, got = 0;
    while (st == FX_OK && done < in->frames) {
        size_t take = in->frames - done < chunk ? in->frames - done : chunk;
        st = fx_normalize_push(n, in->data + done * ch, take);
        done += take;
        while (st == FX_OK &&
               (st = fx_normalize_pull(n, out + pulled * ch, in->frames - pulled, &got)) == FX_OK &&
               got)
            pulled += got;
    }
    if (st == FX_OK) st = fx_normalize_flush(n);
    while (st == FX_OK &&
           (st = fx_normalize_pull(n, out + pulled * ch, in->frames - pulled, &got)) == FX_OK &&
           got)
        pulled += got;
    fx_normalize_close(n);
    return st;
}

FXT_TEST(gpu_gives_the_cpu_bits)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 2), *gpu = fxt_context(FX_DEVICE_GPU, 2);
    if (!FXT_CHECK(cpu && gpu)) return;
    static const char *const option_sets[] = {
        "frame-ms=20",
        "frame-ms=20 window=5 coupling=0",
        "frame-ms=20 window=7 correct-dc=1 compress=3",
        "frame-ms=30 window=9 overlap=0.5 target-rms=0.1",
        "frame-samples=1024 window=31 target-rms=0.06 min-gain=0.1 ramp=0",
        "frame-ms=10 window=3 alt-boundary=1 threshold=0.05",
        "frame-ms=25 channels=0",
    };
    static const int channel_counts[] = {1, 2, 3, 8};
    static const size_t chunks[] = {1000, 4097, 65536};
    const size_t n_sets = sizeof option_sets / sizeof *option_sets,
                 n_counts = sizeof channel_counts / sizeof *channel_counts,
                 n_chunks = sizeof chunks / sizeof *chunks;
    const bool sampled = under_sanitizer();
    for (size_t s = 0; s < n_sets; s++) {
        for (size_t k = 0; k < n_counts; k++) {
            if (sampled && k != s % n_counts) continue; /* one channel count a set */
            const int ch = channel_counts[k];
            fx_audio in = make_noise(ch, 123457, 100 + k);
            const size_t samples = in.frames * (size_t)ch;
            double *want = calloc(samples, sizeof *want), *got = calloc(samples, sizeof *got);
            fx_normalize_options o;
            set_options(cpu, &o, option_sets[s]);
            FXT_CHECK_OK(run(cpu, &o, &in, 65536, want), cpu);
            for (size_t c = 0; c < n_chunks; c++) {
                if (sampled && c != s % n_chunks) continue; /* one chunk size */
                memset(got, 0, samples * sizeof *got);
                FXT_CHECK_OK(run(gpu, &o, &in, chunks[c], got), gpu);
                if (!FXT_CHECK(memcmp(want, got, samples * sizeof *got) == 0))
                    printf("'%s', %d channels, chunk %zu: GPU differs\n", option_sets[s], ch,
                           chunks[c]);
            }
            free(want);
            free(got);
            free(in.data);
        }
    }
    fx_context_destroy(cpu);
    fx_context_destroy(gpu);
}

FXT_TEST(gpu_silence_and_short_input)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 1), *gpu = fxt_context(FX_DEVICE_GPU, 1);
    if (!FXT_CHECK(cpu && gpu)) return;
    fx_audio silence = {0}, a, b;
    FXT_CHECK_OK(fx_audio_alloc(cpu, &silence, 20 * RATE + 17, 2, RATE), cpu);
    FXT_CHECK_OK(fx_normalize_audio(gpu, NULL, &silence, &a), gpu);
    FXT_CHECK(memcmp(a.data, silence.data, silence.frames * 2 * sizeof(double)) == 0);
    fx_audio_free(&a);
    fx_audio short_in = make_noise(2, 5 * RATE + 3, 9);
    FXT_CHECK_OK(fx_normalize_audio(cpu, NULL, &short_in, &a), cpu);
    FXT_CHECK_OK(fx_normalize_audio(gpu, NULL, &short_in, &b), gpu);
    FXT_CHECK(memcmp(a.data, b.data, a.frames * 2 * sizeof(double)) == 0);
    fx_normalize *n;
    FXT_CHECK_OK(fx_normalize_open(gpu, NULL, 2, RATE, &n), gpu);
    fx_normalize_info info;
    fx_normalize_info_get(n, &info);
    FXT_CHECK_EQ(info.on_gpu, 1);
    fx_normalize_close(n);
    fx_audio_free(&a);
    fx_audio_free(&b);
    free(short_in.data);
    fx_audio_free(&silence);
    fx_context_destroy(cpu);
    fx_context_destroy(gpu);
}

/* ---- the whole-buffer path (fx_normalize_audio on a GPU context) ---- */

/* Put the samples on the grid of a file format (as a reader of such a file would give
 * them), or leave them doubles; `spoil` puts a few samples off the grid (and a -0.0),
 * so that some chunks cannot pack and travel as doubles. */
static void quantize(fx_audio *a, fx_sample_format format, bool spoil)
{
    const size_t n = a->frames * (size_t)a->channels;
    double scale = 0.0;
    switch (format) {
    case FX_SF_U8: scale = 128.0; break;
    case FX_SF_S16: scale = 32768.0; break;
    case FX_SF_S24: scale = 8388608.0; break;
    case FX_SF_S32: scale = 2147483648.0; break;
    default: break;
    }
    for (size_t i = 0; i < n; i++) {
        if (scale > 0.0)
            a->data[i] = nearbyint(a->data[i] * scale) / scale;
        else if (format == FX_SF_F32)
            a->data[i] = (double)(float)a->data[i];
    }
    if (spoil && n > 0) {
        a->data[n / 2] = 1e-9 * 3.0;
        a->data[n - 1] = -0.0;
    }
    a->format = format;
}

static bool whole_case(fx_context *cpu, fx_context *gpu, const char *options, int channels,
                       size_t frames, fx_sample_format format, bool spoil)
{
    fx_audio in = make_noise(channels, frames, frames + (size_t)channels);
    quantize(&in, format, spoil);
    fx_normalize_options o;
    set_options(cpu, &o, options);
    fx_audio want = {0}, got = {0};
    bool same = false;
    if (FXT_CHECK_OK(fx_normalize_audio(cpu, &o, &in, &want), cpu) &&
        FXT_CHECK_OK(fx_normalize_audio(gpu, &o, &in, &got), gpu))
        same = got.frames == want.frames && got.format == want.format &&
               memcmp(want.data, got.data, frames * (size_t)channels * sizeof(double)) == 0;
    if (!FXT_CHECK(same))
        printf("whole buffer: '%s', %d channels, %zu frames, format %s%s: GPU differs\n", options,
               channels, frames, fx_sample_format_name(format), spoil ? " (spoiled)" : "");
    fx_audio_free(&want);
    fx_audio_free(&got);
    free(in.data);
    return same;
}

FXT_TEST(gpu_whole_buffer_gives_the_cpu_bits)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 2), *gpu = fxt_context(FX_DEVICE_GPU, 4);
    if (!FXT_CHECK(cpu && gpu)) return;
    /* The first five qualify for the whole-buffer path, the last two stream. */
    static const char *const option_sets[] = {
        "frame-ms=500",
        "frame-samples=2 window=31 threshold=0.1",
        "frame-ms=20 window=5 coupling=0 threshold=0.05",
        "frame-samples=1024 window=31 target-rms=0.06 min-gain=0.1 ramp=0",
        "frame-ms=25 channels=0 alt-boundary=1 coupling=0",
        "frame-ms=20 window=7 correct-dc=1",
        "frame-ms=30 window=9 overlap=0.5",
    };
    static const fx_sample_format formats[] = {FX_SF_SAME, FX_SF_S16, FX_SF_S24,
                                               FX_SF_S32,  FX_SF_F32, FX_SF_U8};
    static const int channel_counts[] = {1, 2, 3, 8};
    /* one sample, under a frame, just over one (odd), many frames with a partial last */
    static const size_t lengths[] = {1, 1023, 22051, 123457};
    const size_t n_formats = sizeof formats / sizeof *formats;
    /* sampled: one case in 5 (5 is prime to every dimension's size, so the sample still
     * meets each set, format, count and length) */
    const bool sampled = under_sanitizer();
    for (size_t s = 0; s < sizeof option_sets / sizeof *option_sets; s++)
        for (size_t f = 0; f < n_formats; f++)
            for (size_t k = 0; k < sizeof channel_counts / sizeof *channel_counts; k++)
                for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
                    if (!sampled || (s + f + k + l) % 5 == 0)
                        whole_case(cpu, gpu, option_sets[s], channel_counts[k], lengths[l],
                                   formats[f], false);
    /* Several staging blocks (2^19 samples each on this 4-thread context), some that
     * cannot pack (sampled: two formats). */
    for (size_t f = 0; f < n_formats; f++) {
        if (sampled && f != 1 && f != 4) continue;
        whole_case(cpu, gpu, "frame-ms=500", 2, 1500001, formats[f], false);
        whole_case(cpu, gpu, "frame-ms=500", 2, 1500001, formats[f], true);
        whole_case(cpu, gpu, "frame-samples=1024 target-rms=0.06", 3, 777777, formats[f], true);
    }
    /* The default options on six minutes of stereo 16-bit (the benchmark's case; its
     * kernels are the 1500001-frame cases' above). */
    if (!sampled) whole_case(cpu, gpu, "frame-ms=500", 2, 360 * RATE, FX_SF_S16, false);
    fx_context_destroy(cpu);
    fx_context_destroy(gpu);
}

/* Several threads, each with its own GPU context on the same GPU (the CLI's batch
 * workers), normalizing files at once: every output the CPU's. */
typedef struct worker_case {
    fx_context *cpu;
    int index;
    int failures;
} worker_case;

static void *whole_worker(void *arg)
{
    worker_case *w = arg;
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2);
    if (!gpu) {
        w->failures++;
        return NULL;
    }
    for (int file = 0; file < (under_sanitizer() ? 2 : 6); file++) {
        fx_audio in = make_noise(1 + (w->index + file) % 3, 200003 + 7919 * (size_t)file,
                                 (uint64_t)(w->index * 100 + file));
        quantize(&in, file % 2 ? FX_SF_S16 : FX_SF_SAME, false);
        fx_audio want = {0}, got = {0};
        const size_t n = in.frames * (size_t)in.channels;
        if (fx_normalize_audio(w->cpu, NULL, &in, &want) != FX_OK ||
            fx_normalize_audio(gpu, NULL, &in, &got) != FX_OK ||
            memcmp(want.data, got.data, n * sizeof(double)) != 0)
            w->failures++;
        fx_audio_free(&want);
        fx_audio_free(&got);
        free(in.data);
    }
    fx_context_destroy(gpu);
    return NULL;
}

FXT_TEST(gpu_whole_buffers_from_several_workers)
{
    enum { WORKERS = 4 };
    worker_case cases[WORKERS];
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        cases[i] = (worker_case){fxt_context(FX_DEVICE_CPU, 1), i, 0};
        FXT_CHECK(cases[i].cpu != NULL);
        FXT_CHECK(pthread_create(&threads[i], NULL, whole_worker, &cases[i]) == 0);
    }
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(threads[i], NULL);
        FXT_CHECK_EQ(cases[i].failures, 0);
        fx_context_destroy(cases[i].cpu);
    }
}

GPU_TEST_MAIN(FXT_CASE(gpu_gives_the_cpu_bits), FXT_CASE(gpu_silence_and_short_input),
              FXT_CASE(gpu_whole_buffer_gives_the_cpu_bits),
              FXT_CASE(gpu_whole_buffers_from_several_workers))
