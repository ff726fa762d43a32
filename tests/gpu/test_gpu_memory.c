/* Host <-> device copies: pinned and pageable, odd sizes, 2D with padded
 * pitches on both sides; reusable buffers. */
#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA
#include "gpu/gpu_internal.h"

static const size_t odd_sizes[] = {1, 3, 255, 4097, (1u << 20) + 13, (7u << 20) + 1};
#define ODD_SIZE_COUNT 6

static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(fxt_rand(&seed) >> 56);
}

/* Host -> device -> host through `src` and `dst`, which are pinned or not. */
static void round_trip(fx_context *ctx, int pinned)
{
    for (int s = 0; s < ODD_SIZE_COUNT; s++) {
        const size_t n = odd_sizes[s];
        uint8_t *src, *dst;
        void *dev;
        if (pinned) {
            if (!FXT_CHECK_OK(fxi_pinned_alloc(ctx, n, (void **)&src), ctx)) return;
            if (!FXT_CHECK_OK(fxi_pinned_alloc(ctx, n, (void **)&dst), ctx)) return;
        } else {
            src = malloc(n);
            dst = malloc(n);
        }
        fill_random(src, n, n);
        memset(dst, 0, n);
        if (FXT_CHECK_OK(fxi_device_alloc(ctx, n, &dev), ctx)) {
            FXT_CHECK_OK(fxi_copy_h2d(ctx, dev, src, n), ctx);
            FXT_CHECK_OK(fxi_copy_d2h(ctx, dst, dev, n), ctx);
            FXT_CHECK_OK(fxi_stream_sync(ctx), ctx);
            if (!FXT_CHECK(memcmp(src, dst, n) == 0))
                fprintf(stderr, "  %zu bytes, pinned %d\n", n, pinned);
            fxi_device_free(ctx, dev);
        }
        if (pinned) {
            fxi_pinned_free(ctx, src);
            fxi_pinned_free(ctx, dst);
        } else {
            free(src);
            free(dst);
        }
    }
}

FXT_TEST(round_trip_pageable)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    round_trip(ctx, 0);
    fx_context_destroy(ctx);
}

FXT_TEST(round_trip_pinned)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    round_trip(ctx, 1);
    fx_context_destroy(ctx);
}

/* 2D: host rows with one padding, device rows with another, back into a third;
 * the destination's padding bytes stay untouched. */
FXT_TEST(round_trip_2d_padded)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    typedef struct case2d {
        size_t row, rows, src_pad, dev_pad, dst_pad;
    } case2d;
    static const case2d cases[] = {
        {1, 1, 0, 0, 0}, {111, 53, 29, 17, 3}, {3000, 7, 1, 96, 0}, {12, 1000, 4, 0, 13}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const case2d k = cases[c];
        const size_t sp = k.row + k.src_pad, dp = k.row + k.dev_pad, hp = k.row + k.dst_pad;
        uint8_t *src = malloc(sp * k.rows), *dst = malloc(hp * k.rows);
        fill_random(src, sp * k.rows, c + 1);
        memset(dst, 0xEE, hp * k.rows);
        void *dev;
        if (!FXT_CHECK_OK(fxi_device_alloc(ctx, dp * k.rows, &dev), ctx)) continue;
        FXT_CHECK_OK(fxi_copy_h2d_2d(ctx, dev, dp, src, sp, k.row, k.rows), ctx);
        FXT_CHECK_OK(fxi_copy_d2h_2d(ctx, dst, hp, dev, dp, k.row, k.rows), ctx);
        FXT_CHECK_OK(fxi_stream_sync(ctx), ctx);
        int bad_rows = 0, bad_pad = 0;
        for (size_t y = 0; y < k.rows; y++) {
            bad_rows += memcmp(src + y * sp, dst + y * hp, k.row) != 0;
            for (size_t x = k.row; x < hp; x++)
                bad_pad += dst[y * hp + x] != 0xEE;
        }
        FXT_CHECK_EQ(bad_rows, 0);
        FXT_CHECK_EQ(bad_pad, 0);
        fxi_device_free(ctx, dev);
        free(src);
        free(dst);
    }
    fx_context_destroy(ctx);
}

