/* The filter job against a plain reference: a few obvious loops over the definition
 *   dst(x, y) = offset + sum_ij w(i, j) * src(x + j - ax, y + i - ay)
 * with OpenCV's border loop (borderInterpolate, written here as OpenCV writes it, not
 * the library's closed forms), on random images of awkward sizes, every border,
 * channel count, depth and strategy.
 *
 * Exact kernels (integer numerators over a divisor) are compared byte for byte: the
 * reference sums in int64 and rounds half to even with integer arithmetic. Float
 * kernels: direct is compared bit for bit with the reference's fmaf chain in row-major
 * order over the non-zero taps (the documented tap order); separable and fft within
 * their tolerances.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "filter/cpu_common.h" /* FXI_SERIAL_MAX_WORK, FXI_BOX_OPS */
#include "fxtest.h"

/* ---- the reference ---- */

static int ref_border(int p, int len, fx_border mode)
{
    if ((unsigned)p < (unsigned)len) return p;
    if (mode == FX_BORDER_REPLICATE) return p < 0 ? 0 : len - 1;
    if (mode == FX_BORDER_REFLECT || mode == FX_BORDER_REFLECT101) {
        int delta = mode == FX_BORDER_REFLECT101;
        if (len == 1) return 0;
        do {
            if (p < 0)
                p = -p - 1 + delta;
            else
                p = len - 1 - (p - len) - delta;
        } while ((unsigned)p >= (unsigned)len);
        return p;
    }
    if (mode == FX_BORDER_WRAP) {
        if (p < 0) p -= ((p - len + 1) / len) * len;
        if (p >= len) p %= len;
        return p;
    }
    return -1;
}

static double ref_sample(const fx_image *img, int x, int y, int c, fx_border mode, double constant)
{
    int xx = ref_border(x, img->width, mode), yy = ref_border(y, img->height, mode);
    if (xx < 0 || yy < 0) return constant;
    const uint8_t *row = fx_image_row(img, yy);
    size_t i = (size_t)xx * img->channels + c;
    switch (img->type) {
    case FX_U8: return row[i];
    case FX_U16: return ((const uint16_t *)(const void *)row)[i];
    default: return ((const float *)(const void *)row)[i];
    }
}

static double maxval(fx_sample_type t)
{
    return t == FX_U8 ? 255 : 65535;
}

/* Round num/den half to even in integers, plus an integer offset, saturated. */
static double ref_round(int64_t num, int64_t den, int64_t offset, double max)
{
    int64_t q = num / den, r = num % den;
    if (r < 0) {
        q -= 1;
        r += den;
    }
    if (2 * r > den || (2 * r == den && (q & 1))) q += 1;
    q += offset;
    return q < 0 ? 0 : q > max ? max : (double)q;
}

typedef struct ref_kernel {
    int kw, kh, ax, ay;
    const int64_t *num; /* exact: numerators over den */
    int64_t den;
    const float *w; /* float kernel */
    int64_t offset;
    int rule; /* exact kernels: REF_HALF_EVEN, or REF_CV_BLUR for the box preset */
} ref_kernel;

enum { REF_HALF_EVEN = 0, REF_CV_BLUR = 1 };

/* cv2.blur's rounding of a window sum s over `area` samples (the box preset) at element
 * `element` of a row of `row_elements` (width * channels), as box_filter.simd.hpp does
 * it: 8-bit areas up to 256 divide in fixed point, ((s + dd) * ds) >> 23, with
 * ds = 2^23 / area rounded and dd = area / 2 (+1 when ds was rounded down). Larger
 * areas with int32 sums (8-bit up to 2^23, 16-bit up to 2^15): SIMD blocks of 8 outputs
 * take float(s) * float(1 / area), rounded half to even, and the scalar code finishes
 * the row's last row_elements % 8 with s * (1. / area) in double, rounded half to even
 * (cvRound). Double sums (larger areas): the scalar rule everywhere. */
#define REF_CV_BLOCK 8
static double ref_cv_blur(int64_t s, int64_t area, fx_sample_type t, int64_t element,
                          int64_t row_elements)
{
    double q;
    const int64_t int_sums = t == FX_U8 ? (int64_t)1 << 23 : (int64_t)1 << 15;
    const int64_t blocks_end = row_elements / REF_CV_BLOCK * REF_CV_BLOCK;
    if (t == FX_U8 && area <= 256) {
        double scale = ldexp(1, 23) / (double)area;
        int64_t ds = (int64_t)floor(scale), dd = area / 2;
        if (scale - (double)ds < 0.5)
            dd += 1;
        else
            ds += 1;
        q = (double)(((s + dd) * ds) >> 23);
    } else if (area <= int_sums && element < blocks_end) {
        float product = (float)s * (float)(1.0 / (double)area);
        q = rintf(product);
    } else {
        double scale = 1.0 / (double)area;
        q = rint((double)s * scale);
    }
    return q < 0 ? 0 : q > maxval(t) ? maxval(t) : q;
}

static double ref_output(const ref_kernel *k, const fx_image *src, int x, int y, int c,
                         fx_border mode, double constant)
{
    if (k->num) {
        int64_t s = 0;
        for (int i = 0; i < k->kh; i++)
            for (int j = 0; j < k->kw; j++)
                s += k->num[i * k->kw + j] *
                     (int64_t)ref_sample(src, x + j - k->ax, y + i - k->ay, c, mode, constant);
        if (k->rule == REF_CV_BLUR)
            return ref_cv_blur(s, k->den, src->type, (int64_t)x * src->channels + c,
                               (int64_t)src->width * src->channels);
        return ref_round(s, k->den, k->offset, maxval(src->type));
    }
    float acc = (float)k->offset;
    for (int i = 0; i < k->kh; i++)
        for (int j = 0; j < k->kw; j++)
            if (k->w[i * k->kw + j] != 0)
                acc = fmaf(k->w[i * k->kw + j],
                           (float)ref_sample(src, x + j - k->ax, y + i - k->ay, c, mode, constant),
                           acc);
    if (src->type == FX_F32) return acc;
    float r = nearbyintf(acc);
    return r < 0 ? 0 : r > maxval(src->type) ? maxval(src->type) : r;
}

static double get(const fx_image *img, int x, int y, int c)
{
    return ref_sample(img, x, y, c, FX_BORDER_CONSTANT, 0);
}

/* ---- inputs ---- */

