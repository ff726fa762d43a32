/* GPU filter geometry, without a GPU: every band set covers every output row exactly
 * once with the right input halo, for awkward sizes, kernels larger than the image and
 * 1-row bands; no budget exceeds the limits passed in; launch geometries cover the
 * image and respect the shared-memory, constant-memory and grid limits. */
#include <stdlib.h>
#include <string.h>

#include "filter/gpu_geometry.h"
#include "filter/gpu_u8_geometry.h"
#include "fxkit/fxkit.h"
#include "fxtest.h"

static fxi_gpu_limits limits(size_t budget)
{
    fxi_gpu_limits l = {0};
    l.shared_bytes = 48 << 10;
    l.constant_bytes = 60 << 10;
    l.texture_elements = (int64_t)1 << 27;
    l.max_grid_x = 2147483647;
    l.max_grid_y = 65535;
    l.memory_budget = budget;
    l.max_streams = 3;
    return l;
}

static fxi_gpu_shape shape(int64_t w, int64_t h, int c, int in, int out, int acc, int kw, int kh,
                           int ax, int ay)
{
    fxi_gpu_shape s = {w, h, c, in, out, acc, kw, kh, ax, ay};
    return s;
}

/* Every output row once, halos exact, buffers within the budget. */
static int check_bands(const fxi_gpu_shape *s, size_t work, int64_t max_vrows, int64_t row_multiple,
                       const fxi_gpu_limits *l, int *one_row)
{
    fxi_gpu_bands b;
    const char *why;
    if (!FXT_CHECK(fxi_gpu_plan_bands(s, work, max_vrows, row_multiple, l, &b, &why))) {
        fprintf(stderr, "  %s\n", why ? why : "?");
        return 0;
    }
    /* whole multiples of row_multiple where a band holds more and there are several */
    if (row_multiple > 1 && b.count > 1 && b.band_h > row_multiple)
        FXT_CHECK_EQ(b.band_h % row_multiple, 0);
    int ok = FXT_CHECK(b.band_h >= 1) && FXT_CHECK(b.streams >= 1) &&
             FXT_CHECK(b.streams <= l->max_streams) && FXT_CHECK(b.streams <= b.count);
    const size_t in_row = fxi_gpu_in_row_bytes(s), out_row = fxi_gpu_out_row_bytes(s);
    ok = ok && FXT_CHECK((b.in_bytes + b.out_bytes + b.work_bytes) * (size_t)b.streams <=
                         l->memory_budget);
    unsigned char *seen = calloc((size_t)s->height, 1);
    int64_t next = 0;
    for (int64_t i = 0; i < b.count && ok; i++) {
        fxi_gpu_band r = fxi_gpu_band_at(&b, s, i);
        ok = FXT_CHECK_EQ(r.y0, next) && FXT_CHECK(r.y1 > r.y0) && FXT_CHECK(r.y1 <= s->height);
        /* the input rows every output row of the band reads: y - ay + i, i < kh */
        ok = ok && FXT_CHECK_EQ(r.v0, r.y0 - s->ay) &&
             FXT_CHECK_EQ(r.v0 + r.vrows, r.y1 - 1 - s->ay + s->kh);
        ok = ok && FXT_CHECK((size_t)r.vrows * in_row <= b.in_bytes) &&
             FXT_CHECK((size_t)(r.y1 - r.y0) * out_row <= b.out_bytes);
        if (max_vrows > 0) ok = ok && FXT_CHECK(r.vrows <= max_vrows);
        for (int64_t y = r.y0; y < r.y1 && ok; y++)
            ok = FXT_CHECK_EQ(seen[y]++, 0);
        next = r.y1;
    }
    ok = ok && FXT_CHECK_EQ(next, s->height);
    if (b.band_h == 1) *one_row = 1;
    free(seen);
    return ok;
}

FXT_TEST(bands_cover_every_row_once)
{
    static const int64_t sizes[][2] = {{1, 1},      {1, 97},    {97, 1},  {13, 7},
                                       {257, 1031}, {4099, 33}, {3, 5000}};
    static const int kernels[][4] = {{1, 1, 0, 0},       {3, 3, 1, 1}, {11, 4, 5, 2},
                                     {121, 121, 60, 60}, {2, 9, 1, 8}, {31, 200, 0, 0}};
    static const size_t budgets[] = {1u << 30, 1u << 20, 64u << 10, 4096};
    int one_row = 0, cases = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
            for (int c = 1; c <= 4; c++)
                for (size_t m = 0; m < sizeof budgets / sizeof *budgets; m++) {
                    fxi_gpu_shape s =
                        shape(sizes[i][0], sizes[i][1], c, c == 2 ? 2 : 1, c == 3 ? 4 : 1, 4,
                              kernels[k][0], kernels[k][1], kernels[k][2], kernels[k][3]);
                    fxi_gpu_limits l = limits(budgets[m]);
                    /* the smallest budget that holds one row of one band */
                    size_t need =
                        (size_t)s.kh * fxi_gpu_in_row_bytes(&s) + fxi_gpu_out_row_bytes(&s) + 16;
                    if (need > l.memory_budget) {
                        fxi_gpu_bands b;
                        const char *why;
                        FXT_CHECK(!fxi_gpu_plan_bands(&s, 16, 0, 0, &l, &b, &why) && why);
                        l.memory_budget = need; /* exactly enough: 1-row bands */
                    }
                    cases++;
                    if (!check_bands(&s, 16, 0, 0, &l, &one_row))
                        fprintf(stderr, "  %lldx%lldx%d kernel %dx%d budget %zu\n",
                                (long long)s.width, (long long)s.height, c, s.kw, s.kh,
                                l.memory_budget);
                }
    FXT_CHECK(one_row);
    FXT_CHECK(cases > 500);
}

