/* Geometry of the GPU fft strategy (src/filter/gpu_fft*.{c,cu}), as plain C so it is
 * unit-tested without a GPU (tests/unit/test_filter_gpu_fft_geometry.c).
 *
 * Overlap-save on tiles: a tile is an N x M real transform whose top-left
 * (N - kh + 1) x (M - kw + 1) outputs are exact correlations (no wrap-around). One tile
 * holds one plane per filtered channel; planes are stored for cuFFT's in-place
 * real-to-complex transform, rows of 2 * (M / 2 + 1) floats. Tiles are transformed in
 * batches whose data and cuFFT work area fit the memory budget passed in.
 */
#ifndef FXKIT_FILTER_GPU_FFT_GEOMETRY_H
#define FXKIT_FILTER_GPU_FFT_GEOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter/fft_sides.h"
#include "filter/filter_tuning.h"
#include "filter/gpu_fft_tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sides are 2^a, 3 * 2^a or 5 * 2^a (cuFFT's fastest radices), at least this. */
#define FXI_GPU_FFT_MIN_SIDE FXI_FFT_MIN_SIDE
/* Planes of one batch: the multiply kernel's grid.y holds them (pack's and extract's
 * grid.z the tiles). */
#define FXI_GPU_FFT_MAX_PLANES 65535

typedef struct fxi_gpu_fft_geometry {
    int n_rows, n_cols;     /* transform size N x M */
    int out_rows, out_cols; /* valid outputs per tile: N - kh + 1, M - kw + 1 */
    int planes;             /* per tile: the filtered channels */
    size_t row_floats;      /* floats per plane row: 2 * (M / 2 + 1) */
    size_t plane_floats;    /* N * row_floats; also 2 * the complex values of a spectrum */
    int64_t batch_cap;      /* tiles per execution that the budget and limits allow */
    int64_t batch_tiles;    /* tiles per cuFFT execution: batch_cap balanced for a pass */
    size_t batch_bytes;     /* data buffer of one batch */
    size_t work_bytes;      /* allowance for cuFFT's work area (the real one is queried) */
} fxi_gpu_fft_geometry;

/* Choose the tile for a kw x kh kernel on a width x height image (channels_filtered
 * planes per tile) and the batch under memory_budget bytes (data + work area). The
 * sides minimise the modelled time of the whole image, tiles x N x M x
 * fxi_gpu_fft_point_cost(N, M), among sides whose one-tile batch fits the budget. False
 * with *why when not even one tile of the smallest side fits. */
bool fxi_gpu_fft_plan(int64_t width, int64_t height, int kw, int kh, int channels_filtered,
                      size_t memory_budget, fxi_gpu_fft_geometry *out, const char **why);
/* fxi_gpu_fft_plan with the width rule given: pow2_cols takes only tile widths that are
 * powers of two when one fits (else any nice width). fxi_gpu_fft_plan passes
 * FXI_GPU_FFT_POW2_COLS (filter_tuning.h). */
bool fxi_gpu_fft_plan_with(int64_t width, int64_t height, int kw, int kh, int channels_filtered,
                           size_t memory_budget, bool pow2_cols, fxi_gpu_fft_geometry *out,
                           const char **why);

/* The modelled time of one point of an N x M tile, ns per 1000 points (a table measured
 * on the H200 by bench/gpu_fft_tiles; sides beyond it extrapolated). */
double fxi_gpu_fft_point_cost(int n_rows, int n_cols);

/* For benchmarks only (bench/gpu_fft_tiles.c): plans made from now on take these tile
 * sides instead of the cost model's when they are nice, hold the kernel and fit the
 * budget (else the model's); 0, 0 restores the model. Process-wide and not thread-safe:
 * set it before any plan is made. */
void fxi_gpu_fft_force_sides(int n_rows, int n_cols);

/* The tile shapes of a pass: the main tiles, and where they would leave much of their
 * last column or row of tiles unused, narrower tiles for the right strip (the columns
 * past the main tiles' whole columns, every row) and shorter ones for the bottom strip
 * (the rows past their whole rows, the main tiles' columns). */
