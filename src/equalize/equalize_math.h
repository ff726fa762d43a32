/* Per-pixel and per-bin arithmetic of equalization, shared by the C path and the
 * CUDA kernels (FX_HD: empty in C, __host__ __device__ in CUDA), so the CPU unit
 * tests run exactly what each GPU thread computes and CPU == GPU by construction.
 *
 * C/CUDA common subset only: no C++, no VLAs. Float expressions are written in
 * the reference's operation order; the project builds with -ffp-contract=off and
 * nvcc --fmad=false, so nothing is fused on either side.
 */
#ifndef FXKIT_EQUALIZE_MATH_H
#define FXKIT_EQUALIZE_MATH_H

#include <math.h>
#include <stdint.h>

#include "fxkit/equalize.h"

#include "core/border_math.h"
#include "core/host_device.h"

/* What a pixel contributes to the histogram and how its result is written. */
typedef enum fxi_eq_mode {
    FXI_EQ_MODE_GRAY = 0,     /* channel 0 is the key; channel 1 (alpha) passes */
    FXI_EQ_MODE_TO_GRAY = 1,  /* key = OpenCV gray of RGB; written as gray (+ alpha) */
    FXI_EQ_MODE_HSV = 2,      /* key = max(R,G,B); channels scaled by V'/V */
    FXI_EQ_MODE_LUMA = 3,     /* key = Y of OpenCV's YCrCb; converted back */
    FXI_EQ_MODE_RGB = 4,      /* three keys, three histograms */
    FXI_EQ_MODE_HSV_FLOAT = 5 /* key = bin of the float V; published HSV round trip */
} fxi_eq_mode;

/* ---- OpenCV's fixed-point colour conversions (imgproc color_yuv: 14-bit) ---- */

#define FXI_YUV_SHIFT 14
#define FXI_R2Y 4899  /* 0.299 * 2^14 */
#define FXI_G2Y 9617  /* 0.587 * 2^14 */
#define FXI_B2Y 1868  /* 0.114 * 2^14 */
#define FXI_YCR 11682 /* 0.713 * 2^14: Cr = (R - Y) * 0.713 + half */
#define FXI_YCB 9241  /* 0.564 * 2^14: Cb = (B - Y) * 0.564 + half */
#define FXI_CR2R 22987
#define FXI_CR2G (-11698)
#define FXI_CB2G (-5636)
#define FXI_CB2B 29049

/* CV_DESCALE: round the fixed-point value to an integer (arithmetic shift). */
static FX_HD inline int32_t fxi_descale(int32_t x)
{
    return (x + (1 << (FXI_YUV_SHIFT - 1))) >> FXI_YUV_SHIFT;
}

static FX_HD inline uint32_t fxi_saturate_int(int32_t v, uint32_t maxval)
{
    return v < 0 ? 0u : (uint32_t)v > maxval ? maxval : (uint32_t)v;
}

/* The Y of cvtColor RGB2YCrCb. */
static FX_HD inline uint32_t fxi_luma(uint32_t r, uint32_t g, uint32_t b)
{
    return (r * FXI_R2Y + g * FXI_G2Y + b * FXI_B2Y + (1u << (FXI_YUV_SHIFT - 1))) >> FXI_YUV_SHIFT;
}

/* cvtColor RGB2GRAY: OpenCV uses 15-bit weights here (summing to 2^15), which round
 * differently from the 14-bit Y above on about 0.3% of colours. */
#define FXI_GRAY_SHIFT 15
#define FXI_R2GRAY 9798
#define FXI_G2GRAY 19235
#define FXI_B2GRAY 3735
static FX_HD inline uint32_t fxi_gray(uint32_t r, uint32_t g, uint32_t b)
{
    return (r * FXI_R2GRAY + g * FXI_G2GRAY + b * FXI_B2GRAY + (1u << (FXI_GRAY_SHIFT - 1))) >>
           FXI_GRAY_SHIFT;
}

