/* Separable convolution of rank-1 kernels: a row pass into a ring of kh row results,
 * then a column pass, kw + kh multiply-adds per output instead of kw * kh.
 *
 * Exact kernels: the row pass sums num_row[j] * sample, the column pass num_col[i] *
 * row result, both in integers, so the result equals the direct sum to the bit. Float
 * kernels: fmaf in tap order for the row (from 0) and the column (from the offset).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "filter/cpu_common.h"
#include "filter/cpu_simd.h"
#include "filter/cpu_taps.h"

/* Each band re-does kh - 1 row passes: bands of several kernel heights amortise that. */
#define SEPARABLE_BAND_PER_TAP 4
#define SEPARABLE_MIN_BAND 16

/* A pass: out = init + the taps of `weights` (zero taps left out) over the rows
 * in + k * step (row pass) or rows[k] (column pass), in tap order (cpu_taps.h). */
#define DEFINE_PASS(name, O, P, apply)                                                             \
    static void name(void *out, const void *in, const void *const *rows, const void *weights,      \
                     int count, int64_t step, double init, int64_t n)                              \
    {                                                                                              \
        const P *p[FX_KERNEL_MAX_SIDE];                                                            \
        O w[FX_KERNEL_MAX_SIDE];                                                                   \
        int m = 0;                                                                                 \
        for (int k = 0; k < count; k++) {                                                          \
            O wk = ((const O *)weights)[k];                                                        \
            if (wk == 0) continue;                                                                 \
            p[m] = in ? (const P *)in + k * step : (const P *)rows[k];                             \
            w[m++] = wk;                                                                           \
        }                                                                                          \
        FXI_APPLY_TAPS(apply, (O *)out, (const P *const *)p, (const O *)w, m, (O)init, n);         \
    }
#define DEFINE_SEPARABLE(suffix, attr)                                                             \
    FXI_DEFINE_APPLIES(suffix, attr)                                                               \
    DEFINE_PASS(pass_i32_i32_##suffix, int32_t, int32_t, apply_i32_i32_##suffix)                   \
    DEFINE_PASS(pass_i32_u8_##suffix, int32_t, uint8_t, apply_i32_u8_##suffix)                     \
    DEFINE_PASS(pass_i64_i64_##suffix, int64_t, int64_t, apply_i64_i64_##suffix)                   \
    DEFINE_PASS(pass_f32_f32_##suffix, float, float, apply_f32_f32_##suffix)                       \
    DEFINE_PASS(pass_f32_u8_##suffix, float, uint8_t, apply_f32_u8_##suffix)
FXI_SIMD_VARIANTS(DEFINE_SEPARABLE)

typedef void (*pass_fn)(void *out, const void *in, const void *const *rows, const void *weights,
                        int count, int64_t step, double init, int64_t n);

static void pick(fxi_acc acc, bool raw_u8, pass_fn *row, pass_fn *col)
{
    switch (acc) {
    case FXI_ACC_F32X:
        *row = raw_u8 ? FXI_PICK(pass_f32_u8) : FXI_PICK(pass_f32_f32);
        *col = FXI_PICK(pass_f32_f32);
        break;
    case FXI_ACC_I32:
        *row = raw_u8 ? FXI_PICK(pass_i32_u8) : FXI_PICK(pass_i32_i32);
        *col = FXI_PICK(pass_i32_i32);
        break;
    case FXI_ACC_I64:
        *row = FXI_PICK(pass_i64_i64);
        *col = FXI_PICK(pass_i64_i64);
        break;
    default:
        *row = FXI_PICK(pass_f32_f32);
        *col = FXI_PICK(pass_f32_f32);
        break;
    }
}

/* The factors in the accumulator's type: exact numerators (int32, int64 or whole-number
 * floats) or the float factors. */
static void factor_weights(const fxi_taps *t, fxi_acc acc, void *row, void *col)
{
    for (int pass = 0; pass < 2; pass++) {
        int count = pass ? t->kh : t->kw;
        const int64_t *num = pass ? t->num_col : t->num_row;
        const float *num_f = pass ? t->num_col_f : t->num_row_f;
        const float *w = pass ? t->w_col : t->w_row;
        void *out = pass ? col : row;
        for (int k = 0; k < count; k++)
            switch (acc) {
            case FXI_ACC_I32: ((int32_t *)out)[k] = (int32_t)num[k]; break;
            case FXI_ACC_I64: ((int64_t *)out)[k] = num[k]; break;
            case FXI_ACC_F32X: ((float *)out)[k] = num_f[k]; break;
            default: ((float *)out)[k] = w[k]; break;
            }
    }
}

static void separable_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                            uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    const fxi_block_types bt = fxi_block_types_of(job);
    const fxi_acc acc_type = bt.acc, row_type = bt.rows;
    const bool raw = bt.raw;
    const size_t es = fxi_acc_size(acc_type); /* ring rows and the accumulator */
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint8_t *ring = scratch; /* kh row results of n elements */
    uint8_t *pad = ring + fxi_align_up((size_t)(kh * n) * es);
    void *acc = pad + fxi_align_up((size_t)padded * es);
    const void *rows[FX_KERNEL_MAX_SIDE];
    int64_t w_row[FX_KERNEL_MAX_SIDE], w_col[FX_KERNEL_MAX_SIDE];
    pass_fn row, col;
    pick(acc_type, raw, &row, &col);
    factor_weights(t, acc_type, w_row, w_col);
    /* Float sums end at the offset, added as the column pass's start; exact sums at 0. */
    const double col_init = acc_type == FXI_ACC_F32 ? t->offset : 0;
    (void)s;
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay;
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++) {
            const void *in =
                fxi_padded_row_view(job, row_type, r, b->x0, b->x1, t->ax, t->kw - 1 - t->ax, pad);
            row(ring + (size_t)(fxi_mod(r, kh) * n) * es, in, NULL, w_row, t->kw, C, 0, n);
        }
        for (int64_t i = 0; i < kh; i++)
            rows[i] = ring + (size_t)(fxi_mod(top + i, kh) * n) * es;
        col(acc, NULL, rows, w_col, t->kh, 0, col_init, n);
        fxi_store_row(job, acc_type, y, b->x0, b->x1, acc);
    }
}

fx_status fxi_separable_geometry(fx_context *ctx, const fxi_taps *t, int width, int height,
                                 int channels, fxi_cpu_state *s)
{
    int min_band = SEPARABLE_BAND_PER_TAP * t->kh;
    if (min_band < SEPARABLE_MIN_BAND) min_band = SEPARABLE_MIN_BAND;
    return fxi_geometry(ctx, t, width, height, channels, min_band, FXI_TILE_MAX,
                        fxi_acc_size(t->acc), 0, s);
}

fx_status fxi_filter_separable(const fxi_filter_job *job, void *state)
{
    return fxi_walk_blocks(job, state, separable_block);
}
