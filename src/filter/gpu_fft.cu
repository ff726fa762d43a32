/* The fft strategy's own kernels (gpu_fft.h): pack tiles, multiply spectra, extract
 * outputs. The transforms are cuFFT's (gpu_fft_plan_cuda.c). Each kernel is one pass over
 * its data, so the whole strategy is bound by memory bandwidth (docs/ALGORITHMS.md counts
 * the passes):
 *
 *  - pack and extract: a block covers 32 columns of one tile and FXI_GPU_FFT_*_ROWS of its
 *    rows; its first lanes find the tile and its per-channel bias once (into shared
 *    memory), and a pack block its rows' source offsets; each thread keeps one column
 *    (its border-ruled source column found once) and walks rows, handling every channel
 *    of its pixel, so a warp reads a run of interleaved pixels and writes 128 contiguous
 *    bytes of each plane row. Templated on the sample type and the filtered channels: no
 *    per-sample type switch, no per-channel test (r84-r86 on the H200, Nsight Compute,
 *    float 31x31's first pass: pack 137 M instructions and 0.30 ms before, 59 M and
 *    0.24 ms after; extract 117 M and 0.22 ms, 55 M and 0.15 ms).
 *  - multiply: two complex values (one 16-byte load of each operand) a thread an
 *    iteration.
 *
 * What each thread computes per element is the shared rules of gpu_fft_tiles.h and
 * gpu_device.cuh (the CPU replay in tests/unit/test_filter_gpu_fft_tiles.c runs them);
 * tests/gpu/test_gpu_fft_kernels.c checks these kernels' bytes against a plain
 * reference. */
#include <algorithm>
#include <cstdint>

#include "filter/gpu_device.cuh"
#include "filter/gpu_fft.h"

