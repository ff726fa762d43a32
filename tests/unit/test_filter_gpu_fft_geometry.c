/* Geometry of the GPU fft strategy, without a GPU: tile sides that cuFFT transforms fast
 * and that hold the kernel, tiles covering every output once with their whole input
 * block inside the transform (no wrap-around reaches a kept output), batches within the
 * memory budget, the batch cap and the grid, balanced batches, and a clear refusal when
 * not one tile fits. */
#include <stdlib.h>
#include <string.h>

#include "filter/gpu_fft_geometry.h"
#include "fxtest.h"

#define MIB ((size_t)1 << 20)

static int is_nice(int n)
{
    while (n % 2 == 0)
        n /= 2;
    return n == 1 || n == 3 || n == 5;
}

/* Walk the tiles as the kernels do (tile t: row t / tiles_x, column t % tiles_x) and
 * count how often each output is kept: exactly once each. */
static int tiles_cover(const fxi_gpu_fft_geometry *g, int64_t width, int64_t rows, int kw, int kh)
{
    const int64_t tx = fxi_gpu_fft_tiles_x(g, width), ty = fxi_gpu_fft_tiles_y(g, rows);
    unsigned char *seen = calloc((size_t)(width * rows), 1);
    int ok = 1;
    for (int64_t t = 0; t < tx * ty && ok; t++) {
        const int64_t y0 = t / tx * g->out_rows, x0 = t % tx * g->out_cols;
        const int64_t oh = rows - y0 < g->out_rows ? rows - y0 : g->out_rows;
        const int64_t ow = width - x0 < g->out_cols ? width - x0 : g->out_cols;
        ok = FXT_CHECK(oh >= 1) && FXT_CHECK(ow >= 1);
        /* the input block of the kept outputs lies inside the transform */
        ok = ok && FXT_CHECK(oh + kh - 1 <= g->n_rows) && FXT_CHECK(ow + kw - 1 <= g->n_cols);
        for (int64_t y = y0; y < y0 + oh && ok; y++)
            for (int64_t x = x0; x < x0 + ow && ok; x++)
                ok = FXT_CHECK_EQ(seen[y * width + x]++, 0);
    }
    for (int64_t i = 0; i < width * rows && ok; i++)
        ok = FXT_CHECK_EQ(seen[i], 1);
    free(seen);
    return ok;
}

/* The width rule check_plan plans with (fxi_gpu_fft_plan's by default). */
static bool pow2_cols_rule = FXI_GPU_FFT_POW2_COLS;

static int check_plan(int64_t w, int64_t h, int kw, int kh, int planes, size_t budget,
                      fxi_gpu_fft_geometry *out)
{
    fxi_gpu_fft_geometry g;
    const char *why = NULL;
    if (!FXT_CHECK(fxi_gpu_fft_plan_with(w, h, kw, kh, planes, budget, pow2_cols_rule, &g, &why))) {
        fprintf(stderr, "  %lldx%lld kernel %dx%d: %s\n", (long long)w, (long long)h, kw, kh,
                why ? why : "?");
        return 0;
    }
    int ok = FXT_CHECK(is_nice(g.n_rows)) && FXT_CHECK(is_nice(g.n_cols)) &&
             FXT_CHECK(g.n_rows >= FXI_GPU_FFT_MIN_SIDE) &&
             FXT_CHECK(g.n_cols >= FXI_GPU_FFT_MIN_SIDE) && FXT_CHECK(g.n_rows >= kh) &&
             FXT_CHECK(g.n_cols >= kw) && FXT_CHECK_EQ(g.out_rows, g.n_rows - kh + 1) &&
             FXT_CHECK_EQ(g.out_cols, g.n_cols - kw + 1) && FXT_CHECK_EQ(g.planes, planes);
    /* in-place real-to-complex layout */
    ok = ok && FXT_CHECK_EQ(g.row_floats, (size_t)(2 * (g.n_cols / 2 + 1))) &&
         FXT_CHECK_EQ(g.plane_floats, (size_t)g.n_rows * g.row_floats);
    /* the batch within the budget, the cap and the grid */
    ok = ok && FXT_CHECK(g.batch_tiles >= 1) && FXT_CHECK(g.batch_bytes + g.work_bytes <= budget) &&
         FXT_CHECK_EQ(g.batch_bytes,
                      g.plane_floats * sizeof(float) * (size_t)planes * (size_t)g.batch_tiles) &&
         FXT_CHECK(g.batch_tiles * planes <= FXI_GPU_FFT_MAX_PLANES) &&
         FXT_CHECK(g.batch_tiles == 1 || g.batch_bytes <= FXI_GPU_FFT_MAX_BATCH_BYTES) &&
         FXT_CHECK_EQ(fxi_gpu_fft_batch_footprint(&g, g.batch_tiles), g.batch_bytes + g.work_bytes);
    /* no tile beyond the image plus its halo (rounded up to a nice side) */
    ok = ok && FXT_CHECK(g.n_rows < 2 * (h + kh - 1) || g.n_rows <= FXI_GPU_FFT_MIN_SIDE) &&
         FXT_CHECK(g.n_cols < 2 * (w + kw - 1) || g.n_cols <= FXI_GPU_FFT_MIN_SIDE);
    const int64_t all = fxi_gpu_fft_tiles_x(&g, w) * fxi_gpu_fft_tiles_y(&g, h);
    ok = ok && FXT_CHECK(g.batch_tiles <= all);
    if (w * h <= 4000000) ok = ok && tiles_cover(&g, w, h, kw, kh);
    if (out) *out = g;
    return ok;
}

