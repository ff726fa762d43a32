/* Equalization kernels: histograms, LUTs and the mapping pass.
 *
 * 8-bit global gray/hsv/luma/rgb/hsv-float with 256 bins and no mask take the fast kernels
 * below (eq_hist_u8, eq_lut, eq_map_u8); their histogram and mapping passes also run
 * on bands of rows (the *_rows launchers), so that a host image's bands are counted
 * and mapped on their staging streams while other bands cross PCIe. Otherwise three
 * launches per image, all on the context's stream:
 *   1. eq_histogram: per block a shared-memory histogram (several keys per pixel for
 *      rgb), filled with warp-aggregated atomics (lanes with the same bin add once),
 *      flushed with one global atomic per used bin. For CLAHE grid.y is the tile
 *      and the block reads the tile through OpenCV's reflect-101 padding; the whole
 *      image is one tile for global equalization. Integer atomics: exact counts.
 *   2. eq_lut: one block per histogram (plane x tile): clip and redistribute
 *      (CLAHE) or find the scale's base (global), a block scan, then the levels
 *      through the equalize_math.h functions the CPU uses; global LUTs also expand
 *      to one entry per key value.
 *   3. eq_map: one pass that computes each pixel's keys, maps them (LUT or CLAHE
 *      blend) and writes the colour result: fxi_pixel_keys / fxi_pixel_write, the
 *      CPU's own per-pixel code.
 * The image's sample type is the one template parameter (u8, u16); everything else
 * is a runtime argument, so nvcc builds six kernels in all.
 */
#include <algorithm>

#include "equalize/gpu_kernels.h"

