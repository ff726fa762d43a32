/* Sample-type conversion on the device, with exactly fx_image_convert's rule
 * (src/core/image.c), so GPU and CPU give identical bytes:
 *
 *   u8 -> u16   v * 257 (exact)
 *   u16 -> u8   v / 257, rounded half to even, saturated
 *   int -> f32  (float)(v / max), the division in double
 *   f32 -> int  v * max, rounded half to even, saturated; NaN -> 0
 *   same type   unchanged
 *
 * The arithmetic is the CPU's, operation for operation, in double: IEEE
 * division and rint (round half to even) give the same results on both sides,
 * and --fmad=false keeps nvcc from contracting v * max / smax.
 *
 * One kernel template over the (source, destination) type pair; the launcher
 * picks the instantiation from a table indexed by the fx_sample_type pair.
 */
#include <array>
#include <cstdint>
#include <type_traits>

#include "gpu/gpu_internal.h"

namespace
{

/* Launch geometry: 256 threads (8 warps) per block, a common size that leaves
 * the scheduler enough warps to hide memory latency; the grid is capped at
 * CONVERT_BLOCKS_PER_SM resident-sized blocks per multiprocessor and each
 * thread strides over the rest, so any size is one launch with no tail of tiny
 * blocks. The kernel is memory-bound: more blocks would not add bandwidth. */
constexpr int CONVERT_THREADS = 256;
constexpr int CONVERT_BLOCKS_PER_SM = 8;

constexpr double U8_TO_U16_SCALE = 257.0; /* 255 * 257 = 65535 */

template <typename T> struct sample_traits;
template <> struct sample_traits<uint8_t> {
    static constexpr double max = 255.0;
    static constexpr fx_sample_type type = FX_U8;
};
template <> struct sample_traits<uint16_t> {
    static constexpr double max = 65535.0;
    static constexpr fx_sample_type type = FX_U16;
};
template <> struct sample_traits<float> {
    static constexpr double max = 1.0;
    static constexpr fx_sample_type type = FX_F32;
};

/* Round half to even and saturate to [0, max]; NaN gives 0 (the CPU's saturate). */
__device__ __forceinline__ double saturate(double v, double max)
{
    if (!(v > 0.0)) return 0.0;
    if (v > max) return max;
    return rint(v);
}

template <typename S, typename D> __device__ __forceinline__ D convert_sample(S s)
{
    if constexpr (std::is_same_v<S, D>) {
        return s;
    } else {
        const double v = static_cast<double>(s);
        constexpr double smax = sample_traits<S>::max, dmax = sample_traits<D>::max;
        if constexpr (std::is_same_v<D, float>)
            return static_cast<float>(v / smax);
        else if constexpr (std::is_same_v<S, uint8_t> && std::is_same_v<D, uint16_t>)
            return static_cast<D>(v * U8_TO_U16_SCALE);
        else if constexpr (std::is_same_v<S, uint16_t> && std::is_same_v<D, uint8_t>)
            return static_cast<D>(saturate(v / U8_TO_U16_SCALE, dmax));
        else
            return static_cast<D>(saturate(v * dmax / smax, dmax));
    }
}

template <typename S, typename D>
__global__ void __launch_bounds__(CONVERT_THREADS)
    convert_kernel(const S *__restrict__ src, D *__restrict__ dst, size_t count)
{
    const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += step)
        dst[i] = convert_sample<S, D>(src[i]);
}

using launch_fn = void (*)(const void *src, void *dst, size_t count, unsigned blocks,
                           cudaStream_t stream);

template <typename S, typename D>
void launch(const void *src, void *dst, size_t count, unsigned blocks, cudaStream_t stream)
{
    convert_kernel<S, D><<<blocks, CONVERT_THREADS, 0, stream>>>(static_cast<const S *>(src),
                                                                 static_cast<D *>(dst), count);
}

/* Row of the table: every destination type for one source type, in
 * fx_sample_type order (checked below). */
template <typename S> constexpr std::array<launch_fn, 3> launch_row()
{
    return {launch<S, uint8_t>, launch<S, uint16_t>, launch<S, float>};
}
static_assert(sample_traits<uint8_t>::type == 1 && sample_traits<uint16_t>::type == 2 &&
                  sample_traits<float>::type == 3,
              "the launch table is indexed by fx_sample_type - 1");
constexpr std::array<std::array<launch_fn, 3>, 3> launch_table = {
    launch_row<uint8_t>(), launch_row<uint16_t>(), launch_row<float>()};

bool known_type(fx_sample_type t)
{
    return t == FX_U8 || t == FX_U16 || t == FX_F32;
}

} // namespace

extern "C" fx_status fxi_cuda_convert_launch(fx_context *ctx, const void *src_device,
                                             fx_sample_type src_type, void *dst_device,
                                             fx_sample_type dst_type, size_t count)
{
    FXI_TRY(fxi_cuda_require(ctx, "device conversion"));
    FXI_RETURN_IF(!known_type(src_type) || !known_type(dst_type), FX_EINVAL,
                 "device conversion: unknown sample type (%d to %d)", static_cast<int>(src_type),
                 static_cast<int>(dst_type));
    if (count == 0) return FX_OK;
    const size_t needed = (count + CONVERT_THREADS - 1) / CONVERT_THREADS;
    const size_t cap = static_cast<size_t>(ctx->cuda->multiprocessors) * CONVERT_BLOCKS_PER_SM;
    const unsigned blocks = static_cast<unsigned>(needed < cap ? needed : cap);
    launch_table[src_type - 1][dst_type - 1](src_device, dst_device, count, blocks,
                                             ctx->cuda->stream);
    return fxi_cuda_check_launch(ctx, "convert_kernel");
}
