/* Separable convolution of rank-1 kernels: a row pass into a ring of kh row results,
 * then a column pass, kw + kh multiply-adds per output instead of kw * kh.
 *
 * Exact kernels: the row pass sums num_row[j] * sample, the column pass num_col[i] *
 * row result, both in integers, so the result equals the direct sum to the bit. Float
 * kernels: fmaf in tap order for the row (from 0) and the column (from the offset).
 *
 * Narrow rows: on 8-bit images whose row taps are non-negative integers summing to at
 * most FXI_NARROW_ROW_SUM_MAX (every u8 Gaussian: its Q8 taps sum to 256; boxes up to
 * 257 wide), every row result is below 2^16, so the row pass runs in uint16 (16 lanes
 * per AVX2 vector, a ring half the size) and the column pass sums uint16 row results
 * times int32 taps into int32 (within range: taps->acc is I32). Still exact integers.
 * Where even the column sums fit 16 bits (gaussian:3 and gaussian:5, whose taps reduce
 * to 1 2 1 and 1 4 6 4 1 per pass), the column pass and its finish run in uint16 too
 * (col16).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "filter/cpu_common.h"
#include "core/cpu_simd.h"
#include "filter/cpu_taps.h"

#ifdef FXI_HAVE_AVX2_VARIANT
#include <immintrin.h>
#endif


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
    DEFINE_PASS(pass_f32_u8_##suffix, float, uint8_t, apply_f32_u8_##suffix)                       \
    FXI_DEFINE_APPLY_INT(apply_u16_u8_##suffix, uint16_t, uint8_t, attr)                           \
    FXI_DEFINE_APPLY_INT(apply_i32_u16_##suffix, int32_t, uint16_t, attr)                          \
    DEFINE_PASS(pass_u16_u8_##suffix, uint16_t, uint8_t, apply_u16_u8_##suffix)                    \
    DEFINE_PASS(pass_i32_u16_##suffix, int32_t, uint16_t, apply_i32_u16_##suffix)
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

/* Row results below 2^16 need sum(row taps) * 255 < 2^16. */
#define FXI_NARROW_ROW_SUM_MAX (UINT16_MAX / UINT8_MAX)

/* Can the row pass of these taps on 8-bit images run in uint16 (see the top of this file)? */
static bool narrow_rows(const fxi_taps *t)
{
    if (!t->integer_image || t->maxval != UINT8_MAX || t->acc != FXI_ACC_I32 || !t->rank1)
        return false;
    int64_t sum = 0;
    for (int j = 0; j < t->kw; j++) {
        if (t->num_row[j] < 0) return false;
        sum += t->num_row[j];
    }
    return sum <= FXI_NARROW_ROW_SUM_MAX;
}

/* The narrow row pass with vpmaddubsw, 32 outputs a step: two neighbouring taps' samples
 * interleaved byte by byte, times the two taps as signed bytes, summed in pairs into 16
 * bits. Exact while every tap is at most 127 and every pair of them at most 128 (the pair
 * sum of 255s stays below 2^15, so nothing saturates); the uint16 sums wrap no more
 * than the plain pass does. */
#define MADDUBS_TAP_MAX 127
#define MADDUBS_PAIR_MAX 128
#define MADDUBS_STEP 32
/* Rows up to FXI_MADDUBS_MAX_TAPS wide take it (filter_tuning.h). */

/* The row pass of a narrow block: out[x] = sum of w[j] * in[x + j * step], x < n. */
typedef struct narrow_row narrow_row;
typedef void (*narrow_row_fn)(const narrow_row *nr, uint16_t *out, const uint8_t *in, int64_t step,
                              int64_t n);
struct narrow_row {
    narrow_row_fn fn;
    pass_fn plain; /* the plain pass (row_plain) */
    uint16_t w[FX_KERNEL_MAX_SIDE];
    int count;
    int16_t pair[(FXI_MADDUBS_MAX_TAPS + 1) / 2]; /* vpmaddubsw factors: w[2j] | w[2j+1] << 8 */
};

static void row_plain(const narrow_row *nr, uint16_t *out, const uint8_t *in, int64_t step,
                      int64_t n)
{
    nr->plain(out, in, NULL, nr->w, nr->count, step, 0, n);
}

#ifdef FXI_HAVE_AVX2_VARIANT
#define FXI_AVX2_INLINE __attribute__((target("avx2"), always_inline)) static inline

