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

/* Each band re-does kh - 1 row passes: bands of several kernel heights amortise that. */
#define SEPARABLE_BAND_PER_TAP 4
#define SEPARABLE_MIN_BAND 16

/* Both passes apply their taps four at a time (one read and write of the output row
 * per four taps), in tap order; fmaf chains keep that order within a group. Zero taps
 * are skipped (exact: adding 0; float: fma(0, p, acc) = acc for finite p). */
#define GROUP 4
#define MAC4_INT(T, IN)                                                                            \
    out[x] = IN + w[0] * (T)p[0][x] + w[1] * (T)p[1][x] + w[2] * (T)p[2][x] + w[3] * (T)p[3][x]
#define MAC1_INT(T, IN) out[x] = IN + w0 * (T)p0[x]
#define MAC4_F32(IN)                                                                               \
    out[x] = fmaf(w[3], p[3][x], fmaf(w[2], p[2][x], fmaf(w[1], p[1][x], fmaf(w[0], p[0][x], IN))))
#define MAC1_F32(IN) out[x] = fmaf(w0, p0[x], IN)

/* out = init, then out[x] += w[m] * src_m[x] for the taps m in order, where src_m is
 * `in + m * step` (row pass: step C) or rows[m] (column pass: in == NULL). */
#define DEFINE_PASS(name, O, P, W, WEIGHTS, INIT, MAC4, MAC1, attr)                                \
    attr static void name(O *out, const P *in, const void *const *rows, const fxi_taps *t,         \
                          int count, int64_t step, int64_t n)                                      \
    {                                                                                              \
        bool first = true; /* the first group starts from INIT instead of out[] */                 \
        int k = 0;                                                                                 \
        while (k < count) {                                                                        \
            const P *p[GROUP];                                                                     \
            W w[GROUP];                                                                            \
            int g = 0;                                                                             \
            for (; k < count && g < GROUP; k++) {                                                  \
                W wk = (W)(WEIGHTS)[k];                                                            \
                if (wk == 0) continue;                                                             \
                p[g] = in ? in + k * step : (const P *)rows[k];                                    \
                w[g++] = wk;                                                                       \
            }                                                                                      \
            if (g == GROUP) {                                                                      \
                if (first)                                                                         \
                    for (int64_t x = 0; x < n; x++)                                                \
                        MAC4((O)(INIT));                                                           \
                else                                                                               \
                    for (int64_t x = 0; x < n; x++)                                                \
                        MAC4(out[x]);                                                              \
                first = false;                                                                     \
                continue;                                                                          \
            }                                                                                      \
            for (int m = 0; m < g; m++) {                                                          \
                const P *p0 = p[m];                                                                \
                const W w0 = w[m];                                                                 \
                if (first)                                                                         \
                    for (int64_t x = 0; x < n; x++)                                                \
                        MAC1((O)(INIT));                                                           \
                else                                                                               \
                    for (int64_t x = 0; x < n; x++)                                                \
                        MAC1(out[x]);                                                              \
                first = false;                                                                     \
            }                                                                                      \
        }                                                                                          \
        if (first) /* every weight zero */                                                         \
            for (int64_t x = 0; x < n; x++)                                                        \
                out[x] = (O)(INIT);                                                                \
    }

#define MAC4_INT_I32(IN) MAC4_INT(int32_t, IN)
#define MAC1_INT_I32(IN) MAC1_INT(int32_t, IN)
#define MAC4_INT_I64(IN) MAC4_INT(int64_t, IN)
#define MAC1_INT_I64(IN) MAC1_INT(int64_t, IN)