/* Sample values: uniform, every sample at the maximum, or only 0 and the maximum (the
 * sums' extremes, for saturation and the bounds of narrow integer paths). */
enum { FILL_RANDOM = 0, FILL_MAX, FILL_EXTREMES };

static fx_image filled_image(fx_context *ctx, int w, int h, int ch, fx_sample_type t, uint64_t seed,
                             int fill);

static fx_image random_image(fx_context *ctx, int w, int h, int ch, fx_sample_type t, uint64_t seed)
{
    return filled_image(ctx, w, h, ch, t, seed, FILL_RANDOM);
}

static fx_image filled_image(fx_context *ctx, int w, int h, int ch, fx_sample_type t, uint64_t seed,
                             int fill)
{
    fx_image img;
    fx_image_alloc(ctx, &img, w, h, ch, t);
    for (int y = 0; y < h; y++) {
        uint8_t *row = fx_image_row(&img, y);
        for (int i = 0; i < w * ch; i++) {
            uint64_t r = fxt_rand(&seed);
            if (fill == FILL_MAX) r = UINT64_MAX;
            if (fill == FILL_EXTREMES) r = r >> 63 ? UINT64_MAX : 0;
            if (t == FX_U8)
                row[i] = (uint8_t)(r >> 56);
            else if (t == FX_U16)
                ((uint16_t *)(void *)row)[i] = (uint16_t)(r >> 48);
            else
                ((float *)(void *)row)[i] = (float)(r >> 40) / (float)(1 << 24);
        }
    }
    return img;
}

typedef struct shape {
    int w, h;
} shape;

static const shape shapes[] = {{1, 1}, {1, 9}, {9, 1}, {13, 11}, {37, 5}, {3, 2}};
#define SHAPE_COUNT (int)(sizeof shapes / sizeof *shapes)
static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};

/* Run one kernel with one strategy over every shape, border, channel count and type,
 * against the reference. exact: integer kernels (compared exactly on integer images). */
typedef struct check_set {
    const shape *shapes;
    int shape_count;
    int fill;     /* FILL_* */
    bool only_u8; /* 8-bit images only */
} check_set;

static void check_kernel_on(const check_set *set, const char *text, const ref_kernel *rk,
                            fx_filter_strategy strategy, const char *border_value, double tolerance)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    fx_kernel *k = NULL;
    if (!FXT_CHECK_OK(fx_kernel_parse(ctx, text, &k), ctx)) goto done;
    for (int s = 0; s < set->shape_count; s++)
        for (int b = 0; b <= FX_BORDER_WRAP; b++)
            for (int ch = 1; ch <= 4; ch++)
                for (int ti = 0; ti < 3; ti++) {
                    fx_sample_type t = types[ti];
                    if (rk->num && t == FX_F32) continue; /* floats: covered by float kernels */
                    if (set->only_u8 && t != FX_U8) continue;
                    const shape *sh = &set->shapes[s];
                    fx_filter_options o;
                    fx_filter_options_init(&o);
                    o.border = b;
                    o.strategy = strategy;
                    o.alpha = FX_ALPHA_FILTER;
                    o.border_value = border_value;
                    o.offset = (double)rk->offset;
                    double constant = border_value ? atof(border_value) : 0;
                    fx_image_desc d = {sh->w, sh->h, ch, t};
                    fx_filter_plan *p = NULL;
                    if (!FXT_CHECK_OK(fx_filter_plan_create(ctx, k, &o, &d, &p), ctx)) continue;
                    fx_image src =
                        filled_image(ctx, d.width, d.height, ch, t, 17 + s * 5 + ch, set->fill);
                    fx_image dst;
                    fx_image_alloc(ctx, &dst, d.width, d.height, ch, t);
                    FXT_CHECK_OK(fx_filter_run(p, &src, &dst, NULL), ctx);
                    int bad = 0;
                    double worst = 0;
                    for (int y = 0; y < d.height; y++)
                        for (int x = 0; x < d.width; x++)
                            for (int c = 0; c < ch; c++) {
                                double want = ref_output(rk, &src, x, y, c, b, constant);
                                double got = get(&dst, x, y, c);
                                double diff = fabs(want - got);
                                if (diff > worst) worst = diff;
                                if (diff > tolerance) bad++;
                            }
                    if (!FXT_CHECK(bad == 0))
                        fprintf(stderr, "  %s, %s, %s: %dx%dx%d %s: %d samples differ (worst %g)\n",
                                text, fx_filter_strategy_name(fx_filter_plan_strategy(p)),
                                fx_border_name(b), d.width, d.height, ch, fx_sample_type_name(t),
                                bad, worst);
                    fx_image_free(&src);
                    fx_image_free(&dst);
                    fx_filter_plan_free(p);
                }
done:
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

/* Every shape of `shapes`, random samples, every type. */
static void check_kernel(const char *text, const ref_kernel *rk, fx_filter_strategy strategy,
                         const char *border_value, double tolerance)
{
    const check_set set = {shapes, SHAPE_COUNT, FILL_RANDOM, false};
    check_kernel_on(&set, text, rk, strategy, border_value, tolerance);
}

/* ---- exact kernels: every strategy that applies, byte for byte ---- */

static const int64_t sharpen_num[] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
static const int64_t binomial_num[] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
static const int64_t odd_num[] = {3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5, -8, 9, 7, 9}; /* 5x3 */
static const int64_t even_box_num[] = {1, 1, 1, 1, 1, 1, 1, 1};                    /* 4x2 */

FXT_TEST(exact_direct_matches_reference)
{
    ref_kernel sharpen = {3, 3, 1, 1, sharpen_num, 1, NULL, 0, REF_HALF_EVEN};
    check_kernel("sharpen", &sharpen, FX_STRATEGY_DIRECT, NULL, 0);
    ref_kernel odd = {5, 3, 2, 1, odd_num, 7, NULL, 0, REF_HALF_EVEN};
    check_kernel("3 -1 4 1 -5; 9 2 6 5 3; 5 -8 9 7 9 / 7", &odd, FX_STRATEGY_DIRECT, NULL, 0);
}

FXT_TEST(exact_separable_equals_direct)
{
    ref_kernel bin = {3, 3, 1, 1, binomial_num, 16, NULL, 0, REF_HALF_EVEN};
    check_kernel("1 2 1; 2 4 2; 1 2 1 / 16", &bin, FX_STRATEGY_SEPARABLE, NULL, 0);
    check_kernel("1 2 1; 2 4 2; 1 2 1 / 16", &bin, FX_STRATEGY_DIRECT, NULL, 0);
    check_kernel("1 2 1; 2 4 2; 1 2 1 / 16", &bin, FX_STRATEGY_AUTO, "7", 0);
}

