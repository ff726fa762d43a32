/* Host <-> device copies: pinned and pageable, odd sizes, 2D with padded
 * pitches on both sides; reusable buffers; the pinned pool. */
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

/* Take a block of `bytes` from the pool; its size is checked by the caller. */
static void *take(fx_context *ctx, size_t bytes, size_t *size)
{
    void *p = NULL;
    *size = 0;
    FXT_CHECK_OK(fxi_pinned_take(ctx, bytes, &p, size), ctx);
    return p;
}

/* The pinned pool: a given-back block serves the next taker that fits, the smallest
 * fitting one first; a larger request gets a new block of its exact size; blocks
 * taken at once are distinct; every block kept stays usable for copies. */
FXT_TEST(pinned_pool_take_give_reuse)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    const size_t one = 1u << 20, three = 3u << 20;
    size_t a_size, b_size, c_size, d_size, e_size, z_size;
    void *z = take(ctx, 0, &z_size);
    FXT_CHECK(z == NULL && z_size == 0);
    void *a = take(ctx, one, &a_size);
    FXT_CHECK(a != NULL && a_size == one);
    fxi_pinned_give(ctx, a, a_size);
    void *b = take(ctx, 1000, &b_size); /* the free block, whole */
    FXT_CHECK(b == a && b_size == one);
    void *c = take(ctx, three, &c_size); /* nothing free: new, exact */
    FXT_CHECK(c != NULL && c != b && c_size == three);
    /* a block from the pool carries a copy: 0x5a up, then back into the other */
    uint8_t *dev;
    memset(c, 0x5a, c_size);
    memset(b, 0, b_size);
    if (FXT_CHECK_OK(fxi_device_alloc(ctx, c_size, (void **)&dev), ctx)) {
        FXT_CHECK_OK(fxi_copy_h2d(ctx, dev, c, c_size), ctx);
        FXT_CHECK_OK(fxi_copy_d2h(ctx, b, dev + c_size - b_size, b_size), ctx);
        FXT_CHECK_OK(fxi_stream_sync_yielding(ctx), ctx);
        FXT_CHECK(((uint8_t *)b)[0] == 0x5a && ((uint8_t *)b)[b_size - 1] == 0x5a);
        fxi_device_free(ctx, dev);
    }
    fxi_pinned_give(ctx, c, c_size);
    fxi_pinned_give(ctx, b, b_size); /* both kept: 1 MiB and 3 MiB free */
    void *d = take(ctx, 2u << 20, &d_size); /* only the 3 MiB block fits */
    FXT_CHECK(d == c && d_size == three);
    void *e = take(ctx, 10, &e_size); /* the 1 MiB block is left */
    FXT_CHECK(e == b && e_size == one);
    fxi_pinned_give(ctx, d, d_size);
    fxi_pinned_give(ctx, e, e_size);
    d = take(ctx, 10, &d_size); /* both free: the smaller one */
    FXT_CHECK(d == b && d_size == one);
    e = take(ctx, 10, &e_size); /* then the other: distinct while both are taken */
    FXT_CHECK(e == c && e_size == three);
    fxi_pinned_give(ctx, d, d_size);
    fxi_pinned_give(ctx, e, e_size);
    fx_context_destroy(ctx); /* frees the pool */
}

/* A full pool keeps the largest blocks: giving back one more block than it holds
 * frees the smallest. */
FXT_TEST(pinned_pool_full_frees_the_smallest)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    enum { BLOCKS = FXI_PINNED_POOL_BLOCKS + 1, KIB = 1024 };
    void *p[BLOCKS];
    size_t size[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) /* 1 KiB, 2 KiB, ... all taken at once */
        p[i] = take(ctx, (size_t)(i + 1) * KIB, &size[i]);
    for (int i = 0; i < BLOCKS; i++)
        fxi_pinned_give(ctx, p[i], size[i]);
    FXT_CHECK_EQ(ctx->cuda->pinned_free_count, FXI_PINNED_POOL_BLOCKS);
    size_t s;
    void *q = take(ctx, 1, &s); /* the 1 KiB block is gone: the 2 KiB one is smallest */
    FXT_CHECK(q == p[1] && s == 2 * KIB);
    fxi_pinned_give(ctx, q, s);
    /* giving back a block smaller than every kept one frees it instead */
    void *tiny = NULL;
    if (FXT_CHECK_OK(fxi_pinned_alloc(ctx, 16, &tiny), ctx)) fxi_pinned_give(ctx, tiny, 16);
    q = take(ctx, 1, &s);
    FXT_CHECK(q == p[1] && s == 2 * KIB);
    fxi_pinned_give(ctx, q, s);
    fx_context_destroy(ctx);
}

/* The context's pinned buffers come from the pool: a grown buffer's old block goes
 * back to it and serves the next taker. */
FXT_TEST(pinned_buffer_gives_back_to_the_pool)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 1);
    void *small, *big;
    FXT_CHECK_OK(fxi_pinned_buffer(ctx, FXI_BUFFER_OUT, 4096, &small), ctx);
    FXT_CHECK_OK(fxi_pinned_buffer(ctx, FXI_BUFFER_OUT, 1u << 20, &big), ctx);
    size_t s;
    void *q = take(ctx, 100, &s);
    FXT_CHECK(q == small && s == 4096);
    fxi_pinned_give(ctx, q, s);
    fx_context_destroy(ctx);
}

/* Device images: upload from a padded host image, download into another, same
 * pixels; mismatched shapes and directions are refused with a detail. */
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
              FXT_CASE(pinned_pool_take_give_reuse),
              FXT_CASE(pinned_pool_full_frees_the_smallest),
              FXT_CASE(pinned_buffer_gives_back_to_the_pool), FXT_CASE(device_image_round_trip))
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
