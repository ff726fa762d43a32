/* What the CPU strategies share: walking the image in bands x tiles on the context's
 * threads, each worker with its own scratch. */
#include <stdlib.h>

#include "filter/cpu_common.h"

typedef struct block_walk {
    const fxi_filter_job *job;
    const fxi_cpu_state *state;
    fxi_block_fn fn;
    int64_t tiles_x, bands;
} block_walk;

static void walk_blocks(void *arg, size_t begin, size_t end, int worker)
{
    const block_walk *w = arg;
    const fxi_cpu_state *s = w->state;
    const int64_t W = w->job->src->width, H = w->job->src->height;
    uint8_t *scratch = s->scratch + (size_t)worker * s->worker_bytes;
    for (size_t item = begin; item < end; item++) {
        int64_t band = (int64_t)item / w->tiles_x, tile = (int64_t)item % w->tiles_x;
        fxi_block b;
        b.y0 = (int)(band * s->band_h);
        b.y1 = (int)(b.y0 + s->band_h < H ? b.y0 + s->band_h : H);
        b.x0 = tile * s->tile_w;
        b.x1 = b.x0 + s->tile_w < W ? b.x0 + s->tile_w : W;
        w->fn(w->job, s, &b, scratch);
        if (tile == 0) fxi_copy_unfiltered(w->job, b.y0, b.y1);
    }
}

fx_status fxi_walk_blocks(const fxi_filter_job *job, const fxi_cpu_state *s, fxi_block_fn fn)
{
    const int64_t W = job->src->width, H = job->src->height;
    block_walk w = {job, s, fn, (W + s->tile_w - 1) / s->tile_w, (H + s->band_h - 1) / s->band_h};
    const size_t blocks = (size_t)(w.tiles_x * w.bands);
    if (s->workers == 1) /* planned for the calling thread alone: the pool stays asleep */
        walk_blocks(&w, 0, blocks, 0);
    else
        fxi_parallel_for(job->ctx, blocks, 1, walk_blocks, &w);
    return FX_OK;
}

/* The workers for this much work: one when waking the pool would cost more than sharing
 * the work gains. */
static int workers_for(fx_context *ctx, int width, int height, int channels,
                       int64_t ops_per_output)
{
    const double work = (double)width * height * channels * (double)ops_per_output;
    return work < FXI_SERIAL_MAX_WORK ? 1 : fx_context_threads(ctx);
}

fx_status fxi_geometry(fx_context *ctx, const fxi_taps *t, int width, int height, int channels,
                       int min_band, int tile_max, size_t elem, size_t extra_bytes,
                       int64_t ops_per_output, fxi_cpu_state *s)
{
    int workers = workers_for(ctx, width, height, channels, ops_per_output);
    s->workers = workers;
    /* Tiles: wide enough to amortise the kernel's overhang (at least FXI_TILE_PER_TAP
     * columns per tap), narrow enough that the rows a block keeps stay near the cache. */
    int64_t per_column = (int64_t)t->kh * channels * (int64_t)elem;
    int64_t tile = FXI_RING_BUDGET / (per_column ? per_column : 1) - (t->kw - 1);
    if (tile > tile_max) tile = tile_max;
    if (tile < (int64_t)FXI_TILE_PER_TAP * t->kw) tile = (int64_t)FXI_TILE_PER_TAP * t->kw;
    if (tile < FXI_TILE_MIN) tile = FXI_TILE_MIN;
    if (tile > width) tile = width;
    s->tile_w = (int)tile;
    /* Bands: enough of them for every worker, each at least min_band rows; one worker
     * takes the image in one band (each band re-reads kh - 1 rows). */
    int64_t band = workers == 1 ? height : (height + 2 * workers - 1) / (2 * workers);
    if (band < min_band) band = min_band;
    if (band > height) band = height;
    if (band < 1) band = 1;
    s->band_h = (int)band;
    /* Scratch: `ring` padded rows + fixed, per worker. */
    size_t padded = (size_t)(tile + t->kw - 1) * (size_t)channels;
    size_t row = (size_t)tile * (size_t)channels;
    size_t elems;
    /* + 4 rows of slack, and the alignment of each part: on narrow images a part's
     * rounding up (under FXI_SCRATCH_ALIGN bytes) can be more than a row. */
    if (!fxi_mul_size(padded + row, (size_t)t->kh + 6, &elems) ||
        !fxi_mul_size(elems, elem, &s->worker_bytes) ||
        !fxi_add_size(s->worker_bytes, extra_bytes, &s->worker_bytes) ||
        !fxi_add_size(s->worker_bytes, FXI_SCRATCH_PARTS * FXI_SCRATCH_ALIGN, &s->worker_bytes))
        return fxi_error(ctx, FX_EOVERFLOW, "filter scratch size overflows");
    s->worker_bytes =
        (s->worker_bytes + FXI_SCRATCH_ALIGN - 1) / FXI_SCRATCH_ALIGN * FXI_SCRATCH_ALIGN;
    size_t total;
    if (!fxi_mul_size(s->worker_bytes, (size_t)workers, &total))
        return fxi_error(ctx, FX_EOVERFLOW, "filter scratch size overflows");
    void *p = NULL;
    if (posix_memalign(&p, FXI_SCRATCH_ALIGN, total ? total : FXI_SCRATCH_ALIGN))
        return fxi_error(ctx, FX_ENOMEM, "out of memory: %zu bytes of filter scratch", total);
    s->scratch = p;
    return FX_OK;
}
