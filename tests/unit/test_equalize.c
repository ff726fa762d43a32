/* fxkit equalize against plain reference implementations written here: the
 * global LUT (OpenCV's float32 formula and the published scalers), N bins,
 * 16-bit, masks, every colour space, the published hsv-float pipeline, the CLAHE
 * arithmetic and grid, options and errors. */
#include <math.h>
#include <stdlib.h>

#include "equalize/equalize_internal.h"
#include "fxtest.h"

/* ---- test images ---- */

typedef enum pattern { RANDOM, CONSTANT, TWO_VALUES, BLACK, NARROW } pattern;

static fx_image make_image(fx_context *ctx, int w, int h, int ch, fx_sample_type t, pattern pat,
                           uint64_t seed)
{
    fx_image img;
    fx_image_alloc(ctx, &img, w, h, ch, t);
    const uint32_t maxval = t == FX_U8 ? 255u : 65535u;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * ch; x++) {
            uint64_t r = fxt_rand(&seed);
            uint32_t v = pat == RANDOM       ? (uint32_t)(r >> 40) % (maxval + 1)
                         : pat == CONSTANT   ? maxval / 3
                         : pat == TWO_VALUES ? ((r >> 60) & 1 ? maxval / 5 : maxval - 7)
                         : pat == BLACK      ? 0
                                             : maxval / 2 + (uint32_t)(r >> 40) % 9;
            if (t == FX_U8)
                ((uint8_t *)fx_image_row(&img, y))[x] = (uint8_t)v;
            else
                ((uint16_t *)fx_image_row(&img, y))[x] = (uint16_t)v;
        }
    return img;
}

static uint32_t sample(const fx_image *img, int x, int y, int c)
{
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    return img->type == FX_U8 ? ((const uint8_t *)fx_image_row(img, y))[i]
                              : ((const uint16_t *)fx_image_row(img, y))[i];
}

/* ---- reference: global LUT over bins, written from the formulas ---- */

static void reference_value_lut(const uint64_t *hist, uint32_t bins, uint32_t maxval, int scale,
                                uint32_t *vlut)
{
    uint64_t n = 0;
    uint32_t m = 0;
    for (uint32_t b = 0; b < bins; b++)
        n += hist[b];
    while (m < bins && !hist[m])
        m++;
    uint64_t base = scale == FX_EQ_SCALE_MINMAX ? hist[m] : scale == FX_EQ_SCALE_MMS ? hist[0] : 0;
    int unchanged = scale == FX_EQ_SCALE_MINMAX ? hist[m] == n
                    : scale == FX_EQ_SCALE_MMS  ? hist[0] == n
                                                : 0;
    uint32_t levels = maxval + 1;
    uint64_t *cumulative = malloc(bins * sizeof *cumulative);
    for (uint32_t b = 0, sum = 0; b < bins; b++)
        cumulative[b] = sum += (uint32_t)hist[b];
    for (uint32_t v = 0; v < levels; v++) {
        uint64_t cdf = cumulative[(uint64_t)v * bins / levels];
        if (unchanged) {
            vlut[v] = v;
        } else if (cdf <= base) {
            vlut[v] = 0;
        } else {
            float scale_f = (float)maxval / (float)(n - base); /* OpenCV: float32 */
            long r = lrintf((float)(cdf - base) * scale_f);
            vlut[v] = (uint32_t)(r > (long)maxval ? maxval : r);
        }
    }
    free(cumulative);
}

/* Histogram of plane `key` (a function of the pixel) over masked pixels. */
typedef uint32_t (*key_fn)(const fx_image *img, int x, int y, int plane);

static uint32_t key_channel(const fx_image *img, int x, int y, int plane)
{
    return sample(img, x, y, plane);
}

static uint32_t key_max(const fx_image *img, int x, int y, int plane)
{
    (void)plane;
    uint32_t r = sample(img, x, y, 0), g = sample(img, x, y, 1), b = sample(img, x, y, 2);
    return r > g ? (r > b ? r : b) : (g > b ? g : b);
}

static void reference_lut_for(const fx_image *img, const uint8_t *mask, key_fn key, int plane,
                              uint32_t bins, int scale, uint32_t *vlut)
{
    const uint32_t maxval = img->type == FX_U8 ? 255 : 65535;
    uint64_t *hist = calloc(bins, sizeof *hist);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            if (!mask || mask[(size_t)y * (size_t)img->width + (size_t)x])
                hist[(uint64_t)key(img, x, y, plane) * bins / (maxval + 1)]++;
    reference_value_lut(hist, bins, maxval, scale, vlut);
    free(hist);
}

static fx_equalize_options options(int space, int bins, int scale)
{
    fx_equalize_options o;
    fx_equalize_options_init(&o);
    o.space = space;
    o.bins = bins;
    o.scale = scale;
    return o;
}

static int count_mismatches(const fx_image *a, const fx_image *want_ref, int channels,
                            uint32_t (*want)(const fx_image *in, int x, int y, int c, void *arg),
                            void *arg)
{
    int bad = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < channels; c++)
                bad += sample(a, x, y, c) != want(want_ref, x, y, c, arg);
    return bad;
}

typedef struct lut_arg {
    uint32_t *vlut[3];
} lut_arg;

static uint32_t want_gray(const fx_image *in, int x, int y, int c, void *arg)
{
    const lut_arg *l = arg;
    return c == 0 ? l->vlut[0][sample(in, x, y, 0)] : sample(in, x, y, c);
}

static uint32_t want_rgb(const fx_image *in, int x, int y, int c, void *arg)
{
    const lut_arg *l = arg;
    return c < 3 ? l->vlut[c][sample(in, x, y, c)] : sample(in, x, y, c);
}

static uint32_t want_hsv(const fx_image *in, int x, int y, int c, void *arg)
{
    const lut_arg *l = arg;
    if (c == 3) return sample(in, x, y, 3);
    uint32_t v = key_max(in, x, y, 0), v2 = l->vlut[0][v];
    if (v == 0) return 0;
    return (uint32_t)floor((double)sample(in, x, y, c) * v2 / v + 0.5); /* round half up */
}

