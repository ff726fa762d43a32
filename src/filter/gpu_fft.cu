/* The fft strategy's own kernels (gpu_fft.h): pack tiles, multiply spectra, extract
 * outputs. The transforms are cuFFT's (gpu_fft_plan_cuda.c). Each kernel is one pass over
 * its data, coalesced along the tile rows, so the whole strategy is bound by memory
 * bandwidth (docs/ALGORITHMS.md counts the passes). */
#include <algorithm>

#include "filter/gpu_device.cuh"
#include "filter/gpu_fft.h"

namespace
{

/* launch shapes: filter_tuning.h */
constexpr int BLOCK_X = FXI_GPU_FFT_BLOCK_X, BLOCK_Y = FXI_GPU_FFT_BLOCK_Y;
constexpr int MULTIPLY_THREADS = FXI_GPU_FFT_MULTIPLY_THREADS;
constexpr unsigned int MULTIPLY_BLOCKS = FXI_GPU_FFT_MULTIPLY_BLOCKS; /* per plane, at most */

/* Sample (x, c) of virtual row v as a float, borders applied: the CPU's padded rows
 * (fxi_padded_row with a float accumulator) hold the same value. */
__device__ __forceinline__ float fetch(const fxi_filter_args &a, int64_t v, int64_t x, int c)
{
    return fxi_filter_device::load<float>(a, fxi_filter_device::src_row(a, v), x, c);
}

__device__ __forceinline__ fxi_fft_tile tile_at(const fxi_fft_batch &b, int64_t local)
{
    return fxi_fft_tile_at(b.first_tile + local, b.tiles_x, b.out_rows, b.out_cols, b.a.rows,
                           b.a.width);
}

__device__ __forceinline__ float tile_bias(const fxi_fft_batch &b, const fxi_fft_tile &box, int c)
{
    int64_t v, x;
    fxi_fft_bias_point(&box, b.a.kw, b.a.kh, b.a.ax, &v, &x);
    return fxi_fft_bias(fetch(b.a, v, x, c));
}

/* grid: x over the tile's columns, y over its rows, z over the batch's planes */
__global__ void k_pack(const fxi_fft_batch b)
{
    const int j = static_cast<int>(blockIdx.x) * BLOCK_X + static_cast<int>(threadIdx.x);
    const int i = static_cast<int>(blockIdx.y) * BLOCK_Y + static_cast<int>(threadIdx.y);
    if (j >= b.n_cols || i >= b.n_rows) return;
    const int64_t plane = blockIdx.z;
    const int c = static_cast<int>(plane % b.planes);
    const fxi_fft_tile box = tile_at(b, plane / b.planes);
    int64_t v, x;
    float value = 0;
    if (fxi_fft_block_point(&box, b.a.kw, b.a.kh, b.a.ax, i, j, &v, &x))
        value = fetch(b.a, v, x, c) - tile_bias(b, box, c);
    b.data[plane * b.plane_floats + static_cast<int64_t>(i) * b.row_floats + j] = value;
}

/* grid: x strides over one spectrum, y over the batch's planes (the kernel's spectrum is
 * read once per plane, from L2 after the first) */
__global__ void k_multiply(float2 *data, const float2 *spectrum, int64_t per_plane)
{
    float2 *plane = data + static_cast<int64_t>(blockIdx.y) * per_plane;
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < per_plane;
         k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        float2 x = plane[k];
        const float2 w = spectrum[k];
        fxi_fft_modulate(&x.x, &x.y, w.x, w.y);
        plane[k] = x;
    }
}

__global__ void k_conjugate_scale(float2 *s, int64_t count, float scale)
{
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
         k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        float2 v = s[k];
        fxi_fft_conj_scale(&v.x, &v.y, scale);
        s[k] = v;
    }
}

/* grid: x over a tile row's elements (columns x channels), y over its rows, z over the
 * batch's tiles */
__global__ void k_extract(const fxi_fft_batch b)
{
    const fxi_filter_args &a = b.a;
    const int64_t e = static_cast<int64_t>(blockIdx.x) * BLOCK_X + threadIdx.x;
    const int r = static_cast<int>(blockIdx.y) * BLOCK_Y + static_cast<int>(threadIdx.y);
    const fxi_fft_tile box = tile_at(b, blockIdx.z);
    const int64_t xl = e / a.channels;
    const int c = static_cast<int>(e % a.channels);
    if (xl >= box.ow || r >= box.oh) return;
    const int64_t y = box.y0 + r, at = (box.x0 + xl) * a.channels + c;
    float acc = 0; /* the alpha (c >= filter_channels) is copied from the input by store */
    if (c < a.filter_channels) {
        const int64_t plane = static_cast<int64_t>(blockIdx.z) * b.planes + c;
        acc = fxi_fft_accumulator(b.data[plane * b.plane_floats + r * b.row_floats + xl], a.offset,
                                  tile_bias(b, box, c), b.weight_sum);
    }
    fxi_filter_device::store<float>(a, y, at, c, acc);
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
