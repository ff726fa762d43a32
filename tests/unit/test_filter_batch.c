/* fx_filter_run_batch on the CPU: every image of a batch has the bytes fx_filter_run
 * gives it alone (which tests/unit/test_filter.c checks against a plain reference), for
 * every border, channel count and depth, odd sizes down to 1x1, padded strides that
 * differ from image to image, counts 1 and 37 on a context of several threads (each
 * image filtered whole by one thread, where fx_filter_run cuts larger images in bands
 * over the threads); and the errors of a bad batch.
 */
#include <stdlib.h>

#include "fxtest.h"

/* An image with `pad` spare samples after each row, random samples (u8/u16 over their
 * whole range, floats in [0, 1]). Free with free(img->data). */
static fx_image random_image(int w, int h, int ch, fx_sample_type t, size_t pad, uint64_t seed)
{
    fx_image img = {0};
    size_t row;
    if (fx_image_size(w, h, ch, t, &row, NULL) != FX_OK) return img;
    img.width = w;
    img.height = h;
    img.channels = ch;
    img.type = t;
    img.stride = row + pad * fx_sample_size(t);
    img.data = malloc(img.stride * (size_t)h);
    if (!img.data) return img;
    memset(img.data, 0xA5, img.stride * (size_t)h);
    const size_t n = (size_t)w * (size_t)ch;
    for (int y = 0; y < h; y++) {
        uint8_t *r = fx_image_row(&img, y);
        for (size_t i = 0; i < n; i++) {
            const uint64_t v = fxt_rand(&seed);
            switch (t) {
            case FX_U8: r[i] = (uint8_t)(v >> 56); break;
            case FX_U16: ((uint16_t *)(void *)r)[i] = (uint16_t)(v >> 48); break;
            default: ((float *)(void *)r)[i] = (float)((v >> 40) % 1000001) / 1e6f; break;
            }
        }
    }
    return img;
}

/* The batch of `count` images of w x h x ch of type t through one plan of `kernel_text`
 * with `border`, against fx_filter_run image by image on the same plan. */
static void check_batch(fx_context *ctx, const char *kernel_text, fx_border border, int w, int h,
                        int ch, fx_sample_type t, int count, uint64_t seed)
{
    fx_kernel *k = NULL;
    if (!FXT_CHECK_OK(fx_kernel_parse(ctx, kernel_text, &k), ctx)) return;
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.border = border;
    o.border_value = t == FX_F32 ? "0.25" : "7";
    o.alpha = seed % 2 ? FX_ALPHA_KEEP : FX_ALPHA_FILTER;
    fx_image_desc d = {w, h, ch, t};
    fx_filter_plan *plan = NULL;
    if (!FXT_CHECK_OK(fx_filter_plan_create(ctx, k, &o, &d, &plan), ctx)) {
        fx_kernel_free(k);
        return;
    }
    fx_image *src = calloc((size_t)count, sizeof *src);
    fx_image *dst = calloc((size_t)count, sizeof *dst);
    fx_image *one = calloc((size_t)count, sizeof *one);
    for (int i = 0; i < count; i++) {
        src[i] = random_image(w, h, ch, t, (size_t)(i % 5) * 3, seed * 1000 + (uint64_t)i);
        dst[i] = random_image(w, h, ch, t, (size_t)(i % 3), 1);
        one[i] = random_image(w, h, ch, t, 0, 2);
    }
    fx_timings tm = {0};
    if (FXT_CHECK_OK(fx_filter_run_batch(plan, src, dst, count, &tm), ctx)) {
        FXT_CHECK(tm.compute_ms >= 0);
        for (int i = 0; i < count; i++) {
            FXT_CHECK_OK(fx_filter_run(plan, &src[i], &one[i], NULL), ctx);
            if (!fxt_images_equal(&dst[i], &one[i])) {
                fprintf(stderr, "  batch image %d of %d differs: %s, border %s, %dx%dx%d %s\n", i,
                        count, kernel_text, fx_border_name(border), w, h, ch,
                        fx_sample_type_name(t));
                FXT_CHECK(false);
                break;
            }
        }
    }
    for (int i = 0; i < count; i++) {
        free(src[i].data);
        free(dst[i].data);
        free(one[i].data);
    }
    free(src);
    free(dst);
    free(one);
    fx_filter_plan_free(plan);
    fx_kernel_free(k);
}

static const char *const kernels[] = {"gaussian:5", "box:3", "1 2 1; 0 3 -1; 2 1 1 / 9",
                                      "gaussian:9", "box:15"};
