/* Device sample-type conversion against the CPU's fx_image_convert: every type
 * pair, awkward sizes, padded strides, values on the rounding boundaries and
 * special floats; byte-identical. */
#include <math.h>

#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA
#include "gpu/gpu_internal.h"

static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};
typedef struct shape {
    int w, h;
} shape;
static const shape shapes[] = {{1, 1}, {37, 53}, {1000, 3}, {3, 1000}, {257, 129}};
#define SHAPE_COUNT 5
/* Row padding in bytes (a multiple of 4, so rows stay aligned for every type). */
static const size_t pads[] = {0, 12};

/* A float that makes conversion interesting: on or next to a rounding boundary
 * of u8 or u16, out of range, special, or plain random. Never a signalling NaN
 * (the CPU's float -> double -> float path would quieten it). */
static float interesting_float(uint64_t *rng)
{
    uint64_t r = fxt_rand(rng);
    static const float specials[] = {0.0f,     -0.0f,     1.0f, 2.0f,   -1.0f,
                                     INFINITY, -INFINITY, NAN,  1e-30f, 0.99999994f};
    switch (r % 8) {
    case 0: return specials[(r >> 8) % (sizeof specials / sizeof *specials)];
    case 1:
    case 2: { /* (k + 0.5) / 255, nudged by -1..1 ulp */
        float v = ((float)((r >> 8) % 255) + 0.5f) / 255.0f;
        int nudge = (int)((r >> 20) % 3) - 1;
        return nudge < 0 ? nextafterf(v, 0.0f) : nudge > 0 ? nextafterf(v, 2.0f) : v;
    }
    case 3:
    case 4: {
        float v = ((float)((r >> 8) % 65535) + 0.5f) / 65535.0f;
        int nudge = (int)((r >> 30) % 3) - 1;
        return nudge < 0 ? nextafterf(v, 0.0f) : nudge > 0 ? nextafterf(v, 2.0f) : v;
    }
    case 5: { /* any bit pattern, NaNs made quiet */
        uint32_t bits = (uint32_t)(r >> 16);
        float v;
        memcpy(&v, &bits, sizeof v);
        if (isnan(v)) bits |= 0x00400000u, memcpy(&v, &bits, sizeof v);
        return v;
    }
    default: return (float)((double)(r >> 11) / 9007199254740992.0 * 1.5 - 0.25);
    }
}

static void fill_image(fx_image *img, uint64_t seed)
{
    size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = fxt_rand(&seed);
            switch (img->type) {
            case FX_U8: row[i] = (uint8_t)(r >> 56); break;
            case FX_U16: ((uint16_t *)(void *)row)[i] = (uint16_t)(r >> 48); break;
            default: ((float *)(void *)row)[i] = interesting_float(&seed); break;
            }
        }
    }
}

