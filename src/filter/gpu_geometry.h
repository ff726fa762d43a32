/* Geometry of the GPU filter, as plain C: band heights and halos under a device memory
 * cap, tile, grid and shared-memory sizes per kernel and block size, the constant-memory
 * and texture limits, stream and staging-buffer counts. The device's limits are
 * parameters, so every rule here is unit-tested without a GPU
 * (tests/unit/test_filter_gpu_geometry.c); the kernels only read what these functions
 * hand them.
 *
 * Rows are counted in "virtual rows": a band of output rows [y0, y1) reads the input
 * rows y0 - ay … y1 - ay + kh - 2 (kh - 1 rows of halo), each of them, when it lies
 * outside the image, the row the border rule names (or a constant row). Columns are
 * counted in elements: width * channels samples of a row, channels interleaved.
 */
#ifndef FXKIT_FILTER_GPU_GEOMETRY_H
#define FXKIT_FILTER_GPU_GEOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter/filter_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU kernels: the four published variants, the fast strategies. */
typedef enum fxi_gpu_kernel {
    FXI_GK_GLOBAL = 0, /* one thread per output, taps and samples from global memory */
    FXI_GK_CONSTANT,   /* taps in constant memory */
    FXI_GK_SHARED,     /* input tile with halo in shared memory, kernel rows in chunks */
    FXI_GK_TEXTURE,    /* samples through a 1-D linear texture object */
    FXI_GK_DIRECT,     /* register blocking: several output rows per thread */
    FXI_GK_SEPARABLE,  /* fused: row pass into shared memory, column pass from it */
    FXI_GK_BOX,        /* running sums: a column pass, then a row pass */
    FXI_GK_COUNT
} fxi_gpu_kernel;

/* What the device allows (queried once per plan; tests pass made-up values). */
typedef struct fxi_gpu_limits {
    size_t shared_bytes;      /* dynamic shared memory one block may use */
    size_t constant_bytes;    /* bytes of the constant-memory tap table */
    int64_t texture_elements; /* largest 1-D linear texture, in elements */
    int64_t max_grid_x, max_grid_y;
    size_t memory_budget; /* device bytes the band buffers may take */
    int max_streams;      /* streams (and staging slots) for banded runs */
} fxi_gpu_limits;

/* The image and kernel, as far as geometry cares. */
typedef struct fxi_gpu_shape {
    int64_t width, height;
    int channels;
    int in_sample, out_sample; /* bytes per sample */
    int acc_size;              /* bytes of one accumulator (4 or 8) */
    int kw, kh, ax, ay;
} fxi_gpu_shape;

/* One kernel's launch: threads per block, tiles, grid, shared memory. The grid covers
 * tiles_x x tiles_y tiles; when tiles_y exceeds the grid's y limit, blocks loop over
 * tiles_y in steps of grid_y. */
typedef struct fxi_gpu_launch {
    int kernel;
    int block_x, block_y;     /* threads */
    int tile_w, tile_h;       /* outputs per block: elements x rows */
    int rows_per_thread;      /* direct: outputs per thread, one below the other */
    int chunk_rows;           /* shared: kernel rows per chunk; separable: virtual rows */
    int64_t tiles_x, tiles_y; /* tiles over the pass (box: columns of the padded row) */
    int64_t grid_x, grid_y;   /* blocks launched */
    size_t shared_bytes;      /* dynamic shared memory per block */
    /* box: the row pass runs one thread per (row, channel, segment of box_segment
     * pixels); its grid is box_grid_x blocks of block_x * block_y threads, looping */
    int box_segment;
    int64_t box_items, box_grid_x;
    int box_strip; /* box: rows per thread of the column pass */
    /* ring (separable and box, when its shared memory fits; else the layouts above):
     * one block of ring_threads threads walks down a tile of tile_h output rows.
     * separable: tile_w output elements, one per thread; chunk_rows input rows at a time
     * are staged (in_width elements each: the tile and its halo) and row-filtered into a
     * ring of ring_rows rows (kh - 1 + chunk_rows), which the column pass reads.
     * box: box_groups groups of `channels` threads, each group box_segment pixels; the
     * block covers tile_w = box_groups * box_segment pixels (all channels), keeps the
     * column sums of its padded width in shared memory and updates them row by row. */
    int ring;
    int ring_rows;
    int in_width;
    int box_groups;
} fxi_gpu_launch;

/* Block sizes of the published variants (--gpu-block); the default is
 * FXI_GPU_BLOCK_DEFAULT (filter_tuning.h). */
bool fxi_gpu_block_valid(int block);

/* Launch geometry of `kernel` for `rows` output rows of this shape with --gpu-block
 * `block` (published variants; 0 = the default), or false with *why set. */
bool fxi_gpu_launch_geometry(int kernel, int block, const fxi_gpu_shape *s, int64_t rows,
                             const fxi_gpu_limits *lim, fxi_gpu_launch *out, const char **why);

/* Elements of one row (width * channels), bytes of an input and output row. */
int64_t fxi_gpu_row_elements(const fxi_gpu_shape *s);
size_t fxi_gpu_in_row_bytes(const fxi_gpu_shape *s);
size_t fxi_gpu_out_row_bytes(const fxi_gpu_shape *s);
/* Bytes of the constant-memory tap table (kw * kh accumulators). */
size_t fxi_gpu_taps_bytes(const fxi_gpu_shape *s);

/* ---- bands: streaming from host memory ---- */

typedef struct fxi_gpu_bands {
    int64_t band_h;    /* output rows per band (the last may have fewer) */
    int64_t count;     /* bands */
    int streams;       /* streams = staging slots = device buffer slots */
    size_t in_bytes;   /* per slot: band_h + kh - 1 input rows */
    size_t out_bytes;  /* per slot: band_h output rows */
    size_t work_bytes; /* per slot: intermediate (box) */
} fxi_gpu_bands;

/* One band: output rows [y0, y1), input virtual rows v0 = y0 - ay … v0 + vrows - 1. */
typedef struct fxi_gpu_band {
    int64_t y0, y1;
    int64_t v0, vrows;
} fxi_gpu_band;

/* Band the image for streaming: the largest bands (up to a target that keeps several
 * in flight, and at most max_band_rows when > 0) whose buffers, times the streams, fit
 * in lim->memory_budget; work_per_row is intermediate bytes per output row (box). With
 * row_multiple > 1 (fft: its tile rows) a band of more rows than that, when there are
 * several bands, holds a whole multiple of it (a band's last tile row is transformed
 * whole however few of its rows the band needs). False with *why when even one row
 * per band on one stream does not fit. */
bool fxi_gpu_plan_bands(const fxi_gpu_shape *s, size_t work_per_row, int64_t max_band_rows,
                        int64_t row_multiple, const fxi_gpu_limits *lim, fxi_gpu_bands *out,
                        const char **why);
/* Band b of a band set (0 <= b < count). */
fxi_gpu_band fxi_gpu_band_at(const fxi_gpu_bands *bands, const fxi_gpu_shape *s, int64_t b);


#ifdef __cplusplus
}
#endif
#endif