/* fft bands hold whole tile rows (the tile rows a band transforms are all output) */
FXT_TEST(bands_of_whole_tile_rows)
{
    static const int64_t multiples[] = {7, 16, 100, 997, 4096};
    static const size_t budgets[] = {1u << 30, 8u << 20, 1u << 20};
    int one_row = 0;
    for (size_t m = 0; m < sizeof multiples / sizeof *multiples; m++)
        for (size_t k = 0; k < sizeof budgets / sizeof *budgets; k++) {
            fxi_gpu_shape s = shape(3000, 20000, 1, 4, 4, 4, 31, 31, 15, 15);
            fxi_gpu_limits l = limits(budgets[k]);
            if (!check_bands(&s, 0, 0, multiples[m], &l, &one_row))
                fprintf(stderr, "  multiple %lld budget %zu\n", (long long)multiples[m],
                        budgets[k]);
        }
}

FXT_TEST(bands_respect_texture_rows)
{
    int one_row = 0;
    fxi_gpu_shape s = shape(100, 1000, 3, 1, 1, 4, 5, 5, 2, 2);
    fxi_gpu_limits l = limits(1u << 30);
    FXT_CHECK(check_bands(&s, 0, 37, 0, &l, &one_row));
    FXT_CHECK(check_bands(&s, 0, 5, 0, &l, &one_row)); /* 1-row bands: vrows = kh */
    FXT_CHECK(one_row);
    fxi_gpu_bands b;
    const char *why;
    FXT_CHECK(!fxi_gpu_plan_bands(&s, 0, 4, 0, &l, &b, &why) && why);
}

FXT_TEST(bands_big_image_overlap)
{
    /* 10000 x 100000 RGB u8, 11x11, 4 GiB allowed: several bands on several streams */
    fxi_gpu_shape s = shape(10000, 100000, 3, 1, 1, 4, 11, 11, 5, 5);
    fxi_gpu_limits l = limits((size_t)4 << 30);
    fxi_gpu_bands b;
    const char *why;
    FXT_CHECK(fxi_gpu_plan_bands(&s, 0, 0, 0, &l, &b, &why));
    FXT_CHECK_EQ(b.streams, 3);
    FXT_CHECK(b.count > 50);
    FXT_CHECK(b.in_bytes <= FXI_GPU_BAND_TARGET_BYTES + 10 * fxi_gpu_in_row_bytes(&s));
    int one_row = 0;
    FXT_CHECK(check_bands(&s, 0, 0, 0, &l, &one_row));
}