namespace
{

constexpr unsigned FULL_WARP = 0xffffffffu;
constexpr int WARP = 32;
/* launch and shared-memory sizes: equalize_tuning.h */
constexpr size_t SHARED_HISTOGRAM_BYTES = FXI_EQ_GPU_SHARED_HISTOGRAM_BYTES;
constexpr int BLOCKS_PER_SM = FXI_EQ_GPU_BLOCKS_PER_SM;
constexpr unsigned MAX_SCAN_THREADS = 1024;

template <typename T>
__device__ __forceinline__ void load_pixel(const uint8_t *row, int x, int ch, uint32_t *px)
{
    const T *p = reinterpret_cast<const T *>(row) + static_cast<size_t>(x) * ch;
    for (int c = 0; c < ch; c++)
        px[c] = p[c];
}

template <typename T>
__device__ __forceinline__ void store_pixel(uint8_t *row, int x, int ch, const uint32_t *px)
{
    T *p = reinterpret_cast<T *>(row) + static_cast<size_t>(x) * ch;
    for (int c = 0; c < ch; c++)
        p[c] = static_cast<T>(px[c]);
}

__device__ __forceinline__ uint32_t bin_of_key(const fxi_eq_kernel_args &a, uint32_t key)
{
    return a.mode == FXI_EQ_MODE_HSV_FLOAT ? key : fxi_bin_of(key, a.bins, a.level_bits);
}

/* Add one to h[index] for every valid lane; lanes with the same index add together. */
__device__ __forceinline__ void add_aggregated(uint32_t *h, uint32_t index, bool valid)
{
    const unsigned active = __ballot_sync(FULL_WARP, valid);
    if (!valid) return;
    const unsigned peers = __match_any_sync(active, index);
    if ((threadIdx.x & (WARP - 1)) == static_cast<unsigned>(__ffs(peers) - 1))
        atomicAdd(h + index, static_cast<uint32_t>(__popc(peers)));
}

template <typename T>
__global__ void eq_histogram(fxi_eq_kernel_args a, unsigned rows_per_block, int shared)
{
    extern __shared__ uint32_t shist[];
    const fxi_clahe_grid &g = a.grid;
    const unsigned tiles = static_cast<unsigned>(g.tiles_x * g.tiles_y), tile = blockIdx.y;
    const int tx = static_cast<int>(tile) % g.tiles_x, ty = static_cast<int>(tile) / g.tiles_x;
    const uint32_t entries = static_cast<uint32_t>(a.planes) * a.bins;
    /* Global layout: (plane * tiles + tile) * bins + bin; shared: plane * bins + bin. */
    uint32_t *global_tile = a.hist + static_cast<size_t>(tile) * a.bins;
    if (shared)
        for (uint32_t i = threadIdx.x; i < entries; i += blockDim.x)
            shist[i] = 0;
    __syncthreads();
    const int r0 = static_cast<int>(blockIdx.x * rows_per_block);
    const int r1 = min(r0 + static_cast<int>(rows_per_block), g.tile_h);
    uint32_t px[FX_MAX_IMAGE_CHANNELS], keys[FXI_EQ_MAX_PLANES];
    fxi_hsvf hsv;
    for (int j = r0; j < r1; j++) {
        const int sy = fxi_reflect101(ty * g.tile_h + j, g.height);
        const uint8_t *row = a.in + static_cast<size_t>(sy) * a.in_stride;
        for (int x0 = 0; x0 < g.tile_w; x0 += static_cast<int>(blockDim.x)) {
            const int i = x0 + static_cast<int>(threadIdx.x);
            bool valid = i < g.tile_w;
            int n = a.mode == FXI_EQ_MODE_RGB ? FXI_EQ_MAX_PLANES : 1;
            if (valid) {
                const int sx = fxi_reflect101(tx * g.tile_w + i, g.width);
                valid = !a.mask || a.mask[static_cast<size_t>(sy) * g.width + sx];
                load_pixel<T>(row, sx, a.in_channels, px);
                n = fxi_pixel_keys(a.mode, px, a.maxval, a.bins, keys, &hsv);
            }
            for (int k = 0; k < n; k++) {
                const uint32_t bin =
                    valid ? static_cast<uint32_t>(k) * a.bins + bin_of_key(a, keys[k]) : 0u;
                if (shared)
                    add_aggregated(shist, bin, valid);
                else
                    add_aggregated(global_tile,
                                   bin + static_cast<uint32_t>(k) * (tiles - 1u) * a.bins, valid);
            }
        }
    }
    __syncthreads();
    if (!shared) return;
    for (uint32_t i = threadIdx.x; i < entries; i += blockDim.x) {
        const uint32_t plane = i / a.bins, bin = i % a.bins;
        if (shist[i])
            atomicAdd(a.hist + (static_cast<size_t>(plane) * tiles + tile) * a.bins + bin,
                      shist[i]);
    }
}

/* Block-wide exclusive scan of one value per thread (blockDim.x a power of two). */
__device__ unsigned long long block_exclusive_scan(unsigned long long v, unsigned long long *tmp)
{
    const unsigned t = threadIdx.x;
    tmp[t] = v;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off *= 2) {
        const unsigned long long add = t >= off ? tmp[t - off] : 0ull;
        __syncthreads();
        tmp[t] += add;
        __syncthreads();
    }
    const unsigned long long inclusive = tmp[t];
    __syncthreads();
    return inclusive - v;
}

