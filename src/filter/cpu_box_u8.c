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
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "filter/cpu_common.h"
#include "core/cpu_simd.h"

#ifdef FXI_HAVE_AVX2_VARIANT
#include <immintrin.h>
#endif

/* Column sums of kh samples fit uint16 while kh * 255 <= 65535. */
#define COLUMN_SUM_MAX_ROWS (UINT16_MAX / UINT8_MAX)
/* Prefix sums are kept with this many zeros in front (P[i - C] for i < C reads 0). */
#define PREFIX_LEAD 8
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

/* Prefix sums along each channel: P[i] = v[i] + P[i - C] (P[i] = v[i] for i < C), in
 * uint32 (a window sum is a difference of two, exact modulo 2^32 and below 2^31). */
static void prefix_base(uint32_t *P, const uint16_t *v, int64_t len, int64_t C)
{
    for (int64_t i = 0; i < len; i++)
        P[i] = v[i] + (i >= C ? P[i - C] : 0);
}

#ifdef FXI_HAVE_AVX2_VARIANT
/* The same, 8 at a time: within a vector of 8 sums the per-channel prefix is two or three
 * shifted adds (by C, 2C, 4C lanes while under 8); the last prefix of each channel in the
 * previous vector (lanes 8 - C … 7) is then added to the lanes of its channel. That add
 * is a chain from vector to vector, so the row runs as two chains side by side (its two
 * halves), and the second half gets the first half's last sums afterwards; the channel
 * of a lane shifts by 8 mod C from vector to vector, hence C carry patterns. C <= 4. */
#define PREFIX_LANES 8

static inline __attribute__((always_inline, target("avx2"))) __m256i
prefix_block(const uint16_t *v, __m256i prev, const __m256i *shift_idx, const __m256i *shift_mask,
             int shifts, __m256i carry_idx)
{
    __m256i y = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)v));
    for (int s = 0; s < shifts; s++)
        y = _mm256_add_epi32(
            y, _mm256_and_si256(_mm256_permutevar8x32_epi32(y, shift_idx[s]), shift_mask[s]));
    return _mm256_add_epi32(y, _mm256_permutevar8x32_epi32(prev, carry_idx));
}

static inline __attribute__((always_inline, target("avx2"))) void
prefix_avx2_c(uint32_t *P, const uint16_t *v, int64_t len, const int C)
{
    __m256i shift_idx[3], shift_mask[3], carry_idx[FX_MAX_IMAGE_CHANNELS];
    int shifts = 0;
    for (int s = C; s < PREFIX_LANES; s *= 2, shifts++) {
        int idx[PREFIX_LANES], mask[PREFIX_LANES];
        for (int k = 0; k < PREFIX_LANES; k++) {
            idx[k] = k >= s ? k - s : 0;
            mask[k] = k >= s ? -1 : 0;
        }
        shift_idx[shifts] = _mm256_loadu_si256((const __m256i *)(const void *)idx);
        shift_mask[shifts] = _mm256_loadu_si256((const __m256i *)(const void *)mask);
    }
    for (int m = 0; m < C; m++) { /* vector m (mod C) after a carry point */
        int carry[PREFIX_LANES];
        for (int k = 0; k < PREFIX_LANES; k++)
            carry[k] = PREFIX_LANES - C + (k + PREFIX_LANES * m) % C;
        carry_idx[m] = _mm256_loadu_si256((const __m256i *)(const void *)carry);
    }
    const int64_t half = len / (2 * PREFIX_LANES) * PREFIX_LANES; /* first chain: [0, half) */
    __m256i prev1 = _mm256_setzero_si256(), prev2 = prev1;
    for (int64_t i = 0; i < half; i += PREFIX_LANES) {
        prev1 = prefix_block(v + i, prev1, shift_idx, shift_mask, shifts, carry_idx[0]);
        prev2 = prefix_block(v + half + i, prev2, shift_idx, shift_mask, shifts, carry_idx[0]);
        _mm256_storeu_si256((__m256i *)(void *)(P + i), prev1);
        _mm256_storeu_si256((__m256i *)(void *)(P + half + i), prev2);
    }
    int64_t i = 2 * half;
    for (; i + PREFIX_LANES <= len; i += PREFIX_LANES) {
        prev2 = prefix_block(v + i, prev2, shift_idx, shift_mask, shifts, carry_idx[0]);
        _mm256_storeu_si256((__m256i *)(void *)(P + i), prev2);
    }
    /* The second chain started from 0: add the first chain's last sum of each channel. */
    __m256i carry[FX_MAX_IMAGE_CHANNELS];
    for (int m = 0; m < C; m++)
        carry[m] = _mm256_permutevar8x32_epi32(prev1, carry_idx[m]);
    for (int64_t j = half, m = 0; j < i; j += PREFIX_LANES, m = m + 1 == C ? 0 : m + 1) {
        __m256i *at = (__m256i *)(void *)(P + j);
        _mm256_storeu_si256(at, _mm256_add_epi32(_mm256_loadu_si256(at), carry[m]));
    }
    for (; i < len; i++)
        P[i] = v[i] + (i >= C ? P[i - C] : 0);
}

