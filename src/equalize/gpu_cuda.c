/* Equalization on the context's GPU: the plan's device buffers and the run.
 *
 * Device images are equalized where they are: the work is queued on the context's
 * stream and the call returns (fxkit.h's equalize.h states the contract). Host
 * images go through the context's reusable device buffers in row bands: the CPU's
 * threads pack a band into one of FXI_EQ_STAGE_SLOTS pinned staging buffers (from the
 * context's pinned pool; the sizes are in equalize_tuning.h) while the bands before it
 * are copying on their own streams, so packing and PCIe transfers overlap (pageable
 * copies would go at a fraction of the bus speed), then the bands come down the same
 * way. The LUTs need every pixel's count, so the transfers can
 * hide only the passes over pixels:
 * - 8-bit fast path (fxi_equalize_fast_path_gpu): each band is counted on its staging
 *   stream right after its upload, and mapped on its stream right before its
 *   download; only the LUT pass runs between the two transfers, on the context's
 *   stream, joined to the staging streams by events. Timings: upload_ms until every
 *   band is up and counted, compute_ms the LUT pass, download_ms the mapping and the
 *   way down.
 * - everything else: the whole equalization runs on the context's stream once the
 *   whole image is up (upload_ms), is waited for (compute_ms), then the bands come
 *   down (download_ms).
 * The kernels are in equalize.cu. */
#include <stdlib.h>
#include <string.h>

#include "equalize/equalize_gpu.h"
#include "equalize/gpu_kernels.h"

struct fxi_eq_gpu {
    uint32_t *hist;
    uint16_t *bin_lut;
    uint16_t *value_lut;
    float *float_lut;
    int *identity;
    uint8_t *mask;
    /* host-image staging, made on the first run with host images */
    cudaStream_t streams[FXI_EQ_STAGE_SLOTS];
    /* the fast path's joins: the work queued so far on a staging stream (slot_marks)
     * or on the context's stream (context_mark), for the other side to wait for */
    cudaEvent_t slot_marks[FXI_EQ_STAGE_SLOTS];
    cudaEvent_t context_mark;
    void *pinned[FXI_EQ_STAGE_SLOTS];       /* from the context's pinned pool */
    size_t pinned_size[FXI_EQ_STAGE_SLOTS]; /* each block's size, for giving it back */
    size_t pinned_bytes;                    /* usable in every slot */
    /* device images, global gray/hsv/luma: the grid of the one-launch pass (0: two
     * launches), and whether hist is zero now (a fused launch leaves it so: the next one
     * needs no clearing) */
    unsigned fused_blocks;
    int hist_zero;
    fxi_kernel_graph fused_graph; /* the one-launch pass, launched as a graph */
};

static fx_status device_array(fx_context *ctx, size_t count, size_t size, void **out)
{
    size_t bytes;
    FXI_RETURN_IF(!fxi_mul_size(count, size, &bytes), FX_EOVERFLOW,
                 "GPU equalization: %zu entries overflow", count);
    return fxi_device_alloc(ctx, bytes, out);
}

static fx_status prepare(fx_equalize_plan *p)
{
    fx_context *ctx = p->ctx;
    fxi_eq_gpu *g = p->gpu;
    size_t entries;
    FXI_RETURN_IF(!fxi_mul3_size((size_t)p->planes,
                                (size_t)p->grid.tiles_x * (size_t)p->grid.tiles_y, p->bins,
                                &entries),
                 FX_EOVERFLOW, "GPU equalization: the LUTs overflow");
    /* the counters after the histograms (fxi_eq_counter) */
    FXI_TRY(device_array(ctx, entries + FXI_EQ_COUNTERS, sizeof *g->hist, (void **)&g->hist));
    FXI_TRY(device_array(ctx, entries, sizeof *g->bin_lut, (void **)&g->bin_lut));
    FXI_TRY(device_array(ctx, (size_t)p->planes << p->level_bits, sizeof *g->value_lut,
                        (void **)&g->value_lut));
    FXI_TRY(device_array(ctx, p->bins, sizeof *g->float_lut, (void **)&g->float_lut));
    FXI_TRY(device_array(ctx, FXI_EQ_MAX_PLANES, sizeof *g->identity, (void **)&g->identity));
    if (p->mask) {
        const size_t bytes = (size_t)p->width * (size_t)p->height;
        FXI_TRY(fxi_device_alloc(ctx, bytes, (void **)&g->mask));
        FXI_TRY(fxi_copy_h2d(ctx, g->mask, p->mask, bytes));
    }
    return FX_OK;
}

