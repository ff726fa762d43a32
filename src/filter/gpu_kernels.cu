/* Filter kernels: the four published variants (one template over a table), the fast
 * direct kernel (register blocking), the fused separable kernel and box by running
 * sums.
 *
 * Every kernel computes each output with the CPU's arithmetic: integer accumulation
 * for exact taps (int32 or int64, so any order gives the same sum), and for float taps
 * the CPU's order: direct from the offset over the taps in row-major order, skipping
 * zero taps, separable a row pass from 0 over the row factors then a column pass from
 * the offset over the column factors, each skipping zeros; every step an explicit
 * __fmaf_rn (and nvcc --fmad=false for the rest). Borders come from fxi_border_index,
 * the finish from fxi_finish_exact_at / fxi_finish_float (filter_math.h), so CPU and GPU
 * give the same bytes. Box on float images sums in double like the CPU, in another
 * order: there the two may differ in the last bit of the double sum.
 *
 * Templates: the accumulator type only (int32, int64, float; double for the float
 * box); sample type, channels, border and sizes are runtime arguments.
 */
#include "filter/gpu_device.cuh"

using namespace fxi_filter_device;

namespace
{

size_t fxi_gpu_taps_bytes_of(const fxi_filter_args &a)
{
    return static_cast<size_t>(a.kw) * static_cast<size_t>(a.kh) * (a.acc == FXI_ACC_I64 ? 8u : 4u);
}

enum { VAR_GLOBAL = 0, VAR_CONSTANT = 1, VAR_TEXTURE = 2 };
/* The rows per thread gpu_geometry.c plans with (filter_tuning.h). */
constexpr int DIRECT_RPT = FXI_GPU_DIRECT_ROWS_PER_THREAD;
constexpr int SEPARABLE_RPT = FXI_GPU_SEPARABLE_ROWS_PER_THREAD;
constexpr size_t DEFAULT_SHARED = FXI_GPU_DEFAULT_SHARED_BYTES;

__constant__ unsigned char c_taps[FXI_GPU_CONSTANT_BYTES];

template <typename A, int VAR> __device__ __forceinline__ A tap(const fxi_filter_args &a, int k)
{
    if (VAR == VAR_CONSTANT) return reinterpret_cast<const A *>(c_taps)[k];
    return static_cast<const A *>(a.taps)[k];
}

/* ---- the published variants: one thread per output ---- */

template <typename A, int VAR>
__global__ void k_simple(const fxi_filter_args a, cudaTextureObject_t tex)
{
    const int64_t n = a.width * a.channels;
    const int64_t e = static_cast<int64_t>(blockIdx.x) * a.launch.tile_w + threadIdx.x;
    if (e >= n) return;
    const int c = static_cast<int>(e % a.channels);
    const int64_t x = e / a.channels;
    for (int64_t ty = blockIdx.y; ty < a.launch.tiles_y; ty += gridDim.y) {
        const int64_t r = ty * a.launch.tile_h + threadIdx.y;
        if (r >= a.rows) break;
        A acc = start<A>(a);
        if (c < a.filter_channels)
            for (int i = 0; i < a.kh; i++) {
                const int64_t row = src_row(a, r + i);
                for (int j = 0; j < a.kw; j++) {
                    const A w = tap<A, VAR>(a, i * a.kw + j);
                    if (w == 0) continue;
                    const A s = VAR == VAR_TEXTURE ? fetch_texture<A>(a, tex, row, x - a.ax + j, c)
                                                   : load<A>(a, row, x - a.ax + j, c);
                    acc = mac(acc, w, s);
                }
            }
        store(a, r, e, c, acc);
    }
}

/* gpu-shared: the block's input tile (with its halo, borders applied, converted) in
 * shared memory, chunk_rows kernel rows at a time; taps in row-major order. */
template <typename A> __global__ void k_shared(const fxi_filter_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    A *tile = reinterpret_cast<A *>(smem);
    const int B = a.launch.tile_w, C = a.channels;
    const int64_t n = a.width * C;
    const int width = B + (a.kw - 1) * C;
    const int64_t e0 = static_cast<int64_t>(blockIdx.x) * B, e = e0 + threadIdx.x;
    const int c = static_cast<int>(e % C);
    const int tid = threadIdx.y * B + threadIdx.x, threads = B * a.launch.block_y;
    const A *taps = static_cast<const A *>(a.taps);
    for (int64_t ty = blockIdx.y; ty < a.launch.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * a.launch.tile_h, r = r0 + threadIdx.y;
        const bool active = e < n && r < a.rows;
        A acc = start<A>(a);
        for (int i0 = 0; i0 < a.kh; i0 += a.launch.chunk_rows) {
            const int kr = min(a.launch.chunk_rows, a.kh - i0);
            const int count = (a.launch.tile_h + kr - 1) * width;
            __syncthreads(); /* the previous chunk is read */
            for (int k = tid; k < count; k += threads) {
                const int q = k / width, col = k % width;
                const int64_t v = r0 + i0 + q;
                A val = 0;
                if (v < a.rows + a.kh - 1) {
                    const int64_t ee = e0 - static_cast<int64_t>(a.ax) * C + col;
                    const int64_t px = floor_div(ee, C);
                    val = load<A>(a, src_row(a, v), px, static_cast<int>(ee - px * C));
                }
                tile[k] = val;
            }
            __syncthreads();
            if (active && c < a.filter_channels)
                for (int i = i0; i < i0 + kr; i++) {
                    const A *t = tile + (threadIdx.y + i - i0) * width + threadIdx.x;
                    for (int j = 0; j < a.kw; j++) {
                        const A w = taps[i * a.kw + j];
                        if (w == 0) continue;
                        acc = mac(acc, w, t[j * C]);
                    }
                }
        }
        if (active) store(a, r, e, c, acc);
    }
}

/* direct: DIRECT_RPT outputs one below the other per thread; every input sample is
 * loaded once and used for each of them (register blocking). Per output the taps still
 * come in row-major order: virtual rows ascending, then columns. */
template <typename A> __global__ void k_direct(const fxi_filter_args a)
{
    const int C = a.channels;
    const int64_t n = a.width * C;
    const int64_t e = static_cast<int64_t>(blockIdx.x) * a.launch.tile_w + threadIdx.x;
    if (e >= n) return;
    const int c = static_cast<int>(e % C);
    const int64_t x = e / C - a.ax;
    const A *taps = static_cast<const A *>(a.taps);
    for (int64_t ty = blockIdx.y; ty < a.launch.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * a.launch.tile_h + static_cast<int64_t>(threadIdx.y) * DIRECT_RPT;
        if (r0 >= a.rows) break;
        A acc[DIRECT_RPT];
#pragma unroll
        for (int k = 0; k < DIRECT_RPT; k++)
            acc[k] = start<A>(a);
        if (c < a.filter_channels) {
            const int64_t vend = min(r0 + DIRECT_RPT + a.kh - 1, a.rows + a.kh - 1);
            for (int64_t v = r0; v < vend; v++) {
                const int64_t row = src_row(a, v);
                const int vi = static_cast<int>(v - r0);
                for (int j = 0; j < a.kw; j++) {
                    const A s = load<A>(a, row, x + j, c);
#pragma unroll
                    for (int k = 0; k < DIRECT_RPT; k++) {
                        const int i = vi - k;
                        if (i < 0 || i >= a.kh) continue;
                        const A w = taps[i * a.kw + j];
                        if (w != 0) acc[k] = mac(acc[k], w, s);
                    }
                }
            }
        }
#pragma unroll
        for (int k = 0; k < DIRECT_RPT; k++)
            if (r0 + k < a.rows) store(a, r0 + k, e, c, acc[k]);
    }
}

/* separable, fused: the row pass of chunk_rows virtual rows goes to shared memory, the
 * column pass reads it; no intermediate image in device memory. */
template <typename A> __global__ void k_separable(const fxi_filter_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    A *buf = reinterpret_cast<A *>(smem);
    const int TW = a.launch.tile_w, C = a.channels;
    const int64_t n = a.width * C;
    const int64_t e0 = static_cast<int64_t>(blockIdx.x) * TW, e = e0 + threadIdx.x;
    const int c = static_cast<int>(e % C);
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
    const A *wr = static_cast<const A *>(a.taps_row), *wc = static_cast<const A *>(a.taps_col);
    const int rr0 = threadIdx.y * SEPARABLE_RPT;
    for (int64_t ty = blockIdx.y; ty < a.launch.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * a.launch.tile_h;
        const int64_t total =
            min(static_cast<int64_t>(a.launch.tile_h) + a.kh - 1, a.rows + a.kh - 1 - r0);
        A acc[SEPARABLE_RPT];
#pragma unroll
        for (int k = 0; k < SEPARABLE_RPT; k++)
            acc[k] = start<A>(a);
        for (int c0 = 0; c0 < total; c0 += a.launch.chunk_rows) {
            const int cn =
                static_cast<int>(min(static_cast<int64_t>(a.launch.chunk_rows), total - c0));
            __syncthreads(); /* the previous chunk is read */
            for (int k = tid; k < cn * TW; k += threads) {
                const int q = k / TW;
                const int64_t ee = e0 + k % TW;
                A rs = 0;
                if (ee < n) {
                    const int64_t px = ee / C - a.ax;
                    const int cc = static_cast<int>(ee % C);
                    const int64_t row = src_row(a, r0 + c0 + q);
                    for (int j = 0; j < a.kw; j++) {
                        const A w = wr[j];
                        if (w == 0) continue;
                        rs = mac(rs, w, load<A>(a, row, px + j, cc));
                    }
                }
                buf[k] = rs;
            }
            __syncthreads();
            for (int q = 0; q < cn; q++) {
                const A s = buf[q * TW + threadIdx.x];
#pragma unroll
                for (int k = 0; k < SEPARABLE_RPT; k++) {
                    const int i = c0 + q - (rr0 + k);
                    if (i < 0 || i >= a.kh) continue;
                    const A w = wc[i];
                    if (w != 0) acc[k] = mac(acc[k], w, s);
                }
            }
        }
        if (e < n)
#pragma unroll
            for (int k = 0; k < SEPARABLE_RPT; k++)
                if (r0 + rr0 + k < a.rows) store(a, r0 + rr0 + k, e, c, acc[k]);
    }
}

/* box, column pass: per column of the padded row, the sum of the kh rows of each
 * output row's window, by a running sum down a strip of rows. */
template <typename S> __global__ void k_box_columns(const fxi_filter_args a)
{
    const int C = a.channels;
    const int64_t padded = (a.width + a.kw - 1) * C;
    const int64_t pe = static_cast<int64_t>(blockIdx.x) * a.launch.tile_w + threadIdx.x;
    if (pe >= padded) return;
    const int64_t x = pe / C - a.ax;
    const int c = static_cast<int>(pe % C);
    for (int64_t ty = blockIdx.y; ty < a.launch.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * a.launch.box_strip;
        if (r0 >= a.rows) break;
        const int64_t r1 = min(r0 + a.launch.box_strip, a.rows);
        S v = 0;
        for (int i = 0; i < a.kh; i++)
            v += load<S>(a, src_row(a, r0 + i), x, c);
        for (int64_t r = r0;; r++) {
            reinterpret_cast<S *>(static_cast<uint8_t *>(a.work) +
                                  r * static_cast<int64_t>(a.work_stride))[pe] = v;
            if (r + 1 >= r1) break;
            v += load<S>(a, src_row(a, r + a.kh), x, c) - load<S>(a, src_row(a, r), x, c);
        }
    }
}

/* box, row pass: running sums along the column sums, segments of box_segment pixels of
 * one channel per thread; exact sums times the one numerator, float as the CPU's
 * (float)(V * w + offset) in double. */
template <typename S, typename A> __global__ void k_box_rows(const fxi_filter_args a)
{
    const int C = a.channels, seg = a.launch.box_segment;
    const int64_t segments = (a.width + seg - 1) / seg;
    for (int64_t item = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         item < a.launch.box_items; item += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int c = static_cast<int>(item % C);
        const int64_t t = item / C, r = t / segments, x0 = t % segments * seg;
        const int64_t x1 = min(x0 + seg, a.width);
        const S *w = reinterpret_cast<const S *>(static_cast<const uint8_t *>(a.work) +
                                                 r * static_cast<int64_t>(a.work_stride));
        S h = 0;
        for (int j = 0; j < a.kw; j++)
            h += w[(x0 + j) * C + c];
        for (int64_t x = x0;; x++) {
            store(a, r, x * C + c, c, box_value<S, A>(a, h));
            if (x + 1 >= x1) break;
            h += w[(x + a.kw) * C + c] - w[x * C + c];
        }
    }
}

/* ---- the launcher ---- */

fx_status check(fx_context *ctx, const char *name)
{
    return fxi_cuda_check_launch(ctx, name);
}

template <typename A>
fx_status launch_acc(fx_context *ctx, const fxi_filter_args &a, cudaStream_t stream,
                     cudaTextureObject_t tex)
{
    const fxi_gpu_launch &g = a.launch;
    const dim3 block(g.block_x, g.block_y);
    const dim3 grid(static_cast<unsigned>(g.grid_x), static_cast<unsigned>(g.grid_y));
    switch (g.kernel) {
    case FXI_GK_GLOBAL:
        k_simple<A, VAR_GLOBAL><<<grid, block, 0, stream>>>(a, tex);
        return check(ctx, "filter gpu-global");
    case FXI_GK_CONSTANT:
        FX_CUDA(cudaMemcpyToSymbolAsync(c_taps, a.taps, fxi_gpu_taps_bytes_of(a), 0,
                                        cudaMemcpyDeviceToDevice, stream));
        k_simple<A, VAR_CONSTANT><<<grid, block, 0, stream>>>(a, tex);
        return check(ctx, "filter gpu-constant");
    case FXI_GK_TEXTURE:
        k_simple<A, VAR_TEXTURE><<<grid, block, 0, stream>>>(a, tex);
        return check(ctx, "filter gpu-texture");
    case FXI_GK_SHARED:
        if (g.shared_bytes > DEFAULT_SHARED)
            FX_CUDA(cudaFuncSetAttribute(k_shared<A>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(g.shared_bytes)));
        k_shared<A><<<grid, block, g.shared_bytes, stream>>>(a);
        return check(ctx, "filter gpu-shared");
    case FXI_GK_DIRECT:
        k_direct<A><<<grid, block, 0, stream>>>(a);
        return check(ctx, "filter direct");
    case FXI_GK_SEPARABLE:
        if (g.shared_bytes > DEFAULT_SHARED)
            FX_CUDA(cudaFuncSetAttribute(k_separable<A>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(g.shared_bytes)));
        k_separable<A><<<grid, block, g.shared_bytes, stream>>>(a);
        return check(ctx, "filter separable");
    default: return fxi_error(ctx, FX_EINVAL, "filter: unknown GPU kernel %d", g.kernel);
    }
}

template <typename S, typename A>
fx_status launch_box(fx_context *ctx, const fxi_filter_args &a, cudaStream_t stream)
{
    const fxi_gpu_launch &g = a.launch;
    const dim3 grid(static_cast<unsigned>(g.grid_x), static_cast<unsigned>(g.grid_y));
    k_box_columns<S><<<grid, g.block_x, 0, stream>>>(a);
    FXI_TRY(check(ctx, "filter box (columns)"));
    k_box_rows<S, A><<<static_cast<unsigned>(g.box_grid_x), g.block_x, 0, stream>>>(a);
    return check(ctx, "filter box (rows)");
}

fx_status make_texture(fx_context *ctx, fxi_filter_args &a, cudaTextureObject_t *tex)
{
    /* The texture starts at the aligned address at or below src; indices add the rest. */
    const uintptr_t addr = reinterpret_cast<uintptr_t>(a.src);
    const uintptr_t base = addr & ~static_cast<uintptr_t>(FXI_GPU_TEXTURE_ALIGN - 1);
    const size_t size = a.src_type == FX_U8 ? 1 : a.src_type == FX_U16 ? 2 : 4;
    FXI_RETURN_IF((addr - base) % size != 0 || a.src_stride % size != 0, FX_EUNSUPPORTED,
                 "filter --strategy gpu-texture: the image's address or stride is not a whole "
                 "number of samples");
    a.tex_offset = static_cast<int64_t>((addr - base) / size);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = reinterpret_cast<void *>(base);
    res.res.linear.desc = a.src_type == FX_U8    ? cudaCreateChannelDesc<unsigned char>()
                          : a.src_type == FX_U16 ? cudaCreateChannelDesc<unsigned short>()
                                                 : cudaCreateChannelDesc<float>();
    const int64_t rows = a.resolved ? a.rows + a.kh - 1 : a.height;
    res.res.linear.sizeInBytes = static_cast<size_t>(rows) * a.src_stride + (addr - base);
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    td.addressMode[0] = cudaAddressModeClamp; /* borders are applied before the fetch */
    FX_CUDA(cudaCreateTextureObject(tex, &res, &td, nullptr));
    return FX_OK;
}

} // namespace

