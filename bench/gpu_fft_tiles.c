/* The GPU fft strategy's time by tile sides, to fit and check the tile cost model
 * (gpu_fft_geometry.c, docs/BENCHMARKS.md): for each kernel size, every nice number of
 * tile rows and every power-of-two tile width (the widths the model takes) from the
 * kernel's side up to FXI_GPU_FFT_MAX_SIDE, forced through fxi_gpu_fft_force_sides,
 * timed on a random non-separable float kernel over a device-resident image (the
 * library's compute_ms, median of RUNS after one warm-up run; one tile shape, no strips);
 * then the plan the model makes (its main tiles, and its strips' own where it takes
 * them: gpu_fft_geometry.h), timed the same way.
 *
 *   gpu_fft_tiles [--all-widths] [WIDTH HEIGHT CHANNELS [K ...]]
 *                                          (default 10000 6000 3, K 15 31 61 121)
 *
 * --all-widths times every nice width, not only the powers of two (the model takes the
 * others only when no power of two fits the memory budget).
 *
 * One line a tile: "tile K ROWS COLS tiles=T points=P ms=MS ns_per_kpoint=X", and
 * "model K ROWS COLS ... ms=MS best=ROWSxCOLS best_ms=MS [right_strip=RxC]
 * [bottom_strip=RxC]" a kernel (best: the fastest forced tile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_context.h"
#include "bench_median.h"
#include "bench_random_kernel.h"
#include "filter/fft_sides.h"
#include "filter/gpu_fft_geometry.h"
#include "fxkit/fxkit.h"

enum { RUNS = 5 };
/* Tiles whose halo wastes more than this share of their points are not timed: they lose
 * to a larger tile by more than the model could err. */
#define MAX_HALO_SHARE 0.65

/* Median compute_ms of RUNS runs of kernel k on din (after a warm-up run), or -1. */
static double time_plan(fx_context *ctx, const fx_kernel *k, const fx_image *din, fx_image *dout)
{
    const fx_image_desc d = fx_image_desc_of(din);
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_FFT;
    fx_filter_plan *p = NULL;
    if (fx_filter_plan_create(ctx, k, &o, &d, &p) || fx_filter_run(p, din, dout, NULL)) {
        fprintf(stderr, "gpu_fft_tiles: %s\n", fx_context_error(ctx));
        fx_filter_plan_free(p);
        return -1;
    }
    double ms[RUNS];
    for (int r = 0; r < RUNS; r++) {
        fx_timings t = {0};
        if (fx_filter_run(p, din, dout, &t)) {
            fx_filter_plan_free(p);
            return -1;
        }
        ms[r] = t.compute_ms;
    }
    fx_filter_plan_free(p);
    return bench_median(ms, RUNS);
}

static void report(const char *what, int k, int rows, int cols, int64_t width, int64_t height,
                   int planes, double ms)
{
    fxi_gpu_fft_geometry g = {0};
    g.out_rows = rows - k + 1;
    g.out_cols = cols - k + 1;
    const int64_t tiles = fxi_gpu_fft_tiles_x(&g, width) * fxi_gpu_fft_tiles_y(&g, height);
    const double points = (double)tiles * rows * cols * planes;
    printf("%s %d %d %d tiles=%lld points=%.0f ms=%.3f ns_per_kpoint=%.3f", what, k, rows, cols,
           (long long)tiles, points, ms, ms * 1e9 / points);
}