FXT_TEST(exact_box_equals_direct)
{
    /* A 4x2 box with anchor (2, 1), as text so the half-even rule applies (the box
     * preset follows cv2.blur's rule on 8-bit images instead). */
    ref_kernel box = {4, 2, 2, 1, even_box_num, 8, NULL, 0, REF_HALF_EVEN};
    const char *text = "1 1 1 1; 1 1 1 1 / 8";
    check_kernel(text, &box, FX_STRATEGY_BOX, NULL, 0);
    check_kernel(text, &box, FX_STRATEGY_SEPARABLE, NULL, 0);
    check_kernel(text, &box, FX_STRATEGY_DIRECT, "200", 0);
}

/* Every finishing rule of exact sums: a power-of-two divisor with negative sums and an
 * offset (rounding by shifts), a divisor of 1 (no rounding), and 16-bit images whose
 * sums need 64 bits. */
FXT_TEST(exact_rounding_rules)
{
    ref_kernel pow2 = {5, 3, 2, 1, odd_num, 8, NULL, 10, REF_HALF_EVEN};
    check_kernel("3 -1 4 1 -5; 9 2 6 5 3; 5 -8 9 7 9 / 8", &pow2, FX_STRATEGY_DIRECT, NULL, 0);
    ref_kernel unit = {3, 3, 1, 1, sharpen_num, 1, NULL, -20, REF_HALF_EVEN};
    check_kernel("sharpen", &unit, FX_STRATEGY_DIRECT, NULL, 0);
    static const int64_t big_num[] = {30000, -20000, 30000, 50000, 1, 50000, -7, 9, 11};
    ref_kernel big = {3, 3, 1, 1, big_num, 140013, NULL, 0, REF_HALF_EVEN};
    check_kernel("30000 -20000 30000; 50000 1 50000; -7 9 11 / 140013", &big, FX_STRATEGY_DIRECT,
                 NULL, 0);
    static const int64_t big_rank1[] = {9000, 18000, 9000, 18000, 36000, 18000, 9000, 18000, 9000};
    ref_kernel big1 = {3, 3, 1, 1, big_rank1, 144000, NULL, 0, REF_HALF_EVEN};
    check_kernel("9000 18000 9000; 18000 36000 18000; 9000 18000 9000 / 144000", &big1,
                 FX_STRATEGY_SEPARABLE, NULL, 0);
}

/* 8-bit shapes for the integer fast paths. Wide: more than one 2048-column tile (blocks
 * that touch neither edge, and the image's right edge in a second tile) for small
 * kernels; square: images smaller and larger than mid-sized kernels; tall: for kernels
 * of 257 and 258 rows. The reference costs kw * kh per output, hence three sets. */
static const shape wide_shapes[] = {{2300, 3}, {37, 5}, {1, 1}, {1, 9}, {9, 1}};
static const shape square_shapes[] = {{24, 20}, {37, 5}, {1, 1}, {1, 9}, {9, 1}};
static const shape tall_shapes[] = {{2, 260}, {3, 1}};
#define SHAPES(a) a, (int)(sizeof a / sizeof *a)

/* One kernel on every shape of a set and every border, 8-bit: random samples, then only
 * 0 and 255, then every sample (and the constant border) at 255, where the sums reach
 * their bounds. */
static void check_u8_extremes(const shape *set_shapes, int count, const char *text,
                              const ref_kernel *rk, fx_filter_strategy strategy)
{
    const check_set random = {set_shapes, count, FILL_RANDOM, true};
    const check_set extremes = {set_shapes, count, FILL_EXTREMES, true};
    const check_set max = {set_shapes, count, FILL_MAX, true};
    check_kernel_on(&random, text, rk, strategy, NULL, 0);
    check_kernel_on(&extremes, text, rk, strategy, "255", 0);
    check_kernel_on(&max, text, rk, strategy, "255", 0);
}

/* The separable row pass in uint16 (row taps >= 0 summing to at most 257): at the bound
 * (1 255 1: a row of 255s sums to 65535), just past it (258: the 32-bit path), with
 * negative column taps and an offset, and a 5x5 binomial. */
FXT_TEST(separable_u8_narrow_rows_match_reference)
{
    static const int64_t at_bound[] = {1, 255, 1, 1, 255, 1};
    ref_kernel k1 = {3, 2, 1, 1, at_bound, 3, NULL, 0, REF_HALF_EVEN};
    check_u8_extremes(SHAPES(wide_shapes), "1 255 1; 1 255 1 / 3", &k1, FX_STRATEGY_SEPARABLE);
    static const int64_t past_bound[] = {1, 256, 1, 1, 256, 1};
    ref_kernel k2 = {3, 2, 1, 1, past_bound, 3, NULL, 0, REF_HALF_EVEN};
    check_u8_extremes(SHAPES(wide_shapes), "1 256 1; 1 256 1 / 3", &k2, FX_STRATEGY_SEPARABLE);
    static const int64_t signed_col[] = {1, 255, 1, -2, -510, -2, 1, 255, 1};
    ref_kernel k3 = {3, 3, 1, 1, signed_col, 7, NULL, 100, REF_HALF_EVEN};
    check_u8_extremes(SHAPES(wide_shapes), "1 255 1; -2 -510 -2; 1 255 1 / 7", &k3,
                      FX_STRATEGY_SEPARABLE);
    static int64_t binomial5[25];
    static const int64_t b5[] = {1, 4, 6, 4, 1};
    for (int i = 0; i < 25; i++)
        binomial5[i] = b5[i / 5] * b5[i % 5];
    ref_kernel k4 = {5, 5, 2, 2, binomial5, 256, NULL, 0, REF_HALF_EVEN};
    check_u8_extremes(SHAPES(wide_shapes),
                      "1 4 6 4 1; 4 16 24 16 4; 6 24 36 24 6; 4 16 24 16 4; 1 4 6 4 1 / 256", &k4,
                      FX_STRATEGY_SEPARABLE);
}

/* fx_filter with this border and strategy; RGBA keeps its alpha. */
static void filter_u8(fx_context *ctx, const fx_kernel *k, int border, const char *border_value,
                      fx_filter_strategy strategy, const fx_image *src, fx_image *out)
{
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.border = border;
    o.border_value = border_value;
    o.alpha = src->channels == 4 ? FX_ALPHA_KEEP : FX_ALPHA_FILTER;
    o.strategy = strategy;
    FXT_CHECK_OK(fx_filter(ctx, k, &o, src, out), ctx);
}