__global__ void eq_lut(fxi_eq_kernel_args a)
{
    __shared__ unsigned long long scan_tmp[MAX_SCAN_THREADS];
    __shared__ unsigned long long s_total, s_clipped;
    __shared__ unsigned s_first;
    const unsigned tiles = static_cast<unsigned>(a.grid.tiles_x * a.grid.tiles_y);
    const unsigned plane = blockIdx.x / tiles;
    uint32_t *h = a.hist + static_cast<size_t>(blockIdx.x) * a.bins;
    uint16_t *lut = a.bin_lut + static_cast<size_t>(blockIdx.x) * a.bins;
    const uint32_t per = (a.bins + blockDim.x - 1) / blockDim.x;
    const uint32_t b0 = min(a.bins, threadIdx.x * per), b1 = min(a.bins, b0 + per);
    if (threadIdx.x == 0) s_total = 0, s_clipped = 0, s_first = a.bins;
    __syncthreads();

    unsigned long long total = 0, clipped = 0;
    unsigned first = a.bins;
    for (uint32_t b = b0; b < b1; b++) {
        total += h[b];
        if (a.clip_limit && h[b] > a.clip_limit) clipped += h[b] - a.clip_limit;
        if (h[b] && first == a.bins) first = b;
    }
    atomicAdd(&s_total, total);
    atomicAdd(&s_clipped, clipped);
    atomicMin(&s_first, first);
    __syncthreads();

    if (a.mode == FXI_EQ_MODE_HSV_FLOAT && !a.adaptive) {
        /* The published float CDF is sequential: one thread, the CPU's loop. */
        if (threadIdx.x == 0) {
            const fxi_eq_cdf_origin o =
                fxi_eq_cdf_origin_of(a.scale, h, a.bins, s_first, s_total, a.maxval);
            fxi_hsvf_lut(h, a.bins, o.start, o.identity, a.float_lut);
            a.identity[plane] = o.identity;
        }
        return;
    }

    /* Each bin's count after clipping (CLAHE), then the scan. */
    const uint32_t batch = static_cast<uint32_t>(s_clipped / a.bins);
    const uint32_t residual =
        static_cast<uint32_t>(s_clipped - static_cast<unsigned long long>(batch) * a.bins);
    unsigned long long chunk = 0;
    for (uint32_t b = b0; b < b1; b++) {
        uint32_t v = h[b];
        if (a.clip_limit)
            v = min(v, a.clip_limit) + batch +
                static_cast<uint32_t>(fxi_residual_hit(b, residual, a.bins));
        chunk += v;
    }
    unsigned long long cdf = block_exclusive_scan(chunk, scan_tmp);

    int identity = 0;
    uint64_t base = 0;
    float factor;
    if (a.adaptive) {
        factor = fxi_level_factor(a.maxval, static_cast<uint64_t>(a.grid.tile_w) * a.grid.tile_h);
    } else {
        const fxi_eq_cdf_origin o =
            fxi_eq_cdf_origin_of(a.scale, h, a.bins, s_first, s_total, a.maxval);
        base = o.base;
        identity = o.identity;
        factor = o.factor;
    }
    for (uint32_t b = b0; b < b1; b++) {
        uint32_t v = h[b];
        if (a.clip_limit)
            v = min(v, a.clip_limit) + batch +
                static_cast<uint32_t>(fxi_residual_hit(b, residual, a.bins));
        cdf += v;
        lut[b] = static_cast<uint16_t>(
            a.adaptive ? fxi_level(cdf, factor, a.maxval)
                       : (identity || cdf < base ? 0u : fxi_level(cdf - base, factor, a.maxval)));
    }
    if (a.adaptive) return;
    __syncthreads(); /* the bin LUT is complete (global writes of this block) */
    const uint32_t levels = 1u << a.level_bits;
    uint16_t *vlut = a.value_lut + static_cast<size_t>(plane) * levels;
    for (uint32_t v = threadIdx.x; v < levels; v += blockDim.x)
        vlut[v] = static_cast<uint16_t>(identity ? v : lut[fxi_bin_of(v, a.bins, a.level_bits)]);
    if (threadIdx.x == 0) a.identity[plane] = identity;
}

