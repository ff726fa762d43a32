/* Box filter by running sums: O(1) per output at any size.
 *
 * Each padded input row becomes horizontal window sums (a running sum along the row);
 * a column sum per output column is kept up to date by adding the row that enters
 * the window and subtracting the one that leaves it (a ring of kh window sums).
 * Exact kernels sum samples in integers and multiply by the one numerator, so the
 * result equals the direct sum to the bit. Float images sum in double.
 */
#include <string.h>

#include "filter/cpu_common.h"
#include "core/cpu_simd.h"


/* Working element: int32, int64 or (float images) double. */
static size_t box_elem(const fxi_taps *t)
{
    return t->acc == FXI_ACC_I32 ? sizeof(int32_t) : sizeof(int64_t);
}

/* v += sign * h, the column sums taking a row in (+1) or letting one go (-1). */
#define DEFINE_BOX(suffix, attr)                                                                   \
    attr static void vsum_i32_##suffix(int32_t *v, const int32_t *h, int32_t sign, int64_t n)      \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            v[x] += sign * h[x];                                                                   \
    }                                                                                              \
    attr static void vsum_i64_##suffix(int64_t *v, const int64_t *h, int64_t sign, int64_t n)      \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            v[x] += sign * h[x];                                                                   \
    }                                                                                              \
    attr static void vsum_f64_##suffix(double *v, const double *h, double sign, int64_t n)         \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            v[x] += sign * h[x];                                                                   \
    }
FXI_SIMD_VARIANTS(DEFINE_BOX)

/* Exact sums below 2^24 (taps->float_exact) in float: window sums of kw pixels added
 * directly for narrow windows, the column sums slid by entering minus leaving row. */
#define DEFINE_BOX_F32X(suffix, attr)                                                              \
    attr static void hsum_u8_##suffix(float *h, const uint8_t *p, int64_t kw, int64_t n,           \
                                      int64_t C)                                                   \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            h[x] = p[x];                                                                           \
        for (int64_t j = 1; j < kw; j++) {                                                         \
            const uint8_t *q = p + j * C;                                                          \
            for (int64_t x = 0; x < n; x++)                                                        \
                h[x] += q[x];                                                                      \
        }                                                                                          \
    }                                                                                              \
    attr static void hsum_f32_##suffix(float *h, const float *p, int64_t kw, int64_t n, int64_t C) \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            h[x] = p[x];                                                                           \
        for (int64_t j = 1; j < kw; j++) {                                                         \
            const float *q = p + j * C;                                                            \
            for (int64_t x = 0; x < n; x++)                                                        \
                h[x] += q[x];                                                                      \
        }                                                                                          \
    }                                                                                              \
    attr static void vslide_##suffix(float *v, float *slot, const float *h, bool leaving,          \
                                     int64_t n)                                                    \
    {                                                                                              \
        if (leaving)                                                                               \
            for (int64_t x = 0; x < n; x++) {                                                      \
                v[x] += h[x] - slot[x];                                                            \
                slot[x] = h[x];                                                                    \
            }                                                                                      \
        else /* the window is still filling: the slot holds nothing yet */                         \
            for (int64_t x = 0; x < n; x++) {                                                      \
                v[x] += h[x];                                                                      \
                slot[x] = h[x];                                                                    \
            }                                                                                      \
    }
FXI_SIMD_VARIANTS(DEFINE_BOX_F32X)

/* Running window sums along a row for wide windows: one running sum per channel, kept
 * in a register (not reloaded from the row just written), in the type T_SUM that holds
 * them exactly, converted to float as they are stored. */
