/* Tile and batch sizes of the GPU fft strategy (see gpu_fft_geometry.h). */
#include <math.h>
#include <string.h>

#include "filter/fft_sides.h"
#include "filter/gpu_fft_geometry.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static size_t plane_floats_of(int n_rows, int n_cols)
{
    return (size_t)n_rows * (size_t)(2 * (n_cols / 2 + 1));
}

size_t fxi_gpu_fft_batch_footprint(const fxi_gpu_fft_geometry *g, int64_t tiles)
{
    double data = (double)g->plane_floats * sizeof(float) * (double)g->planes * (double)tiles;
    double total = data * (1.0 + FXI_GPU_FFT_WORK_SHARE);
    return total >= (double)SIZE_MAX ? SIZE_MAX : (size_t)total;
}

int64_t fxi_gpu_fft_tiles_x(const fxi_gpu_fft_geometry *g, int64_t width)
{
    return ceil_div(width, g->out_cols);
}

int64_t fxi_gpu_fft_tiles_y(const fxi_gpu_fft_geometry *g, int64_t rows)
{
    return ceil_div(rows, g->out_rows);
}

static void set_sides(fxi_gpu_fft_geometry *g, int n_rows, int n_cols, int kw, int kh, int planes)
{
    g->n_rows = n_rows;
    g->n_cols = n_cols;
    g->out_rows = n_rows - kh + 1;
    g->out_cols = n_cols - kw + 1;
    g->planes = planes;
    g->row_floats = (size_t)(2 * (n_cols / 2 + 1));
    g->plane_floats = plane_floats_of(n_rows, n_cols);
}

/* The time of one tile point by the tile's sides, ns per 1000 points: a tile of N rows
 * and M columns costs rows(N) + cols(M) a point, whatever the kernel, pack, transforms,
 * multiply and extract together. Fitted by least squares (with one offset per image and
 * kernel) to 1,511 timings of forced sides by bench/gpu_fft_tiles on the H200 (r95-r97,
 * docs/BENCHMARKS.md): 19 images and kernel sizes, residual 0.33 ns rms. The same fit to
 * r95's seven alone chose, on r96's ten other images and kernels, tiles within 0.4% of
 * the fastest.
 * The shape: 1024- and 256-wide rows are cheapest (cuFFT's one-pass sizes), other widths
 * cost 2-10 more; 768 rows (3 x 256) cost 3.5 more than 512 or 1024. */
static const struct side_cost {
    int side;
    double rows, cols;
} side_costs[] = {
    {16, 15.68, 6.05},   {20, 15.36, 3.74},   {24, 15.20, 3.04},   {32, 14.09, 2.35},
    {40, 14.47, 3.58},   {48, 14.01, 4.52},   {64, 13.45, 2.52},   {80, 13.73, 4.02},
    {96, 13.86, 8.77},   {128, 13.48, 1.31},  {160, 14.38, 2.95},  {192, 13.71, 2.15},
    {256, 14.47, 0.71},  {320, 15.14, 5.44},  {384, 15.06, 5.63},  {512, 14.63, 1.37},
    {640, 15.78, 4.36},  {768, 18.50, 4.42},  {1024, 14.99, 0.00}, {1280, 18.36, 9.54},
    {1536, 20.66, 9.82}, {2048, 17.37, 1.14},
};

double fxi_gpu_fft_point_cost(int n_rows, int n_cols)
{
    const size_t count = sizeof side_costs / sizeof *side_costs;
    const struct side_cost *last = &side_costs[count - 1];
    double cost = 0;
    const int sides[2] = {n_rows, n_cols};
    for (int d = 0; d < 2; d++) {
        const int side = sides[d];
        const struct side_cost *e = NULL;
        for (size_t i = 0; i < count && !e; i++)
            if (side_costs[i].side == side) e = &side_costs[i];
        if (e)
            cost += d == 0 ? e->rows : e->cols;
        else /* beyond the table (every nice side up to its last is in it) */
            cost += (d == 0 ? last->rows : last->cols) +
                    FXI_GPU_FFT_COST_PER_DOUBLING * log2((double)side / last->side);
    }
    return cost;
}

/* Sides a benchmark forced (fxi_gpu_fft_force_sides), 0: the cost model's. */
static int forced_rows, forced_cols;