/* Does the separable strategy give the direct strategy's bytes on src (u8)? */
static bool separable_matches_direct(fx_context *ctx, const fx_kernel *k, int border,
                                     const char *border_value, const fx_image *src)
{
    fx_image out[2];
    for (int v = 0; v < 2; v++)
        filter_u8(ctx, k, border, border_value, v ? FX_STRATEGY_DIRECT : FX_STRATEGY_SEPARABLE, src,
                  &out[v]);
    bool same = memcmp(out[0].data, out[1].data, out[0].stride * (size_t)src->height) == 0;
    fx_image_free(&out[0]);
    fx_image_free(&out[1]);
    return same;
}

/* The u8 Gaussian presets (cv2.GaussianBlur's fixed-point taps and rounding): the
 * separable strategy (uint16 rows, the column pass fused with the finish where AVX2 is
 * there) gives the bytes of the direct strategy's plain sums, on every border, at the
 * sums' extremes, with the alpha filtered or passed through. */
FXT_TEST(gaussian_u8_separable_equals_direct)
{
    static const char *const kernels[] = {"gaussian:3", "gaussian:5", "gaussian:11:3",
                                          "gaussian:7:0.9", "gaussian:31"};
    static const shape sizes[] = {{2300, 2}, {37, 5}, {1, 1}, {40, 1}, {17, 33}};
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    for (size_t ki = 0; ki < sizeof kernels / sizeof *kernels; ki++) {
        fx_kernel *k = NULL;
        if (!FXT_CHECK_OK(fx_kernel_parse(ctx, kernels[ki], &k), ctx)) continue;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int b = 0; b <= FX_BORDER_WRAP; b++)
                for (int ch = 1; ch <= 4; ch++)
                    for (int fill = FILL_RANDOM; fill <= FILL_EXTREMES; fill++) {
                        fx_image src = filled_image(ctx, sizes[si].w, sizes[si].h, ch, FX_U8,
                                                    5 + si + (size_t)ch, fill);
                        if (!FXT_CHECK(separable_matches_direct(ctx, k, b, "255", &src)))
                            fprintf(stderr, "  %s %s %dx%dx%d fill %d: separable != direct\n",
                                    kernels[ki], fx_border_name(b), sizes[si].w, sizes[si].h, ch,
                                    fill);
                        fx_image_free(&src);
                    }
        fx_kernel_free(k);
    }
    fx_context_destroy(ctx);
}

/* The 16-bit fused column pass and the row pass's padded edge parts (u8 gaussian:3 and
 * gaussian:5) at every row length from 1 sample to several vector steps: each remainder
 * of the 32- and 16-output steps, edge parts that overlap the interior or each other,
 * and rows with no interior at all, on every border. */
FXT_TEST(gaussian_u8_separable_every_width)
{
    static const char *const kernels[] = {"gaussian:3", "gaussian:5"};
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    for (size_t ki = 0; ki < sizeof kernels / sizeof *kernels; ki++) {
        fx_kernel *k = NULL;
        if (!FXT_CHECK_OK(fx_kernel_parse(ctx, kernels[ki], &k), ctx)) continue;
        for (int w = 1; w <= 72; w++)
            for (int ch = 1; ch <= 4; ch++)
                for (int b = 0; b <= FX_BORDER_WRAP; b++) {
                    fx_image src = filled_image(ctx, w, 4, ch, FX_U8, 31 + (uint64_t)w * 4 + ch,
                                                w % 3 ? FILL_RANDOM : FILL_EXTREMES);
                    if (!FXT_CHECK(separable_matches_direct(ctx, k, b, "201", &src)))
                        fprintf(stderr, "  %s %s %dx4x%d: separable != direct\n", kernels[ki],
                                fx_border_name(b), w, ch);
                    fx_image_free(&src);
                }
        fx_kernel_free(k);
    }
    fx_context_destroy(ctx);
}

/* Small work runs on the calling thread alone (FXI_SERIAL_MAX_WORK), larger work on the
 * pool: on images just below and just above that line, a 3-thread context gives the
 * bytes of a 1-thread one (always serial) and of the direct strategy, for each CPU
 * strategy, every border, RGB and RGBA with the alpha passed through. */
FXT_TEST(serial_and_threaded_runs_agree)
{
    static const struct {
        const char *text;
        int ops; /* the operations per output the plan counts */
    } kernels[] = {{"gaussian:5", 5 + 5},
                   {"1 256 1; 1 256 1; 1 256 1 / 9", 3 + 3}, /* separable, 32-bit rows */
                   {"box:5", FXI_BOX_OPS},
                   {"sharpen", 5}};
    /* Sides just under and over the line, and a wide and a tall image over it. */
    static const int steps[] = {-6, 6};
    fx_context *serial = fxt_context(FX_DEVICE_CPU, 1), *threaded = fxt_context(FX_DEVICE_CPU, 3);
    for (size_t ki = 0; ki < sizeof kernels / sizeof *kernels; ki++) {
        fx_kernel *k = NULL;
        if (!FXT_CHECK_OK(fx_kernel_parse(serial, kernels[ki].text, &k), serial)) continue;
        for (int ch = 3; ch <= 4; ch++) {
            const int line = (int)ceil(sqrt(FXI_SERIAL_MAX_WORK / (ch * kernels[ki].ops)));
            const shape sizes[] = {{line + steps[0], line + steps[0]},
                                   {line + steps[1], line + steps[1]},
                                   {4 * line, line / 3},
                                   {line / 3, 4 * line}};
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                for (int b = 0; b <= FX_BORDER_WRAP; b++) {
                    fx_image src =
                        random_image(serial, sizes[si].w, sizes[si].h, ch, FX_U8, 7 + si + ki);
                    fx_image out[3];
                    for (int v = 0; v < 3; v++)
                        filter_u8(v == 1 ? threaded : serial, k, b, "200",
                                  v == 2 ? FX_STRATEGY_DIRECT : FX_STRATEGY_AUTO, &src, &out[v]);
                    const size_t bytes = out[0].stride * (size_t)sizes[si].h;
                    bool same = memcmp(out[0].data, out[1].data, bytes) == 0 &&
                                memcmp(out[0].data, out[2].data, bytes) == 0;
                    if (!FXT_CHECK(same))
                        fprintf(stderr, "  %s %s %dx%dx%d: serial, threaded and direct differ\n",
                                kernels[ki].text, fx_border_name(b), sizes[si].w, sizes[si].h, ch);
                    for (int v = 0; v < 3; v++)
                        fx_image_free(&out[v]);
                    fx_image_free(&src);
                }
        }
        fx_kernel_free(k);
    }
    fx_context_destroy(serial);
    fx_context_destroy(threaded);
}

