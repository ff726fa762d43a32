/* One row of issue 26's table of GPU workloads, for Nsight Compute: a 10000x6000 image
 * resident on the device, the plan made and run once to warm up, then run once more
 * between cudaProfilerStart and cudaProfilerStop, so that
 *
 *   ncu --profile-from-start off --metrics ... build/bench/gpu_rows ROW
 *
 * profiles exactly that row's kernels (bench/ncu_rows.sh runs every row and tabulates).
 * Without ncu it prints the row's compute_ms (the library's device time) as a check.
 *
 *   gpu_rows ROW [WIDTH HEIGHT]
 *   ROW: box3 gauss3 box31 box121 gauss121 float31 float121 (filter, RGB u8; float31/121 are
 *        random non-separable float kernels, run by fft), eq-gray (1 channel u8),
 *        eq-hsv (RGB u8), clahe (8x8 tiles, 1 channel u8)
 */
#include <cuda_profiler_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_context.h"
#include "bench_random_kernel.h"
#include "fxkit/fxkit.h"

typedef struct row_spec {
    const char *name;
    const char *kernel; /* filter rows: the kernel text; NULL: a random float k x k */
    int float_k;
    int channels;
    int equalize;       /* 0 filter, 1 global equalize, 2 CLAHE */
    fx_equalize_space space;
} row_spec;

static const row_spec rows[] = {
    {"box3", "box:3", 0, 3, 0, 0},
    {"gauss3", "gaussian:3", 0, 3, 0, 0},
    {"box31", "box:31", 0, 3, 0, 0},
    {"box121", "box:121", 0, 3, 0, 0},
    {"gauss121", "gaussian:121", 0, 3, 0, 0},
    {"float31", NULL, 31, 3, 0, 0},
    {"float121", NULL, 121, 3, 0, 0},
    {"eq-gray", NULL, 0, 1, 1, FX_EQ_SPACE_GRAY},
    {"eq-hsv", NULL, 0, 3, 1, FX_EQ_SPACE_HSV},
    {"clahe", NULL, 0, 1, 2, FX_EQ_SPACE_GRAY},
};

/* A smooth gradient with texture (histograms not trivial), as the equalize bench's. */
static void fill(fx_image *img)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *r = fx_image_row(img, y);
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++)
                r[(size_t)x * img->channels + c] =
                    (uint8_t)((x * 7 + y * 3 + c * 50 + ((x * y) >> 9)) % 181 + 30);
    }
}

static int fail(fx_context *ctx, const char *what)
{
    fprintf(stderr, "gpu_rows: %s: %s\n", what, fx_context_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    const row_spec *row = NULL;
    for (size_t i = 0; argc > 1 && i < sizeof rows / sizeof *rows; i++)
        if (!strcmp(argv[1], rows[i].name)) row = &rows[i];
    if (!row) {
        fprintf(stderr, "usage: gpu_rows ROW [WIDTH HEIGHT]; ROW:");
        for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
            fprintf(stderr, " %s", rows[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    const int w = argc > 3 ? atoi(argv[2]) : 10000, h = argc > 3 ? atoi(argv[3]) : 6000;
    fx_context *ctx = bench_context(FX_DEVICE_GPU);
    if (!ctx) {
        fprintf(stderr, "gpu_rows: no GPU context\n");
        return 1;
    }
    fx_image host, din, dout;
    if (fx_image_alloc(ctx, &host, w, h, row->channels, FX_U8) ||
        fx_image_alloc_device(ctx, &din, w, h, row->channels, FX_U8) ||
        fx_image_alloc_device(ctx, &dout, w, h, row->channels, FX_U8))
        return fail(ctx, "images");
    fill(&host);
    if (fx_image_upload(ctx, &host, &din)) return fail(ctx, "upload");
    const fx_image_desc d = fx_image_desc_of(&din);
    fx_timings t = {0};
    fx_status st;
    if (!row->equalize) {
        char *text = row->kernel ? NULL : bench_random_kernel(row->float_k);
        fx_kernel *k = NULL;
        fx_filter_plan *p = NULL;
        if (fx_kernel_parse(ctx, row->kernel ? row->kernel : text, &k) ||
            fx_filter_plan_create(ctx, k, NULL, &d, &p) || fx_filter_run(p, &din, &dout, NULL))
            return fail(ctx, "filter");
        printf("%s: %s\n", row->name, fx_filter_plan_explain(p));
        cudaProfilerStart();
        st = fx_filter_run(p, &din, &dout, &t);
        cudaProfilerStop();
        fx_filter_plan_free(p);
        fx_kernel_free(k);
        free(text);
    } else {
        fx_equalize_options o;
        fx_equalize_options_init(&o);
        o.space = row->space;
        o.adaptive = row->equalize == 2;
        fx_equalize_plan *p = NULL;
        if (fx_equalize_plan_create(ctx, &o, &d, &p) || fx_equalize_run(p, &din, &dout, NULL))
            return fail(ctx, "equalize");
        printf("%s: equalize %s%s\n", row->name, row->space == FX_EQ_SPACE_HSV ? "hsv" : "gray",
               o.adaptive ? " CLAHE (8x8 tiles)" : "");
        cudaProfilerStart();
        st = fx_equalize_run(p, &din, &dout, &t);
        cudaProfilerStop();
        fx_equalize_plan_free(p);
    }
    if (st != FX_OK) return fail(ctx, "run");
    printf("%s: compute_ms %.3f\n", row->name, t.compute_ms);
    fx_image_free(&host);
    fx_image_free(&din);
    fx_image_free(&dout);
    fx_context_destroy(ctx);
    return 0;
}
