/* Geometry of the GPU filter's 8-bit fast path (gpu_u8.cu), as plain C: which of its two
 * layouts runs, tiles, grids, shared memory and the intermediate buffer. Unit-tested
 * without a GPU (tests/unit/test_filter_gpu_geometry.c).
 *
 * The fast path takes 8-bit images whose kernel is separable with nonnegative whole
 * numerators, or a box, and whose every partial sum stays below 2^24: the sums are then
 * exact in FP32 (Hopper's FP32 FMA runs at twice its INT32 multiply rate), and finish
 * exactly as the CPU's int32 sums (filter_math.h).
 *
 * - fused (small kernels; 3x3 and 5x5 may walk instead, see `walk` below): a block
 *   stages its input tile (tile_h + kh - 1 rows of
 *   tile_w + (kw - 1) * channels samples as floats, borders applied) in shared memory,
 *   row-filters it into a float tile there and column-filters that: one read of the
 *   image, one write.
 * - two-pass (larger kernels): a rows pass writes every virtual row's row sums to an
 *   intermediate buffer (uint16: row sums of 8-bit samples with taps summing to at most
 *   257 fit), then a columns pass reads them and finishes. Each thread computes several
 *   outputs (row_outputs along its row, col_outputs down its column), so every value it
 *   loads feeds several multiply-adds.
 * - box slide (every box the walk does not take): one pass, no intermediate. A block
 *   stages in_w elements of a row (tile_w threads of FXI_GPU_U8_SLIDE_PIXELS pixels each)
 *   and walks down tile_h output rows, each thread keeping its elements' column sums
 *   over the kh rows of the window in registers; a row's windows are differences of a
 *   prefix of those sums in shared memory (box_slide.h). slide_out output elements a
 *   block across, tiles_x blocks across the row, the row's outputs shared evenly among
 *   them (FXI_GPU_U8_SLIDE_EVEN).
 */
#ifndef FXKIT_FILTER_GPU_U8_GEOMETRY_H
#define FXKIT_FILTER_GPU_U8_GEOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter/box_slide.h"
#include "filter/filter_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fxi_gpu_u8_layout {
    FXI_U8_NONE = 0, /* not eligible: the general kernels run */
    FXI_U8_FUSED,
    FXI_U8_TWO_PASS,
    FXI_U8_BOX_SLIDE
} fxi_gpu_u8_layout;

/* What decides eligibility and layout. Sums are of the numerators (box: 1 each). */
typedef struct fxi_gpu_u8_kernel {
    int kw, kh;
    bool box;               /* taps all one, scaled by the one numerator at the finish */
    bool nonnegative;       /* every row and column numerator >= 0 */
    double row_sum, col_sum; /* sums of the row and column numerators */
} fxi_gpu_u8_kernel;

/* The layout for this kernel (FXI_U8_NONE when the fast path's sums would not be exact
 * in FP32 or its intermediate in uint16). A box the walk does not take (3x3, 5x5) slides;
 * other kernels up to fused_max_taps wide and tall take the fused layout
 * (FXI_GPU_U8_FUSED_MAX_TAPS), larger ones two passes. */
int fxi_gpu_u8_layout_for(const fxi_gpu_u8_kernel *k, int fused_max_taps);