FXT_TEST(every_type_pair_matches_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 3), *cpu = fxt_context(FX_DEVICE_CPU, 1);
    int cases = 0, mismatches = 0;
    for (int si = 0; si < 3; si++)
        for (int di = 0; di < 3; di++)
            for (int s = 0; s < SHAPE_COUNT; s++)
                for (int ch = 1; ch <= FX_MAX_IMAGE_CHANNELS; ch++) {
                    const int w = shapes[s].w, h = shapes[s].h;
                    const size_t pad = pads[(s + ch) % 2];
                    fx_image src = gpu_padded_image(w, h, ch, types[si], pad);
                    fx_image want = gpu_padded_image(w, h, ch, types[di], 0);
                    fx_image got = gpu_padded_image(w, h, ch, types[di], pads[(s + ch + 1) % 2]);
                    fill_image(&src, (uint64_t)(si * 1000 + di * 100 + s * 10 + ch));
                    FXT_CHECK_OK(fx_image_convert(cpu, &src, &want, NULL), cpu);
                    if (FXT_CHECK_OK(fxi_gpu_image_convert(gpu, &src, &got, NULL), gpu)) {
                        cases++;
                        if (!fxt_images_equal(&got, &want)) {
                            mismatches++;
                            fprintf(stderr, "  %s -> %s %dx%dx%d differs\n",
                                    fx_sample_type_name(types[si]), fx_sample_type_name(types[di]),
                                    w, h, ch);
                        }
                    }
                    free(src.data);
                    free(want.data);
                    free(got.data);
                }
    printf("  %d conversions compared, %d differ\n", cases, mismatches);
    FXT_CHECK_EQ(cases, 3 * 3 * SHAPE_COUNT * FX_MAX_IMAGE_CHANNELS);
    FXT_CHECK_EQ(mismatches, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Every u8 and u16 value, converted up and back down, against the CPU. */
FXT_TEST(every_integer_value_matches_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 1);
    fx_image u16 = gpu_padded_image(65536, 1, 1, FX_U16, 0);
    for (int i = 0; i < 65536; i++)
        ((uint16_t *)(void *)u16.data)[i] = (uint16_t)i;
    for (int ti = 0; ti < 3; ti++) {
        fx_image want = gpu_padded_image(65536, 1, 1, types[ti], 0),
                 got = gpu_padded_image(65536, 1, 1, types[ti], 0);
        FXT_CHECK_OK(fx_image_convert(cpu, &u16, &want, NULL), cpu);
        FXT_CHECK_OK(fxi_gpu_image_convert(gpu, &u16, &got, NULL), gpu);
        FXT_CHECK(fxt_images_equal(&got, &want));
        free(want.data);
        free(got.data);
    }
    free(u16.data);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

FXT_TEST(timings_and_errors)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 1);
    fx_image src = gpu_padded_image(640, 480, 3, FX_U8, 0),
             dst = gpu_padded_image(640, 480, 3, FX_F32, 0);
    fill_image(&src, 9);
    fx_timings t;
    memset(&t, 0, sizeof t);
    FXT_CHECK_OK(fxi_gpu_image_convert(gpu, &src, &dst, &t), gpu);
    FXT_CHECK(t.upload_ms > 0 && t.compute_ms > 0 && t.download_ms > 0);
    FXT_CHECK(t.decode_ms == 0 && t.encode_ms == 0);

    fx_image small = gpu_padded_image(639, 480, 3, FX_F32, 0);
    FXT_CHECK_STATUS(fxi_gpu_image_convert(gpu, &src, &small, NULL), FX_EINVAL, gpu);
    FXT_CHECK_CONTAINS(fx_context_error(gpu), "shape");
    FXT_CHECK_STATUS(fxi_gpu_image_convert(cpu, &src, &dst, NULL), FX_ENODEVICE, cpu);
    FXT_CHECK_STATUS(fxi_cuda_convert_launch(gpu, NULL, (fx_sample_type)7, NULL, FX_U8, 1),
                     FX_EINVAL, gpu);
    /* Still fine after the errors. */
    FXT_CHECK_OK(fxi_gpu_image_convert(gpu, &src, &dst, NULL), gpu);
    free(small.data);
    free(src.data);
    free(dst.data);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* fx_image_convert on device images (converted where they are) gives the CPU's bytes. */
FXT_TEST(device_images_convert_on_the_device)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 1);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            fx_image src, want, got, dsrc, ddst;
            FXT_CHECK_OK(fx_image_alloc(cpu, &src, 37, 53, 3, types[a]), cpu);
            fill_image(&src, 77 + (uint64_t)a);
            FXT_CHECK_OK(fx_image_alloc(cpu, &want, 37, 53, 3, types[b]), cpu);
            FXT_CHECK_OK(fx_image_alloc(cpu, &got, 37, 53, 3, types[b]), cpu);
            FXT_CHECK_OK(fx_image_convert(cpu, &src, &want, NULL), cpu);
            FXT_CHECK_OK(fx_image_alloc_device(gpu, &dsrc, 37, 53, 3, types[a]), gpu);
            FXT_CHECK_OK(fx_image_alloc_device(gpu, &ddst, 37, 53, 3, types[b]), gpu);
            FXT_CHECK_OK(fx_image_upload(gpu, &src, &dsrc), gpu);
            FXT_CHECK_OK(fx_image_convert(gpu, &dsrc, &ddst, NULL), gpu);
            FXT_CHECK_OK(fx_image_download(gpu, &ddst, &got), gpu);
            size_t bytes;
            FXT_CHECK_OK(fx_image_size(37, 53, 3, types[b], NULL, &bytes), NULL);
            FXT_CHECK(memcmp(want.data, got.data, bytes) == 0);
            ddst.stride += 4; /* padded rows: refused, not misread */
            FXT_CHECK_STATUS(fx_image_convert(gpu, &dsrc, &ddst, NULL), FX_EUNSUPPORTED, gpu);
            ddst.stride -= 4;
            FXT_CHECK_STATUS(fx_image_convert(gpu, &src, &ddst, NULL), FX_EINVAL, gpu);
            fx_image_free(&dsrc);
            fx_image_free(&ddst);
            fx_image_free(&src);
            fx_image_free(&want);
            fx_image_free(&got);
        }
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

GPU_TEST_MAIN(FXT_CASE(every_type_pair_matches_cpu), FXT_CASE(every_integer_value_matches_cpu),
              FXT_CASE(timings_and_errors), FXT_CASE(device_images_convert_on_the_device))
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
