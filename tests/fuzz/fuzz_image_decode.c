/* Fuzz target: any bytes through fx_image_read_memory (signature dispatch,
 * PNG via libspng, JPEG via TurboJPEG, PNM/PFM). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_context.h"

/* Small limits keep every accepted image cheap to allocate. */
#define FUZZ_MAX_PIXELS (1u << 18)
#define FUZZ_MAX_DIMENSION 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fx_context *ctx = fuzz_context(FUZZ_MAX_PIXELS, FUZZ_MAX_DIMENSION);
    fx_image img;
    fx_status st = fx_image_read_memory(ctx, data, size, &img);
    if (st == FX_OK) {
        if (!img.data || img.width <= 0 || img.height <= 0) abort();
        volatile uint8_t sink = 0;
        for (int y = 0; y < img.height; y++) {
            const uint8_t *row = fx_image_row(&img, y);
            sink ^= row[0] ^
                    row[(size_t)img.width * (size_t)img.channels * fx_sample_size(img.type) - 1];
        }
        (void)sink;
    } else if (img.data || !fx_context_error(ctx)[0]) {
        abort(); /* a failure must leave no image and give a detail */
    }
    fx_image_free(&img);
    return 0;
}