/* Every tile of the launch is visited once by the grid (with its y loop). */
static int covers(const fxi_gpu_launch *g, const fxi_gpu_shape *s, int64_t rows,
                  const fxi_gpu_limits *l)
{
    /* box: the column pass covers the padded row */
    const int64_t n = g->kernel == FXI_GK_BOX && g->ring
                          ? s->width /* tiles of pixels */
                          : s->width * s->channels +
                                (g->kernel == FXI_GK_BOX ? (int64_t)(s->kw - 1) * s->channels : 0);
    int ok = FXT_CHECK(g->tiles_x * g->tile_w >= n) &&
             FXT_CHECK((g->tiles_x - 1) * g->tile_w < n) &&
             FXT_CHECK(g->tiles_y * g->tile_h >= rows) &&
             FXT_CHECK((g->tiles_y - 1) * g->tile_h < rows) &&
             FXT_CHECK(g->grid_y <= l->max_grid_y) && FXT_CHECK(g->grid_x <= l->max_grid_x) &&
             FXT_CHECK(g->grid_y >= 1) && FXT_CHECK(g->shared_bytes <= l->shared_bytes) &&
             FXT_CHECK(g->block_x * g->block_y <= 1024) &&
             FXT_CHECK(g->tile_h == g->block_y * g->rows_per_thread || g->kernel == FXI_GK_BOX);
    if (g->kernel == FXI_GK_SHARED) {
        size_t width = ((size_t)g->tile_w + (size_t)(s->kw - 1) * s->channels) * s->acc_size;
        ok = ok && FXT_CHECK(g->chunk_rows >= 1 && g->chunk_rows <= s->kh) &&
             FXT_CHECK(width * (size_t)(g->tile_h + g->chunk_rows - 1) == g->shared_bytes);
    }
    if (g->ring && g->kernel == FXI_GK_SEPARABLE) {
        /* the ring holds a chunk and the kh - 1 rows before it; staged rows span the halo */
        size_t bytes = ((size_t)g->ring_rows * g->tile_w + (size_t)g->chunk_rows * g->in_width +
                        (size_t)(s->kw + s->kh)) *
                       (size_t)s->acc_size;
        return ok && FXT_CHECK(g->ring_rows == s->kh - 1 + g->chunk_rows) &&
               FXT_CHECK(g->in_width == g->tile_w + (s->kw - 1) * s->channels) &&
               FXT_CHECK(g->tile_h >= 2 * (s->kh - 1)) && FXT_CHECK(bytes == g->shared_bytes);
    }
    if (g->ring && g->kernel == FXI_GK_BOX) {
        /* every thread of a group has a channel; the column sums span the padded width */
        return ok && FXT_CHECK(g->box_groups * s->channels <= g->block_x) &&
               FXT_CHECK((g->box_groups + 1) * s->channels > g->block_x) &&
               FXT_CHECK(g->tile_w == g->box_groups * g->box_segment) &&
               FXT_CHECK(g->in_width == (g->tile_w + s->kw - 1) * s->channels) &&
               FXT_CHECK(g->box_segment >= 1);
    }
    if (g->kernel == FXI_GK_SEPARABLE)
        ok = ok && FXT_CHECK(g->chunk_rows >= 1 && g->chunk_rows <= g->tile_h + s->kh - 1) &&
             FXT_CHECK((size_t)g->chunk_rows * g->tile_w * s->acc_size == g->shared_bytes);
    if (g->kernel == FXI_GK_BOX)
        ok = ok && FXT_CHECK(g->box_segment >= s->kw) && FXT_CHECK(g->box_strip >= s->kh) &&
             FXT_CHECK(g->box_items ==
                       rows * s->channels * ((s->width + g->box_segment - 1) / g->box_segment)) &&
             FXT_CHECK(g->box_grid_x >= 1 && g->box_grid_x <= l->max_grid_x) &&
             FXT_CHECK(g->box_segment >= 1);
    return ok;
}

FXT_TEST(launch_geometry_within_limits)
{
    static const int blocks[] = {0, 8, 16, 32};
    static const int64_t sizes[][2] = {{1, 1}, {1000, 1000}, {7, 3000000}, {4097, 5}};
    static const int kernels[] = {1, 3, 31, 121, 1023};
    fxi_gpu_limits l = limits(1u << 30);
    l.max_grid_y = 1000; /* small, so the y loop is exercised */
    int shared_refused = 0;
    for (int k = 0; k < FXI_GK_COUNT; k++)
        for (size_t b = 0; b < 4; b++)
            for (size_t i = 0; i < 4; i++)
                for (size_t q = 0; q < 5; q++)
                    for (int c = 1; c <= 4; c += 3) {
                        int kk = kernels[q];
                        fxi_gpu_shape s = shape(sizes[i][0], sizes[i][1], c, 1, 1, 4 + 4 * (c == 4),
                                                kk, kk, kk / 2, kk / 2);
                        fxi_gpu_launch g;
                        const char *why;
                        bool ok = fxi_gpu_launch_geometry(k, blocks[b], &s, s.height, &l, &g, &why);
                        if (k == FXI_GK_CONSTANT) {
                            FXT_CHECK_EQ(ok, fxi_gpu_taps_bytes(&s) <= l.constant_bytes);
                            if (!ok) continue;
                        }
                        if (k == FXI_GK_SHARED && !ok) {
                            shared_refused++;
                            FXT_CHECK(why != NULL);
                            FXT_CHECK(kk >= 121);
                            continue;
                        }
                        if (!FXT_CHECK(ok)) {
                            fprintf(stderr, "  kernel %d block %d: %s\n", k, blocks[b], why);
                            continue;
                        }
                        if (k <= FXI_GK_TEXTURE)
                            FXT_CHECK_EQ(g.block_x, blocks[b] ? blocks[b] : FXI_GPU_BLOCK_DEFAULT);
                        covers(&g, &s, s.height, &l);
                    }
    FXT_CHECK(shared_refused > 0);
}

FXT_TEST(launch_geometry_refuses)
{
    fxi_gpu_limits l = limits(1u << 30);
    fxi_gpu_shape s = shape(10, 10, 1, 1, 1, 4, 3, 3, 1, 1);
    fxi_gpu_launch g;
    const char *why;
    FXT_CHECK(!fxi_gpu_launch_geometry(FXI_GK_GLOBAL, 12, &s, 10, &l, &g, &why) && why);
    FXT_CHECK(!fxi_gpu_launch_geometry(FXI_GK_COUNT, 0, &s, 10, &l, &g, &why) && why);
    s.kw = s.kh = 127; /* 127 * 127 * 4 > 60 KiB */
    FXT_CHECK(!fxi_gpu_launch_geometry(FXI_GK_CONSTANT, 0, &s, 10, &l, &g, &why) && why);
    s.kw = s.kh = 121; /* 58564 bytes fit */
    FXT_CHECK(fxi_gpu_launch_geometry(FXI_GK_CONSTANT, 0, &s, 10, &l, &g, &why));
    FXT_CHECK(fxi_gpu_block_valid(0) && fxi_gpu_block_valid(32) && !fxi_gpu_block_valid(64));
}