/* OpenCV's RGB->YCrCb->RGB (color_yuv, 14-bit fixed point), transcribed here with
 * Y replaced by the LUT's. */
static uint32_t key_luma(const fx_image *img, int x, int y, int plane)
{
    (void)plane;
    uint32_t r = sample(img, x, y, 0), g = sample(img, x, y, 1), b = sample(img, x, y, 2);
    return (r * 4899 + g * 9617 + b * 1868 + 8192) >> 14;
}

static int32_t clamp255(int32_t v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

static uint32_t want_luma(const fx_image *in, int x, int y, int c, void *arg)
{
    const lut_arg *l = arg;
    if (c == 3) return sample(in, x, y, 3);
    const int32_t r = (int32_t)sample(in, x, y, 0), b = (int32_t)sample(in, x, y, 2);
    const int32_t yy = (int32_t)key_luma(in, x, y, 0), y2 = (int32_t)l->vlut[0][yy];
    const int32_t cr = clamp255(((r - yy) * 11682 + (128 << 14) + 8192) >> 14) - 128;
    const int32_t cb = clamp255(((b - yy) * 9241 + (128 << 14) + 8192) >> 14) - 128;
    const int32_t d = c == 0   ? (cr * 22987 + 8192) >> 14
                      : c == 1 ? (cb * -5636 + cr * -11698 + 8192) >> 14
                               : (cb * 29049 + 8192) >> 14;
    return (uint32_t)clamp255(y2 + d);
}

static const int sizes[][2] = {{1, 1}, {7, 1}, {1, 9}, {37, 23}, {64, 64}, {101, 3}};
static const pattern patterns[] = {RANDOM, CONSTANT, TWO_VALUES, BLACK, NARROW};

/* Gray (1 and 2 channels), every scale, several bin counts, 8 and 16 bits, all
 * patterns and sizes, with and without a mask. */
FXT_TEST(gray_matches_reference_lut)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    static const int bins8[] = {0, 256, 64, 2, 255}, bins16[] = {0, 65536, 4096, 1000, 3};
    int cases = 0, bad = 0;
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 6; s++)
            for (int p = 0; p < 5; p++)
                for (int scale = 0; scale < 3; scale++)
                    for (int b = 0; b < 5; b++)
                        for (int masked = 0; masked < 2; masked++) {
                            const fx_sample_type type = t ? FX_U16 : FX_U8;
                            const int w = sizes[s][0], h = sizes[s][1], ch = 1 + (p + b) % 2;
                            const int bins = t ? bins16[b] : bins8[b];
                            fx_image in = make_image(ctx, w, h, ch, type, patterns[p],
                                                     (uint64_t)(s * 100 + p * 10 + b));
                            fx_image mask = make_image(ctx, w, h, 1, FX_U8, RANDOM, 99);
                            mask.data[0] = 1; /* never empty */
                            uint8_t *bits = malloc((size_t)w * (size_t)h);
                            for (int i = 0; i < w * h; i++)
                                bits[i] = masked ? mask.data[i] != 0 : 1;
                            fx_equalize_options o = options(FX_EQ_SPACE_HSV, bins, scale);
                            if (masked) o.mask_image = &mask;
                            fx_image out = {0};
                            uint32_t levels = t ? 65536 : 256;
                            uint32_t *vlut = malloc(levels * sizeof *vlut);
                            reference_lut_for(&in, bits, key_channel, 0,
                                              bins ? (uint32_t)bins : (t ? 4096u : 256u), scale,
                                              vlut);
                            lut_arg arg = {{vlut, vlut, vlut}};
                            if (FXT_CHECK_OK(fx_equalize(ctx, &o, &in, &out, NULL), ctx)) {
                                cases++;
                                int m = count_mismatches(&out, &in, ch, want_gray, &arg);
                                if (m)
                                    fprintf(stderr,
                                            "  %dx%dx%d %s pattern %d scale %d bins %d "
                                            "mask %d: %d differ\n",
                                            w, h, ch, fx_sample_type_name(type), p, scale, bins,
                                            masked, m);
                                bad += m != 0;
                            }
                            free(vlut);
                            free(bits);
                            fx_image_free(&out);
                            fx_image_free(&mask);
                            fx_image_free(&in);
                        }
    printf("  %d gray cases, %d differ\n", cases, bad);
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(ctx);
}

/* hsv, rgb and alpha: per-channel and V-ratio references. */
FXT_TEST(colour_spaces_match_references)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    int bad = 0;
    for (int t = 0; t < 2; t++)
        for (int ch = 3; ch <= 4; ch++)
            for (int p = 0; p < 5; p++)
                for (int scale = 0; scale < 3; scale++) {
                    const fx_sample_type type = t ? FX_U16 : FX_U8;
                    const uint32_t levels = t ? 65536 : 256, bins = t ? 4096 : 256;
                    fx_image in = make_image(ctx, 45, 29, ch, type, patterns[p], (uint64_t)p);
                    uint32_t *v[3];
                    for (int k = 0; k < 3; k++)
                        v[k] = malloc(levels * sizeof *v[k]);
                    fx_image out = {0};
                    fx_equalize_options o = options(FX_EQ_SPACE_HSV, 0, scale);
                    reference_lut_for(&in, NULL, key_max, 0, bins, scale, v[0]);
                    lut_arg arg = {{v[0], v[0], v[0]}};
                    FXT_CHECK_OK(fx_equalize(ctx, &o, &in, &out, NULL), ctx);
                    bad += count_mismatches(&out, &in, ch, want_hsv, &arg) != 0;
                    fx_image_free(&out);

                    o = options(FX_EQ_SPACE_RGB, 0, scale);
                    for (int k = 0; k < 3; k++)
                        reference_lut_for(&in, NULL, key_channel, k, bins, scale, v[k]);
                    lut_arg rgb = {{v[0], v[1], v[2]}};
                    FXT_CHECK_OK(fx_equalize(ctx, &o, &in, &out, NULL), ctx);
                    bad += count_mismatches(&out, &in, ch, want_rgb, &rgb) != 0;
                    fx_image_free(&out);
                    for (int k = 0; k < 3; k++)
                        free(v[k]);
                    fx_image_free(&in);
                }
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(ctx);
}

