/* The gain ramp of dynamic audio normalization on the device: one thread per
 * sample of a batch of frames (grid-strided), each computing
 * fxi_nm_batch_element, the function the CPU tests check. Double precision and
 * --fmad=false give the CPU's bits. */
#include "cuda_internal.h"
#include "normalize/normalize_cuda.h"

namespace
{

__global__ void __launch_bounds__(FXI_NM_RAMP_THREADS)
    ramp_kernel(const double *__restrict__ src, double *__restrict__ dst,
                const double *__restrict__ params, fxi_nm_ramp_batch batch)
{
    const uint32_t step = gridDim.x * blockDim.x;
    for (uint32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < batch.samples; e += step)
        dst[e] = fxi_nm_batch_element(src, params, e, &batch);
}

} // namespace

extern "C" fx_status fxi_cuda_normalize_ramp_launch(fx_context *ctx, const double *src_device,
                                                    double *dst_device, const double *params_device,
                                                    const fxi_nm_ramp_batch *batch)
{
    FX_TRY(fxi_cuda_require(ctx, "normalize gain ramp"));
    const size_t blocks = fxi_nm_ramp_blocks(batch->samples, ctx->cuda->multiprocessors);
    if (blocks == 0) return FX_OK;
    ramp_kernel<<<static_cast<unsigned>(blocks), FXI_NM_RAMP_THREADS, 0, ctx->cuda->stream>>>(
        src_device, dst_device, params_device, *batch);
    return fxi_cuda_check_launch(ctx, "ramp_kernel");
}