/* The planner on a CPU context: gpu-* strategies are a clear error; the names are in the
 * option table in enum order. */
FXT_TEST(gpu_strategies_need_a_gpu)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 1);
    fx_kernel *k;
    FXT_CHECK_OK(fx_kernel_parse(cpu, "box:3", &k), cpu);
    fx_filter_options o;
    fx_filter_options_init(&o);
    FXT_CHECK_EQ(o.gpu_block, 0);
    FXT_CHECK_EQ(o.gpu_memory_mib, 0);
    fx_image_desc d = {16, 16, 3, FX_U8};
    fx_filter_plan *p = NULL;
    for (int s = FX_STRATEGY_GPU_GLOBAL; s < FX_STRATEGY_COUNT; s++) {
        o.strategy = s;
        FXT_CHECK_STATUS(fx_filter_plan_create(cpu, k, &o, &d, &p), FX_ENODEVICE, cpu);
        FXT_CHECK_CONTAINS(fx_context_error(cpu), "--device gpu");
        FXT_CHECK(p == NULL);
    }
    FXT_CHECK(!strcmp(fx_filter_strategy_name(FX_STRATEGY_GPU_GLOBAL), "gpu-global"));
    FXT_CHECK(!strcmp(fx_filter_strategy_name(FX_STRATEGY_GPU_TEXTURE), "gpu-texture"));
    FXT_CHECK(fx_filter_strategy_name(FX_STRATEGY_COUNT) == NULL);
    fx_kernel_free(k);
    fx_context_destroy(cpu);
}

/* The 8-bit fast path: eligible only while FP32 sums stay exact (and, for two passes,
 * row sums fit uint16); its tiles cover every output element and row, the rows pass's
 * planes hold every sample a window reads, shared memory and grids within limits. */
