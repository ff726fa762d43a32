/* The fft strategy's own kernels (filter_fft.h): pack tiles, multiply spectra, extract
 * outputs. The transforms are cuFFT's (filter_fft_plan.c). Each kernel is one pass over
 * its data, coalesced along the tile rows, so the whole strategy is bound by memory
 * bandwidth (docs/ALGORITHMS.md counts the passes). */
#include <algorithm>

#include "filter_fft.h"

namespace
{

constexpr int BLOCK_X = 32, BLOCK_Y = 8;
constexpr int MULTIPLY_THREADS = 256;
constexpr unsigned int MULTIPLY_BLOCKS = 1024; /* per plane, at most */

/* Sample (x, c) of virtual row v as a float, borders applied: the CPU's padded rows
 * (fxi_padded_row with a float accumulator) hold the same value. */
__device__ __forceinline__ float fetch(const fxi_filter_args &a, int64_t v, int64_t x, int c)
{
    const int64_t row = a.resolved ? v : fxi_border_index(a.v0 + v, a.height, a.border);
    if (row < 0) return static_cast<float>(a.border_value[c]);
    const int64_t xx = x >= 0 && x < a.width ? x : fxi_border_index(x, a.width, a.border);
    if (xx < 0) return static_cast<float>(a.border_value[c]);
    const uint8_t *r = a.src + row * static_cast<int64_t>(a.src_stride);
    const int64_t i = xx * a.channels + c;
    switch (a.src_type) {
    case FX_U8: return static_cast<float>(r[i]);
    case FX_U16: return static_cast<float>(reinterpret_cast<const uint16_t *>(r)[i]);
    default: return reinterpret_cast<const float *>(r)[i];
    }
}

struct tile_box {
    int64_t y0, x0; /* first output row (of the pass) and column */
    int oh, ow;     /* valid outputs */
};

__device__ __forceinline__ tile_box tile_at(const fxi_fft_batch &b, int64_t local)
{
    const int64_t t = b.first_tile + local;
    tile_box box;
    box.y0 = t / b.tiles_x * b.out_rows;
    box.x0 = t % b.tiles_x * b.out_cols;
    box.oh = static_cast<int>(min(static_cast<int64_t>(b.out_rows), b.a.rows - box.y0));
    box.ow = static_cast<int>(min(static_cast<int64_t>(b.out_cols), b.a.width - box.x0));
    return box;
}

/* The bias of a tile's channel: the sample at the centre of its input block (0 when
 * not finite: such a sample spreads over the whole tile anyway). */
__device__ __forceinline__ float tile_bias(const fxi_fft_batch &b, const tile_box &box, int c)
{
    const int in_h = box.oh + b.a.kh - 1, in_w = box.ow + b.a.kw - 1;
    const float v = fetch(b.a, box.y0 + in_h / 2, box.x0 - b.a.ax + in_w / 2, c);
    return isfinite(v) ? v : 0.0f;
}

/* grid: x over the tile's columns, y over its rows, z over the batch's planes */
__global__ void k_pack(const fxi_fft_batch b)
{
    const int j = static_cast<int>(blockIdx.x) * BLOCK_X + static_cast<int>(threadIdx.x);
    const int i = static_cast<int>(blockIdx.y) * BLOCK_Y + static_cast<int>(threadIdx.y);
    if (j >= b.n_cols || i >= b.n_rows) return;
    const int64_t plane = blockIdx.z;
    const int c = static_cast<int>(plane % b.planes);
    const tile_box box = tile_at(b, plane / b.planes);
    const int in_h = box.oh + b.a.kh - 1, in_w = box.ow + b.a.kw - 1;
    float v = 0;
    if (i < in_h && j < in_w)
        v = fetch(b.a, box.y0 + i, box.x0 - b.a.ax + j, c) - tile_bias(b, box, c);
    b.data[plane * b.plane_floats + static_cast<int64_t>(i) * b.row_floats + j] = v;
}

/* grid: x strides over one spectrum, y over the batch's planes (the kernel's spectrum is
 * read once per plane, from L2 after the first) */
__global__ void k_multiply(float2 *data, const float2 *spectrum, int64_t per_plane)
{
    float2 *plane = data + static_cast<int64_t>(blockIdx.y) * per_plane;
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < per_plane;
         k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const float2 x = plane[k], w = spectrum[k];
        /* as the CPU's modulate: no fused multiply-adds (nvcc --fmad=false) */
        plane[k] = make_float2(x.x * w.x - x.y * w.y, x.x * w.y + x.y * w.x);
    }
}

__global__ void k_conjugate_scale(float2 *s, int64_t count, float scale)
{
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
         k += static_cast<int64_t>(gridDim.x) * blockDim.x)
        s[k] = make_float2(s[k].x * scale, -s[k].y * scale);
}

/* grid: x over a tile row's elements (columns x channels), y over its rows, z over the
 * batch's tiles */
