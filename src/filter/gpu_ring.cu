/* The ring kernels: separable and box as one block walking down a tall tile, so each
 * input row is read once per tile and nothing intermediate goes to device memory
 * (layouts in filter/gpu_geometry.h). They give the bytes of gpu_kernels.cu's kernels and of
 * the CPU: the same tap order and accumulators, the same finish (gpu_device.cuh).
 *
 * Templates: accumulator (and, for box, sum) type and the sample type, so the staging
 * loops read samples without a per-sample type switch; channels, borders and sizes stay
 * runtime arguments.
 */
#include "filter/gpu_device.cuh"

using namespace fxi_filter_device;

namespace
{

template <typename T> __device__ __forceinline__ const T *row_ptr(const fxi_filter_args &a, int64_t row)
{
    return reinterpret_cast<const T *>(a.src + row * static_cast<int64_t>(a.src_stride));
}

/* Element `ee` (any integer: the border rule applies) of virtual row v, as V. */
template <typename V, typename T>
__device__ __forceinline__ V element(const fxi_filter_args &a, int64_t row, int64_t ee)
{
    const int64_t px = floor_div(ee, a.channels);
    return load<V>(a, row, px, static_cast<int>(ee - px * a.channels));
}

/* Stage elements [first, first + count) of virtual row v into dst, as V. `interior`:
 * the whole span lies inside the row (no border rule per sample). */
template <typename V, typename T>
__device__ __forceinline__ void stage_row(const fxi_filter_args &a, int64_t v, int64_t first,
                                          int count, bool interior, V *dst)
{
    const int64_t row = src_row(a, v);
    if (row >= 0 && interior) {
        const T *p = row_ptr<T>(a, row) + first;
        for (int k = threadIdx.x; k < count; k += blockDim.x)
            dst[k] = static_cast<V>(p[k]);
    } else {
        for (int k = threadIdx.x; k < count; k += blockDim.x)
            dst[k] = element<V, T>(a, row, first + k);
    }
}

/* separable: chunk_rows input rows staged, row-filtered into the ring (one element per
 * thread), then every output row whose kh ring rows are there gets its column pass. */
template <typename A, typename T> __global__ void k_separable_ring(const fxi_filter_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const fxi_gpu_launch &g = a.launch;
    const int TW = g.tile_w, C = a.channels, W = g.in_width, t = threadIdx.x;
    const int RING = g.ring_rows;
    A *ring = reinterpret_cast<A *>(smem);
    A *in = ring + static_cast<size_t>(RING) * TW;
    /* the factors, read by every thread for every output: from shared memory */
    A *wr = in + static_cast<size_t>(g.chunk_rows) * W, *wc = wr + a.kw;
    for (int j = t; j < a.kw; j += blockDim.x)
        wr[j] = static_cast<const A *>(a.taps_row)[j];
    for (int i = t; i < a.kh; i += blockDim.x)
        wc[i] = static_cast<const A *>(a.taps_col)[i];
    const int64_t n = a.width * C;
    const int64_t e0 = static_cast<int64_t>(blockIdx.x) * TW, e = e0 + t;
    const int64_t first = e0 - static_cast<int64_t>(a.ax) * C;
    const bool interior = first >= 0 && first + W <= n;
    const int c = static_cast<int>(e % C);
    for (int64_t ty = blockIdx.y; ty < g.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * g.tile_h;
        if (r0 >= a.rows) break;
        /* rows of the tile counted from r0 (they fit in an int: tile_h + kh - 1) */
        const int rows = static_cast<int>(min(static_cast<int64_t>(g.tile_h), a.rows - r0));
        const int vrows = rows + a.kh - 1;
        int next = 0, write_slot = 0, read_slot = 0;
        for (int v = 0; v < vrows; v += g.chunk_rows) {
            const int cnt = min(g.chunk_rows, vrows - v);
            __syncthreads(); /* the previous chunk's staged rows are read */
            for (int q = 0; q < cnt; q++)
                stage_row<A, T>(a, r0 + v + q, first, W, interior, in + q * W);
            __syncthreads();
            for (int q = 0; q < cnt; q++) {
                const A *s = in + q * W + t;
                A rs = 0;
                for (int j = 0; j < a.kw; j++) {
                    const A w = wr[j];
                    if (w != 0) rs = mac(rs, w, s[j * C]);
                }
                ring[write_slot * TW + t] = rs;
                if (++write_slot == RING) write_slot = 0;
            }
            __syncthreads();
            /* rows r with r + kh - 1 <= v + cnt - 1 have all their ring rows */
            const int last = min(v + cnt - a.kh, rows - 1);
            for (; next <= last; next++) {
                A acc = start<A>(a);
                int slot = read_slot;
                for (int i = 0; i < a.kh; i++) {
                    const A w = wc[i];
                    if (w != 0) acc = mac(acc, w, ring[slot * TW + t]);
                    if (++slot == RING) slot = 0;
                }
                if (++read_slot == RING) read_slot = 0;
                if (e < n) store(a, r0 + next, e, c, acc);
            }
        }
    }
}

template <typename T> __device__ __forceinline__ T as_sample(double v)
{
    return static_cast<T>(v);
}

/* box: per output row, the column sums of the block's padded width are updated (add the
 * row entering the window, subtract the one leaving), then each group of `channels`
 * threads runs the row sums along its segment into a shared output row, which the
 * block writes out coalesced. */
template <typename S, typename A, typename T> __global__ void k_box_ring(const fxi_filter_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const fxi_gpu_launch &g = a.launch;
    const int C = a.channels, P = g.tile_w, SEG = g.box_segment, PE = g.in_width;
    const int t = threadIdx.x, threads = blockDim.x;
    S *col = reinterpret_cast<S *>(smem);
    T *out = reinterpret_cast<T *>(col + PE);
    const int64_t n = a.width * C;
    const int64_t p0 = static_cast<int64_t>(blockIdx.x) * P;
    const int64_t first = (p0 - a.ax) * C; /* element of padded column 0 */
    const bool interior = first >= 0 && first + PE <= n;
    const int outs = static_cast<int>(min(static_cast<int64_t>(P), a.width - p0)) * C;
    const int group = t / C, ch = t - group * C;
    const int x0 = group * SEG, x1 = min(x0 + SEG, outs / C);
    const bool filters = group < g.box_groups && ch < a.filter_channels && x0 < x1;
    const bool alpha = a.filter_channels < C;
    for (int64_t ty = blockIdx.y; ty < g.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * g.tile_h;
        if (r0 >= a.rows) break;
        const int64_t r1 = min(r0 + g.tile_h, a.rows);
        for (int64_t r = r0; r < r1; r++) {
            /* column sums; the previous row's output copy has read `out`, not `col` */
            if (r == r0) {
                for (int k = t; k < PE; k += threads)
                    col[k] = 0;
                for (int i = 0; i < a.kh; i++) {
                    const int64_t row = src_row(a, r0 + i);
                    if (row >= 0 && interior) {
                        const T *p = row_ptr<T>(a, row) + first;
                        for (int k = t; k < PE; k += threads)
                            col[k] += static_cast<S>(p[k]);
                    } else {
                        for (int k = t; k < PE; k += threads)
                            col[k] += element<S, T>(a, row, first + k);
                    }
                }
            } else {
                const int64_t in_row = src_row(a, r - 1 + a.kh), out_row = src_row(a, r - 1);
                if (in_row >= 0 && out_row >= 0 && interior) {
                    const T *pi = row_ptr<T>(a, in_row) + first, *po = row_ptr<T>(a, out_row) + first;
                    for (int k = t; k < PE; k += threads)
                        col[k] += static_cast<S>(pi[k]) - static_cast<S>(po[k]);
                } else {
                    for (int k = t; k < PE; k += threads)
                        col[k] += element<S, T>(a, in_row, first + k) -
                                  element<S, T>(a, out_row, first + k);
                }
            }
            __syncthreads();
            if (filters) {
                S h = 0;
                for (int j = 0; j < a.kw; j++)
                    h += col[(x0 + j) * C + ch];
                for (int x = x0;; x++) {
                    out[x * C + ch] =
                        as_sample<T>(finished(a, box_value<S, A>(a, h), (p0 + x) * C + ch));
                    if (x + 1 >= x1) break;
                    h += col[(x + a.kw) * C + ch] - col[x * C + ch];
                }
            }
            __syncthreads();
            T *d = reinterpret_cast<T *>(a.dst + r * static_cast<int64_t>(a.dst_stride)) + p0 * C;
            if (!alpha) {
                for (int k = t; k < outs; k += threads)
                    d[k] = out[k];
            } else {
                const T *s = row_ptr<T>(a, src_row(a, r + a.ay)) + p0 * C;
                for (int k = t; k < outs; k += threads)
                    d[k] = k % C < a.filter_channels ? out[k] : s[k];
            }
            /* the next row's column update writes `col`, which this row's sums have read
             * (the barrier above); `out` is next written after the barrier below it */
        }
        __syncthreads(); /* the next tile starts its sums from zero */
    }
}

fx_status check(fx_context *ctx, const char *name)
{
    return fxi_cuda_check_launch(ctx, name);
}

template <typename K>
fx_status launch(fx_context *ctx, K kernel, const fxi_filter_args &a, cudaStream_t stream,
                 const char *name)
{
    const fxi_gpu_launch &g = a.launch;
    if (g.shared_bytes > FXI_GPU_DEFAULT_SHARED_BYTES)
        FX_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(g.shared_bytes)));
    const dim3 grid(static_cast<unsigned>(g.grid_x), static_cast<unsigned>(g.grid_y));
    kernel<<<grid, g.block_x, g.shared_bytes, stream>>>(a);
    return check(ctx, name);
}

