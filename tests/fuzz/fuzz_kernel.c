/* libFuzzer target: kernel text. Any bytes are parsed as a kernel; each input must be
 * accepted or rejected with a detail, never crash. An accepted kernel small enough to
 * run is planned and run on a tiny image with every border, where every exact
 * strategy that applies must give the bytes of direct. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_context.h"

/* Kernels beyond this many taps are parsed but not run (a fuzz step must be quick). */
#define RUN_MAX_TAPS 256
#define IMAGE_SIDE 5
#define IMAGE_CHANNELS 2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_all(fx_context *ctx, const fx_kernel *k)
{
    fx_image src, ref, out;
    if (fx_image_alloc(ctx, &src, IMAGE_SIDE, IMAGE_SIDE, IMAGE_CHANNELS, FX_U8) != FX_OK) return;
    for (size_t i = 0; i < src.stride * IMAGE_SIDE; i++)
        src.data[i] = (uint8_t)(i * 37 + 11);
    fx_image_alloc(ctx, &ref, IMAGE_SIDE, IMAGE_SIDE, IMAGE_CHANNELS, FX_U8);
    fx_image_alloc(ctx, &out, IMAGE_SIDE, IMAGE_SIDE, IMAGE_CHANNELS, FX_U8);
    fx_image_desc d = {IMAGE_SIDE, IMAGE_SIDE, IMAGE_CHANNELS, FX_U8};
    for (int b = 0; b <= FX_BORDER_WRAP; b++) {
        fx_filter_options o;
        fx_filter_options_init(&o);
        o.border = b;
        o.strategy = FX_STRATEGY_DIRECT;
        fx_filter_plan *p;
        if (fx_filter_plan_create(ctx, k, &o, &d, &p) != FX_OK) continue;
        fx_filter_run(p, &src, &ref, NULL);
        bool exact = strstr(fx_filter_plan_explain(p), "exact") != NULL;
        fx_filter_plan_free(p);
        for (int s = FX_STRATEGY_SEPARABLE; exact && s <= FX_STRATEGY_BOX; s++) {
            o.strategy = s;
            if (fx_filter_plan_create(ctx, k, &o, &d, &p) != FX_OK) continue;
            fx_filter_run(p, &src, &out, NULL);
            if (memcmp(ref.data, out.data, ref.stride * IMAGE_SIDE) != 0) abort();
            fx_filter_plan_free(p);
        }
    }
    fx_image_free(&src);
    fx_image_free(&ref);
    fx_image_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fx_context *ctx = fuzz_context(0, 0);
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    fx_kernel *k = NULL;
    fx_status st = fx_kernel_parse(ctx, text, &k);
    if (st == FX_OK) {
        if (!k) abort();
        if ((size_t)fx_kernel_width(k) * fx_kernel_height(k) <= RUN_MAX_TAPS) run_all(ctx, k);
        fx_kernel_free(k);
    } else if (k != NULL || !fx_context_error(ctx)[0]) {
        abort(); /* a rejection leaves no kernel and says why */
    }
    free(text);
    return 0;
}