__attribute__((target("avx2"))) static void prefix_avx2(uint32_t *P, const uint16_t *v, int64_t len,
                                                        int64_t C)
{
    switch (C) {
    case 1: prefix_avx2_c(P, v, len, 1); break;
    case 2: prefix_avx2_c(P, v, len, 2); break;
    case 3: prefix_avx2_c(P, v, len, 3); break;
    default: prefix_avx2_c(P, v, len, 4); break;
    }
}
#endif

/* Window sums times num from the prefix sums: s[i] = num * (P[i + (kw - 1) C] - P[i - C]). */
#define DEFINE_BOX_DIFF(suffix, attr)                                                              \
    attr static void prefix_diff_##suffix(int32_t *s, const uint32_t *P, int64_t kw, int32_t num,  \
                                          int64_t n, int64_t C)                                    \
    {                                                                                              \
        const uint32_t *hi = P + (kw - 1) * C, *lo = P - C;                                        \
        for (int64_t x = 0; x < n; x++)                                                            \
            s[x] = (int32_t)(hi[x] - lo[x]) * num;                                                 \
    }
FXI_SIMD_VARIANTS(DEFINE_BOX_DIFF)

/* Window sums from prefix sums finished straight into 8-bit outputs, 32 a step, for the
 * box's two 8-bit rules: MULSHIFT with 32-bit products ((S + add) * mul >> shift) and
 * FLOAT_SCALE (nearest-even of float(S) * mul: vcvtps2dq rounds to nearest even, as
 * nearbyintf in the default rounding mode). The packs saturate to 0…255 (the rules'
 * clamp) and the final permute undoes their lane order. `first` is the row element of
 * out[0]: FLOAT_SCALE's vector steps stop at scalar_from, where the double rule of the
 * row's tail takes over (fxi_finish_exact_at, as the steps' leftovers). */
#ifdef FXI_HAVE_AVX2_VARIANT
#define DIFF_FINISH_STEP 32
__attribute__((target("avx2"))) static void diff_finish_u8_avx2(uint8_t *out, const uint32_t *P,
                                                                int64_t kw, int64_t C, int64_t n,
                                                                int64_t first, const fxi_finish *f)
{
    const uint32_t *hi = P + (kw - 1) * C, *lo = P - C;
    const bool scale = f->mode == FXI_ROUND_FLOAT_SCALE;
    const float mul_f = (float)f->mul;
    const uint32_t add = scale ? 0 : (uint32_t)f->add, mul = scale ? 0 : (uint32_t)f->mul;
    const int shift = scale ? 0 : -ilogb(f->unit);
    const __m256 vmul_f = _mm256_set1_ps(mul_f);
    const __m256i vadd = _mm256_set1_epi32((int)add), vmul = _mm256_set1_epi32((int)mul);
    const __m128i by = _mm_cvtsi32_si128(shift);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int64_t vector_end = scale ? f->scalar_from - first : n;
    vector_end = vector_end < 0 ? 0 : vector_end > n ? n : vector_end;
    int64_t x = 0;
    for (; x + DIFF_FINISH_STEP <= vector_end; x += DIFF_FINISH_STEP) {
        __m256i q[4];
        for (int k = 0; k < 4; k++) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(hi + x + 8 * k));
            __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(lo + x + 8 * k));
            __m256i sum = _mm256_sub_epi32(a, b);
            if (scale)
                q[k] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(sum), vmul_f));
            else
                q[k] = _mm256_srl_epi32(_mm256_mullo_epi32(_mm256_add_epi32(sum, vadd), vmul), by);
        }
        __m256i bytes =
            _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(void *)(out + x),
                            _mm256_permutevar8x32_epi32(bytes, order));
    }
    for (; x < n; x++) /* the rules themselves (exact here: fits' conditions) */
        out[x] = (uint8_t)fxi_finish_exact_at(f, (double)(int32_t)(hi[x] - lo[x]), first + x);
}
#endif

