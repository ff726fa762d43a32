/* CLAHE's 8-bit gray fast path (256 bins, one channel): tile histograms from
 * whole row segments into sub-histograms, and the interpolation eight pixels at a
 * time: the four tile LUT values of each pixel are fetched from float copies of
 * the LUTs with scalar loads (measured faster than AVX2 gathers on Zen 3), the
 * blend is vector arithmetic. The blend
 * is fxi_clahe_blend's float expression, operation for operation (mul, add, round
 * half to even), so the bytes are those of the general path and of the GPU. */
#include <string.h>

#include "equalize_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CLAHE_AVX2 1
#define AVX2_FN __attribute__((target("avx2")))
#endif

#define LEVELS FXI_EQ_U8_LEVELS
#define STEP_PIXELS 8

int fxi_eq_clahe_u8_fast(const fx_equalize_plan *p)
{
    return fxi_eq_u8_fast(p) && p->mode == FXI_EQ_MODE_GRAY;
}

void fxi_eq_clahe_u8_tile_hist(const fx_equalize_plan *p, const fx_image *in, int tx, int ty,
                               uint32_t *hist)
{
    const fxi_clahe_grid *g = &p->grid;
    uint32_t sub[FXI_EQ_SUB_HISTS][LEVELS];
    memset(sub, 0, sizeof sub);
    const int x0 = tx * g->tile_w, x1 = x0 + g->tile_w;
    const int inside = x1 < g->width ? x1 : g->width; /* columns [x0, inside) need no reflection */
    for (int j = 0; j < g->tile_h; j++) {
        const uint8_t *row = fx_image_row(in, fxi_reflect101(ty * g->tile_h + j, g->height));
        fxi_eq_u8_count_gray(row + x0, inside - x0, sub);
        for (int x = inside > x0 ? inside : x0; x < x1; x++)
            sub[0][row[fxi_reflect101(x, g->width)]]++;
    }
    for (int b = 0; b < LEVELS; b++) {
        uint32_t n = 0;
        for (int k = 0; k < FXI_EQ_SUB_HISTS; k++)
            n += sub[k][b];
        hist[b] = n;
    }
}

void fxi_eq_clahe_u8_columns(fx_equalize_plan *p)
{
    for (int x = 0; x < p->width; x++) {
        const fxi_clahe_axis a = p->x_axis[x];
        p->x_index1[x] = a.t1 * LEVELS;
        p->x_index2[x] = a.t2 * LEVELS;
        p->x_weight[x] = a.a;
        p->x_weight1[x] = a.a1;
    }
}

/* Pixels [from, width) of a row; lut1/lut2 are the float LUTs of the row's two
 * tile rows. */
static void row_scalar(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out,
                       const float *lut1, const float *lut2, fxi_clahe_axis ys, int from)
{
    for (int x = from; x < p->width; x++) {
        const int v = in[x], i1 = p->x_index1[x] + v, i2 = p->x_index2[x] + v;
        const float xa = p->x_weight[x], xa1 = p->x_weight1[x];
        const float res =
            (lut1[i1] * xa1 + lut1[i2] * xa) * ys.a1 + (lut2[i1] * xa1 + lut2[i2] * xa) * ys.a;
        const float r = rintf(res);
        out[x] = (uint8_t)(r <= 0.0f ? 0u : r >= 255.0f ? 255u : (uint32_t)r);
    }
}

#ifdef CLAHE_AVX2
static AVX2_FN int row_avx2(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out,
                            const float *lut1, const float *lut2, fxi_clahe_axis ys)
{
    const __m256 ya = _mm256_set1_ps(ys.a), ya1 = _mm256_set1_ps(ys.a1);
    const __m256 top = _mm256_set1_ps(255.0f), zero = _mm256_setzero_ps();
    int x = 0;
    for (; x + STEP_PIXELS <= p->width; x += STEP_PIXELS) {
        const __m256i v =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(in + x)));
        const __m256i i1 = _mm256_add_epi32(
            v, _mm256_loadu_si256((const __m256i *)(const void *)(p->x_index1 + x)));
        const __m256i i2 = _mm256_add_epi32(
            v, _mm256_loadu_si256((const __m256i *)(const void *)(p->x_index2 + x)));
        const __m256 xa = _mm256_loadu_ps(p->x_weight + x), xa1 = _mm256_loadu_ps(p->x_weight1 + x);
        float got[4][STEP_PIXELS] __attribute__((aligned(32)));
        int32_t a[STEP_PIXELS] __attribute__((aligned(32))),
            b[STEP_PIXELS] __attribute__((aligned(32)));
        _mm256_store_si256((__m256i *)(void *)a, i1);
        _mm256_store_si256((__m256i *)(void *)b, i2);
        for (int k = 0; k < STEP_PIXELS; k++) {
            got[0][k] = lut1[a[k]];
            got[1][k] = lut1[b[k]];
            got[2][k] = lut2[a[k]];
            got[3][k] = lut2[b[k]];
        }
        const __m256 l11 = _mm256_load_ps(got[0]), l12 = _mm256_load_ps(got[1]);
        const __m256 l21 = _mm256_load_ps(got[2]), l22 = _mm256_load_ps(got[3]);
        const __m256 upper = _mm256_add_ps(_mm256_mul_ps(l11, xa1), _mm256_mul_ps(l12, xa));
        const __m256 lower = _mm256_add_ps(_mm256_mul_ps(l21, xa1), _mm256_mul_ps(l22, xa));
        __m256 res = _mm256_add_ps(_mm256_mul_ps(upper, ya1), _mm256_mul_ps(lower, ya));
        res = _mm256_round_ps(res, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        res = _mm256_min_ps(_mm256_max_ps(res, zero), top);
        const __m256i w = _mm256_cvttps_epi32(res);
        const __m128i words =
            _mm_packus_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
        _mm_storel_epi64((__m128i *)(void *)(out + x), _mm_packus_epi16(words, words));
    }
    return x;
}
#endif

void fxi_eq_clahe_u8_row(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out,
                         fxi_clahe_axis ys)
{
    const size_t tile_lut = (size_t)p->grid.tiles_x * LEVELS;
    const float *lut1 = p->tile_lutf + (size_t)ys.t1 * tile_lut;
    const float *lut2 = p->tile_lutf + (size_t)ys.t2 * tile_lut;
    int x = 0;
#ifdef CLAHE_AVX2
    if (__builtin_cpu_supports("avx2")) x = row_avx2(p, in, out, lut1, lut2, ys);
#endif
    row_scalar(p, in, out, lut1, lut2, ys, x);
}
