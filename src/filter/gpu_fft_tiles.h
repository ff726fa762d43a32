/* Per-element rules of the GPU fft strategy, shared by its CUDA kernels
 * (src/filter/gpu_fft.cu) and the CPU test that replays them through FFTW
 * (tests/unit/test_filter_gpu_fft_tiles.c): where a tile lies, which virtual row and
 * column each point of its transform plane holds, where its bias sample is, and how a
 * correlation becomes an output sample. FX_HD is empty in C and __host__ __device__ in
 * CUDA, as in filter_math.h. Keep to the C/CUDA common subset.
 *
 * Rows are virtual rows of the pass (gpu_geometry.h): output row r of a pass reads
 * virtual rows r … r + kh - 1. Columns are pixels; x < 0 or x >= width take the border.
 */
#ifndef FXKIT_FILTER_GPU_FFT_TILES_H
#define FXKIT_FILTER_GPU_FFT_TILES_H

#include <stdint.h>

#include "filter/filter_math.h"

typedef struct fxi_fft_tile {
    int64_t y0, x0; /* first output row (of the pass) and column */
    int oh, ow;     /* outputs kept: the tile's share of the pass */
} fxi_fft_tile;

static inline FX_HD int64_t fxi_fft_min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Tile t of a pass of `rows` output rows and `width` columns, tiles_x tiles a row, each
 * keeping at most out_rows x out_cols outputs. */
static inline FX_HD fxi_fft_tile fxi_fft_tile_at(int64_t t, int64_t tiles_x, int out_rows,
                                                 int out_cols, int64_t rows, int64_t width)
{
    fxi_fft_tile b;
    b.y0 = t / tiles_x * out_rows;
    b.x0 = t % tiles_x * out_cols;
    b.oh = (int)fxi_fft_min64(out_rows, rows - b.y0);
    b.ow = (int)fxi_fft_min64(out_cols, width - b.x0);
    return b;
}

/* A region of a pass: rows x width outputs from output row y0 and column x0. A pass is
 * cut into up to three (gpu_fft_geometry.h, fxi_gpu_fft_regions), each tiled by its own
 * tile sides; a region's tile t is fxi_fft_tile_at over the region, moved to its origin. */
typedef struct fxi_fft_region {
    int64_t y0, x0, rows, width;
} fxi_fft_region;

static inline FX_HD fxi_fft_tile fxi_fft_region_tile(const fxi_fft_region *r, int64_t t,
                                                     int64_t tiles_x, int out_rows, int out_cols)
{
    fxi_fft_tile b = fxi_fft_tile_at(t, tiles_x, out_rows, out_cols, r->rows, r->width);
    b.y0 += r->y0;
    b.x0 += r->x0;
    return b;
}

/* Row i of the tile's plane: 1 with its virtual row *v when it is inside the input
 * block (the oh + kh - 1 rows the kept outputs read), 0 for the zero rows below. */
static inline FX_HD int fxi_fft_block_row(const fxi_fft_tile *b, int kh, int i, int64_t *v)
{
    if (i >= b->oh + kh - 1) return 0;
    *v = b->y0 + i;
    return 1;
}

/* Column j of the tile's plane: 1 with its column *x when it is inside the input block
 * (the ow + kw - 1 columns the kept outputs read), 0 for the zero columns beyond. */
static inline FX_HD int fxi_fft_block_col(const fxi_fft_tile *b, int kw, int ax, int j, int64_t *x)
{
    if (j >= b->ow + kw - 1) return 0;
    *x = b->x0 - ax + j;
    return 1;
}

/* Point (i, j) of the tile's plane: 1 with its virtual row *v and column *x when it is
 * inside the input block, 0 for the zeros beyond (the kernels take the row and the
 * column apart: a thread keeps its column for all its rows). */
static inline FX_HD int fxi_fft_block_point(const fxi_fft_tile *b, int kw, int kh, int ax, int i,
                                            int j, int64_t *v, int64_t *x)
{
    return fxi_fft_block_row(b, kh, i, v) && fxi_fft_block_col(b, kw, ax, j, x);
}

/* The bias sample of a tile's channel: the centre of its input block. */
static inline FX_HD void fxi_fft_bias_point(const fxi_fft_tile *b, int kw, int kh, int ax,
                                            int64_t *v, int64_t *x)
{
    *v = b->y0 + (b->oh + kh - 1) / 2;
    *x = b->x0 - ax + (b->ow + kw - 1) / 2;
}

/* A bias that is not finite (inf or NaN samples) is no bias: such a sample spreads over
 * the whole tile anyway. */
static inline FX_HD float fxi_fft_bias(float sample)
{
    return sample - sample == 0 ? sample : 0.0f;
}

/* What a tile's channel adds to each of its correlations: the offset and the bias's
 * response, float(offset + bias * sum(w)) computed in double, as the CPU fft. One value
 * per tile and channel (the extract kernel computes it once per block). */
static inline FX_HD float fxi_fft_bias_response(float offset, float bias, double weight_sum)
{
    return (float)((double)offset + (double)bias * weight_sum);
}

/* The accumulator of a kept point from the plane's correlation value and its tile's
 * fxi_fft_bias_response. It is finished as the CPU's float path (fxi_finish_float on
 * integer images). */
static inline FX_HD float fxi_fft_accumulator(float corr, float response)
{
    return corr + response;
}

#endif