typedef struct fxi_gpu_u8_launch {
    int layout;
    int box; /* running sums (taps all one) instead of multiply-adds */
    /* fused 3x3 and 5x5 (FXI_GPU_U8_FUSED_WALK): each thread of a tile_w block walks down
     * its element's column over tile_h rows, its row sums in registers; no shared memory */
    int walk;
    /* the walk's adjacent elements a thread where k_u8_walk4 runs
     * (FXI_GPU_U8_WALK_ELEMENTS(kw): 4 or 8), and its blocks across (walk_elements *
     * tile_w elements each); tile_w counts threads of this many elements (the one-element
     * walk's grid_x, tiles of tile_w elements, is below) */
    int walk_elements;
    int64_t walk_grid_x;
    /* k_u8_walk4's edge blocks after the walk_grid_x blocks of each grid row
     * (FXI_GPU_U8_WALK_EDGE_BLOCKS): 1, their lanes walk the row's edge elements
     * (walk4_edge.h) and the blocks' edge threads leave; 0, the edge threads walk their
     * own elements */
    int walk_edge_blocks;
    /* fused: blocks of tile_w threads, one output element each, tile_h rows per tile;
     * in_w staged samples per row (tile_w + (kw - 1) * channels); shared memory: the
     * row-filtered tile then the staged samples, floats */
    int tile_w, tile_h, in_w;
    int64_t tiles_x, tiles_y, grid_x, grid_y;
    size_t shared_bytes;
    /* box slide: tile_w threads stage in_w elements (slide_pixels pixels or parts of
     * them) and write slide_out output elements (a multiple of 4) of tile_h rows; shared
     * memory: 4 zeros, in_w prefix sums and 4 words of padding, 4 totals a warp (uint32),
     * then the staged pixels' source pixels (int32) */
    int slide_out, slide_pixels;
    /* box slide: the edge rows' layout (box_slide.h's fxi_box_slide_side; work_stride
     * bytes a row, vrows rows: work_bytes), all 0 when the edge threads load by the
     * border rule instead (fxi_gpu_u8_slide_side) */
    int64_t side_left_blocks, side_right_blocks, side_left_w, side_right_w;
    /* two-pass rows: blocks of row_tx x channels threads, each row_segment pixels of one
     * channel (row_tx * row_segment pixels a block) of one virtual row; shared memory:
     * one float plane per channel of row_plane floats, then the uint16 outputs */
    int row_tx, row_segment, row_plane;
    int64_t row_grid_x, row_grid_y, row_tiles_y;
    size_t row_shared_bytes;
    /* two-pass columns: blocks of col_threads threads, one element each, col_rows output
     * rows per block */
    int col_threads, col_rows;
    int64_t col_grid_x, col_grid_y, col_tiles_y;
    /* the intermediate: vrows rows of work_stride bytes (the rows pass writes them), in a
     * buffer of work_rows >= vrows rows (padding the columns pass may read) */
    int64_t vrows, work_rows;
    size_t work_stride, work_bytes;
} fxi_gpu_u8_launch;

/* Geometry of `layout` for `rows` output rows of a width x channels image and a kw x kh
 * kernel (box: running sums), within shared_limit bytes of shared memory and the grid's
 * y limit; false with *why when it does not fit (the caller then runs the general
 * kernels). */
bool fxi_gpu_u8_geometry(int layout, bool box, int64_t width, int channels, int64_t rows, int kw,
                         int kh, size_t shared_limit, int64_t max_grid_x, int64_t max_grid_y,
                         fxi_gpu_u8_launch *out, const char **why);

/* The box slide's rows a block walks for a device that runs resident_blocks of its
 * blocks at once: strips of rows that fill those blocks once (every block's walk starts
 * with kh - 1 rows of its own, so fewer and longer strips cost less than waves of short
 * ones; a second, partial wave would run alone). At least FXI_GPU_U8_SLIDE_MIN_ROWS rows;
 * resident_blocks <= 0 keeps the geometry's FXI_GPU_U8_SLIDE_ROWS. */
void fxi_gpu_u8_slide_strips(fxi_gpu_u8_launch *g, int64_t rows, int64_t resident_blocks,
                             int64_t max_grid_y);

/* The box slide's edge rows for a row of width x channels elements and a window of kw
 * columns from ax to the left of its output: the threads at the row's ends (whose
 * elements take the border rule) load their elements from rows of a side buffer, borders
 * applied by a launch before the slide's, aligned words as the other threads load; each
 * through the border rule took the slide twice as long (r119: box:121 0.72 against 0.33
 * ms with those loads skipped). Sets the layout and work_stride, work_rows and work_bytes
 * (vrows rows); none where an edge row would be longer than the image's row (a narrow
 * image and a wide box: the border rule then). */
void fxi_gpu_u8_slide_side(fxi_gpu_u8_launch *g, int64_t width, int channels, int kw, int ax);

/* Images of a batch per launch (fx_filter_run_batch): all `count`, at most the grid's z
 * limit (max_images), and where each image needs work_bytes of intermediate (two-pass),
 * as many as fit in work_limit bytes, one at least. */
int fxi_gpu_u8_batch_chunk(int count, size_t work_bytes, int max_images, size_t work_limit);

#ifdef __cplusplus
}
#endif
#endif
