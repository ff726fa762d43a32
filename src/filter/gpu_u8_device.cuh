/* Device helpers of the 8-bit fast path's kernels (gpu_u8.cu, gpu_u8_box.cu): the image a
 * block filters (one, or one of a batch), its samples with the border rule, and the finish
 * and store of one output with the CPU's arithmetic (filter_math.h). CUDA sources only. */
#ifndef FXKIT_FILTER_GPU_U8_DEVICE_CUH
#define FXKIT_FILTER_GPU_U8_DEVICE_CUH

#include "filter/gpu_device.cuh"
#include "filter/gpu_u8.h"

namespace fxi_u8_device
{

using namespace fxi_filter_device;

/* The rows a block filters: the args' image, or image blockIdx.z of a batch's table
 * (fx_filter_run_batch: one launch a pass for every image; shape and border rule are the
 * args', only the rows differ). */
struct u8_image {
    const uint8_t *src;
    uint8_t *dst;
    int64_t src_stride, dst_stride;
};

/* Every kernel takes BATCH as a template argument: the one-image instances fold the table
 * away and keep the code they had before batches (the two-pass kernels lost 6-11% on the
 * H200 with a run-time choice: box:121 1.62 -> 1.80 ms, gaussian:121 3.10 -> 3.30 ms). */
__device__ __forceinline__ u8_image image_of(const fxi_filter_args &a,
                                             const fxi_gpu_u8_image *__restrict__ batch)
{
    if (!batch)
        return {a.src, a.dst, static_cast<int64_t>(a.src_stride),
                static_cast<int64_t>(a.dst_stride)};
    const fxi_gpu_u8_image im = batch[blockIdx.z];
    return {im.src, im.dst, static_cast<int64_t>(im.src_stride),
            static_cast<int64_t>(im.dst_stride)};
}

/* Sample (x, c) of stored row `row` of the rows at src (any x: the border rule applies):
 * gpu_device.cuh's load for 8-bit samples, reading the block's image. */
__device__ __forceinline__ int32_t sample_at(const fxi_filter_args &a, const uint8_t *src,
                                             int64_t src_stride, int64_t row, int64_t x, int c)
{
    if (row < 0) return border_sample<int32_t>(a, c);
    const int64_t xx = x >= 0 && x < a.width ? x : fxi_border_index(x, a.width, a.border);
    if (xx < 0) return border_sample<int32_t>(a, c);
    return static_cast<int32_t>(src[row * src_stride + xx * a.channels + c]);
}

/* Element `ee` (any integer: the border rule applies) of stored row `row` (-1: a constant
 * row). */
template <bool BATCH>
__device__ __forceinline__ float element(const fxi_filter_args &a, const u8_image &im, int64_t row,
                                         int64_t ee)
{
    const int64_t px = floor_div(ee, a.channels);
    const int c = static_cast<int>(ee - px * a.channels);
    /* one image: gpu_device.cuh's load from the args' rows, as before batches */
    if (!BATCH) return static_cast<float>(load<int32_t>(a, row, px, c));
    return static_cast<float>(sample_at(a, im.src, im.src_stride, row, px, c));
}

/* A whole number below 2^23 (a byte, a uint16 row sum) as a float without the conversion
 * unit (a quarter of the FMA rate on Hopper): 2^23 + b has b in its low mantissa bits,
 * exactly. */
__device__ __forceinline__ float byte_float(uint32_t b)
{
    return __fsub_rn(__uint_as_float(0x4B000000u | b), 8388608.0f);
}

/* Output row r, element e (channel c) of a whole-number sum: the finished sum, or the
 * unfiltered channel (an alpha kept) copied from the input, as gpu_device.cuh's store. */
__device__ __forceinline__ void put_whole(const fxi_filter_args &a, const u8_image &im,
                                          const fxi_gpu_u8_taps &tp, int64_t r, int64_t e, int c,
                                          uint32_t sum)
{
    uint8_t v;
    if (c >= a.filter_channels)
        v = im.src[src_row(a, r + a.ay) * im.src_stride + e];
    else if (tp.int_finish)
        v = static_cast<uint8_t>(fxi_finish_u32_product(sum, tp.add, tp.mul, tp.shift, 255u));
    else
        v = static_cast<uint8_t>(
            fxi_finish_exact_at(&a.finish, static_cast<double>(sum) * tp.scale, e));
    im.dst[r * im.dst_stride + e] = v;
}

/* put_whole of an FP32 sum, a whole number below 2^24 (converted exactly). */
__device__ __forceinline__ void put(const fxi_filter_args &a, const u8_image &im,
                                    const fxi_gpu_u8_taps &tp, int64_t r, int64_t e, int c,
                                    float sum)
{
    put_whole(a, im, tp, r, e, c, __float2uint_rn(sum));
}

} /* namespace fxi_u8_device */
#endif