static fx_status find_fused_grid(fx_equalize_plan *p);

fx_status fxi_equalize_gpu_prepare(fx_equalize_plan *p)
{
    fx_context *ctx = p->ctx;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *p->gpu, (void **)&p->gpu));
    FXI_TRY(prepare(p));
    return find_fused_grid(p);
}

void fxi_equalize_gpu_release(fx_equalize_plan *p)
{
    if (!p || !p->gpu) return;
    fxi_eq_gpu *g = p->gpu;
    fxi_device_free(p->ctx, g->hist);
    fxi_device_free(p->ctx, g->bin_lut);
    fxi_device_free(p->ctx, g->value_lut);
    fxi_device_free(p->ctx, g->float_lut);
    fxi_device_free(p->ctx, g->identity);
    fxi_device_free(p->ctx, g->mask);
    fxi_device_guard guard; /* the staging streams belong to the context's GPU */
    const int entered = fxi_device_enter(p->ctx, &guard) == FX_OK;
    for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++) {
        if (g->streams[i] && entered) {
            (void)cudaStreamSynchronize(g->streams[i]);
            (void)cudaStreamDestroy(g->streams[i]);
        }
        if (g->slot_marks[i] && entered) (void)cudaEventDestroy(g->slot_marks[i]);
        if (entered) /* synchronised above: no copy uses the block any more */
            fxi_pinned_give(p->ctx, g->pinned[i], g->pinned_size[i]);
        else
            fxi_pinned_free(p->ctx, g->pinned[i]);
    }
    if (g->context_mark && entered) (void)cudaEventDestroy(g->context_mark);
    if (entered) fxi_kernel_graph_release(&g->fused_graph);
    if (entered) fxi_device_leave(&guard);
    free(g);
    p->gpu = NULL;
}

static fxi_eq_kernel_args kernel_args(const fx_equalize_plan *p, const uint8_t *in,
                                      size_t in_stride, uint8_t *out, size_t out_stride)
{
    fxi_eq_gpu *g = p->gpu; /* hist_zero: the run updates it */
    fxi_eq_kernel_args a = {0};
    a.in = in;
    a.in_stride = in_stride;
    a.out = out;
    a.out_stride = out_stride;
    a.width = p->width;
    a.height = p->height;
    a.in_channels = p->in_channels;
    a.is_u16 = p->type == FX_U16;
    a.mode = p->mode;
    a.planes = p->planes;
    a.scale = p->scale;
    a.adaptive = p->adaptive;
    a.maxval = p->maxval;
    a.level_bits = p->level_bits;
    a.bins = p->bins;
    a.clip_limit = p->clip_limit;
    a.grid = p->grid;
    a.inv_tile_w = 1.0f / (float)p->grid.tile_w;
    a.inv_tile_h = 1.0f / (float)p->grid.tile_h;
    a.mask = g->mask;
    a.hist = g->hist;
    a.hist_done = (unsigned *)(g->hist + (size_t)p->planes * (size_t)p->grid.tiles_x *
                                             (size_t)p->grid.tiles_y * p->bins);
    a.bin_lut = g->bin_lut;
    a.value_lut = g->value_lut;
    a.float_lut = g->float_lut;
    a.identity = g->identity;
    a.block = (unsigned)(p->gpu_block ? p->gpu_block : FXI_EQ_GPU_DEFAULT_BLOCK);
    a.fused_blocks = g->fused_blocks;
    a.hist_zero = &g->hist_zero;
    a.fused_graph = &g->fused_graph;
    return a;
}

/* The one-launch pass's grid for this plan's device images (0 where it does not apply),
 * found once: the kernel's occupancy is a query to the runtime. */
static fx_status find_fused_grid(fx_equalize_plan *p)
{
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(p->ctx, &guard));
    const fxi_eq_kernel_args a = kernel_args(p, NULL, 0, NULL, 0);
    p->gpu->fused_blocks = fxi_equalize_fused_blocks(p->ctx, &a);
    fxi_device_leave(&guard);
    return FX_OK;
}