extern "C" fx_status fxi_filter_launch(fx_context *ctx, const fxi_filter_args *ap,
                                       cudaStream_t stream)
{
    fxi_filter_args a = *ap;
    if (a.launch.ring) return fxi_filter_launch_ring(ctx, a, stream);
    if (a.launch.kernel == FXI_GK_BOX) {
        switch (a.acc) {
        case FXI_ACC_I32: return launch_box<int32_t, int32_t>(ctx, a, stream);
        case FXI_ACC_I64: return launch_box<int64_t, int64_t>(ctx, a, stream);
        default: return launch_box<double, float>(ctx, a, stream);
        }
    }
    cudaTextureObject_t tex = 0;
    if (a.launch.kernel == FXI_GK_TEXTURE) FXI_TRY(make_texture(ctx, a, &tex));
    fx_status st;
    switch (a.acc) {
    case FXI_ACC_I32: st = launch_acc<int32_t>(ctx, a, stream, tex); break;
    case FXI_ACC_I64: st = launch_acc<int64_t>(ctx, a, stream, tex); break;
    default: st = launch_acc<float>(ctx, a, stream, tex); break;
    }
    if (tex) {
        /* The texture object lives until the pass that reads it is done. */
        cudaError_t e = cudaStreamSynchronize(stream);
        (void)cudaDestroyTextureObject(tex);
        if (st == FX_OK && e != cudaSuccess)
            st = fxi_cuda_error(ctx, static_cast<int>(e), "cudaStreamSynchronize (texture pass)");
    }
    return st;
}