FXT_TEST(u8_fast_path_layouts)
{
    const fxi_gpu_u8_kernel gauss3 = {3, 3, false, true, 16, 16};
    const fxi_gpu_u8_kernel gauss121 = {121, 121, false, true, 256, 256};
    const fxi_gpu_u8_kernel box121 = {121, 121, true, true, 0, 0};
    const fxi_gpu_u8_kernel box3 = {3, 3, true, true, 0, 0};
    const fxi_gpu_u8_kernel negative = {3, 3, false, false, 16, 16};
    const fxi_gpu_u8_kernel big_sum = {5, 5, false, true, 300, 300};  /* 255 * 90000 > 2^24 */
    const fxi_gpu_u8_kernel wide_rows = {31, 31, false, true, 300, 1}; /* row sums > 65535 */
    const fxi_gpu_u8_kernel box255 = {255, 255, true, true, 0, 0};    /* 255^3 < 2^24 */
    const fxi_gpu_u8_kernel box257 = {257, 257, true, true, 0, 0};    /* beyond the taps */
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&gauss3, 15), FXI_U8_FUSED);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&box3, 15), FXI_U8_FUSED);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&gauss121, 15), FXI_U8_TWO_PASS);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&box121, 15), FXI_U8_BOX_SLIDE);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&gauss3, 1), FXI_U8_TWO_PASS);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&negative, 15), FXI_U8_NONE);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&big_sum, 15), FXI_U8_NONE);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&wide_rows, 15), FXI_U8_NONE);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&box255, 15), FXI_U8_BOX_SLIDE);
    /* boxes from FXI_GPU_U8_SLIDE_MIN_TAPS wide or tall slide */
    const fxi_gpu_u8_kernel box_min = {FXI_GPU_U8_SLIDE_MIN_TAPS, 1, true, true, 0, 0};
    const fxi_gpu_u8_kernel box_below = {FXI_GPU_U8_SLIDE_MIN_TAPS - 1, FXI_GPU_U8_SLIDE_MIN_TAPS - 1, true, true, 0, 0};
    const fxi_gpu_u8_kernel box1x255 = {1, 255, true, true, 0, 0};
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&box_min, 15), FXI_U8_BOX_SLIDE);
    FXT_CHECK(fxi_gpu_u8_layout_for(&box_below, 15) != FXI_U8_BOX_SLIDE);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&box1x255, 15), FXI_U8_BOX_SLIDE);
    FXT_CHECK_EQ(fxi_gpu_u8_layout_for(&box257, 15), FXI_U8_NONE);

    static const int64_t widths[] = {1, 2, 85, 255, 256, 257, 577, 3905, 10000};
    static const int64_t heights[] = {1, 2, 15, 16, 17, 31, 33, 6000, 200000};
    static const int ks[] = {1, 2, 3, 5, 15, 16, 61, 121, 255};
    const size_t shared = 227 << 10;
    for (int layout = FXI_U8_FUSED; layout <= FXI_U8_BOX_SLIDE; layout++)
        for (int box = 0; box < 2; box++)
            for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
                for (size_t hi = 0; hi < sizeof heights / sizeof *heights; hi++)
                    for (int c = 1; c <= 4; c++)
                        for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
                            const int kw = ks[ki], kh = ks[(ki + wi) % (sizeof ks / sizeof *ks)];
                            const int64_t w = widths[wi], h = heights[hi], n = w * c;
                            fxi_gpu_u8_launch g;
                            const char *why;
                            if (!fxi_gpu_u8_geometry(layout, box, w, c, h, kw, kh, shared,
                                                     2147483647, 65535, &g, &why)) {
                                /* only a fused tile of a kernel beyond the fused sizes may not fit */
                                if (!FXT_CHECK(layout == FXI_U8_FUSED && (kw > FXI_GPU_U8_FUSED_MAX_TAPS || kh > FXI_GPU_U8_FUSED_MAX_TAPS) && why))
                                    return;
                                continue;
                            }
                            int ok = FXT_CHECK_EQ(g.vrows, h + kh - 1);
                            if (layout == FXI_U8_FUSED && g.walk) {
                                /* whole warps, none of them idle in a narrow row's
                                 * block of walk_elements-element threads */
                                const int64_t e = g.walk_elements;
                                ok = ok && FXT_CHECK(kw == kh && (kw == 3 || kw == 5)) &&
                                     FXT_CHECK_EQ(g.walk_elements, FXI_GPU_U8_WALK_ELEMENTS(kw)) &&
                                     FXT_CHECK(g.tile_w % 32 == 0) &&
                                     FXT_CHECK(g.tile_w <= FXI_GPU_U8_FUSED_THREADS) &&
                                     FXT_CHECK((int64_t)(g.tile_w - 32) * e < n) &&
                                     FXT_CHECK(g.tile_w == FXI_GPU_U8_FUSED_THREADS ||
                                               (int64_t)g.tile_w * e >= n) &&
                                     FXT_CHECK(g.tiles_x * g.tile_w >= n) &&
                                     FXT_CHECK((g.tiles_x - 1) * g.tile_w < n) &&
                                     FXT_CHECK(g.tiles_y * g.tile_h >= h) &&
                                     FXT_CHECK(g.grid_y <= 65535) &&
                                     FXT_CHECK_EQ(g.shared_bytes, 0);
                            } else if (layout == FXI_U8_FUSED) {
                                ok = ok && FXT_CHECK(g.tiles_x * g.tile_w >= n) &&
                                     FXT_CHECK((g.tiles_x - 1) * g.tile_w < n) &&
                                     FXT_CHECK(g.tiles_y * g.tile_h >= h) &&
                                     FXT_CHECK(g.grid_y <= 65535) &&
                                     FXT_CHECK_EQ(g.in_w, g.tile_w + (kw - 1) * c) &&
                                     FXT_CHECK(g.shared_bytes <= shared) &&
                                     FXT_CHECK(g.shared_bytes >= (size_t)(g.tile_h + kh - 1) *
                                                                     (size_t)(g.tile_w + g.in_w) * 4);
                            } else if (layout == FXI_U8_BOX_SLIDE) {
                                /* whole warps staging the outputs' windows and the word
                                 * before the first tap; no idle warp in a narrow row */
                                const int64_t halo = (int64_t)(kw - 1) * c + 3;
                                ok = ok && FXT_CHECK(g.tile_w % 32 == 0) &&
                                     FXT_CHECK(g.tile_w <= FXI_GPU_U8_SLIDE_THREADS) &&
                                     FXT_CHECK_EQ(g.in_w, g.tile_w * FXI_GPU_U8_SLIDE_PIXELS * c) &&
                                     /* no idle warp in a tile: its last warp stages
                                      * some of its outputs' windows */
                                     FXT_CHECK((int64_t)(g.tile_w - 32) * FXI_GPU_U8_SLIDE_PIXELS *
                                                   c <
                                               g.slide_out + halo) &&
                                     /* the row's outputs shared evenly: the last tile
                                      * holds a share less at most 4 a tile */
                                     FXT_CHECK(!FXI_GPU_U8_SLIDE_EVEN ||
                                               n - (g.tiles_x - 1) * g.slide_out >
                                                   g.slide_out - 4 * g.tiles_x) &&
                                     FXT_CHECK((int64_t)(g.tile_w - 32) * FXI_GPU_U8_SLIDE_PIXELS *
                                                   c <
                                               (n + 3) / 4 * 4 + halo) &&
                                     FXT_CHECK(g.slide_out >= 4 && g.slide_out % 4 == 0) &&
                                     FXT_CHECK(g.slide_out + halo <= g.in_w) &&
                                     FXT_CHECK(g.tiles_x * g.slide_out >= n) &&
                                     FXT_CHECK((g.tiles_x - 1) * g.slide_out < n) &&
                                     FXT_CHECK(g.tiles_y * g.tile_h >= h) &&
                                     FXT_CHECK(g.grid_y <= 65535) &&
                                     /* staged element in_w - 1 lies in pixel
                                      * (C - 1 + in_w - 1) / C of the map at most */
                                     FXT_CHECK(g.slide_pixels >= (c - 1 + g.in_w - 1) / c + 1) &&
                                     FXT_CHECK(g.shared_bytes >= 32 + (size_t)g.in_w * 4 +
                                                                     (size_t)g.tile_w / 32 * 16 +
                                                                     (size_t)g.slide_pixels * 4) &&
                                     FXT_CHECK(g.shared_bytes <= 48 << 10) &&
                                     FXT_CHECK_EQ(g.work_bytes, 0);
                            } else {
                                const int64_t px = (int64_t)g.row_tx * g.row_segment;
                                ok = ok && FXT_CHECK(g.row_segment % 2 == 1) &&
                                     FXT_CHECK(g.row_grid_x * px >= w) &&
                                     /* a window: segment + kw - 1 samples; the FMA loop
                                      * loads one more */
                                     FXT_CHECK(g.row_plane >= px + kw) &&
                                     FXT_CHECK_EQ(g.row_tiles_y, g.vrows) &&
                                     FXT_CHECK(g.row_grid_y <= 65535) &&
                                     FXT_CHECK(g.row_shared_bytes >=
                                               (size_t)(c * g.row_plane * 4) + (size_t)(px * c * 2)) &&
                                     FXT_CHECK(g.row_shared_bytes <= shared) &&
                                     FXT_CHECK(g.col_grid_x * g.col_threads >= n) &&
                                     FXT_CHECK(g.col_tiles_y * g.col_rows >= h) &&
                                     FXT_CHECK(g.col_grid_y <= 65535) &&
                                     FXT_CHECK(g.work_stride >= (size_t)n * 2) &&
                                     FXT_CHECK_EQ(g.work_stride % 256, 0) &&
                                     FXT_CHECK(g.work_rows >= g.vrows) &&
                                     /* the last tile's window reaches row
                                      * r0 + col_rows + kh - 1 */
                                     FXT_CHECK(g.work_rows >= (g.col_tiles_y - 1) * g.col_rows +
                                                                  g.col_rows + kh) &&
                                     FXT_CHECK_EQ(g.work_bytes, (size_t)g.work_rows * g.work_stride);
                                ok = ok && FXT_CHECK_EQ(g.col_rows, FXI_GPU_U8_COL_OUTPUTS);
                            }
                            if (!ok) {
                                fprintf(stderr, "  layout %d box %d %lldx%lldx%d k %dx%d\n", layout,
                                        box, (long long)w, (long long)h, c, kw, kh);
                                return;
                            }
                        }
}