FXT_TEST(tiles_cover_every_output_once)
{
    static const struct {
        int64_t w, h;
        int kw, kh, planes;
    } cases[] = {
        {1, 1, 1, 1, 1},         {1, 1, 121, 121, 3},    {37, 1, 21, 21, 1},
        {1, 37, 3, 45, 4},       {61, 29, 45, 3, 2},     {130, 70, 5, 5, 3},
        {7, 300, 101, 1, 1},     {300, 7, 1, 101, 1},    {500, 380, 121, 121, 3},
        {2000, 1000, 31, 31, 3}, {3001, 257, 31, 31, 3}, {20000, 40, 25, 21, 1},
        {40, 30, 61, 61, 4},     {257, 33, 101, 1, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        /* a large budget, a middling one, one for a few tiles */
        static const size_t budgets[] = {(size_t)4 << 30, 64 * MIB, 2 * MIB};
        for (int b = 0; b < 3; b++) {
            fxi_gpu_fft_geometry g;
            const char *why;
            if (!fxi_gpu_fft_plan(cases[i].w, cases[i].h, cases[i].kw, cases[i].kh, cases[i].planes,
                                  budgets[b], &g, &why))
                continue; /* checked in not_one_tile_is_refused */
            FXT_CHECK(check_plan(cases[i].w, cases[i].h, cases[i].kw, cases[i].kh, cases[i].planes,
                                 budgets[b], NULL));
        }
    }
}

/* The benchmark's images: big tiles where the kernel is big (little overlap), several
 * batches within the cap, and no transform beyond the cost model's largest side. */
FXT_TEST(big_kernels_take_big_tiles)
{
    fxi_gpu_fft_geometry g;
    FXT_CHECK(check_plan(10000, 6000, 121, 121, 3, (size_t)8 << 30, &g));
    fprintf(stderr, "  121x121 on 10000x6000x3: %dx%d tiles, %lld per batch\n", g.n_cols, g.n_rows,
            (long long)g.batch_tiles);
    /* at least half of each transform is kept output */
    FXT_CHECK((double)g.out_rows * g.out_cols >= 0.5 * (double)g.n_rows * g.n_cols);
    FXT_CHECK(g.n_rows <= FXI_GPU_FFT_MAX_SIDE && g.n_cols <= FXI_GPU_FFT_MAX_SIDE);
    FXT_CHECK(check_plan(10000, 6000, 31, 31, 3, (size_t)8 << 30, &g));
    fprintf(stderr, "  31x31 on 10000x6000x3: %dx%d tiles, %lld per batch\n", g.n_cols, g.n_rows,
            (long long)g.batch_tiles);
    FXT_CHECK((double)g.out_rows * g.out_cols >= 0.7 * (double)g.n_rows * g.n_cols);
    /* a kernel beyond the largest side: tiles of about twice the kernel */
    FXT_CHECK(check_plan(8000, 8000, 1501, 701, 1, (size_t)8 << 30, &g));
    FXT_CHECK(g.n_cols >= 1501 && g.n_cols <= 4 * 1501 && g.n_rows >= 701);
}

/* The cost model against the H200: where bench/gpu_fft_tiles measured one tile clearly
 * the fastest (by 1% or more over every other side it timed; r95-r97,
 * docs/BENCHMARKS.md), the model chooses it. The table the model reads was fitted to
 * these timings, so this checks the fit and the search over sides, not a prediction. */
FXT_TEST(cost_model_picks_the_measured_fastest_tiles)
{
    static const struct {
        int64_t w, h;
        int k, planes, rows, cols;
    } measured[] = {
        {10000, 6000, 31, 3, 512, 1024},   {10000, 6000, 121, 3, 1024, 1024},
        {10000, 6000, 15, 3, 192, 1024},   {10000, 6000, 25, 3, 1024, 1024},
        {10000, 6000, 45, 3, 512, 1024},   {10000, 6000, 91, 3, 1024, 1024},
        {10000, 6000, 201, 3, 1024, 1024}, {3000, 2000, 45, 1, 384, 512},
        {2000, 2000, 121, 3, 640, 1024},   {10000, 6000, 601, 1, 1280, 1024},
        {10000, 6000, 801, 1, 2048, 2048},
    };
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++) {
        fxi_gpu_fft_geometry g;
        const char *why;
        FXT_CHECK(fxi_gpu_fft_plan(measured[i].w, measured[i].h, measured[i].k, measured[i].k,
                                   measured[i].planes, (size_t)8 << 30, &g, &why));
        if (!FXT_CHECK_EQ(g.n_rows, measured[i].rows) || !FXT_CHECK_EQ(g.n_cols, measured[i].cols))
            fprintf(stderr, "  %lldx%lldx%d, %dx%d kernel: %dx%d tiles, measured fastest %dx%d\n",
                    (long long)measured[i].w, (long long)measured[i].h, measured[i].planes,
                    measured[i].k, measured[i].k, g.n_rows, g.n_cols, measured[i].rows,
                    measured[i].cols);
    }
    /* beyond the measured sides, a larger side costs more a point */
    FXT_CHECK(fxi_gpu_fft_point_cost(4096, 1024) > fxi_gpu_fft_point_cost(2048, 1024));
    FXT_CHECK(fxi_gpu_fft_point_cost(1024, 8192) > fxi_gpu_fft_point_cost(1024, 4096));
}

