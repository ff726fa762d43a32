/* Separable convolution of rank-1 kernels: a row pass into a ring of kh row results,
 * then a column pass, kw + kh multiply-adds per output instead of kw * kh.
 *
 * Exact kernels: the row pass sums num_row[j] * sample, the column pass num_col[i] *
 * row result, both in integers, so the result equals the direct sum to the bit. Float
 * kernels: fmaf in tap order for the row (from 0) and the column (from the offset).
 */
#include <math.h>
#include <string.h>

#include "filter/cpu_common.h"
#include "filter/cpu_simd.h"

/* Each band re-does kh - 1 row passes: bands of several kernel heights amortise that. */
#define SEPARABLE_BAND_PER_TAP 4
#define SEPARABLE_MIN_BAND 16

#define DEFINE_SEPARABLE(suffix, attr)                                                             \
    attr static void row_i32_##suffix(int32_t *out, const int32_t *in, const fxi_taps *t,          \
                                      int64_t n, int64_t C)                                        \
    {                                                                                              \
        memset(out, 0, (size_t)n * sizeof *out);                                                   \
        for (int j = 0; j < t->kw; j++) {                                                          \
            const int32_t w = (int32_t)t->num_row[j];                                              \
            if (!w) continue;                                                                      \
            const int32_t *p = in + j * C;                                                         \
            for (int64_t x = 0; x < n; x++)                                                        \
                out[x] += w * p[x];                                                                \
        }                                                                                          \
    }                                                                                              \
    attr static void col_i32_##suffix(int32_t *acc, const void *const *rows, const fxi_taps *t,    \
                                      int64_t n)                                                   \
    {                                                                                              \
        memset(acc, 0, (size_t)n * sizeof *acc);                                                   \
        for (int i = 0; i < t->kh; i++) {                                                          \
            const int32_t w = (int32_t)t->num_col[i];                                              \
            if (!w) continue;                                                                      \
            const int32_t *p = rows[i];                                                            \
            for (int64_t x = 0; x < n; x++)                                                        \
                acc[x] += w * p[x];                                                                \
        }                                                                                          \
    }                                                                                              \
    attr static void row_i64_##suffix(int64_t *out, const int64_t *in, const fxi_taps *t,          \
                                      int64_t n, int64_t C)                                        \
    {                                                                                              \
        memset(out, 0, (size_t)n * sizeof *out);                                                   \
        for (int j = 0; j < t->kw; j++) {                                                          \
            const int64_t w = t->num_row[j];                                                       \
            if (!w) continue;                                                                      \
            const int64_t *p = in + j * C;                                                         \
            for (int64_t x = 0; x < n; x++)                                                        \
                out[x] += w * p[x];                                                                \
        }                                                                                          \
    }                                                                                              \
    attr static void col_i64_##suffix(int64_t *acc, const void *const *rows, const fxi_taps *t,    \
                                      int64_t n)                                                   \
    {                                                                                              \
        memset(acc, 0, (size_t)n * sizeof *acc);                                                   \
        for (int i = 0; i < t->kh; i++) {                                                          \
            const int64_t w = t->num_col[i];                                                       \
            if (!w) continue;                                                                      \
            const int64_t *p = rows[i];                                                            \
            for (int64_t x = 0; x < n; x++)                                                        \
                acc[x] += w * p[x];                                                                \
        }                                                                                          \
    }                                                                                              \
    attr static void row_f32_##suffix(float *out, const float *in, const fxi_taps *t, int64_t n,   \
                                      int64_t C)                                                   \
    {                                                                                              \
        memset(out, 0, (size_t)n * sizeof *out);                                                   \
        for (int j = 0; j < t->kw; j++) {                                                          \
            const float w = t->w_row[j];                                                           \
            if (w == 0) continue;                                                                  \
            const float *p = in + j * C;                                                           \
            for (int64_t x = 0; x < n; x++)                                                        \
                out[x] = fmaf(w, p[x], out[x]);                                                    \
        }                                                                                          \
    }                                                                                              \
    attr static void col_f32_##suffix(float *acc, const void *const *rows, const fxi_taps *t,      \
                                      int64_t n)                                                   \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            acc[x] = t->offset;                                                                    \
        for (int i = 0; i < t->kh; i++) {                                                          \
            const float w = t->w_col[i];                                                           \
            if (w == 0) continue;                                                                  \
            const float *p = rows[i];                                                              \
            for (int64_t x = 0; x < n; x++)                                                        \
                acc[x] = fmaf(w, p[x], acc[x]);                                                    \
        }                                                                                          \
    }
FXI_SIMD_VARIANTS(DEFINE_SEPARABLE)

typedef void (*row_fn)(void *out, const void *in, const fxi_taps *t, int64_t n, int64_t C);
typedef void (*col_fn)(void *acc, const void *const *rows, const fxi_taps *t, int64_t n);

static void pick(fxi_acc acc, row_fn *row, col_fn *col)
{
    switch (acc) {
    case FXI_ACC_I32:
        *row = (row_fn)FXI_PICK(row_i32);
        *col = (col_fn)FXI_PICK(col_i32);
        break;
    case FXI_ACC_I64:
        *row = (row_fn)FXI_PICK(row_i64);
        *col = (col_fn)FXI_PICK(col_i64);
        break;
    default:
        *row = (row_fn)FXI_PICK(row_f32);
        *col = (col_fn)FXI_PICK(col_f32);
        break;
    }
}

static void separable_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                            uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    const size_t es = fxi_acc_size(t->acc);
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint8_t *ring = scratch; /* kh row results of n elements */
    uint8_t *pad = ring + (size_t)(kh * n) * es;
    void *acc = pad + (size_t)padded * es;
    const void *rows[FX_KERNEL_MAX_SIDE];
    row_fn row;
    col_fn col;
    pick(t->acc, &row, &col);
    (void)s;
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay;
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++) {
            fxi_padded_row(job, t->acc, r, b->x0, b->x1, t->ax, t->kw - 1 - t->ax, pad);
            row(ring + (size_t)(fxi_mod(r, kh) * n) * es, pad, t, n, C);
        }
        for (int64_t i = 0; i < kh; i++)
            rows[i] = ring + (size_t)(fxi_mod(top + i, kh) * n) * es;
        col(acc, rows, t, n);
        fxi_store_row(job, t->acc, y, b->x0, b->x1, acc);
    }
}

fx_status fxi_separable_geometry(fx_context *ctx, const fxi_taps *t, int width, int height,
                                 int channels, fxi_cpu_state *s)
{
    int min_band = SEPARABLE_BAND_PER_TAP * t->kh;
    if (min_band < SEPARABLE_MIN_BAND) min_band = SEPARABLE_MIN_BAND;
    return fxi_geometry(ctx, t, width, height, channels, min_band, fxi_acc_size(t->acc), s);
}

fx_status fxi_filter_separable(const fxi_filter_job *job, void *state)
{
    return fxi_walk_blocks(job, state, separable_block);
}
