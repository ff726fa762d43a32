/* The normalize GPU seam in a build without CUDA: no GPU context can exist, so these
 * are reached only through misuse; they fail with FX_ENODEVICE. */
#include "normalize/normalize_gpu.h"
#include "core/internal.h"

fx_status fxi_normalize_gpu_prepare(fx_context *ctx, size_t ring_samples, double **host_ring,
                           fxi_normalize_gpu **out)
{
    (void)ring_samples;
    *host_ring = NULL;
    *out = NULL;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_normalize_gpu_release(fx_context *ctx, fxi_normalize_gpu *gpu)
{
    (void)ctx, (void)gpu;
}

fx_status fxi_normalize_gpu_upload(fx_context *ctx, fxi_normalize_gpu *gpu, size_t at, size_t count)
{
    (void)gpu, (void)at, (void)count;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_normalize_gpu_levels(fx_context *ctx, fxi_normalize_gpu *gpu, size_t at,
                             const struct fxi_nm_levels_job *job, double *levels)
{
    (void)gpu, (void)at, (void)job, (void)levels;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_normalize_gpu_ramp(fx_context *ctx, fxi_normalize_gpu *gpu, size_t at,
                           const struct fxi_nm_ramp_batch *batch, const double *params,
                           size_t param_count)
{
    (void)gpu, (void)at, (void)batch, (void)params, (void)param_count;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}
