/* Tile and batch sizes of the GPU fft strategy (see gpu_fft_geometry.h). */
#include <math.h>

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

    double best = -1;
    for (int r = min_r; r <= max_r; r = fxi_fft_next_nice_side((int64_t)r + 1)) {
        for (int c = min_c; c <= max_c; c = fxi_fft_next_nice_side((int64_t)c + 1)) {
            if (pow2_cols && (c & (c - 1)) != 0) continue;
            fxi_gpu_fft_geometry g;
            set_sides(&g, r, c, kw, kh, channels_filtered);
            if (fxi_gpu_fft_batch_footprint(&g, 1) > memory_budget) continue;
            const int64_t tiles = fxi_gpu_fft_tiles_x(&g, width) * fxi_gpu_fft_tiles_y(&g, height);
            const double points = (double)r * c;
            const double cost = (double)tiles * points * (log2(points) + FXI_GPU_FFT_IO_LEVELS);
            if (best < 0 || cost < best) {
                best = cost;
                *out = g;
            }
        }
    }
    return best >= 0;
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
    /* the batch: as many tiles as the budget, the batch cap and the grid allow, and no
     * more than the image has */
    const size_t one = fxi_gpu_fft_batch_footprint(out, 1);
    int64_t tiles = (int64_t)(memory_budget / one);
    const size_t data_one = out->plane_floats * sizeof(float) * (size_t)out->planes;
    const int64_t by_cap = (int64_t)(FXI_GPU_FFT_MAX_BATCH_BYTES / data_one);
    const int64_t by_grid = FXI_GPU_FFT_MAX_PLANES / out->planes;
    if (tiles > by_cap) tiles = by_cap;
    if (tiles > by_grid) tiles = by_grid;
    if (tiles < 1) tiles = 1;
    out->batch_cap = tiles;
    fxi_gpu_fft_balance(out, fxi_gpu_fft_tiles_x(out, width) * fxi_gpu_fft_tiles_y(out, height));
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