/* One step of it: the MADDUBS_STEP outputs o[x...] from p[x...]; with a constant count
 * (the width's own row pass below) the tap loop unrolls. */
FXI_AVX2_INLINE void maddubs_step(uint16_t *o, const uint8_t *p, const __m256i *pair, int count,
                                  int64_t step, int64_t x)
{
    __m256i lo = _mm256_setzero_si256(), hi = lo;
    for (int j = 0; j < count; j += 2) {
        /* a lone last tap pairs with itself at weight 0 (pair[] has 0 there) */
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(p + x + j * step));
        __m256i b = j + 1 == count ? a
                                   : _mm256_loadu_si256((const __m256i *)(const void *)(p + x +
                                                                                       (j + 1) *
                                                                                           step));
        lo = _mm256_add_epi16(lo, _mm256_maddubs_epi16(_mm256_unpacklo_epi8(a, b), pair[j / 2]));
        hi = _mm256_add_epi16(hi, _mm256_maddubs_epi16(_mm256_unpackhi_epi8(a, b), pair[j / 2]));
    }
    _mm256_storeu_si256((__m256i *)(void *)(o + x), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(o + x + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
}

FXI_AVX2_INLINE void maddubs_row(const narrow_row *nr, uint16_t *o, const uint8_t *p, int count,
                                 int64_t step, int64_t n)
{
    __m256i pair[(FXI_MADDUBS_MAX_TAPS + 1) / 2];
    for (int j = 0; j < count; j += 2)
        pair[j / 2] = _mm256_set1_epi16(nr->pair[j / 2]);
    int64_t x = 0;
    for (; x + MADDUBS_STEP <= n; x += MADDUBS_STEP)
        maddubs_step(o, p, pair, count, step, x);
    /* The remainder as one more step ending at n: it recomputes some outputs (the same
     * values: out is not in), which is far cheaper than up to 31 scalar ones. */
    if (x < n && n >= MADDUBS_STEP) {
        maddubs_step(o, p, pair, count, step, n - MADDUBS_STEP);
        x = n;
    }
    for (; x < n; x++) {
        uint16_t sum = 0;
        for (int j = 0; j < count; j++)
            sum = (uint16_t)(sum + nr->w[j] * p[x + j * step]);
        o[x] = sum;
    }
}

/* The row widths with a pass of their own (the tap count a constant), and any other. */
#define MADDUBS_WIDTHS(X) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9)
#define DEFINE_MADDUBS_ROW(K)                                                                      \
    __attribute__((target("avx2"))) static void row_maddubs_##K(                                   \
        const narrow_row *nr, uint16_t *o, const uint8_t *p, int64_t step, int64_t n)              \
    {                                                                                              \
        maddubs_row(nr, o, p, K, step, n);                                                         \
    }
MADDUBS_WIDTHS(DEFINE_MADDUBS_ROW)

__attribute__((target("avx2"))) static void row_maddubs_any(const narrow_row *nr, uint16_t *o,
                                                            const uint8_t *p, int64_t step,
                                                            int64_t n)
{
    maddubs_row(nr, o, p, nr->count, step, n);
}

static narrow_row_fn maddubs_row_fn(int count)
{
    switch (count) {
#define MADDUBS_CASE(K)                                                                            \
    case K: return row_maddubs_##K;
        MADDUBS_WIDTHS(MADDUBS_CASE)
#undef MADDUBS_CASE
    default: return row_maddubs_any;
    }
}
#endif

/* The row pass for these narrow taps: vpmaddubsw where it is exact, else the plain one. */
static void narrow_row_init(const fxi_taps *t, narrow_row *nr)
{
    nr->count = t->kw;
    nr->plain = FXI_PICK(pass_u16_u8);
    nr->fn = row_plain;
    for (int j = 0; j < t->kw; j++)
        nr->w[j] = (uint16_t)t->num_row[j];
#ifdef FXI_HAVE_AVX2_VARIANT
    bool fits = fxi_cpu_has_avx2() && t->kw <= FXI_MADDUBS_MAX_TAPS;
    for (int j = 0; j < t->kw && fits; j++)
        fits = t->num_row[j] <= MADDUBS_TAP_MAX &&
               (j % 2 || j + 1 == t->kw || t->num_row[j] + t->num_row[j + 1] <= MADDUBS_PAIR_MAX);
    if (!fits) return;
    for (int j = 0; j < t->kw; j += 2)
        nr->pair[j / 2] = (int16_t)((j + 1 < t->kw ? nr->w[j + 1] << 8 : 0) | nr->w[j]);
    nr->fn = maddubs_row_fn(t->kw);
#endif
}