namespace
{

/* launch shapes: filter_tuning.h */
constexpr int BLOCK_X = FXI_GPU_FFT_BLOCK_X, BLOCK_Y = FXI_GPU_FFT_BLOCK_Y;
constexpr int PACK_ROWS = FXI_GPU_FFT_PACK_ROWS, EXTRACT_ROWS = FXI_GPU_FFT_EXTRACT_ROWS;
static_assert(PACK_ROWS % BLOCK_Y == 0 && EXTRACT_ROWS % BLOCK_Y == 0,
              "a block's rows are whole steps of its thread rows");
constexpr int PACK_STEPS = PACK_ROWS / BLOCK_Y, EXTRACT_STEPS = EXTRACT_ROWS / BLOCK_Y;
constexpr int MULTIPLY_THREADS = FXI_GPU_FFT_MULTIPLY_THREADS;
constexpr unsigned int MULTIPLY_BLOCKS = FXI_GPU_FFT_MULTIPLY_BLOCKS; /* per plane, at most */
constexpr int MULTIPLY_PAIRS = FXI_GPU_FFT_MULTIPLY_PAIRS_PER_THREAD;
constexpr int MAX_CHANNELS = FX_MAX_IMAGE_CHANNELS;
static_assert(MAX_CHANNELS <= BLOCK_X, "a block's first warp sets up every channel");

/* Sample (x, c) of virtual row v as a float, borders applied: the CPU's padded rows
 * (fxi_padded_row with a float accumulator) hold the same value. */
__device__ __forceinline__ float fetch(const fxi_filter_args &a, int64_t v, int64_t x, int c)
{
    return fxi_filter_device::load<float>(a, fxi_filter_device::src_row(a, v), x, c);
}

__device__ __forceinline__ fxi_fft_tile tile_at(const fxi_fft_batch &b, int64_t local)
{
    return fxi_fft_region_tile(&b.region, b.first_tile + local, b.tiles_x, b.out_rows, b.out_cols);
}

__device__ __forceinline__ float tile_bias(const fxi_fft_batch &b, const fxi_fft_tile &box, int c)
{
    int64_t v, x;
    fxi_fft_bias_point(&box, b.a.kw, b.a.kh, b.a.ax, &v, &x);
    return fxi_fft_bias(fetch(b.a, v, x, c));
}

/* What every thread of a block needs of its tile (blockIdx.z of the batch). */
struct block_tile {
    fxi_fft_tile box;
    float value[MAX_CHANNELS]; /* per filtered channel: the bias (pack) or its response (extract) */
};

/* Lanes 0 … planes - 1 of the block's first warp find the tile and their channel's
 * value; the block waits for them. Every thread of the block must call it. */
template <bool RESPONSE>
__device__ __forceinline__ void tile_setup(const fxi_fft_batch &b, block_tile &s)
{
    const int c = static_cast<int>(threadIdx.x);
    if (threadIdx.y == 0 && c < b.planes) {
        const fxi_fft_tile box = tile_at(b, blockIdx.z);
        const float bias = tile_bias(b, box, c);
        s.value[c] = RESPONSE ? fxi_fft_bias_response(b.a.offset, bias, b.weight_sum) : bias;
        if (c == 0) s.box = box;
    }
    __syncthreads();
}

template <typename T>
__device__ __forceinline__ const T *source_row(const fxi_filter_args &a, int64_t row)
{
    return reinterpret_cast<const T *>(a.src + row * static_cast<int64_t>(a.src_stride));
}

/* Offsets into a tile's planes are 32-bit: a side is at most the nice side above twice
 * the kernel's (well under four times FX_KERNEL_MAX_SIDE), a row 2 floats more. */
static_assert(static_cast<int64_t>(MAX_CHANNELS) * (4 * FX_KERNEL_MAX_SIDE) *
                      (4 * FX_KERNEL_MAX_SIDE + 2) <
                  INT32_MAX,
              "a tile's planes are indexed by int");

/* A pack block's rows (stored in shared memory by the block, once): the byte offset of
 * the row the border rule gives in the source image, or one of two markers. */
constexpr int64_t ROW_OUTSIDE = -2; /* beyond the tile's input block: zeros */
constexpr int64_t ROW_BORDER = -1;  /* a constant border row (src_row's -1) */

/* grid: x over the plane's columns (BLOCK_X a block), y over its rows (PACK_ROWS a block),
 * z over the batch's tiles; each thread writes every filtered channel's plane for
 * PACK_STEPS rows of its column, all its rows read before any is written (the reads in
 * flight together). The block finds its rows' source offsets once, into shared memory
 * (the border rule and a 64-bit multiply a row, not a thread); a thread's offsets into
 * its planes are 32-bit (the static_assert above). Points beyond the
 * tile's input block are written as zeros (the in-place transform left other values
 * there), so no plane needs clearing first. */
template <typename T, int F>
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y) k_pack(const fxi_fft_batch b)
{
    __shared__ block_tile s;
    __shared__ int64_t row_offset[PACK_ROWS];
    tile_setup<false>(b, s);
    const fxi_filter_args &a = b.a;
    const fxi_fft_tile box = s.box;
    const int first_row = static_cast<int>(blockIdx.y) * PACK_ROWS;
    for (int k = static_cast<int>(threadIdx.y * BLOCK_X + threadIdx.x); k < PACK_ROWS;
         k += BLOCK_X * BLOCK_Y) {
        int64_t v, offset = ROW_OUTSIDE;
        if (first_row + k < b.n_rows && fxi_fft_block_row(&box, a.kh, first_row + k, &v)) {
            const int64_t row = fxi_filter_device::src_row(a, v);
            offset = row < 0 ? ROW_BORDER : row * static_cast<int64_t>(a.src_stride);
        }
        row_offset[k] = offset;
    }
    __syncthreads();
    const int j = static_cast<int>(blockIdx.x) * BLOCK_X + static_cast<int>(threadIdx.x);
    if (j >= b.n_cols) return;
    const int C = a.channels;
    float bias[F], border[F];
#pragma unroll
    for (int c = 0; c < F; c++) {
        bias[c] = s.value[c];
        border[c] = fxi_filter_device::border_sample<float>(a, c) - bias[c];
    }
    /* the column's stored pixel (the border rule applied once), or -1: constant border */
    int64_t x, xx = -1;
    const bool column_inside = fxi_fft_block_col(&box, a.kw, a.ax, j, &x);
    if (column_inside) xx = x >= 0 && x < a.width ? x : fxi_border_index(x, a.width, a.border);
    const int64_t column_bytes = xx * C * static_cast<int64_t>(sizeof(T));
    const int k0 = static_cast<int>(threadIdx.y);
    float value[PACK_STEPS][F];
#pragma unroll
    for (int k = 0; k < PACK_STEPS; k++) {
        const int64_t offset = row_offset[k0 + k * BLOCK_Y];
#pragma unroll
        for (int c = 0; c < F; c++)
            value[k][c] = 0; /* beyond the input block (or the plane) */
        if (offset == ROW_OUTSIDE || !column_inside) continue;
        if (offset == ROW_BORDER || xx < 0) {
#pragma unroll
            for (int c = 0; c < F; c++)
                value[k][c] = border[c];
        } else {
            const T *p = reinterpret_cast<const T *>(a.src + offset + column_bytes);
#pragma unroll
            for (int c = 0; c < F; c++)
                value[k][c] = static_cast<float>(p[c]) - bias[c];
        }
    }
    float *out = b.data + static_cast<int64_t>(blockIdx.z) * F * b.plane_floats + j;
    const int row_floats = static_cast<int>(b.row_floats), plane = static_cast<int>(b.plane_floats);
#pragma unroll
    for (int k = 0; k < PACK_STEPS; k++) {
        const int i = first_row + k0 + k * BLOCK_Y;
        if (i >= b.n_rows) break;
#pragma unroll
        for (int c = 0; c < F; c++)
            out[i * row_floats + c * plane] = value[k][c];
    }
}

