/* GPU benchmark of the normalize job against the CPU path, in one run: the published GPU
 * variant's experiment (its preset; files of 10 s to 6 min; frame lengths 2 to 1024
 * samples; two filter widths) with the four stage times it logs, and a batch of long
 * stereo files, and the ramp kernel alone on device-resident audio (the library's
 * internal launcher, so the bench includes src/). Prints RESULT lines; every GPU
 * output is compared with the CPU's bits.
 *
 *   normalize_gpu_bench [REPEAT [whole]]  (default 3; medians; "whole": only the
 *                                         fx_normalize_audio lines, nm_whole_*)
 *
 * Build: `make` builds it into build/bench/normalize_gpu_bench when CUDA is on
 * (bench/CMakeLists.txt); by hand: cc -O2 bench/normalize_gpu_bench.c -Iinclude -Isrc
 *   -I/usr/local/cuda/include build/src/libfxkit.a -lcudart ... -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_context.h"
#include "bench_median.h"
#include "fxkit/fxkit.h"
#include "gpu/gpu_internal.h"
#include "normalize/normalize_gpu.h"
#include "normalize/normalize_kernels.h"

#define RATE 44100
#define BATCH_FILES 8
#define BATCH_SECONDS 360
#define MAX_REPEAT 15
/* Frame-by-frame work stays on the host: beyond this many frames a run takes
 * seconds on either device and says nothing new. */
#define MAX_FRAMES 2000000
/* Device-resident kernel timing: 6 min of stereo, this many launches. */
#define KERNEL_SECONDS 360
#define KERNEL_LAUNCHES 20

static const double durations_s[] = {10, 20, 60, 360};
static const int frame_lengths[] = {2, 32, 1024};
static const int half_widths[] = {15, 50}; /* the preset's, and a wider one */

typedef struct run_result {
    double total_ms;
    fx_normalize_stage_times stages;
    int ok;
} run_result;

/* Speech-like: a tone under a slow envelope, with clicks. */
static void fill(fx_audio *a)
{
    for (size_t i = 0; i < a->frames; i++)
        for (int c = 0; c < a->channels; c++) {
            double v =
                0.5 * sin((double)i * 0.031 + c) * (0.05 + 0.9 * fabs(sin((double)i * 3e-5)));
            if (i % 22050 == 0) v = 0.99;
            a->data[i * (size_t)a->channels + (size_t)c] = v;
        }
}

/* One stream over the whole signal: push, flush, pull; stage times as it logs them. */
static run_result run_once(fx_context *ctx, const fx_normalize_options *o, const fx_audio *in,
                           double *out)
{
    run_result r = {0};
    fx_normalize *n = NULL;
    uint64_t t0 = fx_time_ns();
    if (fx_normalize_open(ctx, o, in->channels, in->rate, &n) != FX_OK) return r;
    fx_normalize_set_timing(n, 1);
    size_t got = 0, total = 0;
    int ok = fx_normalize_push(n, in->data, in->frames) == FX_OK && fx_normalize_flush(n) == FX_OK;
    while (ok && total < in->frames) {
        ok = fx_normalize_pull(n, out + total * (size_t)in->channels, in->frames - total, &got) ==
             FX_OK;
        if (!got) break;
        total += got;
    }
    fx_normalize_stage_times_get(n, &r.stages);
    fx_normalize_close(n);
    r.total_ms = fx_elapsed_ms(t0, fx_time_ns());
    r.ok = ok && total == in->frames;
    return r;
}

/* Medians of `repeat` runs on each context; the outputs' bits compared. */
static void experiment(fx_context *gpu, fx_context *cpu, const char *name,
                       const fx_normalize_options *o, const fx_audio *in, int repeat)
{
    size_t samples = in->frames * (size_t)in->channels;
    double *out_g = malloc(samples * sizeof *out_g), *out_c = malloc(samples * sizeof *out_c);
    double gt[MAX_REPEAT], ct[MAX_REPEAT], ga[MAX_REPEAT], gm[MAX_REPEAT], gg[MAX_REPEAT],
        gn[MAX_REPEAT];
    int ok = out_g && out_c;
    for (int k = 0; ok && k < repeat; k++) {
        run_result g = run_once(gpu, o, in, out_g), c = run_once(cpu, o, in, out_c);
        ok = g.ok && c.ok;
        gt[k] = g.total_ms;
        ct[k] = c.total_ms;
        ga[k] = g.stages.analyze_ms;
        gm[k] = g.stages.min_filter_ms;
        gg[k] = g.stages.gauss_ms;
        gn[k] = g.stages.gain_ms;
    }
    if (!ok) {
        printf("RESULT nm_%s_error %s / %s\n", name, fx_context_error(gpu), fx_context_error(cpu));
    } else {
        int same = !memcmp(out_g, out_c, samples * sizeof *out_g);
        double gain = bench_median(gn, repeat);
        printf("RESULT nm_%s gpu_ms %.2f cpu_ms %.2f stages_gpu_ms analyze %.3f min %.3f "
               "gauss %.3f gain %.3f gain_gsps %.1f identical %s\n",
               name, bench_median(gt, repeat), bench_median(ct, repeat), bench_median(ga, repeat),
               bench_median(gm, repeat), bench_median(gg, repeat), gain,
               gain > 0 ? (double)samples / (gain * 1e6) : 0.0, same ? "yes" : "NO");
    }
    free(out_g);
    free(out_c);
}