/* The box preset on 8-bit images (uint16 column sums, cv2.blur's rounding): windows
 * summed directly in uint16 (3x3, 16x16 = area 256, the last with the fixed-point
 * divide), directly in int32 (16x17), by running sums (17x3, 20x20), the tallest window
 * whose column sums fit uint16 (3x257) and one past it (3x258, the float path). */
FXT_TEST(box_u8_matches_cv_blur_rule)
{
    static int64_t ones[3 * 258];
    for (size_t i = 0; i < sizeof ones / sizeof *ones; i++)
        ones[i] = 1;
    static const struct {
        const char *text;
        int kw, kh;
        const shape *shapes;
        int shape_count;
    } boxes[] = {
        {"box:3", 3, 3, SHAPES(wide_shapes)},      {"box:17x3", 17, 3, SHAPES(wide_shapes)},
        {"box:16", 16, 16, SHAPES(square_shapes)}, {"box:16x17", 16, 17, SHAPES(square_shapes)},
        {"box:20", 20, 20, SHAPES(square_shapes)}, {"box:3x257", 3, 257, SHAPES(tall_shapes)},
        {"box:3x258", 3, 258, SHAPES(tall_shapes)}};
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++) {
        int kw = boxes[i].kw, kh = boxes[i].kh;
        ref_kernel box = {kw, kh, kw / 2, kh / 2, ones, (int64_t)kw * kh, NULL, 0, REF_CV_BLUR};
        check_u8_extremes(boxes[i].shapes, boxes[i].shape_count, boxes[i].text, &box,
                          FX_STRATEGY_BOX);
    }
}

/* The box preset beyond the fixed-point divide, on images whose rows (width * channels)
 * are not multiples of 8, so cv2.blur's float rule and its scalar tail's double rule
 * both apply, by every exact strategy: 8-bit areas above 256, 16-bit areas below and
 * above 2^15 (double sums). Samples k and k + 1 make window sums fall on ties, where the
 * two rules part most often (box_finish_follows_cv_blur checks that they do part). */
static const shape tail_shapes[] = {{13, 4}, {37, 3}, {5, 2}, {17, 3}, {1, 2}};
static const shape huge_tail_shapes[] = {{13, 2}, {3, 1}}; /* the reference: 33k per output */
FXT_TEST(box_preset_row_tail_every_strategy)
{
    static int64_t ones[182 * 181];
    for (size_t i = 0; i < sizeof ones / sizeof *ones; i++)
        ones[i] = 1;
    static const struct {
        const char *text;
        int kw, kh;
        bool huge; /* few shapes, no direct */
    } boxes[] = {{"box:20x15", 20, 15, false},
                 {"box:26x14", 26, 14, false},
                 {"box:17x17", 17, 17, false},
                 {"box:40x40", 40, 40, false},
                 {"box:182x181", 182, 181, true}};
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++) {
        const int kw = boxes[i].kw, kh = boxes[i].kh;
        const check_set random = boxes[i].huge
                                     ? (check_set){SHAPES(huge_tail_shapes), FILL_RANDOM, false}
                                     : (check_set){SHAPES(tail_shapes), FILL_RANDOM, false};
        ref_kernel box = {kw, kh, kw / 2, kh / 2, ones, (int64_t)kw * kh, NULL, 0, REF_CV_BLUR};
        check_kernel_on(&random, boxes[i].text, &box, FX_STRATEGY_BOX, NULL, 0);
        check_kernel_on(&random, boxes[i].text, &box, FX_STRATEGY_SEPARABLE, NULL, 0);
        if (!boxes[i].huge)
            check_kernel_on(&random, boxes[i].text, &box, FX_STRATEGY_DIRECT, NULL, 0);
    }
}

/* fxi_finish_exact_at with the finish the planner makes for the box preset, against
 * ref_cv_blur, at the elements around the start of the row's tail: over every window
 * sum of small areas, a stride through those of large ones and every tie
 * (2m + 1) * area / 2; and the reference's two rules do part on some of those sums. */
typedef struct finish_case {
    const char *text;
    fx_sample_type type;
    int64_t area, row_elements;
    const fxi_finish *f;
    int bad;
    int64_t parted;
} finish_case;

static void check_finish_sum(finish_case *fc, int64_t s)
{
    const int64_t W = fc->row_elements, tail = W - W % REF_CV_BLOCK;
    const int64_t elements[] = {0, tail - 1, tail, W - 1};
    for (size_t e = 0; e < sizeof elements / sizeof *elements; e++) {
        if (elements[e] < 0 || elements[e] >= W) continue;
        double want = ref_cv_blur(s, fc->area, fc->type, elements[e], W);
        double got = fxi_finish_exact_at(fc->f, (double)s, elements[e]);
        if (got != want && fc->bad++ < 5)
            fprintf(stderr, "  %s %s, sum %lld, element %lld of %lld: %g, want %g\n", fc->text,
                    fx_sample_type_name(fc->type), (long long)s, (long long)elements[e],
                    (long long)W, got, want);
    }
    if (tail > 0 && tail < W &&
        ref_cv_blur(s, fc->area, fc->type, tail - 1, W) !=
            ref_cv_blur(s, fc->area, fc->type, tail, W))
        fc->parted++;
}

