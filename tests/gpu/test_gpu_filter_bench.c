/* GPU filter benchmark (issue 11's workloads). As a test it runs every workload on
 * small images (a smoke test); `test_gpu_filter_bench --bench` (tests/gpu/check.sh)
 * runs the full sizes and prints "RESULT key value" lines (`--bench dev`: workload 1's
 * four named kernels only; `--bench fft`: the fft rows only, workload 1's two and
 * workload 2's). Times are wall-clock
 * medians with the stream synchronised (fx_filter_run on device images returns once
 * queued; the compute time is measured through fx_timings, which synchronises).
 *
 *   1. 10000x6000 RGB u8 on the device: box and gaussian k=3 and 121 (auto: box and
 *      separable), arbitrary float 31x31 and 121x121 with the fft strategy (cuFFT), and
 *      for comparison direct (31x31 on the image, 121x121 on a 2000x1200 crop: direct is
 *      FP32-bound, see docs/ALGORITHMS.md);
 *   2. the same image from host memory to host memory (banded, overlapped), also the
 *      121x121 float kernel through fft;
 *   3. the published sweep: 1000x1000 RGB u8 box k=3…121 through every gpu-* variant and
 *      block size, on the device;
 *   4. 10000x100000 RGB u8 box 11x11 from host memory to host memory.
 */
#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA

typedef struct scale {
    int big_w, big_h;   /* workloads 1 and 2 */
    int crop_w, crop_h; /* 121x121 float */
    int sweep_side;     /* workload 3 */
    int huge_w, huge_h; /* workload 4 */
    int reps;
} scale;

static const scale smoke = {400, 300, 200, 120, 100, 500, 2000, 2};
static const scale full = {10000, 6000, 2000, 1200, 1000, 10000, 100000, 5};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void fill(fx_image *img)
{
    uint64_t seed = 42;
    size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (size_t i = 0; i < n; i += 8) {
            uint64_t r = fxt_rand(&seed);
            memcpy(row + i, &r, n - i < 8 ? n - i : 8);
        }
    }
}

/* A random float kernel, not separable, as inline text. */
static char *random_kernel(int k)
{
    size_t size = (size_t)k * (size_t)k * 12 + 16;
    char *text = malloc(size), *p = text;
    uint64_t seed = (uint64_t)k;
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++)
            p += sprintf(p, "%s%.4f", j ? " " : "",
                         (double)(fxt_rand(&seed) >> 44) / 1048576.0 / (double)k - 0.3 / k);
        p += sprintf(p, "%s", i + 1 < k ? ";" : "");
    }
    return text;
}

/* Median ms of `reps` runs of one plan (compute_ms on device images, wall otherwise),
 * or -1 on failure (printed). */
static double time_plan(fx_context *ctx, const char *kernel_text, fx_filter_strategy strategy,
                        int block, const fx_image *in, fx_image *out, int reps, fx_timings *last,
                        char *explain, size_t explain_size)
{
    fx_kernel *k = NULL;
    fx_filter_plan *p = NULL;
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = strategy;
    o.gpu_block = block;
    fx_image_desc d = fx_image_desc_of(in);
    double times[16], result = -1;
    fx_status st = fx_kernel_parse(ctx, kernel_text, &k);
    if (st == FX_OK) st = fx_filter_plan_create(ctx, k, &o, &d, &p);
    if (st == FX_OK && explain) snprintf(explain, explain_size, "%s", fx_filter_plan_explain(p));
    if (st == FX_OK) st = fx_filter_run(p, in, out, NULL); /* warm-up */
    for (int r = 0; r < reps && st == FX_OK; r++) {
        fx_timings t = {0};
        uint64_t t0 = fx_time_ns();
        st = fx_filter_run(p, in, out, &t);
        double wall = fx_elapsed_ms(t0, fx_time_ns());
        times[r] = in->memory == FX_MEMORY_DEVICE ? t.compute_ms : wall;
        if (last) *last = t;
    }
    if (st == FX_OK) {
        qsort(times, (size_t)reps, sizeof *times, cmp_double);
        result = times[reps / 2];
    } else {
        fprintf(stderr, "  %s %s: %s: %s\n", kernel_text[0] == '0' ? "float kernel" : kernel_text,
                fx_filter_strategy_name(strategy), fx_strerror(st), fx_context_error(ctx));
    }
    fx_filter_plan_free(p);
    fx_kernel_free(k);
    return result;
}