/* The ramp kernel alone on device-resident audio: 6 min of stereo in batches of
 * 500 ms frames, launched on device buffers; G samples per second of the median. */
static void kernel_throughput(fx_context *gpu)
{
    const size_t length = RATE / 2, channels = 2;
    const size_t frames_total = (size_t)KERNEL_SECONDS * 2;
    const size_t samples = frames_total * length * channels;
    const size_t params = fxi_nm_ramp_param_count(frames_total, 2, 1);
    void *src = NULL, *dst = NULL, *par = NULL;
    double *host = calloc(params, sizeof *host);
    if (!host || fxi_device_alloc(gpu, samples * sizeof(double), &src) != FX_OK ||
        fxi_device_alloc(gpu, samples * sizeof(double), &dst) != FX_OK ||
        fxi_device_alloc(gpu, params * sizeof(double), &par) != FX_OK) {
        printf("RESULT nm_kernel_error %s\n", fx_context_error(gpu));
        return;
    }
    for (size_t k = 0; k <= frames_total; k++)
        host[k] = 0.5 + (double)(k % 7);
    const bool process[2] = {true, true};
    fxi_nm_batch_pack_process(process, 2, 1, frames_total, host);
    fxi_device_memset(gpu, src, 0, samples * sizeof(double));
    fxi_copy_h2d(gpu, par, host, params * sizeof(double));
    fxi_nm_ramp_batch b;
    fxi_nm_batch_describe(&b, frames_total, length, length, 2, 1, 1);
    double ms[KERNEL_LAUNCHES];
    for (int k = -1; k < KERNEL_LAUNCHES; k++) {
        fxi_stream_sync(gpu);
        uint64_t t0 = fx_time_ns();
        fxi_normalize_ramp_launch(gpu, src, dst, par, &b);
        fxi_stream_sync(gpu);
        if (k >= 0) ms[k] = fx_elapsed_ms(t0, fx_time_ns());
    }
    double m = bench_median(ms, KERNEL_LAUNCHES);
    printf("RESULT nm_kernel_6min_stereo_ms %.3f (%.1f G samples/s, %.0f GB/s)\n", m,
           (double)samples / (m * 1e6), 2.0 * (double)samples * sizeof(double) / (m * 1e6));
    fxi_device_free(gpu, src);
    fxi_device_free(gpu, dst);
    fxi_device_free(gpu, par);
    free(host);
}

/* fx_normalize_audio, the one call on a whole buffer (the GPU's whole-buffer path),
 * on both contexts: medians of `repeat` calls, each with its output's allocation. */
static void whole_experiment(fx_context *gpu, fx_context *cpu, const char *name,
                             const fx_normalize_options *o, const fx_audio *in, int repeat)
{
    double gt[MAX_REPEAT], ct[MAX_REPEAT];
    int ok = 1, same = 1;
    for (int k = 0; ok && k < repeat; k++) {
        fx_audio g = {0}, c = {0};
        uint64_t t0 = fx_time_ns();
        ok = fx_normalize_audio(gpu, o, in, &g) == FX_OK;
        uint64_t t1 = fx_time_ns();
        ok = ok && fx_normalize_audio(cpu, o, in, &c) == FX_OK;
        uint64_t t2 = fx_time_ns();
        gt[k] = fx_elapsed_ms(t0, t1);
        ct[k] = fx_elapsed_ms(t1, t2);
        same = same && ok &&
               !memcmp(g.data, c.data, in->frames * (size_t)in->channels * sizeof(double));
        fx_audio_free(&g);
        fx_audio_free(&c);
    }
    if (!ok) {
        printf("RESULT nm_whole_%s_error %s / %s\n", name, fx_context_error(gpu),
               fx_context_error(cpu));
        return;
    }
    const double g = bench_median(gt, repeat), c = bench_median(ct, repeat);
    printf("RESULT nm_whole_%s gpu_ms %.2f cpu_ms %.2f cpu_over_gpu %.2f identical %s\n", name, g,
           c, c / g, same ? "yes" : "NO");
}