/* Samples [q0, q1), all outside image row `row` (NULL: a constant row), from the border,
 * into out. Sample q is channel q mod C of pixel floor(q / C): the pixel and channel are
 * counted along, one border look-up per pixel. */
static void narrow_outside_samples(const fxi_filter_job *job, const uint8_t *row, int64_t q0,
                                   int64_t q1, uint8_t *out)
{
    const int64_t C = job->channels, W = job->src->width;
    int64_t pixel = q0 >= 0 ? q0 / C : -((-q0 + C - 1) / C), ch = q0 - pixel * C;
    int64_t xx = row ? fxi_border_index(pixel, W, job->border) : -1;
    for (int64_t q = q0; q < q1; q++) {
        out[q - q0] = xx < 0 ? (uint8_t)job->border_value[ch] : row[xx * C + ch];
        if (++ch == C) {
            ch = 0;
            xx = row ? fxi_border_index(++pixel, W, job->border) : -1;
        }
    }
}

/* Samples [q0, q1) of image row yy (-1: a constant row) with the border's samples
 * outside it, into out. */
static void narrow_padded_samples(const fxi_filter_job *job, int64_t yy, int64_t q0, int64_t q1,
                                  uint8_t *out)
{
    const int64_t C = job->channels, W = job->src->width;
    const uint8_t *row = yy < 0 ? NULL : (const uint8_t *)fx_image_row(job->src, (int)yy);
    int64_t in0 = q0 < 0 ? 0 : q0, in1 = q1 > W * C ? W * C : q1; /* inside the row */
    if (!row || in1 <= in0) in0 = in1 = q1;
    if (in1 > in0) memcpy(out + (in0 - q0), row + in0, (size_t)(in1 - in0));
    narrow_outside_samples(job, row, q0, in0, out);
    narrow_outside_samples(job, row, in1, q1, out + (in1 - q0));
}

/* The row pass of image row r into out (columns [x0, x1), n samples), in sample units:
 * output sample s reads samples base + s + j * C of the row, base = (x0 - left) * C.
 * Samples [a, b) have their whole window inside the image row and read it in place; the
 * parts at the image's left and right edges go through a padded copy (pad), each at
 * least one vector step (MADDUBS_STEP) where the row is that long, so none runs scalar. */
static void narrow_row_pass(const fxi_filter_job *job, const narrow_row *nr, int64_t r, int64_t x0,
                            int64_t x1, uint8_t *pad, uint16_t *out)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, W = job->src->width, n = (x1 - x0) * C;
    const int left = t->ax, right = t->kw - 1 - t->ax;
    const int64_t window = (int64_t)(t->kw - 1) * C, base = (x0 - left) * C;
    const int64_t yy = fxi_border_index(r, job->src->height, job->border);
    int64_t a = (left - x0) * C, b = (W - right - x0) * C;
    a = a < 0 ? 0 : a;
    b = b > n ? n : b;
    if (yy < 0 || b - a < MADDUBS_STEP) { /* a constant row, or little interior: all padded */
        narrow_padded_samples(job, yy, base, base + n + window, pad);
        nr->fn(nr, out, pad, C, n);
        return;
    }
    const uint8_t *row = (const uint8_t *)fx_image_row(job->src, (int)yy);
    /* The padded parts [0, lend) and [rbegin, n); the interior between, or all of [a, b)
     * if that is under a step (the parts then overlap it: the same values again).
     * Here n >= b - a >= MADDUBS_STEP. */
    const int64_t lend = a == 0 ? 0 : a > MADDUBS_STEP ? a : MADDUBS_STEP;
    const int64_t rbegin = b == n ? n : b < n - MADDUBS_STEP ? b : n - MADDUBS_STEP;
    int64_t i0 = lend > a ? lend : a, i1 = rbegin < b ? rbegin : b;
    if (i1 - i0 < MADDUBS_STEP) {
        i0 = a;
        i1 = b;
    }
    if (lend > 0) {
        narrow_padded_samples(job, yy, base, base + lend + window, pad);
        nr->fn(nr, out, pad, C, lend);
    }
    nr->fn(nr, out + i0, row + base + i0, C, i1 - i0);
    if (rbegin < n) {
        narrow_padded_samples(job, yy, base + rbegin, base + n + window, pad);
        nr->fn(nr, out + rbegin, pad, C, n - rbegin);
    }
}


