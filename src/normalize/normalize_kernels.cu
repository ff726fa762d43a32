/* Dynamic audio normalization on the device: the frame levels (a block per
 * frame and gain channel, fxi_nm_frame_levels' results) and the gain ramp (one thread per
 * sample of a batch of frames, grid-strided, fxi_nm_batch_element), the functions
 * the CPU tests check. Double precision and --fmad=false give the CPU's bits. */
#include "gpu/gpu_internal.h"
#include "normalize/normalize_kernels.h"

namespace
{

constexpr unsigned WARP = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;
/* threads per frame and gain channel in the levels kernel: normalize_tuning.h */
constexpr unsigned LEVELS_THREADS = FXI_NM_LEVELS_THREADS;
constexpr unsigned LEVELS_WARPS = LEVELS_THREADS / WARP;

/* fxi_nm_frame_levels with a block per frame and gain channel (fxi_nm_levels_block's
 * mapping, which the CPU tests check); its reductions are the kernel's own (they need
 * a warp): the maximum does
 * not depend on the order: every thread scans a stride of the positions and the
 * block reduces. The sum of squares does: warp 0 loads 32 consecutive positions at
 * a time (coalesced), its lanes form the squares, and lane 0 adds them one after
 * the other in the reference's order, so the sum has its bits. */
__global__ void __launch_bounds__(LEVELS_THREADS)
    levels_kernel(const double *__restrict__ slots, fxi_nm_levels_job job, double *__restrict__ out)
{
    __shared__ double warp_max[LEVELS_WARPS];
    const uint32_t t = blockIdx.x;
    const unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    uint32_t n;
    int c;
    const double *x = slots + fxi_nm_levels_block(&job, t, &n, &c);
    const int channels = job.channels;
    const int first = c < 0 ? 0 : c, last = c < 0 ? channels : c + 1;

    double max = DBL_EPSILON;
    for (int ch = first; ch < last; ch++)
        for (uint32_t i = threadIdx.x; i < n; i += LEVELS_THREADS)
            max = fxi_nm_keep_greater(max, fabs(x[static_cast<size_t>(i) * channels + ch]));
    for (unsigned offset = WARP / 2; offset > 0; offset /= 2)
        max = fxi_nm_keep_greater(max, __shfl_down_sync(FULL_MASK, max, offset));
    if (lane == 0) warp_max[warp] = max;

    double sum = 0.0;
    if (job.want_rms && warp == 0)
        for (int ch = first; ch < last; ch++)
            for (uint32_t i0 = 0; i0 < n; i0 += WARP) {
                const uint32_t i = i0 + lane;
                const double v = i < n ? x[static_cast<size_t>(i) * channels + ch] : 0.0;
                const double square = v * v;
                const unsigned count = n - i0 < WARP ? n - i0 : WARP;
                for (unsigned j = 0; j < count; j++) {
                    const double s = __shfl_sync(FULL_MASK, square, j);
                    if (lane == 0) sum += s;
                }
            }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned w = 1; w < LEVELS_WARPS; w++)
            max = fxi_nm_keep_greater(max, warp_max[w]);
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

/* One packed sample to its double: normalize_pcm.h's conversion for each width. */
__device__ inline double widen(int16_t v)
{
    return fxi_nm_from_s16(v);
}
__device__ inline double widen(int32_t v)
{
    return fxi_nm_from_s32(v);
}
__device__ inline double widen(float v)
{
    return fxi_nm_from_f32(v);
}

template <typename Packed>
__global__ void __launch_bounds__(FXI_NM_RAMP_THREADS)
    unpack_kernel(const Packed *__restrict__ src, double *__restrict__ dst, size_t count)
{
    const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += step)
        dst[i] = widen(src[i]);
}

template <typename Packed>
fx_status unpack_launch(fx_context *ctx, const void *src, double *dst, size_t count)
{
    const size_t blocks = fxi_nm_ramp_blocks(count, ctx->cuda->multiprocessors);
    if (blocks == 0) return FX_OK;
    unpack_kernel<Packed>
        <<<static_cast<unsigned>(blocks), FXI_NM_RAMP_THREADS, 0, ctx->cuda->stream>>>(
            static_cast<const Packed *>(src), dst, count);
    return fxi_cuda_check_launch(ctx, "unpack_kernel");
}

} // namespace

extern "C" fx_status fxi_normalize_unpack_launch(fx_context *ctx, const void *src_device,
                                                 fxi_nm_pcm pcm, double *dst_device, size_t count)
{
    FXI_TRY(fxi_cuda_require(ctx, "normalize sample widening"));
    switch (pcm) {
    case FXI_NM_PCM_S16: return unpack_launch<int16_t>(ctx, src_device, dst_device, count);
    case FXI_NM_PCM_S32: return unpack_launch<int32_t>(ctx, src_device, dst_device, count);
    case FXI_NM_PCM_F32: return unpack_launch<float>(ctx, src_device, dst_device, count);
    default: return fxi_error(ctx, FX_EINVAL, "normalize: no widening from doubles");
    }
}

extern "C" fx_status fxi_normalize_levels_launch(fx_context *ctx, const double *slots_device,
                                                 const fxi_nm_levels_job *job, double *out_device)
{
    FXI_TRY(fxi_cuda_require(ctx, "normalize frame levels"));
    const size_t blocks = static_cast<size_t>(job->frames) * job->gain_channels;
    if (blocks == 0) return FX_OK;
    levels_kernel<<<static_cast<unsigned>(blocks), LEVELS_THREADS, 0, ctx->cuda->stream>>>(
        slots_device, *job, out_device);
    return fxi_cuda_check_launch(ctx, "levels_kernel");
}

extern "C" fx_status fxi_normalize_ramp_launch(fx_context *ctx, const double *src_device,
                                               double *dst_device, const double *params_device,
                                               const fxi_nm_ramp_batch *batch)
{
    FXI_TRY(fxi_cuda_require(ctx, "normalize gain ramp"));
    const size_t blocks = fxi_nm_ramp_blocks(batch->samples, ctx->cuda->multiprocessors);
    if (blocks == 0) return FX_OK;
    ramp_kernel<<<static_cast<unsigned>(blocks), FXI_NM_RAMP_THREADS, 0, ctx->cuda->stream>>>(
        src_device, dst_device, params_device, *batch);
    return fxi_cuda_check_launch(ctx, "ramp_kernel");
}
