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

#define DEFINE_DIRECT(suffix, attr)                                                                \
    attr static void taps_i32_##suffix(int32_t *acc, const void *const *rows, const fxi_taps *t,   \
                                       int64_t n, int64_t C)                                       \
    {                                                                                              \
        memset(acc, 0, (size_t)n * sizeof *acc);                                                   \
        for (int k = 0; k < t->nonzero; k++) {                                                     \
            int idx = t->nz[k], i = idx / t->kw, j = idx % t->kw;                                  \
            const int32_t *p = (const int32_t *)rows[i] + j * C;                                   \
            const int32_t w = (int32_t)t->num[idx];                                                \
            for (int64_t x = 0; x < n; x++)                                                        \
                acc[x] += w * p[x];                                                                \
        }                                                                                          \
    }                                                                                              \
    attr static void taps_i64_##suffix(int64_t *acc, const void *const *rows, const fxi_taps *t,   \
                                       int64_t n, int64_t C)                                       \
    {                                                                                              \
        memset(acc, 0, (size_t)n * sizeof *acc);                                                   \
        for (int k = 0; k < t->nonzero; k++) {                                                     \
            int idx = t->nz[k], i = idx / t->kw, j = idx % t->kw;                                  \
            const int64_t *p = (const int64_t *)rows[i] + j * C;                                   \
            const int64_t w = t->num[idx];                                                         \
            for (int64_t x = 0; x < n; x++)                                                        \
                acc[x] += w * p[x];                                                                \
        }                                                                                          \
    }                                                                                              \
    attr static void taps_f32_##suffix(float *acc, const void *const *rows, const fxi_taps *t,     \
                                       int64_t n, int64_t C)                                       \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            acc[x] = t->offset;                                                                    \
        for (int k = 0; k < t->nonzero; k++) {                                                     \
            int idx = t->nz[k], i = idx / t->kw, j = idx % t->kw;                                  \
            const float *p = (const float *)rows[i] + j * C;                                       \
            const float w = t->w[idx];                                                             \
            for (int64_t x = 0; x < n; x++)                                                        \
                acc[x] = fmaf(w, p[x], acc[x]);                                                    \
        }                                                                                          \
    }
FXI_SIMD_VARIANTS(DEFINE_DIRECT)

typedef void (*taps_fn)(void *acc, const void *const *rows, const fxi_taps *t, int64_t n,
                        int64_t C);

static taps_fn pick(fxi_acc acc)
{
    switch (acc) {
    case FXI_ACC_I32: return (taps_fn)FXI_PICK(taps_i32);
    case FXI_ACC_I64: return (taps_fn)FXI_PICK(taps_i64);
    default: return (taps_fn)FXI_PICK(taps_f32);
    }
}

static void direct_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                         uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    const size_t es = fxi_acc_size(t->acc);
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint8_t *ring = scratch;
    void *acc = ring + (size_t)(kh * padded) * es;
    const void *rows[FX_KERNEL_MAX_SIDE];
    taps_fn taps = pick(t->acc);
    (void)s;
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay; /* input row of kernel row 0 */
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++)
            fxi_padded_row(job, t->acc, r, b->x0, b->x1, t->ax, t->kw - 1 - t->ax,
                           ring + (size_t)(fxi_mod(r, kh) * padded) * es);
        for (int64_t i = 0; i < kh; i++)
            rows[i] = ring + (size_t)(fxi_mod(top + i, kh) * padded) * es;
        taps(acc, rows, t, n, C);
        fxi_store_row(job, t->acc, y, b->x0, b->x1, acc);
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