static FX_HD inline uint32_t fxi_max3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* Cr and Cb of RGB2YCrCb for a pixel of luma y; half = 128 or 32768. */
static FX_HD inline void fxi_chroma(uint32_t r, uint32_t b, uint32_t y, uint32_t maxval,
                                    int32_t *cr, int32_t *cb)
{
    const int32_t delta = (int32_t)((maxval + 1) / 2) << FXI_YUV_SHIFT;
    *cr =
        (int32_t)fxi_saturate_int(fxi_descale(((int32_t)r - (int32_t)y) * FXI_YCR + delta), maxval);
    *cb =
        (int32_t)fxi_saturate_int(fxi_descale(((int32_t)b - (int32_t)y) * FXI_YCB + delta), maxval);
}

/* YCrCb2RGB of (y, cr, cb) into out[0..2] = R, G, B. */
static FX_HD inline void fxi_ycrcb_to_rgb(uint32_t y, int32_t cr, int32_t cb, uint32_t maxval,
                                          uint32_t *out)
{
    const int32_t half = (int32_t)((maxval + 1) / 2);
    const int32_t dcr = cr - half, dcb = cb - half;
    out[0] = fxi_saturate_int((int32_t)y + fxi_descale(dcr * FXI_CR2R), maxval);
    out[1] = fxi_saturate_int((int32_t)y + fxi_descale(dcb * FXI_CB2G + dcr * FXI_CR2G), maxval);
    out[2] = fxi_saturate_int((int32_t)y + fxi_descale(dcb * FXI_CB2B), maxval);
}

/* ---- hsv: channel c of a pixel whose V = max(R,G,B) becomes v2 ----
 * round(c * v2 / v), half up, in integers: (2 c v2 + v) div 2 v; 0 where v = 0.
 * Hue and saturation are kept exactly (up to that rounding); the largest channel
 * becomes v2 itself. 32-bit arithmetic suffices for 8-bit samples. */
static FX_HD inline uint32_t fxi_hsv_channel(uint32_t c, uint32_t v, uint32_t v2, uint32_t maxval)
{
    if (v == 0) return 0;
    if (maxval <= 0xFFu) return (2u * c * v2 + v) / (2u * v);
    return (uint32_t)((2u * (uint64_t)c * v2 + v) / (2u * (uint64_t)v));
}

/* The same for 8-bit samples in float, as the CPU's SIMD pass computes it (the GPU's
 * 8-bit kernel uses the integer form below): trunc(c * f + g) with f = v2 / max(v, 1) and
 * g = (v + 0.5) / (2 max(v, 1)), f and g once per pixel (or per V).
 * (2 c v2 + v + 0.5) / 2v lies at least 1/1020 from an integer and the float
 * error is below 1e-4, so the result is fxi_hsv_channel's for every 8-bit
 * c <= v, v2 (the unit test checks all of them). Two roundings, no contraction. */
static FX_HD inline void fxi_hsv_f32_factors(uint32_t v, uint32_t v2, float *f, float *g)
{
    const float vf = (float)v, r2 = 1.0f / (vf > 1.0f ? vf : 1.0f);
    *f = (float)v2 * r2;
    *g = (vf + 0.5f) * (0.5f * r2);
}

static FX_HD inline uint32_t fxi_hsv_f32_apply(uint32_t c, float f, float g)
{
    return (uint32_t)(int32_t)((float)c * f + g);
}

static FX_HD inline uint32_t fxi_hsv_channel_f32(uint32_t c, uint32_t v, uint32_t v2)
{
    float f, g;
    fxi_hsv_f32_factors(v, v2, &f, &g);
    return fxi_hsv_f32_apply(c, f, g);
}

/* The same for 8-bit samples in integers, as the GPU's 8-bit mapping kernel computes
 * it: (c * factor + 2^16) >> 17 with factor = ceil(v2 * 2^17 / v) once per V (0 where
 * v = 0, giving 0 as fxi_hsv_channel): one multiply-add and a shift a channel, where
 * the float form needs two conversions. Exact for 8-bit samples: the result is
 * floor(x + c d) with x = c v2 / v + 1/2 and d = factor / 2^17 - v2 / v in [0, 2^-17);
 * x's fraction is a multiple of 1/2v, so floor(x + c d) = floor(x) while
 * c d < v 2^-17 <= 1/2v, i.e. 2 v^2 <= 2^17: v <= 255 (the unit test checks every
 * c <= v, v2 against fxi_hsv_channel). c * factor < 2^25: no overflow. */
