/* 8-bit fast paths of the CPU passes, 256 bins, no mask: the key histogram and the
 * mapping pass of gray, hsv and luma. They compute what equalize_math.h defines
 * (the unit tests compare them with it on every input they can take):
 *
 *  - keys (V = max, OpenCV's Y) in 32-bit lanes, eight RGB pixels at a time (AVX2),
 *    counted into four sub-histograms so that runs of equal keys do not wait on
 *    each other's increments;
 *  - hsv: the integer (2cV' + V) div 2V as fxi_hsv_channel_f32 (float, proven
 *    exact over all 8-bit inputs by an exhaustive test), V' gathered from a table;
 *  - luma: OpenCV's fixed-point YCrCb and back in 32-bit lanes.
 *
 * Each function has a scalar form for CPUs without AVX2 and for row tails.
 */
#include <string.h>

#include "equalize_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FXI_EQ_AVX2 1
#define AVX2_FN __attribute__((target("avx2")))
#endif

#define U8_LEVELS FXI_EQ_U8_LEVELS
/* Pixels per AVX2 step, and how many a step may read: two 16-byte loads at byte 0
 * and byte 12 of the step cover 28 bytes, i.e. into the 10th pixel. */
#define STEP_PIXELS 8
#define STEP_READ_PIXELS 10
#define HALF_DESCALE (1 << (FXI_YUV_SHIFT - 1))

/* equalize_math.h's rule for one pass, on the modes this file covers. */
static int fast_pass(const fx_equalize_plan *p, unsigned pass)
{
    return fxi_eq_u8_fast_path(pass, FXI_EQ_FAST_MODES_CPU, p->type == FX_U8, p->mode,
                               p->in_channels, p->bins, p->mask != NULL, p->adaptive);
}

int fxi_eq_u8_fast_map(const fx_equalize_plan *p)
{
    return fast_pass(p, FXI_EQ_FAST_MAP);
}

int fxi_eq_u8_fast(const fx_equalize_plan *p)
{
    return fast_pass(p, FXI_EQ_FAST_COUNT);
}

void fxi_eq_u8_tables(fx_equalize_plan *p)
{
    for (uint32_t v = 0; v < U8_LEVELS; v++) {
        p->lut8[v] = (uint8_t)p->value_lut[v];
        p->lut32[v] = (int32_t)p->value_lut[v];
        p->lutf[v] = (float)p->value_lut[v];
    }
}

/* ---- scalar forms ---- */

static inline uint32_t key_of(int mode, const uint8_t *s)
{
    return mode == FXI_EQ_MODE_LUMA ? fxi_luma(s[0], s[1], s[2]) : fxi_max3(s[0], s[1], s[2]);
}

static void count_scalar(int mode, const uint8_t *row, int from, int width,
                         uint32_t sub[FXI_EQ_SUB_HISTS][U8_LEVELS])
{
    for (int x = from; x < width; x++)
        sub[x & (FXI_EQ_SUB_HISTS - 1)][key_of(mode, row + 3 * (size_t)x)]++;
}

static void map_scalar(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out, int from)
{
    for (int x = from; x < p->width; x++) {
        const uint8_t *s = in + 3 * (size_t)x;
        uint8_t *d = out + 3 * (size_t)x;
        const uint32_t r = s[0], g = s[1], b = s[2];
        uint32_t res[3];
        if (p->mode == FXI_EQ_MODE_HSV) {
            const uint32_t v = fxi_max3(r, g, b), v2 = p->lut8[v];
            res[0] = fxi_hsv_channel_f32(r, v, v2);
            res[1] = fxi_hsv_channel_f32(g, v, v2);
            res[2] = fxi_hsv_channel_f32(b, v, v2);
        } else {
            const uint32_t y = fxi_luma(r, g, b);
            int32_t cr, cb;
            fxi_chroma(r, b, y, 255, &cr, &cb);
            fxi_ycrcb_to_rgb(p->lut8[y], cr, cb, 255, res);
        }
        d[0] = (uint8_t)res[0], d[1] = (uint8_t)res[1], d[2] = (uint8_t)res[2];
    }
}