void fxi_gpu_fft_force_sides(int n_rows, int n_cols)
{
    forced_rows = n_rows;
    forced_cols = n_cols;
}

/* The cheapest sides by the cost model among those whose one-tile batch fits the budget
 * (and, with pow2_cols, whose width is a power of two); false when none does. */
static bool choose_sides(int64_t width, int64_t height, int kw, int kh, int channels_filtered,
                         size_t memory_budget, bool pow2_cols, fxi_gpu_fft_geometry *out)
{
    const int min_r = fxi_fft_next_nice_side(kh), min_c = fxi_fft_next_nice_side(kw);
    int max_r = fxi_fft_next_nice_side(
        2 * (int64_t)kh > FXI_GPU_FFT_MAX_SIDE ? 2 * (int64_t)kh : FXI_GPU_FFT_MAX_SIDE);
    int max_c = fxi_fft_next_nice_side(
        2 * (int64_t)kw > FXI_GPU_FFT_MAX_SIDE ? 2 * (int64_t)kw : FXI_GPU_FFT_MAX_SIDE);
    /* no tile larger than the whole image plus its halo */
    const int whole_r = fxi_fft_next_nice_side(height + kh - 1),
              whole_c = fxi_fft_next_nice_side(width + kw - 1);
    if (max_r > whole_r) max_r = whole_r;
    if (max_c > whole_c) max_c = whole_c;

    if (forced_rows >= min_r && forced_cols >= min_c && fxi_fft_nice_side(forced_rows) &&
        fxi_fft_nice_side(forced_cols)) {
        set_sides(out, forced_rows, forced_cols, kw, kh, channels_filtered);
        return fxi_gpu_fft_batch_footprint(out, 1) <= memory_budget;
    }
    double best = -1;
    for (int r = min_r; r <= max_r; r = fxi_fft_next_nice_side((int64_t)r + 1)) {
        for (int c = min_c; c <= max_c; c = fxi_fft_next_nice_side((int64_t)c + 1)) {
            if (pow2_cols && (c & (c - 1)) != 0) continue;
            fxi_gpu_fft_geometry g;
            set_sides(&g, r, c, kw, kh, channels_filtered);
            if (fxi_gpu_fft_batch_footprint(&g, 1) > memory_budget) continue;
            const int64_t tiles = fxi_gpu_fft_tiles_x(&g, width) * fxi_gpu_fft_tiles_y(&g, height);
            const double cost = (double)tiles * r * c * fxi_gpu_fft_point_cost(r, c);
            if (best < 0 || cost < best) {
                best = cost;
                *out = g;
            }
        }
    }
    return best >= 0;
}

/* The batch of shape g under memory_budget: as many tiles as the budget, the batch cap
 * and the grid allow, balanced over a pass of pass_tiles tiles. */
static void set_batch(fxi_gpu_fft_geometry *g, size_t memory_budget, int64_t pass_tiles)
{
    const size_t one = fxi_gpu_fft_batch_footprint(g, 1);
    int64_t tiles = (int64_t)(memory_budget / one);
    const size_t data_one = g->plane_floats * sizeof(float) * (size_t)g->planes;
    const int64_t by_cap = (int64_t)(FXI_GPU_FFT_MAX_BATCH_BYTES / data_one);
    const int64_t by_grid = FXI_GPU_FFT_MAX_PLANES / g->planes;
    if (tiles > by_cap) tiles = by_cap;
    if (tiles > by_grid) tiles = by_grid;
    if (tiles < 1) tiles = 1;
    g->batch_cap = tiles;
    fxi_gpu_fft_balance(g, pass_tiles);
}

bool fxi_gpu_fft_plan(int64_t width, int64_t height, int kw, int kh, int channels_filtered,
                      size_t memory_budget, fxi_gpu_fft_geometry *out, const char **why)
{
    return fxi_gpu_fft_plan_with(width, height, kw, kh, channels_filtered, memory_budget,
                                 FXI_GPU_FFT_POW2_COLS, out, why);
}

