/* Box filter on 8-bit images by integer running sums, vertical first.
 *
 * For every padded column of a block a uint16 column sum of kh samples is kept
 * (kh * 255 < 2^16, so it is exact); moving down one output row adds the row that
 * enters the window and subtracts the one that leaves it, 16 columns per AVX2 vector.
 * The window sum of an output is then the sum of kw neighbouring column sums: added
 * directly for narrow windows (in uint16 while kw * kh * 255 < 2^16), or as a running
 * sum along the row for wide ones. The sum S is the exact integer sum of the kw x kh
 * samples, so the finish rule (taps.c: cv2.blur's fixed-point divide for areas up to
 * 256, float(S) * float(1 / area) beyond) gives the same bytes as every other strategy.
 *
 * The columns of a window that lie inside the image are read in place; only the few
 * that overhang the image's left or right edge, and rows outside it under the constant
 * border, go through the border rule one sample at a time.
 */
#include <stdint.h>
#include <string.h>

#include "filter/cpu_common.h"
#include "filter/cpu_simd.h"

/* Column sums of kh samples fit uint16 while kh * 255 <= 65535. */
#define COLUMN_SUM_MAX_ROWS (UINT16_MAX / UINT8_MAX)
/* Windows this wide or narrower add their column sums directly (vector loops); wider
 * ones take a running sum along the row. */
#define DIRECT_SUM_MAX_WIDTH 16
/* Sums go to the finish this many pixels at a time, so they stay in L1. */
#define FINISH_CHUNK 512
/* A row index that stands for "no row" (nothing leaves the window). */
#define NO_ROW INT64_MIN

bool fxi_box_u8_fits(const fxi_taps *t)
{
    return t->integer_image && t->maxval == UINT8_MAX && t->box && t->acc == FXI_ACC_I32 &&
           t->kh <= COLUMN_SUM_MAX_ROWS;
}

#define DEFINE_BOX_U8(suffix, attr)                                                                \
    /* v += a (the window filling) */                                                              \
    attr static void col_add_##suffix(uint16_t *v, const uint8_t *a, int64_t n)                    \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            v[x] = (uint16_t)(v[x] + a[x]);                                                        \
    }                                                                                              \
    /* v += a - b (row a enters, row b leaves); uint16 wraps, the true sum is in range */          \
    attr static void col_slide_##suffix(uint16_t *v, const uint8_t *a, const uint8_t *b,           \
                                        int64_t n)                                                 \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            v[x] = (uint16_t)(v[x] + a[x] - b[x]);                                                 \
    }                                                                                              \
    /* h = sum of kw column sums, in uint16 (the caller checked the bound) */                      \
    attr static void row_sum_u16_##suffix(uint16_t *h, const uint16_t *v, int64_t kw, int64_t n,   \
                                          int64_t C)                                               \
    {                                                                                              \
        memcpy(h, v, (size_t)n * sizeof *h);                                                       \
        for (int64_t j = 1; j < kw; j++) {                                                         \
            const uint16_t *q = v + j * C;                                                         \
            for (int64_t x = 0; x < n; x++)                                                        \
                h[x] = (uint16_t)(h[x] + q[x]);                                                    \
        }                                                                                          \
    }                                                                                              \
    attr static void widen_times_##suffix(int32_t *s, const uint16_t *h, int32_t num, int64_t n)   \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            s[x] = num * (int32_t)h[x];                                                            \
    }                                                                                              \
    /* s = num * (sum of kw column sums), in int32 */                                              \
    attr static void row_sum_i32_##suffix(int32_t *s, const uint16_t *v, int64_t kw, int32_t num,  \
                                          int64_t n, int64_t C)                                    \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            s[x] = v[x];                                                                           \
        for (int64_t j = 1; j < kw; j++) {                                                         \
            const uint16_t *q = v + j * C;                                                         \
            for (int64_t x = 0; x < n; x++)                                                        \
                s[x] += q[x];                                                                      \
        }                                                                                          \
        if (num != 1)                                                                              \
            for (int64_t x = 0; x < n; x++)                                                        \
                s[x] *= num;                                                                       \
    }
FXI_SIMD_VARIANTS(DEFINE_BOX_U8)

/* Running window sums along the row, one per channel, kept in registers (C is a
 * constant in each copy). */
static inline __attribute__((always_inline)) void
running_sum_c(int32_t *s, const uint16_t *v, int64_t kw, int32_t num, int64_t n, const int64_t C)
{
    int32_t run[FX_MAX_IMAGE_CHANNELS] = {0};
    for (int64_t c = 0; c < C; c++)
        for (int64_t j = 0; j < kw; j++)
            run[c] += v[j * C + c];
    const uint16_t *in = v + kw * C, *out = v;
    for (int64_t i = 0;; i += C) {
        for (int64_t c = 0; c < C; c++)
            s[i + c] = run[c] * num;
        if (i + C >= n) break;
        for (int64_t c = 0; c < C; c++)
            run[c] += (int32_t)in[i + c] - (int32_t)out[i + c];
    }
}

