/* Equalization internals shared by src/equalize/ and src/equalize/gpu_*.
 *
 * Flow: plan.c resolves the options against an image shape into an fx_equalize_plan
 * (mode, bins, CLAHE grid, mask) and allocates; run dispatches to the CPU path
 * (histogram.c, lut.c, apply.c, clahe.c) or to the GPU (src/equalize/gpu_cuda.c).
 * Per-pixel and per-bin arithmetic is in equalize_math.h, geometry in geometry.c.
 */
#ifndef FXKIT_EQUALIZE_INTERNAL_H
#define FXKIT_EQUALIZE_INTERNAL_H

#include "core/device_cost.h"
#include "core/internal.h"
#include "equalize_math.h"
#include "equalize_tuning.h"
#include "fxkit/equalize.h"

/* Key planes: three histograms for --space rgb, one otherwise. */
#define FXI_EQ_MAX_PLANES 3
#define FXI_EQ_MAX_BINS 65536
#define FXI_EQ_MIN_BINS 2
/* Default bins of 16-bit images: 16 levels per bin. */
#define FXI_EQ_DEFAULT_BINS_U16 4096
/* A warp: the smallest GPU block. */
#define FXI_WARP_THREADS 32
/* The largest GPU block --gpu-block accepts; the kernels are compiled for it
 * (__launch_bounds__: at most 64 registers a thread). */
#define FXI_EQ_GPU_MAX_BLOCK 1024
#define FXI_EQ_U8_LEVELS 256
/* Most tiles along one side of the CLAHE grid. */
#define FXI_EQ_MAX_TILES 256

/* ---- geometry (geometry.c): plain C, unit-tested ---- */

/* OpenCV's CLAHE grid: when the image does not split evenly, it is padded right and
 * bottom (reflect-101) by tiles - size % tiles on both axes, a whole extra tile's
 * worth on an axis that did divide (OpenCV's quirk, kept for exactness). */
typedef struct fxi_clahe_grid {
    int tiles_x, tiles_y;
    int tile_w, tile_h;     /* in padded pixels */
    int width, height;      /* the image */
    int padded_w, padded_h; /* tiles * tile size */
} fxi_clahe_grid;

fx_status fxi_clahe_grid_make(fx_context *ctx, int width, int height, int tiles_x, int tiles_y,
                              fxi_clahe_grid *grid);
/* OpenCV: max(1, (int)(clip * area / bins)); 0 (no clipping) when clip <= 0. */
uint32_t fxi_clahe_clip_limit(double clip, uint32_t tile_area, uint32_t bins);
/* "CxR" with 1 <= C, R <= FXI_EQ_MAX_TILES. */
fx_status fxi_parse_tiles(fx_context *ctx, const char *text, int *tiles_x, int *tiles_y);

/* Launch geometry of the histogram pass: per tile (CLAHE) or for the whole image (one
 * tile), slices of `rows_per_block` rows, enough blocks to fill the GPU. */
typedef struct fxi_eq_hist_launch {
    unsigned threads;        /* per block */
    unsigned slices;         /* blocks per tile (grid y) */
    unsigned tiles;          /* grid x */
    unsigned rows_per_block; /* rows of the tile one block covers (0: the fast pass's equal
                              * slices of thread steps, fxi_eq_fast_hist_geometry) */
} fxi_eq_hist_launch;

fxi_eq_hist_launch fxi_eq_hist_geometry(int tile_h, int tiles, int block, int multiprocessors,
                                        int blocks_per_sm);
/* Threads of the block-wide scan (one block per tile and plane): a power of two
 * from a warp up, no more than needed for the bins, at most `block` (when block is
 * at least a warp). */
unsigned fxi_eq_scan_threads(uint32_t bins, int block);

/* Grid limit of the y dimension. */
#define FXI_EQ_MAX_GRID_Y 65535u
/* Grid of a pass over `height` rows of `units` thread steps each (pixels, or the fast
 * passes' groups) with `block` threads a block and at most max_blocks blocks: as many
 * blocks along a row as it needs, up to that, and as many grid rows as the rest allow
 * (within the image and the grid's y limit); the kernels stride over the steps and
 * rows that the grid does not cover at once. */
