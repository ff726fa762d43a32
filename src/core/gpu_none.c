/* GPU entry points of a build without CUDA: there are no GPUs. */
#include <string.h>

#include "filter/filter_gpu.h"
#include "internal.h"

int fx_gpu_built(void)
{
    return 0;
}

fx_status fx_gpu_count(fx_context *ctx, int *count)
{
    (void)ctx;
    *count = 0;
    return FX_OK;
}

fx_status fx_gpu_info_get(fx_context *ctx, int index, fx_gpu_info *info)
{
    memset(info, 0, sizeof *info);
    return fxi_error(ctx, FX_ENODEVICE, "GPU %d: this build has no CUDA support", index);
}

fx_status fxi_cuda_context_init(fx_context *ctx)
{
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_cuda_context_release(fx_context *ctx)
{
    (void)ctx;
}

fx_status fxi_cuda_image_convert(fx_context *ctx, const fx_image *src, fx_image *dst,
                                 fx_timings *timings)
{
    (void)src, (void)dst, (void)timings;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_cuda_image_alloc(fx_context *ctx, fx_image *img, size_t bytes)
{
    (void)img, (void)bytes;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_cuda_image_copy(fx_context *ctx, const fx_image *src, fx_image *dst)
{
    (void)src, (void)dst;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_cuda_image_free(void *data)
{
    (void)data; /* no device image can exist without CUDA */
}

fx_status fxi_cuda_equalize_prepare(fx_equalizer *plan)
{
    (void)plan;
    return fxi_error(NULL, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_cuda_equalize_run(fx_equalizer *plan, const fx_image *in, fx_image *out,
                                fx_timings *timings)
{
    (void)plan, (void)in, (void)out, (void)timings;
    return fxi_error(NULL, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_cuda_equalize_release(fx_equalizer *plan)
{
    (void)plan;
}

fx_status fxi_cuda_nm_open(fx_context *ctx, size_t ring_samples, double **host_ring,
                           fxi_nm_gpu **out)
{
    (void)ring_samples;
    *host_ring = NULL;
    *out = NULL;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_cuda_nm_close(fx_context *ctx, fxi_nm_gpu *gpu)
{
    (void)ctx, (void)gpu;
}

fx_status fxi_cuda_nm_upload(fx_context *ctx, fxi_nm_gpu *gpu, size_t at, size_t count)
{
    (void)gpu, (void)at, (void)count;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_cuda_nm_levels(fx_context *ctx, fxi_nm_gpu *gpu, size_t at,
                             const struct fxi_nm_levels_job *job, double *levels)
{
    (void)gpu, (void)at, (void)job, (void)levels;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_cuda_nm_ramp(fx_context *ctx, fxi_nm_gpu *gpu, size_t at,
                           const struct fxi_nm_ramp_batch *batch, const double *params,
                           size_t param_count)
{
    (void)gpu, (void)at, (void)batch, (void)params, (void)param_count;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_filter_gpu_prepare(fx_context *ctx, const fxi_filter_gpu_desc *d, void **state)
{
    (void)d;
    *state = NULL;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_filter_gpu_run(void *state, const fx_image *src, fx_image *dst, fx_timings *timings)
{
    (void)state, (void)src, (void)dst, (void)timings;
    return fxi_error(NULL, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_filter_gpu_release(void *state)
{
    (void)state; /* no GPU state exists without CUDA */
}
