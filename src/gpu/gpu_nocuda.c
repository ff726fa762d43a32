/* The GPU plumbing of a build without CUDA: there are no GPUs. (Each job's GPU seam
 * has its own stubs, in its folder.) */
#include <string.h>

#include "core/internal.h"

int fx_gpu_built(void)
{
    return 0;
}

/* No runtime to ask: contexts resolve without asking (core/context.c). */
int fxi_gpu_runtime_asks(void)
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

fx_status fxi_gpu_context_init(fx_context *ctx)
{
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_gpu_context_release(fx_context *ctx)
{
    (void)ctx;
}

int fxi_gpu_multiprocessors(const fx_context *ctx)
{
    (void)ctx;
    return 0;
}

fx_status fxi_gpu_image_convert(fx_context *ctx, const fx_image *src, fx_image *dst,
                                 fx_timings *timings)
{
    (void)src, (void)dst, (void)timings;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_gpu_pinned_take(fx_context *ctx, size_t bytes, void **out, size_t *size)
{
    (void)bytes;
    *out = NULL;
    *size = 0;
    return fxi_error(ctx, FX_ENODEVICE, "pinned memory: this build has no CUDA support");
}

void fxi_gpu_pinned_give(fx_context *ctx, void *ptr, size_t size)
{
    (void)ctx, (void)ptr, (void)size; /* none was ever taken */
}

fx_status fxi_gpu_image_alloc(fx_context *ctx, fx_image *img, size_t bytes)
{
    (void)img, (void)bytes;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_gpu_image_copy(fx_context *ctx, const fx_image *src, fx_image *dst)
{
    (void)src, (void)dst;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_gpu_image_free(void *data)
{
    (void)data; /* no device image can exist without CUDA */
}

void *fx_context_stream(const fx_context *ctx)
{
    (void)ctx;
    return NULL;
}

fx_status fx_context_wait_stream(fx_context *ctx, void *stream)
{
    (void)stream;
    return fxi_error(ctx, FX_ENODEVICE,
                     "waiting for a CUDA stream needs a GPU context (this build has no CUDA support)");
}

fx_status fx_context_synchronize(fx_context *ctx)
{
    (void)ctx;
    return FX_OK;
}

fx_status fx_gpu_rates_get(fx_context *ctx, fx_gpu_rates *rates)
{
    if (rates) memset(rates, 0, sizeof *rates);
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}
