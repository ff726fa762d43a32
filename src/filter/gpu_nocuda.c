/* The filter GPU seam in a build without CUDA: no GPU context can exist, so these
 * are reached only through misuse; they fail with FX_ENODEVICE. */
#include "filter/filter_gpu.h"
#include "core/internal.h"

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

fx_status fxi_filter_gpu_run_batch(void *state, const fx_image *src, fx_image *dst, int count,
                                   fx_timings *timings)
{
    (void)state, (void)src, (void)dst, (void)count, (void)timings;
    return fxi_error(NULL, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_filter_gpu_release(void *state)
{
    (void)state; /* no GPU state exists without CUDA */
}

const char *fxi_filter_gpu_kernel_words(const void *state)
{
    (void)state;
    return "";
}