/* The strips' tiles (gpu_fft_geometry.h): for whole passes and band passes (whole rows of
 * the main tiles, a last band of what is left, a band shorter than one tile), the regions'
 * tiles keep every output of the pass exactly once, each tile's input block inside its
 * transform; the shapes' batches together within the budget; strips only where the
 * model says they save time (with their launches' cost, never on a small image). */
FXT_TEST(strips_cover_every_output_once)
{
    static const struct {
        int64_t w, h;
        int k, planes;
    } cases[] = {{300, 200, 33, 3},  {1000, 800, 61, 4},  {600, 400, 21, 1}, {2000, 1300, 31, 3},
                 {1100, 700, 31, 3}, {4000, 3000, 31, 1}, {37, 1, 5, 1},     {1, 37, 3, 2}};
    int with_strips = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const size_t budget = (size_t)1 << 30;
        fxi_gpu_fft_shapes s;
        const char *why;
        if (!FXT_CHECK(fxi_gpu_fft_plan_shapes_with(cases[i].w, cases[i].h, cases[i].k, cases[i].k,
                                                    cases[i].planes, budget, 0.0, &s, &why)))
            continue;
        with_strips += s.used[FXI_FFT_RIGHT] || s.used[FXI_FFT_BOTTOM];
        size_t bytes = 0;
        for (int k = 0; k < FXI_FFT_SHAPES; k++)
            if (s.used[k]) bytes += s.geom[k].batch_bytes + s.geom[k].work_bytes;
        FXT_CHECK(bytes <= budget);
        const int64_t band = s.geom[FXI_FFT_MAIN].out_rows;
        const int64_t passes[] = {cases[i].h, 2 * band, cases[i].h % band ? cases[i].h % band : 1,
                                  band > 1 ? band - 1 : 1};
        for (int p = 0; p < 4; p++) {
            const int64_t w = cases[i].w, rows = passes[p];
            fxi_fft_region r[FXI_FFT_SHAPES];
            fxi_gpu_fft_regions(&s, w, rows, r);
            unsigned char *seen = calloc((size_t)(w * rows), 1);
            int ok = 1;
            for (int k = 0; k < FXI_FFT_SHAPES && ok; k++) {
                if (r[k].rows < 1 || r[k].width < 1) continue;
                ok = FXT_CHECK(s.used[k]);
                const fxi_gpu_fft_geometry *g = &s.geom[k];
                const int64_t tx = fxi_gpu_fft_tiles_x(g, r[k].width);
                for (int64_t t = 0; t < fxi_gpu_fft_region_tiles(g, &r[k]) && ok; t++) {
                    const fxi_fft_tile b =
                        fxi_fft_region_tile(&r[k], t, tx, g->out_rows, g->out_cols);
                    ok = FXT_CHECK(b.oh >= 1 && b.ow >= 1) &&
                         FXT_CHECK(b.oh + cases[i].k - 1 <= g->n_rows) &&
                         FXT_CHECK(b.ow + cases[i].k - 1 <= g->n_cols);
                    for (int64_t y = b.y0; y < b.y0 + b.oh && ok; y++)
                        for (int64_t x = b.x0; x < b.x0 + b.ow && ok; x++)
                            ok = FXT_CHECK(y < rows && x < w) && FXT_CHECK_EQ(seen[y * w + x]++, 0);
                }
            }
            for (int64_t e = 0; e < w * rows && ok; e++)
                ok = FXT_CHECK_EQ(seen[e], 1);
            if (!ok)
                fprintf(stderr, "  %lldx%lld k%d, a pass of %lld rows\n", (long long)w,
                        (long long)cases[i].h, cases[i].k, (long long)rows);
            free(seen);
        }
    }
    FXT_CHECK(with_strips >= 4);
    /* with the launches' cost: the benchmark's 31x31 takes both strips, a small image none */
    fxi_gpu_fft_shapes s;
    const char *why;
    FXT_CHECK(fxi_gpu_fft_plan_shapes(10000, 6000, 31, 31, 3, (size_t)8 << 30, &s, &why));
    FXT_CHECK(s.used[FXI_FFT_RIGHT] && s.used[FXI_FFT_BOTTOM]);
    FXT_CHECK(s.geom[FXI_FFT_RIGHT].n_cols < s.geom[FXI_FFT_MAIN].n_cols);
    FXT_CHECK(s.geom[FXI_FFT_BOTTOM].n_rows < s.geom[FXI_FFT_MAIN].n_rows);
    FXT_CHECK(fxi_gpu_fft_plan_shapes(300, 200, 33, 33, 3, (size_t)8 << 30, &s, &why));
    FXT_CHECK(!s.used[FXI_FFT_RIGHT] && !s.used[FXI_FFT_BOTTOM]);
}