#define FXI_HSV_U8_SHIFT 17

static FX_HD inline uint32_t fxi_hsv_u8_factor(uint32_t v, uint32_t v2)
{
    return v == 0 ? 0u : (uint32_t)((((uint64_t)v2 << FXI_HSV_U8_SHIFT) + v - 1u) / v);
}

static FX_HD inline uint32_t fxi_hsv_u8_apply(uint32_t c, uint32_t factor)
{
    return (c * factor + (1u << (FXI_HSV_U8_SHIFT - 1))) >> FXI_HSV_U8_SHIFT;
}

/* ---- bins: key k of `levels` = 2^level_bits values falls in bin k * bins / levels ---- */
static FX_HD inline uint32_t fxi_bin_of(uint32_t key, uint32_t bins, uint32_t level_bits)
{
    return (uint32_t)(((uint64_t)key * bins) >> level_bits);
}

/* ---- global LUT: output level of a bin whose count above the base is `count` ----
 * OpenCV's equalizeHist: rint_even((float)count * (maxval / (float)denominator)),
 * saturated; the factor is computed once per image with fxi_level_factor. */
static FX_HD inline float fxi_level_factor(uint32_t maxval, uint64_t denominator)
{
    return (float)maxval / (float)denominator;
}

static FX_HD inline uint32_t fxi_level(uint64_t count, float factor, uint32_t maxval)
{
    float v = rintf((float)count * factor);
    return v <= 0.0f ? 0u : v >= (float)maxval ? maxval : (uint32_t)v;
}

/* Where a global scale's CDF starts, from the histogram (`first` its first used bin,
 * bins when it is empty; `total` its sum), the same rule on the CPU (lut.c) and in
 * the GPU's LUT kernel:
 *  - base: what fxi_level's count has subtracted (OpenCV's minmax: h[first], the
 *    first non-empty bin maps to 0; mms: h[0]; max: nothing);
 *  - start: the first bin hsv-float's float CDF sums (max: 0, mms: 1, minmax:
 *    first + 1);
 *  - identity: nothing to stretch, the image is returned unchanged (minmax: one used
 *    bin or none; mms: everything in bin 0 or nothing; max: never);
 *  - factor: fxi_level's maxval / (total - base), 0 when identity. */
typedef struct fxi_eq_cdf_origin {
    uint64_t base;
    uint32_t start;
    int identity;
    float factor;
} fxi_eq_cdf_origin;

static FX_HD inline fxi_eq_cdf_origin fxi_eq_cdf_origin_of(int scale, const uint32_t *hist,
                                                           uint32_t bins, uint32_t first,
                                                           uint64_t total, uint32_t maxval)
{
    fxi_eq_cdf_origin o;
    if (scale == FX_EQ_SCALE_MAX) {
        o.base = 0;
        o.start = 0;
        o.identity = 0;
    } else if (scale == FX_EQ_SCALE_MMS) {
        o.base = hist[0];
        o.start = 1;
        o.identity = total == 0 || hist[0] == total;
    } else {
        o.base = first < bins ? hist[first] : 0;
        o.start = first + 1;
        o.identity = first == bins || hist[first] == total;
    }
    o.factor = o.identity ? 0.0f : fxi_level_factor(maxval, total - o.base);
    return o;
}

/* hsv-float's V' per bin: the published float CDF, summed bin by bin from `start`
 * (fxi_eq_cdf_origin's: 0 for max, 1 for mms, first used bin + 1 for minmax), divided by its last
 * entry; 0 everywhere when identity (the caller copies the image) or empty. */
static FX_HD inline void fxi_hsvf_lut(const uint32_t *hist, uint32_t bins, uint32_t start,
                                      int identity, float *lut)
{
    float cdf = 0.0f;
    for (uint32_t b = 0; b < bins; b++) {
        if (b >= start) cdf = cdf + (float)hist[b];
        lut[b] = cdf;
    }
    const float last = lut[bins - 1];
    for (uint32_t b = 0; b < bins; b++)
        lut[b] = identity || last == 0.0f ? 0.0f : lut[b] / last;
}

