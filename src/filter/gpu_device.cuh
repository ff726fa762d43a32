/* Device helpers of the filter kernels (gpu_kernels.cu, gpu_ring.cu): the accumulate
 * step, sample loads with the border rule, and the finish and store of one output, all
 * with the CPU's arithmetic (filter_math.h). Included by CUDA sources only. */
#ifndef FXKIT_FILTER_DEVICE_CUH
#define FXKIT_FILTER_DEVICE_CUH

#include "filter/gpu_kernels.h"

namespace fxi_filter_device
{

__device__ __forceinline__ int32_t mac(int32_t acc, int32_t w, int32_t s)
{
    return acc + w * s;
}
__device__ __forceinline__ int64_t mac(int64_t acc, int64_t w, int64_t s)
{
    return acc + w * s;
}
__device__ __forceinline__ float mac(float acc, float w, float s)
{
    return __fmaf_rn(w, s, acc);
}

template <typename A> __device__ __forceinline__ A start(const fxi_filter_args &)
{
    return 0;
}
template <> __device__ __forceinline__ float start<float>(const fxi_filter_args &a)
{
    return a.offset;
}

/* The constant border's value as the CPU's padded rows hold it. */
template <typename A> __device__ __forceinline__ A border_sample(const fxi_filter_args &a, int c)
{
    return static_cast<A>(a.border_value[c]);
}
template <> __device__ __forceinline__ double border_sample<double>(const fxi_filter_args &a, int c)
{
    return static_cast<double>(static_cast<float>(a.border_value[c])); /* float rows widened */
}

template <typename A> __device__ __forceinline__ A sample(int type, const uint8_t *row, int64_t i)
{
    switch (type) {
    case FX_U8: return static_cast<A>(row[i]);
    case FX_U16: return static_cast<A>(reinterpret_cast<const uint16_t *>(row)[i]);
    default: return static_cast<A>(reinterpret_cast<const float *>(row)[i]);
    }
}

/* The stored row of virtual row v, or -1 for a constant row. */
__device__ __forceinline__ int64_t src_row(const fxi_filter_args &a, int64_t v)
{
    return a.resolved ? v : fxi_border_index(a.v0 + v, a.height, a.border);
}

/* Sample (x, c) of stored row `row` (any x: the border rule applies). */
template <typename A>
__device__ __forceinline__ A load(const fxi_filter_args &a, int64_t row, int64_t x, int c)
{
    if (row < 0) return border_sample<A>(a, c);
    const int64_t xx = x >= 0 && x < a.width ? x : fxi_border_index(x, a.width, a.border);
    if (xx < 0) return border_sample<A>(a, c);
    return sample<A>(a.src_type, a.src + row * static_cast<int64_t>(a.src_stride),
                     xx * a.channels + c);
}

template <typename A>
__device__ __forceinline__ A fetch_texture(const fxi_filter_args &a, cudaTextureObject_t tex,
                                           int64_t row, int64_t x, int c)
{
    if (row < 0) return border_sample<A>(a, c);
    const int64_t xx = x >= 0 && x < a.width ? x : fxi_border_index(x, a.width, a.border);
    if (xx < 0) return border_sample<A>(a, c);
    const size_t size = a.src_type == FX_U8 ? 1 : a.src_type == FX_U16 ? 2 : 4;
    const int i = static_cast<int>(a.tex_offset + row * static_cast<int64_t>(a.src_stride / size) +
                                   xx * a.channels + c);
    switch (a.src_type) {
    case FX_U8: return static_cast<A>(tex1Dfetch<unsigned char>(tex, i));
    case FX_U16: return static_cast<A>(tex1Dfetch<unsigned short>(tex, i));
    default: return static_cast<A>(tex1Dfetch<float>(tex, i));
    }
}

/* The output value of a float accumulator, in float: integral on integer images (its
 * sample type's value exactly), the accumulator itself on float ones. */
__device__ __forceinline__ float finished_float(const fxi_filter_args &a, float acc)
{
    return a.integer_image ? fxi_finish_float(acc, a.maxval) : acc;
}
/* The output value of an accumulator at row element e (x * channels + c: the exact
 * finish's rule can depend on it, filter_math.h). */
__device__ __forceinline__ double finished(const fxi_filter_args &a, float acc, int64_t)
{
    return finished_float(a, acc);
}
__device__ __forceinline__ double finished(const fxi_filter_args &a, int32_t s, int64_t e)
{
    return fxi_finish_exact_at(&a.finish, static_cast<double>(s), e);
}
__device__ __forceinline__ double finished(const fxi_filter_args &a, int64_t s, int64_t e)
{
    return fxi_finish_exact_at(&a.finish, static_cast<double>(s), e);
}

/* Output row r, element e: the finished accumulator, or the unfiltered channel (alpha)
 * copied from the input. */
template <typename A>
__device__ __forceinline__ void store(const fxi_filter_args &a, int64_t r, int64_t e, int c, A acc)
{
    uint8_t *d = a.dst + r * static_cast<int64_t>(a.dst_stride);
    if (c >= a.filter_channels) {
        const int64_t row = src_row(a, r + a.ay);
        const uint8_t *s = a.src + row * static_cast<int64_t>(a.src_stride);
        switch (a.src_type) {
        case FX_U8: d[e] = s[e]; break;
        case FX_U16:
            reinterpret_cast<uint16_t *>(d)[e] = reinterpret_cast<const uint16_t *>(s)[e];
            break;
        default: reinterpret_cast<float *>(d)[e] = reinterpret_cast<const float *>(s)[e]; break;
        }
        return;
    }
    const double v = finished(a, acc, e);
    switch (a.src_type) {
    case FX_U8: d[e] = static_cast<uint8_t>(v); break;
    case FX_U16: reinterpret_cast<uint16_t *>(d)[e] = static_cast<uint16_t>(v); break;
    default: reinterpret_cast<float *>(d)[e] = static_cast<float>(v); break;
    }
}

__device__ __forceinline__ int64_t floor_div(int64_t p, int64_t q)
{
    int64_t d = p / q;
    return (p % q != 0 && p < 0) ? d - 1 : d;
}

/* box: the window's sum times the one numerator (exact), or as the CPU's float
 * (float)(V * w + offset) in double. */
template <typename S, typename A>
__device__ __forceinline__ A box_value(const fxi_filter_args &a, S v)
{
    return static_cast<A>(a.box_num) * static_cast<A>(v);
}
template <>
__device__ __forceinline__ float box_value<double, float>(const fxi_filter_args &a, double v)
{
    return static_cast<float>(v * a.box_w + static_cast<double>(a.offset));
}

} /* namespace fxi_filter_device */
#endif