__global__ void k_extract(const fxi_fft_batch b)
{
    const fxi_filter_args &a = b.a;
    const int64_t e = static_cast<int64_t>(blockIdx.x) * BLOCK_X + threadIdx.x;
    const int r = static_cast<int>(blockIdx.y) * BLOCK_Y + static_cast<int>(threadIdx.y);
    const tile_box box = tile_at(b, blockIdx.z);
    const int64_t xl = e / a.channels;
    const int c = static_cast<int>(e % a.channels);
    if (xl >= box.ow || r >= box.oh) return;
    const int64_t y = box.y0 + r, at = (box.x0 + xl) * a.channels + c;
    uint8_t *d = a.dst + y * static_cast<int64_t>(a.dst_stride);
    double out;
    if (c >= a.filter_channels) { /* the alpha passes through */
        const int64_t v = y + a.ay;
        const int64_t row = a.resolved ? v : fxi_border_index(a.v0 + v, a.height, a.border);
        const uint8_t *s = a.src + row * static_cast<int64_t>(a.src_stride);
        switch (a.src_type) {
        case FX_U8: out = s[at]; break;
        case FX_U16: out = reinterpret_cast<const uint16_t *>(s)[at]; break;
        default: out = reinterpret_cast<const float *>(s)[at]; break;
        }
    } else {
        const int64_t plane = static_cast<int64_t>(blockIdx.z) * b.planes + c;
        /* the CPU's arithmetic: add = float(offset + bias * sum(w)) in double, one float add */
        const float add =
            static_cast<float>(a.offset + static_cast<double>(tile_bias(b, box, c)) * b.weight_sum);
        const float acc = b.data[plane * b.plane_floats + r * b.row_floats + xl] + add;
        out = a.integer_image ? fxi_finish_float(acc, a.maxval) : acc;
    }
    switch (a.src_type) {
    case FX_U8: d[at] = static_cast<uint8_t>(out); break;
    case FX_U16: reinterpret_cast<uint16_t *>(d)[at] = static_cast<uint16_t>(out); break;
    default: reinterpret_cast<float *>(d)[at] = static_cast<float>(out); break;
    }
}

unsigned int blocks_for(int64_t count, int threads)
{
    const int64_t most = 65535;
    const int64_t n = (count + threads - 1) / threads;
    return static_cast<unsigned int>(n < most ? (n > 0 ? n : 1) : most);
}

} // namespace

extern "C" fx_status fxi_fft_pack_launch(fx_context *ctx, const fxi_fft_batch *b,
                                         cudaStream_t stream)
{
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid(static_cast<unsigned int>((b->n_cols + BLOCK_X - 1) / BLOCK_X),
                    static_cast<unsigned int>((b->n_rows + BLOCK_Y - 1) / BLOCK_Y),
                    static_cast<unsigned int>(b->tiles * b->planes));
    k_pack<<<grid, block, 0, stream>>>(*b);
    return fxi_cuda_check_launch(ctx, "k_pack (fft)");
}

extern "C" fx_status fxi_fft_multiply_launch(fx_context *ctx, const fxi_fft_batch *b,
                                             cudaStream_t stream)
{
    const int64_t per_plane = b->plane_floats / 2;
    /* enough blocks per plane to fill the GPU when the batch is a single plane */
    const unsigned int per = std::min(blocks_for(per_plane, MULTIPLY_THREADS), MULTIPLY_BLOCKS);
    const dim3 grid(per, static_cast<unsigned int>(b->tiles * b->planes));
    k_multiply<<<grid, MULTIPLY_THREADS, 0, stream>>>(reinterpret_cast<float2 *>(b->data),
                                                      reinterpret_cast<const float2 *>(b->spectrum),
                                                      per_plane);
    return fxi_cuda_check_launch(ctx, "k_multiply (fft)");
}

extern "C" fx_status fxi_fft_extract_launch(fx_context *ctx, const fxi_fft_batch *b,
                                            cudaStream_t stream)
{
    const int64_t elements = static_cast<int64_t>(b->out_cols) * b->a.channels;
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid(static_cast<unsigned int>((elements + BLOCK_X - 1) / BLOCK_X),
                    static_cast<unsigned int>((b->out_rows + BLOCK_Y - 1) / BLOCK_Y),
                    static_cast<unsigned int>(b->tiles));
    k_extract<<<grid, block, 0, stream>>>(*b);
    return fxi_cuda_check_launch(ctx, "k_extract (fft)");
}

extern "C" fx_status fxi_fft_conjugate_scale_launch(fx_context *ctx, float *spectrum, int64_t count,
                                                    float scale, cudaStream_t stream)
{
    k_conjugate_scale<<<blocks_for(count, MULTIPLY_THREADS), MULTIPLY_THREADS, 0, stream>>>(
        reinterpret_cast<float2 *>(spectrum), count, scale);
    return fxi_cuda_check_launch(ctx, "k_conjugate_scale (fft)");
}