void fxi_eq_row_grid(size_t units, int height, unsigned block, unsigned max_blocks, unsigned *gx,
                     unsigned *gy);
/* Blocks that fill the GPU for the fast passes. */
unsigned fxi_eq_fast_blocks(unsigned block, int multiprocessors);

/* The 8-bit fast GPU passes (gpu_kernels.cu) step over a row segment in groups of
 * FXI_EQ_VECTOR_PIXELS pixels that start at 16-byte aligned addresses, so that a group
 * is one 16-byte load of gray or three of RGB; the segment's first pixels up to the
 * first aligned one (at most 15) are one more group, done pixel by pixel, and so is a
 * short last group. Not a tuning knob: the kernels' vector loads assume it. */
#define FXI_EQ_VECTOR_PIXELS 16
/* Thread steps ("units") a segment of `pixels` pixels needs at most, whatever its
 * alignment: the head group and the 16-pixel groups after it (0 for no pixels).
 * Inline: the kernels compute it per CLAHE tile. */
static FX_HD inline unsigned fxi_eq_fast_units(int pixels)
{
    if (pixels < 1) return 0;
    return 1u + (unsigned)((pixels + FXI_EQ_VECTOR_PIXELS - 1) / FXI_EQ_VECTOR_PIXELS);
}
/* Pixels of `channels` bytes (1 or 3) before the first one that starts on a 16-byte
 * boundary, for a segment at `address`: the misalignment m in bytes, times 3's
 * inverse modulo 16 (11) for three channels. */
static FX_HD inline int fxi_eq_head_pixels(uintptr_t address, int channels)
{
    const unsigned m = (unsigned)(0u - address) & 15u;
    return (int)(channels == 1 ? m : (m * 11u) & 15u);
}

/* Group `unit` (0 .. fxi_eq_fast_units(pixels) - 1) of a segment of `pixels` pixels at
 * `address`: its first pixel, its pixel count (<= 0: nothing to do) and whether it is
 * a whole 16-pixel group on a 16-byte boundary (loaded as vectors). Group 0 is the
 * head, pixel by pixel; the groups after it cover the rest, the last maybe short. */
typedef struct fxi_eq_group {
    int x0, n, vector;
} fxi_eq_group;

static FX_HD inline fxi_eq_group fxi_eq_group_of(uintptr_t address, int channels, int pixels,
                                                 unsigned unit)
{
    int head = fxi_eq_head_pixels(address, channels);
    fxi_eq_group g;
    if (head > pixels) head = pixels;
    if (unit == 0) {
        g.x0 = 0;
        g.n = head;
        g.vector = 0;
        return g;
    }
    g.x0 = head + (int)(unit - 1) * FXI_EQ_VECTOR_PIXELS;
    g.n = pixels - g.x0 < FXI_EQ_VECTOR_PIXELS ? pixels - g.x0 : FXI_EQ_VECTOR_PIXELS;
    g.vector = g.n == FXI_EQ_VECTOR_PIXELS;
    return g;
}

/* A thread's steps i, i + S, i + 2S, ... over rows of `units` steps, as row and unit:
 * one division where the walk starts, then whole rows and units on a step (the GPU's
 * fused equalization, where a division a step measured 2 us slower on the H200,
 * r137-r138). rows_on * units + units_on == S. */
typedef struct fxi_eq_walk {
    unsigned row, unit, units, rows_on, units_on;
} fxi_eq_walk;

static FX_HD inline fxi_eq_walk fxi_eq_walk_at(size_t i, size_t stride, unsigned units)
{
    fxi_eq_walk w;
    w.units = units;
    w.row = (unsigned)(i / units);
    w.unit = (unsigned)(i % units);
    w.rows_on = (unsigned)(stride / units);
    w.units_on = (unsigned)(stride % units);
    return w;
}

