/* Image and audio buffers: sizes, overflow checks, limits, sample conversion. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fxtest.h"

FXT_TEST(image_sizes_and_overflow)
{
    size_t stride, bytes;
    FXT_CHECK_OK(fx_image_size(3, 2, 3, FX_U16, &stride, &bytes), NULL);
    FXT_CHECK_EQ(stride, 18);
    FXT_CHECK_EQ(bytes, 36);
    FXT_CHECK_OK(fx_image_size(1, 1, 1, FX_U8, &stride, &bytes), NULL);
    FXT_CHECK_EQ(bytes, 1);
    FXT_CHECK_STATUS(fx_image_size(0, 5, 1, FX_U8, NULL, NULL), FX_EINVAL, NULL);
    FXT_CHECK_STATUS(fx_image_size(5, -1, 1, FX_U8, NULL, NULL), FX_EINVAL, NULL);
    FXT_CHECK_STATUS(fx_image_size(5, 5, 5, FX_U8, NULL, NULL), FX_EINVAL, NULL);
    FXT_CHECK_STATUS(fx_image_size(5, 5, 0, FX_U8, NULL, NULL), FX_EINVAL, NULL);
    FXT_CHECK_STATUS(fx_image_size(5, 5, 1, (fx_sample_type)9, NULL, NULL), FX_EINVAL, NULL);
    if (sizeof(size_t) == 8) {
        /* 2^31-1 squared times 16 bytes does not fit in 64 bits. */
        FXT_CHECK_STATUS(fx_image_size(INT32_MAX, INT32_MAX, 4, FX_F32, NULL, NULL), FX_EOVERFLOW,
                         NULL);
    }
    size_t big;
    FXT_CHECK(!fxi_mul_size(SIZE_MAX / 2 + 1, 2, &big));
    FXT_CHECK(fxi_mul_size(SIZE_MAX / 2, 2, &big));
    FXT_CHECK(!fxi_add_size(SIZE_MAX, 1, &big));
    FXT_CHECK(!fxi_mul3_size(1u << 31, 1u << 31, 1u << 31, &big));
}

FXT_TEST(image_limits_are_enforced_before_allocation)
{
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = FX_DEVICE_CPU;
    opts.limits.max_pixels = 1000;
    opts.limits.max_dimension = 100;
    opts.limits.max_channels = 3;
    fx_context *ctx = NULL;
    FXT_CHECK_OK(fx_context_create(&opts, &ctx), NULL);
    fx_image img;
    FXT_CHECK_OK(fx_image_alloc(ctx, &img, 10, 100, 3, FX_F32), ctx);
    fx_image_free(&img);
    FXT_CHECK(img.data == NULL);
    FXT_CHECK_STATUS(fx_image_alloc(ctx, &img, 101, 1, 1, FX_U8), FX_ELIMIT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "101x1");
    FXT_CHECK_STATUS(fx_image_alloc(ctx, &img, 40, 40, 1, FX_U8), FX_ELIMIT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "1600 pixels");
    FXT_CHECK_STATUS(fx_image_check_limits(ctx, UINT64_C(1) << 31, 1, 3), FX_ELIMIT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "2147483648x1");
    FXT_CHECK_STATUS(fx_image_check_limits(ctx, 0, 0, 3), FX_EFORMAT, ctx);
    FXT_CHECK_OK(fx_image_check_limits(ctx, 5, 5, 3), ctx);
    FXT_CHECK_STATUS(fx_image_check_limits(ctx, 5, 5, 4), FX_ELIMIT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "4 channels exceed the limit of 3");
    FXT_CHECK_STATUS(fx_image_check_limits(ctx, 5, 5, 7), FX_EUNSUPPORTED, ctx);
    FXT_CHECK_STATUS(fx_image_alloc(ctx, &img, 0, 0, 1, FX_U8), FX_EINVAL, ctx);
    fx_image_free(&img); /* safe on a zeroed image */
    fx_context_destroy(ctx);
}