/* The fused column pass below: uint16 taps, sums and the added rounding term in 31 bits. */
#define FUSED_MAX_SUM 2147483647.0

/* The column pass and a fixed-point finish in one loop, for 8-bit outputs: the exact
 * 32-bit products of uint16 row results and uint16 taps (the low and high halves of
 * vpmullw/vpmulhuw, interleaved), summed from `add` in 32 bits, shifted and saturated to
 * 0…255 by the two packs (which also undo the interleave). This is fxi_finish_exact_at's
 * MULSHIFT rule with mul = 1 (cv2.GaussianBlur's). */
#ifdef FXI_HAVE_AVX2_VARIANT
/* Outputs of one vector; a step takes FXI_FUSED_STEP_VECTORS of them at once and
 * FXI_FUSED_KEPT_TAPS tap vectors are made once per call (filter_tuning.h). */
#define FUSED_LANES 16

typedef struct fused_col {
    const uint16_t *const *rows;
    const uint16_t *w;
    int count, paired;
    __m256i start, flip, taps[FXI_FUSED_KEPT_TAPS]; /* taps[k]: pair k, k + 1 or lone k */
    __m128i by;
} fused_col;

/* The tap vector of pair k, k + 1 (k < paired) or of the lone tap k. */
__attribute__((target("avx2"))) static inline __m256i fused_tap(const fused_col *c, int k)
{
    if (k < FXI_FUSED_KEPT_TAPS) return c->taps[k];
    return k < c->paired ? _mm256_set1_epi32((int)((uint32_t)c->w[k + 1] << 16 | c->w[k]))
                         : _mm256_set1_epi16((short)c->w[k]);
}

/* `vectors` (1 or FXI_FUSED_STEP_VECTORS) vectors of outputs from out + x. */
__attribute__((target("avx2"))) static inline void fused_step(const fused_col *c, uint8_t *out,
                                                              int64_t x, int vectors)
{
    __m256i lo[FXI_FUSED_STEP_VECTORS], hi[FXI_FUSED_STEP_VECTORS];
    for (int v = 0; v < vectors; v++)
        lo[v] = hi[v] = c->start;
    int k = 0;
    /* Taps below 2^15: two taps per vpmaddwd on interleaved rows. */
    for (; k < c->paired; k += 2) {
        const __m256i wk = fused_tap(c, k);
        const uint16_t *ra = c->rows[k] + x, *rb = c->rows[k + 1] + x;
        for (int v = 0; v < vectors; v++) {
            __m256i a = _mm256_xor_si256(
                _mm256_loadu_si256((const __m256i *)(const void *)(ra + v * FUSED_LANES)),
                c->flip);
            __m256i b = _mm256_xor_si256(
                _mm256_loadu_si256((const __m256i *)(const void *)(rb + v * FUSED_LANES)),
                c->flip);
            lo[v] = _mm256_add_epi32(lo[v], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wk));
            hi[v] = _mm256_add_epi32(hi[v], _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wk));
        }
    }
    for (; k < c->count; k++) {
        const __m256i wk = fused_tap(c, k);
        const uint16_t *rk = c->rows[k] + x;
        for (int v = 0; v < vectors; v++) {
            __m256i r = _mm256_loadu_si256((const __m256i *)(const void *)(rk + v * FUSED_LANES));
            __m256i pl = _mm256_mullo_epi16(r, wk), ph = _mm256_mulhi_epu16(r, wk);
            lo[v] = _mm256_add_epi32(lo[v], _mm256_unpacklo_epi16(pl, ph));
            hi[v] = _mm256_add_epi32(hi[v], _mm256_unpackhi_epi16(pl, ph));
        }
    }
    for (int v = 0; v < vectors; v++) {
        __m256i q =
            _mm256_packus_epi32(_mm256_srl_epi32(lo[v], c->by), _mm256_srl_epi32(hi[v], c->by));
        __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        _mm_storeu_si128((__m128i *)(void *)(out + x + v * FUSED_LANES), b);
    }
}

