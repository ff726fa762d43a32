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
    fuzz_decode_and_check(ctx, data, size);
    return 0;
}
