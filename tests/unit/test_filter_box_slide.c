/* The one-pass 8-bit box of the GPU (gpu_u8_box.cu, layout FXI_U8_BOX_SLIDE), its block
 * walk emulated on the CPU with its own arithmetic (filter/box_slide.h) and geometry
 * (fxi_gpu_u8_geometry), against a plain reference: the window sums of a summed-area
 * table over the image with its border applied. Each block stages in_w elements from
 * fxi_box_slide_start, keeps column sums two to a register (add the entering row, take
 * the leaving one away after the row), turns them into the channel-strided prefix and
 * reads each output as fxi_box_window; the block's scan across warps is a plain prefix
 * here (the GPU tests check the kernel's own). Widths from 1 pixel to several tiles,
 * kernels 1 to 255 and not square, 1-4 channels, the anchor at the centre, reflect101,
 * replicate and constant borders, row strips of the default and of a device's resident
 * blocks. */
#include <stdio.h>
#include <stdlib.h>

#include "filter/box_slide.h"
#include "filter/filter_math.h"
#include "filter/gpu_u8_geometry.h"
#include "fxkit/fxkit.h"
#include "fxtest.h"

typedef struct box_case {
    int64_t w, h;
    int c, kw, kh, border;
    const uint8_t *img;
    uint8_t border_value[4];
    int64_t resident; /* blocks the device runs at once (fxi_gpu_u8_slide_strips), 0: default */
} box_case;

/* Element e (any integer) of virtual row v (image row v - ay, any integer): the border
 * rule, as the kernel's src_row and element. */
static uint32_t element_at(const box_case *k, int64_t v, int64_t e)
{
    const int64_t y = fxi_border_index(v - k->kh / 2, k->h, k->border);
    const int64_t px = e >= 0 ? e / k->c : -((-e + k->c - 1) / k->c);
    const int c = (int)(e - px * k->c);
    if (y < 0) return k->border_value[c];
    const int64_t x = fxi_border_index(px, k->w, k->border);
    if (x < 0) return k->border_value[c];
    return k->img[(y * k->w + x) * k->c + c];
}

/* The kernel's word at staged element t of a block (first element s0): elements in the
 * row directly, the others through the block's column map as the kernel's edge threads
 * (source pixel of map pixel j: fxi_border_index of p0 + j, -1 the constant border). */
static uint32_t word_at(const box_case *k, int64_t v, int64_t s0, int t)
{
    int phase;
    const int64_t p0 = fxi_box_slide_first_pixel(s0, k->c, &phase);
    const int64_t y = fxi_border_index(v - k->kh / 2, k->h, k->border);
    uint32_t w = 0;
    for (int i = 0; i < 4; i++) {
        const int64_t e = s0 + t + i;
        uint32_t value;
        if (e >= 0 && e < k->w * k->c && y >= 0) {
            value = k->img[y * k->w * k->c + e];
        } else {
            int c;
            const int j = fxi_box_slide_pixel(phase, t + i, k->c, &c);
            const int64_t px = y < 0 ? -1 : fxi_border_index(p0 + j, k->w, k->border);
            value = px < 0 ? k->border_value[c] : k->img[(y * k->w + px) * k->c + c];
        }
        w |= value << (8 * i);
    }
    return w;
}

/* The reference: sums of kw x kh windows from a summed-area table of the bordered image
 * (rows: virtual rows 0 .. h + kh - 2; columns: elements -ax*C .. n + (kw - ax - 1) * C). */