/* Every budget from 16 GiB down to the last that holds a tile: the plan's batch (data and
 * work allowance) stays within it, and the smallest budgets give batches of one tile. */
FXT_TEST(every_budget_is_respected)
{
    size_t budget = (size_t)16 << 30;
    int64_t last = -1;
    for (int i = 0; i < 40; i++, budget /= 2) {
        fxi_gpu_fft_geometry g;
        const char *why;
        if (!fxi_gpu_fft_plan(4000, 3000, 63, 63, 3, budget, &g, &why)) break;
        FXT_CHECK(check_plan(4000, 3000, 63, 63, 3, budget, NULL));
        last = g.batch_tiles;
    }
    FXT_CHECK_EQ(last, 1);
}

/* Not one tile of the smallest side fits: refused with a reason, nothing else written. */
FXT_TEST(not_one_tile_is_refused)
{
    fxi_gpu_fft_geometry g;
    const char *why = NULL;
    /* 121x121: the smallest tile is 128 x 128 (130 floats a row) x 3 planes x (data + work) */
    const size_t one = (size_t)128 * 130 * sizeof(float) * 3 * 2;
    FXT_CHECK(!fxi_gpu_fft_plan(2000, 1000, 121, 121, 3, one - 1, &g, &why));
    FXT_CHECK(why != NULL && strstr(why, "fit") != NULL);
    FXT_CHECK(fxi_gpu_fft_plan(2000, 1000, 121, 121, 3, one, &g, &why));
    FXT_CHECK_EQ(g.n_rows, 128);
    FXT_CHECK_EQ(g.n_cols, 128);
    FXT_CHECK_EQ(g.batch_tiles, 1);
    FXT_CHECK(!fxi_gpu_fft_plan(0, 10, 3, 3, 1, one, &g, &why));
    FXT_CHECK(!fxi_gpu_fft_plan(10, 10, 3, 3, 0, one, &g, &why));
}

/* Balancing splits a pass into as few batches as the cap allows, evenly, none over the
 * cap; a pass balanced after another gets what it would get alone (a band after the
 * whole image). */
