/* Geometry of the GPU filter's 8-bit fast path (see gpu_u8_geometry.h): plain C, no CUDA. */
#include "filter/gpu_u8_geometry.h"

/* 2^24: every whole number below it is a float, so FP32 sums of them are exact. */
#define U8_F32_EXACT_LIMIT 16777216.0
/* The intermediate of the two-pass layout is uint16, and so are the box slide's column
 * sums (two to a register). */
#define U8_ROW_SUM_LIMIT 65535.0
/* The box slide's totals of each warp in shared memory: one a channel, 4 at most. */
#define SLIDE_WARP_TOTALS 4
/* ... and the zeros before its prefix (box_slide.h's fxi_box_window reads C of them): 4,
 * so that the prefix stays 16-byte aligned */
#define SLIDE_PREFIX_GUARD 4
/* ... and the padding after it: the word-wide finish's 128-bit loads of its last words
 * may reach 3 words past them (gpu_u8_box.cu's prefix_quad) */
#define SLIDE_PREFIX_TAIL 4

static int64_t div_up(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int fxi_gpu_u8_layout_for(const fxi_gpu_u8_kernel *k, int fused_max_taps)
{
    if (k->kw < 1 || k->kh < 1 || k->kw > FXI_GPU_U8_MAX_TAPS || k->kh > FXI_GPU_U8_MAX_TAPS)
        return FXI_U8_NONE;
    if (!k->box && !k->nonnegative) return FXI_U8_NONE;
    /* a box sums samples (taps 1), its numerator scales the exact sum at the finish */
    const double row_sum = k->box ? (double)k->kw : k->row_sum;
    const double col_sum = k->box ? (double)k->kh : k->col_sum;
    /* nonnegative taps: every partial sum is at most the whole one */
    if (255.0 * row_sum * col_sum >= U8_F32_EXACT_LIMIT) return FXI_U8_NONE;
    /* a box slides unless it is small enough to fuse (3x3 and 5x5 then walk) */
    const bool fuses = k->kw <= fused_max_taps && k->kh <= fused_max_taps;
    if (k->box && (!fuses || k->kw >= FXI_GPU_U8_SLIDE_MIN_TAPS || k->kh >= FXI_GPU_U8_SLIDE_MIN_TAPS))
        return 255.0 * col_sum <= U8_ROW_SUM_LIMIT ? FXI_U8_BOX_SLIDE : FXI_U8_NONE;
    if (k->kw <= fused_max_taps && k->kh <= fused_max_taps) return FXI_U8_FUSED;
    if (255.0 * row_sum > U8_ROW_SUM_LIMIT) return FXI_U8_NONE;
    return FXI_U8_TWO_PASS;
}

/* Threads of a walking block: FXI_GPU_U8_FUSED_THREADS, or for a row that needs fewer of
 * its threads of `elements` elements (k_u8_walk4), the warps it needs. A 256x256 RGB
 * row needs 192 of 4 elements: blocks of 256 kept two idle warps each, whose registers
 * the SM holds until the block ends (Nsight Compute on the H200, 1000 such images in one
 * launch, 5x5: 20% achieved occupancy, 20.6 of 32 threads active a warp). */
static int walk_threads(int64_t n, int elements)
{
    const int64_t warps = div_up(div_up(n, elements), 32);
    return warps * 32 < FXI_GPU_U8_FUSED_THREADS ? (int)(warps * 32) : FXI_GPU_U8_FUSED_THREADS;
}

/* k_u8_walk4's blocks for a row of n elements, `elements` a thread: their threads
 * (tile_w), how many across (walk_grid_x) and the edge blocks after them. */
static void size_walk4(fxi_gpu_u8_launch *g, int64_t n, int elements)
{
    g->walk_elements = elements;
    g->tile_w = walk_threads(n, elements);
    g->walk_grid_x = div_up(n, (int64_t)elements * g->tile_w);
    g->walk_edge_blocks = FXI_GPU_U8_WALK_EDGE_BLOCKS;
}

void fxi_gpu_u8_slide_strips(fxi_gpu_u8_launch *g, int64_t rows, int64_t resident_blocks,
                             int64_t max_grid_y)
{
    if (g->layout != FXI_U8_BOX_SLIDE || resident_blocks <= 0 || rows < 1) return;
    int64_t strips = resident_blocks / g->tiles_x;
    if (strips < 1) strips = 1;
    int64_t tile_h = div_up(rows, strips);
    if (tile_h < FXI_GPU_U8_SLIDE_MIN_ROWS) tile_h = FXI_GPU_U8_SLIDE_MIN_ROWS;
    g->tile_h = (int)min64(tile_h, rows);
    g->tiles_y = div_up(rows, g->tile_h);
    g->grid_y = min64(g->tiles_y, max_grid_y);
}

void fxi_gpu_u8_slide_side(fxi_gpu_u8_launch *g, int64_t width, int channels, int kw, int ax)
{
    g->side_left_blocks = g->side_right_blocks = g->side_left_w = g->side_right_w = 0;
    if (g->layout != FXI_U8_BOX_SLIDE) return;
    const int ept = FXI_GPU_U8_SLIDE_PIXELS * channels;
    const fxi_box_slide_shape shape = {width * channels, g->slide_out, ax,       kw,
                                       channels,         ept,          g->tile_w};
    int64_t lefts = 0, rights = 0, left_w = 0, right_w = 0;
    for (int64_t bx = 0; bx < g->tiles_x; bx++) {
        const fxi_box_slide_block b = fxi_box_slide_block_at(&shape, bx);
        if (b.left > 0) {
            if (lefts != bx) return; /* not the row's first blocks: the border rule */
            lefts++;
            left_w = b.left * (int64_t)ept > left_w ? b.left * (int64_t)ept : left_w;
        }
        if (b.loaders > b.right) {
            rights++;
            const int64_t w = (int64_t)(b.loaders - b.right) * ept;
            right_w = w > right_w ? w : right_w;
        } else if (rights > 0) {
            return; /* not the row's last blocks */
        }
    }
    const int64_t row = lefts * left_w + rights * right_w; /* a multiple of 4 bytes */
    if (row == 0 || row > width * channels) return;
    g->side_left_blocks = lefts;
    g->side_right_blocks = rights;
    g->side_left_w = left_w;
    g->side_right_w = right_w;
    g->work_stride = (size_t)row;
    g->work_rows = g->vrows;
    g->work_bytes = (size_t)(g->vrows * row);
}

int fxi_gpu_u8_batch_chunk(int count, size_t work_bytes, int max_images, size_t work_limit)
{
    int chunk = count < max_images ? count : max_images;
    if (work_bytes) {
        const size_t fit = work_limit / work_bytes;
        if ((size_t)chunk > fit) chunk = fit > 0 ? (int)fit : 1;
    }
    return chunk;
}

bool fxi_gpu_u8_geometry(int layout, bool box, int64_t width, int channels, int64_t rows, int kw,
                         int kh, size_t shared_limit, int64_t max_grid_x, int64_t max_grid_y,
                         fxi_gpu_u8_launch *g, const char **why)
{
    *why = NULL;
    *g = (fxi_gpu_u8_launch){0};
    g->layout = layout;
    g->box = box;
    const int64_t n = width * channels;
    if (rows < 1 || n < 1) {
        *why = "empty image";
        return false;
    }
    g->vrows = rows + kh - 1;
    if (layout == FXI_U8_FUSED && FXI_GPU_U8_FUSED_WALK && kw == kh && (kw == 3 || kw == 5)) {
        g->walk = 1;
        size_walk4(g, n, FXI_GPU_U8_WALK_ELEMENTS(kw));
        g->tile_h = FXI_GPU_U8_WALK_TILE_ROWS;
        g->tiles_x = div_up(n, g->tile_w);
        g->tiles_y = div_up(rows, g->tile_h);
        g->grid_x = g->tiles_x;
        g->grid_y = min64(g->tiles_y, max_grid_y);
        if (g->walk_grid_x + g->walk_edge_blocks > max_grid_x) {
            *why = "the image is too wide for one grid";
            return false;
        }
    } else if (layout == FXI_U8_FUSED) {
        g->tile_w = FXI_GPU_U8_FUSED_THREADS;
        g->tile_h = FXI_GPU_U8_FUSED_TILE_ROWS;
        g->in_w = g->tile_w + (kw - 1) * channels;
        const int64_t in_h = (int64_t)g->tile_h + kh - 1;
        const uint64_t bytes = (uint64_t)in_h * ((uint64_t)g->tile_w + (uint64_t)g->in_w) * 4u;
        if (bytes > shared_limit) {
            *why = "the fused tile does not fit in shared memory";
            return false;
        }
        g->shared_bytes = (size_t)bytes;
        g->tiles_x = div_up(n, g->tile_w);
        g->tiles_y = div_up(rows, g->tile_h);
        g->grid_x = g->tiles_x;
        g->grid_y = min64(g->tiles_y, max_grid_y);
    } else if (layout == FXI_U8_TWO_PASS) {
        g->row_tx = FXI_GPU_U8_ROW_TX;
        g->row_segment = FXI_GPU_U8_ROW_OUTPUTS;
        const int64_t pixels = (int64_t)g->row_tx * g->row_segment;
        /* a thread's window reads up to kw + segment - 1 samples past its start; the
         * multiply-add loop loads one more, which it never uses */
        g->row_plane = (int)(pixels + kw);
        const uint64_t outs = (uint64_t)pixels * (uint64_t)channels * 2u;
        /* the float planes or k_u8_rows_dp4a's tap words and byte planes (which stage up
         * to 4 * (DP4A quads a thread * row_tx + kw + 6) bytes, within a float plane) */
        const uint64_t bytes = FXI_GPU_U8_ROW_TAP_WORD_BYTES +
                               (uint64_t)channels * (uint64_t)g->row_plane * 4u +
                               ((outs + 3u) & ~(uint64_t)3u);
        if (bytes > shared_limit) {
            *why = "the rows pass's planes do not fit in shared memory";
            return false;
        }
        g->row_shared_bytes = (size_t)bytes;
        g->row_grid_x = div_up(width, pixels);
        g->row_tiles_y = g->vrows;
        g->row_grid_y = min64(g->vrows, max_grid_y);
        g->col_threads = FXI_GPU_U8_COL_THREADS;
        g->col_rows = FXI_GPU_U8_COL_OUTPUTS;
        g->col_grid_x = div_up(n, g->col_threads);
        g->col_tiles_y = div_up(rows, g->col_rows);
        g->col_grid_y = min64(g->col_tiles_y, max_grid_y);
        g->work_stride = (size_t)((n * 2 + 255) / 256 * 256);
        /* padding: the multiply-add columns pass reads rows up to the last tile's
         * r0 + col_rows + kh - 1 (outputs past the last row, never stored, and one load
         * its window never uses) without a clamp per load */
        g->work_rows = g->col_tiles_y * g->col_rows + kh;
        g->work_bytes = (size_t)g->work_rows * g->work_stride;
        g->grid_x = g->row_grid_x > g->col_grid_x ? g->row_grid_x : g->col_grid_x;
    } else if (layout == FXI_U8_BOX_SLIDE) {
        const int ept = FXI_GPU_U8_SLIDE_PIXELS * channels; /* elements a thread stages */
        /* the staged elements past the outputs: the window's reach, and up to 3 before the
         * first tap (the tile starts at a word) */
        const int64_t halo = (int64_t)(kw - 1) * channels + 3;
        /* a narrow row: the warps whose tile holds all its outputs (slide_out >= n) */
        const int64_t want = div_up(n, 4) * 4 + halo;
        g->tile_w = (int)min64(div_up(div_up(want, ept), 32) * 32, FXI_GPU_U8_SLIDE_THREADS);
        g->in_w = g->tile_w * ept;
        g->slide_out = (int)((g->in_w - halo) & ~(int64_t)3);
        if (g->slide_out < 4) {
            *why = "the box is too wide for the sliding tile";
            return false;
        }
        if (FXI_GPU_U8_SLIDE_EVEN) {
            /* the row's outputs shared evenly among the tiles it needs, and each tile the
             * warps its share needs: no last tile of a few outputs finishing early while
             * the full ones set the time */
            const int64_t share = div_up(div_up(n, div_up(n, g->slide_out)), 4) * 4;
            g->tile_w =
                (int)min64(div_up(div_up(share + halo, ept), 32) * 32, FXI_GPU_U8_SLIDE_THREADS);
            g->in_w = g->tile_w * ept;
            g->slide_out = (int)share;
        }
        /* the staged elements begin up to C - 1 into a pixel: one more pixel's worth */
        g->slide_pixels = g->in_w / channels + 1;
        const size_t bytes =
            ((size_t)SLIDE_PREFIX_GUARD + (size_t)g->in_w + SLIDE_PREFIX_TAIL +
             (size_t)(g->tile_w / 32) * SLIDE_WARP_TOTALS + (size_t)g->slide_pixels) *
            4u;
        if (bytes > shared_limit) {
            *why = "the sliding tile does not fit in shared memory";
            return false;
        }
        g->shared_bytes = bytes;
        g->tile_h = FXI_GPU_U8_SLIDE_ROWS;
        g->tiles_x = div_up(n, g->slide_out);
        g->tiles_y = div_up(rows, g->tile_h);
        g->grid_x = g->tiles_x;
        g->grid_y = min64(g->tiles_y, max_grid_y);
    } else {
        *why = "not an 8-bit fast-path layout";
        return false;
    }
    if (g->grid_x > max_grid_x) {
        *why = "the image is too wide for one grid";
        return false;
    }
    return true;
}