static bool check_case(const box_case *k)
{
    const int64_t n = k->w * k->c, ax = k->kw / 2;
    const int64_t left = ax * k->c, cols = n + (int64_t)(k->kw - 1) * k->c;
    const int64_t vrows = k->h + k->kh - 1;
    uint64_t *sat = calloc((size_t)((vrows + 1) * (cols + 1)), sizeof *sat);
    if (!FXT_CHECK(sat != NULL)) return false;
    /* channel-strided columns: sat[v][t] sums rows < v and columns t' < t with t' = t - C*m */
    for (int64_t v = 0; v < vrows; v++)
        for (int64_t t = 0; t < cols; t++) {
            const uint64_t left_sum = t >= k->c ? sat[(v + 1) * (cols + 1) + t + 1 - k->c] : 0;
            const uint64_t up = sat[v * (cols + 1) + t + 1];
            const uint64_t diag = t >= k->c ? sat[v * (cols + 1) + t + 1 - k->c] : 0;
            sat[(v + 1) * (cols + 1) + t + 1] = element_at(k, v, t - left) + left_sum + up - diag;
        }
    fxi_gpu_u8_launch g;
    const char *why;
    bool ok = FXT_CHECK(fxi_gpu_u8_geometry(FXI_U8_BOX_SLIDE, true, k->w, k->c, k->h, k->kw, k->kh,
                                            48 << 10, 2147483647, 65535, &g, &why));
    fxi_gpu_u8_slide_strips(&g, k->h, k->resident, 65535);
    uint32_t *lo = calloc((size_t)g.in_w / 4, sizeof *lo), *hi = calloc((size_t)g.in_w / 4, sizeof *hi);
    /* 4 zeros before the prefix, as the kernel's shared memory (fxi_box_window) */
    uint32_t *guarded = calloc((size_t)g.in_w + 4, sizeof *guarded), *prefix = guarded + 4;
    ok = ok && FXT_CHECK(lo && hi && guarded);
    const int reach = (k->kw - 1) * k->c;
    for (int64_t bx = 0; ok && bx < g.tiles_x; bx++) {
        const int64_t o0 = bx * g.slide_out;
        int offset;
        const int64_t s0 = fxi_box_slide_start(o0, (int)ax, k->c, &offset);
        ok = ok && FXT_CHECK(s0 % 4 == 0 && offset >= 0 && offset < 4);
        const int64_t outs = g.slide_out < n - o0 ? g.slide_out : n - o0;
        for (int64_t ty = 0; ok && ty < g.tiles_y; ty++) {
            const int64_t r0 = ty * g.tile_h, r1 = r0 + g.tile_h < k->h ? r0 + g.tile_h : k->h;
            for (int i = 0; i < g.in_w / 4; i++) {
                lo[i] = hi[i] = 0;
                for (int64_t v = r0; v < r0 + k->kh - 1; v++)
                    fxi_box_pairs_add(&lo[i], &hi[i], word_at(k, v, s0, 4 * i));
            }
            for (int64_t r = r0; ok && r < r1; r++) {
                for (int i = 0; i < g.in_w / 4; i++)
                    fxi_box_pairs_add(&lo[i], &hi[i], word_at(k, r + k->kh - 1, s0, 4 * i));
                for (int t = 0; t < g.in_w; t++)
                    prefix[t] = fxi_box_pairs_element(lo[t / 4], hi[t / 4], t % 4) +
                                prefix[t - k->c];
                for (int64_t o = 0; ok && o < outs; o++) {
                    /* elements e - ax*C .. e + (kw-1-ax)*C of rows r .. r + kh - 1 */
                    const int64_t e = o0 + o, t1 = e + reach, t0 = e - k->c;
                    const uint64_t *top = sat + r * (cols + 1), *bot = sat + (r + k->kh) * (cols + 1);
                    const uint64_t want = bot[t1 + 1] - top[t1 + 1] -
                                          (t0 >= 0 ? bot[t0 + 1] - top[t0 + 1] : 0);
                    const uint32_t got = fxi_box_window(prefix, (int)o + offset, reach, k->c);
                    if (!FXT_CHECK_EQ(got, (uint32_t)want))
                        ok = false;
                }
                for (int i = 0; i < g.in_w / 4; i++)
                    fxi_box_pairs_sub(&lo[i], &hi[i], word_at(k, r, s0, 4 * i));
            }
        }
    }
    if (!ok)
        fprintf(stderr, "  %lldx%lldx%d box %dx%d border %d\n", (long long)k->w, (long long)k->h,
                k->c, k->kw, k->kh, k->border);
    free(sat);
    free(lo);
    free(hi);
    free(guarded);
    return ok;
}