/* 8-bit RGB, 256 bins, no mask takes the SIMD paths (8 pixels a step, a scalar
 * tail): widths around the step, both spaces, against the references. */
FXT_TEST(fast_rgb_paths_match_references)
{
    static const int widths[] = {1, 7, 8, 9, 10, 11, 17, 18, 203, 1001};
    static const pattern pats[] = {RANDOM, TWO_VALUES, NARROW, BLACK};
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    uint32_t *v = malloc(256 * sizeof *v);
    int bad = 0;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (size_t q = 0; q < sizeof pats / sizeof *pats; q++)
            for (int luma = 0; luma < 2; luma++) {
                fx_image in = make_image(ctx, widths[w], 5, 3, FX_U8, pats[q], (uint64_t)w + 11);
                fx_equalize_options o =
                    options(luma ? FX_EQ_SPACE_LUMA : FX_EQ_SPACE_HSV, 0, FX_EQ_SCALE_MINMAX);
                reference_lut_for(&in, NULL, luma ? key_luma : key_max, 0, 256, FX_EQ_SCALE_MINMAX,
                                  v);
                lut_arg arg = {{v, v, v}};
                fx_image out = {0};
                FXT_CHECK_OK(fx_equalize(ctx, &o, &in, &out, NULL), ctx);
                int n = count_mismatches(&out, &in, 3, luma ? want_luma : want_hsv, &arg);
                if (n)
                    fprintf(stderr, "  width %d pattern %d luma %d: %d differ\n", widths[w],
                            (int)pats[q], luma, n);
                bad += n;
                fx_image_free(&out);
                fx_image_free(&in);
            }
    FXT_CHECK_EQ(bad, 0);
    free(v);
    fx_context_destroy(ctx);
}

/* An RGB image whose channels are equal is a gray image in every space (global and
 * CLAHE): V = Y = each channel, and the way back is exact. Except that hsv keeps
 * black pixels black (V = 0 has no hue to scale), where CLAHE may lift gray 0. */
FXT_TEST(gray_valued_colour_equals_gray)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    fx_image gray = make_image(ctx, 53, 41, 1, FX_U8, RANDOM, 5), rgb;
    fx_image_alloc(ctx, &rgb, 53, 41, 3, FX_U8);
    for (int i = 0; i < 53 * 41; i++)
        rgb.data[3 * i] = rgb.data[3 * i + 1] = rgb.data[3 * i + 2] = gray.data[i];
    static const int spaces[] = {FX_EQ_SPACE_HSV, FX_EQ_SPACE_LUMA, FX_EQ_SPACE_RGB,
                                 FX_EQ_SPACE_GRAY};
    for (int adaptive = 0; adaptive < 2; adaptive++) {
        fx_equalize_options o = options(FX_EQ_SPACE_HSV, 0, 0);
        o.adaptive = adaptive;
        o.tiles = "3x4";
        o.clip = 2.0;
        fx_image want = {0};
        FXT_CHECK_OK(fx_equalize(ctx, &o, &gray, &want, NULL), ctx);
        for (int s = 0; s < 4; s++) {
            o.space = spaces[s];
            fx_image got = {0};
            FXT_CHECK_OK(fx_equalize(ctx, &o, &rgb, &got, NULL), ctx);
            int bad = 0;
            for (int i = 0; i < 53 * 41; i++)
                for (int c = 0; c < got.channels; c++) {
                    int black = spaces[s] == FX_EQ_SPACE_HSV && gray.data[i] == 0;
                    bad += got.data[i * got.channels + c] != (black ? 0 : want.data[i]);
                }
            if (bad)
                fprintf(stderr, "  space %d adaptive %d: %d differ\n", spaces[s], adaptive, bad);
            FXT_CHECK_EQ(bad, 0);
            fx_image_free(&got);
        }
        fx_image_free(&want);
    }
    fx_image_free(&gray);
    fx_image_free(&rgb);
    fx_context_destroy(ctx);
}

/* ---- hsv-float: the published pipeline, transcribed pass by pass ---- */

static void published_pipeline(const uint8_t *rgb, uint8_t *out, int n, int bins, int method)
{
    float *hsv = malloc((size_t)n * 3 * sizeof *hsv);
    int *hist = calloc((size_t)bins, sizeof *hist);
    float *cdf = malloc((size_t)bins * sizeof *cdf);
    for (int i = 0; i < n; i++) { /* _rgb2hsv */
        float r = (float)(rgb[3 * i] / 255.), g = (float)(rgb[3 * i + 1] / 255.),
              b = (float)(rgb[3 * i + 2] / 255.);
        float v = fmaxf(fmaxf(r, g), b), vmin = fminf(fminf(r, g), b), h = 0;
        float s = (float)(1. - (double)(vmin / v));
        if (v == vmin)
            h = 0;
        else if (v == r)
            h = 60 * (g - b) / (v - vmin);
        else if (v == g)
            h = 120 + 60 * (b - r) / (v - vmin);
        else
            h = 240 + 60 * (r - g) / (v - vmin);
        if (h < 0) h += 360;
        hsv[3 * i] = h, hsv[3 * i + 1] = s, hsv[3 * i + 2] = v;
    }
    for (int i = 0; i < n; i++) /* histogram */
        hist[(int)roundf(hsv[3 * i + 2] * (float)(bins - 1))] += 1;
    cdf[0] = (float)((1 - method) * hist[0]); /* repart */
    for (int i = 1; i < bins; i++)
        cdf[i] = cdf[i - 1] + (float)hist[i];
    for (int i = 0; i < bins; i++) /* equalization_v2 */
        cdf[i] = cdf[i] / cdf[bins - 1];
    for (int i = 0; i < n; i++)
        hsv[3 * i + 2] = cdf[(int)roundf(hsv[3 * i + 2] * (float)(bins - 1))];
    for (int i = 0; i < n; i++) { /* _hsv2rgb; black pixels (NaN) -> black */
        float h = hsv[3 * i], s = hsv[3 * i + 1], v = hsv[3 * i + 2], r, g, b;
        if (isnan(s)) {
            out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 0;
            continue;
        }
        float c = v * s, m = v - c;
        h = h / 60;
        int hi = (int)h;
        float mod = (float)(hi % 2) + (h - (float)hi);
        float x = c * (1 - fabsf(mod - 1));
        if (h < 1)
            r = c, g = x, b = 0;
        else if (h < 2)
            r = x, g = c, b = 0;
        else if (h < 3)
            r = 0, g = c, b = x;
        else if (h < 4)
            r = 0, g = x, b = c;
        else if (h < 5)
            r = x, g = 0, b = c;
        else
            r = c, g = 0, b = x;
        out[3 * i] = (uint8_t)roundf((r + m) * 255);
        out[3 * i + 1] = (uint8_t)roundf((g + m) * 255);
        out[3 * i + 2] = (uint8_t)roundf((b + m) * 255);
    }
    free(hsv);
    free(hist);
    free(cdf);
}