/* Plain reference for fx_image_convert, written from the documented rule. */
static double ref_convert(double v, fx_sample_type from, fx_sample_type to)
{
    if (from == to) return v;
    if (from == FX_U8 && to == FX_U16) return v * 257;
    if (from == FX_U16 && to == FX_U8) return fmin(255, fmax(0, nearbyint(v / 257)));
    if (to == FX_F32) return (float)(v / (from == FX_U8 ? 255.0 : 65535.0));
    double max = to == FX_U8 ? 255.0 : 65535.0;
    if (!(v > 0)) return 0;
    return fmin(max, nearbyint(v * max));
}

static double get(const fx_image *img, int x, int y, int c)
{
    const uint8_t *row = fx_image_row(img, y);
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    if (img->type == FX_U8) return row[i];
    if (img->type == FX_U16) return ((const uint16_t *)(const void *)row)[i];
    return ((const float *)(const void *)row)[i];
}

static void fill_random(fx_image *img, uint64_t seed)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width * img->channels; x++) {
            uint64_t r = fxt_rand(&seed);
            uint8_t *row = fx_image_row(img, y);
            if (img->type == FX_U8)
                row[x] = (uint8_t)r;
            else if (img->type == FX_U16)
                ((uint16_t *)(void *)row)[x] = (uint16_t)r;
            /* Floats from -0.25 to 1.25 so saturation is exercised; exact halves too. */
            else
                ((float *)(void *)row)[x] = (float)((double)(r % 6001) / 4000.0 - 0.25);
        }
}

FXT_TEST(convert_matches_reference_for_every_pair)
{
    /* Three threads over 29 rows: the rows are split among them. */
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            fx_image src, dst;
            FXT_CHECK_OK(fx_image_alloc(ctx, &src, 37, 29, 3, types[a]), ctx);
            FXT_CHECK_OK(fx_image_alloc(ctx, &dst, 37, 29, 3, types[b]), ctx);
            fill_random(&src, (uint64_t)(a * 3 + b));
            fx_timings t = {0};
            FXT_CHECK_OK(fx_image_convert(ctx, &src, &dst, &t), ctx);
            FXT_CHECK(t.compute_ms > 0 && t.upload_ms == 0);
            int wrong = 0;
            for (int y = 0; y < 29; y++)
                for (int x = 0; x < 37; x++)
                    for (int c = 0; c < 3; c++)
                        wrong += get(&dst, x, y, c) !=
                                 ref_convert(get(&src, x, y, c), types[a], types[b]);
            if (!FXT_CHECK_EQ(wrong, 0))
                fprintf(stderr, "  pair %s -> %s\n", fx_sample_type_name(types[a]),
                        fx_sample_type_name(types[b]));
            fx_image_free(&src);
            fx_image_free(&dst);
        }
    fx_image one, other;
    FXT_CHECK_OK(fx_image_alloc(ctx, &one, 2, 2, 1, FX_U8), ctx);
    FXT_CHECK_OK(fx_image_alloc(ctx, &other, 2, 3, 1, FX_U8), ctx);
    FXT_CHECK_STATUS(fx_image_convert(ctx, &one, &other, NULL), FX_EINVAL, ctx);
    fx_image_free(&one);
    fx_image_free(&other);
    fx_context_destroy(ctx);
}

FXT_TEST(audio_buffers)
{
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = FX_DEVICE_CPU;
    opts.limits.max_channels = 8;
    opts.limits.max_audio_frames = 1000;
    fx_context *ctx = NULL;
    FXT_CHECK_OK(fx_context_create(&opts, &ctx), NULL);
    fx_audio a;
    FXT_CHECK_OK(fx_audio_alloc(ctx, &a, 1000, 8, 48000), ctx);
    FXT_CHECK(a.data && a.frames == 1000 && a.channels == 8 && a.rate == 48000);
    FXT_CHECK(a.data[7999] == 0.0);
    fx_audio_free(&a);
    FXT_CHECK(a.data == NULL);
    FXT_CHECK_STATUS(fx_audio_alloc(ctx, &a, 1001, 1, 48000), FX_ELIMIT, ctx);
    FXT_CHECK_STATUS(fx_audio_alloc(ctx, &a, 10, 9, 48000), FX_ELIMIT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "9 audio channels");
    FXT_CHECK_STATUS(fx_audio_alloc(ctx, &a, 10, 0, 48000), FX_ELIMIT, ctx);
    FXT_CHECK_STATUS(fx_audio_alloc(ctx, &a, 10, 1, 0), FX_EINVAL, ctx);
    fx_context_destroy(ctx);

    fx_sample_format f;
    FXT_CHECK_OK(fx_parse_sample_format("s24", &f), NULL);
    FXT_CHECK_EQ(f, FX_SF_S24);
    FXT_CHECK_OK(fx_parse_sample_format("F64", &f), NULL);
    FXT_CHECK_EQ(f, FX_SF_F64);
    FXT_CHECK_OK(fx_parse_sample_format("same", &f), NULL);
    FXT_CHECK_EQ(f, FX_SF_SAME);
    FXT_CHECK_STATUS(fx_parse_sample_format("s12", &f), FX_EINVAL, NULL);
    FXT_CHECK_STATUS(fx_parse_sample_format("u8", &f), FX_EINVAL, NULL);
    FXT_CHECK(!strcmp(fx_sample_format_name(FX_SF_S32), "s32"));
}