static void running_sum(int32_t *s, const uint16_t *v, int64_t kw, int32_t num, int64_t n,
                        int64_t C)
{
    switch (C) {
    case 1: running_sum_c(s, v, kw, num, n, 1); break;
    case 2: running_sum_c(s, v, kw, num, n, 2); break;
    case 3: running_sum_c(s, v, kw, num, n, 3); break;
    default: running_sum_c(s, v, kw, num, n, 4); break;
    }
}

/* Sample (x, c) of image row yy (< 0: a constant row) under the border rule. */
static int sample_at(const fxi_filter_job *job, int64_t yy, int64_t x, int64_t c)
{
    const fx_image *src = job->src;
    int64_t xx = yy < 0 ? -1 : fxi_border_index(x, src->width, job->border);
    if (xx < 0) return (uint8_t)job->border_value[c];
    return ((const uint8_t *)fx_image_row(src, (int)yy))[xx * job->channels + c];
}

/* Column sums v over the padded columns of image columns [first, first + count):
 * add row r_in and subtract row r_out (NO_ROW: none). */
static void update_columns(const fxi_filter_job *job, uint16_t *v, int64_t r_in, int64_t r_out,
                           int64_t first, int64_t count)
{
    const fx_image *src = job->src;
    const int64_t C = job->channels, W = src->width;
    const int64_t yi = fxi_border_index(r_in, src->height, job->border);
    const int64_t yo = r_out == NO_ROW ? NO_ROW : fxi_border_index(r_out, src->height, job->border);
    /* Padded columns [lo, hi) lie inside the image. */
    int64_t lo = first < 0 ? -first : 0, hi = W - first < count ? W - first : count;
    if (hi < lo || yi < 0 || (yo != NO_ROW && yo < 0)) hi = lo = count; /* all one by one */
    if (hi > lo) {
        const uint8_t *a = (const uint8_t *)fx_image_row(src, (int)yi) + (first + lo) * C;
        if (yo == NO_ROW)
            FXI_PICK(col_add)(v + lo * C, a, (hi - lo) * C);
        else
            FXI_PICK(col_slide)
        (v + lo * C, a, (const uint8_t *)fx_image_row(src, (int)yo) + (first + lo) * C,
         (hi - lo) * C);
    }
    for (int64_t p = 0; p < count; p++) {
        if (p == lo) p = hi;
        if (p >= count) break;
        for (int64_t c = 0; c < C; c++) {
            int d = sample_at(job, yi, first + p, c) -
                    (yo == NO_ROW ? 0 : sample_at(job, yo, first + p, c));
            v[p * C + c] = (uint16_t)(v[p * C + c] + d);
        }
    }
}

void fxi_box_block_u8(const fxi_filter_job *job, const fxi_block *b, uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh, kw = t->kw;
    const int64_t cols = b->x1 - b->x0 + kw - 1, first = b->x0 - t->ax;
    const int32_t num = (int32_t)t->num[0];
    const bool narrow = (int64_t)kw * kh * UINT8_MAX <= UINT16_MAX;
    const int64_t chunk = b->x1 - b->x0 < FINISH_CHUNK ? b->x1 - b->x0 : FINISH_CHUNK;
    uint16_t *v = (uint16_t *)(void *)scratch; /* column sums of the padded columns */
    uint16_t *h = v + fxi_align_up((size_t)(cols * C) * sizeof *v) / sizeof *v;
    int32_t *s = (int32_t *)(void *)(h + fxi_align_up((size_t)(chunk * C) * sizeof *h) / sizeof *h);
    memset(v, 0, (size_t)(cols * C) * sizeof *v);
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay;
        if (y == b->y0)
            for (int64_t r = top; r < top + kh; r++)
                update_columns(job, v, r, NO_ROW, first, cols);
        else
            update_columns(job, v, top + kh - 1, top - 1, first, cols);
        for (int64_t c0 = b->x0; c0 < b->x1; c0 += chunk) {
            int64_t c1 = c0 + chunk < b->x1 ? c0 + chunk : b->x1;
            const uint16_t *vc = v + (c0 - b->x0) * C;
            int64_t n = (c1 - c0) * C;
            if (kw > DIRECT_SUM_MAX_WIDTH) {
                running_sum(s, vc, kw, num, n, C);
            } else if (narrow) {
                FXI_PICK(row_sum_u16)(h, vc, kw, n, C);
                FXI_PICK(widen_times)(s, h, num, n);
            } else {
                FXI_PICK(row_sum_i32)(s, vc, kw, num, n, C);
            }
            fxi_store_row(job, FXI_ACC_I32, y, c0, c1, s);
        }
    }
}
