/* Taps: a kernel resolved for one plan, and what the planner learns from it.
 *
 * Exactness: on integer images a kernel whose weights are rational (integer numerators
 * over one denominator: text of integers with "/ DIVISOR", the presets, weights that
 * are exact binary fractions) accumulates S = sum num * sample in integers, so every
 * strategy gives the same bytes; the output is S / den rounded by one rule. Any other
 * kernel accumulates in float with fused multiply-adds in one fixed tap order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_internal.h"

/* Weights that are binary fractions with at most this many fraction bits are exact. */
#define DYADIC_MAX_BITS 30
/* Numerators beyond this are not kept exactly. */
#define EXACT_NUM_MAX ((double)((int64_t)1 << 40))
/* Exact sums stay below 2^53, where double holds every integer (the finish is in double). */
#define EXACT_SUM_LIMIT 9007199254740992.0 /* 2^53 */
#define I32_SUM_LIMIT 2147483647.0
#define F32_EXACT_LIMIT 16777216.0 /* 2^24: every whole number below is a float */
/* A float kernel counts as rank 1 when its outer-product fit is this close (relative). */
#define RANK1_FLOAT_TOLERANCE 1e-7
/* cv2.blur's fixed-point divide for 8-bit sums of areas up to 256 (box_filter.simd.hpp). */
#define OPENCV_BOX_SHIFT 23
#define OPENCV_BOX_MAX_AREA 256
/* cv2.blur's sums are int32 up to these areas (16-bit, 8-bit images) and double above
 * (box_filter.simd.hpp, getRowSumFilter's sumType): the float rule in the SIMD blocks
 * and the double rule in the row's scalar tail, then the double rule everywhere. */
#define OPENCV_BOX16_MAX_AREA 32768      /* 2^15 */
#define OPENCV_BOX8_INT_MAX_AREA 8388608 /* 2^23 */
#define U32_LIMIT 4294967296.0

static double sample_max(fx_sample_type type)
{
    return type == FX_U8 ? 255.0 : type == FX_U16 ? 65535.0 : 1.0;
}