/* Gray: eight samples a word. */
void fxi_eq_u8_count_gray(const uint8_t *row, int width, uint32_t sub[FXI_EQ_SUB_HISTS][U8_LEVELS])
{
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        uint64_t w;
        memcpy(&w, row + x, sizeof w);
        for (int k = 0; k < 8; k++)
            sub[k & (FXI_EQ_SUB_HISTS - 1)][(w >> (8 * k)) & 0xFF]++;
    }
    for (; x < width; x++)
        sub[0][row[x]]++;
}

/* Gray: eight samples a word in, eight looked up, one word out. */
static void map_gray(const uint8_t *lut, const uint8_t *in, uint8_t *out, int width)
{
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        uint64_t w, o = 0;
        memcpy(&w, in + x, sizeof w);
        for (int k = 0; k < 8; k++)
            o |= (uint64_t)lut[(w >> (8 * k)) & 0xFF] << (8 * k);
        memcpy(out + x, &o, sizeof o);
    }
    for (; x < width; x++)
        out[x] = lut[in[x]];
}

/* ---- AVX2 ---- */

#ifdef FXI_EQ_AVX2
static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}

/* Eight RGB pixels into R, G, B in 32-bit lanes (pixels 0-3 in the low lane,
 * 4-7 in the high lane). Reads STEP_READ_PIXELS pixels' worth of bytes. */
static AVX2_FN inline void load8_rgb(const uint8_t *s, __m256i *r, __m256i *g, __m256i *b)
{
    const __m256i x = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)s)),
        _mm_loadu_si128((const __m128i *)(const void *)(s + 12)), 1);
#define LANE(c) c, -1, -1, -1, c + 3, -1, -1, -1, c + 6, -1, -1, -1, c + 9, -1, -1, -1
    *r = _mm256_shuffle_epi8(x, _mm256_setr_epi8(LANE(0), LANE(0)));
    *g = _mm256_shuffle_epi8(x, _mm256_setr_epi8(LANE(1), LANE(1)));
    *b = _mm256_shuffle_epi8(x, _mm256_setr_epi8(LANE(2), LANE(2)));
#undef LANE
}

/* R, G, B (0..255 in 32-bit lanes) back to 24 interleaved bytes. */
static AVX2_FN inline void store8_rgb(uint8_t *d, __m256i r, __m256i g, __m256i b)
{
    __m256i px =
        _mm256_or_si256(r, _mm256_or_si256(_mm256_slli_epi32(g, 8), _mm256_slli_epi32(b, 16)));
#define PACK 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1
    px = _mm256_shuffle_epi8(px, _mm256_setr_epi8(PACK, PACK));
#undef PACK
    px = _mm256_permutevar8x32_epi32(px, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7));
    _mm_storeu_si128((__m128i *)(void *)d, _mm256_castsi256_si128(px));
    _mm_storel_epi64((__m128i *)(void *)(d + 16), _mm256_extracti128_si256(px, 1));
}

/* fxi_luma in lanes. */
static AVX2_FN inline __m256i luma8(__m256i r, __m256i g, __m256i b)
{
    __m256i y = _mm256_add_epi32(_mm256_mullo_epi32(r, _mm256_set1_epi32(FXI_R2Y)),
                                 _mm256_mullo_epi32(g, _mm256_set1_epi32(FXI_G2Y)));
    y = _mm256_add_epi32(y, _mm256_mullo_epi32(b, _mm256_set1_epi32(FXI_B2Y)));
    return _mm256_srli_epi32(_mm256_add_epi32(y, _mm256_set1_epi32(HALF_DESCALE)), FXI_YUV_SHIFT);
}

static AVX2_FN inline __m256i key8(int mode, __m256i r, __m256i g, __m256i b)
{
    return mode == FXI_EQ_MODE_LUMA ? luma8(r, g, b) : _mm256_max_epi32(_mm256_max_epi32(r, g), b);
}

static AVX2_FN int count_avx2(int mode, const uint8_t *row, int width,
                              uint32_t sub[FXI_EQ_SUB_HISTS][U8_LEVELS])
{
    int x = 0;
    uint32_t k[STEP_PIXELS] __attribute__((aligned(32)));
    for (; x + STEP_READ_PIXELS <= width; x += STEP_PIXELS) {
        __m256i r, g, b;
        load8_rgb(row + 3 * (size_t)x, &r, &g, &b);
        _mm256_store_si256((__m256i *)(void *)k, key8(mode, r, g, b));
        for (int i = 0; i < STEP_PIXELS; i++)
            sub[i & (FXI_EQ_SUB_HISTS - 1)][k[i]]++;
    }
    return x;
}