/* ---- CLAHE (OpenCV's clahe.cpp) ---- */

/* The padding of CLAHE's grid is reflect-101: fxi_reflect101 (core/border_math.h). */

/* Does bin i get one of the `residual` clipped counts left after the even share?
 * OpenCV: for (i = 0; i < bins && residual > 0; i += step, residual--) hist[i]++,
 * with step = max(bins / residual, 1). */
static FX_HD inline int fxi_residual_hit(uint32_t i, uint32_t residual, uint32_t bins)
{
    if (residual == 0) return 0;
    uint32_t step = bins / residual;
    if (step < 1) step = 1;
    return i % step == 0 && i / step < residual;
}

/* cvFloor of a float. */
static FX_HD inline int fxi_floor_int(float v)
{
    int i = (int)v;
    return i - (i > v);
}

/* Position of a pixel between tile centres along one axis: the two tiles and the
 * weight of the second (OpenCV: txf = x * inv - 0.5f). */
typedef struct fxi_clahe_axis {
    int t1, t2;  /* tile indices, clamped to the grid */
    float a, a1; /* weights of t2 and t1 */
} fxi_clahe_axis;

static FX_HD inline fxi_clahe_axis fxi_clahe_axis_at(int x, float inv_tile, int tiles)
{
    fxi_clahe_axis r;
    float tf = (float)x * inv_tile - 0.5f;
    int t1 = fxi_floor_int(tf);
    r.a = tf - (float)t1;
    r.a1 = 1.0f - r.a;
    r.t1 = t1 < 0 ? 0 : t1;
    r.t2 = t1 + 1 > tiles - 1 ? tiles - 1 : t1 + 1;
    return r;
}

/* Bilinear blend of four tile LUT values, rounded half to even and saturated. */
static FX_HD inline uint32_t fxi_clahe_blend(uint32_t l11, uint32_t l12, uint32_t l21, uint32_t l22,
                                             fxi_clahe_axis xs, fxi_clahe_axis ys, uint32_t maxval)
{
    float res = ((float)l11 * xs.a1 + (float)l12 * xs.a) * ys.a1 +
                ((float)l21 * xs.a1 + (float)l22 * xs.a) * ys.a;
    float v = rintf(res);
    return v <= 0.0f ? 0u : v >= (float)maxval ? maxval : (uint32_t)v;
}

/* ---- hsv-float: the published project's float pipeline (ffyyytt/GPU_Project,
 * ImageProcessorCPU.cpp), operation for operation. ---- */

typedef struct fxi_hsvf {
    float h, s, v; /* degrees, [0,1], [0,1]; s is NaN for black (0/0), as published */
} fxi_hsvf;

/* A channel as the published code scales it: c / max in double, rounded to float.
 * A function of the sample alone, so an 8-bit caller may tabulate its 256 values
 * (the GPU's fast kernels do: a shared-memory load instead of a double division). */
static FX_HD inline float fxi_hsvf_unit(uint32_t c, uint32_t maxval)
{
    return (float)(c / (double)maxval);
}

/* The published RGB->HSV of channels already scaled by fxi_hsvf_unit. */
static FX_HD inline fxi_hsvf fxi_hsvf_from_unit(float r, float g, float b)
{
    fxi_hsvf o;
    float v = r > g ? r : g;
    v = v > b ? v : b;
    float vmin = r < g ? r : g;
    vmin = vmin < b ? vmin : b;
    float s = (float)(1. - (double)(vmin / v));
    float h = 0.0f;
    if (v == vmin)
        h = 0.0f;
    else if (v == r)
        h = 60.0f * (g - b) / (v - vmin);
    else if (v == g)
        h = 120.0f + 60.0f * (b - r) / (v - vmin);
    else
        h = 240.0f + 60.0f * (r - g) / (v - vmin);
    if (h < 0.0f) h += 360.0f;
    o.h = h;
    o.s = s;
    o.v = v;
    return o;
}