template <typename T> __global__ void eq_map(fxi_eq_kernel_args a)
{
    const fxi_clahe_grid &g = a.grid;
    const size_t tiles = static_cast<size_t>(g.tiles_x) * g.tiles_y;
    const uint32_t levels = 1u << a.level_bits;
    const bool copy = a.mode == FXI_EQ_MODE_HSV_FLOAT && !a.adaptive && a.identity[0];
    uint32_t px[FX_MAX_IMAGE_CHANNELS], res[FX_MAX_IMAGE_CHANNELS] = {0};
    uint32_t keys[FXI_EQ_MAX_PLANES], mapped[FXI_EQ_MAX_PLANES] = {0};
    fxi_hsvf hsv = {0.0f, 0.0f, 0.0f};
    for (int y = static_cast<int>(blockIdx.y); y < a.height; y += static_cast<int>(gridDim.y)) {
        const uint8_t *in = a.in + static_cast<size_t>(y) * a.in_stride;
        uint8_t *out = a.out + static_cast<size_t>(y) * a.out_stride;
        const fxi_clahe_axis ys = fxi_clahe_axis_at(y, a.inv_tile_h, g.tiles_y);
        for (int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); x < a.width;
             x += static_cast<int>(gridDim.x * blockDim.x)) {
            load_pixel<T>(in, x, a.in_channels, px);
            if (copy) {
                store_pixel<T>(out, x, a.in_channels, px);
                continue;
            }
            const int n = fxi_pixel_keys(a.mode, px, a.maxval, a.bins, keys, &hsv);
            float mapped_v = 0.0f;
            if (a.adaptive) {
                const fxi_clahe_axis xs = fxi_clahe_axis_at(x, a.inv_tile_w, g.tiles_x);
                const size_t r1 = static_cast<size_t>(ys.t1) * g.tiles_x,
                             r2 = static_cast<size_t>(ys.t2) * g.tiles_x;
                for (int k = 0; k < n; k++) {
                    const uint16_t *lut = a.bin_lut + static_cast<size_t>(k) * tiles * a.bins;
                    const uint32_t b = bin_of_key(a, keys[k]);
                    mapped[k] = fxi_clahe_blend(lut[(r1 + xs.t1) * a.bins + b],
                                                lut[(r1 + xs.t2) * a.bins + b],
                                                lut[(r2 + xs.t1) * a.bins + b],
                                                lut[(r2 + xs.t2) * a.bins + b], xs, ys, a.maxval);
                }
                mapped_v = static_cast<float>(mapped[0]) / static_cast<float>(a.maxval);
            } else if (a.mode == FXI_EQ_MODE_HSV_FLOAT) {
                mapped_v = a.float_lut[keys[0]];
            } else {
                for (int k = 0; k < n; k++)
                    mapped[k] = a.value_lut[static_cast<uint32_t>(k) * levels + keys[k]];
            }
            const int written = fxi_pixel_write(a.mode, px, a.in_channels, keys, mapped, mapped_v,
                                                &hsv, a.maxval, res);
            store_pixel<T>(out, x, written, res);
        }
    }
}

/* ---- 8-bit global fast path: 256 bins, no mask; gray (1 channel), hsv, luma, rgb,
 * hsv-float (3 channels). A thread takes four pixels at a time as 32-bit words (one word of
 * gray, three of RGB) when the row is 4-byte aligned, pixel by pixel otherwise.
 * The histogram counts into SUB_HISTS shared copies (warp % SUB_HISTS), so a warp's
 * equal keys collide in one copy only; runs of equal keys within a thread's four
 * pixels add once. The mapping pass reads the value LUT from shared memory and
 * computes with the equalize_math.h functions (fxi_hsv_f32_*, fxi_luma, ...). */

constexpr int SUB_HISTS = FXI_EQ_GPU_FAST_SUB_HISTS;
constexpr int LEVELS_U8 = 256;
constexpr int GROUP = FXI_EQ_FAST_GROUP; /* pixels per thread step */

template <int MODE> struct fast_mode {
    static constexpr int channels = MODE == FXI_EQ_MODE_GRAY ? 1 : 3;
    static constexpr int planes = MODE == FXI_EQ_MODE_RGB ? 3 : 1;
};

__device__ __forceinline__ uint32_t byte_of(const uint32_t *w, int i)
{
    return (w[i >> 2] >> (8 * (i & 3))) & 0xFFu;
}

__device__ __forceinline__ void set_byte(uint32_t *w, int i, uint32_t v)
{
    w[i >> 2] |= v << (8 * (i & 3));
}