FXT_TEST(hsv_float_reproduces_the_published_pipeline)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    static const int bins[] = {256, 100, 16};
    int bad = 0;
    for (int p = 0; p < 5; p++)
        for (int b = 0; b < 3; b++)
            for (int method = 0; method < 2; method++) {
                fx_image in = make_image(ctx, 61, 37, 3, FX_U8, patterns[p], (uint64_t)(p + 40));
                in.data[0] = in.data[1] = in.data[2] = 0; /* one black pixel */
                const int n = 61 * 37;
                uint8_t *want = malloc((size_t)n * 3);
                published_pipeline(in.data, want, n, bins[b], method);
                fx_equalize_options o = options(FX_EQ_SPACE_HSV_FLOAT, bins[b],
                                                method ? FX_EQ_SCALE_MMS : FX_EQ_SCALE_MAS);
                fx_image out = {0};
                FXT_CHECK_OK(fx_equalize(ctx, &o, &in, &out, NULL), ctx);
                int diff = 0;
                for (int i = 0; i < n * 3; i++)
                    diff += out.data[i] != want[i];
                /* The published mms divides 0 by 0 when every pixel is in bin 0. */
                if (diff && !(method && patterns[p] == BLACK)) {
                    fprintf(stderr, "  pattern %d bins %d method %d: %d differ\n", p, bins[b],
                            method, diff);
                    bad++;
                }
                free(want);
                fx_image_free(&out);
                fx_image_free(&in);
            }
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(ctx);
}

/* ---- CLAHE arithmetic and grid ---- */

/* OpenCV's borderInterpolate for BORDER_REFLECT_101, transcribed. */
static int border_interpolate(int p, int len)
{
    if ((unsigned)p < (unsigned)len) return p;
    if (len == 1) return 0;
    do {
        if (p < 0)
            p = -p - 1 + 1;
        else
            p = len - 1 - (p - len) - 1;
    } while ((unsigned)p >= (unsigned)len);
    return p;
}

FXT_TEST(clahe_helpers_match_opencv_loops)
{
    for (int len = 1; len < 20; len++)
        for (int p = -3 * len; p < 4 * len; p++)
            FXT_CHECK_EQ(fxi_reflect101(p, len), border_interpolate(p, len));
    /* The residual loop of OpenCV's clip step, against the closed form. */
    static const uint32_t bins_list[] = {2, 3, 256, 1000, 4096};
    for (int bi = 0; bi < 5; bi++) {
        uint32_t bins = bins_list[bi];
        for (uint32_t residual = 0; residual < bins; residual += 1 + residual / 7) {
            uint8_t *hit = calloc(bins, 1);
            uint32_t step = residual ? (bins / residual > 1 ? bins / residual : 1) : 1,
                     left = residual;
            for (uint32_t i = 0; i < bins && left > 0; i += step, left--)
                hit[i] = 1;
            int bad = 0;
            for (uint32_t i = 0; i < bins; i++)
                bad += (int)hit[i] != fxi_residual_hit(i, residual, bins);
            FXT_CHECK_EQ(bad, 0);
            free(hit);
        }
    }
    FXT_CHECK_EQ(fxi_clahe_clip_limit(40.0, 4096, 256), 640);
    FXT_CHECK_EQ(fxi_clahe_clip_limit(0.01, 64, 256), 1);
    FXT_CHECK_EQ(fxi_clahe_clip_limit(0.0, 4096, 256), 0);
    FXT_CHECK_EQ(fxi_floor_int(-0.5f), -1);
    FXT_CHECK_EQ(fxi_floor_int(2.0f), 2);
}

FXT_TEST(clahe_grid_follows_opencv)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fxi_clahe_grid g;
    FXT_CHECK_OK(fxi_clahe_grid_make(ctx, 512, 512, 8, 8, &g), ctx);
    FXT_CHECK(g.padded_w == 512 && g.padded_h == 512 && g.tile_w == 64 && g.tile_h == 64);
    FXT_CHECK_OK(fxi_clahe_grid_make(ctx, 500, 375, 8, 8, &g), ctx); /* research §3.7 */
    FXT_CHECK(g.padded_w == 504 && g.padded_h == 376 && g.tile_w == 63 && g.tile_h == 47);
    FXT_CHECK_OK(fxi_clahe_grid_make(ctx, 512, 500, 8, 8, &g), ctx); /* the quirk */
    FXT_CHECK(g.padded_w == 520 && g.padded_h == 504 && g.tile_w == 65 && g.tile_h == 63);
    FXT_CHECK_OK(fxi_clahe_grid_make(ctx, 3, 1, 8, 8, &g), ctx);
    FXT_CHECK(g.tile_w == 1 && g.tile_h == 1 && g.padded_w == 8 && g.padded_h == 8);
    int tx, ty;
    FXT_CHECK_OK(fxi_parse_tiles(ctx, "12x3", &tx, &ty), ctx);
    FXT_CHECK(tx == 12 && ty == 3);
    FXT_CHECK_STATUS(fxi_parse_tiles(ctx, "8", &tx, &ty), FX_EINVAL, ctx);
    FXT_CHECK_STATUS(fxi_parse_tiles(ctx, "8x", &tx, &ty), FX_EINVAL, ctx);
    FXT_CHECK_STATUS(fxi_parse_tiles(ctx, "0x8", &tx, &ty), FX_ERANGE, ctx);
    FXT_CHECK_STATUS(fxi_parse_tiles(ctx, "8x257", &tx, &ty), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--tiles");
    fx_context_destroy(ctx);
}