/* Can diff_finish_u8_avx2 finish this job's rows? */
static bool diff_finish_fits(const fxi_filter_job *job)
{
#ifdef FXI_HAVE_AVX2_VARIANT
    const fxi_finish *f = &job->taps->finish;
    return fxi_cpu_has_avx2() && job->taps->num[0] == 1 && job->dst->type == FX_U8 &&
           job->filter_channels == job->channels &&
           (f->mode == FXI_ROUND_FLOAT_SCALE || (f->mode == FXI_ROUND_MULSHIFT && f->u32_product));
#else
    (void)job;
    return false;
#endif
}

static void prefix(uint32_t *P, const uint16_t *v, int64_t len, int64_t C)
{
#ifdef FXI_HAVE_AVX2_VARIANT
    if (fxi_cpu_has_avx2()) {
        prefix_avx2(P, v, len, C);
        return;
    }
#endif
    prefix_base(P, v, len, C);
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
    /* The rest one pixel at a time: its column under the border rule found once. */
    const uint8_t *in = yi < 0 ? NULL : (const uint8_t *)fx_image_row(src, (int)yi);
    const uint8_t *out = yo < 0 ? NULL : (const uint8_t *)fx_image_row(src, (int)yo);
    for (int64_t p = 0; p < count; p++) {
        if (p == lo) p = hi;
        if (p >= count) break;
        int64_t xx = fxi_border_index(first + p, W, job->border);
        for (int64_t c = 0; c < C; c++) {
            int constant = (uint8_t)job->border_value[c];
            int d = in && xx >= 0 ? in[xx * C + c] : constant;
            if (yo != NO_ROW) d -= out && xx >= 0 ? out[xx * C + c] : constant;
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
    const bool fused = kw > FXI_BOX_U8_DIRECT_SUM_MAX_WIDTH && diff_finish_fits(job);
    const int64_t chunk =
        b->x1 - b->x0 < FXI_BOX_U8_FINISH_CHUNK ? b->x1 - b->x0 : FXI_BOX_U8_FINISH_CHUNK;
    uint16_t *v = (uint16_t *)(void *)scratch; /* column sums of the padded columns */
    uint16_t *h = v + fxi_align_up((size_t)(cols * C) * sizeof *v) / sizeof *v;
    int32_t *s = (int32_t *)(void *)(h + fxi_align_up((size_t)(chunk * C) * sizeof *h) / sizeof *h);
    uint32_t *P =
        (uint32_t *)(void *)(s + fxi_align_up((size_t)(chunk * C) * sizeof *s) / sizeof *s);
    memset(P, 0, PREFIX_LEAD * sizeof *P);
    P += PREFIX_LEAD; /* prefix sums of the column sums, zeros before them */
    memset(v, 0, (size_t)(cols * C) * sizeof *v);
    for (int y = b->y0; y < b->y1; y++) {
        int64_t top = (int64_t)y - t->ay;
        if (y == b->y0)
            for (int64_t r = top; r < top + kh; r++)
                update_columns(job, v, r, NO_ROW, first, cols);
        else
            update_columns(job, v, top + kh - 1, top - 1, first, cols);
        if (kw > FXI_BOX_U8_DIRECT_SUM_MAX_WIDTH) prefix(P, v, cols * C, C);
#ifdef FXI_HAVE_AVX2_VARIANT
        if (fused) {
            uint8_t *out = (uint8_t *)fx_image_row(job->dst, y) + b->x0 * C;
            diff_finish_u8_avx2(out, P, kw, C, (b->x1 - b->x0) * C, b->x0 * C, &t->finish);
            continue;
        }
#endif
        for (int64_t c0 = b->x0; c0 < b->x1; c0 += chunk) {
            int64_t c1 = c0 + chunk < b->x1 ? c0 + chunk : b->x1;
            const uint16_t *vc = v + (c0 - b->x0) * C;
            int64_t n = (c1 - c0) * C;
            if (kw > FXI_BOX_U8_DIRECT_SUM_MAX_WIDTH) {
                FXI_PICK(prefix_diff)(s, P + (c0 - b->x0) * C, kw, num, n, C);
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