/* grid: x over the tile's kept columns (BLOCK_X a block), y over its kept rows
 * (EXTRACT_ROWS a block), z over the batch's tiles; each thread finishes every channel
 * of its pixel for EXTRACT_STEPS rows, all their correlations read before any output is
 * written, and copies the unfiltered channels (alpha) from the input. Offsets into the
 * planes are 32-bit; the output row's offset steps by an add. */
template <typename T, int F>
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y) k_extract(const fxi_fft_batch b)
{
    __shared__ block_tile s;
    tile_setup<true>(b, s);
    const fxi_fft_tile box = s.box;
    const int xl = static_cast<int>(blockIdx.x) * BLOCK_X + static_cast<int>(threadIdx.x);
    if (xl >= box.ow) return;
    const fxi_filter_args &a = b.a;
    const int C = a.channels;
    float response[F];
#pragma unroll
    for (int c = 0; c < F; c++)
        response[c] = s.value[c];
    const float *in = b.data + static_cast<int64_t>(blockIdx.z) * F * b.plane_floats + xl;
    const int row_floats = static_cast<int>(b.row_floats), plane = static_cast<int>(b.plane_floats);
    const int r0 = static_cast<int>(blockIdx.y) * EXTRACT_ROWS + static_cast<int>(threadIdx.y);
    float corr[EXTRACT_STEPS][F];
#pragma unroll
    for (int k = 0; k < EXTRACT_STEPS; k++) {
        const int r = r0 + k * BLOCK_Y;
        if (r >= box.oh) break;
#pragma unroll
        for (int c = 0; c < F; c++)
            corr[k][c] = in[r * row_floats + c * plane];
    }
    const int64_t e0 = (box.x0 + xl) * C; /* the pixel's first element in its row */
    const int64_t row_step = BLOCK_Y * static_cast<int64_t>(a.dst_stride);
    int64_t row_offset = (box.y0 + r0) * static_cast<int64_t>(a.dst_stride);
#pragma unroll
    for (int k = 0; k < EXTRACT_STEPS; k++, row_offset += row_step) {
        const int r = r0 + k * BLOCK_Y;
        if (r >= box.oh) break;
        T *d = reinterpret_cast<T *>(a.dst + row_offset) + e0;
#pragma unroll
        for (int c = 0; c < F; c++)
            d[c] = static_cast<T>(
                fxi_filter_device::finished_float(a, fxi_fft_accumulator(corr[k][c], response[c])));
        if (F < C) { /* the alpha, as fxi_filter_device::store copies it */
            const int64_t y = box.y0 + r;
            const T *sp = source_row<T>(a, fxi_filter_device::src_row(a, y + a.ay)) + e0;
            for (int c = F; c < C; c++)
                d[c] = sp[c];
        }
    }
}

/* grid: x strides over one spectrum, y over the batch's planes (the kernel's spectrum is
 * read once per plane, from L2 after the first). PAIRS: two complex values a thread an
 * iteration, as one float4 (the planes' complex counts are even, so every plane starts
 * on 16 bytes); count is then in pairs. */