static FX_HD inline fxi_hsvf fxi_hsvf_from_rgb(uint32_t r8, uint32_t g8, uint32_t b8,
                                               uint32_t maxval)
{
    return fxi_hsvf_from_unit(fxi_hsvf_unit(r8, maxval), fxi_hsvf_unit(g8, maxval),
                              fxi_hsvf_unit(b8, maxval));
}

/* The published bin: (int) round(v * (bins - 1)), half away from zero. */
static FX_HD inline uint32_t fxi_hsvf_bin(float v, uint32_t bins)
{
    return (uint32_t)(int)roundf(v * (float)(bins - 1));
}

/* One channel of the published HSV->RGB with V replaced: round((x + m) * max). */
static FX_HD inline uint32_t fxi_hsvf_round(float x, uint32_t maxval)
{
    float v = roundf(x * (float)maxval);
    return v <= 0.0f ? 0u : v >= (float)maxval ? maxval : (uint32_t)v;
}

/* _mod(x, 2) of the published code: int(x) % 2 + (x - int(x)). */
static FX_HD inline float fxi_hsvf_mod2(float x)
{
    int i = (int)x;
    return (float)(i % 2) + (x - (float)i);
}

static FX_HD inline void fxi_hsvf_to_rgb(float h, float s, float v, uint32_t maxval, uint32_t *out)
{
    if (s != s) { /* a black input pixel (published: NaN, undefined): black out */
        out[0] = out[1] = out[2] = 0;
        return;
    }
    float r, g, b;
    float c = v * s;
    float m = v - c;
    h = h / 60.0f;
    float x = c * (1.0f - fabsf(fxi_hsvf_mod2(h) - 1.0f));
    if (h < 1.0f)
        r = c, g = x, b = 0.0f;
    else if (h < 2.0f)
        r = x, g = c, b = 0.0f;
    else if (h < 3.0f)
        r = 0.0f, g = c, b = x;
    else if (h < 4.0f)
        r = 0.0f, g = x, b = c;
    else if (h < 5.0f)
        r = x, g = 0.0f, b = c;
    else
        r = c, g = 0.0f, b = x;
    out[0] = fxi_hsvf_round(r + m, maxval);
    out[1] = fxi_hsvf_round(g + m, maxval);
    out[2] = fxi_hsvf_round(b + m, maxval);
}

/* ---- the 8-bit fast path: which images it may take ----
 * The fast passes (CPU: fast_u8.c; GPU: eq_hist_u8 / eq_map_u8) are an optimisation
 * of the general ones and must give their bytes. They rest on:
 *  - count (FXI_EQ_FAST_COUNT): a pixel's key is its bin (true for all 256 keys only
 *    with 256 bins; hsv-float's bin is computed for 256 bins), and every pixel counts
 *    (no mask). Whether the rows counted are an image or a CLAHE tile is the
 *    caller's;
 *  - map (FXI_EQ_FAST_MAP): one global LUT of the 256 levels of 8-bit keys (not
 *    CLAHE's blend of tiles), and for hsv-float V' looked up by the 256-bin index;
 *  - both: 8-bit samples laid out as the kernels read them: gray with one channel
 *    (no alpha), to-gray (RGB in, one gray channel out: the GPU's kernels only), hsv,
 *    luma, rgb and hsv-float with three (no alpha).
 * `modes` is the set of modes (FXI_EQ_MODE_BIT) the caller has fast kernels for. */
#define FXI_EQ_FAST_COUNT 1u
#define FXI_EQ_FAST_MAP 2u
#define FXI_EQ_FAST_LEVELS 256u
#define FXI_EQ_MODE_BIT(mode) (1u << (mode))
#define FXI_EQ_FAST_MODES_CPU                                                                      \
    (FXI_EQ_MODE_BIT(FXI_EQ_MODE_GRAY) | FXI_EQ_MODE_BIT(FXI_EQ_MODE_HSV) |                        \
     FXI_EQ_MODE_BIT(FXI_EQ_MODE_LUMA))