bool fxi_gpu_fft_plan_with(int64_t width, int64_t height, int kw, int kh, int channels_filtered,
                           size_t memory_budget, bool pow2_cols, fxi_gpu_fft_geometry *out,
                           const char **why)
{
    *why = NULL;
    if (width < 1 || height < 1 || kw < 1 || kh < 1 || channels_filtered < 1) {
        *why = "empty image or kernel";
        return false;
    }
    if (!(pow2_cols &&
          choose_sides(width, height, kw, kh, channels_filtered, memory_budget, true, out)) &&
        !choose_sides(width, height, kw, kh, channels_filtered, memory_budget, false, out)) {
        *why = "one fft tile (the kernel's size rounded up, times the filtered channels, "
               "with cuFFT's work area) does not fit in the GPU memory allowed";
        return false;
    }
    set_batch(out, memory_budget,
              fxi_gpu_fft_tiles_x(out, width) * fxi_gpu_fft_tiles_y(out, height));
    return true;
}

/* Modelled nanoseconds of `tiles` tiles of shape g. */
static double tiles_cost(const fxi_gpu_fft_geometry *g, int64_t tiles)
{
    return (double)tiles * g->n_rows * g->n_cols * fxi_gpu_fft_point_cost(g->n_rows, g->n_cols) /
           1000.0;
}

int64_t fxi_gpu_fft_region_tiles(const fxi_gpu_fft_geometry *g, const fxi_fft_region *r)
{
    if (r->rows < 1 || r->width < 1) return 0;
    return fxi_gpu_fft_tiles_x(g, r->width) * fxi_gpu_fft_tiles_y(g, r->rows);
}

/* The regions of a pass given which strips are used (the shapes' sides known). */
static void regions_of(const fxi_gpu_fft_geometry *main_g, bool right, bool bottom, int64_t width,
                       int64_t rows, fxi_fft_region out[FXI_FFT_SHAPES])
{
    const int64_t main_w = right ? width / main_g->out_cols * main_g->out_cols : width;
    const int64_t main_r = bottom ? rows / main_g->out_rows * main_g->out_rows : rows;
    out[FXI_FFT_MAIN] = (fxi_fft_region){0, 0, main_r, main_w};
    out[FXI_FFT_RIGHT] = (fxi_fft_region){0, main_w, rows, width - main_w};
    out[FXI_FFT_BOTTOM] = (fxi_fft_region){main_r, 0, rows - main_r, main_w};
}

void fxi_gpu_fft_regions(const fxi_gpu_fft_shapes *s, int64_t width, int64_t rows,
                         fxi_fft_region out[FXI_FFT_SHAPES])
{
    regions_of(&s->geom[FXI_FFT_MAIN], s->used[FXI_FFT_RIGHT], s->used[FXI_FFT_BOTTOM], width, rows,
               out);
}

/* One try of the strips: their shapes planned for their regions of the whole image (each
 * within a FXI_GPU_FFT_STRIP_BUDGET_PARTS-th of the budget, so that the main tiles keep
 * at least half of it), the modelled time of the three, and the memory their batches
 * take; false when a strip has no region here or its tiles do not fit. */
static bool try_strips(int64_t width, int64_t height, int kw, int kh, int planes, size_t budget,
                       double region_cost, bool right, bool bottom, fxi_gpu_fft_shapes *s,
                       double *cost, size_t *bytes)
{
    const fxi_gpu_fft_geometry *m = &s->geom[FXI_FFT_MAIN];
    fxi_fft_region r[FXI_FFT_SHAPES];
    regions_of(m, right, bottom, width, height, r);
    s->used[FXI_FFT_RIGHT] = right;
    s->used[FXI_FFT_BOTTOM] = bottom;
    *cost = tiles_cost(m, fxi_gpu_fft_region_tiles(m, &r[FXI_FFT_MAIN]));
    *bytes = 0;
    for (int k = FXI_FFT_RIGHT; k <= FXI_FFT_BOTTOM; k++) {
        if (!s->used[k]) continue;
        const char *why;
        /* a strip needs whole main tiles beside it, and something of its own */
        if (r[FXI_FFT_MAIN].rows < 1 || r[FXI_FFT_MAIN].width < 1 || r[k].rows < 1 ||
            r[k].width < 1 ||
            !fxi_gpu_fft_plan(r[k].width, r[k].rows, kw, kh, planes,
                              budget / FXI_GPU_FFT_STRIP_BUDGET_PARTS, &s->geom[k], &why))
            return false;
        const int64_t tiles = fxi_gpu_fft_region_tiles(&s->geom[k], &r[k]);
        *cost += tiles_cost(&s->geom[k], tiles) + region_cost;
        *bytes += fxi_gpu_fft_batch_footprint(&s->geom[k], s->geom[k].batch_tiles);
    }
    return true;
}

