/* Direct convolution: every non-zero tap at every output, in row-major tap order.
 *
 * A block keeps a ring of the kh padded input rows it needs; each output row is an
 * accumulator row that every tap adds a shifted input row into, so the inner loop runs
 * along the row (all channels interleaved) and vectorises. Integer kernels accumulate
 * exactly in int32 or int64; float kernels with fmaf starting from the offset, which
 * fixes the rounding of every output whatever the vector width.
 */
#include <math.h>
#include <string.h>

#include "filter/cpu_common.h"
#include "core/cpu_simd.h"
#include "filter/cpu_taps.h"


/* One output row: the non-zero taps in row-major order, as pointers into the kh rows
 * and weights of the accumulator's type, applied in groups (cpu_taps.h). */
#define DEFINE_DIRECT_ROW(name, A, P, apply)                                                       \
    static void name(void *acc, const void *const *rows, const fxi_taps *t, const void *weights,   \
                     const void **ptrs, double init, int64_t n, int64_t C)                         \
    {                                                                                              \
        const P **p = (const P **)ptrs;                                                            \
        for (int k = 0; k < t->nonzero; k++) {                                                     \
            int idx = t->nz[k];                                                                    \
            p[k] = (const P *)rows[idx / t->kw] + (idx % t->kw) * C;                               \
        }                                                                                          \
        FXI_APPLY_TAPS(apply, (A *)acc, (const P *const *)p, (const A *)weights, t->nonzero,       \
                       (A)init, n);                                                                \
    }
#define DEFINE_DIRECT(suffix, attr)                                                                \
    FXI_DEFINE_APPLIES(suffix, attr)                                                               \
    DEFINE_DIRECT_ROW(row_i32_i32_##suffix, int32_t, int32_t, apply_i32_i32_##suffix)              \
    DEFINE_DIRECT_ROW(row_i32_u8_##suffix, int32_t, uint8_t, apply_i32_u8_##suffix)                \
    DEFINE_DIRECT_ROW(row_i64_i64_##suffix, int64_t, int64_t, apply_i64_i64_##suffix)              \
    DEFINE_DIRECT_ROW(row_f32_f32_##suffix, float, float, apply_f32_f32_##suffix)                  \
    DEFINE_DIRECT_ROW(row_f32_u8_##suffix, float, uint8_t, apply_f32_u8_##suffix)
FXI_SIMD_VARIANTS(DEFINE_DIRECT)

typedef void (*row_fn)(void *acc, const void *const *rows, const fxi_taps *t, const void *weights,
                       const void **ptrs, double init, int64_t n, int64_t C);

/* The row function for the accumulator and the rows' sample type. */
static row_fn pick(fxi_acc acc, bool raw_u8)
{
    switch (acc) {
    case FXI_ACC_F32X: return raw_u8 ? FXI_PICK(row_f32_u8) : FXI_PICK(row_f32_f32);
    case FXI_ACC_I32: return raw_u8 ? FXI_PICK(row_i32_u8) : FXI_PICK(row_i32_i32);
    case FXI_ACC_I64: return FXI_PICK(row_i64_i64);
    default: return FXI_PICK(row_f32_f32);
    }
}

/* The weights of the non-zero taps in the accumulator's type, into w. */
static void tap_weights(const fxi_taps *t, fxi_acc acc, void *w)
{
    for (int k = 0; k < t->nonzero; k++) {
        int idx = t->nz[k];
        switch (acc) {
        case FXI_ACC_I32: ((int32_t *)w)[k] = (int32_t)t->num[idx]; break;
        case FXI_ACC_I64: ((int64_t *)w)[k] = t->num[idx]; break;
        case FXI_ACC_F32X: ((float *)w)[k] = t->num_f[idx]; break;
        default: ((float *)w)[k] = t->w[idx]; break;
        }
    }
}

static void direct_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                         uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    const fxi_block_types bt = fxi_block_types_of(job);
    const fxi_acc acc_type = bt.acc, row_type = bt.rows;
    const bool raw = bt.raw;
    const size_t es = fxi_acc_size(row_type);
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint8_t *ring = scratch;
    uint8_t *acc = ring + fxi_align_up((size_t)(kh * padded) * es);
    const void **ptrs = (const void **)(void *)(acc + fxi_align_up((size_t)n * sizeof(int64_t)));
    void *weights = ptrs + t->nonzero;
    const void *rows[FX_KERNEL_MAX_SIDE];
    const void *views[FX_KERNEL_MAX_SIDE]; /* row r is views[r mod kh]: in place or in the ring */
    row_fn row = pick(acc_type, raw);
    const double init = acc_type == FXI_ACC_F32 ? t->offset : 0; /* exact sums start at 0 */
    (void)s;
    tap_weights(t, acc_type, weights);
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay; /* input row of kernel row 0 */
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++) {
            int64_t slot = fxi_mod(r, kh);
            views[slot] =
                fxi_padded_row_view(job, row_type, r, b->x0, b->x1, t->ax, t->kw - 1 - t->ax,
                                    ring + (size_t)(slot * padded) * es);
        }
        for (int64_t i = 0; i < kh; i++)
            rows[i] = views[fxi_mod(top + i, kh)];
        row(acc, rows, t, weights, ptrs, init, n, C);
        fxi_store_row(job, acc_type, y, b->x0, b->x1, acc);
    }
}

fx_status fxi_direct_geometry(fx_context *ctx, const fxi_taps *t, int width, int height,
                              int channels, fxi_cpu_state *s)
{
    /* Room for a pointer and a weight per non-zero tap. */
    size_t extra = (size_t)t->nonzero * (sizeof(void *) + sizeof(int64_t));
    return fxi_geometry(ctx, t, width, height, channels, FXI_DIRECT_MIN_BAND, FXI_TILE_MAX,
                        fxi_acc_size(t->acc), extra, t->nonzero, s);
}

fx_status fxi_filter_direct(const fxi_filter_job *job, void *state)
{
    return fxi_walk_blocks(job, state, direct_block);
}
