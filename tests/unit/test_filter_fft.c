/* The fft strategy against a plain double-precision reference on random images of
 * awkward sizes (1x1, 1xN, Nx1, primes, kernels larger than the image), every border,
 * 1-4 channels, u8/u16/f32, through the public API only.
 *
 * Tolerances (the strategy's contract): integer images within 1 unit of the rounded
 * exact result everywhere, and at least 99.9% of all samples identical; float images
 * within FLOAT_REL_TOL * (sum of |weights|) * (largest |sample|) of the exact sum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fxkit/filter.h"
#include "fxtest.h"

#define MIN_IDENTICAL_U8 0.999 /* 8-bit images: share of samples equal to the reference */
/* 16-bit images: a float transform keeps about 24 bits, of which full-range 16-bit sums
 * use 16 before the point, so near-ties round either way more often (measured about
 * 0.15% on full-range uniform noise; the direct float path differs more). */
#define MIN_IDENTICAL_U16 0.99
#define FLOAT_REL_TOL 1e-5 /* float images: error relative to L1(weights) * max sample */
#define TEST_OFFSET 0.375  /* added to every output, to exercise the offset */
#define BORDERS 5

static int fft_built(void)
{
    return strstr(fx_build_features(), "fft") != NULL;
}

/* OpenCV's border formulas (-1: the constant border). */
static int border_index(int p, int n, int border)
{
    if (p >= 0 && p < n) return p;
    switch (border) {
    case FX_BORDER_REPLICATE: return p < 0 ? 0 : n - 1;
    case FX_BORDER_REFLECT: {
        int q = ((p % (2 * n)) + 2 * n) % (2 * n);
        return q < n ? q : 2 * n - 1 - q;
    }
    case FX_BORDER_REFLECT101: {
        if (n == 1) return 0;
        int period = 2 * n - 2, q = ((p % period) + period) % period;
        return q < n ? q : 2 * n - 2 - q;
    }
    case FX_BORDER_WRAP: return ((p % n) + n) % n;
    default: return -1;
    }
}

static double sample_max(fx_sample_type type)
{
    return type == FX_U8 ? 255 : type == FX_U16 ? 65535 : 1;
}

static double get(const fx_image *img, int x, int y, int c)
{
    size_t i = (size_t)x * img->channels + c;
    const void *row = fx_image_row(img, y);
    switch (img->type) {
    case FX_U8: return ((const uint8_t *)row)[i];
    case FX_U16: return ((const uint16_t *)row)[i];
    default: return ((const float *)row)[i];
    }
}

static void set(fx_image *img, int x, int y, int c, double v)
{
    size_t i = (size_t)x * img->channels + c;
    void *row = fx_image_row(img, y);
    switch (img->type) {
    case FX_U8: ((uint8_t *)row)[i] = (uint8_t)v; break;
    case FX_U16: ((uint16_t *)row)[i] = (uint16_t)v; break;
    default: ((float *)row)[i] = (float)v; break;
    }
}

static double uniform(uint64_t *rng)
{
    return (double)(fxt_rand(rng) >> 11) / (double)(UINT64_C(1) << 53);
}

typedef struct totals {
    long long samples[2], identical[2]; /* [0] 8-bit, [1] 16-bit */
} totals;

typedef struct fft_case {
    int width, height, kw, kh;
    int anchor_x, anchor_y; /* -1: the centre */
} fft_case;

