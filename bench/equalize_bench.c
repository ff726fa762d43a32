/* In-process timing of fxkit equalize's compute, warm buffers, as OpenCV's Python
 * calls are timed: one plan, the output allocated and touched once, then REPEAT
 * runs of fx_equalize_run; prints the median in ms.
 *
 *   equalize_bench IMAGE THREADS REPEAT [OPTION VALUE | --adaptive]...
 *   e.g. equalize_bench photo.ppm 2 15 --space hsv
 *
 * Build: `make` builds it into build/bench/equalize_bench (bench/CMakeLists.txt); by
 * hand: cc -O2 bench/equalize_bench.c -Iinclude build/src/libfxkit.a -lpthread -lm
 * (bench/equalize_cpu.py does it). Prints "RESULT <median ms>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxkit/fxkit.h"
#include "bench_median.h"

static int fail(fx_context *ctx, const char *what)
{
    fprintf(stderr, "equalize_bench: %s: %s\n", what, ctx ? fx_context_error(ctx) : "");
    return 1;
}

static void parse_options(int argc, char **argv, fx_equalize_options *o)
{
    for (int i = 4; i < argc; i++) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(name, "--adaptive")) {
            o->adaptive = 1;
            continue;
        }
        i++;
        if (!strcmp(name, "--space"))
            o->space = !strcmp(value, "gray")        ? FX_EQ_SPACE_GRAY
                       : !strcmp(value, "luma")      ? FX_EQ_SPACE_LUMA
                       : !strcmp(value, "rgb")       ? FX_EQ_SPACE_RGB
                       : !strcmp(value, "hsv-float") ? FX_EQ_SPACE_HSV_FLOAT
                                                     : FX_EQ_SPACE_HSV;
        else if (!strcmp(name, "--tiles"))
            o->tiles = value;
        else if (!strcmp(name, "--clip"))
            o->clip = atof(value);
        else if (!strcmp(name, "--bins"))
            o->bins = atoi(value);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) return fail(NULL, "usage: IMAGE THREADS REPEAT [OPTION VALUE]...");
    const int threads = atoi(argv[2]), repeat = atoi(argv[3]);
    if (repeat < 1 || repeat > 1000) return fail(NULL, "REPEAT is 1 to 1000");
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = threads;
    fx_context *ctx = NULL;
    if (fx_context_create(&co, &ctx) != FX_OK) return fail(ctx, "context");
    fx_image in = {0}, out = {0};
    if (fx_image_read_file(ctx, argv[1], &in) != FX_OK) return fail(ctx, argv[1]);
    fx_equalize_options o;
    fx_equalize_options_init(&o);
    parse_options(argc, argv, &o);
    const fx_image_desc desc = fx_image_desc_of(&in);
    fx_equalize_plan *plan;
    if (fx_equalize_plan_create(ctx, &o, &desc, &plan) != FX_OK) return fail(ctx, "plan");
    if (fx_image_alloc(ctx, &out, in.width, in.height, fx_equalize_output_channels(&o, in.channels),
                       in.type) != FX_OK)
        return fail(ctx, "alloc");
    double *ms = calloc((size_t)repeat, sizeof *ms);
    if (!ms) return fail(NULL, "out of memory");
    for (int r = -1; r < repeat; r++) { /* run -1 warms the output and the caches */
        fx_timings t = {0};
        if (fx_equalize_run(plan, &in, &out, &t) != FX_OK) return fail(ctx, "run");
        if (r >= 0) ms[r] = t.compute_ms;
    }
    printf("RESULT %.3f\n", bench_median(ms, repeat));
    free(ms);
    fx_equalize_plan_free(plan);
    fx_image_free(&out);
    fx_image_free(&in);
    fx_context_destroy(ctx);
    return 0;
}
