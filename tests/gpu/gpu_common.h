/* Shared by the GPU tests: the "GPU required?" gate and small helpers.
 *
 * Without a GPU a GPU test skips (exit 77, "skipped: no GPU"), unless
 * FXKIT_REQUIRE_GPU=1, where it fails: on a GPU machine a missing GPU is a bug.
 */
#ifndef FXKIT_GPU_COMMON_H
#define FXKIT_GPU_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "fxtest.h"

static inline void gpu_require(void)
{
    int count = 0;
    fx_context *probe = fxt_context(FX_DEVICE_CPU, 1);
    fx_status st = fx_gpu_count(probe, &count);
    if (st == FX_OK && count > 0) {
        fx_context_destroy(probe);
        return;
    }
    const char *required = getenv("FXKIT_REQUIRE_GPU");
    if (required && !strcmp(required, "1")) {
        fprintf(stderr, "FXKIT_REQUIRE_GPU=1 but no usable GPU: %s\n",
                !fx_gpu_built() ? "this build has no CUDA support"
                : st != FX_OK   ? fx_context_error(probe)
                                : "fx_gpu_count found 0 GPUs");
        printf("0 passed, 1 failed\n");
        exit(1);
    }
    fx_context_destroy(probe);
    fxt_skip(fx_gpu_built() ? "no GPU" : "no GPU (built without CUDA)");
}

/* main() of a GPU test: the gate, then the cases. */
#define GPU_TEST_MAIN(...)                                                                         \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        gpu_require();                                                                             \
        static const fxt_case cases[] = {__VA_ARGS__};                                             \
        return fxt_run(argc, argv, cases, sizeof cases / sizeof *cases);                           \
    }

/* An image with `pad` spare bytes after each row (0xA5 there), so strides are
 * exercised; free with free(img->data). */
static inline fx_image gpu_padded_image(int w, int h, int ch, fx_sample_type t, size_t pad)
{
    fx_image img = {0};
    size_t row;
    if (fx_image_size(w, h, ch, t, &row, NULL) != FX_OK) return img;
    img.width = w;
    img.height = h;
    img.channels = ch;
    img.type = t;
    img.stride = row + pad;
    img.data = malloc(img.stride * (size_t)h);
    if (img.data) memset(img.data, 0xA5, img.stride * (size_t)h);
    return img;
}

/* Random samples, reproducible from the seed: the whole range of u8 and u16, floats in
 * [0, 1] with six decimals. */
static inline void gpu_fill_random(fx_image *img, uint64_t seed)
{
    const size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = fxt_rand(&seed);
            switch (img->type) {
            case FX_U8: row[i] = (uint8_t)(r >> 56); break;
            case FX_U16: ((uint16_t *)(void *)row)[i] = (uint16_t)(r >> 48); break;
            default: ((float *)(void *)row)[i] = (float)((r >> 40) % 1000001) / 1e6f; break;
            }
        }
    }
}

#endif