/* The 6-minute stereo file through fx_normalize_audio: default options with the
 * samples as doubles and on the 16-bit grid (a 16-bit file's, travelling as int16),
 * and the published variant's options. */
static int whole_experiments(fx_context *gpu, fx_context *cpu, int repeat)
{
    fx_audio in;
    if (fx_audio_alloc(cpu, &in, (size_t)360 * RATE, 2, RATE) != FX_OK) return 1;
    fill(&in);
    fx_normalize_options o, danpi;
    fx_normalize_options_init(&o);
    fx_normalize_options_init(&danpi);
    danpi.preset = FX_NORMALIZE_PRESET_DANPI;
    whole_experiment(gpu, cpu, "6min_stereo_f64_default", &o, &in, repeat);
    for (size_t i = 0; i < in.frames * 2; i++)
        in.data[i] = nearbyint(in.data[i] * 32768.0) / 32768.0;
    in.format = FX_SF_S16;
    whole_experiment(gpu, cpu, "6min_stereo_s16_default", &o, &in, repeat);
    whole_experiment(gpu, cpu, "6min_stereo_s16_danpi_frame1024_width31", &danpi, &in, repeat);
    fx_audio_free(&in);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line out at once, even when killed */
    int repeat = argc > 1 ? atoi(argv[1]) : 3;
    if (repeat < 1 || repeat > MAX_REPEAT) repeat = 3;
    fx_context *gpu = bench_context(FX_DEVICE_GPU), *cpu = bench_context(FX_DEVICE_CPU);
    if (!gpu || !cpu) {
        fprintf(stderr, "normalize_gpu_bench: needs a GPU\n");
        return 1;
    }
    printf("RESULT cpu_threads %d\n", fx_context_threads(cpu));
    kernel_throughput(gpu);
    if (whole_experiments(gpu, cpu, repeat)) return 1;
    /* `normalize_gpu_bench REPEAT whole`: the whole-buffer lines only */
    if (argc > 2 && !strcmp(argv[2], "whole")) {
        fx_context_destroy(gpu);
        fx_context_destroy(cpu);
        return 0;
    }
    for (size_t d = 0; d < sizeof durations_s / sizeof *durations_s; d++) {
        fx_audio in;
        if (fx_audio_alloc(cpu, &in, (size_t)(durations_s[d] * RATE), 1, RATE) != FX_OK) return 1;
        fill(&in);
        for (size_t f = 0; f < sizeof frame_lengths / sizeof *frame_lengths; f++)
            for (size_t w = 0; w < sizeof half_widths / sizeof *half_widths; w++) {
                fx_normalize_options o;
                fx_normalize_options_init(&o);
                o.preset = FX_NORMALIZE_PRESET_DANPI;
                o.frame_samples = frame_lengths[f];
                o.window = 2 * half_widths[w] + 1;
                char name[64];
                snprintf(name, sizeof name, "danpi_%gs_frame%d_width%d", durations_s[d],
                         frame_lengths[f], o.window);
                if (in.frames / (size_t)frame_lengths[f] > MAX_FRAMES) {
                    printf("RESULT nm_%s skipped (over %d frames)\n", name, MAX_FRAMES);
                    continue;
                }
                experiment(gpu, cpu, name, &o, &in, repeat);
            }
        fx_audio_free(&in);
    }
    /* a batch of long stereo files, one after the other, default options */
    fx_audio batch;
    if (fx_audio_alloc(cpu, &batch, (size_t)BATCH_SECONDS * RATE, 2, RATE) != FX_OK) return 1;
    fill(&batch);
    fx_normalize_options o;
    fx_normalize_options_init(&o);
    double *out = malloc(batch.frames * 2 * sizeof *out);
    double ms[2] = {0, 0};
    int ok = out != NULL;
    fx_context *ctxs[2] = {gpu, cpu};
    for (int k = 0; ok && k < 2; k++)
        for (int i = 0; ok && i < BATCH_FILES; i++) {
            run_result r = run_once(ctxs[k], &o, &batch, out);
            ok = r.ok;
            ms[k] += r.total_ms;
        }
    if (ok)
        printf("RESULT nm_batch_%dx%ds_stereo gpu_ms %.1f cpu_ms %.1f\n", BATCH_FILES,
               BATCH_SECONDS, ms[0], ms[1]);
    free(out);
    fx_audio_free(&batch);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
    return 0;
}