/* Mid-grey, the emboss offset: 128, 32768, 0.5. */
static double mid_scale(fx_sample_type type)
{
    return type == FX_F32 ? 0.5 : (sample_max(type) + 1) / 2;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* v == num / 2^bits with the fewest bits (<= DYADIC_MAX_BITS) and |num| <= EXACT_NUM_MAX? */
static bool dyadic(double v, int *bits, int64_t *num)
{
    for (int b = 0; b <= DYADIC_MAX_BITS; b++) {
        double scaled = ldexp(v, b);
        if (fabs(scaled) > EXACT_NUM_MAX) return false;
        if (scaled == floor(scaled)) {
            *bits = b;
            *num = (int64_t)scaled;
            return true;
        }
    }
    return false;
}

/* Weights that are all binary fractions become exact numerators over 2^bits. */
static bool weights_to_exact(const double *w, size_t n, int64_t *num, int64_t *den)
{
    int max_bits = 0;
    for (size_t i = 0; i < n; i++) {
        int b;
        int64_t v;
        if (!dyadic(w[i], &b, &v)) return false;
        if (b > max_bits) max_bits = b;
    }
    for (size_t i = 0; i < n; i++)
        num[i] = (int64_t)ldexp(w[i], max_bits);
    *den = (int64_t)1 << max_bits;
    return true;
}

/* Reverse a row-major kw x kh array of `size`-byte elements in both directions. */
static void flip(void *a, size_t count, size_t size)
{
    char tmp[8];
    char *p = a;
    for (size_t i = 0, j = count - 1; i < j; i++, j--) {
        memcpy(tmp, p + i * size, size);
        memcpy(p + i * size, p + j * size, size);
        memcpy(p + j * size, tmp, size);
    }
}

/* Exact rank 1: num[i][j] = col[i] * row[j] with integers (row primitive). */
static bool exact_rank1(const int64_t *num, int kw, int kh, int64_t *row, int64_t *col)
{
    int r0 = -1, c0 = -1;
    for (int i = 0; i < kh && r0 < 0; i++)
        for (int j = 0; j < kw; j++)
            if (num[(size_t)i * kw + j]) {
                r0 = i;
                c0 = j;
                break;
            }
    if (r0 < 0) return false;
    int64_t g = 0;
    for (int j = 0; j < kw; j++)
        g = gcd64(g, num[(size_t)r0 * kw + j]);
    for (int j = 0; j < kw; j++)
        row[j] = num[(size_t)r0 * kw + j] / g;
    for (int i = 0; i < kh; i++) {
        int64_t a = num[(size_t)i * kw + c0];
        if (a % row[c0]) return false;
        col[i] = a / row[c0];
    }
    for (int i = 0; i < kh; i++)
        for (int j = 0; j < kw; j++)
            if ((__int128)col[i] * row[j] != num[(size_t)i * kw + j]) return false;
    return true;
}

/* Float rank 1 within RANK1_FLOAT_TOLERANCE of the largest weight. */
static bool float_rank1(const double *w, int kw, int kh, float *row, float *col)
{
    size_t n = (size_t)kw * kh, pivot = 0;
    for (size_t i = 1; i < n; i++)
        if (fabs(w[i]) > fabs(w[pivot])) pivot = i;
    double wmax = fabs(w[pivot]);
    if (wmax == 0) return false;
    int p = (int)(pivot / (size_t)kw), q = (int)(pivot % (size_t)kw);
    for (int j = 0; j < kw; j++)
        row[j] = (float)w[(size_t)p * kw + j];
    for (int i = 0; i < kh; i++)
        col[i] = (float)(w[(size_t)i * kw + q] / w[pivot]);
    for (int i = 0; i < kh; i++)
        for (int j = 0; j < kw; j++)
            if (fabs(w[(size_t)i * kw + j] - (double)col[i] * row[j]) >
                RANK1_FLOAT_TOLERANCE * wmax)
                return false;
    return true;
}

void fxi_taps_free(fxi_taps *t)
{
    free(t->num);
    free(t->num_row);
    free(t->num_col);
    free(t->w);
    free(t->w_row);
    free(t->w_col);
    free(t->nz);
    free(t->num_f);
    free(t->num_row_f);
    free(t->num_col_f);
    memset(t, 0, sizeof *t);
}

static fx_status alloc_taps(fx_context *ctx, fxi_taps *t, size_t n)
{
    FXI_TRY(fxi_calloc(ctx, n, sizeof *t->num, (void **)&t->num));
    FXI_TRY(fxi_calloc(ctx, n, sizeof *t->w, (void **)&t->w));
    FXI_TRY(fxi_calloc(ctx, (size_t)t->kw, sizeof *t->num_row, (void **)&t->num_row));
    FXI_TRY(fxi_calloc(ctx, (size_t)t->kh, sizeof *t->num_col, (void **)&t->num_col));
    FXI_TRY(fxi_calloc(ctx, (size_t)t->kw, sizeof *t->w_row, (void **)&t->w_row));
    FXI_TRY(fxi_calloc(ctx, (size_t)t->kh, sizeof *t->w_col, (void **)&t->w_col));
    FXI_TRY(fxi_calloc(ctx, n, sizeof *t->nz, (void **)&t->nz));
    return FX_OK;
}

/* The base weights before flip and scale: exact numerators (return true) or doubles;
 * gaussians on float images also give their 1-D factors. */
static fx_status base_weights(fx_context *ctx, const fx_kernel *k, fx_sample_type type, fxi_taps *t,
                              double *dw, int64_t *den, bool *exact, bool *gauss_fixed,
                              bool *gauss_float)
{
    size_t n = (size_t)k->width * k->height;
    *exact = *gauss_fixed = *gauss_float = false;
    *den = 1;
    if (k->kind == FXI_KERNEL_GAUSSIAN) {
        double *scratch;
        FXI_TRY(fxi_malloc(ctx, (size_t)k->width * sizeof *scratch, (void **)&scratch));
        if (type != FX_F32) {
            int bits = type == FX_U8 ? 8 : 16;
            fxi_gaussian_fixed(k->width, k->sigma_x, bits, scratch, t->num_row);
            fxi_gaussian_fixed(k->height, k->sigma_y, bits, scratch, t->num_col);
            for (int i = 0; i < k->height; i++)
                for (int j = 0; j < k->width; j++)
                    t->num[(size_t)i * k->width + j] = t->num_col[i] * t->num_row[j];
            *den = (int64_t)1 << (2 * bits);
            *exact = *gauss_fixed = true;
        } else {
            fxi_gaussian_float(k->width, k->sigma_x, scratch);
            for (int j = 0; j < k->width; j++)
                t->w_row[j] = (float)scratch[j];
            fxi_gaussian_float(k->height, k->sigma_y, scratch);
            for (int i = 0; i < k->height; i++)
                t->w_col[i] = (float)scratch[i];
            *gauss_float = true;
        }
        free(scratch);
        for (int i = 0; i < k->height; i++)
            for (int j = 0; j < k->width; j++)
                dw[(size_t)i * k->width + j] =
                    *exact ? (double)t->num[(size_t)i * k->width + j] / (double)*den
                           : (double)t->w_col[i] * t->w_row[j];
        return FX_OK;
    }
    memcpy(dw, k->weights, n * sizeof *dw);
    if (k->rational) {
        memcpy(t->num, k->exact.num, n * sizeof *t->num);
        *den = k->exact.den;
        *exact = true;
    } else {
        *exact = weights_to_exact(dw, n, t->num, den);
    }
    return FX_OK;
}

/* Multiply exact numerators by scale when scale is a binary fraction. */
static bool scale_exact(int64_t *num, size_t n, int64_t *den, double scale)
{
    int bits;
    int64_t p;
    if (!dyadic(scale, &bits, &p) || bits > DYADIC_MAX_BITS) return false;
    for (size_t i = 0; i < n; i++) {
        if (__builtin_mul_overflow(num[i], p, &num[i]) || fabs((double)num[i]) > EXACT_NUM_MAX)
            return false;
    }
    return !__builtin_mul_overflow(*den, (int64_t)1 << bits, den);
}

/* Reduce num/den by their common divisor. */
static void reduce(int64_t *num, size_t n, int64_t *den)
{
    int64_t g = *den;
    for (size_t i = 0; i < n && g > 1; i++)
        g = gcd64(g, num[i]);
    if (g <= 1) return;
    for (size_t i = 0; i < n; i++)
        num[i] /= g;
    *den /= g;
}

/* cv2.blur on 8-bit images with area <= 256: ((S + dd) * ds) >> 23. */
static void opencv_box_finish(int64_t area, fxi_finish *f)
{
    double scalef = ldexp(1.0, OPENCV_BOX_SHIFT) / (double)area;
    double ds = floor(scalef);
    double dd = (double)(area / 2);
    if (scalef - ds < 0.5)
        dd += 1;
    else
        ds += 1;
    f->mode = FXI_ROUND_MULSHIFT;
    f->add = dd;
    f->mul = ds;
    f->unit = ldexp(1.0, -OPENCV_BOX_SHIFT);
}

/* The integer forms of the finish rule that the CPU's vector loops use. */
static void integer_shortcuts(const fxi_taps *t, size_t n, fxi_finish *f, int64_t den,
                              double offset, double bound)
{
    f->pow2_shift = -1;
    if (f->mode == FXI_ROUND_HALF_EVEN && (den & (den - 1)) == 0 && offset == floor(offset)) {
        f->pow2_shift = 0;
        while (((int64_t)1 << f->pow2_shift) < den)
            f->pow2_shift++;
        f->int_offset = (int64_t)offset;
    }
    bool nonneg = true;
    for (size_t i = 0; i < n; i++)
        nonneg = nonneg && t->num[i] >= 0;
    f->u32_mulshift = f->mode == FXI_ROUND_MULSHIFT && nonneg && bound + f->add < U32_LIMIT &&
                      f->mul < U32_LIMIT && f->add == floor(f->add) && f->mul == floor(f->mul);
    f->u32_product = f->u32_mulshift && (bound + f->add) * f->mul < U32_LIMIT;
}

/* cv2.blur beyond the fixed-point divide: float(S) * float(1/area) in its SIMD blocks and
 * S * (1/area) in double in each row's scalar tail, or in double everywhere once its
 * sums are double. */
static void opencv_box_scale(int64_t area, fx_sample_type type, int64_t row_elements, fxi_finish *f)
{
    const int64_t int_max = type == FX_U8 ? OPENCV_BOX8_INT_MAX_AREA : OPENCV_BOX16_MAX_AREA;
    f->mode = area <= int_max ? FXI_ROUND_FLOAT_SCALE : FXI_ROUND_DOUBLE_SCALE;
    f->scale = 1.0 / (double)area;
    f->mul = (float)f->scale;
    f->scalar_from = row_elements - row_elements % FXI_OPENCV_BOX_TAIL_BLOCK;
}

static fx_status resolve(fx_context *ctx, const fx_kernel *k, const fx_filter_options *o,
                         fx_sample_type type, int64_t row_elements, fxi_taps *t, double *dw)
{
    const int kw = k->width, kh = k->height;
    const size_t n = (size_t)kw * kh;
    t->kw = kw;
    t->kh = kh;
    t->integer_image = type != FX_F32;
    t->maxval = (float)sample_max(type);
    FXI_TRY(alloc_taps(ctx, t, n));

    int64_t den;
    bool exact, gauss_fixed, gauss_float;
    FXI_TRY(base_weights(ctx, k, type, t, dw, &den, &exact, &gauss_fixed, &gauss_float));

    /* Convolution flips the kernel; the anchor flips with it. */
    int ax = kw / 2, ay = kh / 2;
    FXI_TRY(fxi_parse_anchor(ctx, o->anchor, kw, kh, &ax, &ay));
    t->ax = ax;
    t->ay = ay;
    if (o->convolve) {
        flip(dw, n, sizeof *dw);
        flip(t->num, n, sizeof *t->num);
        flip(t->w_row, (size_t)kw, sizeof *t->w_row);
        flip(t->w_col, (size_t)kh, sizeof *t->w_col);
        t->ax = kw - 1 - t->ax;
        t->ay = kh - 1 - t->ay;
    }

    double offset = o->offset + (k->mid_offset ? mid_scale(type) : 0);
    bool plain = o->scale == 1 && offset == 0; /* the presets' own rounding rules apply */
    if (o->scale != 1) {
        for (size_t i = 0; i < n; i++)
            dw[i] *= o->scale;
        if (gauss_float)
            for (int j = 0; j < kw; j++)
                t->w_row[j] = (float)(t->w_row[j] * o->scale);
        if (exact) exact = scale_exact(t->num, n, &den, o->scale);
    }

    /* Exact only on integer images, and only while sums stay below 2^53. */
    double bound = 0;
    if (exact) {
        double abs_sum = 0;
        for (size_t i = 0; i < n; i++)
            abs_sum += fabs((double)t->num[i]);
        bound = abs_sum * sample_max(type);
    }
    exact = exact && t->integer_image && bound + fabs(offset * (double)den) < EXACT_SUM_LIMIT;

    if (exact) {
        fxi_finish *f = &t->finish;
        f->maxval = sample_max(type);
        f->mode = FXI_ROUND_HALF_EVEN;
        if (plain && gauss_fixed) { /* cv2.GaussianBlur: round half up */
            f->mode = FXI_ROUND_MULSHIFT;
            f->add = (double)(den / 2);
            f->mul = 1;
            f->unit = 1.0 / (double)den;
        } else if (plain && k->box && type == FX_U8 && (int64_t)n <= OPENCV_BOX_MAX_AREA) {
            opencv_box_finish((int64_t)n, f); /* num are all 1 and den = n */
        } else if (plain && k->box) {
            opencv_box_scale((int64_t)n, type, row_elements, f); /* num are all 1, den = n */
        } else {
            reduce(t->num, n, &den);
        }
        f->den = (double)den;
        f->bias = offset * (double)den;
        integer_shortcuts(t, n, f, den, offset, bound);
        t->acc = bound < I32_SUM_LIMIT ? FXI_ACC_I32 : FXI_ACC_I64;
    } else {
        t->acc = FXI_ACC_F32;
    }
    t->offset = (float)offset;
    t->float_exact = exact && bound < F32_EXACT_LIMIT;
    if (t->float_exact) {
        FXI_TRY(fxi_calloc(ctx, n, sizeof *t->num_f, (void **)&t->num_f));
        FXI_TRY(fxi_calloc(ctx, (size_t)kw, sizeof *t->num_row_f, (void **)&t->num_row_f));
        FXI_TRY(fxi_calloc(ctx, (size_t)kh, sizeof *t->num_col_f, (void **)&t->num_col_f));
        for (size_t i = 0; i < n; i++)
            t->num_f[i] = (float)t->num[i];
    }
    for (size_t i = 0; i < n; i++)
        t->w[i] = exact ? (float)((double)t->num[i] / (double)den) : (float)dw[i];

    /* What the planner needs to know. */
    t->nonzero = 0;
    t->box = true;
    for (size_t i = 0; i < n; i++) {
        if (exact ? t->num[i] != 0 : t->w[i] != 0) t->nz[t->nonzero++] = (int32_t)i;
        if (exact ? t->num[i] != t->num[0] : t->w[i] != t->w[0]) t->box = false;
    }
    t->box = t->box && t->nonzero == (int)n;
    if (exact)
        t->rank1 = exact_rank1(t->num, kw, kh, t->num_row, t->num_col);
    else if (gauss_float)
        t->rank1 = true; /* the 1-D factors, as OpenCV's sepFilter2D applies them */
    else
        t->rank1 = float_rank1(dw, kw, kh, t->w_row, t->w_col);
    if (t->float_exact && t->rank1) {
        for (int j = 0; j < kw; j++)
            t->num_row_f[j] = (float)t->num_row[j];
        for (int i = 0; i < kh; i++)
            t->num_col_f[i] = (float)t->num_col[i];
    }
    if (exact && t->rank1) { /* float factors too, for the fft path */
        for (int j = 0; j < kw; j++)
            t->w_row[j] = (float)((double)t->num_row[j] / (double)den);
        for (int i = 0; i < kh; i++)
            t->w_col[i] = (float)t->num_col[i];
    }
    return FX_OK;
}

fx_status fxi_taps_resolve(fx_context *ctx, const fx_kernel *k, const fx_filter_options *o,
                           fx_sample_type type, int64_t row_elements, fxi_taps *t)
{
    memset(t, 0, sizeof *t);
    FXI_RETURN_IF(!fx_sample_size(type), FX_EINVAL, "unknown sample type %d", (int)type);
    FXI_RETURN_IF(!isfinite(o->scale) || !isfinite(o->offset), FX_EINVAL,
                 "--scale and --offset must be finite numbers");
    double *dw;
    FXI_TRY(fxi_malloc(ctx, (size_t)k->width * k->height * sizeof *dw, (void **)&dw));
    fx_status st = resolve(ctx, k, o, type, row_elements, t, dw);
    free(dw);
    if (st != FX_OK) fxi_taps_free(t);
    return st;
}