/* Every row of every tile is covered by exactly one block; blocks fill the GPU. */
FXT_TEST(gpu_geometry_covers_every_row_once)
{
    static const int heights[] = {1, 2, 7, 63, 64, 1000, 6000};
    static const int tiles[] = {1, 4, 64, 65536};
    for (int h = 0; h < 7; h++)
        for (int t = 0; t < 4; t++)
            for (int sms = 1; sms <= 132; sms += 131) {
                fxi_eq_hist_launch l = fxi_eq_hist_geometry(heights[h], tiles[t], 256, sms, 4);
                FXT_CHECK(l.slices >= 1 && l.rows_per_block >= 1);
                FXT_CHECK((long)l.slices * l.rows_per_block >= heights[h]);
                FXT_CHECK((long)(l.slices - 1) * l.rows_per_block < heights[h]);
                FXT_CHECK_EQ(l.tiles, tiles[t]);
            }
    FXT_CHECK_EQ(fxi_eq_scan_threads(256, 1024), 256);
    FXT_CHECK_EQ(fxi_eq_scan_threads(65536, 1024), 1024);
    FXT_CHECK_EQ(fxi_eq_scan_threads(2, 1024), 32);
    FXT_CHECK_EQ(fxi_eq_scan_threads(65536, 96), 64);
    /* A row grid: at least one block each way, grid rows within the image and the
     * grid's y limit, as many blocks along a row as it needs up to the cap, and no
     * more blocks in all than the cap plus one grid row. */
    static const int widths[] = {1, 5, 4096, 10000, 1 << 20};
    static const unsigned blocks[] = {64, 256, 1024};
    for (int w = 0; w < 5; w++)
        for (int h = 0; h < 7; h++)
            for (int b = 0; b < 3; b++)
                for (int sms = 1; sms <= 132; sms += 131) {
                    unsigned gx, gy;
                    const unsigned cap = fxi_eq_fast_blocks(blocks[b], sms);
                    FXT_CHECK_EQ(cap, (unsigned)sms * (FXI_EQ_FAST_THREADS_PER_SM / blocks[b]));
                    fxi_eq_row_grid((size_t)widths[w], heights[h], blocks[b], cap, &gx, &gy);
                    const unsigned need = ((unsigned)widths[w] + blocks[b] - 1) / blocks[b];
                    FXT_CHECK(gx >= 1 && gy >= 1 && gy <= (unsigned)heights[h] &&
                              gy <= FXI_EQ_MAX_GRID_Y);
                    FXT_CHECK(gx == (need < cap ? need : cap));
                    FXT_CHECK((unsigned long)gx * gy <= cap + gx);
                }
}

/* The fast GPU passes' groups of a row segment: at every address modulo 16, for one
 * and three channels and lengths around multiples of 16, the fxi_eq_fast_units groups
 * cover each pixel exactly once; every vector group is 16 whole pixels starting on a
 * 16-byte boundary; the head is never a vector and at most 15 pixels. Then the fast
 * grids: at least one block, within the GPU-filling cap, enough threads for the items
 * when under it; the counting geometry covers each tile's rows; CLAHE's shared LUTs. */
