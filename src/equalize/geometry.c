/* Geometry of equalization: OpenCV's CLAHE tile grid, the GPU launch shapes and the host
 * images' staging bands. Plain C with the device's limits as parameters, so the unit tests
 * cover it. */
#include <errno.h>
#include <stdlib.h>

#include "equalize_internal.h"

fx_status fxi_parse_tiles(fx_context *ctx, const char *text, int *tiles_x, int *tiles_y)
{
    char *end;
    errno = 0;
    long c = strtol(text, &end, 10);
    int ok = end != text && (*end == 'x' || *end == 'X') && !errno;
    long r = 0;
    if (ok) {
        const char *rest = end + 1;
        r = strtol(rest, &end, 10);
        ok = end != rest && !*end && !errno;
    }
    FXI_RETURN_IF(!ok, FX_EINVAL, "--tiles: '%s' is not COLUMNSxROWS (e.g. 8x8)", text);
    FXI_RETURN_IF(c < 1 || r < 1 || c > FXI_EQ_MAX_TILES || r > FXI_EQ_MAX_TILES, FX_ERANGE,
                 "--tiles: %ldx%ld is out of range (each side 1 to %d)", c, r, FXI_EQ_MAX_TILES);
    *tiles_x = (int)c;
    *tiles_y = (int)r;
    return FX_OK;
}

fx_status fxi_clahe_grid_make(fx_context *ctx, int width, int height, int tiles_x, int tiles_y,
                              fxi_clahe_grid *g)
{
    FXI_RETURN_IF(width < 1 || height < 1 || tiles_x < 1 || tiles_y < 1, FX_EINVAL,
                 "CLAHE: bad grid %dx%d for a %dx%d image", tiles_x, tiles_y, width, height);
    g->tiles_x = tiles_x;
    g->tiles_y = tiles_y;
    g->width = width;
    g->height = height;
    if (width % tiles_x == 0 && height % tiles_y == 0) {
        g->padded_w = width;
        g->padded_h = height;
    } else {
        /* Both axes padded, by a whole tile count on one that divided evenly. */
        g->padded_w = width + tiles_x - width % tiles_x;
        g->padded_h = height + tiles_y - height % tiles_y;
    }
    g->tile_w = g->padded_w / tiles_x;
    g->tile_h = g->padded_h / tiles_y;
    return FX_OK;
}

uint32_t fxi_clahe_clip_limit(double clip, uint32_t tile_area, uint32_t bins)
{
    if (!(clip > 0.0)) return 0;
    double limit = clip * tile_area / bins;
    if (limit >= (double)UINT32_MAX) return UINT32_MAX;
    return limit < 1.0 ? 1u : (uint32_t)limit;
}

fxi_eq_hist_launch fxi_eq_hist_geometry(int tile_h, int tiles, int block, int multiprocessors,
                                        int blocks_per_sm)
{
    fxi_eq_hist_launch l;
    l.threads = (unsigned)block;
    l.tiles = (unsigned)tiles;
    /* Blocks wanted in all, spread over the tiles; each covers whole rows. */
    long wanted = (long)multiprocessors * blocks_per_sm;
    long per_tile = (wanted + tiles - 1) / tiles;
    if (per_tile < 1) per_tile = 1;
    if (per_tile > tile_h) per_tile = tile_h;
    l.rows_per_block = (unsigned)((tile_h + per_tile - 1) / per_tile);
    l.slices = (unsigned)((tile_h + (long)l.rows_per_block - 1) / (long)l.rows_per_block);
    return l;
}

unsigned fxi_eq_scan_threads(uint32_t bins, int block)
{
    unsigned t = FXI_WARP_THREADS;
    while (t < bins && t * 2 <= (unsigned)block)
        t *= 2;
    return t;
}

static unsigned div_up_u(size_t a, size_t b)
{
    return (unsigned)((a + b - 1) / b);
}

void fxi_eq_row_grid(size_t units, int height, unsigned block, unsigned max_blocks, unsigned *gx,
                     unsigned *gy)
{
    const unsigned cap = max_blocks ? max_blocks : 1;
    unsigned x = div_up_u(units ? units : 1, block ? block : 1);
    x = x < cap ? x : cap;
    unsigned y = div_up_u(cap, x);
    if (y > (unsigned)height) y = (unsigned)height;
    if (y > FXI_EQ_MAX_GRID_Y) y = FXI_EQ_MAX_GRID_Y;
    *gx = x;
    *gy = y > 0 ? y : 1;
}

unsigned fxi_eq_fast_blocks(unsigned block, int multiprocessors)
{
    const unsigned per_sm =
        block && FXI_EQ_FAST_THREADS_PER_SM / block ? FXI_EQ_FAST_THREADS_PER_SM / block : 1;
    return (unsigned)(multiprocessors > 0 ? multiprocessors : 1) * per_sm;
}

unsigned fxi_eq_fast_grid(size_t items, unsigned block, int multiprocessors)
{
    const unsigned cap = fxi_eq_fast_blocks(block, multiprocessors);
    const size_t need = (items + (block ? block : 1) - 1) / (block ? block : 1);
    if (need < 1) return 1;
    return need < cap ? (unsigned)need : cap;
}

unsigned fxi_eq_fused_grid(size_t items, unsigned block, int multiprocessors, int resident)
{
    if (resident < 1 || block == 0) return 0;
    unsigned per_sm = FXI_EQ_GPU_FUSED_THREADS_PER_SM / block;
    if (per_sm < 1) per_sm = 1;
    if ((unsigned)resident < per_sm) per_sm = (unsigned)resident;
    const size_t cap = (size_t)(multiprocessors > 0 ? multiprocessors : 1) * per_sm;
    const size_t need = (items + block - 1) / block;
    if (need < 1) return 1;
    return (unsigned)(need < cap ? need : cap);
}

fxi_eq_hist_launch fxi_eq_fast_hist_geometry(int tile_h, int tiles, unsigned block,
                                             int multiprocessors, int resident)
{
    unsigned per_sm =
        block && FXI_EQ_FAST_THREADS_PER_SM / block ? FXI_EQ_FAST_THREADS_PER_SM / block : 1;
    if (resident > 0 && (unsigned)resident < per_sm) per_sm = (unsigned)resident;
    fxi_eq_hist_launch l;
    l.threads = block;
    l.tiles = (unsigned)(tiles > 0 ? tiles : 1);
    l.rows_per_block = 0;
    /* the places of one wave, shared out among the tiles (rounded down) */
    long slices = (long)(multiprocessors > 0 ? multiprocessors : 1) * (long)per_sm / (long)l.tiles;
    if (slices > tile_h) slices = tile_h;
    if (slices > FXI_EQ_MAX_GRID_Y) slices = FXI_EQ_MAX_GRID_Y;
    l.slices = (unsigned)(slices > 0 ? slices : 1);
    return l;
}

int fxi_eq_clahe_luts_fit(int tiles, size_t shared_bytes)
{
    return tiles >= 1 && (size_t)tiles <= shared_bytes / FXI_EQ_U8_LEVELS;
}

int fxi_eq_band_rows(size_t row_bytes, size_t band_bytes, int height)
{
    const size_t fit = row_bytes ? band_bytes / row_bytes : (size_t)height;
    if (fit < 1) return 1;
    return fit < (size_t)height ? (int)fit : height;
}

int fxi_eq_band_height(int y0, int band_rows, int height)
{
    return height - y0 < band_rows ? height - y0 : band_rows;
}