__attribute__((target("avx2"))) static void
col_finish_u8_avx2(uint8_t *out, const uint16_t *const *rows, const uint16_t *w, int count,
                   uint32_t add, int shift, bool pairs, bool offset, int64_t n)
{
    fused_col c;
    c.rows = rows;
    c.w = w;
    c.count = count;
    c.paired = pairs ? count & ~1 : 0;
    /* Offset pairs: row results r >= 2^15 do not fit vpmaddwd's signed 16 bits, r - 2^15
     * does (r ^ 0x8000 read as signed); the sums start 2^15 * (their taps) higher to
     * make up for it. The int32 sums wrap, the true sum + add is below 2^31. */
    uint32_t start_sum = add;
    for (int k = 0; offset && k < c.paired; k++)
        start_sum += (uint32_t)w[k] << 15;
    c.start = _mm256_set1_epi32((int)start_sum);
    c.flip = _mm256_set1_epi16(offset ? (short)0x8000 : 0);
    c.by = _mm_cvtsi32_si128(shift);
    for (int k = 0; k < c.paired && k < FXI_FUSED_KEPT_TAPS; k += 2)
        c.taps[k] = _mm256_set1_epi32((int)((uint32_t)w[k + 1] << 16 | w[k]));
    for (int k = c.paired; k < count && k < FXI_FUSED_KEPT_TAPS; k++)
        c.taps[k] = _mm256_set1_epi16((short)w[k]);
    const int64_t step = FUSED_LANES * FXI_FUSED_STEP_VECTORS;
    int64_t x = 0;
    for (; x + step <= n; x += step)
        fused_step(&c, out, x, FXI_FUSED_STEP_VECTORS);
    for (; x + FUSED_LANES <= n; x += FUSED_LANES)
        fused_step(&c, out, x, 1);
    /* The remainder as one more vector ending at n: it rewrites some outputs with the
     * same values (out is not a row), far cheaper than up to 15 scalar ones. */
    if (x < n && n >= FUSED_LANES) {
        fused_step(&c, out, n - FUSED_LANES, 1);
        x = n;
    }
    for (; x < n; x++) {
        uint32_t sum = add;
        for (int k = 0; k < count; k++)
            sum += (uint32_t)rows[k][x] * w[k];
        sum >>= shift;
        out[x] = (uint8_t)(sum > UINT8_MAX ? UINT8_MAX : sum);
    }
}
#endif

/* The column pass and the finish in 16 bits, where the sums fit: (sum c_k R_k + add) >>
 * shift with every column tap c_k, add and shift first divided by their common power of
 * two 2^z (floor((2^z S + 2^z a) / 2^s) = floor((S + a) / 2^(s-z))). When every such sum
 * of row results R_k is below 2^16 (u8 Gaussians of 3 and 5 taps: 4 * 255 * 4 and
 * 16 * 255 * 16), each product and sum is exact in vpmullw's and vpaddw's 16 bits, 16
 * outputs a vector with no widening, and the shift and vpackuswb's saturation finish them. */
#define COL16_MAX_TAPS 16
typedef struct col16 {
    uint16_t w[COL16_MAX_TAPS]; /* the non-zero column taps / 2^z */
    int count;
    uint16_t add; /* add / 2^z */
    int shift;    /* shift - z */
} col16;

#ifdef FXI_HAVE_AVX2_VARIANT
#define COL16_LANES 16

/* 16 outputs from x, shifted but not yet saturated. */
FXI_AVX2_INLINE __m256i col16_vector(const uint16_t *const *rows, const __m256i *w, int count,
                                     __m256i add, __m128i by, int64_t x)
{
    __m256i sum = add;
    for (int k = 0; k < count; k++)
        sum = _mm256_add_epi16(
            sum,
            _mm256_mullo_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(rows[k] + x)),
                               w[k]));
    return _mm256_srl_epi16(sum, by);
}

/* Two vectors of outputs from x as bytes in order: vpackuswb packs within 128-bit lanes,
 * vpermq puts the lanes' quarters back in order. `second` = x + 16, or x for a lone one. */
FXI_AVX2_INLINE __m256i col16_bytes(const uint16_t *const *rows, const __m256i *w, int count,
                                    __m256i add, __m128i by, int64_t x, int64_t second)
{
    __m256i a = col16_vector(rows, w, count, add, by, x);
    __m256i b = second == x ? a : col16_vector(rows, w, count, add, by, second);
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
}