static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};
static const int sizes[][2] = {{1, 1}, {7, 3}, {13, 29}, {64, 48}};

FXT_TEST(batches_equal_single_runs)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 4);
    uint64_t seed = 1;
    for (int ki = 0; ki < (int)(sizeof kernels / sizeof *kernels); ki++)
        for (int ti = 0; ti < 3; ti++)
            for (int b = FX_BORDER_CONSTANT; b <= FX_BORDER_WRAP; b++)
                for (int ch = 1; ch <= 4; ch++) {
                    const int *sz = sizes[(ki + ti + b + ch) % 4];
                    const int count = (b + ch) % 2 ? 37 : 1;
                    check_batch(ctx, kernels[ki], (fx_border)b, sz[0], sz[1], ch, types[ti], count,
                                seed++);
                }
    fx_context_destroy(ctx);
}

/* Images large enough that fx_filter_run cuts them in bands over the threads. */
FXT_TEST(batches_of_larger_images)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    check_batch(ctx, "gaussian:5", FX_BORDER_REFLECT101, 257, 129, 3, FX_U8, 9, 11);
    check_batch(ctx, "box:5", FX_BORDER_REPLICATE, 257, 129, 4, FX_U8, 5, 12);
    check_batch(ctx, "gaussian:31", FX_BORDER_WRAP, 100, 77, 1, FX_U16, 4, 13);
    check_batch(ctx, "sharpen", FX_BORDER_CONSTANT, 120, 90, 3, FX_F32, 4, 14);
    fx_context_destroy(ctx);
}

FXT_TEST(one_thread_and_count_zero)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    check_batch(ctx, "gaussian:3", FX_BORDER_REFLECT, 31, 17, 3, FX_U8, 6, 21);
    fx_kernel *k = NULL;
    FXT_CHECK_OK(fx_kernel_parse(ctx, "box:3", &k), ctx);
    fx_image_desc d = {8, 8, 1, FX_U8};
    fx_filter_plan *plan = NULL;
    FXT_CHECK_OK(fx_filter_plan_create(ctx, k, NULL, &d, &plan), ctx);
    FXT_CHECK_OK(fx_filter_run_batch(plan, NULL, NULL, 0, NULL), ctx);
    fx_filter_plan_free(plan);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

FXT_TEST(bad_batches_name_the_image)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    fx_kernel *k = NULL;
    FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:3", &k), ctx);
    fx_image_desc d = {16, 8, 3, FX_U8};
    fx_filter_plan *plan = NULL;
    FXT_CHECK_OK(fx_filter_plan_create(ctx, k, NULL, &d, &plan), ctx);
    fx_image src[3], dst[3];
    for (int i = 0; i < 3; i++) {
        src[i] = random_image(16, 8, 3, FX_U8, 0, (uint64_t)i);
        dst[i] = random_image(16, 8, 3, FX_U8, 0, 9);
    }
    FXT_CHECK_STATUS(fx_filter_run_batch(plan, src, dst, -1, NULL), FX_EINVAL, ctx);
    /* the wrong shape: image 2 */
    src[2].width = 15;
    FXT_CHECK_STATUS(fx_filter_run_batch(plan, src, dst, 3, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "batch image 2's input");
    src[2].width = 16;
    /* an image said to be on the GPU among host images: image 1 (its pixels are never read) */
    dst[1].memory = FX_MEMORY_DEVICE;
    FXT_CHECK_STATUS(fx_filter_run_batch(plan, src, dst, 3, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "image 1");
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "all device images or all host images");
    dst[1].memory = FX_MEMORY_HOST;
    /* device images on a CPU plan */
    for (int i = 0; i < 3; i++)
        src[i].memory = dst[i].memory = FX_MEMORY_DEVICE;
    FXT_CHECK_STATUS(fx_filter_run_batch(plan, src, dst, 3, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "on the GPU");
    for (int i = 0; i < 3; i++)
        src[i].memory = dst[i].memory = FX_MEMORY_HOST;
    /* in place */
    FXT_CHECK_STATUS(fx_filter_run_batch(plan, src, src, 3, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "image 0");
    for (int i = 0; i < 3; i++) {
        free(src[i].data);
        free(dst[i].data);
    }
    fx_filter_plan_free(plan);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(batches_equal_single_runs), FXT_CASE(batches_of_larger_images),
         FXT_CASE(one_thread_and_count_zero), FXT_CASE(bad_batches_name_the_image))