/* Wall time of the stage that ends now, when timing was asked for. */
static fx_status stage_end(fx_context *ctx, double *field, uint64_t *since)
{
    if (!field) return FX_OK;
    FXI_TRY(fxi_stream_sync(ctx));
    uint64_t now = fx_time_ns();
    *field += fx_elapsed_ms(*since, now);
    *since = now;
    return FX_OK;
}

static fx_status staging_ready(fx_equalize_plan *p, size_t band_bytes)
{
    fx_context *ctx = p->ctx;
    fxi_eq_gpu *g = p->gpu;
    if (g->pinned_bytes >= band_bytes) return FX_OK;
    for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++) {
        if (!g->streams[i])
            FX_CUDA(cudaStreamCreateWithFlags(&g->streams[i], cudaStreamNonBlocking));
        if (!g->slot_marks[i])
            FX_CUDA(cudaEventCreateWithFlags(&g->slot_marks[i], cudaEventDisableTiming));
        FX_CUDA(cudaStreamSynchronize(g->streams[i]));
        fxi_pinned_give(ctx, g->pinned[i], g->pinned_size[i]);
        g->pinned[i] = NULL;
        g->pinned_size[i] = 0;
    }
    if (!g->context_mark)
        FX_CUDA(cudaEventCreateWithFlags(&g->context_mark, cudaEventDisableTiming));
    g->pinned_bytes = 0;
    for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++)
        FXI_TRY(fxi_pinned_take(ctx, band_bytes, &g->pinned[i], &g->pinned_size[i]));
    g->pinned_bytes = band_bytes;
    return FX_OK;
}

/* Wait for everything queued on the staging streams. */
static fx_status slots_sync(fx_equalize_plan *p)
{
    fx_context *ctx = p->ctx;
    for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++)
        FX_CUDA(cudaStreamSynchronize(p->gpu->streams[i]));
    return FX_OK;
}

/* Work queued from now on the staging streams starts after the work queued so far on
 * the context's stream. */
static fx_status slots_wait_for_context(fx_equalize_plan *p)
{
    fx_context *ctx = p->ctx;
    fxi_eq_gpu *g = p->gpu;
    FX_CUDA(cudaEventRecord(g->context_mark, ctx->cuda->stream));
    for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++)
        FX_CUDA(cudaStreamWaitEvent(g->streams[i], g->context_mark, 0));
    return FX_OK;
}

/* Work queued from now on the context's stream starts after the work queued so far
 * on every staging stream. */
static fx_status context_waits_for_slots(fx_equalize_plan *p)
{
    fx_context *ctx = p->ctx;
    fxi_eq_gpu *g = p->gpu;
    for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++) {
        FX_CUDA(cudaEventRecord(g->slot_marks[i], g->streams[i]));
        FX_CUDA(cudaStreamWaitEvent(ctx->cuda->stream, g->slot_marks[i], 0));
    }
    return FX_OK;
}

/* The whole host image up into dev (packed rows of row_bytes), band by band, queued
 * on the staging streams. With count (the fast path's arguments on dev), each band
 * is counted into the histogram on its stream once it is up. */
static fx_status upload_bands(fx_equalize_plan *p, const fx_image *in, int direct, uint8_t *dev,
                              size_t row_bytes, int band_rows, const fxi_eq_kernel_args *count)
{
    fx_context *ctx = p->ctx;
    fxi_eq_gpu *g = p->gpu;
    for (int r0 = 0, b = 0; r0 < p->height; r0 += band_rows, b++) {
        const int slot = b % FXI_EQ_STAGE_SLOTS;
        const int rows = fxi_eq_band_height(r0, band_rows, p->height);
        if (direct) {
            FX_CUDA(cudaMemcpy2DAsync(dev + (size_t)r0 * row_bytes, row_bytes,
                                      fx_image_row(in, r0), in->stride, row_bytes, (size_t)rows,
                                      cudaMemcpyHostToDevice, g->streams[slot]));
        } else {
            FX_CUDA(cudaStreamSynchronize(g->streams[slot])); /* its last band has left */
            fxi_parallel_copy_rows(ctx, g->pinned[slot], row_bytes, fx_image_row(in, r0),
                                   in->stride, row_bytes, (size_t)rows);
            FX_CUDA(cudaMemcpyAsync(dev + (size_t)r0 * row_bytes, g->pinned[slot],
                                    (size_t)rows * row_bytes, cudaMemcpyHostToDevice,
                                    g->streams[slot]));
        }
        if (count) FXI_TRY(fxi_equalize_fast_hist_launch(ctx, count, r0, rows, g->streams[slot]));
    }
    return FX_OK;
}