template <int MODE> __device__ __forceinline__ uint32_t fast_key(const uint32_t *px, int plane)
{
    if (MODE == FXI_EQ_MODE_GRAY) return px[0];
    if (MODE == FXI_EQ_MODE_HSV_FLOAT)
        return fxi_hsvf_bin(fxi_hsvf_from_rgb(px[0], px[1], px[2], 255u).v, LEVELS_U8);
    if (MODE == FXI_EQ_MODE_HSV) return fxi_max3(px[0], px[1], px[2]);
    if (MODE == FXI_EQ_MODE_LUMA) return fxi_luma(px[0], px[1], px[2]);
    return px[plane];
}

/* The pixel's result from its channels and the LUT (shared, planes x 256; for
 * hsv-float the float V' per bin in hsv_f). */
template <int MODE>
__device__ __forceinline__ void fast_write(const uint32_t *px, const uint32_t *lut,
                                           const float *hsv_f, const float *hsv_g, uint32_t *res)
{
    if (MODE == FXI_EQ_MODE_HSV_FLOAT) {
        const fxi_hsvf hsv = fxi_hsvf_from_rgb(px[0], px[1], px[2], 255u);
        fxi_hsvf_to_rgb(hsv.h, hsv.s, hsv_f[fxi_hsvf_bin(hsv.v, LEVELS_U8)], 255u, res);
    } else if (MODE == FXI_EQ_MODE_GRAY) {
        res[0] = lut[px[0]];
    } else if (MODE == FXI_EQ_MODE_HSV) {
        const uint32_t v = fxi_max3(px[0], px[1], px[2]);
        for (int c = 0; c < 3; c++)
            res[c] = fxi_hsv_f32_apply(px[c], hsv_f[v], hsv_g[v]);
    } else if (MODE == FXI_EQ_MODE_LUMA) {
        const uint32_t y = fxi_luma(px[0], px[1], px[2]);
        int32_t cr, cb;
        fxi_chroma(px[0], px[2], y, 255u, &cr, &cb);
        fxi_ycrcb_to_rgb(lut[y], cr, cb, 255u, res);
    } else {
        for (int c = 0; c < 3; c++)
            res[c] = lut[c * LEVELS_U8 + px[c]];
    }
}