#define HSCAN(T, T_SUM, name)                                                                      \
    static inline __attribute__((always_inline)) void name##_c(float *h, const T *p, int64_t kw,   \
                                                               int64_t n, const int64_t C)         \
    {                                                                                              \
        T_SUM s[FX_MAX_IMAGE_CHANNELS] = {0};                                                      \
        for (int64_t c = 0; c < C; c++)                                                            \
            for (int64_t j = 0; j < kw; j++)                                                       \
                s[c] += (T_SUM)p[j * C + c];                                                       \
        const T *in = p + kw * C, *out = p;                                                        \
        for (int64_t i = 0;; i += C) {                                                             \
            for (int64_t c = 0; c < C; c++)                                                        \
                h[i + c] = (float)s[c];                                                            \
            if (i + C >= n) break;                                                                 \
            for (int64_t c = 0; c < C; c++)                                                        \
                s[c] += (T_SUM)in[i + c] - (T_SUM)out[i + c];                                      \
        }                                                                                          \
    }                                                                                              \
    /* C as a constant, so the C running sums live in registers */                                 \
    static void name(float *h, const T *p, int64_t kw, int64_t n, int64_t C)                       \
    {                                                                                              \
        switch (C) {                                                                               \
        case 1: name##_c(h, p, kw, n, 1); break;                                                   \
        case 2: name##_c(h, p, kw, n, 2); break;                                                   \
        case 3: name##_c(h, p, kw, n, 3); break;                                                   \
        default: name##_c(h, p, kw, n, 4); break;                                                  \
        }                                                                                          \
    }
HSCAN(uint8_t, int32_t, hscan_u8)
HSCAN(float, float, hscan_f32)

static void box_block_f32x(const fxi_filter_job *job, const fxi_block *b, uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh, kw = t->kw;
    const bool raw = job->src->type == FX_U8;
    const int64_t padded = (b->x1 - b->x0 + kw - 1) * C, n = (b->x1 - b->x0) * C;
    float *ring = (float *)(void *)scratch; /* kh window-sum rows */
    float *pad = ring + fxi_align_up((size_t)(kh * n) * sizeof(float)) / sizeof(float);
    float *v = pad + fxi_align_up((size_t)padded * sizeof(float)) / sizeof(float);
    float *h = v + fxi_align_up((size_t)n * sizeof(float)) / sizeof(float);
    const float num = t->num_f[0];
    for (int64_t x = 0; x < n; x++)
        v[x] = 0;
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay;
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++) {
            const void *in = fxi_padded_row_view(job, raw ? FXI_ACC_RAW : FXI_ACC_F32, r, b->x0,
                                                 b->x1, t->ax, kw - 1 - t->ax, pad);
            if (kw <= FXI_BOX_DIRECT_SUM_MAX) {
                if (raw)
                    FXI_PICK(hsum_u8)(h, in, kw, n, C);
                else
                    FXI_PICK(hsum_f32)(h, in, kw, n, C);
            } else if (raw) {
                hscan_u8(h, in, kw, n, C);
            } else {
                hscan_f32(h, in, kw, n, C);
            }
            /* The slot of row r held row r - kh, the one leaving the window. */
            FXI_PICK(vslide)(v, ring + fxi_mod(r, kh) * n, h, y != b->y0, n);
        }
        if (num != 1)
            for (int64_t x = 0; x < n; x++)
                h[x] = v[x] * num;
        fxi_store_row(job, FXI_ACC_F32X, y, b->x0, b->x1, num != 1 ? h : v);
    }
}

/* Horizontal window sums of kw pixels, per channel, from a padded row. */
#define HSUM(T, name)                                                                              \
    static void name(T *h, const T *p, int64_t kw, int64_t n, int64_t C)                           \
    {                                                                                              \
        for (int64_t c = 0; c < C; c++) {                                                          \
            T s = 0;                                                                               \
            for (int64_t j = 0; j < kw; j++)                                                       \
                s += p[j * C + c];                                                                 \
            h[c] = s;                                                                              \
        }                                                                                          \
        for (int64_t i = C; i < n; i++)                                                            \
            h[i] = h[i - C] + p[i + (kw - 1) * C] - p[i - C];                                      \
    }
HSUM(int32_t, hsum_i32)
HSUM(int64_t, hsum_i64)
HSUM(double, hsum_f64)

