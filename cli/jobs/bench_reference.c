/* fxkit bench: plain references, written from the definitions in docs/ALGORITHMS.md and
 * sharing no code with the library, so that a bench run checks the library rather than
 * itself. They are simple loops: the bench runs them where they are cheap (integer
 * kernels, global equalization), and the library's `direct` strategy elsewhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The largest 8-bit sample. */
#define U8_MAX_LEVEL 255
#define U8_LEVELS 256

/* OpenCV's BORDER_REFLECT_101 (gfedcb|abcdefgh|gfedcba), repeated for kernels wider than
 * the image. */
static int reflect101(int i, int n)
{
    if (n == 1) return 0;
    while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

static uint8_t saturate_u8(int64_t v)
{
    return (uint8_t)(v < 0 ? 0 : v > U8_MAX_LEVEL ? U8_MAX_LEVEL : v);
}

bool bench_ref_filter_int(const fx_image *src, const double *taps, int kw, int kh, double offset,
                          fx_image *dst)
{
    if (src->type != FX_U8 || offset != floor(offset)) return false;
    int64_t *w = malloc((size_t)kw * (size_t)kh * sizeof *w);
    int *xs = malloc((size_t)src->width * (size_t)kw * sizeof *xs);
    if (!w || !xs) {
        free(w);
        free(xs);
        return false;
    }
    bool integer = true;
    for (int i = 0; i < kw * kh; i++) {
        integer = integer && taps[i] == floor(taps[i]);
        w[i] = (int64_t)taps[i];
    }
    /* the source column of each output column and tap, once */
    for (int x = 0; x < src->width; x++)
        for (int i = 0; i < kw; i++)
            xs[(size_t)x * kw + i] = reflect101(x + i - kw / 2, src->width);
    const int ch = src->channels;
    for (int y = 0; integer && y < src->height; y++) {
        uint8_t *out = fx_image_row(dst, y);
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < ch; c++) {
                int64_t sum = (int64_t)offset;
                for (int j = 0; j < kh; j++) {
                    const uint8_t *row = fx_image_row(src, reflect101(y + j - kh / 2, src->height));
                    for (int i = 0; i < kw; i++)
                        sum += w[j * kw + i] * row[(size_t)xs[(size_t)x * kw + i] * ch + c];
                }
                out[(size_t)x * ch + c] = saturate_u8(sum);
            }
    }
    free(w);
    free(xs);
    return integer;
}

/* OpenCV's equalizeHist LUT: level = rint_even((float)(C(b) - base) * ((float)255 /
 * (float)(n - base))), base the count of the first non-empty bin; bins below it give 0.
 * False when one bin holds every key (the image is returned unchanged). */
static bool equalize_lut(const uint64_t *hist, uint64_t n, uint8_t *lut)
{
    int first = 0;
    while (first < U8_LEVELS && !hist[first])
        first++;
    if (first == U8_LEVELS || hist[first] == n) return false;
    const uint64_t base = hist[first];
    const float scale = (float)U8_MAX_LEVEL / (float)(n - base);
    uint64_t cdf = 0;
    for (int b = 0; b < U8_LEVELS; b++) {
        cdf += hist[b];
        if (b < first) {
            lut[b] = 0;
            continue;
        }
        float level = nearbyintf((float)(cdf - base) * scale);
        lut[b] = saturate_u8((int64_t)level);
    }
    return true;
}

static int key_of(const uint8_t *px, bool hsv)
{
    if (!hsv) return px[0];
    int v = px[0] > px[1] ? px[0] : px[1];
    return v > px[2] ? v : px[2];
}

bool bench_ref_equalize(const fx_image *src, bool hsv, fx_image *dst)
{
    const int ch = src->channels;
    if (src->type != FX_U8 || (hsv && ch != 3) || (!hsv && ch != 1)) return false;
    uint64_t hist[U8_LEVELS] = {0};
    for (int y = 0; y < src->height; y++) {
        const uint8_t *row = fx_image_row(src, y);
        for (int x = 0; x < src->width; x++)
            hist[key_of(row + (size_t)x * ch, hsv)]++;
    }
    uint8_t lut[U8_LEVELS];
    bool mapped = equalize_lut(hist, (uint64_t)src->width * (uint64_t)src->height, lut);
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = fx_image_row(src, y);
        uint8_t *out = fx_image_row(dst, y);
        for (int x = 0; x < src->width; x++) {
            const uint8_t *p = in + (size_t)x * ch;
            uint8_t *q = out + (size_t)x * ch;
            if (!mapped) {
                memcpy(q, p, (size_t)ch);
                continue;
            }
            int v = key_of(p, hsv);
            if (!hsv) {
                q[0] = lut[v];
                continue;
            }
            /* hue and saturation kept: c' = round half up of c * V' / V */
            for (int c = 0; c < ch; c++)
                q[c] = v ? (uint8_t)((2 * p[c] * lut[v] + v) / (2 * v)) : 0;
        }
    }
    return true;
}

double bench_max_diff_images(const fx_image *a, const fx_image *b)
{
    double worst = 0;
    const size_t row_bytes = (size_t)a->width * (size_t)a->channels;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *p = fx_image_row(a, y), *q = fx_image_row(b, y);
        for (size_t i = 0; i < row_bytes; i++) {
            int d = abs((int)p[i] - (int)q[i]);
            if (d > worst) worst = d;
        }
    }
    return worst;
}

double bench_max_diff_samples(const double *a, const double *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (d > worst || d != d) worst = d != d ? INFINITY : d;
    }
    return worst;
}
