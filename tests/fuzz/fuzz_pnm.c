/* Fuzz target: PGM/PPM/PFM bytes through fx_image_read_memory. Inputs without a
 * Netpbm magic get one ("P5 " ... from the first byte), so the fuzzer spends its
 * time in the PNM/PFM parser rather than in signature dispatch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_context.h"

/* Small limits keep every accepted image cheap to allocate. */
#define FUZZ_MAX_PIXELS (1u << 16)
#define FUZZ_MAX_DIMENSION 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char types[] = "2356fF";
    fx_context *ctx = fuzz_context(FUZZ_MAX_PIXELS, FUZZ_MAX_DIMENSION);
    uint8_t *copy = NULL;
    if (size < 2 || data[0] != 'P') {
        /* Prefix "P?\n", the type chosen by the first byte. */
        copy = malloc(size + 3);
        if (!copy) return 0;
        copy[0] = 'P';
        copy[1] = (uint8_t)types[(size ? data[0] : 0) % (sizeof types - 1)];
        copy[2] = '\n';
        if (size) memcpy(copy + 3, data, size);
        data = copy;
        size += 3;
    }
    fuzz_decode_and_check(ctx, data, size);
    free(copy);
    return 0;
}
