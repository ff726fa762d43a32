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
#include "filter/cpu_simd.h"

/* Bands shorter than this waste the ring's warm-up (kh rows per band). */
#define DIRECT_MIN_BAND 8

/* Taps are applied four at a time, so the accumulator row is read and written once per
 * four taps; the order within a group is the tap order (for fmaf it is the chain
 * fma(w3, p3, fma(w2, p2, fma(w1, p1, fma(w0, p0, acc))))). */
#define TAP_GROUP 4
#define INT_MAC4(T)                                                                                \
    acc[x] += w[0] * (T)p[0][x] + w[1] * (T)p[1][x] + w[2] * (T)p[2][x] + w[3] * (T)p[3][x]
#define F32_MAC4                                                                                   \
    acc[x] =                                                                                       \
        fmaf(w[3], p[3][x], fmaf(w[2], p[2][x], fmaf(w[1], p[1][x], fmaf(w[0], p[0][x], acc[x]))))

/* acc = init; then every non-zero tap, row-major: acc[x] += w * row_i[x + j * C]. */
#define DEFINE_TAPS(name, A, P, W, WVAL, INIT, MAC4, MAC1, attr)                                   \
    attr static void name(A *acc, const void *const *rows, const fxi_taps *t, int64_t n,           \
                          int64_t C)                                                               \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            acc[x] = INIT;                                                                         \
        int k = 0;                                                                                 \
        for (; k < t->nonzero; k += TAP_GROUP) {                                                   \
            const P *p[TAP_GROUP];                                                                 \
            W w[TAP_GROUP];                                                                        \
            int g = t->nonzero - k < TAP_GROUP ? t->nonzero - k : TAP_GROUP;                       \
            for (int m = 0; m < g; m++) {                                                          \
                int idx = t->nz[k + m];                                                            \
                p[m] = (const P *)rows[idx / t->kw] + (idx % t->kw) * C;                           \
                w[m] = (W)(WVAL);                                                                  \
            }                                                                                      \
            if (g == TAP_GROUP) {                                                                  \
                for (int64_t x = 0; x < n; x++)                                                    \
                    MAC4;                                                                          \
            } else {                                                                               \
                for (int m = 0; m < g; m++) {                                                      \
                    const P *p0 = p[m];                                                            \
                    const W w0 = w[m];                                                             \
                    for (int64_t x = 0; x < n; x++)                                                \
                        MAC1;                                                                      \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

#define INT_MAC1_SINGLE(T) acc[x] += w0 * (T)p0[x]
#define F32_MAC1_SINGLE acc[x] = fmaf(w0, p0[x], acc[x])

#define DEFINE_DIRECT(suffix, attr)                                                                \
    DEFINE_TAPS(taps_i32_##suffix, int32_t, int32_t, int32_t, t->num[idx], 0, INT_MAC4(int32_t),   \
                INT_MAC1_SINGLE(int32_t), attr)                                                    \
    DEFINE_TAPS(taps_u8_i32_##suffix, int32_t, uint8_t, int32_t, t->num[idx], 0,                   \
                INT_MAC4(int32_t), INT_MAC1_SINGLE(int32_t), attr)                                 \
    DEFINE_TAPS(taps_i64_##suffix, int64_t, int64_t, int64_t, t->num[idx], 0, INT_MAC4(int64_t),   \
                INT_MAC1_SINGLE(int64_t), attr)                                                    \
    DEFINE_TAPS(taps_f32_##suffix, float, float, float, t->w[idx], t->offset, F32_MAC4,            \
                F32_MAC1_SINGLE, attr)                                                             \
    DEFINE_TAPS(taps_u8_f32x_##suffix, float, uint8_t, float, t->num_f[idx], 0, F32_MAC4,          \
                F32_MAC1_SINGLE, attr)                                                             \
    DEFINE_TAPS(taps_f32x_##suffix, float, float, float, t->num_f[idx], 0, F32_MAC4,               \
                F32_MAC1_SINGLE, attr)
FXI_SIMD_VARIANTS(DEFINE_DIRECT)

typedef void (*taps_fn)(void *acc, const void *const *rows, const fxi_taps *t, int64_t n,
                        int64_t C);

static taps_fn pick(fxi_acc acc, bool raw_u8)
{
    switch (acc) {
    case FXI_ACC_F32X:
        return raw_u8 ? (taps_fn)FXI_PICK(taps_u8_f32x) : (taps_fn)FXI_PICK(taps_f32x);
    case FXI_ACC_I32: return raw_u8 ? (taps_fn)FXI_PICK(taps_u8_i32) : (taps_fn)FXI_PICK(taps_i32);
    case FXI_ACC_I64: return (taps_fn)FXI_PICK(taps_i64);
    default: return (taps_fn)FXI_PICK(taps_f32);
    }
}

static void direct_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                         uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    /* Exact sums below 2^24 run in float (exact there, and faster); 8-bit images with
     * exact sums read the samples as they are (no widened copy). */
    const fxi_acc acc_type = t->float_exact ? FXI_ACC_F32X : t->acc;
    const fxi_acc row_type = t->float_exact ? FXI_ACC_F32 : t->acc;
    const bool raw = job->src->type == FX_U8 && t->acc == FXI_ACC_I32;
    const size_t es = raw ? 1 : fxi_acc_size(row_type);
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint8_t *ring = scratch;
    void *acc = ring + fxi_align_up((size_t)(kh * padded) * es);
    const void *rows[FX_KERNEL_MAX_SIDE];
    const void *views[FX_KERNEL_MAX_SIDE]; /* row r is views[r mod kh]: in place or in the ring */
    taps_fn taps = pick(acc_type, raw);
    (void)s;
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay; /* input row of kernel row 0 */
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++) {
            int64_t slot = fxi_mod(r, kh);
            views[slot] = fxi_padded_row_view(job, raw ? FXI_ACC_RAW : row_type, r, b->x0, b->x1,
                                              t->ax, t->kw - 1 - t->ax,
                                              ring + (size_t)(slot * padded) * es);
        }
        for (int64_t i = 0; i < kh; i++)
            rows[i] = views[fxi_mod(top + i, kh)];
        taps(acc, rows, t, n, C);
        fxi_store_row(job, acc_type, y, b->x0, b->x1, acc);
    }
}

fx_status fxi_direct_geometry(fx_context *ctx, const fxi_taps *t, int width, int height,
                              int channels, fxi_cpu_state *s)
{
    return fxi_geometry(ctx, t, width, height, channels, DIRECT_MIN_BAND, fxi_acc_size(t->acc), s);
}

fx_status fxi_filter_direct(const fxi_filter_job *job, void *state)
{
    return fxi_walk_blocks(job, state, direct_block);
}