FXT_TEST(gpu_fast_groups_cover_each_pixel_once)
{
    static const int lengths[] = {0, 1, 2, 3, 5, 11, 15, 16, 17, 31, 32, 33, 47, 100, 1250, 10000};
    static int seen[10000];
    int bad = 0;
    for (int ch = 1; ch <= 3; ch += 2)
        for (uintptr_t base = 4096; base < 4096 + 16; base++)
            for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
                const int pixels = lengths[l];
                const unsigned units = fxi_eq_fast_units(pixels);
                memset(seen, 0, sizeof seen);
                bad += pixels == 0 ? units != 0 : units < 2;
                for (unsigned u = 0; u < units; u++) {
                    const fxi_eq_group g = fxi_eq_group_of(base, ch, pixels, u);
                    if (g.n <= 0) continue;
                    bad += g.x0 < 0 || g.x0 + g.n > pixels;
                    if (u == 0) bad += g.vector || g.x0 != 0 || g.n > 15;
                    if (g.vector)
                        bad += g.n != FXI_EQ_VECTOR_PIXELS ||
                               (base + (uintptr_t)g.x0 * (uintptr_t)ch) % 16 != 0;
                    else
                        bad += u != 0 && g.x0 + g.n != pixels; /* only the last is short */
                    for (int x = g.x0; x < g.x0 + g.n && x < pixels; x++)
                        seen[x]++;
                }
                for (int x = 0; x < pixels; x++)
                    bad += seen[x] != 1;
                /* The head ends where the vectors start: the next pixel is aligned. */
                const int head = fxi_eq_head_pixels(base, ch);
                bad += head < 0 || head > 15 || (base + (uintptr_t)head * (uintptr_t)ch) % 16 != 0;
            }
    FXT_CHECK_EQ(bad, 0);

    static const size_t items[] = {0, 1, 255, 256, 257, 3756000, (size_t)1 << 33};
    static const unsigned blocks[] = {32, 96, 256, 1024};
    for (int i = 0; i < 7; i++)
        for (int b = 0; b < 4; b++)
            for (int sms = 1; sms <= 132; sms += 131) {
                const unsigned n = fxi_eq_fast_grid(items[i], blocks[b], sms);
                const unsigned cap = fxi_eq_fast_blocks(blocks[b], sms);
                FXT_CHECK(n >= 1 && n <= cap);
                FXT_CHECK(n == cap || (size_t)n * blocks[b] >= items[i]);
                FXT_CHECK(items[i] == 0 || (size_t)(n - 1) * blocks[b] < items[i]);
            }
    static const int heights[] = {1, 2, 37, 750, 6000};
    static const int tiles[] = {1, 64, 65536};
    for (int h = 0; h < 5; h++)
        for (int t = 0; t < 3; t++)
            for (int resident = 0; resident <= 6; resident += 6) {
                const fxi_eq_hist_launch l =
                    fxi_eq_fast_hist_geometry(heights[h], tiles[t], 256, 132, resident);
                /* at least a slice a tile, at most a slice a row, one wave at most */
                FXT_CHECK(l.slices >= 1 && l.slices <= (unsigned)heights[h] &&
                          l.tiles == (unsigned)tiles[t]);
                FXT_CHECK(l.slices == 1 ||
                          (uint64_t)l.slices * l.tiles <= 132u * (resident ? 6u : 8u));
            }
    /* 10000x6000 in one tile: the GPU's 8 blocks an SM, a whole wave of them. */
    FXT_CHECK_EQ(fxi_eq_fast_hist_geometry(6000, 1, 256, 132, 0).slices, 1056);
    /* Six resident blocks an SM (the lane columns' shared memory): one wave of 792. */
    FXT_CHECK_EQ(fxi_eq_fast_hist_geometry(6000, 1, 256, 132, 6).slices, 792);
    /* More resident than wanted changes nothing. */
    FXT_CHECK_EQ(fxi_eq_fast_hist_geometry(6000, 1, 256, 132, 16).slices, 1056);
    /* CLAHE's 8x8 tiles: 12 slices each, 768 blocks in 792 places (not 13: a wave and a bit). */
    FXT_CHECK_EQ(fxi_eq_fast_hist_geometry(750, 64, 256, 132, 6).slices, 12);
    FXT_CHECK(fxi_eq_clahe_luts_fit(64, FXI_EQ_GPU_CLAHE_LUT_SHARED_BYTES));
    FXT_CHECK(fxi_eq_clahe_luts_fit(192, FXI_EQ_GPU_CLAHE_LUT_SHARED_BYTES));
    FXT_CHECK(!fxi_eq_clahe_luts_fit(193, FXI_EQ_GPU_CLAHE_LUT_SHARED_BYTES));
    FXT_CHECK(!fxi_eq_clahe_luts_fit(0, FXI_EQ_GPU_CLAHE_LUT_SHARED_BYTES));
}

/* The counting pass's slices of a tile's thread steps: in order, each step once, sizes
 * within one of each other (equal blocks, so no SM waits on another's longer share). */
FXT_TEST(gpu_count_slices_cover_every_step_once)
{
    static const uint64_t steps[] = {1, 2, 7, 1000, 3750000, (uint64_t)1 << 40};
    static const unsigned slices[] = {1, 2, 3, 792, 1056, 65535};
    for (int s = 0; s < 6; s++)
        for (int n = 0; n < 6; n++) {
            uint64_t next = 0, shortest = UINT64_MAX, longest = 0;
            for (unsigned k = 0; k < slices[n]; k++) {
                uint64_t begin, end;
                fxi_eq_slice_steps(steps[s], slices[n], k, &begin, &end);
                if (!FXT_CHECK(begin == next && end >= begin)) break;
                next = end;
                shortest = end - begin < shortest ? end - begin : shortest;
                longest = end - begin > longest ? end - begin : longest;
            }
            FXT_CHECK_EQ(next, steps[s]);
            FXT_CHECK(longest - shortest <= 1);
        }
}

/* The fused launch's thread walks: one division where a walk starts, then each step on
 * is the row and unit the division gives, for strides below, at and above a row and
 * across many rows; its units of work, which deal every step once; and its grid: as many
 * blocks as are resident together, at most its threads an SM, no more than the steps
 * need, none where no block fits. */
