/* Per-output arithmetic of the filter job, shared by the CPU strategies and the CUDA
 * kernels (FX_HD is empty in C and __host__ __device__ in CUDA), so the CPU tests run
 * exactly what each GPU thread computes.
 *
 * - Border index formulas: OpenCV's (copy.cpp borderInterpolate), in closed form, valid
 *   for any overhang (a kernel larger than the image, 1xN and Nx1 images).
 * - Finishing an exact sum: integer kernels accumulate S = sum of numerator * sample
 *   exactly; the output is S / den rounded by the kernel's rule. Every rule is computed
 *   in double, where it is exact for |S| < 2^53 (the planner checks the bound), except
 *   cv2.blur's float rule, which is OpenCV's float arithmetic. cv2.blur's rules depend on
 *   the element's place in its row (its SIMD blocks and scalar tail), so the finish
 *   takes the element index x * channels + c.
 *
 * Keep this header to the C/CUDA common subset: no VLAs, no C++.
 */
#ifndef FXKIT_FILTER_MATH_H
#define FXKIT_FILTER_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/border_math.h"
#include "core/host_device.h"

/* Border modes, same values as fx_border. */
enum { FXI_CONSTANT = 0, FXI_REPLICATE = 1, FXI_REFLECT = 2, FXI_REFLECT101 = 3, FXI_WRAP = 4 };

/* The source index for position p of a line of n samples under `border`, or -1 for
 * the constant border outside the line. */
static inline FX_HD int64_t fxi_border_index(int64_t p, int64_t n, int border)
{
    if (p >= 0 && p < n) return p;
    switch (border) {
    case FXI_REPLICATE: return p < 0 ? 0 : n - 1;
    case FXI_REFLECT: {
        int64_t q = fxi_mod(p, 2 * n);
        return q < n ? q : 2 * n - 1 - q;
    }
    case FXI_REFLECT101: return fxi_reflect101(p, n);
    case FXI_WRAP: return fxi_mod(p, n);
    default: return -1;
    }
}

/* How an exact sum becomes an output sample. */
enum {
    FXI_ROUND_HALF_EVEN = 0, /* (S + bias) / den, nearest, ties to even */
    FXI_ROUND_MULSHIFT = 1,  /* floor((S + add) * mul / 2^shift): fixed-point rules */
    /* cv2.blur with int32 sums (16-bit areas <= 2^15, 8-bit areas in (256, 2^23]):
     * nearest-even of float(S) * float(mul) (its SIMD blocks) for the elements of a row
     * before scalar_from, of S * scale in double (its scalar tail) from there on */
    FXI_ROUND_FLOAT_SCALE = 2,
    /* nearest-even of S * scale in double: cv2.blur with double sums (16-bit areas
     * above 2^15, 8-bit above 2^23) */
    FXI_ROUND_DOUBLE_SCALE = 3
};

typedef struct fxi_finish {
    int mode;
    double den;   /* HALF_EVEN: the kernel's common denominator (> 0) */
    double bias;  /* HALF_EVEN: offset * den, added before dividing */
    double add;   /* MULSHIFT */
    double mul;   /* MULSHIFT */
    double unit;  /* MULSHIFT: 2^-shift */
    double scale; /* FLOAT_SCALE, DOUBLE_SCALE: 1 / area in double (mul: in float) */
    /* FLOAT_SCALE: the first element (x * channels + c) of a row that the double rule
     * finishes, row elements - row elements % FXI_OPENCV_BOX_TAIL_BLOCK */
    int64_t scalar_from;
    double maxval; /* 255 or 65535: outputs saturate to [0, maxval] */
    /* Integer shortcuts of the same rules, for the CPU's vector loops (-1/0 when none):
     * HALF_EVEN with den = 2^pow2_shift and a whole-number offset; MULSHIFT whose sums are
     * never negative and whose add and mul fit in 32 bits. */
    int pow2_shift;
    int64_t int_offset;
    int u32_mulshift;
    /* u32_mulshift, and (largest sum + add) * mul < 2^32: the product fits 32 bits too
     * (cv2.blur's 8-bit rule: (255 * area + add) * (2^23 / area) < 2^31). */
    int u32_product;
} fxi_finish;

static inline FX_HD double fxi_saturate(double v, double maxval)
{
    if (!(v > 0)) return 0; /* also NaN */
    return v > maxval ? maxval : v;
}

/* cv2.blur (box_filter.simd.hpp, ColumnSum<int, uchar/ushort>) finishes a row of
 * int32 column sums in SIMD blocks with the float rule, the last of them 128 bits wide
 * (8 outputs, 8- and 16-bit alike, whatever the SIMD width), then the remaining
 * row elements % 8 in scalar code with the double rule. */
#define FXI_OPENCV_BOX_TAIL_BLOCK 8

/* The output sample for the exact sum s at element `element` (x * channels + c) of its
 * row: every strategy, CPU and GPU, finishes exact sums here (or in loops that are this
 * function written out, rows.c). */