#define DEFINE_SEPARABLE(suffix, attr)                                                             \
    DEFINE_PASS(row_i32_##suffix, int32_t, int32_t, int32_t, t->num_row, 0, MAC4_INT_I32,          \
                MAC1_INT_I32, attr)                                                                \
    DEFINE_PASS(row_u8_i32_##suffix, int32_t, uint8_t, int32_t, t->num_row, 0, MAC4_INT_I32,       \
                MAC1_INT_I32, attr)                                                                \
    DEFINE_PASS(col_i32_##suffix, int32_t, int32_t, int32_t, t->num_col, 0, MAC4_INT_I32,          \
                MAC1_INT_I32, attr)                                                                \
    DEFINE_PASS(row_i64_##suffix, int64_t, int64_t, int64_t, t->num_row, 0, MAC4_INT_I64,          \
                MAC1_INT_I64, attr)                                                                \
    DEFINE_PASS(col_i64_##suffix, int64_t, int64_t, int64_t, t->num_col, 0, MAC4_INT_I64,          \
                MAC1_INT_I64, attr)                                                                \
    DEFINE_PASS(row_f32_##suffix, float, float, float, t->w_row, 0, MAC4_F32, MAC1_F32, attr)      \
    DEFINE_PASS(col_f32_##suffix, float, float, float, t->w_col, t->offset, MAC4_F32, MAC1_F32,    \
                attr)                                                                              \
    DEFINE_PASS(row_u8_f32x_##suffix, float, uint8_t, float, t->num_row_f, 0, MAC4_F32, MAC1_F32,  \
                attr)                                                                              \
    DEFINE_PASS(row_f32x_##suffix, float, float, float, t->num_row_f, 0, MAC4_F32, MAC1_F32, attr) \
    DEFINE_PASS(col_f32x_##suffix, float, float, float, t->num_col_f, 0, MAC4_F32, MAC1_F32, attr)
FXI_SIMD_VARIANTS(DEFINE_SEPARABLE)

typedef void (*pass_fn)(void *out, const void *in, const void *const *rows, const fxi_taps *t,
                        int count, int64_t step, int64_t n);

static void pick(fxi_acc acc, bool raw_u8, pass_fn *row, pass_fn *col)
{
    switch (acc) {
    case FXI_ACC_F32X:
        *row = raw_u8 ? (pass_fn)FXI_PICK(row_u8_f32x) : (pass_fn)FXI_PICK(row_f32x);
        *col = (pass_fn)FXI_PICK(col_f32x);
        break;
    case FXI_ACC_I32:
        *row = raw_u8 ? (pass_fn)FXI_PICK(row_u8_i32) : (pass_fn)FXI_PICK(row_i32);
        *col = (pass_fn)FXI_PICK(col_i32);
        break;
    case FXI_ACC_I64:
        *row = (pass_fn)FXI_PICK(row_i64);
        *col = (pass_fn)FXI_PICK(col_i64);
        break;
    default:
        *row = (pass_fn)FXI_PICK(row_f32);
        *col = (pass_fn)FXI_PICK(col_f32);
        break;
    }
}

static void separable_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                            uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    /* Exact sums below 2^24 run in float (exact there, and faster); 8-bit images with
     * exact sums read the samples as they are (no widened copy). */
    const fxi_acc acc_type = t->float_exact ? FXI_ACC_F32X : t->acc;
    const fxi_acc row_type = t->float_exact ? FXI_ACC_F32 : t->acc;
    const bool raw = job->src->type == FX_U8 && t->acc == FXI_ACC_I32;
    const size_t es = fxi_acc_size(row_type);
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint8_t *ring = scratch; /* kh row results of n elements */
    uint8_t *pad = ring + fxi_align_up((size_t)(kh * n) * es);
    void *acc = pad + fxi_align_up((size_t)padded * es);
    const void *rows[FX_KERNEL_MAX_SIDE];
    pass_fn row, col;
    pick(acc_type, raw, &row, &col);
    (void)s;
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay;
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++) {
            const void *in = fxi_padded_row_view(job, raw ? FXI_ACC_RAW : row_type, r, b->x0,
                                                 b->x1, t->ax, t->kw - 1 - t->ax, pad);
            row(ring + (size_t)(fxi_mod(r, kh) * n) * es, in, NULL, t, t->kw, C, n);
        }
        for (int64_t i = 0; i < kh; i++)
            rows[i] = ring + (size_t)(fxi_mod(top + i, kh) * n) * es;
        col(acc, NULL, rows, t, t->kh, 0, n);
        fxi_store_row(job, acc_type, y, b->x0, b->x1, acc);
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