/* The box slide's strips for a device's resident blocks: every row in one strip, strips
 * of at least FXI_GPU_U8_SLIDE_MIN_ROWS rows, and no more blocks than the device runs at
 * once unless that minimum asks for them. */
FXT_TEST(u8_slide_strips_fill_one_wave)
{
    static const int64_t heights[] = {1, 31, 32, 33, 500, 6000, 25000};
    static const int64_t widths[] = {1, 300, 4096, 10000, 40000};
    static const int64_t residents[] = {-1, 0, 1, 5, 132, 528, 100000};
    for (size_t hi = 0; hi < sizeof heights / sizeof *heights; hi++)
        for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
            for (size_t ri = 0; ri < sizeof residents / sizeof *residents; ri++) {
                const int64_t h = heights[hi], res = residents[ri];
                fxi_gpu_u8_launch g;
                const char *why;
                if (!FXT_CHECK(fxi_gpu_u8_geometry(FXI_U8_BOX_SLIDE, true, widths[wi], 3, h, 121, 121,
                                                   48 << 10, 2147483647, 65535, &g, &why)))
                    return;
                const int default_rows = g.tile_h;
                fxi_gpu_u8_slide_strips(&g, h, res, 65535);
                int ok = FXT_CHECK(g.tiles_y * g.tile_h >= h) &&
                         FXT_CHECK((g.tiles_y - 1) * g.tile_h < h) &&
                         FXT_CHECK(g.grid_y == g.tiles_y);
                if (res <= 0) {
                    ok = ok && FXT_CHECK_EQ(g.tile_h, default_rows);
                } else {
                    ok = ok && FXT_CHECK(g.tile_h >= FXI_GPU_U8_SLIDE_MIN_ROWS || g.tile_h == h);
                    if (g.tile_h > FXI_GPU_U8_SLIDE_MIN_ROWS)
                        ok = ok && FXT_CHECK(g.tiles_x * g.tiles_y <= (res > g.tiles_x ? res : g.tiles_x));
                }
                if (!ok)
                    fprintf(stderr, "  %lld rows, %lld wide, resident %lld\n", (long long)h,
                            (long long)widths[wi], (long long)res);
            }
}