static void box_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                      uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    const size_t es = box_elem(t);
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint8_t *ring = scratch; /* kh window-sum rows */
    uint8_t *pad = ring + (size_t)(kh * n) * es;
    uint8_t *v = pad + (size_t)padded * es; /* column sums */
    uint8_t *out = v + (size_t)n * es;      /* sums times the numerator / float values */
    /* Padded rows arrive as int32/int64 for exact kernels; float images read them as
     * float and widen to double in place (from the end, so nothing is overwritten). */
    const fxi_acc load = t->acc == FXI_ACC_F32 ? FXI_ACC_F32 : t->acc;
    (void)s;
    if (fxi_box_u8_fits(t) && job->src->type == FX_U8) {
        fxi_box_block_u8(job, b, scratch);
        return;
    }
    if (t->float_exact) {
        box_block_f32x(job, b, scratch);
        return;
    }
    memset(v, 0, (size_t)n * es);
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay;
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        for (int64_t r = first_new; r < top + kh; r++) {
            uint8_t *h = ring + (size_t)(fxi_mod(r, kh) * n) * es;
            /* The row leaving the window (r - kh) is in the slot h is about to take. */
            bool leaving = y != b->y0;
            fxi_padded_row(job, load, r, b->x0, b->x1, t->ax, t->kw - 1 - t->ax, pad);
            switch (t->acc) {
            case FXI_ACC_I32:
                if (leaving) FXI_PICK(vsum_i32)((int32_t *)v, (const int32_t *)h, -1, n);
                hsum_i32((int32_t *)h, (const int32_t *)pad, t->kw, n, C);
                FXI_PICK(vsum_i32)((int32_t *)v, (const int32_t *)h, 1, n);
                break;
            case FXI_ACC_I64:
                if (leaving) FXI_PICK(vsum_i64)((int64_t *)v, (const int64_t *)h, -1, n);
                hsum_i64((int64_t *)h, (const int64_t *)pad, t->kw, n, C);
                FXI_PICK(vsum_i64)((int64_t *)v, (const int64_t *)h, 1, n);
                break;
            default: {
                double *pd = (double *)pad;
                const float *pf = (const float *)pad;
                for (int64_t i = padded - 1; i >= 0; i--)
                    pd[i] = pf[i];
                if (leaving) FXI_PICK(vsum_f64)((double *)v, (const double *)h, -1, n);
                hsum_f64((double *)h, pd, t->kw, n, C);
                FXI_PICK(vsum_f64)((double *)v, (const double *)h, 1, n);
                break;
            }
            }
        }
        switch (t->acc) {
        case FXI_ACC_I32: {
            const int32_t w = (int32_t)t->num[0], *vs = (const int32_t *)v;
            int32_t *o = (int32_t *)out;
            for (int64_t x = 0; x < n; x++)
                o[x] = w * vs[x];
            break;
        }
        case FXI_ACC_I64: {
            const int64_t w = t->num[0], *vs = (const int64_t *)v;
            int64_t *o = (int64_t *)out;
            for (int64_t x = 0; x < n; x++)
                o[x] = w * vs[x];
            break;
        }
        default: {
            const double w = t->w[0], off = t->offset, *vs = (const double *)v;
            float *o = (float *)out;
            for (int64_t x = 0; x < n; x++)
                o[x] = (float)(vs[x] * w + off);
            break;
        }
        }
        fxi_store_row(job, t->acc, y, b->x0, b->x1, out);
    }
}

fx_status fxi_box_geometry(fx_context *ctx, const fxi_taps *t, int width, int height, int channels,
                           fxi_cpu_state *s)
{
    int min_band = FXI_BOX_BAND_PER_TAP * t->kh;
    if (min_band < FXI_BOX_MIN_BAND) min_band = FXI_BOX_MIN_BAND;
    /* +1 row for the column sums and the output: (kh + 2) rows cover ring, pad, v, out. */
    return fxi_geometry(ctx, t, width, height, channels, min_band, FXI_BOX_TILE_MAX, box_elem(t),
                        FXI_BOX_U8_EXTRA_BYTES, FXI_BOX_OPS, s);
}

fx_status fxi_filter_box(const fxi_filter_job *job, void *state)
{
    return fxi_walk_blocks(job, state, box_block);
}