FXI_AVX2_INLINE void col16_row(const col16 *c, uint8_t *out, const uint16_t *const *row_list,
                               int count, int64_t n)
{
    /* Local copies: the byte stores to out could alias the caller's list for all the
     * compiler knows, and would make it reload every pointer after each. */
    const uint16_t *rows[COL16_MAX_TAPS];
    __m256i w[COL16_MAX_TAPS];
    for (int k = 0; k < count; k++) {
        rows[k] = row_list[k];
        w[k] = _mm256_set1_epi16((short)c->w[k]);
    }
    const __m256i add = _mm256_set1_epi16((short)c->add);
    const __m128i by = _mm_cvtsi32_si128(c->shift);
    const int64_t step = 2 * COL16_LANES;
    int64_t x = 0;
    for (; x + step <= n; x += step)
        _mm256_storeu_si256((__m256i *)(void *)(out + x),
                            col16_bytes(rows, w, count, add, by, x, x + COL16_LANES));
    /* The remainder as one more step (or vector) ending at n: it rewrites some outputs with
     * the same values (out is not a row), far cheaper than scalar ones. */
    if (x < n && n >= step) {
        const int64_t last = n - step;
        _mm256_storeu_si256((__m256i *)(void *)(out + last),
                            col16_bytes(rows, w, count, add, by, last, last + COL16_LANES));
        x = n;
    }
    /* Rows shorter than a step (x is 0 here): a vector from 0 and one ending at n. */
    if (x < n && n >= COL16_LANES) {
        const int64_t at[2] = {0, n - COL16_LANES};
        for (int v = 0; v < 2; v++)
            _mm_storeu_si128(
                (__m128i *)(void *)(out + at[v]),
                _mm256_castsi256_si128(col16_bytes(rows, w, count, add, by, at[v], at[v])));
        x = n;
    }
    for (; x < n; x++) {
        uint32_t sum = c->add;
        for (int k = 0; k < count; k++)
            sum += (uint32_t)rows[k][x] * c->w[k];
        sum >>= c->shift;
        out[x] = (uint8_t)(sum > UINT8_MAX ? UINT8_MAX : sum);
    }
}

/* The column heights with a pass of their own (the tap count a constant), and any other. */
#define COL16_HEIGHTS(X) X(2) X(3) X(4) X(5) X(6) X(7)
typedef void (*col16_fn)(const col16 *c, uint8_t *out, const uint16_t *const *rows, int64_t n);
#define DEFINE_COL16(K)                                                                            \
    __attribute__((target("avx2"))) static void col16_##K(const col16 *c, uint8_t *out,           \
                                                          const uint16_t *const *rows, int64_t n)  \
    {                                                                                              \
        col16_row(c, out, rows, K, n);                                                             \
    }
COL16_HEIGHTS(DEFINE_COL16)

__attribute__((target("avx2"))) static void col16_any(const col16 *c, uint8_t *out,
                                                      const uint16_t *const *rows, int64_t n)
{
    col16_row(c, out, rows, c->count, n);
}

static col16_fn col16_pick(int count)
{
    switch (count) {
#define COL16_CASE(K)                                                                              \
    case K: return col16_##K;
        COL16_HEIGHTS(COL16_CASE)
#undef COL16_CASE
    default: return col16_any;
    }
}
#endif

/* Signed 16-bit factors of vpmaddwd: taps (and row results unless offset) up to this. */
#define PAIR_MAX INT16_MAX

/* Can the column pass and the finish be fused (col_finish_u8_avx2)? *pairs: can it take
 * two taps per vpmaddwd (column taps below 2^15); *offset: must it offset the row results
 * (they may reach 2^15)? */
