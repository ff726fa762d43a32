/* Padded rows in and finished rows out: the CPU strategies see only rows that already
 * carry their border, in the working type, and hand back accumulators; this file is
 * the only place that knows sample types, border rules and rounding. */
#include <math.h>
#include <string.h>

#include "core/cpu_simd.h"
#include "filter/filter_internal.h"

size_t fxi_acc_size(fxi_acc acc)
{
    return acc == FXI_ACC_I64 ? sizeof(int64_t) : acc == FXI_ACC_RAW ? 1 : sizeof(float);
}

static double load(const fx_image *img, const uint8_t *row, int64_t i)
{
    switch (img->type) {
    case FX_U8: return row[i];
    case FX_U16: return ((const uint16_t *)(const void *)row)[i];
    default: return ((const float *)(const void *)row)[i];
    }
}

static void put(fxi_acc acc, void *out, int64_t i, double v)
{
    switch (acc) {
    case FXI_ACC_RAW: ((uint8_t *)out)[i] = (uint8_t)v; break; /* 8-bit images only */
    case FXI_ACC_I32: ((int32_t *)out)[i] = (int32_t)v; break;
    case FXI_ACC_I64: ((int64_t *)out)[i] = (int64_t)v; break;
    default: ((float *)out)[i] = (float)v; break;
    }
}

/* The straight runs of the common conversions, vectorised for each instruction set. */
#define DEFINE_WIDEN(suffix, attr)                                                                 \
    attr static void widen_u8_i32_##suffix(const uint8_t *s, int32_t *d, int64_t n)                \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = s[i];                                                                           \
    }                                                                                              \
    attr static void widen_u8_f32_##suffix(const uint8_t *s, float *d, int64_t n)                  \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = s[i];                                                                           \
    }                                                                                              \
    attr static void widen_u16_f32_##suffix(const uint16_t *s, float *d, int64_t n)                \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = s[i];                                                                           \
    }
FXI_SIMD_VARIANTS(DEFINE_WIDEN)

/* Convert `count` samples of a source row starting at sample s0 to the working type
 * at out[o0...]: the straight run inside the image. */
static void convert_run(const fx_image *img, fxi_acc acc, const uint8_t *row, int64_t s0,
                        int64_t count, void *out, int64_t o0)
{
    const uint16_t *row16 = (const uint16_t *)(const void *)row;
    if (acc == FXI_ACC_RAW) {
        size_t size = fx_sample_size(img->type);
        memcpy((uint8_t *)out + o0 * (int64_t)size, row + s0 * (int64_t)size, (size_t)count * size);
    } else if (img->type == FX_U8 && acc == FXI_ACC_I32) {
        FXI_PICK(widen_u8_i32)(row + s0, (int32_t *)out + o0, count);
    } else if (img->type == FX_U8 && acc == FXI_ACC_F32) {
        FXI_PICK(widen_u8_f32)(row + s0, (float *)out + o0, count);
    } else if (img->type == FX_U16 && acc == FXI_ACC_F32) {
        FXI_PICK(widen_u16_f32)(row16 + s0, (float *)out + o0, count);
    } else if (img->type == FX_F32 && acc == FXI_ACC_F32) {
        memcpy((float *)out + o0, (const float *)(const void *)row + s0,
               (size_t)count * sizeof(float));
    } else {
        for (int64_t i = 0; i < count; i++)
            put(acc, out, o0 + i, load(img, row, s0 + i));
    }
}

