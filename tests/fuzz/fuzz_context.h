/* The one context a fuzz target keeps for its whole run: CPU, one thread, and the
 * given limits (0 = the library's defaults). Small limits keep every accepted
 * image cheap to allocate. The fuzzer's process ends with the context still
 * reachable, which LeakSanitizer does not report. */
#ifndef FUZZ_CONTEXT_H
#define FUZZ_CONTEXT_H

#include <stdlib.h>

#include "fxkit/fxkit.h"

static inline fx_context *fuzz_context(uint64_t max_pixels, int max_dimension)
{
    static fx_context *ctx;
    if (!ctx) {
        fx_context_options opts;
        fx_context_options_init(&opts);
        opts.device = FX_DEVICE_CPU;
        opts.threads = 1;
        opts.limits.max_pixels = max_pixels;
        opts.limits.max_dimension = max_dimension;
        if (fx_context_create(&opts, &ctx) != FX_OK) abort();
    }
    return ctx;
}

/* Decode bytes with fx_image_read_memory and check the contract: success gives an
 * image whose rows can be read end to end (the first and last sample of every row
 * are touched, so a short allocation shows up under ASan); failure gives no image
 * and a detail. Anything else aborts. */
static inline void fuzz_decode_and_check(fx_context *ctx, const uint8_t *data, size_t size)
{
    fx_image img;
    fx_status st = fx_image_read_memory(ctx, data, size, &img);
    if (st == FX_OK) {
        if (!img.data || img.width <= 0 || img.height <= 0) abort();
        size_t last = (size_t)img.width * (size_t)img.channels * fx_sample_size(img.type) - 1;
        volatile uint8_t sink = 0;
        for (int y = 0; y < img.height; y++) {
            const uint8_t *row = fx_image_row(&img, y);
            sink ^= row[0] ^ row[last];
        }
        (void)sink;
    } else if (img.data || !fx_context_error(ctx)[0]) {
        abort();
    }
    fx_image_free(&img);
}

#endif