static FX_HD inline void fxi_eq_walk_on(fxi_eq_walk *w)
{
    w->row += w->rows_on;
    w->unit += w->units_on;
    if (w->unit >= w->units) {
        w->unit -= w->units;
        w->row++;
    }
}

/* The fused equalization's units of work (gpu_kernels.cu's deal_units): unit u of
 * `steps` steps a thread is the image's steps u * steps * block ... + steps * block - 1,
 * thread x of the block taking x, x + block, ..., the last unit cut at `items`. */
static FX_HD inline unsigned fxi_eq_deal_units(size_t items, unsigned steps, unsigned block)
{
    const size_t unit = (size_t)steps * block;
    return (unsigned)((items + unit - 1) / unit);
}

/* Thread x's steps in unit u: how many (0 past the image's end), the first at *first. */
static FX_HD inline unsigned fxi_eq_unit_steps(size_t items, unsigned u, unsigned steps,
                                               unsigned block, unsigned x, size_t *first)
{
    const size_t i0 = (size_t)u * steps * block + x;
    *first = i0;
    if (i0 >= items) return 0;
    const size_t n = (items - 1 - i0) / block + 1;
    return n < steps ? (unsigned)n : steps;
}

/* Launch of a fast pass: blocks of a 1-D grid that strides over `items` thread steps
 * (rows x units): enough to fill the GPU (fxi_eq_fast_blocks), no more than the
 * items need, at least one. */
unsigned fxi_eq_fast_grid(size_t items, unsigned block, int multiprocessors);
/* Launch of the fused global pass (one launch, every block resident at once): as many
 * blocks an SM as `resident` (the kernel's occupancy) allows, at most
 * FXI_EQ_GPU_FUSED_THREADS_PER_SM threads an SM, no more than the items need; 0 where
 * not one block fits (resident < 1). */
unsigned fxi_eq_fused_grid(size_t items, unsigned block, int multiprocessors, int resident);
/* Launch of the fast counting pass: per tile (CLAHE) or for the whole image or band
 * (one tile), `slices` blocks a tile, each an equal share of the tile's thread steps
 * (fxi_eq_slice_steps; rows_per_block is 0: no block covers whole rows), at most the
 * fast passes' blocks an SM in all, or `resident` an SM where fewer fit at once (the
 * kernel's occupancy; 0: unknown), and at most a slice a row. The grid is then at most
 * one wave, never a wave and a bit, and its blocks' work is equal, so no SM waits on
 * another that holds one block more (r37: 750 blocks of 8 rows on 792 places, the SMs
 * with six blocks up to 23% longer than the average). Tiles are the grid's x (up to
 * 65536 of them), slices its y. */
fxi_eq_hist_launch fxi_eq_fast_hist_geometry(int tile_h, int tiles, unsigned block,
                                             int multiprocessors, int resident);
/* Slice `slice` of `slices` of a tile's `steps` thread steps (rows x units in row order):
 * [*begin, *end), the first steps % slices slices one step longer. */
static FX_HD inline void fxi_eq_slice_steps(uint64_t steps, unsigned slices, unsigned slice,
                                            uint64_t *begin, uint64_t *end)
{
    const uint64_t share = steps / slices, longer = steps % slices;
    *begin = share * slice + (slice < longer ? slice : longer);
    *end = *begin + share + (slice < longer ? 1 : 0);
}
/* Whether the fast 8-bit CLAHE mapping may keep all `tiles` LUTs (256 bytes each) in
 * `shared_bytes` of shared memory. */
int fxi_eq_clahe_luts_fit(int tiles, size_t shared_bytes);

/* Host images on a GPU context cross in row bands through pinned staging buffers of
 * band_bytes: the rows of one band (as many rows of row_bytes as fit, at least one,
 * at most the image's height), and the rows of the band that starts at row y0 (the
 * last band may be shorter). */