void fxi_padded_row(const fxi_filter_job *job, fxi_acc acc, int64_t y, int64_t x0, int64_t x1,
                    int left, int right, void *out)
{
    const fx_image *src = job->src;
    const int64_t W = src->width, C = job->channels;
    const int64_t first = x0 - left, last = x1 + right; /* pixel columns [first, last) */
    int64_t yy = fxi_border_index(y, src->height, job->border);
    if (yy < 0) { /* a constant row */
        for (int64_t x = first; x < last; x++)
            for (int64_t c = 0; c < C; c++)
                put(acc, out, (x - first) * C + c, job->border_value[c]);
        return;
    }
    const uint8_t *row = fx_image_row(src, (int)yy);
    /* The part inside the image in one run, the overhang pixel by pixel. */
    int64_t in0 = first < 0 ? 0 : first, in1 = last > W ? W : last;
    if (in1 > in0) convert_run(src, acc, row, in0 * C, (in1 - in0) * C, out, (in0 - first) * C);
    for (int64_t x = first; x < last; x++) {
        if (x >= in0 && x < in1) {
            x = in1 - 1;
            continue;
        }
        int64_t xx = fxi_border_index(x, W, job->border);
        if (acc == FXI_ACC_RAW && xx >= 0) { /* the samples as they are: one copy */
            const size_t pixel = (size_t)C * fx_sample_size(src->type);
            memcpy((uint8_t *)out + (size_t)(x - first) * pixel, row + (size_t)xx * pixel, pixel);
            continue;
        }
        for (int64_t c = 0; c < C; c++)
            put(acc, out, (x - first) * C + c,
                xx < 0 ? job->border_value[c] : load(src, row, xx * C + c));
    }
}

/* Finishing a whole row when every channel is filtered: one loop per (accumulator,
 * output type), the rounding rule chosen outside it, so each vectorises. The
 * arithmetic is fxi_finish_exact_at / fxi_finish_float's, written out for the loop;
 * `first` is the row element of in[0] (FLOAT_SCALE's rule changes at scalar_from). */
/* Clamp to [0, max]: two selections the compiler turns into max and min. */

static inline int32_t clamp_i32(int32_t v, int32_t max)
{
    v = v > 0 ? v : 0;
    return v < max ? v : max;
}
static inline int64_t clamp_i64(int64_t v, int64_t max)
{
    v = v > 0 ? v : 0;
    return v < max ? v : max;
}
static inline double clamp_f64(double v, double max)
{
    v = v > 0 ? v : 0;
    return v < max ? v : max;
}
static inline float clamp_f32(float v, float max)
{
    v = v > 0 ? v : 0;
    return v < max ? v : max;
}
#define CLAMP(v, max)                                                                              \
    _Generic((v), int32_t                                                                          \
             : clamp_i32, int64_t                                                                  \
             : clamp_i64, double                                                                   \
             : clamp_f64, float                                                                    \
             : clamp_f32)(v, max)