FXT_TEST(gpu_fused_walks_units_and_grid)
{
    static const unsigned units[] = {1, 2, 13, 625, 1875, 70000};
    static const size_t strides[] = {1, 7, 256, 625, 1250, 3000001};
    int bad = 0;
    for (int u = 0; u < 6; u++)
        for (int st = 0; st < 6; st++)
            for (size_t start = 0; start < 3; start++) {
                const size_t i0 = start * 977u + strides[st] * 40u;
                fxi_eq_walk on = fxi_eq_walk_at(i0, strides[st], units[u]);
                for (size_t k = 1; k <= 40; k++) {
                    fxi_eq_walk_on(&on);
                    const size_t up = i0 + k * strides[st];
                    bad += on.row != up / units[u] || on.unit != up % units[u];
                }
            }
    FXT_CHECK_EQ(bad, 0);

    /* The dealt units: every step of the image once, whatever the image's size, the
     * steps a thread and the block (a bit a step). */
    static const size_t image_steps[] = {1, 255, 256, 257, 767, 768, 769, 5000, 20011};
    static const unsigned steps[] = {1, 2, 3, 4, 6};
    static const unsigned blocks[] = {1, 32, 256};
    unsigned char *seen = malloc(20011);
    FXT_CHECK(seen != NULL);
    for (int z = 0; seen && z < 9; z++)
        for (int s = 0; s < 5; s++)
            for (int b = 0; b < 3; b++) {
                const size_t items = image_steps[z];
                memset(seen, 0, items);
                const unsigned n_units = fxi_eq_deal_units(items, steps[s], blocks[b]);
                FXT_CHECK((size_t)n_units * steps[s] * blocks[b] >= items);
                FXT_CHECK((size_t)(n_units - 1) * steps[s] * blocks[b] < items);
                for (unsigned c = 0; c < n_units; c++)
                    for (unsigned x = 0; x < blocks[b]; x++) {
                        size_t i;
                        const unsigned n = fxi_eq_unit_steps(items, c, steps[s], blocks[b], x, &i);
                        bad += n > steps[s];
                        for (unsigned k = 0; k < n; k++, i += blocks[b])
                            bad += i >= items || seen[i]++ != 0;
                        /* the thread's steps past n are past the image */
                        bad += n < steps[s] && i < items;
                    }
                for (size_t i = 0; i < items; i++)
                    bad += seen[i] != 1;
            }
    free(seen);
    FXT_CHECK_EQ(bad, 0);

    /* 10000x6000 RGB (625 steps a row), 3 blocks of 256 resident: 3 an SM, 396 in all */
    FXT_CHECK_EQ(fxi_eq_fused_grid(6000u * 625u, 256, 132, 3), 396);
    /* more resident than FXI_EQ_GPU_FUSED_THREADS_PER_SM wants: still 768 threads an SM */
    FXT_CHECK_EQ(fxi_eq_fused_grid(6000u * 625u, 256, 132, 8), 132u * (768u / 256u));
    /* fewer resident: what fits */
    FXT_CHECK_EQ(fxi_eq_fused_grid(6000u * 625u, 256, 132, 2), 264);
    /* a small image: the blocks its steps need, at least one */
    FXT_CHECK_EQ(fxi_eq_fused_grid(768, 256, 132, 3), 3);
    FXT_CHECK_EQ(fxi_eq_fused_grid(1, 256, 132, 3), 1);
    FXT_CHECK_EQ(fxi_eq_fused_grid(0, 256, 132, 3), 1);
    /* no block fits: no fused launch */
    FXT_CHECK_EQ(fxi_eq_fused_grid(6000u * 625u, 256, 132, 0), 0);
}

/* Host-image staging bands: each fits its buffer (unless one row is larger), and the
 * bands cover every row once. */
FXT_TEST(gpu_staging_bands_cover_every_row_once)
{
    static const int heights[] = {1, 2, 7, 279, 280, 6000};
    static const size_t row_bytes[] = {1, 3, 30000, (size_t)8 << 20, ((size_t)8 << 20) + 1};
    const size_t band_bytes = (size_t)8 << 20;
    for (int h = 0; h < 6; h++)
        for (int r = 0; r < 5; r++) {
            const int band = fxi_eq_band_rows(row_bytes[r], band_bytes, heights[h]);
            FXT_CHECK(band >= 1 && band <= heights[h]);
            FXT_CHECK(band == 1 || (size_t)band * row_bytes[r] <= band_bytes);
            FXT_CHECK(band == heights[h] || (size_t)(band + 1) * row_bytes[r] > band_bytes);
            int covered = 0, bands = 0;
            for (int y0 = 0; y0 < heights[h]; y0 += band, bands++) {
                const int rows = fxi_eq_band_height(y0, band, heights[h]);
                FXT_CHECK(rows >= 1 && rows <= band);
                FXT_CHECK_EQ(y0, covered);
                covered += rows;
            }
            FXT_CHECK_EQ(covered, heights[h]);
            FXT_CHECK_EQ(bands, (heights[h] + band - 1) / band);
        }
    /* The measured image: 10000x6000 RGB, 30000-byte rows, 279 rows per 8 MiB band. */
    FXT_CHECK_EQ(fxi_eq_band_rows(30000, band_bytes, 6000), 279);
    FXT_CHECK_EQ(fxi_eq_band_height(5859, 279, 6000), 141);
}

/* The per-pixel colour functions: hsv keeps the largest channel at V' exactly and
 * rounds half up; the hsv table equals the function. */
FXT_TEST(per_pixel_functions)
{
    for (uint32_t v = 1; v < 256; v += 3)
        for (uint32_t v2 = 0; v2 < 256; v2 += 5) {
            FXT_CHECK_EQ(fxi_hsv_channel(v, v, v2, 255), v2);
            for (uint32_t c = 0; c <= v; c += 7)
                FXT_CHECK_EQ(fxi_hsv_channel(c, v, v2, 255),
                             (uint32_t)floor((double)c * v2 / v + 0.5));
        }
    /* The SIMD form, over every 8-bit input. */
    long f32_bad = 0;
    for (uint32_t v = 0; v < 256; v++)
        for (uint32_t v2 = 0; v2 < 256; v2++)
            for (uint32_t c = 0; c <= v; c++)
                f32_bad += fxi_hsv_channel_f32(c, v, v2) != fxi_hsv_channel(c, v, v2, 255);
    FXT_CHECK_EQ(f32_bad, 0);
    /* The GPU's integer form (a factor per V), over every 8-bit input. */
    long u8_bad = 0;
    for (uint32_t v = 0; v < 256; v++)
        for (uint32_t v2 = 0; v2 < 256; v2++) {
            const uint32_t factor = fxi_hsv_u8_factor(v, v2);
            for (uint32_t c = 0; c <= v; c++)
                u8_bad += fxi_hsv_u8_apply(c, factor) != fxi_hsv_channel(c, v, v2, 255);
        }
    FXT_CHECK_EQ(u8_bad, 0);
    FXT_CHECK_EQ(fxi_hsv_channel(40000, 65535, 65535, 65535), 40000);
    FXT_CHECK_EQ(fxi_hsv_channel(0, 0, 200, 255), 0);
    FXT_CHECK_EQ(fxi_bin_of(255, 256, 8), 255);
    FXT_CHECK_EQ(fxi_bin_of(65535, 4096, 16), 4095);
    FXT_CHECK_EQ(fxi_bin_of(65535, 3, 16), 2);
    /* OpenCV's RNE tie vector (research §1.2): 255/510 = 0.5 exactly. */
    uint32_t hist[256] = {1, 1, 1, 1};
    hist[255] = 507;
    uint16_t lut[256];
    int identity;
    fxi_eq_global_lut(hist, 256, 255, FX_EQ_SCALE_MINMAX, lut, &identity);
    FXT_CHECK(!identity && lut[0] == 0 && lut[1] == 0 && lut[2] == 1 && lut[3] == 2);
    FXT_CHECK_EQ(lut[255], 255);
}