template <int MODE>
__global__ void eq_hist_u8(const uint8_t *in, size_t stride, int width, int height, uint32_t *hist)
{
    constexpr int CH = fast_mode<MODE>::channels, PLANES = fast_mode<MODE>::planes;
    __shared__ uint32_t sh[SUB_HISTS][PLANES * LEVELS_U8];
    for (int i = threadIdx.x; i < SUB_HISTS * PLANES * LEVELS_U8; i += blockDim.x)
        (&sh[0][0])[i] = 0;
    __syncthreads();
    uint32_t *mine = sh[(threadIdx.x / WARP) % SUB_HISTS];
    const int groups = (width + GROUP - 1) / GROUP;
    for (int y = blockIdx.y; y < height; y += gridDim.y) {
        const uint8_t *row = in + static_cast<size_t>(y) * stride;
        const bool aligned = (reinterpret_cast<uintptr_t>(row) & 3u) == 0;
        for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < groups;
             g += gridDim.x * blockDim.x) {
            const int x0 = g * GROUP, n = min(GROUP, width - x0);
            uint32_t keys[PLANES][GROUP];
            if (aligned && n == GROUP) {
                uint32_t w[CH];
                const uint32_t *src =
                    reinterpret_cast<const uint32_t *>(row + static_cast<size_t>(x0) * CH);
                for (int i = 0; i < CH; i++)
                    w[i] = src[i];
                for (int p = 0; p < GROUP; p++) {
                    uint32_t px[CH];
                    for (int c = 0; c < CH; c++)
                        px[c] = byte_of(w, p * CH + c);
                    for (int k = 0; k < PLANES; k++)
                        keys[k][p] = fast_key<MODE>(px, k);
                }
            } else {
                for (int p = 0; p < GROUP; p++) {
                    uint32_t px[CH];
                    for (int c = 0; c < CH; c++)
                        px[c] = p < n ? row[static_cast<size_t>(x0 + p) * CH + c] : 0u;
                    for (int k = 0; k < PLANES; k++)
                        keys[k][p] = fast_key<MODE>(px, k);
                }
            }
            for (int k = 0; k < PLANES; k++) {
                /* Runs of equal keys add once. */
                uint32_t key = keys[k][0], count = 1;
                for (int p = 1; p < n; p++) {
                    if (keys[k][p] == key) {
                        count++;
                        continue;
                    }
                    atomicAdd(mine + k * LEVELS_U8 + key, count);
                    key = keys[k][p];
                    count = 1;
                }
                atomicAdd(mine + k * LEVELS_U8 + key, count);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < PLANES * LEVELS_U8; i += blockDim.x) {
        uint32_t sum = 0;
        for (int s = 0; s < SUB_HISTS; s++)
            sum += sh[s][i];
        if (sum) atomicAdd(hist + i, sum);
    }
}

template <int MODE>
__global__ void eq_map_u8(const uint8_t *in, size_t in_stride, uint8_t *out, size_t out_stride,
                          int width, int height, const uint16_t *value_lut, const float *float_lut,
                          const int *identity)
{
    constexpr int CH = fast_mode<MODE>::channels, PLANES = fast_mode<MODE>::planes;
    __shared__ uint32_t lut[PLANES * LEVELS_U8];
    __shared__ float hsv_f[LEVELS_U8];
    __shared__ float hsv_g[LEVELS_U8];
    for (int i = threadIdx.x; i < PLANES * LEVELS_U8; i += blockDim.x) {
        if (MODE == FXI_EQ_MODE_HSV_FLOAT) {
            hsv_f[i] = float_lut[i]; /* the global LUT of hsv-float: V' per bin */
            continue;
        }
        lut[i] = value_lut[i];
        if (MODE == FXI_EQ_MODE_HSV) fxi_hsv_f32_factors(i, value_lut[i], &hsv_f[i], &hsv_g[i]);
    }
    /* hsv-float with nothing to stretch returns the image unchanged (as the CPU). */
    const bool copy = MODE == FXI_EQ_MODE_HSV_FLOAT && identity[0];
    __syncthreads();
    const int groups = (width + GROUP - 1) / GROUP;
    for (int y = blockIdx.y; y < height; y += gridDim.y) {
        const uint8_t *row = in + static_cast<size_t>(y) * in_stride;
        uint8_t *orow = out + static_cast<size_t>(y) * out_stride;
        const bool aligned =
            ((reinterpret_cast<uintptr_t>(row) | reinterpret_cast<uintptr_t>(orow)) & 3u) == 0;
        for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < groups;
             g += gridDim.x * blockDim.x) {
            const int x0 = g * GROUP, n = min(GROUP, width - x0);
            const size_t at = static_cast<size_t>(x0) * CH;
            if (aligned && n == GROUP) {
                uint32_t w[CH], o[CH];
                const uint32_t *src = reinterpret_cast<const uint32_t *>(row + at);
                for (int i = 0; i < CH; i++)
                    w[i] = src[i], o[i] = 0;
                for (int p = 0; p < GROUP; p++) {
                    uint32_t px[CH], res[CH];
                    for (int c = 0; c < CH; c++)
                        px[c] = byte_of(w, p * CH + c);
                    if (copy)
                        for (int c = 0; c < CH; c++)
                            res[c] = px[c];
                    else
                        fast_write<MODE>(px, lut, hsv_f, hsv_g, res);
                    for (int c = 0; c < CH; c++)
                        set_byte(o, p * CH + c, res[c]);
                }
                uint32_t *dst = reinterpret_cast<uint32_t *>(orow + at);
                for (int i = 0; i < CH; i++)
                    dst[i] = o[i];
            } else {
                for (int p = 0; p < n; p++) {
                    uint32_t px[CH], res[CH];
                    for (int c = 0; c < CH; c++)
                        px[c] = row[at + static_cast<size_t>(p) * CH + c];
                    if (copy)
                        for (int c = 0; c < CH; c++)
                            res[c] = px[c];
                    else
                        fast_write<MODE>(px, lut, hsv_f, hsv_g, res);
                    for (int c = 0; c < CH; c++)
                        orow[at + static_cast<size_t>(p) * CH + c] = static_cast<uint8_t>(res[c]);
                }
            }
        }
    }
}