FXT_TEST(box_finish_follows_cv_blur)
{
    static const struct {
        fx_sample_type type;
        int kw, kh;
        int64_t row_elements;
    } cases[] = {
        {FX_U8, 20, 15, 69},    {FX_U8, 17, 16, 53},     {FX_U8, 26, 14, 7},
        {FX_U8, 100, 100, 83},  {FX_U8, 4095, 2049, 61}, {FX_U16, 3, 3, 45},
        {FX_U16, 5, 5, 87},     {FX_U16, 13, 9, 6},      {FX_U16, 40, 40, 45},
        {FX_U16, 181, 181, 29}, {FX_U16, 202, 202, 45},  {FX_U16, 182, 181, 13},
    };
    const int64_t exhaustive_max = (int64_t)1 << 23;
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    int64_t parted = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[64];
        snprintf(text, sizeof text, "box:%dx%d", cases[i].kw, cases[i].kh);
        fx_kernel *k = NULL;
        if (!FXT_CHECK_OK(fx_kernel_parse(ctx, text, &k), ctx)) continue;
        fx_filter_options o;
        fx_filter_options_init(&o);
        fxi_taps t;
        const int64_t area = (int64_t)cases[i].kw * cases[i].kh;
        if (FXT_CHECK_OK(fxi_taps_resolve(ctx, k, &o, cases[i].type, cases[i].row_elements, &t),
                         ctx)) {
            finish_case fc = {text, cases[i].type, area, cases[i].row_elements, &t.finish, 0, 0};
            const int64_t top = (int64_t)maxval(cases[i].type) * area;
            const int64_t step = top <= exhaustive_max ? 1 : top / exhaustive_max + 1;
            for (int64_t s = 0; s <= top; s += step)
                check_finish_sum(&fc, s);
            if (step > 1 && area % 2 == 0)
                for (int64_t m = 1; m * (area / 2) <= top; m += 2)
                    check_finish_sum(&fc, m * (area / 2));
            FXT_CHECK(fc.bad == 0);
            parted += fc.parted;
            fxi_taps_free(&t);
        }
        fx_kernel_free(k);
    }
    FXT_CHECK(parted > 0); /* the rules do part: these cases can fail */
    fx_context_destroy(ctx);
}

/* The taps a preset resolves to for an 8-bit image of 1000 RGB pixels a row (false,
 * checked, when it does not resolve). */
static bool u8_preset_taps(fx_context *ctx, const char *spec, fxi_taps *t)
{
    fx_kernel *k = NULL;
    if (!FXT_CHECK_OK(fx_kernel_preset(ctx, spec, &k), ctx)) return false;
    fx_filter_options o;
    fx_filter_options_init(&o);
    const bool ok = FXT_CHECK_OK(fxi_taps_resolve(ctx, k, &o, FX_U8, 3000, t), ctx);
    fx_kernel_free(k);
    return ok;
}

/* fxi_finish_u32_product and fxi_finish_u32_premul (the GPU 8-bit fast path's finishes)
 * give fxi_finish_exact_at's value for every sum the planner bounds, for the finishes that
 * take them: u8 Gaussians (and 16-bit ones where the product fits) and cv2.blur's 8-bit
 * fixed point. */
FXT_TEST(u32_product_finish_equals_exact)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    static const char *const specs[] = {"gaussian:3", "gaussian:5", "gaussian:15", "gaussian:121",
                                        "gaussian:255", "box:3", "box:2x2", "box:5x3",
                                        "box:16x16"};
    int taken = 0;
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        fxi_taps t;
        if (u8_preset_taps(ctx, specs[i], &t)) {
            const fxi_finish *f = &t.finish;
            if (f->mode == FXI_ROUND_MULSHIFT && f->u32_product) {
                taken++;
                double top = 0;
                for (int j = 0; j < t.kw * t.kh; j++)
                    top += (double)t.num[j];
                top *= 255;
                const int shift = -ilogb(f->unit);
                int bad = 0;
                for (int64_t s = 0; s <= (int64_t)top && bad < 3; s++) {
                    const double want = fxi_finish_exact_at(f, (double)s, s % 3000);
                    const uint32_t got = fxi_finish_u32_product((uint32_t)s, (uint32_t)f->add,
                                                                (uint32_t)f->mul, shift, 255);
                    const uint32_t premul = fxi_finish_u32_premul(
                        (uint32_t)s, (uint32_t)f->add * (uint32_t)f->mul, (uint32_t)f->mul,
                        shift, 255);
                    if ((double)got != want || (double)premul != want) {
                        fprintf(stderr, "  %s: sum %lld: %u (premultiplied %u), want %g\n",
                                specs[i], (long long)s, got, premul, want);
                        bad++;
                    }
                }
                FXT_CHECK_EQ(bad, 0);
            }
            fxi_taps_free(&t);
        }
    }
    FXT_CHECK(taken >= 6); /* the Gaussians and the small boxes */
    fx_context_destroy(ctx);
}

/* fxi_finish_float_scale and the low byte of fxi_finish_float_scale_u8_bits (the GPU
 * 8-bit box's finishes before scalar_from) give fxi_finish_exact_at's value for every
 * 8-bit sum of the boxes that take cv2.blur's float rule (areas above 256 up to the int32
 * sums' limit). */
FXT_TEST(float_scale_finish_equals_exact)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    static const char *const specs[] = {"box:17",  "box:31",  "box:61",  "box:99x7",
                                        "box:121", "box:181", "box:255", "box:3x200"};
    int taken = 0;
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        fxi_taps t;
        if (u8_preset_taps(ctx, specs[i], &t)) {
            const fxi_finish *f = &t.finish;
            if (FXT_CHECK_EQ(f->mode, FXI_ROUND_FLOAT_SCALE)) {
                taken++;
                const int64_t top = 255 * (int64_t)t.kw * t.kh;
                int bad = 0;
                for (int64_t s = 0; s <= top && bad < 3; s++) {
                    const double want = fxi_finish_exact_at(f, (double)s, 0);
                    const uint32_t got = fxi_finish_float_scale((uint32_t)s, (float)f->mul, 255);
                    const uint32_t byte =
                        fxi_finish_float_scale_u8_bits((uint32_t)s, (float)f->mul) & 0xFFu;
                    if ((double)got != want || (double)byte != want) {
                        fprintf(stderr, "  %s: sum %lld: %u (low byte of the bits %u), want %g\n",
                                specs[i], (long long)s, got, byte, want);
                        bad++;
                    }
                }
                FXT_CHECK_EQ(bad, 0);
            }
            fxi_taps_free(&t);
        }
    }
    FXT_CHECK_EQ(taken, 8);
    fx_context_destroy(ctx);
}

/* The byte dot products of the GPU's two-pass rows (fxi_tap_word, FXI_TAP_WORDS): for
 * random taps 0 .. 255 of every width up to 256, and random sample bytes, the sum over the
 * tap words of each phase of 4-byte dot products equals the plain sum of taps times
 * samples at every output of 8 quads. */