/* One instantiation per (accumulator, sample type) the planner produces: exact int32 or
 * int64 sums on integer images, float sums on any. */
template <typename A>
fx_status separable_for(fx_context *ctx, const fxi_filter_args &a, cudaStream_t stream)
{
    const char *name = "filter separable (ring)";
    switch (a.src_type) {
    case FX_U8: return launch(ctx, k_separable_ring<A, uint8_t>, a, stream, name);
    case FX_U16: return launch(ctx, k_separable_ring<A, uint16_t>, a, stream, name);
    default: return launch(ctx, k_separable_ring<A, float>, a, stream, name);
    }
}

template <typename S, typename A>
fx_status box_for(fx_context *ctx, const fxi_filter_args &a, cudaStream_t stream)
{
    const char *name = "filter box (ring)";
    switch (a.src_type) {
    case FX_U8: return launch(ctx, k_box_ring<S, A, uint8_t>, a, stream, name);
    case FX_U16: return launch(ctx, k_box_ring<S, A, uint16_t>, a, stream, name);
    default: return launch(ctx, k_box_ring<S, A, float>, a, stream, name);
    }
}

} /* namespace */

fx_status fxi_filter_launch_ring(fx_context *ctx, const fxi_filter_args &a, cudaStream_t stream)
{
    if (a.launch.kernel == FXI_GK_BOX) {
        switch (a.acc) {
        case FXI_ACC_I32: return box_for<int32_t, int32_t>(ctx, a, stream);
        case FXI_ACC_I64: return box_for<int64_t, int64_t>(ctx, a, stream);
        default: return box_for<double, float>(ctx, a, stream);
        }
    }
    switch (a.acc) {
    case FXI_ACC_I32: return separable_for<int32_t>(ctx, a, stream);
    case FXI_ACC_I64: return separable_for<int64_t>(ctx, a, stream);
    default: return separable_for<float>(ctx, a, stream);
    }
}