/* Both fast passes run, on the modes these kernels cover (equalize_math.h's rule,
 * which the CPU's fast_u8.c applies too). */
bool fast_u8(const fxi_eq_kernel_args &a)
{
    return fxi_eq_u8_fast_path(FXI_EQ_FAST_COUNT | FXI_EQ_FAST_MAP, FXI_EQ_FAST_MODES_GPU,
                               !a.is_u16, a.mode, a.in_channels, a.bins, a.mask != nullptr,
                               a.adaptive) != 0;
}

/* Grid of a fast pass over the image's (or band's) rows of pixel groups. */
dim3 fast_grid(const fxi_eq_kernel_args &a, int sms)
{
    unsigned gx, gy;
    const size_t groups = (static_cast<size_t>(a.width) + GROUP - 1) / GROUP;
    fxi_eq_row_grid(groups, a.height, a.block, fxi_eq_fast_blocks(a.block, sms), &gx, &gy);
    return dim3(gx, gy);
}

#define FAST_MODES(X)                                                                              \
    X(FXI_EQ_MODE_GRAY)                                                                            \
    X(FXI_EQ_MODE_HSV) X(FXI_EQ_MODE_LUMA) X(FXI_EQ_MODE_RGB) X(FXI_EQ_MODE_HSV_FLOAT)

/* The image's arguments narrowed to rows [y0, y0 + rows): in and out start at row y0,
 * the height is the band's (the fast kernels and fast_grid see only the band). */
fx_status narrow_to_rows(fx_context *ctx, int y0, int rows, fxi_eq_kernel_args *a)
{
    FXI_RETURN_IF(!fast_u8(*a) || y0 < 0 || rows < 1 || rows > a->height - y0, FX_EINVAL,
                 "GPU equalization: rows %d..%d of a %d-row image on the 8-bit fast path", y0,
                 y0 + rows, a->height);
    a->in += static_cast<size_t>(y0) * a->in_stride;
    a->out += static_cast<size_t>(y0) * a->out_stride;
    a->height = rows;
    return FX_OK;
}

} // namespace

extern "C" bool fxi_equalize_fast_path_gpu(const fxi_eq_kernel_args *args)
{
    return fast_u8(*args);
}

extern "C" fx_status fxi_equalize_clear_launch(fx_context *ctx, const fxi_eq_kernel_args *args)
{
    const fxi_eq_kernel_args &a = *args;
    const size_t tiles = static_cast<size_t>(a.grid.tiles_x) * a.grid.tiles_y;
    const size_t entries = static_cast<size_t>(a.planes) * tiles * a.bins;
    return fxi_device_memset(ctx, a.hist, 0, entries * sizeof *a.hist);
}

extern "C" fx_status fxi_equalize_fast_hist_launch(fx_context *ctx,
                                                      const fxi_eq_kernel_args *args, int y0,
                                                      int rows, cudaStream_t stream)
{
    fxi_eq_kernel_args a = *args;
    FXI_TRY(narrow_to_rows(ctx, y0, rows, &a));
    const dim3 grid = fast_grid(a, ctx->cuda->multiprocessors);
    switch (a.mode) {
#define HIST_CASE(M)                                                                               \
    case M:                                                                                        \
        eq_hist_u8<M><<<grid, a.block, 0, stream>>>(a.in, a.in_stride, a.width, a.height, a.hist); \
        break;
        FAST_MODES(HIST_CASE)
#undef HIST_CASE
    default: break;
    }
    return fxi_cuda_check_launch(ctx, "eq_hist_u8");
}