static inline FX_HD double fxi_finish_exact_at(const fxi_finish *f, double s, int64_t element)
{
    double q;
    /* The fixed-point rules first (GaussianBlur, the small boxes): measured on the H200,
     * 10000x6000 RGB u8 on the device, with them tested after cv2.blur's modes box:3 took
     * 1.10 ms and gaussian:3 1.66 (0.95 and 1.62 this way). Moving cv2.blur's modes into
     * a __noinline__ function instead gave 2.18 and 3.51 ms. */
    if (f->mode == FXI_ROUND_MULSHIFT)
        q = floor((s + f->add) * f->mul * f->unit);
    else if (f->mode == FXI_ROUND_HALF_EVEN)
        q = nearbyint((s + f->bias) / f->den);
    else if (f->mode == FXI_ROUND_FLOAT_SCALE && element < f->scalar_from)
        q = nearbyintf((float)s * (float)f->mul);
    else
        q = nearbyint(s * f->scale); /* FLOAT_SCALE's tail, DOUBLE_SCALE */
    return fxi_saturate(q, f->maxval);
}

/* fxi_finish_exact_at for a MULSHIFT finish whose products fit 32 bits (u32_product: add
 * and mul whole numbers, (largest sum + add) * mul < 2^32), for a sum 0 <= s up to that
 * bound: floor((s + add) * mul * 2^-shift) is then exact in double and in these integers
 * alike, so the value is the same (rows.c's vector loops write this out; shift =
 * -ilogb(unit)). The GPU's 8-bit fast path finishes with it: no double arithmetic. */
static inline FX_HD uint32_t fxi_finish_u32_product(uint32_t s, uint32_t add, uint32_t mul,
                                                    int shift, uint32_t maxval)
{
    const uint32_t q = ((s + add) * mul) >> shift;
    return q > maxval ? maxval : q;
}

/* fxi_finish_u32_product with (s + add) * mul written s * mul + add_mul, where add_mul =
 * add * mul (the same 32 bits, modulo 2^32): one multiply-add an output, as the 8-bit
 * walk kernel finishes four sums at a time. */
static inline FX_HD uint32_t fxi_finish_u32_premul(uint32_t s, uint32_t add_mul, uint32_t mul,
                                                   int shift, uint32_t maxval)
{
    const uint32_t q = (s * mul + add_mul) >> shift;
    return q > maxval ? maxval : q;
}

/* fxi_finish_exact_at for a FLOAT_SCALE finish before its scalar_from, for a sum
 * 0 <= s < 2^24 (exact in float, as (float)s of the double): nearest-even of
 * float(s) * mul (mul: the finish's mul, a float), saturated. The same value without
 * double arithmetic or conversions through double (the GPU's 8-bit box). */
static inline FX_HD uint32_t fxi_finish_float_scale(uint32_t s, float mul, uint32_t maxval)
{
    const float q = nearbyintf((float)s * mul);
    return q > (float)maxval ? maxval : (uint32_t)q; /* q >= 0: s and mul are */
}

/* 1.5 * 2^23: x + this, for 0 <= x < 2^22, lies in [2^23, 2^24), where a float's unit in
 * the last place is 1, so the sum's one rounding is x's nearest-even integer n, held in
 * the float's low bits (0x4B400000 + n). */
#define FXI_ROUND_MAGIC 12582912.0f

/* fxi_finish_float_scale(s, mul, 255) as the low byte of a float's bits, for a sum whose
 * float(s) * mul is at most 255.5, as in cv2.blur's 8-bit box (s <= 255 * area and mul =
 * float(1 / area) give at most 255 * (1 + 2^-23)): the product rounded to float as
 * there, then FXI_ROUND_MAGIC added. No conversion back to an integer: the GPU's box
 * packs four such bytes into a word. The product and the sum round separately (the
 * project builds with -ffp-contract=off and --fmad=false); tests/unit/test_filter.c
 * compares every sum of the float rule's boxes. */
static inline FX_HD uint32_t fxi_finish_float_scale_u8_bits(uint32_t s, float mul)
{
    const float x = (float)s * mul;
    const float y = x + FXI_ROUND_MAGIC;
    uint32_t bits;
    memcpy(&bits, &y, sizeof bits);
    return bits;
}

/* Byte dot products of a row filter (the GPU's two-pass rows, k_u8_rows_dp4a): with row
 * taps w_0 .. w_{kw-1} whole numbers in 0 .. 255, output x = 4u + phase, the sum of w_j *
 * s[x + j], is the sum over q of the dot product of sample bytes s[4(u + q)] .. s[4(u + q)
 * + 3] and the tap bytes of word q of that phase: taps 4q - phase .. 4q + 3 - phase,
 * zero outside the kernel; q runs over FXI_TAP_WORDS(kw). */
#define FXI_TAP_WORDS(kw) (((kw) + 6) / 4)

static inline FX_HD uint32_t fxi_tap_word(const float *taps, int kw, int q, int phase)
{
    uint32_t w = 0;
    for (int b = 0; b < 4; b++) {
        const int j = 4 * q + b - phase;
        w |= (j >= 0 && j < kw ? (uint32_t)taps[j] : 0u) << (8 * b);
    }
    return w;
}

/* The output sample for a float accumulator on an integer image: round half to even
 * (as OpenCV's saturate_cast), then saturate. */
static inline FX_HD float fxi_finish_float(float acc, float maxval)
{
    float r = nearbyintf(acc);
    if (!(r > 0)) return 0;
    return r > maxval ? maxval : r;
}

#endif
