/* fxkit filter benchmarks that need no files: the compute stage of one plan, and a
 * plan reused over a batch against one plan per image.
 *
 *   filter_bench compute KERNEL WIDTH HEIGHT CHANNELS [REPEAT [THREADS [STRATEGY [DEVICE]]]]
 *
 * DEVICE: cpu (default) or gpu (host images through the GPU, bands overlapped; the
 * device-resident workloads, fft 31x31 and 121x121 among them, are in
 * tests/gpu/test_gpu_filter_bench.c, run by tests/gpu/check.sh).
 *   filter_bench reuse [COUNT [SIDE [KERNEL [THREADS]]]]
 *
 * Build: `make` builds it into build/bench/filter_bench (bench/CMakeLists.txt), which
 * bench/filter_vs_opencv.py runs; by hand:
 * cc -O2 bench/filter_bench.c -Iinclude -Lbuild/src -lfxkit -o filter_bench. Prints "RESULT name value" lines.
 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "fxkit/fxkit.h"
#include "bench_median.h"

static void fill(fx_image *img, uint64_t seed)
{
    size_t bytes = img->stride * (size_t)img->height;
    for (size_t i = 0; i < bytes; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        img->data[i] = (uint8_t)(seed >> 56);
    }
}

/* CPU time of the whole process (every thread), in ms: with one thread it is what the
 * run cost, whatever else the machine was doing. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* KERNEL as the CLI takes it: text or a preset, or @FILE with the text (NULL: unreadable). */
static char *kernel_text(const char *arg)
{
    if (arg[0] != '@') return strdup(arg);
    FILE *f = fopen(arg + 1, "rb");
    if (!f) return NULL;
    char *text = NULL;
    size_t size = 0, used = 0, got;
    do {
        if (used + 4096 + 1 > size) {
            size = (used + 4096 + 1) * 2;
            char *grown = realloc(text, size);
            if (!grown) break;
            text = grown;
        }
        got = fread(text + used, 1, 4096, f);
        used += got;
    } while (got > 0);
    fclose(f);
    if (text) text[used] = 0;
    return text;
}

static int fail(fx_context *ctx, const char *what)
{
    fprintf(stderr, "filter_bench: %s: %s\n", what, ctx ? fx_context_error(ctx) : "");
    return 1;
}

static fx_context *context(int threads, fx_device_kind device)
{
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = device;
    o.threads = threads;
    fx_context *ctx = NULL;
    fx_context_create(&o, &ctx);
    return ctx;
}

static int compute(int argc, char **argv)
{
    if (argc < 6)
        return fail(NULL,
                    "compute KERNEL WIDTH HEIGHT CHANNELS [REPEAT [THREADS [STRATEGY [DEVICE]]]]");
    int w = atoi(argv[3]), h = atoi(argv[4]), ch = atoi(argv[5]);
    int repeat = argc > 6 ? atoi(argv[6]) : 7, threads = argc > 7 ? atoi(argv[7]) : 0;
    const int gpu = argc > 9 && !strcmp(argv[9], "gpu");
    fx_context *ctx = context(threads, gpu ? FX_DEVICE_GPU : FX_DEVICE_CPU);
    if (!ctx) return fail(NULL, gpu ? "no GPU context" : "no context");
    fx_kernel *k;
    char *text = kernel_text(argv[2]);
    if (!text) return fail(NULL, argv[2]);
    fx_status parsed = fx_kernel_parse(ctx, text, &k);
    free(text);
    if (parsed != FX_OK) return fail(ctx, argv[2]);
    fx_filter_options o;
    fx_filter_options_init(&o);
    if (argc > 8)
        for (int s = 0; s < FX_STRATEGY_COUNT; s++)
            if (!strcmp(argv[8], fx_filter_strategy_name(s))) o.strategy = s;
    fx_image_desc d = {w, h, ch, FX_U8};
    fx_filter_plan *p;
    if (fx_filter_plan_create(ctx, k, &o, &d, &p) != FX_OK) return fail(ctx, "plan");
    fx_image src, dst;
    fx_image_alloc(ctx, &src, w, h, ch, FX_U8);
    fx_image_alloc(ctx, &dst, w, h, ch, FX_U8);
    fill(&src, 1);
    double *ms = calloc((size_t)repeat, sizeof *ms), *cpu = calloc((size_t)repeat, sizeof *cpu);
    fx_filter_run(p, &src, &dst, NULL); /* warm-up: first touch of every page */
    for (int r = 0; r < repeat; r++) {
        uint64_t t0 = fx_time_ns();
        double c0 = cpu_ms();
        if (fx_filter_run(p, &src, &dst, NULL) != FX_OK) return fail(ctx, "run");
        ms[r] = fx_elapsed_ms(t0, fx_time_ns());
        cpu[r] = cpu_ms() - c0;
    }
    double med = bench_median(ms, repeat); /* sorts: ms[0] is the fastest */
    double cpu_med = bench_median(cpu, repeat);
    printf("RESULT compute_ms %.3f\nRESULT compute_min_ms %.3f\nRESULT cpu_ms %.3f\n"
           "RESULT strategy %s\n",
           med, ms[0], cpu_med,
           fx_filter_strategy_name(fx_filter_plan_strategy(p)));
    free(ms);
    free(cpu);
    fx_image_free(&src);
    fx_image_free(&dst);
    fx_filter_plan_free(p);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
    return 0;
}

/* COUNT images of SIDE x SIDE RGB with KERNEL (gaussian:5): one plan for all, then a plan
 * each (fx_filter, which also allocates each output). */
static int reuse(int argc, char **argv)
{
    int count = argc > 2 ? atoi(argv[2]) : 1000, side = argc > 3 ? atoi(argv[3]) : 256;
    const char *text = argc > 4 ? argv[4] : "gaussian:5";
    fx_context *ctx = context(argc > 5 ? atoi(argv[5]) : 0, FX_DEVICE_CPU);
    fx_kernel *k;
    if (fx_kernel_parse(ctx, text, &k) != FX_OK) return fail(ctx, "kernel");
    fx_image src, dst;
    fx_image_alloc(ctx, &src, side, side, 3, FX_U8);
    fx_image_alloc(ctx, &dst, side, side, 3, FX_U8);
    fill(&src, 2);
    fx_image_desc d = {side, side, 3, FX_U8};
    fx_filter_plan *p;
    uint64_t t0 = fx_time_ns();
    if (fx_filter_plan_create(ctx, k, NULL, &d, &p) != FX_OK) return fail(ctx, "plan");
    for (int i = 0; i < count; i++)
        fx_filter_run(p, &src, &dst, NULL);
    fx_filter_plan_free(p);
    double reused = fx_elapsed_ms(t0, fx_time_ns());
    t0 = fx_time_ns();
    for (int i = 0; i < count; i++) {
        fx_image out;
        if (fx_filter(ctx, k, NULL, &src, &out) != FX_OK) return fail(ctx, "fx_filter");
        fx_image_free(&out);
    }
    double each = fx_elapsed_ms(t0, fx_time_ns());
    printf("RESULT kernel %s\nRESULT reuse_ms %.1f\nRESULT plan_each_ms %.1f\n"
           "RESULT reuse_speedup %.2f\n",
           text, reused, each, each / reused);
    fx_image_free(&src);
    fx_image_free(&dst);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "compute")) return compute(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "reuse")) return reuse(argc, argv);
    fprintf(stderr,
            "usage: filter_bench compute KERNEL W H C [REPEAT [THREADS [STRATEGY [DEVICE]]]] | "
            "reuse [COUNT [SIDE [KERNEL [THREADS]]]]\n");
    return 2;
}