/* The strips' own cost the planner charges (fxi_gpu_fft_set_strip_cost). */
static double strip_cost = FXI_GPU_FFT_STRIPS ? FXI_GPU_FFT_REGION_COST_NS : -1.0;

double fxi_gpu_fft_set_strip_cost(double ns)
{
    const double before = strip_cost;
    strip_cost = ns;
    return before;
}

bool fxi_gpu_fft_plan_shapes(int64_t width, int64_t height, int kw, int kh, int channels_filtered,
                             size_t memory_budget, fxi_gpu_fft_shapes *out, const char **why)
{
    return fxi_gpu_fft_plan_shapes_with(width, height, kw, kh, channels_filtered, memory_budget,
                                        strip_cost, out, why);
}

bool fxi_gpu_fft_plan_shapes_with(int64_t width, int64_t height, int kw, int kh,
                                  int channels_filtered, size_t memory_budget, double region_cost,
                                  fxi_gpu_fft_shapes *out, const char **why)
{
    memset(out, 0, sizeof *out);
    if (!fxi_gpu_fft_plan(width, height, kw, kh, channels_filtered, memory_budget,
                          &out->geom[FXI_FFT_MAIN], why))
        return false;
    out->used[FXI_FFT_MAIN] = true;
    if (region_cost < 0 || forced_rows) return true; /* forced sides: one shape */
    /* the cheapest of: no strip, the right one, the bottom one, both */
    fxi_gpu_fft_shapes best = *out;
    double best_cost = tiles_cost(&out->geom[FXI_FFT_MAIN],
                                  fxi_gpu_fft_tiles_x(&out->geom[FXI_FFT_MAIN], width) *
                                      fxi_gpu_fft_tiles_y(&out->geom[FXI_FFT_MAIN], height));
    size_t best_bytes = 0;
    for (int pick = 1; pick < 4; pick++) {
        fxi_gpu_fft_shapes s = *out;
        double cost;
        size_t bytes;
        if (!try_strips(width, height, kw, kh, channels_filtered, memory_budget, region_cost,
                        pick & 1, pick & 2, &s, &cost, &bytes) ||
            cost >= best_cost)
            continue;
        best = s;
        best_cost = cost;
        best_bytes = bytes;
    }
    /* the strips' batches come out of the main tiles' budget; none when that leaves the
     * main tiles not one */
    fxi_gpu_fft_geometry *m = &best.geom[FXI_FFT_MAIN];
    if (best_bytes && best_bytes + fxi_gpu_fft_batch_footprint(m, 1) <= memory_budget) {
        fxi_fft_region r[FXI_FFT_SHAPES];
        fxi_gpu_fft_regions(&best, width, height, r);
        set_batch(m, memory_budget - best_bytes, fxi_gpu_fft_region_tiles(m, &r[FXI_FFT_MAIN]));
        *out = best;
    }
    return true;
}

void fxi_gpu_fft_balance(fxi_gpu_fft_geometry *g, int64_t pass_tiles)
{
    if (pass_tiles < 1) pass_tiles = 1;
    const int64_t batches = ceil_div(pass_tiles, g->batch_cap);
    g->batch_tiles = ceil_div(pass_tiles, batches);
    g->batch_bytes = g->plane_floats * sizeof(float) * (size_t)g->planes * (size_t)g->batch_tiles;
    g->work_bytes = fxi_gpu_fft_batch_footprint(g, g->batch_tiles) - g->batch_bytes;
}

double fxi_gpu_fft_kernel_plane(const float *w, int kw, int kh, const fxi_gpu_fft_geometry *g,
                                float *plane)
{
    double sum = 0;
    for (size_t k = 0; k < g->plane_floats; k++)
        plane[k] = 0;
    for (int i = 0; i < kh; i++)
        for (int j = 0; j < kw; j++) {
            const float v = w[(size_t)i * (size_t)kw + (size_t)j];
            plane[(size_t)i * g->row_floats + (size_t)j] = v;
            sum += v;
        }
    return sum;
}