#define FXI_EQ_FAST_MODES_GPU                                                                      \
    (FXI_EQ_FAST_MODES_CPU | FXI_EQ_MODE_BIT(FXI_EQ_MODE_RGB) |                                    \
     FXI_EQ_MODE_BIT(FXI_EQ_MODE_HSV_FLOAT) | FXI_EQ_MODE_BIT(FXI_EQ_MODE_TO_GRAY))

static FX_HD inline int fxi_eq_u8_fast_path(unsigned passes, unsigned modes, int is_u8, int mode,
                                            int in_channels, uint32_t bins, int masked,
                                            int adaptive)
{
    if (!is_u8 || mode < 0 || mode > FXI_EQ_MODE_HSV_FLOAT || !(modes & FXI_EQ_MODE_BIT(mode)))
        return 0;
    if (in_channels != (mode == FXI_EQ_MODE_GRAY ? 1 : 3)) return 0;
    if ((passes & FXI_EQ_FAST_COUNT) && (bins != FXI_EQ_FAST_LEVELS || masked)) return 0;
    if ((passes & FXI_EQ_FAST_MAP) &&
        (adaptive || (mode == FXI_EQ_MODE_HSV_FLOAT && bins != FXI_EQ_FAST_LEVELS)))
        return 0;
    return 1;
}

/* ---- one pixel: keys in, results out ---- */

/* Keys of a pixel (`px` holds its channels): one key, or three for rgb. For
 * hsv-float the key is the bin and *hsv receives the pixel's float HSV. */
static FX_HD inline int fxi_pixel_keys(int mode, const uint32_t *px, uint32_t maxval, uint32_t bins,
                                       uint32_t *keys, fxi_hsvf *hsv)
{
    switch (mode) {
    case FXI_EQ_MODE_TO_GRAY: keys[0] = fxi_gray(px[0], px[1], px[2]); return 1;
    case FXI_EQ_MODE_LUMA: keys[0] = fxi_luma(px[0], px[1], px[2]); return 1;
    case FXI_EQ_MODE_HSV: keys[0] = fxi_max3(px[0], px[1], px[2]); return 1;
    case FXI_EQ_MODE_RGB: keys[0] = px[0], keys[1] = px[1], keys[2] = px[2]; return 3;
    case FXI_EQ_MODE_HSV_FLOAT:
        *hsv = fxi_hsvf_from_rgb(px[0], px[1], px[2], maxval);
        keys[0] = fxi_hsvf_bin(hsv->v, bins);
        return 1;
    default: keys[0] = px[0]; return 1;
    }
}

/* Write a pixel: `px` its input channels, `keys` the keys fxi_pixel_keys gave,
 * `mapped` the equalized keys (integer levels; for hsv-float mapped_v is the new
 * float V instead). Returns the channels written to out; alpha passes through. */
static FX_HD inline int fxi_pixel_write(int mode, const uint32_t *px, int channels,
                                        const uint32_t *keys, const uint32_t *mapped,
                                        float mapped_v, const fxi_hsvf *hsv, uint32_t maxval,
                                        uint32_t *out)
{
    switch (mode) {
    case FXI_EQ_MODE_GRAY:
        out[0] = mapped[0];
        if (channels == 2) out[1] = px[1];
        return channels;
    case FXI_EQ_MODE_TO_GRAY:
        out[0] = mapped[0];
        if (channels == 4) out[1] = px[3];
        return channels == 4 ? 2 : 1;
    case FXI_EQ_MODE_HSV:
        for (int c = 0; c < 3; c++)
            out[c] = fxi_hsv_channel(px[c], keys[0], mapped[0], maxval);
        break;
    case FXI_EQ_MODE_LUMA: {
        int32_t cr, cb;
        fxi_chroma(px[0], px[2], keys[0], maxval, &cr, &cb);
        fxi_ycrcb_to_rgb(mapped[0], cr, cb, maxval, out);
        break;
    }
    case FXI_EQ_MODE_RGB: out[0] = mapped[0], out[1] = mapped[1], out[2] = mapped[2]; break;
    default: fxi_hsvf_to_rgb(hsv->h, hsv->s, mapped_v, maxval, out); break;
    }
    if (channels == 4) out[3] = px[3];
    return channels;
}

#endif