enum { FXI_FFT_MAIN = 0, FXI_FFT_RIGHT = 1, FXI_FFT_BOTTOM = 2, FXI_FFT_SHAPES = 3 };

typedef struct fxi_gpu_fft_shapes {
    fxi_gpu_fft_geometry geom[FXI_FFT_SHAPES];
    bool used[FXI_FFT_SHAPES]; /* the main shape always */
} fxi_gpu_fft_shapes;

/* fxi_gpu_fft_plan's main tiles for a width x height image, then the strips' own tiles
 * where the modelled time (fxi_gpu_fft_point_cost a point, plus
 * FXI_GPU_FFT_REGION_COST_NS a strip) is lower with them, within memory_budget for all
 * shapes' batches together. False with *why as fxi_gpu_fft_plan. */
bool fxi_gpu_fft_plan_shapes(int64_t width, int64_t height, int kw, int kh, int channels_filtered,
                             size_t memory_budget, fxi_gpu_fft_shapes *out, const char **why);

/* fxi_gpu_fft_plan_shapes with the strips' own cost given (ns a strip; negative: no
 * strips). fxi_gpu_fft_plan_shapes passes FXI_GPU_FFT_REGION_COST_NS, or -1 without
 * FXI_GPU_FFT_STRIPS; the tests pass 0 to have strips on small images. */
/* For tests only: the strips' cost fxi_gpu_fft_plan_shapes charges from now on (0: strips
 * wherever they save points, so on small images too); returns the one before, to be put
 * back. Process-wide and not thread-safe: set it before any plan is made. */
double fxi_gpu_fft_set_strip_cost(double ns);

bool fxi_gpu_fft_plan_shapes_with(int64_t width, int64_t height, int kw, int kh,
                                  int channels_filtered, size_t memory_budget, double region_cost,
                                  fxi_gpu_fft_shapes *out, const char **why);

/* The regions of a pass of `rows` output rows and `width` columns, one per shape (rows or
 * width 0: empty): together every output of the pass once. */
void fxi_gpu_fft_regions(const fxi_gpu_fft_shapes *s, int64_t width, int64_t rows,
                         fxi_fft_region out[FXI_FFT_SHAPES]);

/* Tiles of shape g over a region. */
int64_t fxi_gpu_fft_region_tiles(const fxi_gpu_fft_geometry *g, const fxi_fft_region *r);

/* Set the batch for a pass of pass_tiles tiles: as few batches as batch_cap allows,
 * made equal, so that none is mostly idle (every execution transforms a whole batch).
 * Starts from batch_cap each time, so a band's pass is not held to the batch the
 * whole image's pass was balanced to. */
void fxi_gpu_fft_balance(fxi_gpu_fft_geometry *g, int64_t pass_tiles);

/* Tiles covering `rows` output rows of `width` columns: tiles_x * tiles_y. */
int64_t fxi_gpu_fft_tiles_x(const fxi_gpu_fft_geometry *g, int64_t width);
int64_t fxi_gpu_fft_tiles_y(const fxi_gpu_fft_geometry *g, int64_t rows);

/* Bytes of data + work allowance for a batch of `tiles` tiles. */
size_t fxi_gpu_fft_batch_footprint(const fxi_gpu_fft_geometry *g, int64_t tiles);

/* The kernel's plane before its transform: the kw x kh taps (row-major w) at the origin
 * of a zeroed plane of g->plane_floats floats, rows of g->row_floats; returns the sum of
 * the taps (the response to a constant, for the bias). The spectrum multiplied in is
 * conj(R2C(plane)) / (N M): the conjugate makes the circular convolution a correlation,
 * c(y, x) = sum w[i][j] in((y + i) mod N, (x + j) mod M). */
double fxi_gpu_fft_kernel_plane(const float *w, int kw, int kh, const fxi_gpu_fft_geometry *g,
                                float *plane);

#ifdef __cplusplus
}
#endif
#endif