/* One image and kernel under one border, channel count and type. */
static void check_case(fx_context *ctx, const fft_case *tc, int border, int channels,
                       fx_sample_type type, uint64_t *rng, totals *tot)
{
    const int w = tc->width, h = tc->height, kw = tc->kw, kh = tc->kh;
    const double maxval = sample_max(type);
    double *weights = malloc(sizeof(double) * (size_t)kw * kh);
    if (!FXT_CHECK(weights)) return;
    /* random weights that are not dyadic (no exact ties on integer images), sum 1 */
    double sum = 0, l1 = 0;
    for (int i = 0; i < kw * kh; i++) {
        weights[i] = uniform(rng) * 2 - 0.6;
        sum += weights[i];
    }
    for (int i = 0; i < kw * kh; i++) {
        weights[i] /= sum;
        l1 += fabs((float)weights[i]);
    }

    fx_kernel *kernel = NULL;
    fx_filter_plan *plan = NULL;
    fx_image src = {0}, dst = {0};
    if (!FXT_CHECK_OK(fx_kernel_create(ctx, kw, kh, weights, &kernel), ctx)) goto done;
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_FFT;
    o.border = border;
    o.offset = TEST_OFFSET;
    /* one constant-border value per channel, exact in every sample type */
    double border_value[FX_MAX_IMAGE_CHANNELS];
    char values[128] = "", anchor[32];
    for (int c = 0; c < channels; c++) {
        border_value[c] = type == FX_F32 ? (c + 1) / 8.0 : floor(maxval * (c + 1) / 7);
        size_t used = strlen(values);
        snprintf(values + used, sizeof values - used, "%s%.17g", c ? "," : "", border_value[c]);
    }
    o.border_value = values;
    if (tc->anchor_x >= 0) {
        snprintf(anchor, sizeof anchor, "%d,%d", tc->anchor_x, tc->anchor_y);
        o.anchor = anchor;
    }
    fx_image_desc desc = {w, h, channels, type};
    if (!FXT_CHECK_OK(fx_filter_plan_create(ctx, kernel, &o, &desc, &plan), ctx)) goto done;
    FXT_CHECK_EQ(fx_filter_plan_strategy(plan), FX_STRATEGY_FFT);
    if (!FXT_CHECK_OK(fx_image_alloc(ctx, &src, w, h, channels, type), ctx)) goto done;
    if (!FXT_CHECK_OK(fx_image_alloc(ctx, &dst, w, h, channels, type), ctx)) goto done;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < channels; c++)
                set(&src, x, y, c,
                    type == FX_F32 ? uniform(rng) : floor(uniform(rng) * (maxval + 1)));
    if (!FXT_CHECK_OK(fx_filter_run(plan, &src, &dst, NULL), ctx)) goto done;

    const int ax = tc->anchor_x < 0 ? kw / 2 : tc->anchor_x;
    const int ay = tc->anchor_y < 0 ? kh / 2 : tc->anchor_y;
    const int filtered = channels == 2 || channels == 4 ? channels - 1 : channels;
    const double float_tol = FLOAT_REL_TOL * l1 * maxval;
    int bad = 0;
    for (int y = 0; y < h && bad < 3; y++) {
        for (int x = 0; x < w && bad < 3; x++) {
            for (int c = 0; c < channels; c++) {
                double got = get(&dst, x, y, c), want;
                if (c >= filtered) {
                    want = get(&src, x, y, c); /* the alpha passes through */
                } else {
                    double acc = (float)TEST_OFFSET;
                    for (int i = 0; i < kh; i++) {
                        int sy = border_index(y + i - ay, h, border);
                        for (int j = 0; j < kw; j++) {
                            int sx = border_index(x + j - ax, w, border);
                            double v = sy < 0 || sx < 0 ? border_value[c] : get(&src, sx, sy, c);
                            acc += (double)(float)weights[(size_t)i * kw + j] * v;
                        }
                    }
                    want = acc;
                    if (type != FX_F32) want = fmin(fmax(nearbyint(acc), 0), maxval);
                }
                double tol = c >= filtered ? 0 : type == FX_F32 ? float_tol : 1;
                if (type != FX_F32 && c < filtered) { /* the 99.9% rule: integer images */
                    tot->samples[type == FX_U16]++;
                    tot->identical[type == FX_U16] += got == want;
                }
                if (fabs(got - want) > tol) {
                    if (bad++ < 3)
                        printf("  %dx%d k%dx%d anchor %d,%d %s ch %d/%d type %d at (%d,%d,%d): "
                               "got %.9g want %.9g\n",
                               w, h, kw, kh, ax, ay, fx_border_name(border), c, channels, type, x,
                               y, c, got, want);
                }
            }
        }
    }
    FXT_CHECK_EQ(bad, 0);

