/* GPU equalization against the CPU's bytes: every space, global and CLAHE, every
 * scale, 8 and 16 bits, 1 to 4 channels, bin counts, masks, padded strides, host
 * and device images, 16-bit CLAHE on large tiles with several bin counts and grids;
 * and the errors. */
#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA

typedef struct shape {
    int w, h;
} shape;
static const shape shapes[] = {{1, 1}, {37, 23}, {640, 3}, {3, 500}, {257, 129}};
#define SHAPE_COUNT 5

static void fill(fx_image *img, uint64_t seed)
{
    size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = fxt_rand(&seed);
            /* Mostly a smooth ramp with noise, so histograms have gaps and peaks. */
            uint32_t v = (uint32_t)((i * 7 + (size_t)y * 3 + (r >> 60)) % 256);
            if (img->type == FX_U8)
                row[i] = (uint8_t)v;
            else
                ((uint16_t *)(void *)row)[i] = (uint16_t)(v * 257 + (r >> 56));
        }
    }
}

/* CPU and GPU on the same input; 1 when the bytes are the same. */
static int same_on_both(fx_context *cpu, fx_context *gpu, const fx_equalize_options *o,
                        const fx_image *in)
{
    const int ch = fx_equalize_output_channels(o, in->channels);
    fx_image want = gpu_padded_image(in->width, in->height, ch, in->type, 0);
    fx_image got = gpu_padded_image(in->width, in->height, ch, in->type, 8);
    int ok = FXT_CHECK_OK(fx_equalize(cpu, o, in, &want, NULL), cpu) &&
             FXT_CHECK_OK(fx_equalize(gpu, o, in, &got, NULL), gpu) &&
             fxt_images_equal(&got, &want);
    free(want.data);
    free(got.data);
    return ok;
}