static bool fused_finish(const fxi_filter_job *job, bool *pairs, bool *offset)
{
#ifdef FXI_HAVE_AVX2_VARIANT
    const fxi_taps *t = job->taps;
    const fxi_finish *f = &t->finish;
    if (!fxi_cpu_has_avx2() || job->dst->type != FX_U8 || job->filter_channels != job->channels ||
        f->mode != FXI_ROUND_MULSHIFT || f->mul != 1 || f->add != floor(f->add) || f->add < 0)
        return false;
    double row_sum = 0, col_sum = 0;
    for (int j = 0; j < t->kw; j++)
        row_sum += (double)t->num_row[j];
    *pairs = true;
    *offset = row_sum * UINT8_MAX > PAIR_MAX;
    for (int i = 0; i < t->kh; i++) {
        if (t->num_col[i] < 0 || t->num_col[i] > UINT16_MAX) return false;
        if (t->num_col[i] > PAIR_MAX) *pairs = false;
        col_sum += (double)t->num_col[i];
    }
    return row_sum * col_sum * UINT8_MAX + f->add <= FUSED_MAX_SUM;
#else
    (void)job;
    *pairs = *offset = false;
    return false;
#endif
}

/* The ring slot after `slot` (of kh): a wrap, not a division per row of the window. */
static inline int64_t ring_next(int64_t slot, int64_t kh)
{
    return slot + 1 == kh ? 0 : slot + 1;
}

#ifdef FXI_HAVE_AVX2_VARIANT
/* Can the fused column pass run in 16 bits (col16 above)? Fills c for these taps and the
 * fused finish's shift. */
static bool col16_fits(const fxi_taps *t, int shift, col16 *c)
{
    if (shift < 0) return false;
    const int64_t add = (int64_t)t->finish.add; /* fused_finish: a whole number in [0, 2^31) */
    int z = shift; /* the common power of two: 2^z divides every column tap and add */
    int64_t row_sum = 0, col_sum = 0;
    c->count = 0;
    for (int i = 0; i < t->kh; i++) {
        const int64_t v = t->num_col[i];
        if (!v) continue;
        if (c->count == COL16_MAX_TAPS) return false;
        c->w[c->count++] = (uint16_t)v; /* fused_finish: 0 < v <= UINT16_MAX */
        col_sum += v;
        while (z > 0 && v % ((int64_t)1 << z)) z--;
    }
    while (z > 0 && add % ((int64_t)1 << z)) z--;
    for (int j = 0; j < t->kw; j++)
        row_sum += t->num_row[j];
    if (row_sum * UINT8_MAX * (col_sum >> z) + (add >> z) > UINT16_MAX) return false;
    /* vpackuswb reads its inputs as signed: the shifted sums must stay below 2^15. */
    if (shift - z < 1) return false;
    for (int k = 0; k < c->count; k++)
        c->w[k] = (uint16_t)(c->w[k] >> z);
    c->add = (uint16_t)(add >> z);
    c->shift = shift - z;
    return true;
}
#endif

/* How a narrow block's column pass ends: plain sums and fxi_store_row, or one of the two
 * fused passes. */
typedef enum narrow_col { NARROW_COL_PLAIN, NARROW_COL_FUSED32, NARROW_COL_FUSED16 } narrow_col;