/* The box slide's edge rows (fxi_gpu_u8_slide_side): every loading edge thread of every
 * block (its elements outside the row) finds each of its elements in the edge row at
 * fxi_box_slide_side_index, the index k_u8_box_side fills from the same element
 * (fxi_box_slide_side_element), inside the row; the edge blocks are the row's first and
 * last; no edge rows where they would be longer than the image's row; and the blocks'
 * threads split as the kernel's conditions say (loaders: a window reads their elements;
 * left / right: their elements reach before / past the row). */
FXT_TEST(u8_slide_edge_rows)
{
    static const int64_t widths[] = {1, 2, 7, 40, 61, 150, 333, 1000, 4096, 10000};
    static const int ks[] = {1, 2, 7, 30, 61, 121, 255};
    int with_rows = 0;
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
        for (int c = 1; c <= 4; c++)
            for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
                for (int anchor = 0; anchor < 3; anchor++) {
                    const int64_t w = widths[wi], n = w * c;
                    const int kw = ks[ki];
                    const int ax = anchor == 0 ? kw / 2 : anchor == 1 ? 0 : kw - 1;
                    fxi_gpu_u8_launch g;
                    const char *why;
                    if (!fxi_gpu_u8_geometry(FXI_U8_BOX_SLIDE, true, w, c, 50, kw, 9, 48 << 10,
                                             2147483647, 65535, &g, &why))
                        continue; /* a box too wide for the tile */
                    fxi_gpu_u8_slide_side(&g, w, c, kw, ax);
                    const int ept = FXI_GPU_U8_SLIDE_PIXELS * c;
                    const fxi_box_slide_shape sh = {n, g.slide_out, ax, kw, c, ept, g.tile_w};
                    const fxi_box_slide_side sd = {g.tiles_x, g.side_left_blocks,
                                                   g.side_right_blocks, g.side_left_w,
                                                   g.side_right_w};
                    int ok = 1;
                    if (g.work_bytes) {
                        with_rows++;
                        ok = FXT_CHECK(g.work_stride % 4 == 0) &&
                             FXT_CHECK((int64_t)g.work_stride <= n) &&
                             FXT_CHECK_EQ(g.work_rows, g.vrows) &&
                             FXT_CHECK_EQ(g.work_bytes, (size_t)g.vrows * g.work_stride);
                    }
                    for (int64_t bx = 0; ok && bx < g.tiles_x; bx++) {
                        const fxi_box_slide_block b = fxi_box_slide_block_at(&sh, bx);
                        const int reach = (kw - 1) * c;
                        ok = FXT_CHECK(b.left <= b.right && b.right <= b.loaders &&
                                       b.loaders <= g.tile_w);
                        for (int tid = 0; ok && tid < g.tile_w; tid++) {
                            const int64_t mine = b.s0 + (int64_t)tid * ept;
                            const bool loads = tid * ept <= b.outs - 1 + b.offset + reach;
                            const bool outside = mine < 0 || mine + ept > n;
                            ok = FXT_CHECK_EQ(loads, tid < b.loaders) &&
                                 FXT_CHECK_EQ(loads && outside,
                                              tid < b.loaders && (tid < b.left || tid >= b.right));
                            if (!ok || !g.work_bytes || !loads || !outside) continue;
                            ok = tid < b.left ? FXT_CHECK(bx < g.side_left_blocks)
                                              : FXT_CHECK(bx >= g.tiles_x - g.side_right_blocks);
                            for (int k = 0; ok && k < ept; k++) {
                                const int64_t i =
                                    fxi_box_slide_side_index(&sd, &b, bx, tid, ept, k);
                                ok =
                                    FXT_CHECK(i >= 0 && i < (int64_t)g.work_stride) &&
                                    FXT_CHECK_EQ(fxi_box_slide_side_element(&sd, &sh, i), mine + k);
                            }
                        }
                    }
                    if (!ok)
                        fprintf(stderr, "  %lld wide, %d channels, box %d, anchor %d\n",
                                (long long)w, c, kw, ax);
                }
    FXT_CHECK(with_rows > 50);
}

/* The walk's blocks (3x3 and 5x5, fused): whole warps, never a warp without an element
 * (a narrow row's block has only the warps its threads of walk_elements elements need:
 * FXI_GPU_U8_WALK_ELEMENTS, 4, or 8 for 3x3 where FXI_GPU_U8_WALK3_ELEMENTS says so),
 * the row covered by the vector walk's grid (walk_elements * tile_w elements a block, as
 * fxi_filter_launch_u8 launches it), and the one-element walk's tiles (tile_w elements)
 * covering it too. */