int fxi_eq_band_rows(size_t row_bytes, size_t band_bytes, int height);
int fxi_eq_band_height(int y0, int band_rows, int height);

/* ---- the plan ---- */

typedef struct fxi_eq_gpu fxi_eq_gpu;

struct fx_equalize_plan {
    fx_context *ctx;
    int mode; /* fxi_eq_mode */
    int width, height, in_channels, out_channels;
    fx_sample_type type;
    uint32_t maxval;     /* 255 or 65535 */
    uint32_t level_bits; /* 8 or 16: levels = 1 << level_bits */
    uint32_t bins;
    int planes; /* histograms: 3 for rgb, else 1 */
    int scale;  /* fx_equalize_scale, MAS folded into MAX */
    int adaptive;
    fxi_clahe_grid grid; /* adaptive: the tile grid; global: one tile, the image */
    uint32_t clip_limit; /* adaptive; 0 = none */
    int gpu_block;
    uint8_t *mask; /* width * height bytes, 1 = counts; NULL = every pixel */
    uint64_t pixels;

    /* CPU work buffers */
    uint32_t *hist;      /* planes * tiles * bins (adaptive) or planes * bins */
    uint32_t *hist_work; /* per-thread histograms: threads * planes * bins */
    int hist_workers;
    uint16_t *bin_lut;      /* planes * tiles * bins: output level per bin */
    uint16_t *value_lut;    /* global: planes * levels: output level per key */
    float *float_lut;       /* hsv-float global: bins */
    uint8_t *hsv_table;     /* 8-bit hsv global: 256 x 256 (V, c) -> channel */
    fxi_clahe_axis *x_axis; /* adaptive: per column */
    /* CLAHE 8-bit gray fast path (clahe_u8.c): float tile LUTs, and per column
     * the two tiles' LUT offsets and weights, for vector loads and gathers */
    float *tile_lutf;
    int32_t *x_index1, *x_index2;
    float *x_weight, *x_weight1;
    /* 8-bit global, one plane: value_lut as bytes, 32-bit ints and floats for the
     * fast paths' lookups and gathers (fast_u8.c) */
    uint8_t lut8[FXI_EQ_U8_LEVELS];
    int32_t lut32[FXI_EQ_U8_LEVELS];
    float lutf[FXI_EQ_U8_LEVELS];
    fxi_eq_gpu *gpu; /* device side, NULL on the CPU */
    bool cpu_ready;  /* the CPU work buffers are allocated */
    fxi_device_estimate device; /* where it runs and why (core/device_cost.h) */
    char explain[200];
};

/* The pixel's channels as integers. */
static inline void fxi_eq_load_pixel(const uint8_t *row, int x, int channels, fx_sample_type type,
                                     uint32_t *px)
{
    if (type == FX_U8) {
        const uint8_t *p = row + (size_t)x * (size_t)channels;
        for (int c = 0; c < channels && c < FX_MAX_IMAGE_CHANNELS; c++)
            px[c] = p[c];
    } else {
        const uint16_t *p = (const uint16_t *)(const void *)row + (size_t)x * (size_t)channels;
        for (int c = 0; c < channels && c < FX_MAX_IMAGE_CHANNELS; c++)
            px[c] = p[c];
    }
}

static inline void fxi_eq_store_pixel(uint8_t *row, int x, int channels, fx_sample_type type,
                                      const uint32_t *px)
{
    if (type == FX_U8) {
        uint8_t *p = row + (size_t)x * (size_t)channels;
        for (int c = 0; c < channels && c < FX_MAX_IMAGE_CHANNELS; c++)
            p[c] = (uint8_t)px[c];
    } else {
        uint16_t *p = (uint16_t *)(void *)row + (size_t)x * (size_t)channels;
        for (int c = 0; c < channels && c < FX_MAX_IMAGE_CHANNELS; c++)
            p[c] = (uint16_t)px[c];
    }
}

/* ---- mask.c ---- */

/* opts->mask_image or the file opts->mask, checked against the image size, as one
 * byte per pixel (1 = counts); *out = NULL without a mask. */