/* ---- options and errors ---- */

FXT_TEST(options_defaults_and_checks)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_equalize_options o;
    fx_equalize_options_init(&o);
    FXT_CHECK_EQ(o.space, FX_EQ_SPACE_HSV);
    FXT_CHECK_EQ(o.bins, 0);
    FXT_CHECK_EQ(o.scale, FX_EQ_SCALE_MINMAX);
    FXT_CHECK(o.clip == 40.0 && !strcmp(o.tiles, "8x8") && !o.adaptive && !o.mask);
    FXT_CHECK_OK(fx_equalize_options_check(ctx, &o), ctx);
    o.bins = 1;
    FXT_CHECK_STATUS(fx_equalize_options_check(ctx, &o), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--bins");
    o.bins = 65537;
    FXT_CHECK_STATUS(fx_equalize_options_check(ctx, &o), FX_ERANGE, ctx);
    o.bins = 0;
    o.gpu_block = 48;
    FXT_CHECK_STATUS(fx_equalize_options_check(ctx, &o), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "multiple of 32");
    o.gpu_block = 0;
    o.tiles = "8by8";
    FXT_CHECK_STATUS(fx_equalize_options_check(ctx, &o), FX_EINVAL, ctx);
    o.tiles = "8x8";
    o.adaptive = 1;
    o.mask = "m.png";
    FXT_CHECK_STATUS(fx_equalize_options_check(ctx, &o), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--mask");
    FXT_CHECK_EQ(fx_equalize_output_channels(&o, 3), 3);
    o.space = FX_EQ_SPACE_GRAY;
    FXT_CHECK_EQ(fx_equalize_output_channels(&o, 3), 1);
    FXT_CHECK_EQ(fx_equalize_output_channels(&o, 4), 2);
    FXT_CHECK_EQ(fx_equalize_output_channels(&o, 2), 2);
    fx_context_destroy(ctx);
}

FXT_TEST(bad_inputs_are_refused_clearly)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_equalize_options o = options(FX_EQ_SPACE_HSV, 0, 0);
    fx_image f32, in = make_image(ctx, 16, 8, 1, FX_U8, RANDOM, 1), out = {0};
    fx_image_alloc(ctx, &f32, 4, 4, 1, FX_F32);
    FXT_CHECK_STATUS(fx_equalize(ctx, &o, &f32, &out, NULL), FX_EUNSUPPORTED, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "f32");

    o.bins = 300;
    FXT_CHECK_STATUS(fx_equalize(ctx, &o, &in, &out, NULL), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "256 levels");
    o.bins = 0;

    fx_image small = make_image(ctx, 15, 8, 1, FX_U8, RANDOM, 2);
    o.mask_image = &small;
    FXT_CHECK_STATUS(fx_equalize(ctx, &o, &in, &out, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "the mask is 15x8 but the image is 16x8");
    fx_image zero = make_image(ctx, 16, 8, 1, FX_U8, BLACK, 3);
    o.mask_image = &zero;
    FXT_CHECK_STATUS(fx_equalize(ctx, &o, &in, &out, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "selects no pixel");
    fx_image rgb_mask = make_image(ctx, 16, 8, 3, FX_U8, RANDOM, 4);
    o.mask_image = &rgb_mask;
    FXT_CHECK_STATUS(fx_equalize(ctx, &o, &in, &out, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "gray");
    o.mask_image = NULL;
    o.mask = "/nonexistent/mask.png";
    FXT_CHECK(fx_equalize(ctx, &o, &in, &out, NULL) != FX_OK);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--mask /nonexistent/mask.png");
    o.mask = NULL;

    /* Plan for one shape, run on another; a device image on a CPU context. */
    const fx_image_desc desc = fx_image_desc_of(&in);
    fx_equalize_plan *plan;
    FXT_CHECK_OK(fx_equalize_plan_create(ctx, &o, &desc, &plan), ctx);
    fx_image other = make_image(ctx, 16, 9, 1, FX_U8, RANDOM, 5);
    FXT_CHECK_STATUS(fx_equalize_run(plan, &other, &other, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "the plan is for 16x8x1 u8");
    fx_image fake_device = in;
    fake_device.memory = FX_MEMORY_DEVICE;
    FXT_CHECK_STATUS(fx_equalize_run(plan, &fake_device, &fake_device, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "GPU context");
    fx_timings t = {0};
    FXT_CHECK_OK(fx_equalize_run(plan, &in, &in, &t), ctx);
    FXT_CHECK(t.compute_ms >= 0 && t.upload_ms == 0 && t.download_ms == 0);
    fx_equalize_plan_free(plan);
    fx_equalize_plan_free(NULL);

    fx_image_free(&other);
    fx_image_free(&rgb_mask);
    fx_image_free(&zero);
    fx_image_free(&small);
    fx_image_free(&f32);
    fx_image_free(&in);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(gray_matches_reference_lut), FXT_CASE(colour_spaces_match_references),
         FXT_CASE(gray_valued_colour_equals_gray), FXT_CASE(fast_rgb_paths_match_references),
         FXT_CASE(hsv_float_reproduces_the_published_pipeline),
         FXT_CASE(clahe_helpers_match_opencv_loops), FXT_CASE(clahe_grid_follows_opencv),
         FXT_CASE(gpu_geometry_covers_every_row_once),
         FXT_CASE(gpu_fast_groups_cover_each_pixel_once),
         FXT_CASE(gpu_count_slices_cover_every_step_once), FXT_CASE(gpu_fused_walks_units_and_grid),
         FXT_CASE(gpu_staging_bands_cover_every_row_once), FXT_CASE(per_pixel_functions),
         FXT_CASE(options_defaults_and_checks), FXT_CASE(bad_inputs_are_refused_clearly))