/* dev (packed rows) down into the host image, band by band: a slot's band is
 * unpacked when the slot is needed again, or at the end. With map (the fast path's
 * arguments, out = dev), each band is mapped on its stream before it comes down. */
static fx_status download_bands(fx_equalize_plan *p, const uint8_t *dev, fx_image *out, int direct,
                                size_t row_bytes, int band_rows, const fxi_eq_kernel_args *map)
{
    fx_context *ctx = p->ctx;
    fxi_eq_gpu *g = p->gpu;
    if (direct) { /* into the image's rows: nothing to unpack, wait for the last copy */
        for (int r0 = 0, b = 0; r0 < p->height; r0 += band_rows, b++) {
            const int slot = b % FXI_EQ_STAGE_SLOTS;
            const int rows = fxi_eq_band_height(r0, band_rows, p->height);
            if (map) FXI_TRY(fxi_equalize_fast_map_launch(ctx, map, r0, rows, g->streams[slot]));
            FX_CUDA(cudaMemcpy2DAsync(fx_image_row(out, r0), out->stride,
                                      dev + (size_t)r0 * row_bytes, row_bytes, row_bytes,
                                      (size_t)rows, cudaMemcpyDeviceToHost, g->streams[slot]));
        }
        return slots_sync(p);
    }
    int pending[FXI_EQ_STAGE_SLOTS];
    for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++)
        pending[i] = -1;
    for (int r0 = 0, b = 0;; r0 += band_rows, b++) {
        const int slot = b % FXI_EQ_STAGE_SLOTS, done = r0 >= p->height;
        const int last = pending[slot];
        if (last >= 0) {
            FX_CUDA(cudaStreamSynchronize(g->streams[slot]));
            const int rows = fxi_eq_band_height(last, band_rows, p->height);
            fxi_parallel_copy_rows(ctx, fx_image_row(out, last), out->stride, g->pinned[slot],
                                   row_bytes, row_bytes, (size_t)rows);
            pending[slot] = -1;
        }
        if (done) {
            int any = 0;
            for (int i = 0; i < FXI_EQ_STAGE_SLOTS; i++)
                any |= pending[i] >= 0;
            if (!any) break;
            continue;
        }
        const int rows = fxi_eq_band_height(r0, band_rows, p->height);
        if (map) FXI_TRY(fxi_equalize_fast_map_launch(ctx, map, r0, rows, g->streams[slot]));
        FX_CUDA(cudaMemcpyAsync(g->pinned[slot], dev + (size_t)r0 * row_bytes,
                                (size_t)rows * row_bytes, cudaMemcpyDeviceToHost,
                                g->streams[slot]));
        pending[slot] = r0;
    }
    return FX_OK;
}

/* Fast path, host image: the histogram counted band by band behind the upload, the
 * LUT on the context's stream, the mapping band by band ahead of the download. The
 * file's comment says what each timing covers. */
static fx_status run_banded_fast(fx_equalize_plan *p, const fx_image *in, int in_direct,
                                 fx_image *out, int out_direct, uint8_t *dev_in,
                                 const fxi_eq_kernel_args *a, int band_rows, fx_timings *t,
                                 uint64_t *since)
{
    fx_context *ctx = p->ctx;
    FXI_TRY(fxi_equalize_clear_launch(ctx, a));
    FXI_TRY(slots_wait_for_context(p)); /* no band counts before the histogram is zero */
    FXI_TRY(upload_bands(p, in, in_direct, dev_in, a->in_stride, band_rows, a));
    if (t) {
        FXI_TRY(slots_sync(p));
        const uint64_t now = fx_time_ns();
        t->upload_ms += fx_elapsed_ms(*since, now);
        *since = now;
    }
    FXI_TRY(context_waits_for_slots(p)); /* every band counted */
    FXI_TRY(fxi_equalize_lut_launch(ctx, a, ctx->cuda->stream));
    FXI_TRY(slots_wait_for_context(p)); /* no band maps before the LUT is done */
    FXI_TRY(stage_end(ctx, t ? &t->compute_ms : NULL, since));
    FXI_TRY(download_bands(p, a->out, out, out_direct, a->out_stride, band_rows, a));
    if (t) t->download_ms += fx_elapsed_ms(*since, fx_time_ns());
    return FX_OK;
}