fx_status fxi_eq_load_mask(fx_context *ctx, const fx_equalize_options *opts, int width, int height,
                           uint8_t **out);

/* ---- LUTs (lut.c): from a histogram to output levels; the GPU's LUT kernel
 * computes the same with the same equalize_math.h functions ---- */

/* Global: bin LUT (bins levels) of one histogram; *identity = 1 when the image must
 * be returned unchanged (minmax: one non-empty bin; mms: everything in bin 0). */
void fxi_eq_global_lut(const uint32_t *hist, uint32_t bins, uint32_t maxval, int scale,
                       uint16_t *lut, int *identity);
/* hsv-float: V' per bin, the published float CDF; *identity as above. */
void fxi_eq_float_lut(const uint32_t *hist, uint32_t bins, int scale, float *lut, int *identity);
/* CLAHE tile: clip (limit 0 = none), redistribute, LUT. hist is modified. */
void fxi_eq_tile_lut(uint32_t *hist, uint32_t bins, uint32_t limit, uint32_t area, uint32_t maxval,
                     uint16_t *lut);

/* ---- 8-bit fast paths (fast_u8.c): 256 bins, gray (1 channel), hsv, luma (3) ---- */

/* Whether the mapping pass and the counting pass run fast: equalize_math.h's
 * fxi_eq_u8_fast_path, the rule the GPU applies too (mapping: 8-bit, a global LUT;
 * counting also 256 bins, so that a key is its bin, and no mask). */
int fxi_eq_u8_fast_map(const fx_equalize_plan *plan);
int fxi_eq_u8_fast(const fx_equalize_plan *plan);
/* lut8/lut32/lutf from value_lut. */
void fxi_eq_u8_tables(fx_equalize_plan *plan);
/* `width` gray samples counted into `sub` (width <= 0: none). */
void fxi_eq_u8_count_gray(const uint8_t *row, int width,
                          uint32_t sub[FXI_EQ_SUB_HISTS][FXI_EQ_U8_LEVELS]);
/* Keys of one row counted into `sub` (no mask). */
void fxi_eq_u8_count_row(const fx_equalize_plan *plan, const uint8_t *row,
                         uint32_t sub[FXI_EQ_SUB_HISTS][FXI_EQ_U8_LEVELS]);
/* One row mapped with lut8/lut32/lutf; out may be in. */
void fxi_eq_u8_map_row(const fx_equalize_plan *plan, const uint8_t *in, uint8_t *out);

/* ---- CLAHE 8-bit gray fast path (clahe_u8.c): 256 bins, one channel ---- */

int fxi_eq_clahe_u8_fast(const fx_equalize_plan *plan);
/* Histogram of tile (tx, ty) of the padded image into hist (256 bins). */
void fxi_eq_clahe_u8_tile_hist(const fx_equalize_plan *plan, const fx_image *in, int tx, int ty,
                               uint32_t *hist);
/* x_index1/2 and x_weight/x_weight1 from x_axis. */
void fxi_eq_clahe_u8_columns(fx_equalize_plan *plan);
/* One row of the interpolation; ys is the row's position between tile centres. */
void fxi_eq_clahe_u8_row(const fx_equalize_plan *plan, const uint8_t *in, uint8_t *out,
                         fxi_clahe_axis ys);

/* GPU seam: equalize/equalize_gpu.h. */

/* ---- CPU passes ---- */

/* Histograms of the key planes over the (masked) image into plan->hist. */
void fxi_eq_cpu_histogram(fx_equalize_plan *plan, const fx_image *in);
/* Global: LUTs from plan->hist, then the mapping pass. */
void fxi_eq_cpu_global(fx_equalize_plan *plan, const fx_image *in, fx_image *out);
/* CLAHE: tile LUTs, then the interpolation pass. */
void fxi_eq_cpu_clahe(fx_equalize_plan *plan, const fx_image *in, fx_image *out);

#endif