/* What --bench runs: everything, workload 1's four named kernels (`dev`), the fft rows
 * (`fft`), or boxes of every size on the same image, device-resident and host to host
 * (`box`). */
typedef enum bench_mode { BENCH_ALL, BENCH_DEV, BENCH_FFT, BENCH_BOX } bench_mode;

/* BENCH_BOX: the box sizes timed (the walk takes 3 and 5; the rest slide). */
static const int box_sizes[] = {5, 7, 9, 15, 31, 61, 121, 255};

static int run_box_bench(fx_context *gpu, const scale *s, fx_image *host, fx_image *host_out,
                         fx_image *din, fx_image *dout)
{
    int ok = 1;
    char explain[512], text[32];
    for (size_t i = 0; i < sizeof box_sizes / sizeof *box_sizes && ok; i++) {
        snprintf(text, sizeof text, "box:%d", box_sizes[i]);
        const double dev = time_plan(gpu, text, FX_STRATEGY_AUTO, 0, din, dout, s->reps, NULL,
                                     explain, sizeof explain);
        const double h2h = time_plan(gpu, text, FX_STRATEGY_AUTO, 0, host, host_out, s->reps,
                                     NULL, NULL, 0);
        ok = FXT_CHECK(dev >= 0 && h2h >= 0);
        printf("RESULT filter_dev_box%d_ms %.3f\n  (%s)\n", box_sizes[i], dev, explain);
        printf("RESULT filter_h2h_box%d_ms %.3f\n", box_sizes[i], h2h);
    }
    return ok;
}

