/* CUDA error reporting and the current-device guard. */
#include "gpu/gpu_internal.h"

fx_status fxi_cuda_error(fx_context *ctx, int error, const char *call)
{
    cudaError_t e = (cudaError_t)error;
    /* A failed call also sets the thread's last-error state; clear it so that the
     * next launch check reports its own error, not this one. (Sticky errors such
     * as an illegal address stay: the CUDA context is then unusable anyway.) */
    (void)cudaGetLastError();
    fx_status status = e == cudaErrorMemoryAllocation ? FX_ENOMEM : FX_ECUDA;
    if (ctx && ctx->cuda)
        return fxi_error(ctx, status, "%s failed on GPU %d: %s (%s)", call, ctx->cuda->device,
                         cudaGetErrorName(e), cudaGetErrorString(e));
    return fxi_error(ctx, status, "%s failed: %s (%s)", call, cudaGetErrorName(e),
                     cudaGetErrorString(e));
}

fx_status fxi_cuda_check_launch(fx_context *ctx, const char *kernel)
{
    /* cudaGetLastError (not Peek) so that a launch error is reported once. */
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return FX_OK;
    return fxi_error(ctx, FX_ECUDA, "launch of kernel %s failed on GPU %d: %s (%s)", kernel,
                     ctx->cuda ? ctx->cuda->device : -1, cudaGetErrorName(e),
                     cudaGetErrorString(e));
}

fx_status fxi_cuda_require(fx_context *ctx, const char *what)
{
    /* A background start (fx_context_options.start_gpu_in_background) ends here. */
    FXI_TRY(fxi_gpu_join(ctx));
    FXI_RETURN_IF(!ctx || !ctx->cuda, FX_ENODEVICE,
                 "%s needs a GPU context (this context runs on the CPU)", what);
    return FX_OK;
}

fx_status fxi_device_enter(fx_context *ctx, fxi_device_guard *guard)
{
    guard->changed = 0;
    guard->previous = 0;
    FXI_TRY(fxi_cuda_require(ctx, "GPU work"));
    FX_CUDA(cudaGetDevice(&guard->previous));
    if (guard->previous != ctx->cuda->device) {
        FX_CUDA(cudaSetDevice(ctx->cuda->device));
        guard->changed = 1;
    }
    return FX_OK;
}

void fxi_device_leave(const fxi_device_guard *guard)
{
    if (guard->changed) (void)cudaSetDevice(guard->previous);
}
