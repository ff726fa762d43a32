/* GPU benchmark: pinned host<->device bandwidth, and fx_image_convert u8 -> f32
 * on the GPU against the CPU on the same image in the same run.
 *
 * Without arguments (as a ctest test) it runs a small smoke version that only
 * checks the numbers are sane and the outputs identical, so CI stays fast.
 * `test_gpu_bench --bench` (tests/gpu/check.sh) runs the full sizes and prints
 * "RESULT key value" lines for the summary table. Times are medians.
 */
#include <stdlib.h>

#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA
#include "gpu/gpu_internal.h"

#define MIB ((size_t)1 << 20)

typedef struct bench_config {
    size_t transfer_bytes;
    int width, height, channels;
    int runs; /* timed runs per measurement, after one warm-up */
} bench_config;

static const bench_config smoke_config = {8 * MIB, 320, 200, 3, 3};
static const bench_config full_config = {256 * MIB, 10000, 6000, 3, 10};

typedef struct bench_result {
    char gpu_name[256];
    double h2d_gbps, d2h_gbps;
    double gpu_ms, upload_ms, compute_ms, download_ms; /* medians of the GPU convert */
    double cpu_ms;                                     /* median of the CPU convert */
    int identical;
} bench_result;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median GB/s of `runs` copies of `bytes` (1 GB = 1e9 bytes). */
static fx_status measure_copy(fx_context *ctx, int to_device, void *host, void *dev, size_t bytes,
                              int runs, double *gbps)
{
    double ms[64];
    for (int i = -1; i < runs; i++) { /* run -1 warms up */
        uint64_t t0 = fx_time_ns();
        FXI_TRY(to_device ? fxi_copy_h2d(ctx, dev, host, bytes)
                         : fxi_copy_d2h(ctx, host, dev, bytes));
        FXI_TRY(fxi_stream_sync(ctx));
        if (i >= 0) ms[i] = fx_elapsed_ms(t0, fx_time_ns());
    }
    *gbps = (double)bytes / 1e9 / (median(ms, runs) / 1e3);
    return FX_OK;
}

static fx_status bench_transfers(fx_context *ctx, const bench_config *cfg, bench_result *r)
{
    void *host, *dev;
    FXI_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, cfg->transfer_bytes, &host));
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, cfg->transfer_bytes, &dev));
    memset(host, 0x3C, cfg->transfer_bytes); /* touch every page */
    FXI_TRY(measure_copy(ctx, 1, host, dev, cfg->transfer_bytes, cfg->runs, &r->h2d_gbps));
    FXI_TRY(measure_copy(ctx, 0, host, dev, cfg->transfer_bytes, cfg->runs, &r->d2h_gbps));
    return FX_OK;
}

static fx_status bench_convert(fx_context *gpu, fx_context *cpu, const bench_config *cfg,
                               bench_result *r)
{
    fx_gen_image_params p;
    fx_gen_image_params_init(&p);
    p.kind = FX_GEN_PHOTO;
    p.width = cfg->width;
    p.height = cfg->height;
    p.channels = cfg->channels;
    p.type = FX_U8;
    fx_image src, on_gpu, on_cpu;
    FXI_TRY(fx_gen_image(cpu, &p, &src));
    fx_status st = fx_image_alloc(cpu, &on_gpu, p.width, p.height, p.channels, FX_F32);
    if (st == FX_OK) st = fx_image_alloc(cpu, &on_cpu, p.width, p.height, p.channels, FX_F32);
    double total[64], up[64], comp[64], down[64], host[64];
    for (int i = -1; i < cfg->runs && st == FX_OK; i++) { /* run -1 warms up (allocations) */
        fx_timings t;
        memset(&t, 0, sizeof t);
        uint64_t t0 = fx_time_ns();
        st = fxi_gpu_image_convert(gpu, &src, &on_gpu, &t);
        uint64_t t1 = fx_time_ns();
        if (st == FX_OK) st = fx_image_convert(cpu, &src, &on_cpu, NULL);
        uint64_t t2 = fx_time_ns();
        if (i < 0) continue;
        total[i] = fx_elapsed_ms(t0, t1);
        up[i] = t.upload_ms;
        comp[i] = t.compute_ms;
        down[i] = t.download_ms;
        host[i] = fx_elapsed_ms(t1, t2);
    }
    if (st == FX_OK) {
        r->gpu_ms = median(total, cfg->runs);
        r->upload_ms = median(up, cfg->runs);
        r->compute_ms = median(comp, cfg->runs);
        r->download_ms = median(down, cfg->runs);
        r->cpu_ms = median(host, cfg->runs);
        r->identical = fxt_images_equal(&on_gpu, &on_cpu);
    }
    fx_image_free(&src);
    fx_image_free(&on_gpu);
    fx_image_free(&on_cpu);
    return st;
}

static int run_bench(const bench_config *cfg, bench_result *r)
{
    memset(r, 0, sizeof *r);
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 0), *cpu = fxt_context(FX_DEVICE_CPU, 0);
    fx_gpu_info info;
    fx_status st = fx_gpu_info_get(gpu, 0, &info);
    if (st == FX_OK) snprintf(r->gpu_name, sizeof r->gpu_name, "%s", info.name);
    if (st == FX_OK) st = bench_transfers(gpu, cfg, r);
    fx_context *failed = gpu;
    if (st == FX_OK) {
        st = bench_convert(gpu, cpu, cfg, r);
        if (st != FX_OK && fx_context_error(cpu)[0]) failed = cpu;
    }
    if (st != FX_OK)
        fprintf(stderr, "bench failed: %s: %s\n", fx_strerror(st), fx_context_error(failed));
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
    return st == FX_OK;
}

FXT_TEST(bench_smoke)
{
    bench_result r;
    if (!FXT_CHECK(run_bench(&smoke_config, &r))) return;
    FXT_CHECK(r.gpu_name[0] != '\0');
    FXT_CHECK(r.h2d_gbps > 0.1 && r.d2h_gbps > 0.1);
    FXT_CHECK(r.gpu_ms > 0 && r.cpu_ms > 0 && r.compute_ms > 0);
    FXT_CHECK(r.identical);
}

static int bench_main(void)
{
    const bench_config *cfg = &full_config;
    bench_result r;
    printf("benchmark: pinned transfers of %zu MiB; convert u8 -> f32 of a %dx%dx%d photo; medians "
           "of %d runs\n",
           cfg->transfer_bytes / MIB, cfg->width, cfg->height, cfg->channels, cfg->runs);
    fflush(stdout);
    if (!run_bench(cfg, &r)) return 1;
    printf("RESULT gpu_name %s\n", r.gpu_name);
    printf("RESULT h2d_gbps %.1f\n", r.h2d_gbps);
    printf("RESULT d2h_gbps %.1f\n", r.d2h_gbps);
    printf("RESULT convert_gpu_ms %.2f\n", r.gpu_ms);
    printf("RESULT convert_gpu_stages_ms upload %.2f compute %.3f download %.2f\n", r.upload_ms,
           r.compute_ms, r.download_ms);
    printf("RESULT convert_cpu_ms %.2f\n", r.cpu_ms);
    printf("RESULT convert_identical %s\n", r.identical ? "yes" : "NO");
    return r.identical ? 0 : 1;
}

int main(int argc, char **argv)
{
    gpu_require();
    if (argc > 1 && !strcmp(argv[1], "--bench")) return bench_main();
    static const fxt_case cases[] = {FXT_CASE(bench_smoke)};
    return fxt_run(argc, argv, cases, sizeof cases / sizeof *cases);
}
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