done:
    fx_image_free(&src);
    fx_image_free(&dst);
    fx_filter_plan_free(plan);
    fx_kernel_free(kernel);
    free(weights);
}

static void check_totals(const totals *tot)
{
    printf("  identical to the reference: 8-bit %lld of %lld, 16-bit %lld of %lld\n",
           tot->identical[0], tot->samples[0], tot->identical[1], tot->samples[1]);
    FXT_CHECK(tot->identical[0] >= MIN_IDENTICAL_U8 * tot->samples[0]);
    FXT_CHECK(tot->identical[1] >= MIN_IDENTICAL_U16 * tot->samples[1]);
}

static const fft_case awkward[] = {
    {1, 1, 3, 3, -1, -1},    {1, 1, 31, 31, -1, -1}, {1, 23, 5, 7, -1, -1},
    {23, 1, 7, 5, -1, -1},   {13, 7, 2, 4, -1, -1},  {31, 29, 9, 9, 0, 8},
    {17, 19, 40, 9, -1, -1}, {5, 3, 11, 13, 10, 0},  {37, 41, 1, 1, -1, -1},
};

static void run_cases(const fft_case *cases, size_t count, int threads, totals *tot)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, threads);
    if (!FXT_CHECK(ctx)) return;
    uint64_t rng = 20261121;
    static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};
    for (size_t k = 0; k < count; k++)
        for (int border = 0; border < BORDERS; border++)
            for (int t = 0; t < 3; t++)
                for (int channels = 1; channels <= FX_MAX_IMAGE_CHANNELS; channels++)
                    check_case(ctx, &cases[k], border, channels, types[t], &rng, tot);
    fx_context_destroy(ctx);
}

FXT_TEST(test_fft_awkward_sizes)
{
    if (!fft_built()) {
        printf("  skipped: this build has no FFTW (no \"fft\" in fx_build_features)\n");
        return;
    }
    totals tot = {{0, 0}, {0, 0}};
    run_cases(awkward, sizeof awkward / sizeof *awkward, 1, &tot);
    check_totals(&tot);
}

/* Images several tiles wide and high on two threads: tiles meet without seams. */
FXT_TEST(test_fft_many_tiles)
{
    if (!fft_built()) {
        printf("  skipped: this build has no FFTW (no \"fft\" in fx_build_features)\n");
        return;
    }
    static const fft_case big[] = {{701, 389, 21, 17, -1, -1}, {263, 1031, 33, 3, 32, 1}};
    totals tot = {{0, 0}, {0, 0}};
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    if (!FXT_CHECK(ctx)) return;
    uint64_t rng = 7;
    for (size_t k = 0; k < sizeof big / sizeof *big; k++) {
        check_case(ctx, &big[k], FX_BORDER_REFLECT101, 3, FX_U8, &rng, &tot);
        check_case(ctx, &big[k], FX_BORDER_CONSTANT, 4, FX_F32, &rng, &tot);
        check_case(ctx, &big[k], FX_BORDER_WRAP, 1, FX_U16, &rng, &tot);
    }
    fx_context_destroy(ctx);
    check_totals(&tot);
}

/* Without FFTW, forcing fft fails at plan time with a message naming FFTW. */
FXT_TEST(test_fft_unavailable)
{
    if (fft_built()) return;
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    if (!FXT_CHECK(ctx)) return;
    double w[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    fx_kernel *k = NULL;
    fx_filter_plan *plan = NULL;
    FXT_CHECK_OK(fx_kernel_create(ctx, 3, 3, w, &k), ctx);
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_FFT;
    fx_image_desc d = {8, 8, 1, FX_U8};
    FXT_CHECK_STATUS(fx_filter_plan_create(ctx, k, &o, &d, &plan), FX_EUNSUPPORTED, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "FFTW");
    fx_filter_plan_free(plan);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(test_fft_awkward_sizes), FXT_CASE(test_fft_many_tiles),
         FXT_CASE(test_fft_unavailable))