template <bool PAIRS>
__global__ void k_multiply(float2 *data, const float2 *spectrum, int64_t count, int64_t per_plane)
{
    float2 *plane = data + static_cast<int64_t>(blockIdx.y) * per_plane;
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
         k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        if (PAIRS) {
            float4 x = reinterpret_cast<float4 *>(plane)[k];
            const float4 w = reinterpret_cast<const float4 *>(spectrum)[k];
            fxi_fft_modulate(&x.x, &x.y, w.x, w.y);
            fxi_fft_modulate(&x.z, &x.w, w.z, w.w);
            reinterpret_cast<float4 *>(plane)[k] = x;
        } else {
            float2 x = plane[k];
            const float2 w = spectrum[k];
            fxi_fft_modulate(&x.x, &x.y, w.x, w.y);
            plane[k] = x;
        }
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

unsigned int blocks_for(int64_t count, int64_t per_block)
{
    const int64_t most = 65535;
    const int64_t n = (count + per_block - 1) / per_block;
    return static_cast<unsigned int>(n < most ? (n > 0 ? n : 1) : most);
}

unsigned int grid_side(int64_t count, int per_block)
{
    return static_cast<unsigned int>((count + per_block - 1) / per_block);
}

/* A pack or extract kernel (every instantiation has this signature). */
using tile_kernel = void (*)(const fxi_fft_batch);

/* Launch one over `cols` x `rows` points of each of the batch's tiles. */
fx_status launch_tiles(fx_context *ctx, tile_kernel kernel, const fxi_fft_batch *b, int64_t cols,
                       int64_t rows, int rows_per_block, cudaStream_t stream, const char *name)
{
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid(grid_side(cols, BLOCK_X), grid_side(rows, rows_per_block),
                    static_cast<unsigned int>(b->tiles));
    kernel<<<grid, block, 0, stream>>>(*b);
    return fxi_cuda_check_launch(ctx, name);
}

/* pack's and extract's instantiations (one per sample type and filtered channel count),
 * picked for a batch. */
struct pack_kernels {
    template <typename T, int F> static tile_kernel get()
    {
        return k_pack<T, F>;
    }
};
struct extract_kernels {
    template <typename T, int F> static tile_kernel get()
    {
        return k_extract<T, F>;
    }
};

template <typename KERNELS, typename T> tile_kernel for_planes(int planes)
{
    switch (planes) {
    case 1: return KERNELS::template get<T, 1>();
    case 2: return KERNELS::template get<T, 2>();
    case 3: return KERNELS::template get<T, 3>();
    default: return KERNELS::template get<T, 4>();
    }
}

template <typename KERNELS> tile_kernel for_batch(const fxi_fft_batch *b)
{
    switch (b->a.src_type) {
    case FX_U8: return for_planes<KERNELS, uint8_t>(b->planes);
    case FX_U16: return for_planes<KERNELS, uint16_t>(b->planes);
    default: return for_planes<KERNELS, float>(b->planes);
    }
}

} // namespace

extern "C" fx_status fxi_fft_pack_launch(fx_context *ctx, const fxi_fft_batch *b,
                                         cudaStream_t stream)
{
    FXI_RETURN_IF(b->planes < 1 || b->planes > MAX_CHANNELS, FX_EINVAL,
                  "filter fft on the GPU: %d filtered channels", b->planes);
    return launch_tiles(ctx, for_batch<pack_kernels>(b), b, b->n_cols, b->n_rows, PACK_ROWS, stream,
                        "k_pack (fft)");
}

extern "C" fx_status fxi_fft_extract_launch(fx_context *ctx, const fxi_fft_batch *b,
                                            cudaStream_t stream)
{
    FXI_RETURN_IF(b->planes < 1 || b->planes > MAX_CHANNELS, FX_EINVAL,
                  "filter fft on the GPU: %d filtered channels", b->planes);
    return launch_tiles(ctx, for_batch<extract_kernels>(b), b, b->out_cols, b->out_rows,
                        EXTRACT_ROWS, stream, "k_extract (fft)");
}

extern "C" fx_status fxi_fft_multiply_launch(fx_context *ctx, const fxi_fft_batch *b,
                                             cudaStream_t stream)
{
    const int64_t per_plane = b->plane_floats / 2; /* complex values */
    /* the pools' and cudaMalloc's blocks are aligned far beyond 16 bytes; checked anyway */
    const bool pairs = per_plane % 2 == 0 && reinterpret_cast<uintptr_t>(b->data) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(b->spectrum) % 16 == 0;
    const int64_t count = pairs ? per_plane / 2 : per_plane;
    /* enough blocks per plane to fill the GPU when the batch is a single plane */
    const unsigned int per =
        std::min(blocks_for(count, static_cast<int64_t>(MULTIPLY_THREADS) * MULTIPLY_PAIRS),
                 MULTIPLY_BLOCKS);
    const dim3 grid(per, static_cast<unsigned int>(b->tiles * b->planes));
    float2 *data = reinterpret_cast<float2 *>(b->data);
    const float2 *spectrum = reinterpret_cast<const float2 *>(b->spectrum);
    if (pairs)
        k_multiply<true><<<grid, MULTIPLY_THREADS, 0, stream>>>(data, spectrum, count, per_plane);
    else
        k_multiply<false><<<grid, MULTIPLY_THREADS, 0, stream>>>(data, spectrum, count, per_plane);
    return fxi_cuda_check_launch(ctx, "k_multiply (fft)");
}

extern "C" fx_status fxi_fft_conjugate_scale_launch(fx_context *ctx, float *spectrum, int64_t count,
                                                    float scale, cudaStream_t stream)
{
    k_conjugate_scale<<<blocks_for(count, MULTIPLY_THREADS), MULTIPLY_THREADS, 0, stream>>>(
        reinterpret_cast<float2 *>(spectrum), count, scale);
    return fxi_cuda_check_launch(ctx, "k_conjugate_scale (fft)");
}