FXT_TEST(tap_words_sum_as_the_row_filter)
{
    uint32_t state = 7;
    float taps[256];
    uint8_t s[4 * 8 + 4 * 70];
    int bad = 0;
    for (int kw = 1; kw <= 256 && bad < 3; kw++) {
        for (int j = 0; j < kw; j++) {
            state = state * 1664525u + 1013904223u;
            taps[j] = (float)(state >> 24);
        }
        for (size_t i = 0; i < sizeof s; i++) {
            state = state * 1664525u + 1013904223u;
            s[i] = (uint8_t)(state >> 24);
        }
        const int words = FXI_TAP_WORDS(kw);
        for (int x = 0; x < 32 && bad < 3; x++) {
            int64_t want = 0, got = 0;
            for (int j = 0; j < kw; j++)
                want += (int64_t)taps[j] * s[x + j];
            for (int q = 0; q < words; q++) {
                const uint32_t w = fxi_tap_word(taps, kw, q, x % 4);
                for (int b = 0; b < 4; b++)
                    got += (int64_t)((w >> (8 * b)) & 0xFF) * s[4 * (x / 4 + q) + b];
            }
            if (got != want) {
                fprintf(stderr, "  kw %d output %d: %lld, want %lld\n", kw, x, (long long)got,
                        (long long)want);
                bad++;
            }
        }
    }
    FXT_CHECK_EQ(bad, 0);
}

/* A kernel larger than every test image (15x15 over 1x1 … 37x5). */
FXT_TEST(kernel_larger_than_image)
{
    static int64_t num[15 * 15];
    for (int i = 0; i < 15 * 15; i++)
        num[i] = (i * 7) % 5 - 2;
    char text[15 * 15 * 4 + 32] = "";
    size_t at = 0;
    for (int i = 0; i < 15; i++) {
        for (int j = 0; j < 15; j++)
            at +=
                (size_t)snprintf(text + at, sizeof text - at, "%lld ", (long long)num[i * 15 + j]);
        at += (size_t)snprintf(text + at, sizeof text - at, i < 14 ? ";" : "/ 3");
    }
    ref_kernel big = {15, 15, 7, 7, num, 3, NULL, 0, REF_HALF_EVEN};
    check_kernel(text, &big, FX_STRATEGY_DIRECT, NULL, 0);
}

/* ---- float kernels ---- */

static const float float_w[] = {0.1f, 0.2f, 0.3f, -0.15f, 0.f, 0.7f, 0.05f, 0.2f, -0.4f};

FXT_TEST(float_direct_matches_fma_chain)
{
    ref_kernel fk = {3, 3, 1, 1, NULL, 1, float_w, 0, REF_HALF_EVEN};
    check_kernel("0.1 0.2 0.3; -0.15 0 0.7; 0.05 0.2 -0.4", &fk, FX_STRATEGY_DIRECT, NULL, 0);
}

FXT_TEST(float_separable_within_rounding)
{
    /* 0.3 * [0.2 0.5 0.3] outer [0.1 0.7 0.2]: rank 1 in floats. */
    static float w[9];
    const float r[] = {0.1f, 0.7f, 0.2f}, c[] = {0.2f, 0.5f, 0.3f};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            w[i * 3 + j] = c[i] * r[j];
    char text[256];
    snprintf(text, sizeof text, "%.9g %.9g %.9g; %.9g %.9g %.9g; %.9g %.9g %.9g", w[0], w[1], w[2],
             w[3], w[4], w[5], w[6], w[7], w[8]);
    ref_kernel fk = {3, 3, 1, 1, NULL, 1, w, 0, REF_HALF_EVEN};
    /* Integer images: within one unit; float images: within float rounding. */
    check_kernel(text, &fk, FX_STRATEGY_SEPARABLE, NULL, 1.0);
}

/* ---- presets, analysis and errors ---- */

FXT_TEST(planner_picks_by_kernel)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    struct {
        const char *text;
        fx_filter_strategy want;
    } cases[] = {
        {"box:5", FX_STRATEGY_BOX},
        {"gaussian:7", FX_STRATEGY_SEPARABLE},
        {"1 2 1; 2 4 2; 1 2 1 / 16", FX_STRATEGY_SEPARABLE},
        {"sharpen", FX_STRATEGY_DIRECT},
        {"sobel-x", FX_STRATEGY_SEPARABLE},
        {"identity", FX_STRATEGY_DIRECT},
    };
    fx_image_desc d = {64, 48, 3, FX_U8};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fx_kernel *k;
        fx_filter_plan *p;
        if (!FXT_CHECK_OK(fx_kernel_parse(ctx, cases[i].text, &k), ctx)) continue;
        if (FXT_CHECK_OK(fx_filter_plan_create(ctx, k, NULL, &d, &p), ctx)) {
            if (!FXT_CHECK_EQ(fx_filter_plan_strategy(p), cases[i].want))
                fprintf(stderr, "  %s: %s\n", cases[i].text, fx_filter_plan_explain(p));
            fx_filter_plan_free(p);
        }
        fx_kernel_free(k);
    }
    fx_context_destroy(ctx);
}

/* OpenCV's getGaussianKernel (float) and GaussianBlur's fixed-point weights. */
FXT_TEST(gaussian_weights_follow_opencv)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_kernel *k;
    double w[81], off;
    /* gaussian:5: the fixed table [1 4 6 4 1] / 16 at every depth. */
    FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:5", &k), ctx);
    FXT_CHECK_OK(fx_kernel_weights(ctx, k, FX_U8, w, &off), ctx);
    FXT_CHECK(w[0] == 1.0 / 256 && w[12] == 36.0 / 256 && off == 0);
    FXT_CHECK_OK(fx_kernel_weights(ctx, k, FX_F32, w, &off), ctx);
    FXT_CHECK(w[2] == 6.0 / 256);
    fx_kernel_free(k);
    /* gaussian:9 with the default sigma 1.7: 8-bit weights are the fixed-point table
     * [4 13 30 51 60 51 30 13 4] / 256. */
    FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:9", &k), ctx);
    FXT_CHECK_OK(fx_kernel_weights(ctx, k, FX_U8, w, &off), ctx);
    FXT_CHECK(w[0] == 16.0 / 65536 && w[40] == 3600.0 / 65536);
    /* float images: exp(-x^2 / (2 * 1.7^2)), normalised, rounded to float. */
    FXT_CHECK_OK(fx_kernel_weights(ctx, k, FX_F32, w, &off), ctx);
    double g[9], sum = 0;
    for (int i = 0; i < 9; i++)
        sum += g[i] = exp(-(i - 4) * (i - 4) / (2 * 1.7 * 1.7));
    FXT_CHECK(fabs(w[40] - (g[4] / sum) * (g[4] / sum)) < 1e-7);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

