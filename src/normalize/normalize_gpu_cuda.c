/* Dynamic audio normalization on the context's GPU, host side: a stream's slot
 * ring in pinned host memory with its copy on the device, the uploads into it,
 * the frame levels and the gain ramp.
 *
 * Frames go up once, straight from the host ring's slots into the same positions
 * on the device (pinned memory: a DMA, no staging copy); the levels are measured
 * there and come down (two doubles a frame and gain channel), and the ramp later
 * reads the same device slots and its result comes back into the host's slots by
 * DMA. Small staging (the ramp's parameter block) and scratch buffers belong to
 * the context and are reused. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.h"
#include "normalize/normalize_gpu.h"
#include "normalize/normalize_kernels.h"

struct fxi_normalize_gpu {
    double *host; /* the slot ring, pinned (from the context's pinned pool) */
    double *ring; /* its copy on the device */
    size_t pinned_size; /* of the host block, at least the ring's */
};

static fx_status bytes_of(fx_context *ctx, size_t count, size_t *bytes)
{
    FXI_RETURN_IF(!fxi_mul_size(count, sizeof(double), bytes), FX_EOVERFLOW,
                 "normalize: %zu samples on the GPU overflow", count);
    return FX_OK;
}

fx_status fxi_normalize_gpu_prepare(fx_context *ctx, size_t ring_samples, double **host_ring,
                           fxi_normalize_gpu **out)
{
    *host_ring = NULL;
    *out = NULL;
    size_t bytes;
    FXI_TRY(bytes_of(ctx, ring_samples, &bytes));
    fxi_normalize_gpu *g;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *g, (void **)&g));
    fxi_device_guard guard;
    fx_status st = fxi_device_enter(ctx, &guard);
    if (st == FX_OK) {
        st = fxi_device_alloc(ctx, bytes, (void **)&g->ring);
        if (st == FX_OK) st = fxi_pinned_take(ctx, bytes, (void **)&g->host, &g->pinned_size);
        fxi_device_leave(&guard);
    }
    if (st != FX_OK) {
        fxi_normalize_gpu_release(ctx, g);
        return st;
    }
    /* Not zeroed: pushes write every sample before the levels or the ramp read it. */
    *host_ring = g->host;
    *out = g;
    return FX_OK;
}

void fxi_normalize_gpu_release(fx_context *ctx, fxi_normalize_gpu *g)
{
    if (!g) return;
    fxi_device_guard guard;
    if (fxi_device_enter(ctx, &guard) == FX_OK) {
        /* Queued copies may still use the host ring. */
        (void)fxi_stream_sync(ctx);
        fxi_device_free(ctx, g->ring);
        fxi_pinned_give(ctx, g->host, g->pinned_size);
        fxi_device_leave(&guard);
    }
    free(g);
}

fx_status fxi_normalize_gpu_upload(fx_context *ctx, fxi_normalize_gpu *g, size_t at, size_t count)
{
    size_t bytes;
    FXI_TRY(bytes_of(ctx, count, &bytes));
    return fxi_copy_h2d(ctx, g->ring + at, g->host + at, bytes);
}

static fx_status levels_guarded(fx_context *ctx, fxi_normalize_gpu *g, size_t at,
                                const fxi_nm_levels_job *job, double *levels)
{
    size_t bytes;
    FXI_TRY(bytes_of(ctx, 2 * (size_t)job->frames * (size_t)job->gain_channels, &bytes));
    void *dev;
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, bytes, &dev));
    FXI_TRY(fxi_normalize_levels_launch(ctx, g->ring + at, job, dev));
    FXI_TRY(fxi_copy_d2h(ctx, levels, dev, bytes));
    return fxi_stream_sync_yielding(ctx); /* behind the batch's upload */
}

fx_status fxi_normalize_gpu_levels(fx_context *ctx, fxi_normalize_gpu *g, size_t at,
                             const fxi_nm_levels_job *job, double *levels)
{
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = levels_guarded(ctx, g, at, job, levels);
    fxi_device_leave(&guard);
    return st;
}

static fx_status ramp_guarded(fx_context *ctx, fxi_normalize_gpu *g, size_t at,
                              const fxi_nm_ramp_batch *b, const double *params, size_t param_count)
{
    size_t sample_bytes, param_bytes;
    FXI_TRY(bytes_of(ctx, b->samples, &sample_bytes));
    FXI_TRY(bytes_of(ctx, param_count, &param_bytes));
    void *pin_params, *dev_params, *dev_out;
    FXI_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, param_bytes, &pin_params));
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, param_bytes, &dev_params));
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, sample_bytes, &dev_out));
    memcpy(pin_params, params, param_bytes);
    FXI_TRY(fxi_copy_h2d(ctx, dev_params, pin_params, param_bytes));
    FXI_TRY(fxi_normalize_ramp_launch(ctx, g->ring + at, dev_out, dev_params, b));
    FXI_TRY(fxi_copy_d2h(ctx, g->host + at, dev_out, sample_bytes));
    return fxi_stream_sync_yielding(ctx);
}

fx_status fxi_normalize_gpu_ramp(fx_context *ctx, fxi_normalize_gpu *g, size_t at, const fxi_nm_ramp_batch *b,
                           const double *params, size_t param_count)
{
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = ramp_guarded(ctx, g, at, b, params, param_count);
    fxi_device_leave(&guard);
    return st;
}