/* The context's buffers: the same pointer while big enough, grown when not. */
FXT_TEST(context_buffers_reuse_and_grow)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    void *a, *b, *c, *p, *q;
    FXT_CHECK_OK(fxi_device_buffer(ctx, FXI_BUFFER_OUT, 1000, &a), ctx);
    FXT_CHECK_OK(fxi_device_buffer(ctx, FXI_BUFFER_OUT, 10, &b), ctx);
    FXT_CHECK(a == b);
    FXT_CHECK_OK(fxi_device_buffer(ctx, FXI_BUFFER_OUT, 1 << 24, &c), ctx);
    FXT_CHECK(c != NULL);
    FXT_CHECK_OK(fxi_device_memset(ctx, c, 0, 1 << 24), ctx);
    FXT_CHECK_OK(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, 100, &p), ctx);
    FXT_CHECK_OK(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, 99, &q), ctx);
    FXT_CHECK(p == q);
    FXT_CHECK_OK(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, 1 << 22, &q), ctx);
    memset(q, 1, 1 << 22); /* the grown buffer is really that big */
    FXT_CHECK_OK(fxi_stream_sync(ctx), ctx);
    fx_context_destroy(ctx); /* releases all of them */
}

/* Device images: upload from a padded host image, download into another, same
 * pixels; mismatched shapes and directions are refused with a detail. */
/* A given-back pinned block serves the next taker that fits; a larger request gets a
 * new block, and giving both back keeps the larger; the blocks are usable for copies. */
FXT_TEST(pinned_spare_is_reused)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    void *a, *b, *c;
    size_t a_size, b_size, c_size;
    if (FXT_CHECK_OK(fxi_pinned_take(ctx, 1u << 20, &a, &a_size), ctx)) {
        FXT_CHECK(a_size == 1u << 20);
        fxi_pinned_give(ctx, a, a_size);
        if (FXT_CHECK_OK(fxi_pinned_take(ctx, 1000, &b, &b_size), ctx)) {
            FXT_CHECK(b == a && b_size == a_size); /* the spare, whole */
            if (FXT_CHECK_OK(fxi_pinned_take(ctx, 3u << 20, &c, &c_size), ctx)) {
                FXT_CHECK(c != b && c_size == 3u << 20);
                uint8_t *dev;
                memset(c, 0x5a, c_size);
                if (FXT_CHECK_OK(fxi_device_alloc(ctx, c_size, (void **)&dev), ctx)) {
                    FXT_CHECK_OK(fxi_copy_h2d(ctx, dev, c, c_size), ctx);
                    FXT_CHECK_OK(fxi_copy_d2h(ctx, b, dev + c_size - b_size, b_size), ctx);
                    FXT_CHECK_OK(fxi_stream_sync_yielding(ctx), ctx);
                    FXT_CHECK(((uint8_t *)b)[0] == 0x5a && ((uint8_t *)b)[b_size - 1] == 0x5a);
                    fxi_device_free(ctx, dev);
                }
                fxi_pinned_give(ctx, c, c_size);
            }
            fxi_pinned_give(ctx, b, b_size); /* the smaller one is freed */
            void *d;
            size_t d_size;
            if (FXT_CHECK_OK(fxi_pinned_take(ctx, 2u << 20, &d, &d_size), ctx)) {
                FXT_CHECK(d == c && d_size == 3u << 20);
                fxi_pinned_give(ctx, d, d_size);
            }
        }
    }
    fx_context_destroy(ctx); /* frees the spare */
}

FXT_TEST(device_image_round_trip)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};
    for (int t = 0; t < 3; t++) {
        fx_image host = gpu_padded_image(37, 11, 3, types[t], 5);
        fx_image back = gpu_padded_image(37, 11, 3, types[t], 3);
        uint64_t seed = 99;
        for (int y = 0; y < host.height; y++) {
            uint8_t *row = fx_image_row(&host, y);
            for (size_t i = 0; i < (size_t)host.width * 3 * fx_sample_size(types[t]); i++)
                row[i] = (uint8_t)(fxt_rand(&seed) >> 40);
        }
        fx_image dev;
        if (FXT_CHECK_OK(fx_image_alloc_device(ctx, &dev, 37, 11, 3, types[t]), ctx)) {
            FXT_CHECK(dev.memory == FX_MEMORY_DEVICE);
            FXT_CHECK_OK(fx_image_upload(ctx, &host, &dev), ctx);
            FXT_CHECK_OK(fx_image_download(ctx, &dev, &back), ctx);
            FXT_CHECK(fxt_images_equal(&host, &back));
            /* wrong direction: a host image as the source of a download */
            FXT_CHECK_STATUS(fx_image_download(ctx, &host, &back), FX_EINVAL, ctx);
            fx_image_free(&dev);
            FXT_CHECK(dev.data == NULL);
        }
        free(host.data);
        free(back.data);
    }
    fx_context_destroy(ctx);
}

GPU_TEST_MAIN(FXT_CASE(round_trip_pageable), FXT_CASE(round_trip_pinned),
              FXT_CASE(round_trip_2d_padded), FXT_CASE(context_buffers_reuse_and_grow),
              FXT_CASE(pinned_spare_is_reused), FXT_CASE(device_image_round_trip))
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