/* descale(x) = (x + half) >> shift, arithmetic, as fxi_descale. */
static AVX2_FN inline __m256i descale8(__m256i x)
{
    return _mm256_srai_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(HALF_DESCALE)), FXI_YUV_SHIFT);
}

static AVX2_FN inline __m256i saturate8(__m256i x)
{
    return _mm256_min_epi32(_mm256_max_epi32(x, _mm256_setzero_si256()), _mm256_set1_epi32(255));
}

static AVX2_FN inline __m256i mul8(__m256i a, int32_t k)
{
    return _mm256_mullo_epi32(a, _mm256_set1_epi32(k));
}

/* fxi_hsv_channel_f32 in lanes, given f and g of the pixel. */
static AVX2_FN inline __m256i hsv_channel8(__m256i c, __m256 f, __m256 g)
{
    return _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(c), f), g));
}

static AVX2_FN int map_avx2(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out)
{
    int x = 0;
    const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
    const __m256i chroma_half = _mm256_set1_epi32(U8_LEVELS / 2);
    const __m256i delta = _mm256_set1_epi32((U8_LEVELS / 2) << FXI_YUV_SHIFT);
    for (; x + STEP_READ_PIXELS <= p->width; x += STEP_PIXELS) {
        __m256i r, g, b;
        load8_rgb(in + 3 * (size_t)x, &r, &g, &b);
        if (p->mode == FXI_EQ_MODE_HSV) {
            const __m256i v = _mm256_max_epi32(_mm256_max_epi32(r, g), b);
            const __m256 vf = _mm256_cvtepi32_ps(v);
            const __m256 r2 = _mm256_div_ps(one, _mm256_max_ps(vf, one));
            const __m256 f = _mm256_mul_ps(_mm256_i32gather_ps(p->lutf, v, sizeof(float)), r2);
            const __m256 gg = _mm256_mul_ps(_mm256_add_ps(vf, half), _mm256_mul_ps(half, r2));
            store8_rgb(out + 3 * (size_t)x, hsv_channel8(r, f, gg), hsv_channel8(g, f, gg),
                       hsv_channel8(b, f, gg));
        } else {
            const __m256i y = luma8(r, g, b);
            const __m256i cr =
                saturate8(descale8(_mm256_add_epi32(mul8(_mm256_sub_epi32(r, y), FXI_YCR), delta)));
            const __m256i cb =
                saturate8(descale8(_mm256_add_epi32(mul8(_mm256_sub_epi32(b, y), FXI_YCB), delta)));
            const __m256i y2 = _mm256_i32gather_epi32(p->lut32, y, sizeof(int32_t));
            const __m256i dcr = _mm256_sub_epi32(cr, chroma_half);
            const __m256i dcb = _mm256_sub_epi32(cb, chroma_half);
            const __m256i ro = saturate8(_mm256_add_epi32(y2, descale8(mul8(dcr, FXI_CR2R))));
            const __m256i go = saturate8(_mm256_add_epi32(
                y2, descale8(_mm256_add_epi32(mul8(dcb, FXI_CB2G), mul8(dcr, FXI_CR2G)))));
            const __m256i bo = saturate8(_mm256_add_epi32(y2, descale8(mul8(dcb, FXI_CB2B))));
            store8_rgb(out + 3 * (size_t)x, ro, go, bo);
        }
    }
    return x;
}
#endif

void fxi_eq_u8_count_row(const fx_equalize_plan *p, const uint8_t *row,
                         uint32_t sub[FXI_EQ_SUB_HISTS][U8_LEVELS])
{
    if (p->mode == FXI_EQ_MODE_GRAY) {
        fxi_eq_u8_count_gray(row, p->width, sub);
        return;
    }
    int x = 0;
#ifdef FXI_EQ_AVX2
    if (have_avx2()) x = count_avx2(p->mode, row, p->width, sub);
#endif
    count_scalar(p->mode, row, x, p->width, sub);
}

void fxi_eq_u8_map_row(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out)
{
    if (p->mode == FXI_EQ_MODE_GRAY) {
        map_gray(p->lut8, in, out, p->width);
        return;
    }
    int x = 0;
#ifdef FXI_EQ_AVX2
    if (have_avx2()) x = map_avx2(p, in, out);
#endif
    map_scalar(p, in, out, x);
}
