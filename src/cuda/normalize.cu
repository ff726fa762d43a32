/* The gain ramp of dynamic audio normalization on the device: one thread per
 * sample of a frame (grid-strided), each computing fxi_nm_ramp_element, the
 * function the CPU tests check. Double precision and --fmad=false give the
 * CPU's bits. */
#include "cuda_internal.h"
#include "normalize/normalize_cuda.h"
#include "normalize/normalize_gpu_plan.h"

namespace
{

__global__ void __launch_bounds__(FXI_NM_RAMP_THREADS)
    ramp_kernel(const double *__restrict__ src, double *__restrict__ dst,
                const double *__restrict__ params, size_t elements, int channels, int gain_channels,
                size_t length, int ramp)
{
    const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < elements;
         e += step)
        dst[e] = fxi_nm_ramp_element(src, params, e, channels, gain_channels, length, ramp);
}

} // namespace

extern "C" fx_status fxi_cuda_normalize_ramp_launch(fx_context *ctx, const double *src_device,
                                                    double *dst_device, const double *params_device,
                                                    size_t length, int channels, int gain_channels,
                                                    int ramp)
{
    FX_TRY(fxi_cuda_require(ctx, "normalize gain ramp"));
    const size_t elements = length * static_cast<size_t>(channels);
    const size_t blocks = fxi_nm_ramp_blocks(elements, ctx->cuda->multiprocessors);
    if (blocks == 0) return FX_OK;
    ramp_kernel<<<static_cast<unsigned>(blocks), FXI_NM_RAMP_THREADS, 0, ctx->cuda->stream>>>(
        src_device, dst_device, params_device, elements, channels, gain_channels, length, ramp);
    return fxi_cuda_check_launch(ctx, "ramp_kernel");
}