#define DEFINE_FINISH(suffix, attr)                                                                \
    DEFINE_FINISH_EXACT(int32_t, int32_t, uint8_t, i32_u8_##suffix, attr)                          \
    DEFINE_FINISH_EXACT(int32_t, int32_t, uint16_t, i32_u16_##suffix, attr)                        \
    DEFINE_FINISH_EXACT(int64_t, int64_t, uint8_t, i64_u8_##suffix, attr)                          \
    DEFINE_FINISH_EXACT(int64_t, int64_t, uint16_t, i64_u16_##suffix, attr)                        \
    DEFINE_FINISH_EXACT(float, int32_t, uint8_t, f32x_u8_##suffix, attr)                           \
    DEFINE_FINISH_EXACT(float, int32_t, uint16_t, f32x_u16_##suffix, attr)                         \
    attr static void finish_f32_u8_##suffix(const float *a, uint8_t *d, int64_t n, float max)      \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++) {                                                          \
            float r = nearbyintf(a[x]);                                                            \
            d[x] = (uint8_t)CLAMP(r, max);                                                         \
        }                                                                                          \
    }                                                                                              \
    attr static void finish_f32_u16_##suffix(const float *a, uint16_t *d, int64_t n, float max)    \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++) {                                                          \
            float r = nearbyintf(a[x]);                                                            \
            d[x] = (uint16_t)CLAMP(r, max);                                                        \
        }                                                                                          \
    }
#define DEFINE_FINISH_EXACT(SIN, S, D, name, attr)                                                 \
    attr static void finish_##name(const fxi_finish *f, const SIN *in, D *d, int64_t n,            \
                                   int64_t first)                                                  \
    {                                                                                              \
        const double max = f->maxval;                                                              \
        if (f->mode == FXI_ROUND_HALF_EVEN) {                                                      \
            const double bias = f->bias, den = f->den;                                             \
            for (int64_t x = 0; x < n; x++) {                                                      \
                double q = nearbyint(((double)((S)in[x]) + bias) / den);                           \
                d[x] = (D)CLAMP(q, max);                                                           \
            }                                                                                      \
        } else if (f->pow2_shift >= 0) {                                                           \
            /* nearest, ties to even, by shifts: s = q * 2^k + r with 0 <= r < 2^k */              \
            const int k = f->pow2_shift;                                                           \
            const S half = k ? ((S)1 << (k - 1)) - 1 : 0, off = (S)f->int_offset;                  \
            const S odd = k ? 1 : 0; /* den = 1: nothing to round */                               \
            const S top = (S)max;                                                                  \
            for (int64_t x = 0; x < n; x++) {                                                      \
                S v = (S)in[x];                                                                    \
                S q = ((v + half + ((v >> k) & odd)) >> k) + off;                                  \
                d[x] = (D)CLAMP(q, top);                                                           \
            }                                                                                      \
        } else if (f->mode == FXI_ROUND_MULSHIFT && f->mul == 1) {                                 \
            /* fixed point rounded half up (Gaussian): integers only, exact */                     \
            const S add = (S)f->add;                                                               \
            const int shift = -ilogb(f->unit);                                                     \
            for (int64_t x = 0; x < n; x++) {                                                      \
                S q = (((S)in[x]) + add) >> shift;                                                 \
                d[x] = (D)CLAMP(q, (S)max);                                                        \
            }                                                                                      \
        } else if (f->mode == FXI_ROUND_MULSHIFT && f->u32_product) {                              \
            /* fixed point whose products fit 32 bits: 8 lanes of 32-bit multiplies */             \
            const uint32_t add = (uint32_t)f->add, mul = (uint32_t)f->mul;                         \
            const int shift = -ilogb(f->unit);                                                     \
            for (int64_t x = 0; x < n; x++) {                                                      \
                uint32_t q = ((uint32_t)(((S)in[x]) + add) * mul) >> shift;                        \
                d[x] = (D)(q > (uint32_t)max ? (uint32_t)max : q);                                 \
            }                                                                                      \
        } else if (f->mode == FXI_ROUND_MULSHIFT && f->u32_mulshift) {                             \
            /* fixed point with 32-bit factors: a 64-bit product, then the shift */                \
            const uint32_t add = (uint32_t)f->add, mul = (uint32_t)f->mul;                         \
            const int shift = -ilogb(f->unit);                                                     \
            for (int64_t x = 0; x < n; x++) {                                                      \
                uint64_t q = ((uint64_t)(uint32_t)(((S)in[x]) + add) * mul) >> shift;              \
                d[x] = (D)(q > (uint64_t)max ? (uint64_t)max : q);                                 \
            }                                                                                      \
        } else if (f->mode == FXI_ROUND_MULSHIFT) {                                                \
            const double add = f->add, mul = f->mul * f->unit;                                     \
            for (int64_t x = 0; x < n; x++) {                                                      \
                double q = floor(((double)((S)in[x]) + add) * mul);                                \
                d[x] = (D)CLAMP(q, max);                                                           \
            }                                                                                      \
        } else {                                                                                   \
            /* FLOAT_SCALE: the float rule before scalar_from; both: the double rule after */      \
            int64_t split = f->mode == FXI_ROUND_FLOAT_SCALE ? f->scalar_from - first : 0;         \
            split = split < 0 ? 0 : split > n ? n : split;                                         \
            const float mul = (float)f->mul;                                                       \
            for (int64_t x = 0; x < split; x++) {                                                  \
                float q = nearbyintf((float)((S)in[x]) * mul);                                     \
                d[x] = (D)CLAMP(q, (float)max);                                                    \
            }                                                                                      \
            const double scale = f->scale;                                                         \
            for (int64_t x = split; x < n; x++) {                                                  \
                double q = nearbyint((double)((S)in[x]) * scale);                                  \
                d[x] = (D)CLAMP(q, max);                                                           \
            }                                                                                      \
        }                                                                                          \
    }
FXI_SIMD_VARIANTS(DEFINE_FINISH)

/* Every channel filtered: the vectorised loops. False when this combination has none. */
static bool store_fast(const fxi_filter_job *job, fxi_acc acc, uint8_t *row, int64_t n,
                       int64_t first, const void *values)
{
    const fxi_taps *t = job->taps;
    const fxi_finish *f = &t->finish;
    const fx_sample_type type = job->dst->type;
    if (type == FX_F32) {
        if (acc != FXI_ACC_F32) return false;
        memcpy(row, values, (size_t)n * sizeof(float));
        return true;
    }
    bool u8 = type == FX_U8;
    switch (acc) {
    case FXI_ACC_I32:
        if (u8)
            FXI_PICK(finish_i32_u8)(f, values, row, n, first);
        else
            FXI_PICK(finish_i32_u16)(f, values, (uint16_t *)(void *)row, n, first);
        return true;
    case FXI_ACC_I64:
        if (u8)
            FXI_PICK(finish_i64_u8)(f, values, row, n, first);
        else
            FXI_PICK(finish_i64_u16)(f, values, (uint16_t *)(void *)row, n, first);
        return true;
    case FXI_ACC_F32X:
        if (u8)
            FXI_PICK(finish_f32x_u8)(f, values, row, n, first);
        else
            FXI_PICK(finish_f32x_u16)(f, values, (uint16_t *)(void *)row, n, first);
        return true;
    default:
        if (u8)
            FXI_PICK(finish_f32_u8)(values, row, n, t->maxval);
        else
            FXI_PICK(finish_f32_u16)(values, (uint16_t *)(void *)row, n, t->maxval);
        return true;
    }
}

const void *fxi_padded_row_view(const fxi_filter_job *job, fxi_acc acc, int64_t y, int64_t x0,
                                int64_t x1, int left, int right, void *out)
{
    const fx_image *src = job->src;
    bool same_type = acc == FXI_ACC_RAW || (acc == FXI_ACC_F32 && src->type == FX_F32);
    if (same_type && y >= 0 && y < src->height && x0 - left >= 0 && x1 + right <= src->width)
        return (const uint8_t *)fx_image_row(src, (int)y) +
               (size_t)((x0 - left) * job->channels) * fx_sample_size(src->type);
    fxi_padded_row(job, acc, y, x0, x1, left, right, out);
    return out;
}

void fxi_store_row(const fxi_filter_job *job, fxi_acc acc, int y, int64_t x0, int64_t x1,
                   const void *values)
{
    fx_image *dst = job->dst;
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, F = job->filter_channels, n = (x1 - x0) * C;
    uint8_t *row = fx_image_row(dst, y);
    if (F == C &&
        store_fast(job, acc, row + (size_t)(x0 * C) * fx_sample_size(dst->type), n, x0 * C, values))
        return;
    for (int64_t i = 0; i < n; i++) {
        if (F < C && i % C >= F) continue; /* alpha passes through */
        double v;
        if (acc == FXI_ACC_F32) {
            float f = ((const float *)values)[i];
            v = t->integer_image ? fxi_finish_float(f, t->maxval) : f;
        } else {
            double s = acc == FXI_ACC_I32    ? ((const int32_t *)values)[i]
                       : acc == FXI_ACC_F32X ? ((const float *)values)[i]
                                             : (double)((const int64_t *)values)[i];
            v = fxi_finish_exact_at(&t->finish, s, x0 * C + i);
        }
        int64_t at = x0 * C + i;
        switch (dst->type) {
        case FX_U8: row[at] = (uint8_t)v; break;
        case FX_U16: ((uint16_t *)(void *)row)[at] = (uint16_t)v; break;
        default: ((float *)(void *)row)[at] = (float)v; break;
        }
    }
}

void fxi_copy_unfiltered(const fxi_filter_job *job, int y0, int y1)
{
    const int C = job->channels, F = job->filter_channels;
    if (F == C) return;
    size_t size = fx_sample_size(job->src->type);
    for (int y = y0; y < y1; y++) {
        const uint8_t *s = fx_image_row(job->src, y);
        uint8_t *d = fx_image_row(job->dst, y);
        for (int x = 0; x < job->src->width; x++)
            for (int c = F; c < C; c++)
                memcpy(d + ((size_t)x * C + c) * size, s + ((size_t)x * C + c) * size, size);
    }
}