FXT_TEST(bad_kernels_are_named)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    struct {
        const char *text;
        const char *says;
    } cases[] = {
        {"1 2 1; 2 4 2 2; 1 2 1", "kernel row 2 has 4 numbers, row 1 has 3"},
        {"", "empty"},
        {" ; # nothing", "empty"},
        {"1 2 1 / 0", "divisor is 0"},
        {"1 nan 1", "not a finite number"},
        {"1 inf", "not a finite number"},
        {"1 2 x", "'x' is not a number"},
        {"box:0", "outside 1"},
        {"gaussian:4", "must be odd"},
        {"gaussian:5:-1", "must be > 0"},
        {"gaussian:5:abc", "not a number"},
        {"emboss:q", "emboss"},
        {"blur:3", "unknown kernel"},
        {"sharpen:3", "takes no parameters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fx_kernel *k = NULL;
        fx_status st = fx_kernel_parse(ctx, cases[i].text, &k);
        if (!FXT_CHECK(st != FX_OK && k == NULL)) {
            fprintf(stderr, "  accepted: '%s'\n", cases[i].text);
            fx_kernel_free(k);
            continue;
        }
        FXT_CHECK_CONTAINS(fx_context_error(ctx), cases[i].says);
    }
    /* 4097 numbers in a row. */
    char *wide = malloc(4097 * 2 + 1);
    for (int i = 0; i < 4097; i++) {
        wide[2 * i] = '1';
        wide[2 * i + 1] = ' ';
    }
    wide[4097 * 2] = 0;
    fx_kernel *k = NULL;
    FXT_CHECK_STATUS(fx_kernel_parse(ctx, wide, &k), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "more than 4096");
    free(wide);
    fx_context_destroy(ctx);
}

FXT_TEST(bad_options_are_named)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_kernel *k;
    FXT_CHECK_OK(fx_kernel_parse(ctx, "sharpen", &k), ctx);
    fx_image_desc d = {8, 8, 3, FX_U8};
    fx_filter_options o;
    fx_filter_plan *p = NULL;
    fx_filter_options_init(&o);
    o.border = FX_BORDER_CONSTANT;
    o.border_value = "1,2";
    FXT_CHECK_STATUS(fx_filter_plan_create(ctx, k, &o, &d, &p), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "give 1 or 3");
    o.border_value = "300";
    FXT_CHECK_STATUS(fx_filter_plan_create(ctx, k, &o, &d, &p), FX_ERANGE, ctx);
    fx_filter_options_init(&o);
    o.anchor = "3,1";
    FXT_CHECK_STATUS(fx_filter_plan_create(ctx, k, &o, &d, &p), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "outside the 3x3 kernel");
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_BOX;
    FXT_CHECK_STATUS(fx_filter_plan_create(ctx, k, &o, &d, &p), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "not a box");
    o.strategy = FX_STRATEGY_SEPARABLE;
    FXT_CHECK_STATUS(fx_filter_plan_create(ctx, k, &o, &d, &p), FX_EINVAL, ctx);
    FXT_CHECK(p == NULL);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

/* Alpha passes through unless asked; --convolve flips; the emboss offset is mid-grey. */
FXT_TEST(alpha_convolve_and_offset)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    fx_image src = random_image(ctx, 9, 7, 4, FX_U8, 5), dst, flipped;
    fx_kernel *k, *kf;
    FXT_CHECK_OK(fx_kernel_parse(ctx, "1 2 3; 4 5 6; 7 8 9 / 45", &k), ctx);
    FXT_CHECK_OK(fx_kernel_parse(ctx, "9 8 7; 6 5 4; 3 2 1 / 45", &kf), ctx);
    fx_filter_options o;
    fx_filter_options_init(&o);
    FXT_CHECK_OK(fx_filter(ctx, k, &o, &src, &dst), ctx);
    int alpha_kept = 1;
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 9; x++)
            alpha_kept &= get(&dst, x, y, 3) == get(&src, x, y, 3);
    FXT_CHECK(alpha_kept);
    o.convolve = 1;
    FXT_CHECK_OK(fx_filter(ctx, kf, &o, &src, &flipped), ctx);
    FXT_CHECK(memcmp(dst.data, flipped.data, dst.stride * 7) == 0);
    fx_image_free(&dst);
    fx_image_free(&flipped);
    fx_kernel_free(k);
    fx_kernel_free(kf);
    /* emboss on a flat image: every output is exactly 128. */
    fx_image flat;
    fx_image_alloc(ctx, &flat, 5, 5, 1, FX_U8);
    memset(flat.data, 77, flat.stride * 5);
    FXT_CHECK_OK(fx_kernel_parse(ctx, "emboss", &k), ctx);
    fx_filter_options_init(&o);
    FXT_CHECK_OK(fx_filter(ctx, k, &o, &flat, &dst), ctx);
    FXT_CHECK(dst.data[0] == 128 && dst.data[12] == 128 && dst.data[24] == 128);
    fx_image_free(&dst);
    fx_image_free(&flat);
    fx_kernel_free(k);
    fx_image_free(&src);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(u32_product_finish_equals_exact), FXT_CASE(float_scale_finish_equals_exact),
         FXT_CASE(tap_words_sum_as_the_row_filter), FXT_CASE(exact_direct_matches_reference),
         FXT_CASE(exact_separable_equals_direct), FXT_CASE(exact_box_equals_direct),
         FXT_CASE(kernel_larger_than_image), FXT_CASE(exact_rounding_rules),
         FXT_CASE(separable_u8_narrow_rows_match_reference), FXT_CASE(box_u8_matches_cv_blur_rule),
         FXT_CASE(box_preset_row_tail_every_strategy), FXT_CASE(box_finish_follows_cv_blur),
         FXT_CASE(gaussian_u8_separable_equals_direct), FXT_CASE(gaussian_u8_separable_every_width),
         FXT_CASE(serial_and_threaded_runs_agree), FXT_CASE(float_direct_matches_fma_chain),
         FXT_CASE(float_separable_within_rounding), FXT_CASE(planner_picks_by_kernel),
         FXT_CASE(gaussian_weights_follow_opencv), FXT_CASE(bad_kernels_are_named),
         FXT_CASE(bad_options_are_named), FXT_CASE(alpha_convolve_and_offset))