FXT_TEST(u8_walk_blocks_fit_the_row)
{
    /* the block's threads for a row of n elements, with 4 and with 8 elements a thread */
    static const struct {
        int64_t n;
        int threads4, threads8;
    } expected[] = {{1, 32, 32},      {5, 32, 32},      {128, 32, 32},    {129, 64, 32},
                    {256, 64, 32},    {257, 96, 64},    {768, 192, 96},   {1000, 256, 128},
                    {1024, 256, 128}, {1025, 256, 160}, {2048, 256, 256}, {30000, 256, 256}};
    for (int k = 3; k <= 5; k += 2)
        for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
            fxi_gpu_u8_launch g;
            const char *why;
            FXT_CHECK(fxi_gpu_u8_geometry(FXI_U8_FUSED, false, expected[i].n, 1, 100, k, k,
                                          48 << 10, 2147483647, 65535, &g, &why));
            FXT_CHECK(g.walk);
            const int elements = FXI_GPU_U8_WALK_ELEMENTS(k);
            FXT_CHECK(elements == 4 || (k == 3 && elements == 8));
            FXT_CHECK_EQ(g.walk_elements, elements);
            if (!FXT_CHECK_EQ(g.tile_w,
                              elements == 8 ? expected[i].threads8 : expected[i].threads4))
                fprintf(stderr, "  k %d n %lld, %d elements a thread\n", k,
                        (long long)expected[i].n, elements);
        }
    static const int64_t widths[] = {1, 2, 3, 5, 31, 32, 33, 63, 64, 65, 85, 127, 128, 129,
                                     256, 257, 333, 1000, 3905, 10000};
    for (int k = 3; k <= 5; k += 2)
        for (int box = 0; box < 2; box++)
            for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
                for (int c = 1; c <= 4; c++) {
                    const int64_t w = widths[wi], n = w * c;
                    fxi_gpu_u8_launch g;
                    const char *why;
                    if (!FXT_CHECK(fxi_gpu_u8_geometry(FXI_U8_FUSED, box, w, c, 77, k, k, 48 << 10,
                                                       2147483647, 65535, &g, &why)) ||
                        !FXT_CHECK(g.walk))
                        return;
                    const int64_t e = g.walk_elements;
                    const int64_t needed = (n + e - 1) / e; /* threads the row needs */
                    /* the vector walk's grid, as fxi_filter_launch_u8 launches it */
                    const int64_t per_block = e * g.tile_w, blocks = g.walk_grid_x;
                    if (!(FXT_CHECK_EQ(g.walk_elements, FXI_GPU_U8_WALK_ELEMENTS(k)) &&
                          FXT_CHECK(g.tile_w % 32 == 0 && g.tile_w >= 32) &&
                          FXT_CHECK(g.tile_w <= FXI_GPU_U8_FUSED_THREADS) &&
                          FXT_CHECK(g.tile_w - 32 < needed) &&
                          FXT_CHECK(g.tile_w == FXI_GPU_U8_FUSED_THREADS || g.tile_w >= needed) &&
                          FXT_CHECK(blocks * per_block >= n) &&
                          FXT_CHECK((blocks - 1) * per_block < n) &&
                          FXT_CHECK(blocks <= g.grid_x) && FXT_CHECK(g.tiles_x * g.tile_w >= n) &&
                          FXT_CHECK((g.tiles_x - 1) * g.tile_w < n) &&
                          FXT_CHECK(g.tiles_y * g.tile_h >= 77)))
                        fprintf(stderr, "  k %d box %d %lldx%d\n", k, box, (long long)w, c);
                }
}

/* A batch's images per launch: all of them when they fit, the grid's z limit, and the
 * intermediates' room (one image at least, even when one does not fit). */
FXT_TEST(u8_batch_chunks)
{
    FXT_CHECK_EQ(fxi_gpu_u8_batch_chunk(1000, 0, 65535, 256u << 20), 1000);
    FXT_CHECK_EQ(fxi_gpu_u8_batch_chunk(100000, 0, 65535, 256u << 20), 65535);
    FXT_CHECK_EQ(fxi_gpu_u8_batch_chunk(1000, 1u << 20, 65535, 256u << 20), 256);
    FXT_CHECK_EQ(fxi_gpu_u8_batch_chunk(200, 1u << 20, 65535, 256u << 20), 200);
    FXT_CHECK_EQ(fxi_gpu_u8_batch_chunk(1000, (256u << 20) / 3, 65535, 256u << 20), 3);
    FXT_CHECK_EQ(fxi_gpu_u8_batch_chunk(5, 512u << 20, 65535, 256u << 20), 1);
    FXT_CHECK_EQ(fxi_gpu_u8_batch_chunk(1, 1, 65535, 256u << 20), 1);
}

FXT_MAIN(FXT_CASE(gpu_strategies_need_a_gpu), FXT_CASE(u8_batch_chunks),
         FXT_CASE(bands_cover_every_row_once), FXT_CASE(bands_of_whole_tile_rows),
         FXT_CASE(bands_respect_texture_rows), FXT_CASE(bands_big_image_overlap),
         FXT_CASE(launch_geometry_within_limits), FXT_CASE(launch_geometry_refuses),
         FXT_CASE(u8_fast_path_layouts), FXT_CASE(u8_slide_strips_fill_one_wave),
         FXT_CASE(u8_slide_edge_rows), FXT_CASE(u8_walk_blocks_fit_the_row))