static void separable_block_narrow(const fxi_filter_job *job, const fxi_block *b, uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    const int64_t padded = (b->x1 - b->x0 + t->kw - 1) * C, n = (b->x1 - b->x0) * C;
    uint16_t *ring = (uint16_t *)(void *)scratch; /* kh row results of n elements */
    uint8_t *pad = (uint8_t *)ring + fxi_align_up((size_t)(kh * n) * sizeof *ring);
    int32_t *acc = (int32_t *)(void *)(pad + fxi_align_up((size_t)padded));
    const void *rows[FX_KERNEL_MAX_SIDE];
    const uint16_t *fused_rows[FX_KERNEL_MAX_SIDE];
    uint16_t fused_w[FX_KERNEL_MAX_SIDE];
    int32_t w_col[FX_KERNEL_MAX_SIDE];
    for (int i = 0; i < kh; i++)
        w_col[i] = (int32_t)t->num_col[i];
    narrow_row nr;
    narrow_row_init(t, &nr);
    const pass_fn col = FXI_PICK(pass_i32_u16);
    bool pairs, offset;
    narrow_col mode = fused_finish(job, &pairs, &offset) ? NARROW_COL_FUSED32 : NARROW_COL_PLAIN;
    const int shift = mode == NARROW_COL_FUSED32 ? -ilogb(t->finish.unit) : 0;
#ifdef FXI_HAVE_AVX2_VARIANT
    col16 c16;
    col16_fn c16_fn = NULL;
    if (mode == NARROW_COL_FUSED32 && col16_fits(t, shift, &c16)) {
        mode = NARROW_COL_FUSED16;
        c16_fn = col16_pick(c16.count);
    }
#endif
    int64_t top_slot = fxi_mod((int64_t)b->y0 - t->ay, kh);
    for (int y = b->y0; y < b->y1; y++, top_slot = ring_next(top_slot, kh)) {
        int64_t top = (int64_t)y - t->ay;
        int64_t first_new = y == b->y0 ? top : top + kh - 1;
        /* row top + i lies in slot top_slot + i (mod kh) */
        for (int64_t r = first_new, slot = fxi_mod(r, kh); r < top + kh;
             r++, slot = ring_next(slot, kh))
            narrow_row_pass(job, &nr, r, b->x0, b->x1, pad, ring + slot * n);
#ifdef FXI_HAVE_AVX2_VARIANT
        if (mode != NARROW_COL_PLAIN) {
            int m = 0; /* the non-zero taps */
            for (int64_t i = 0, slot = top_slot; i < kh; i++, slot = ring_next(slot, kh))
                if (w_col[i]) {
                    fused_rows[m] = ring + slot * n;
                    fused_w[m++] = (uint16_t)w_col[i];
                }
            uint8_t *out = (uint8_t *)fx_image_row(job->dst, y) + b->x0 * C;
            if (mode == NARROW_COL_FUSED16)
                c16_fn(&c16, out, fused_rows, n);
            else
                col_finish_u8_avx2(out, fused_rows, fused_w, m, (uint32_t)t->finish.add, shift,
                                   pairs, offset, n);
            continue;
        }
#endif
        for (int64_t c0 = b->x0; c0 < b->x1; c0 += FXI_NARROW_CHUNK) {
            int64_t c1 = c0 + FXI_NARROW_CHUNK < b->x1 ? c0 + FXI_NARROW_CHUNK : b->x1;
            for (int64_t i = 0, slot = top_slot; i < kh; i++, slot = ring_next(slot, kh))
                rows[i] = ring + slot * n + (c0 - b->x0) * C;
            col(acc, NULL, rows, w_col, t->kh, 0, 0, (c1 - c0) * C);
            fxi_store_row(job, FXI_ACC_I32, y, c0, c1, acc);
        }
    }
}

static void separable_block(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                            uint8_t *scratch)
{
    const fxi_taps *t = job->taps;
    const int64_t C = job->channels, kh = t->kh;
    if (narrow_rows(t)) {
        separable_block_narrow(job, b, scratch);
        return;
    }
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
        for (int64_t i = 0, slot = fxi_mod(top, kh); i < kh; i++, slot = ring_next(slot, kh))
            rows[i] = ring + (size_t)(slot * n) * es;
        col(acc, NULL, rows, w_col, t->kh, 0, col_init, n);
        fxi_store_row(job, acc_type, y, b->x0, b->x1, acc);
    }
}

fx_status fxi_separable_geometry(fx_context *ctx, const fxi_taps *t, int width, int height,
                                 int channels, fxi_cpu_state *s)
{
    int min_band = FXI_SEPARABLE_BAND_PER_TAP * t->kh;
    if (min_band < FXI_SEPARABLE_MIN_BAND) min_band = FXI_SEPARABLE_MIN_BAND;
    const int64_t ops = (int64_t)t->kw + t->kh;
    /* Narrow rows take half the ring of 32-bit ones, so their tiles can be wider: long
     * runs of each image row, which the hardware prefetcher follows; but a tall kernel's
     * ring of kh uint16 rows stays within FXI_NARROW_RING_BUDGET (a share of L2). */
    if (narrow_rows(t)) {
        int64_t tile =
            FXI_NARROW_RING_BUDGET / ((int64_t)t->kh * channels * (int64_t)sizeof(uint16_t));
        tile = tile > FXI_BOX_TILE_MAX ? FXI_BOX_TILE_MAX
               : tile < FXI_TILE_MAX   ? FXI_TILE_MAX
                                       : tile;
        return fxi_geometry(ctx, t, width, height, channels, min_band, (int)tile, sizeof(int32_t),
                            0, ops, s);
    }
    return fxi_geometry(ctx, t, width, height, channels, min_band, FXI_TILE_MAX,
                        fxi_acc_size(t->acc), 0, ops, s);
}

fx_status fxi_filter_separable(const fxi_filter_job *job, void *state)
{
    return fxi_walk_blocks(job, state, separable_block);
}