static fx_status run_host(fx_equalize_plan *p, const fx_image *in, fx_image *out, fx_timings *t,
                          uint64_t since, int in_direct, int out_direct);

static fx_status run_guarded(fx_equalize_plan *p, const fx_image *in, fx_image *out, fx_timings *t)
{
    fx_context *ctx = p->ctx;
    uint64_t since = fx_time_ns();
    if (in->memory == FX_MEMORY_DEVICE) {
        fxi_eq_kernel_args a = kernel_args(p, in->data, in->stride, out->data, out->stride);
        FXI_TRY(fxi_equalize_launch(ctx, &a));
        return stage_end(ctx, t ? &t->compute_ms : NULL, &since);
    }
    /* A host image's rows cross PCIe packed by the CPU's threads into the pinned slots,
     * or directly from and to its own rows where its memory is page-locked (the
     * caller's cudaHostAlloc or cudaHostRegister): through the slots the host's memory
     * moves each byte three or four times, which bounds the transfer below the bus. */
    return run_host(p, in, out, t, since, fxi_page_locked(in->data), fxi_page_locked(out->data));
}

static fx_status run_host(fx_equalize_plan *p, const fx_image *in, fx_image *out, fx_timings *t,
                          uint64_t since, int in_direct, int out_direct)
{
    fx_context *ctx = p->ctx;
    const size_t sample = fx_sample_size(p->type);
    const size_t in_row = (size_t)p->width * (size_t)p->in_channels * sample;
    const size_t out_row = (size_t)p->width * (size_t)p->out_channels * sample;
    const size_t rows = (size_t)p->height;
    const size_t widest = in_row > out_row ? in_row : out_row;
    const int band_rows = fxi_eq_band_rows(widest, FXI_EQ_STAGE_BAND_BYTES, p->height);
    void *dev_in, *dev_out;
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, in_row * rows, &dev_in));
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, out_row * rows, &dev_out));
    FXI_TRY(staging_ready(p, (size_t)band_rows * widest));
    /* The device buffers may still be in use by earlier work on the context's stream. */
    FXI_TRY(fxi_stream_sync(ctx));
    fxi_eq_kernel_args a = kernel_args(p, dev_in, in_row, dev_out, out_row);
    if (fxi_equalize_fast_path_gpu(&a))
        return run_banded_fast(p, in, in_direct, out, out_direct, dev_in, &a, band_rows, t,
                               &since);
    FXI_TRY(upload_bands(p, in, in_direct, dev_in, in_row, band_rows, NULL));
    FXI_TRY(slots_sync(p)); /* the equalization runs on the context's stream */
    if (t) t->upload_ms += fx_elapsed_ms(since, fx_time_ns());
    since = fx_time_ns();
    FXI_TRY(fxi_equalize_launch(ctx, &a));
    FXI_TRY(fxi_stream_sync(ctx)); /* the bands come down on other streams */
    if (t) t->compute_ms += fx_elapsed_ms(since, fx_time_ns());
    since = fx_time_ns();
    FXI_TRY(download_bands(p, dev_out, out, out_direct, out_row, band_rows, NULL));
    if (t) t->download_ms += fx_elapsed_ms(since, fx_time_ns());
    return FX_OK;
}

fx_status fxi_equalize_gpu_run(fx_equalize_plan *p, const fx_image *in, fx_image *out,
                               fx_timings *t)
{
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(p->ctx, &guard));
    fx_status st = run_guarded(p, in, out, t);
    fxi_device_leave(&guard);
    return st;
}