static int run_bench(const scale *s, int print, bench_mode mode)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 0);
    int ok = 1;
    char explain[512];
    /* 1. device-resident */
    fx_image host = gpu_padded_image(s->big_w, s->big_h, 3, FX_U8, 0);
    fx_image host_out = gpu_padded_image(s->big_w, s->big_h, 3, FX_U8, 0);
    fill(&host);
    fx_image din = {0}, dout = {0};
    ok = FXT_CHECK_OK(fx_image_alloc_device(gpu, &din, s->big_w, s->big_h, 3, FX_U8), gpu) &&
         FXT_CHECK_OK(fx_image_alloc_device(gpu, &dout, s->big_w, s->big_h, 3, FX_U8), gpu) &&
         FXT_CHECK_OK(fx_image_upload(gpu, &host, &din), gpu);
    static const char *const named[] = {"box:3", "gaussian:3", "box:121", "gaussian:121"};
    static const char *const keys[] = {"box3", "gauss3", "box121", "gauss121"};
    if (mode == BENCH_BOX && ok) ok = run_box_bench(gpu, s, &host, &host_out, &din, &dout);
    for (int i = 0; i < 4 && ok && mode != BENCH_FFT && mode != BENCH_BOX; i++) {
        double ms = time_plan(gpu, named[i], FX_STRATEGY_AUTO, 0, &din, &dout, s->reps, NULL,
                              explain, sizeof explain);
        ok = FXT_CHECK(ms >= 0);
        if (print) {
            printf("RESULT filter_dev_%s_ms %.3f\n", keys[i], ms);
            printf("  (%s)\n", explain);
        }
    }
    if (mode == BENCH_DEV || mode == BENCH_BOX) {
        fx_image_free(&din);
        fx_image_free(&dout);
        free(host.data);
        free(host_out.data);
        fx_context_destroy(gpu);
        return ok;
    }
    char *k31 = random_kernel(31), *k121 = random_kernel(121);
    if (ok && mode == BENCH_ALL) {
        double ms = time_plan(gpu, k31, FX_STRATEGY_DIRECT, 0, &din, &dout, 1, NULL, explain,
                              sizeof explain);
        ok = FXT_CHECK(ms >= 0);
        if (print) printf("RESULT filter_dev_float31_direct_ms %.2f\n  (%s)\n", ms, explain);
    }
    /* fft (cuFFT): 31x31 and 121x121 on the whole image */
    for (int i = 0; i < 2 && ok; i++) {
        double ms = time_plan(gpu, i ? k121 : k31, FX_STRATEGY_FFT, 0, &din, &dout, s->reps, NULL,
                              explain, sizeof explain);
        ok = FXT_CHECK(ms >= 0);
        if (print)
            printf("RESULT filter_dev_float%s_ms %.2f\n  (%s)\n", i ? "121" : "31", ms, explain);
    }
    fx_image_free(&din);
    fx_image_free(&dout);
    if (ok && mode == BENCH_ALL) { /* 121x121 float on a crop */
        fx_image cin = {0}, cout = {0};
        fx_image crop = host;
        crop.width = s->crop_w;
        crop.height = s->crop_h;
        ok = FXT_CHECK_OK(fx_image_alloc_device(gpu, &cin, s->crop_w, s->crop_h, 3, FX_U8), gpu) &&
             FXT_CHECK_OK(fx_image_alloc_device(gpu, &cout, s->crop_w, s->crop_h, 3, FX_U8), gpu) &&
             FXT_CHECK_OK(fx_image_upload(gpu, &crop, &cin), gpu);
        double ms = ok ? time_plan(gpu, k121, FX_STRATEGY_DIRECT, 0, &cin, &cout, 1, NULL, explain,
                                   sizeof explain)
                       : -1;
        ok = ok && FXT_CHECK(ms >= 0);
        if (print)
            printf("RESULT filter_dev_float121_direct_%dx%d_ms %.2f\n  (%s)\n", s->crop_w,
                   s->crop_h, ms, explain);
        fx_image_free(&cin);
        fx_image_free(&cout);
    }
    free(k31);
    /* 2. host to host */
    if (ok) {
        fx_timings t = {0};
        double ms =
            time_plan(gpu, k121, FX_STRATEGY_FFT, 0, &host, &host_out, s->reps, &t, NULL, 0);
        ok = FXT_CHECK(ms >= 0);
        if (print)
            printf("RESULT filter_host_float121_ms %.2f (stage sums: upload %.2f compute %.2f "
                   "download %.2f)\n",
                   ms, t.upload_ms, t.compute_ms, t.download_ms);
    }
    free(k121);
    if (mode == BENCH_FFT) {
        free(host.data);
        free(host_out.data);
        fx_context_destroy(gpu);
        return ok;
    }
    for (int i = 0; i < 2 && ok; i++) {
        fx_timings t = {0};
        double ms = time_plan(gpu, i ? "gaussian:3" : "box:3", FX_STRATEGY_AUTO, 0, &host,
                              &host_out, s->reps, &t, NULL, 0);
        ok = FXT_CHECK(ms >= 0);
        if (print)
            printf("RESULT filter_host_%s_ms %.2f (stage sums: upload %.2f compute %.2f download "
                   "%.2f)\n",
                   i ? "gauss3" : "box3", ms, t.upload_ms, t.compute_ms, t.download_ms);
    }
    free(host.data);
    free(host_out.data);
    /* 3. the published sweep */
    fx_image sweep = gpu_padded_image(s->sweep_side, s->sweep_side, 3, FX_U8, 0);
    fill(&sweep);
    fx_image sin = {0}, sout = {0};
    ok = ok &&
         FXT_CHECK_OK(fx_image_alloc_device(gpu, &sin, s->sweep_side, s->sweep_side, 3, FX_U8),
                      gpu) &&
         FXT_CHECK_OK(fx_image_alloc_device(gpu, &sout, s->sweep_side, s->sweep_side, 3, FX_U8),
                      gpu) &&
         FXT_CHECK_OK(fx_image_upload(gpu, &sweep, &sin), gpu);
    static const int ks[] = {3, 5, 11, 31, 63, 121};
    static const fx_filter_strategy vs[] = {FX_STRATEGY_GPU_GLOBAL, FX_STRATEGY_GPU_CONSTANT,
                                            FX_STRATEGY_GPU_SHARED, FX_STRATEGY_GPU_TEXTURE,
                                            FX_STRATEGY_DIRECT,     FX_STRATEGY_AUTO};
    for (int v = 0; v < 6 && ok; v++)
        for (int b = 0; b < 3; b++) {
            if (v >= 4 && b) continue; /* direct and auto take no block size */
            int block = 8 << b;
            if (print)
                printf("RESULT filter_sweep_%s%s%s", fx_filter_strategy_name(vs[v]),
                       v < 4 ? (block == 8    ? "_b8"
                                : block == 16 ? "_b16"
                                              : "_b32")
                             : "",
                       "_ms");
            for (int k = 0; k < 6; k++) {
                char text[32];
                snprintf(text, sizeof text, "box:%d", ks[k]);
                double ms = time_plan(gpu, text, vs[v], v < 4 ? block : 0, &sin, &sout,
                                      ks[k] > 31 && v < 5 ? 1 : s->reps, NULL, NULL, 0);
                if (print) printf(" k%d=%.3f", ks[k], ms);
            }
            if (print) printf("\n");
        }
    fx_image_free(&sin);
    fx_image_free(&sout);
    free(sweep.data);
    /* 4. a gigapixel from host memory */
    if (ok) {
        fx_image hin = gpu_padded_image(s->huge_w, s->huge_h, 3, FX_U8, 0);
        fx_image hout = gpu_padded_image(s->huge_w, s->huge_h, 3, FX_U8, 0);
        if (!hin.data || !hout.data) {
            fprintf(stderr, "  no host memory for %dx%d\n", s->huge_w, s->huge_h);
            ok = 0;
        } else {
            fill(&hin);
            fx_timings t = {0};
            double ms = time_plan(gpu, "box:11", FX_STRATEGY_AUTO, 0, &hin, &hout, 1, &t, NULL, 0);
            ok = FXT_CHECK(ms >= 0);
            if (print)
                printf("RESULT filter_host_%dx%d_box11_ms %.1f (stage sums: upload %.1f compute "
                       "%.1f download %.1f)\n",
                       s->huge_w, s->huge_h, ms, t.upload_ms, t.compute_ms, t.download_ms);
        }
        free(hin.data);
        free(hout.data);
    }
    fx_context_destroy(gpu);
    return ok;
}

FXT_TEST(filter_bench_smoke)
{
    FXT_CHECK(run_bench(&smoke, 0, BENCH_ALL));
}

int main(int argc, char **argv)
{
    gpu_require();
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        printf("benchmark: fxkit filter on the GPU (issue 11 workloads); medians, ms\n");
        const bench_mode mode = argc < 3                  ? BENCH_ALL
                                : !strcmp(argv[2], "dev") ? BENCH_DEV
                                : !strcmp(argv[2], "fft") ? BENCH_FFT
                                : !strcmp(argv[2], "box") ? BENCH_BOX
                                                          : BENCH_ALL;
        return run_bench(&full, 1, mode) ? 0 : 1;
    }
    static const fxt_case cases[] = {FXT_CASE(filter_bench_smoke)};
    return fxt_run(argc, argv, cases, sizeof cases / sizeof *cases);
}
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
