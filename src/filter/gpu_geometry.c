/* Geometry of the GPU filter (see gpu_geometry.h): plain C, no CUDA. */
#include "filter/gpu_geometry.h"
#include "filter/band.h"

static int64_t div_up(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

bool fxi_gpu_block_valid(int block)
{
    return block == 0 || block == 8 || block == 16 || block == 32;
}

int64_t fxi_gpu_row_elements(const fxi_gpu_shape *s)
{
    return s->width * s->channels;
}

size_t fxi_gpu_in_row_bytes(const fxi_gpu_shape *s)
{
    return (size_t)fxi_gpu_row_elements(s) * (size_t)s->in_sample;
}

size_t fxi_gpu_out_row_bytes(const fxi_gpu_shape *s)
{
    return (size_t)fxi_gpu_row_elements(s) * (size_t)s->out_sample;
}

size_t fxi_gpu_taps_bytes(const fxi_gpu_shape *s)
{
    return (size_t)s->kw * (size_t)s->kh * (size_t)s->acc_size;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The ring layouts (see gpu_geometry.h); false when their shared memory does not fit. */
static bool separable_ring(const fxi_gpu_shape *s, const fxi_gpu_limits *lim, fxi_gpu_launch *g)
{
    const int64_t in_width = FXI_GPU_RING_THREADS + (int64_t)(s->kw - 1) * s->channels;
    const int64_t ring_rows = s->kh - 1 + FXI_GPU_RING_CHUNK_ROWS;
    /* the ring, the staged rows and the two factors */
    const uint64_t bytes = (uint64_t)(ring_rows * FXI_GPU_RING_THREADS +
                                      FXI_GPU_RING_CHUNK_ROWS * in_width + s->kw + s->kh) *
                           (uint64_t)s->acc_size;
    if (bytes > lim->shared_bytes) return false;
    g->ring = 1;
    g->block_x = FXI_GPU_RING_THREADS;
    g->block_y = 1;
    g->tile_w = FXI_GPU_RING_THREADS;
    g->tile_h = (int)max64(FXI_GPU_RING_MIN_TILE_ROWS, 2 * (int64_t)(s->kh - 1));
    g->rows_per_thread = g->tile_h;
    g->chunk_rows = FXI_GPU_RING_CHUNK_ROWS;
    g->ring_rows = (int)ring_rows;
    g->in_width = (int)in_width;
    g->shared_bytes = (size_t)bytes;
    return true;
}

static bool box_ring(const fxi_gpu_shape *s, const fxi_gpu_limits *lim, fxi_gpu_launch *g)
{
    if (s->kw > FXI_GPU_RING_BOX_MAX_KW) return false;
    const int groups = FXI_GPU_RING_THREADS / s->channels;
    const int segment =
        (int)clamp64(s->kw / 4, FXI_GPU_RING_BOX_MIN_SEGMENT, FXI_GPU_RING_BOX_MAX_SEGMENT);
    const int64_t pixels = (int64_t)groups * segment;
    const uint64_t padded = (uint64_t)(pixels + s->kw - 1) * (uint64_t)s->channels;
    const uint64_t sum_size = 8; /* int32, int64, or double for float kernels: the largest */
    const uint64_t bytes = padded * sum_size + (uint64_t)pixels * s->channels * s->out_sample;
    if (bytes > lim->shared_bytes) return false;
    g->ring = 1;
    g->block_x = FXI_GPU_RING_THREADS;
    g->block_y = 1;
    g->box_groups = groups;
    g->box_segment = segment;
    g->tile_w = (int)pixels;
    g->tile_h = (int)max64(FXI_GPU_RING_BOX_MIN_TILE_ROWS, s->kh / 2);
    g->rows_per_thread = g->tile_h;
    g->in_width = (int)padded;
    g->shared_bytes = (size_t)bytes;
    return true;
}

static void set_grid(fxi_gpu_launch *g, int64_t n, int64_t rows, const fxi_gpu_limits *lim)
{
    g->tiles_x = div_up(n, g->tile_w);
    g->tiles_y = div_up(rows, g->tile_h);
    g->grid_x = g->tiles_x;
    g->grid_y = min64(g->tiles_y, lim->max_grid_y);
}

bool fxi_gpu_launch_geometry(int kernel, int block, const fxi_gpu_shape *s, int64_t rows,
                             const fxi_gpu_limits *lim, fxi_gpu_launch *g, const char **why)
{
    *why = NULL;
    *g = (fxi_gpu_launch){0};
    g->kernel = kernel;
    g->rows_per_thread = 1;
    const int64_t n = fxi_gpu_row_elements(s);
    if (!fxi_gpu_block_valid(block)) {
        *why = "--gpu-block must be 8, 16 or 32";
        return false;
    }
    if (rows < 1 || n < 1) {
        *why = "empty image";
        return false;
    }
    const int b = block ? block : FXI_GPU_BLOCK_DEFAULT;
    switch (kernel) {
    case FXI_GK_CONSTANT:
        if (fxi_gpu_taps_bytes(s) > lim->constant_bytes) {
            *why = "the kernel's taps do not fit in constant memory (use gpu-global or direct)";
            return false;
        }
        /* fall through */
    case FXI_GK_GLOBAL:
    case FXI_GK_TEXTURE: g->block_x = g->block_y = g->tile_w = g->tile_h = b; break;
    case FXI_GK_SHARED: {
        g->block_x = g->block_y = g->tile_w = g->tile_h = b;
        /* the tile's input: b + (kw - 1) * C elements by b + chunk - 1 rows */
        const size_t width =
            ((size_t)b + (size_t)(s->kw - 1) * (size_t)s->channels) * (size_t)s->acc_size;
        if (width > lim->shared_bytes || lim->shared_bytes / width < (size_t)b) {
            *why = "one kernel row of the tile does not fit in shared memory (use direct)";
            return false;
        }
        int64_t chunk = (int64_t)(lim->shared_bytes / width) - (b - 1);
        g->chunk_rows = (int)min64(chunk, s->kh);
        g->shared_bytes = width * (size_t)(b + g->chunk_rows - 1);
        break;
    }
    case FXI_GK_DIRECT:
        g->block_x = FXI_GPU_DIRECT_BLOCK_X;
        g->block_y = FXI_GPU_DIRECT_BLOCK_Y;
        g->rows_per_thread = FXI_GPU_DIRECT_ROWS_PER_THREAD;
        g->tile_w = FXI_GPU_DIRECT_BLOCK_X;
        g->tile_h = FXI_GPU_DIRECT_BLOCK_Y * FXI_GPU_DIRECT_ROWS_PER_THREAD;
        break;
    case FXI_GK_SEPARABLE: {
        if (separable_ring(s, lim, g)) break;
        g->block_x = FXI_GPU_SEPARABLE_BLOCK_X;
        g->block_y = FXI_GPU_SEPARABLE_BLOCK_Y;
        g->rows_per_thread = FXI_GPU_SEPARABLE_ROWS_PER_THREAD;
        g->tile_w = FXI_GPU_SEPARABLE_BLOCK_X;
        g->tile_h = FXI_GPU_SEPARABLE_BLOCK_Y * FXI_GPU_SEPARABLE_ROWS_PER_THREAD;
        const size_t row = (size_t)g->tile_w * (size_t)s->acc_size;
        if (row > lim->shared_bytes) {
            *why = "no shared memory for the separable row pass";
            return false;
        }
        int64_t chunk = (int64_t)(lim->shared_bytes / row);
        g->chunk_rows = (int)min64(chunk, (int64_t)g->tile_h + s->kh - 1);
        g->shared_bytes = row * (size_t)g->chunk_rows;
        break;
    }
    case FXI_GK_BOX: {
        if (box_ring(s, lim, g)) break;
        g->block_x = FXI_GPU_BOX_THREADS;
        g->block_y = 1;
        g->tile_w = FXI_GPU_BOX_THREADS;
        g->box_strip = (int)max64(FXI_GPU_BOX_MIN_STRIP, (int64_t)FXI_GPU_BOX_PER_TAP * s->kh);
        g->tile_h = g->box_strip;
        g->box_segment = (int)max64(FXI_GPU_BOX_MIN_SEGMENT, (int64_t)FXI_GPU_BOX_PER_TAP * s->kw);
        g->box_items = rows * s->channels * div_up(s->width, g->box_segment);
        g->box_grid_x = min64(div_up(g->box_items, FXI_GPU_BOX_THREADS), lim->max_grid_x);
        break;
    }
    default: *why = "unknown GPU kernel"; return false;
    }
    set_grid(g, n, rows, lim);
    if (kernel == FXI_GK_BOX && g->ring) { /* tiles of tile_w pixels */
        g->tiles_x = div_up(s->width, g->tile_w);
        g->grid_x = g->tiles_x;
    } else if (kernel == FXI_GK_BOX) { /* the column pass covers the padded row */
        g->tiles_x = div_up(n + (int64_t)(s->kw - 1) * s->channels, g->tile_w);
        g->grid_x = g->tiles_x;
    }
    if (g->grid_x > lim->max_grid_x) {
        *why = "the image is too wide for one grid";
        return false;
    }
    return true;
}

/* ---- bands ---- */

bool fxi_gpu_plan_bands(const fxi_gpu_shape *s, size_t work_per_row, int64_t max_vrows,
                        int64_t row_multiple, const fxi_gpu_limits *lim, fxi_gpu_bands *out,
                        const char **why)
{
    *why = NULL;
    *out = (fxi_gpu_bands){0};
    const uint64_t in_row = fxi_gpu_in_row_bytes(s), out_row = fxi_gpu_out_row_bytes(s);
    const uint64_t halo = (uint64_t)(s->kh - 1);
    const uint64_t per_row = in_row + out_row + work_per_row;
    if (max_vrows > 0 && (uint64_t)max_vrows < halo + 1) {
        *why = "the kernel is taller than the rows one band may hold";
        return false;
    }
    /* Target: about FXI_GPU_BAND_TARGET_BYTES of input, at least 4 halos tall. */
    int64_t h = (int64_t)(FXI_GPU_BAND_TARGET_BYTES / (in_row ? in_row : 1));
    h = max64(h, 4 * (int64_t)halo);
    h = max64(h, 1);
    h = min64(h, s->height);
    if (max_vrows > 0) h = min64(h, max_vrows - (int64_t)halo);
    int streams = lim->max_streams < 1 ? 1 : lim->max_streams;
    if (streams > FXI_GPU_MAX_STREAMS) streams = FXI_GPU_MAX_STREAMS;
    for (;;) {
        uint64_t slot = lim->memory_budget / (uint64_t)streams;
        if (slot >= halo * in_row + per_row) {
            uint64_t fit = (slot - halo * in_row) / per_row;
            if ((uint64_t)h > fit) h = (int64_t)fit;
            break;
        }
        if (streams == 1) {
            *why = "not even one row per band fits in the GPU memory allowed";
            return false;
        }
        streams--;
    }
    if (row_multiple > 1 && h > row_multiple && h < s->height) h -= h % row_multiple;
    out->band_h = h;
    out->count = div_up(s->height, h);
    out->streams = (int)min64(streams, out->count);
    out->in_bytes = (size_t)((uint64_t)(h + (int64_t)halo) * in_row);
    out->out_bytes = (size_t)((uint64_t)h * out_row);
    out->work_bytes = (size_t)((uint64_t)h * work_per_row);
    return true;
}

fxi_gpu_band fxi_gpu_band_at(const fxi_gpu_bands *bands, const fxi_gpu_shape *s, int64_t b)
{
    /* virtual rows: the band is packed with the border rule resolved (gpu_plan_cuda.c) */
    const fxi_band band = fxi_band_at(b, bands->band_h, s->height, s->ay, s->kh - 1 - s->ay, false);
    fxi_gpu_band r;
    r.y0 = band.out_begin;
    r.y1 = band.out_end;
    r.v0 = band.in_begin;
    r.vrows = band.in_end - band.in_begin;
    return r;
}