extern "C" fx_status fxi_equalize_lut_launch(fx_context *ctx, const fxi_eq_kernel_args *args,
                                           cudaStream_t stream)
{
    const fxi_eq_kernel_args &a = *args;
    const unsigned tiles = static_cast<unsigned>(a.grid.tiles_x * a.grid.tiles_y);
    const unsigned scan_threads = fxi_eq_scan_threads(a.bins, static_cast<int>(a.block));
    eq_lut<<<static_cast<unsigned>(a.planes) * tiles, scan_threads, 0, stream>>>(a);
    return fxi_cuda_check_launch(ctx, "eq_lut");
}

extern "C" fx_status fxi_equalize_fast_map_launch(fx_context *ctx,
                                                     const fxi_eq_kernel_args *args, int y0,
                                                     int rows, cudaStream_t stream)
{
    fxi_eq_kernel_args a = *args;
    FXI_TRY(narrow_to_rows(ctx, y0, rows, &a));
    const dim3 grid = fast_grid(a, ctx->cuda->multiprocessors);
    switch (a.mode) {
#define MAP_CASE(M)                                                                                \
    case M:                                                                                        \
        eq_map_u8<M><<<grid, a.block, 0, stream>>>(a.in, a.in_stride, a.out, a.out_stride,         \
                                                   a.width, a.height, a.value_lut, a.float_lut,    \
                                                   a.identity);                                    \
        break;
        FAST_MODES(MAP_CASE)
#undef MAP_CASE
    default: break;
    }
    return fxi_cuda_check_launch(ctx, "eq_map_u8");
}

extern "C" fx_status fxi_equalize_launch(fx_context *ctx, const fxi_eq_kernel_args *args)
{
    FXI_TRY(fxi_cuda_require(ctx, "GPU equalization"));
    const fxi_eq_kernel_args &a = *args;
    const int sms = ctx->cuda->multiprocessors;
    cudaStream_t stream = ctx->cuda->stream;
    const unsigned tiles = static_cast<unsigned>(a.grid.tiles_x * a.grid.tiles_y);
    FXI_TRY(fxi_equalize_clear_launch(ctx, args));

    if (fast_u8(a)) {
        FXI_TRY(fxi_equalize_fast_hist_launch(ctx, args, 0, a.height, stream));
        FXI_TRY(fxi_equalize_lut_launch(ctx, args, stream));
        return fxi_equalize_fast_map_launch(ctx, args, 0, a.height, stream);
    }
    const fxi_eq_hist_launch h = fxi_eq_hist_geometry(
        a.grid.tile_h, static_cast<int>(tiles), static_cast<int>(a.block), sms, BLOCKS_PER_SM);
    const size_t shared_bytes = static_cast<size_t>(a.planes) * a.bins * sizeof(uint32_t);
    const int shared = shared_bytes <= SHARED_HISTOGRAM_BYTES;
    const dim3 hist_grid(h.slices, h.tiles);
    if (a.is_u16)
        eq_histogram<uint16_t><<<hist_grid, h.threads, shared ? shared_bytes : 0, stream>>>(
            a, h.rows_per_block, shared);
    else
        eq_histogram<uint8_t><<<hist_grid, h.threads, shared ? shared_bytes : 0, stream>>>(
            a, h.rows_per_block, shared);
    FXI_TRY(fxi_cuda_check_launch(ctx, "eq_histogram"));

    FXI_TRY(fxi_equalize_lut_launch(ctx, args, stream));

    unsigned gx, gy;
    fxi_eq_row_grid(static_cast<size_t>(a.width), a.height, a.block,
                    static_cast<unsigned>(sms) * BLOCKS_PER_SM, &gx, &gy);
    const dim3 map_grid(gx, gy);
    if (a.is_u16)
        eq_map<uint16_t><<<map_grid, a.block, 0, stream>>>(a);
    else
        eq_map<uint8_t><<<map_grid, a.block, 0, stream>>>(a);
    return fxi_cuda_check_launch(ctx, "eq_map");
}