/* Device images need a GPU context: on the CPU every call says so and leaves the
 * image empty; a zeroed image is a host image. */
FXT_TEST(device_images_need_a_gpu_context)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_image dev, host;
    FXT_CHECK(((fx_image){0}).memory == FX_MEMORY_HOST);
    FXT_CHECK_STATUS(fx_image_alloc_device(ctx, &dev, 4, 4, 1, FX_U8), FX_ENODEVICE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "GPU context");
    FXT_CHECK(dev.data == NULL);
    fx_image_free(&dev);
    FXT_CHECK_OK(fx_image_alloc(ctx, &host, 4, 4, 1, FX_U8), ctx);
    FXT_CHECK_STATUS(fx_image_upload(ctx, &host, &dev), FX_ENODEVICE, ctx);
    FXT_CHECK_STATUS(fx_image_download(ctx, &host, &host), FX_ENODEVICE, ctx);
    /* fx_image_convert: device images (labelled so, never touched) need a GPU context,
     * and a host and a device image do not mix. */
    fx_image d1 = host, d2 = host;
    d1.memory = d2.memory = FX_MEMORY_DEVICE;
    FXT_CHECK_STATUS(fx_image_convert(ctx, &d1, &d2, NULL), FX_ENODEVICE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "GPU context");
    FXT_CHECK_STATUS(fx_image_convert(ctx, &host, &d2, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "host image into a device image");
    fx_image_free(&host);
    fx_context_destroy(ctx);
}

/* fxi_copy_streaming: every byte of every length and alignment (its aligned head,
 * 64-byte body and tail), nothing outside the block touched. */
FXT_TEST(streaming_copy_copies_every_byte_and_no_more)
{
    enum { MAX = 70000, GUARD = 64 };
    static uint8_t src[MAX + 2 * GUARD], dst[MAX + 2 * GUARD];
    static const size_t lengths[] = {0, 1, 15, 63, 64, 4095, 4096, 4097, 4111, 4160, 65536 + 37};
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 131u + (i >> 8));
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        for (size_t so = 0; so < 17; so++) {
            for (size_t d0 = 0; d0 < 17; d0++) {
                const size_t n = lengths[li];
                memset(dst, 0xA5, sizeof dst);
                fxi_copy_streaming(dst + GUARD + d0, src + GUARD + so, n);
                size_t bad = 0;
                for (size_t i = 0; i < sizeof dst; i++) {
                    const size_t at = i - (GUARD + d0);
                    const int inside = i >= GUARD + d0 && at < n;
                    bad += dst[i] != (inside ? src[GUARD + so + at] : 0xA5);
                }
                if (!FXT_CHECK_EQ(bad, 0)) return;
            }
        }
    }
}

FXT_MAIN(FXT_CASE(image_sizes_and_overflow), FXT_CASE(image_limits_are_enforced_before_allocation),
         FXT_CASE(convert_matches_reference_for_every_pair), FXT_CASE(audio_buffers),
         FXT_CASE(device_images_need_a_gpu_context),
         FXT_CASE(streaming_copy_copies_every_byte_and_no_more))