FXT_TEST(every_mode_matches_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const int bins8[] = {0, 64, 2}, bins16[] = {0, 65536, 1000};
    int cases = 0, bad = 0;
    for (int t = 0; t < 2; t++)
        for (int ch = 1; ch <= 4; ch++)
            for (int space = 0; space <= FX_EQ_SPACE_HSV_FLOAT; space++)
                for (int adaptive = 0; adaptive < 2; adaptive++)
                    for (int scale = 0; scale < 3; scale++)
                        for (int b = 0; b < 3; b++) {
                            const shape s = shapes[(ch + space + scale + b) % SHAPE_COUNT];
                            if (adaptive && scale) continue; /* scale is global only */
                            fx_image in = gpu_padded_image(s.w, s.h, ch, t ? FX_U16 : FX_U8,
                                                           (size_t)(ch % 2) * 6);
                            fill(&in, (uint64_t)(t * 1000 + ch * 100 + space * 10 + b));
                            fx_equalize_options o;
                            fx_equalize_options_init(&o);
                            o.space = space;
                            o.scale = scale;
                            o.bins = t ? bins16[b] : bins8[b];
                            o.adaptive = adaptive;
                            o.tiles = b == 2 ? "3x5" : "8x8";
                            o.clip = b == 1 ? 0.0 : 2.5;
                            o.gpu_block = b == 2 ? 96 : 0;
                            cases++;
                            if (!same_on_both(cpu, gpu, &o, &in)) {
                                bad++;
                                fprintf(stderr,
                                        "  %dx%dx%d %s space %d adaptive %d scale %d bins %d "
                                        "differs\n",
                                        s.w, s.h, ch, t ? "u16" : "u8", space, adaptive, scale,
                                        o.bins);
                            }
                            free(in.data);
                        }
    printf("  %d GPU cases, %d differ\n", cases, bad);
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

FXT_TEST(masks_and_constant_images_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    fx_image in = gpu_padded_image(211, 97, 3, FX_U8, 0);
    fill(&in, 3);
    fx_image mask = gpu_padded_image(211, 97, 1, FX_U8, 0);
    for (int i = 0; i < 211 * 97; i++)
        mask.data[i] = (uint8_t)(i % 7 == 0 ? 255 : 0);
    fx_equalize_options o;
    fx_equalize_options_init(&o);
    o.mask_image = &mask;
    for (int space = 0; space <= FX_EQ_SPACE_HSV_FLOAT; space++) {
        o.space = space;
        FXT_CHECK(same_on_both(cpu, gpu, &o, &in));
    }
    o.mask_image = NULL;
    memset(in.data, 77, in.stride * (size_t)in.height); /* constant: returned unchanged */
    for (int space = 0; space <= FX_EQ_SPACE_HSV_FLOAT; space++) {
        o.space = space;
        FXT_CHECK(same_on_both(cpu, gpu, &o, &in));
    }
    free(mask.data);
    free(in.data);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Device images: equalized where they are, the same bytes; timings of host runs. */
FXT_TEST(device_images_and_timings)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    fx_image host = gpu_padded_image(1024, 768, 3, FX_U8, 0), want = {0}, back = {0};
    fill(&host, 11);
    fx_equalize_options o;
    fx_equalize_options_init(&o);
    for (int adaptive = 0; adaptive < 2; adaptive++) {
        o.adaptive = adaptive;
        FXT_CHECK_OK(fx_equalize(cpu, &o, &host, &want, NULL), cpu);
        fx_image din = {0}, dout = {0};
        FXT_CHECK_OK(fx_image_alloc_device(gpu, &din, 1024, 768, 3, FX_U8), gpu);
        FXT_CHECK_OK(fx_image_upload(gpu, &host, &din), gpu);
        fx_timings t = {0};
        FXT_CHECK_OK(fx_equalize(gpu, &o, &din, &dout, &t), gpu);
        FXT_CHECK(dout.memory == FX_MEMORY_DEVICE && t.upload_ms == 0 && t.compute_ms > 0);
        FXT_CHECK_OK(fx_image_alloc(cpu, &back, 1024, 768, 3, FX_U8), cpu);
        FXT_CHECK_OK(fx_image_download(gpu, &dout, &back), gpu);
        FXT_CHECK(fxt_images_equal(&back, &want));
        memset(&t, 0, sizeof t);
        fx_image_free(&back);
        FXT_CHECK_OK(fx_equalize(gpu, &o, &host, &back, &t), gpu);
        FXT_CHECK(t.upload_ms > 0 && t.compute_ms > 0 && t.download_ms > 0);
        FXT_CHECK(fxt_images_equal(&back, &want));
        /* Mixed kinds and device images on a CPU context are refused. */
        FXT_CHECK_STATUS(fx_equalize(gpu, &o, &din, &back, NULL), FX_EINVAL, gpu);
        FXT_CHECK_CONTAINS(fx_context_error(gpu), "same kind");
        fx_image none = {0};
        FXT_CHECK_STATUS(fx_equalize(cpu, &o, &din, &none, NULL), FX_ENODEVICE, cpu);
        fx_image_free(&din);
        fx_image_free(&dout);
        fx_image_free(&back);
        fx_image_free(&want);
    }
    free(host.data);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Host images large enough for several staging bands (8 MiB each, 4 in flight, so
 * slots are reused; the fast kernels count and map band by band), padded strides, in
 * every space of the 8-bit fast kernels and the general ones (gray output, CLAHE); in
 * place too. */
FXT_TEST(host_images_in_many_bands_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    fx_image in = gpu_padded_image(4001, 3203, 3, FX_U8, 5);
    fill(&in, 21);
    fx_equalize_options o;
    fx_equalize_options_init(&o);
    for (int space = 0; space <= FX_EQ_SPACE_HSV_FLOAT; space++) {
        o.space = space;
        FXT_CHECK(same_on_both(cpu, gpu, &o, &in));
    }
    o.space = FX_EQ_SPACE_HSV;
    o.adaptive = 1;
    FXT_CHECK(same_on_both(cpu, gpu, &o, &in));
    o.adaptive = 0;
    fx_image want = gpu_padded_image(4001, 3203, 3, FX_U8, 0);
    FXT_CHECK_OK(fx_equalize(cpu, &o, &in, &want, NULL), cpu);
    FXT_CHECK_OK(fx_equalize(gpu, &o, &in, &in, NULL), gpu); /* in place */
    FXT_CHECK(fxt_images_equal(&in, &want));
    /* One channel: the fast gray kernels, band by band (5 bands of odd-width rows). */
    fx_image gray = gpu_padded_image(6007, 6007, 1, FX_U8, 3);
    fill(&gray, 22);
    o.space = FX_EQ_SPACE_GRAY;
    FXT_CHECK(same_on_both(cpu, gpu, &o, &gray));
    free(gray.data);
    free(want.data);
    free(in.data);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* 16-bit content for CLAHE: a full-range ramp with noise, a quarter of the pixels on
 * one level (a peak the clip limit cuts, so the clipped counts are redistributed over
 * the bins), and some black and white pixels (hsv's V = 0 and the top level). */
static void fill_u16_peaks(fx_image *img, uint64_t seed)
{
    const size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        uint16_t *row = (uint16_t *)(void *)fx_image_row(img, y);
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = fxt_rand(&seed);
            const size_t x = i / (size_t)img->channels;
            uint32_t v = (uint32_t)((x * 23 + (size_t)y * 41 + (r >> 52)) % 65536);
            if ((r & 3) == 0) v = 40000;
            if ((r & 0xFF0) == 0x10) v = 0;
            if ((r & 0xFF0) == 0x20) v = 65535;
            row[i] = (uint16_t)v;
        }
    }
}

/* CLAHE on 16-bit images large enough for big tiles, several histogram blocks a tile
 * and several staging bands (1531x997 RGB: 9.2 MB): hsv (the CLI's default) and gray,
 * the default 4096 bins and others (16384 and 65536 count in global memory instead of
 * shared), grids that divide the image and grids that pad it, three clip limits; host
 * images, and device images for the default. */
FXT_TEST(clahe_16bit_bins_and_grids_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const int bins[] = {0, 256, 1000, 16384, 65536};
    static const char *const grids[] = {"8x8", "16x16", "3x5", "1x1"};
    static const double clips[] = {40.0, 2.5, 0.0};
    int cases = 0, bad = 0;
    for (int channels = 1; channels <= 3; channels += 2) {
        fx_image in = gpu_padded_image(1531, 997, channels, FX_U16, 6);
        fill_u16_peaks(&in, (uint64_t)(500 + channels));
        for (size_t b = 0; b < sizeof bins / sizeof *bins; b++)
            for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
                fx_equalize_options o;
                fx_equalize_options_init(&o);
                o.adaptive = 1;
                o.bins = bins[b];
                o.tiles = grids[g];
                o.clip = clips[(b + g) % 3];
                cases++;
                if (!same_on_both(cpu, gpu, &o, &in)) {
                    bad++;
                    fprintf(stderr, "  16-bit CLAHE %d channels bins %d tiles %s clip %g differs\n",
                            channels, o.bins, o.tiles, o.clip);
                }
            }
        /* The default on device images: the same bytes. */
        fx_equalize_options o;
        fx_equalize_options_init(&o);
        o.adaptive = 1;
        fx_image want = {0}, din = {0}, dout = {0}, back = {0};
        FXT_CHECK_OK(fx_equalize(cpu, &o, &in, &want, NULL), cpu);
        FXT_CHECK_OK(fx_image_alloc_device(gpu, &din, in.width, in.height, channels, FX_U16), gpu);
        FXT_CHECK_OK(fx_image_upload(gpu, &in, &din), gpu);
        FXT_CHECK_OK(fx_equalize(gpu, &o, &din, &dout, NULL), gpu);
        FXT_CHECK_OK(fx_image_alloc(cpu, &back, in.width, in.height, channels, FX_U16), cpu);
        FXT_CHECK_OK(fx_image_download(gpu, &dout, &back), gpu);
        FXT_CHECK(fxt_images_equal(&back, &want));
        fx_image_free(&want);
        fx_image_free(&din);
        fx_image_free(&dout);
        fx_image_free(&back);
        free(in.data);
    }
    printf("  %d 16-bit CLAHE cases, %d differ\n", cases, bad);
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

GPU_TEST_MAIN(FXT_CASE(every_mode_matches_cpu), FXT_CASE(masks_and_constant_images_match_cpu),
              FXT_CASE(device_images_and_timings), FXT_CASE(host_images_in_many_bands_match_cpu),
              FXT_CASE(clahe_16bit_bins_and_grids_match_cpu))
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