int main(int argc, char **argv)
{
    const bool all_widths = argc > 1 && !strcmp(argv[1], "--all-widths");
    if (all_widths) {
        argv++;
        argc--;
    }
    const int64_t w = argc > 3 ? atoll(argv[1]) : 10000, h = argc > 3 ? atoll(argv[2]) : 6000;
    const int channels = argc > 3 ? atoi(argv[3]) : 3;
    int ks[16] = {15, 31, 61, 121}, nk = 4;
    if (argc > 4) {
        nk = 0;
        for (int i = 4; i < argc && nk < 16; i++)
            ks[nk++] = atoi(argv[i]);
    }
    fx_context *ctx = bench_context(FX_DEVICE_GPU);
    if (!ctx) {
        fprintf(stderr, "gpu_fft_tiles: no GPU context\n");
        return 1;
    }
    fx_image host, din, dout;
    if (fx_image_alloc(ctx, &host, w, h, channels, FX_U8) ||
        fx_image_alloc_device(ctx, &din, w, h, channels, FX_U8) ||
        fx_image_alloc_device(ctx, &dout, w, h, channels, FX_U8)) {
        fprintf(stderr, "gpu_fft_tiles: images: %s\n", fx_context_error(ctx));
        return 1;
    }
    uint64_t seed = 1;
    for (int64_t y = 0; y < h; y++) {
        uint8_t *r = fx_image_row(&host, y);
        for (int64_t x = 0; x < w * channels; x++)
            r[x] = (uint8_t)(bench_next_random(&seed) >> 40);
    }
    if (fx_image_upload(ctx, &host, &din)) return 1;
    printf("gpu_fft_tiles: %lldx%lld, %d channels, compute_ms medians of %d\n", (long long)w,
           (long long)h, channels, RUNS);
    for (int i = 0; i < nk; i++) {
        const int k = ks[i];
        char *text = bench_random_kernel(k);
        fx_kernel *kernel = NULL;
        if (fx_kernel_parse(ctx, text, &kernel)) return 1;
        free(text);
        double best = -1;
        int best_r = 0, best_c = 0;
        const int max_side =
            fxi_fft_next_nice_side(2 * k > FXI_GPU_FFT_MAX_SIDE ? 2 * k : FXI_GPU_FFT_MAX_SIDE);
        for (int r = fxi_fft_next_nice_side(k); r <= max_side;
             r = fxi_fft_next_nice_side((int64_t)r + 1)) {
            if ((double)(k - 1) / r > MAX_HALO_SHARE) continue;
            for (int c = FXI_GPU_FFT_MIN_SIDE; c <= max_side;
                 c = all_widths ? fxi_fft_next_nice_side((int64_t)c + 1) : 2 * c) {
                if (c < k || (double)(k - 1) / c > MAX_HALO_SHARE) continue;
                fxi_gpu_fft_force_sides(r, c);
                const double ms = time_plan(ctx, kernel, &din, &dout);
                if (ms < 0) continue;
                report("tile", k, r, c, w, h, channels, ms);
                printf("\n");
                fflush(stdout);
                if (best < 0 || ms < best) {
                    best = ms;
                    best_r = r;
                    best_c = c;
                }
            }
        }
        fxi_gpu_fft_force_sides(0, 0);
        fxi_gpu_fft_shapes shapes;
        const char *why;
        if (!fxi_gpu_fft_plan_shapes(w, h, k, k, channels, (size_t)8 << 30, &shapes, &why))
            return 1;
        const fxi_gpu_fft_geometry *g = &shapes.geom[FXI_FFT_MAIN];
        /* tiles= and points= count the main tiles over the whole image; ms= is the plan's,
         * strips included */
        report("model", k, g->n_rows, g->n_cols, w, h, channels,
               time_plan(ctx, kernel, &din, &dout));
        printf(" best=%dx%d best_ms=%.3f", best_r, best_c, best);
        if (shapes.used[FXI_FFT_RIGHT])
            printf(" right_strip=%dx%d", shapes.geom[FXI_FFT_RIGHT].n_rows,
                   shapes.geom[FXI_FFT_RIGHT].n_cols);
        if (shapes.used[FXI_FFT_BOTTOM])
            printf(" bottom_strip=%dx%d", shapes.geom[FXI_FFT_BOTTOM].n_rows,
                   shapes.geom[FXI_FFT_BOTTOM].n_cols);
        printf("\n");
        fflush(stdout);
        fx_kernel_free(kernel);
    }
    fx_image_free(&host);
    fx_image_free(&din);
    fx_image_free(&dout);
    fx_context_destroy(ctx);
    return 0;
}
