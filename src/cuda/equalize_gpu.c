/* Equalization on the context's GPU: the plan's device buffers and the run.
 *
 * Device images are equalized where they are. Host images are copied into the
 * context's reusable device buffers, equalized there and copied back, with the
 * stage times measured when asked (the stream synchronised between stages only
 * then). The kernels are in equalize.cu. */
#include <stdlib.h>

#include "equalize_kernels.h"

/* Threads per block unless --gpu-block says otherwise: 8 warps. */
#define DEFAULT_BLOCK 256

struct fxi_eq_gpu {
    uint32_t *hist;
    uint16_t *bin_lut;
    uint16_t *value_lut;
    float *float_lut;
    int *identity;
    uint8_t *mask;
};

static fx_status device_array(fx_context *ctx, size_t count, size_t size, void **out)
{
    size_t bytes;
    FX_RETURN_IF(!fxi_mul_size(count, size, &bytes), FX_EOVERFLOW,
                 "GPU equalization: %zu entries overflow", count);
    return fxi_device_alloc(ctx, bytes, out);
}

static fx_status prepare(fx_equalizer *p)
{
    fx_context *ctx = p->ctx;
    fxi_eq_gpu *g = p->gpu;
    size_t entries;
    FX_RETURN_IF(!fxi_mul3_size((size_t)p->planes,
                                (size_t)p->grid.tiles_x * (size_t)p->grid.tiles_y, p->bins,
                                &entries),
                 FX_EOVERFLOW, "GPU equalization: the LUTs overflow");
    FX_TRY(device_array(ctx, entries, sizeof *g->hist, (void **)&g->hist));
    FX_TRY(device_array(ctx, entries, sizeof *g->bin_lut, (void **)&g->bin_lut));
    FX_TRY(device_array(ctx, (size_t)p->planes << p->level_bits, sizeof *g->value_lut,
                        (void **)&g->value_lut));
    FX_TRY(device_array(ctx, p->bins, sizeof *g->float_lut, (void **)&g->float_lut));
    FX_TRY(device_array(ctx, FXI_EQ_MAX_PLANES, sizeof *g->identity, (void **)&g->identity));
    if (p->mask) {
        const size_t bytes = (size_t)p->width * (size_t)p->height;
        FX_TRY(fxi_device_alloc(ctx, bytes, (void **)&g->mask));
        FX_TRY(fxi_copy_h2d(ctx, g->mask, p->mask, bytes));
    }
    return FX_OK;
}

fx_status fxi_cuda_equalize_prepare(fx_equalizer *p)
{
    fx_context *ctx = p->ctx;
    FX_TRY(fxi_calloc(ctx, 1, sizeof *p->gpu, (void **)&p->gpu));
    return prepare(p);
}

void fxi_cuda_equalize_release(fx_equalizer *p)
{
    if (!p || !p->gpu) return;
    fxi_eq_gpu *g = p->gpu;
    fxi_device_free(p->ctx, g->hist);
    fxi_device_free(p->ctx, g->bin_lut);
    fxi_device_free(p->ctx, g->value_lut);
    fxi_device_free(p->ctx, g->float_lut);
    fxi_device_free(p->ctx, g->identity);
    fxi_device_free(p->ctx, g->mask);
    free(g);
    p->gpu = NULL;
}

static fxi_eq_kernel_args kernel_args(const fx_equalizer *p, const uint8_t *in, size_t in_stride,
                                      uint8_t *out, size_t out_stride)
{
    const fxi_eq_gpu *g = p->gpu;
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
    a.bin_lut = g->bin_lut;
    a.value_lut = g->value_lut;
    a.float_lut = g->float_lut;
    a.identity = g->identity;
    a.block = (unsigned)(p->gpu_block ? p->gpu_block : DEFAULT_BLOCK);
    return a;
}

/* Wall time of the stage that ends now, when timing was asked for. */
static fx_status stage_end(fx_context *ctx, double *field, uint64_t *since)
{
    if (!field) return FX_OK;
    FX_TRY(fxi_stream_sync(ctx));
    uint64_t now = fx_time_ns();
    *field += fx_elapsed_ms(*since, now);
    *since = now;
    return FX_OK;
}

static fx_status run_guarded(fx_equalizer *p, const fx_image *in, fx_image *out, fx_timings *t)
{
    fx_context *ctx = p->ctx;
    uint64_t since = fx_time_ns();
    if (in->memory == FX_MEMORY_DEVICE) {
        fxi_eq_kernel_args a = kernel_args(p, in->data, in->stride, out->data, out->stride);
        FX_TRY(fxi_cuda_equalize_launch(ctx, &a));
        return stage_end(ctx, t ? &t->compute_ms : NULL, &since);
    }
    const size_t sample = fx_sample_size(p->type);
    const size_t in_row = (size_t)p->width * (size_t)p->in_channels * sample;
    const size_t out_row = (size_t)p->width * (size_t)p->out_channels * sample;
    const size_t rows = (size_t)p->height;
    void *dev_in, *dev_out;
    FX_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, in_row * rows, &dev_in));
    FX_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, out_row * rows, &dev_out));
    FX_TRY(fxi_copy_h2d_2d(ctx, dev_in, in_row, in->data, in->stride, in_row, rows));
    FX_TRY(stage_end(ctx, t ? &t->upload_ms : NULL, &since));
    fxi_eq_kernel_args a = kernel_args(p, dev_in, in_row, dev_out, out_row);
    FX_TRY(fxi_cuda_equalize_launch(ctx, &a));
    FX_TRY(stage_end(ctx, t ? &t->compute_ms : NULL, &since));
    FX_TRY(fxi_copy_d2h_2d(ctx, out->data, out->stride, dev_out, out_row, out_row, rows));
    FX_TRY(fxi_stream_sync(ctx));
    if (t) t->download_ms += fx_elapsed_ms(since, fx_time_ns());
    return FX_OK;
}

fx_status fxi_cuda_equalize_run(fx_equalizer *p, const fx_image *in, fx_image *out, fx_timings *t)
{
    fxi_device_guard guard;
    FX_TRY(fxi_device_enter(p->ctx, &guard));
    fx_status st = run_guarded(p, in, out, t);
    fxi_device_leave(&guard);
    return st;
}
