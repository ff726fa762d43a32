/* Dynamic audio normalization on the device: the frame levels (one warp per
 * frame and gain channel, fxi_nm_frame_levels' results) and the gain ramp (one thread per
 * sample of a batch of frames, grid-strided, fxi_nm_batch_element), the functions
 * the CPU tests check. Double precision and --fmad=false give the CPU's bits. */
#include "cuda_internal.h"
#include "normalize/normalize_cuda.h"

namespace
{

constexpr unsigned WARP = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;
/* Warps per block of the levels kernel, one warp per frame and gain channel. */
constexpr unsigned LEVELS_WARPS = 4;

/* fxi_nm_frame_levels with a warp per frame and gain channel: the lanes load 32
 * consecutive positions at a time (coalesced) and take the maximum in any order
 * (the result does not depend on it); the squares are formed by the lanes and
 * added by lane 0 one after the other, in the reference's order, so the sum has
 * its bits. */
__global__ void __launch_bounds__(LEVELS_WARPS *WARP)
    levels_kernel(const double *__restrict__ slots, fxi_nm_levels_job job, double *__restrict__ out)
{
    const uint32_t t = blockIdx.x * LEVELS_WARPS + threadIdx.x / WARP;
    const unsigned lane = threadIdx.x % WARP;
    const uint32_t gains = static_cast<uint32_t>(job.gain_channels);
    if (t >= job.frames * gains) return; /* whole warps leave together */
    const uint32_t k = t / gains, g = t - k * gains;
    const uint32_t n = k + 1 == job.frames ? job.last_length : job.length;
    const int channels = job.channels;
    const int first = gains == 1 ? 0 : static_cast<int>(g), last = gains == 1 ? channels : first + 1;
    const double *x = slots + static_cast<size_t>(k) * job.slot_samples;
    double max = DBL_EPSILON, sum = 0.0;
    for (int ch = first; ch < last; ch++)
        for (uint32_t i0 = 0; i0 < n; i0 += WARP) {
            const uint32_t i = i0 + lane;
            const double v = i < n ? x[static_cast<size_t>(i) * channels + ch] : 0.0;
            const double a = fabs(v);
            if (i < n && a > max) max = a;
            if (!job.want_rms) continue;
            const double square = v * v;
            const unsigned count = n - i0 < WARP ? n - i0 : WARP;
            for (unsigned j = 0; j < count; j++) {
                const double s = __shfl_sync(FULL_MASK, square, j);
                if (lane == 0) sum += s;
            }
        }
    for (unsigned offset = WARP / 2; offset > 0; offset /= 2) {
        const double other = __shfl_down_sync(FULL_MASK, max, offset);
        if (other > max) max = other;
    }
    if (lane == 0) {
        out[2 * t] = max;
        out[2 * t + 1] = sum;
    }
}

__global__ void __launch_bounds__(FXI_NM_RAMP_THREADS)
    ramp_kernel(const double *__restrict__ src, double *__restrict__ dst,
                const double *__restrict__ params, fxi_nm_ramp_batch batch)
{
    const uint32_t step = gridDim.x * blockDim.x;
    for (uint32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < batch.samples; e += step)
        dst[e] = fxi_nm_batch_element(src, params, e, &batch);
}

} // namespace

extern "C" fx_status fxi_cuda_normalize_levels_launch(fx_context *ctx, const double *slots_device,
                                                      const fxi_nm_levels_job *job,
                                                      double *out_device)
{
    FX_TRY(fxi_cuda_require(ctx, "normalize frame levels"));
    const size_t warps = static_cast<size_t>(job->frames) * job->gain_channels;
    if (warps == 0) return FX_OK;
    const unsigned blocks = static_cast<unsigned>((warps + LEVELS_WARPS - 1) / LEVELS_WARPS);
    levels_kernel<<<blocks, LEVELS_WARPS * WARP, 0, ctx->cuda->stream>>>(slots_device, *job,
                                                                          out_device);
    return fxi_cuda_check_launch(ctx, "levels_kernel");
}

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