FXT_TEST(balanced_batches)
{
    fxi_gpu_fft_geometry g;
    const char *why;
    FXT_CHECK(fxi_gpu_fft_plan(10000, 6000, 121, 121, 3, (size_t)8 << 30, &g, &why));
    for (int64_t batch = 1; batch <= 64; batch++)
        for (int64_t pass = 1; pass <= 200; pass += 7) {
            fxi_gpu_fft_geometry b = g, again = g;
            b.batch_cap = again.batch_cap = batch;
            fxi_gpu_fft_balance(&b, pass);
            fxi_gpu_fft_balance(&again, pass + 150);
            fxi_gpu_fft_balance(&again, pass);
            FXT_CHECK_EQ(again.batch_tiles, b.batch_tiles);
            const int64_t before = (pass + batch - 1) / batch;
            const int64_t after = (pass + b.batch_tiles - 1) / b.batch_tiles;
            FXT_CHECK(b.batch_tiles <= batch);
            FXT_CHECK(b.batch_tiles >= 1);
            FXT_CHECK_EQ(after, before);
            /* idle slots over all batches: fewer than one per batch */
            FXT_CHECK(after * b.batch_tiles - pass < after);
            FXT_CHECK_EQ(b.batch_bytes,
                         b.plane_floats * sizeof(float) * (size_t)b.planes * (size_t)b.batch_tiles);
        }
}

/* The power-of-two width rule (FXI_GPU_FFT_POW2_COLS, an A/B option): plans wherever the
 * default plans, with every invariant of check_plan; powers of two where one fits (the
 * benchmark's kernels; a kernel whose nice width is 3 * 2^a or 5 * 2^a); the rule
 * dropped, not the plan refused, where none fits (a 40-pixel-wide image whose whole
 * width plus halo rounds to 48). */
FXT_TEST(power_of_two_widths_when_asked)
{
    const bool saved = pow2_cols_rule;
    pow2_cols_rule = true;
    fxi_gpu_fft_geometry g;
    const char *why;
    FXT_CHECK(check_plan(10000, 6000, 121, 121, 3, (size_t)8 << 30, &g));
    FXT_CHECK_EQ(g.n_cols & (g.n_cols - 1), 0);
    fprintf(stderr, "  power-of-two widths, 121x121 on 10000x6000x3: %dx%d tiles, %lld per batch\n",
            g.n_cols, g.n_rows, (long long)g.batch_tiles);
    FXT_CHECK(check_plan(10000, 6000, 31, 31, 3, (size_t)8 << 30, &g));
    FXT_CHECK_EQ(g.n_cols & (g.n_cols - 1), 0);
    FXT_CHECK(check_plan(3000, 2000, 45, 45, 1, (size_t)8 << 30, &g)); /* 45 -> 48 */
    FXT_CHECK_EQ(g.n_cols & (g.n_cols - 1), 0);
    FXT_CHECK(g.n_cols >= 64);
    /* only 48 fits the width: taken */
    FXT_CHECK(check_plan(8, 300, 41, 5, 1, (size_t)8 << 30, &g));
    FXT_CHECK_EQ(g.n_cols, 48);
    /* wherever the default plans */
    static const size_t budgets[] = {(size_t)4 << 30, 64 * MIB, 2 * MIB, MIB / 4};
    static const int sizes[][5] = {
        {1, 1, 1, 1, 1},     {37, 1, 21, 21, 1},      {61, 29, 45, 3, 2},     {130, 70, 5, 5, 3},
        {300, 7, 1, 101, 1}, {500, 380, 121, 121, 3}, {3001, 257, 31, 31, 3}, {40, 30, 61, 61, 4}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++) {
            const int *c = sizes[i];
            if (!fxi_gpu_fft_plan_with(c[0], c[1], c[2], c[3], c[4], budgets[b], false, &g, &why))
                continue;
            FXT_CHECK(check_plan(c[0], c[1], c[2], c[3], c[4], budgets[b], NULL));
        }
    pow2_cols_rule = saved;
}

FXT_MAIN(FXT_CASE(tiles_cover_every_output_once), FXT_CASE(big_kernels_take_big_tiles),
         FXT_CASE(every_budget_is_respected), FXT_CASE(not_one_tile_is_refused),
         FXT_CASE(cost_model_picks_the_measured_fastest_tiles),
         FXT_CASE(strips_cover_every_output_once), FXT_CASE(balanced_batches),
         FXT_CASE(power_of_two_widths_when_asked))