FXT_TEST(box_slide_blocks_sum_every_window)
{
    static const int64_t widths[] = {1, 2, 7, 33, 300, 2600};
    static const int64_t heights[] = {1, 3, 70, 131};
    static const int ks[][2] = {{1, 1}, {7, 7}, {3, 5}, {30, 9}, {121, 121}, {255, 4}, {1, 255}};
    static const int borders[] = {FX_BORDER_REFLECT101, FX_BORDER_REPLICATE, FX_BORDER_CONSTANT};
    uint64_t seed = 12345;
    uint8_t *img = malloc(2600 * 131 * 4);
    if (!FXT_CHECK(img != NULL)) return;
    for (size_t i = 0; i < 2600 * 131 * 4; i++)
        img[i] = (uint8_t)(fxt_rand(&seed) >> 56);
    int cases = 0;
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
        for (size_t hi = 0; hi < sizeof heights / sizeof *heights; hi++)
            for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
                /* the large windows on the wide image: one channel count and border each */
                const bool big = widths[wi] * heights[hi] * ks[ki][0] > 2000000;
                for (int c = 1; c <= 4; c++)
                    for (size_t bi = 0; bi < sizeof borders / sizeof *borders; bi++) {
                        if (big && (size_t)c != 1 + (wi + hi + ki) % 4) continue;
                        if (big && bi != (wi + ki) % 3) continue;
                        const box_case k = {widths[wi], heights[hi], c, ks[ki][0], ks[ki][1],
                                            borders[bi], img, {7, 200, 0, 255},
                                            ki % 3 ? 0 : (int64_t)(5 + 3 * wi)};
                        cases++;
                        if (!check_case(&k)) {
                            free(img);
                            return;
                        }
                    }
            }
    FXT_CHECK(cases > 300);
    free(img);
}

/* The pair registers: bytes added and taken away in any order that keeps every half at
 * most 65535 and never below zero come back exactly, element by element. */
FXT_TEST(box_pairs_keep_two_sums_a_register)
{
    uint64_t seed = 99;
    uint32_t lo = 0, hi = 0, want[4] = {0, 0, 0, 0};
    uint32_t rows[257];
    for (int r = 0; r < 257; r++) {
        rows[r] = (uint32_t)(fxt_rand(&seed) >> 32) | 0x80808080u; /* bytes >= 128: near the limit */
        if (r % 5 == 0) rows[r] = 0xFFFFFFFFu;
    }
    for (int r = 0; r < 257; r++) {
        fxi_box_pairs_add(&lo, &hi, rows[r]);
        for (int i = 0; i < 4; i++)
            want[i] += (rows[r] >> (8 * i)) & 0xFF;
    }
    for (int i = 0; i < 4; i++)
        FXT_CHECK_EQ(fxi_box_pairs_element(lo, hi, i), want[i]);
    for (int r = 0; r < 200; r++) {
        fxi_box_pairs_sub(&lo, &hi, rows[r]);
        for (int i = 0; i < 4; i++)
            want[i] -= (rows[r] >> (8 * i)) & 0xFF;
    }
    for (int i = 0; i < 4; i++)
        FXT_CHECK_EQ(fxi_box_pairs_element(lo, hi, i), want[i]);
}

FXT_TEST(box_slide_start_is_the_word_at_or_below_tap_zero)
{
    for (int64_t o0 = 0; o0 < 64; o0 += 4)
        for (int c = 1; c <= 4; c++)
            for (int ax = 0; ax < 130; ax += 7) {
                int offset;
                const int64_t s0 = fxi_box_slide_start(o0, ax, c, &offset);
                FXT_CHECK(s0 % 4 == 0);
                FXT_CHECK(offset >= 0 && offset <= 3);
                FXT_CHECK_EQ(s0 + offset, o0 - (int64_t)ax * c);
            }
}

FXT_MAIN(FXT_CASE(box_slide_blocks_sum_every_window), FXT_CASE(box_pairs_keep_two_sums_a_register),
         FXT_CASE(box_slide_start_is_the_word_at_or_below_tap_zero))
