/* Dynamic audio normalization on the GPU gives the CPU's bits: every option set,
 * mono to 8 channels, partial last frames, silence, short inputs and streaming in
 * odd chunk sizes. Skips without a GPU (fails with FXKIT_REQUIRE_GPU=1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"

#define RATE 44100

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
    char buf[256];
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
    for (size_t s = 0; s < sizeof option_sets / sizeof *option_sets; s++) {
        for (size_t k = 0; k < sizeof channel_counts / sizeof *channel_counts; k++) {
            const int ch = channel_counts[k];
            fx_audio in = make_noise(ch, 123457, 100 + k);
            const size_t samples = in.frames * (size_t)ch;
            double *want = calloc(samples, sizeof *want), *got = calloc(samples, sizeof *got);
            fx_normalize_options o;
            set_options(cpu, &o, option_sets[s]);
            FXT_CHECK_OK(run(cpu, &o, &in, 65536, want), cpu);
            for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
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

GPU_TEST_MAIN(FXT_CASE(gpu_gives_the_cpu_bits), FXT_CASE(gpu_silence_and_short_input))
