/* Equalization kernels: histograms, LUTs and the mapping pass.
 *
 * 8-bit images with 256 bins and no mask are counted by the fast kernel below
 * (eq_hist_u8, 16-byte loads; global gray/to-gray/hsv/luma/rgb/hsv-float and CLAHE in
 * those layouts); global ones are mapped by eq_map_u8 and one-channel gray CLAHE by
 * eq_clahe_map_u8. The global fast passes also run on bands of rows (the *_rows
 * launchers), so that a host image's bands are counted and mapped on their staging
 * streams while other bands cross PCIe. Otherwise (16-bit, masks, other bin counts,
 * alpha channels) the general kernels, three launches per image, all on the context's
 * stream:
 *   1. eq_histogram: per block a shared-memory histogram (several keys per pixel for
 *      rgb), filled with warp-aggregated atomics (lanes with the same bin add once),
 *      flushed with one global atomic per used bin. For CLAHE grid.x is the tile (grid.y
 *      the slice of its rows) and the block reads the tile through OpenCV's reflect-101
 *      padding; the whole image is one tile for global equalization. Integer atomics:
 *      exact counts.
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
__global__ void __launch_bounds__(FXI_EQ_GPU_MAX_BLOCK)
    eq_histogram(fxi_eq_kernel_args a, unsigned rows_per_block, int shared)
{
    extern __shared__ uint32_t shist[];
    const fxi_clahe_grid &g = a.grid;
    const unsigned tiles = static_cast<unsigned>(g.tiles_x * g.tiles_y), tile = blockIdx.x;
    const int tx = static_cast<int>(tile) % g.tiles_x, ty = static_cast<int>(tile) / g.tiles_x;
    const uint32_t entries = static_cast<uint32_t>(a.planes) * a.bins;
    /* Global layout: (plane * tiles + tile) * bins + bin; shared: plane * bins + bin. */
    uint32_t *global_tile = a.hist + static_cast<size_t>(tile) * a.bins;
    if (shared)
        for (uint32_t i = threadIdx.x; i < entries; i += blockDim.x)
            shist[i] = 0;
    __syncthreads();
    const int r0 = static_cast<int>(blockIdx.y * rows_per_block);
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

/* The LUT of histogram `index` (plane x tile) whose counts are h, by the whole block
 * (blockDim.x a power of two, scan_tmp one entry a thread): eq_lut's block, or the last
 * block of the fast counting pass (eq_hist_u8, global equalization: its planes one
 * after the other). */
__device__ void lut_of(const fxi_eq_kernel_args &a, unsigned index, const uint32_t *h,
                       unsigned long long *scan_tmp)
{
    __shared__ unsigned long long s_total, s_clipped;
    __shared__ unsigned s_first;
    const unsigned tiles = static_cast<unsigned>(a.grid.tiles_x * a.grid.tiles_y);
    const unsigned plane = index / tiles;
    uint16_t *lut = a.bin_lut + static_cast<size_t>(index) * a.bins;
    const uint32_t per = (a.bins + blockDim.x - 1) / blockDim.x;
    const uint32_t b0 = min(a.bins, threadIdx.x * per), b1 = min(a.bins, b0 + per);
    __syncthreads(); /* an earlier call's reads of the shared values are done */
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

__global__ void __launch_bounds__(FXI_EQ_GPU_MAX_BLOCK) eq_lut(fxi_eq_kernel_args a)
{
    __shared__ unsigned long long scan_tmp[MAX_SCAN_THREADS];
    lut_of(a, blockIdx.x, a.hist + static_cast<size_t>(blockIdx.x) * a.bins, scan_tmp);
}

template <typename T>
__global__ void __launch_bounds__(FXI_EQ_GPU_MAX_BLOCK) eq_map(fxi_eq_kernel_args a)
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

/* ---- 8-bit fast path: 256 bins, no mask; gray (1 channel), to-gray, hsv, luma, rgb,
 * hsv-float (3 channels). It exists because the general kernels above read a pixel at a
 * time (a byte load per channel, warp-aggregated atomics with __match_any_sync) and ran
 * far from the memory roofline: on the H200, 10000x6000, to-gray 1.23 ms and CLAHE 8x8
 * 1.65 ms through them, against about 0.1 ms of memory traffic (bench/gpu_jobs_bench.c,
 * RESULT eq_gray_device_ms / eq_clahe_device_ms; rerun it to see what this path gives).
 *
 * A thread steps over groups of FXI_EQ_VECTOR_PIXELS (16) pixels that start at 16-byte
 * aligned addresses: one uint4 load of gray, three of RGB, one or three uint4 stores.
 * A row segment's first pixels up to the first aligned one (at most 15) are a group of
 * their own done pixel by pixel, and so is a short last group (fxi_eq_group_of in
 * equalize_internal.h, unit-tested); an output row whose alignment differs from the
 * input's is stored byte by byte. The thread steps of all rows are one flat index
 * (rows x units), so a grid sized for the GPU has no idle threads at row ends.
 *
 * Counting (eq_hist_u8): per block, one-plane modes count into a column of counters a
 * lane (one atomic a key, no branch), rgb into SUB_HISTS shared copies of the histograms
 * (lane % SUB_HISTS, each copy a bank further: a warp's equal keys spread over the
 * copies' banks; or warp % SUB_HISTS, equalize_tuning.h), where runs of equal keys
 * within a thread's group add once (hist_layout); one global atomic per used bin at the
 * end. The grid is (tile, slice of the tile's thread steps, equal slices): global
 * equalization is one tile (the image or a host image's band), CLAHE reads its tiles
 * through OpenCV's reflect-101 padding.
 * Global to-gray also writes its gray keys to the output there, and is then mapped as
 * a gray image in place (one byte read a pixel instead of three).
 * Mapping: the global LUT from shared memory through the equalize_math.h functions
 * (eq_map_u8); CLAHE's gray blend with every tile's LUT in shared memory as bytes
 * (eq_clahe_map_u8), fxi_clahe_axis_at / fxi_clahe_blend per pixel as on the CPU. */

constexpr int SUB_HISTS = FXI_EQ_GPU_FAST_SUB_HISTS;
constexpr int LEVELS_U8 = 256;
constexpr int VEC = FXI_EQ_VECTOR_PIXELS;

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

template <int CH> __device__ __forceinline__ void load_vec(const uint8_t *p, uint32_t *w)
{
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    for (int i = 0; i < CH; i++) {
        const uint4 v = s[i];
        w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
    }
}

/* The group's output bytes: one or three uint4 stores when dst is aligned. */
template <int CH> __device__ __forceinline__ void store_vec(uint8_t *dst, const uint32_t *o)
{
    if ((reinterpret_cast<uintptr_t>(dst) & 15u) == 0) {
        uint4 *d = reinterpret_cast<uint4 *>(dst);
        for (int i = 0; i < CH; i++)
            d[i] = make_uint4(o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]);
    } else {
        for (int b = 0; b < VEC * CH; b++)
            dst[b] = static_cast<uint8_t>(byte_of(o, b));
    }
}

/* Flat thread step i over rows of `units` steps: its row and unit (32-bit division
 * while the index fits). */
__device__ __forceinline__ void split(size_t i, unsigned units, unsigned *row, unsigned *unit)
{
    if (i <= 0xFFFFFFFFu) {
        const unsigned j = static_cast<unsigned>(i);
        *row = j / units;
        *unit = j - *row * units;
    } else {
        *row = static_cast<unsigned>(i / units);
        *unit = static_cast<unsigned>(i % units);
    }
}

/* hsv-float's channels scaled to [0, 1] (fxi_hsvf_unit of the 256 levels), in shared
 * memory: the published conversion's double divisions become loads, the same floats. */
template <int MODE> struct unit_table {
    static constexpr int size = MODE == FXI_EQ_MODE_HSV_FLOAT ? LEVELS_U8 : 1;
};

template <int MODE> __device__ __forceinline__ void fill_unit_table(float *unit)
{
    for (int i = threadIdx.x; i < unit_table<MODE>::size; i += blockDim.x)
        unit[i] = fxi_hsvf_unit(static_cast<uint32_t>(i), 255u);
}

template <int MODE>
__device__ __forceinline__ uint32_t fast_key(const uint32_t *px, int plane, const float *unit)
{
    if (MODE == FXI_EQ_MODE_GRAY) return px[0];
    if (MODE == FXI_EQ_MODE_TO_GRAY) return fxi_gray(px[0], px[1], px[2]);
    if (MODE == FXI_EQ_MODE_HSV_FLOAT)
        return fxi_hsvf_bin(fxi_hsvf_from_unit(unit[px[0]], unit[px[1]], unit[px[2]]).v, LEVELS_U8);
    if (MODE == FXI_EQ_MODE_HSV) return fxi_max3(px[0], px[1], px[2]);
    if (MODE == FXI_EQ_MODE_LUMA) return fxi_luma(px[0], px[1], px[2]);
    return px[plane];
}

/* hsv's factor per V (fxi_hsv_u8_factor of V and its V') in shared memory; one entry
 * elsewhere. */
template <int MODE> struct factor_table {
    static constexpr int size = MODE == FXI_EQ_MODE_HSV ? LEVELS_U8 : 1;
};

/* The pixel's result from its channels and the LUT (shared, planes x 256; for
 * hsv-float the float V' per bin in hsv_f; for hsv the factor per V in factor:
 * fxi_hsv_u8_apply, one lookup a pixel and a multiply-add and a shift a channel, where
 * the float form (fxi_hsv_f32_apply) spent two lookups and two conversions a channel;
 * the same bytes). */
template <int MODE>
__device__ __forceinline__ void fast_write(const uint32_t *px, const uint32_t *lut,
                                           const float *hsv_f, const uint32_t *factor,
                                           const float *unit, uint32_t *res)
{
    if (MODE == FXI_EQ_MODE_HSV_FLOAT) {
        const fxi_hsvf hsv = fxi_hsvf_from_unit(unit[px[0]], unit[px[1]], unit[px[2]]);
        fxi_hsvf_to_rgb(hsv.h, hsv.s, hsv_f[fxi_hsvf_bin(hsv.v, LEVELS_U8)], 255u, res);
    } else if (MODE == FXI_EQ_MODE_GRAY) {
        res[0] = lut[px[0]];
    } else if (MODE == FXI_EQ_MODE_HSV) {
        const uint32_t f = factor[fxi_max3(px[0], px[1], px[2])];
        for (int c = 0; c < 3; c++)
            res[c] = fxi_hsv_u8_apply(px[c], f);
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

/* fast_write, or the pixel as it is (hsv-float with nothing to stretch: the CPU returns
 * the image unchanged). */
template <int MODE, int CH>
__device__ __forceinline__ void map_or_copy(bool copy, const uint32_t *px, const uint32_t *lut,
                                            const float *hsv_f, const uint32_t *factor,
                                            const float *unit, uint32_t *res)
{
    if (copy) {
        for (int c = 0; c < CH; c++)
            res[c] = px[c];
        return;
    }
    fast_write<MODE>(px, lut, hsv_f, factor, unit, res);
}

/* What the counting pass covers: the image (or band) as tiles of tile_w x tile_h
 * (one tile for global equalization), each shared out among gridDim.y blocks
 * (fxi_eq_slice_steps). */
struct fast_tiles {
    int width, height, tiles_x, tile_w, tile_h;
};

/* Where a block's threads count (shared memory, 32-bit counters):
 * - lane columns (one-plane modes, FXI_EQ_GPU_FAST_LANE_COLUMNS): word key * 32 + lane,
 *   a column of 256 counters per lane shared by the block's warps. A warp's atomics
 *   then hit 32 different banks whatever its keys (no bank or address conflict: one
 *   pass each), where keys spread over one copy serialise on the busiest bank. 32 KiB
 *   a block.
 * - sub-histograms (rgb's three planes: 96 KiB of columns would not fit): SUB_HISTS
 *   copies of planes x 256, each padded a word (a bank) further, the thread's copy
 *   lane % SUB_HISTS or warp % SUB_HISTS (FXI_EQ_GPU_FAST_SUB_HIST_BY_LANE).
 * A thread's counter for (plane k, key) is at base + (k * 256 + key) * step; the block's
 * count of entry i (plane * 256 + key) the sum of its `copies` words at word(i, c). */
template <int MODE> struct hist_layout {
    static constexpr int planes = fast_mode<MODE>::planes;
    static constexpr bool columns = planes == 1 && FXI_EQ_GPU_FAST_LANE_COLUMNS != 0;
    static constexpr int copy_words = planes * LEVELS_U8 + 1;
    static constexpr int copies = columns ? WARP : SUB_HISTS;
    static constexpr int words = columns ? LEVELS_U8 * WARP : SUB_HISTS * copy_words;
    static constexpr unsigned step = columns ? WARP : 1u;

    __device__ static unsigned base()
    {
        const unsigned lane = threadIdx.x % WARP;
        if (columns) return lane;
        const unsigned copy =
            (FXI_EQ_GPU_FAST_SUB_HIST_BY_LANE ? lane : threadIdx.x / WARP) % SUB_HISTS;
        return copy * copy_words;
    }
    /* Copy c of entry i; for columns, the copies of entry i are read rotated by i, so the
     * threads of a warp (consecutive i) read 32 different banks. */
    __device__ static unsigned word(unsigned i, unsigned c)
    {
        return columns ? i * WARP + ((c + i) & (WARP - 1)) : c * copy_words + i;
    }
};

/* One shared atomic a key, the first n keys of each plane (n: all N where omitted, so that
 * a whole group's loop has no branch), straight-line code over registers. */
template <int PLANES, int N>
__device__ __forceinline__ void count_keys(const uint32_t (&keys)[PLANES][N], uint32_t *h,
                                           unsigned step, int n = N)
{
#pragma unroll
    for (int k = 0; k < PLANES; k++)
#pragma unroll
        for (int p = 0; p < N; p++)
            if (p < n) atomicAdd(h + (k * LEVELS_U8 + keys[k][p]) * step, 1u);
}

/* The sub-histograms' counting: runs of equal keys add once (neighbouring pixels of a
 * photo, in a copy other lanes share), the first n keys of each plane. Constant indices
 * (no break): keys stay in registers. */
template <int PLANES, int N>
__device__ __forceinline__ void count_runs(const uint32_t (&keys)[PLANES][N], uint32_t *h,
                                           unsigned step, int n)
{
#pragma unroll
    for (int k = 0; k < PLANES; k++) {
        uint32_t key = keys[k][0], count = 1;
#pragma unroll
        for (int p = 1; p < N; p++) {
            if (p < n) {
                if (keys[k][p] == key) {
                    count++;
                } else {
                    atomicAdd(h + (k * LEVELS_U8 + key) * step, count);
                    key = keys[k][p];
                    count = 1;
                }
            }
        }
        atomicAdd(h + (k * LEVELS_U8 + key) * step, count);
    }
}

/* The keys of a group's VEC pixels, channel c of pixel p being sample(p, c): from its
 * words (keys_of_words, a vector group) or from its n pixels at src, the rest 0
 * (keys_of_pixels). */
template <int MODE, typename Sample>
__device__ __forceinline__ void keys_of(Sample sample, const float *unit_of,
                                        uint32_t (&keys)[fast_mode<MODE>::planes][VEC])
{
    constexpr int CH = fast_mode<MODE>::channels, PLANES = fast_mode<MODE>::planes;
#pragma unroll
    for (int p = 0; p < VEC; p++) {
        uint32_t px[CH];
        for (int c = 0; c < CH; c++)
            px[c] = sample(p, c);
        for (int k = 0; k < PLANES; k++)
            keys[k][p] = fast_key<MODE>(px, k, unit_of);
    }
}

template <int MODE>
__device__ __forceinline__ void keys_of_words(const uint32_t *w, const float *unit_of,
                                              uint32_t (&keys)[fast_mode<MODE>::planes][VEC])
{
    constexpr int CH = fast_mode<MODE>::channels;
    keys_of<MODE>([&](int p, int c) { return byte_of(w, p * CH + c); }, unit_of, keys);
}

template <int MODE>
__device__ __forceinline__ void keys_of_pixels(const uint8_t *src, int n, const float *unit_of,
                                               uint32_t (&keys)[fast_mode<MODE>::planes][VEC])
{
    constexpr int CH = fast_mode<MODE>::channels;
    keys_of<MODE>([&](int p, int c) { return p < n ? static_cast<uint32_t>(src[p * CH + c]) : 0u; },
                  unit_of, keys);
}

/* Count group `unit` of the segment seg (pixels long) into the thread's shared counters
 * (plane k's key at h[(k * 256 + key) * step]: hist_layout); for to-gray with gray_seg,
 * also write the keys (the gray pixels) there. */
template <int MODE>
__device__ __forceinline__ void count_group(const uint8_t *seg, int pixels, unsigned unit,
                                            const float *unit_of, uint32_t *h, unsigned step,
                                            uint8_t *gray_seg)
{
    constexpr int CH = fast_mode<MODE>::channels, PLANES = fast_mode<MODE>::planes;
    const fxi_eq_group g = fxi_eq_group_of(reinterpret_cast<uintptr_t>(seg), CH, pixels, unit);
    if (g.n <= 0) return;
    const uint8_t *src = seg + static_cast<size_t>(g.x0) * CH;
    uint32_t keys[PLANES][VEC];
    if (g.vector) {
        uint32_t w[4 * CH];
        load_vec<CH>(src, w);
        keys_of_words<MODE>(w, unit_of, keys);
    } else {
        keys_of_pixels<MODE>(src, g.n, unit_of, keys);
    }
    if (MODE == FXI_EQ_MODE_TO_GRAY && gray_seg) {
        uint8_t *dst = gray_seg + g.x0;
        if (g.vector) {
            uint32_t o[4] = {0, 0, 0, 0};
#pragma unroll
            for (int p = 0; p < VEC; p++)
                set_byte(o, p, keys[0][p]);
            store_vec<1>(dst, o);
        } else {
#pragma unroll
            for (int p = 0; p < VEC; p++)
                if (p < g.n) dst[p] = static_cast<uint8_t>(keys[0][p]);
        }
    }
    if (hist_layout<MODE>::columns) {
        /* Lane columns: no two lanes of a warp share a counter, so each key adds on its own
         * (merging runs of equal keys saves atomics on flat areas but costs branches on
         * every pixel: r37, eq-gray ran 23 instructions a pixel, 20 of them around the
         * atomic; r38, without them, the counting kernel took 0.054 ms, not 0.096). */
        if (g.vector)
            count_keys<PLANES, VEC>(keys, h, step);
        else
            count_keys<PLANES, VEC>(keys, h, step, g.n);
        return;
    }
    count_runs<PLANES, VEC>(keys, h, step, g.n);
}

/* The block's counts (its shared counters, hist_layout) added to the global histograms
 * (hist: (plane * tiles + tile) * 256 + bin); after a __syncthreads. */
template <int MODE>
__device__ __forceinline__ void flush_counts(const uint32_t *sh, uint32_t *hist, unsigned tiles,
                                             unsigned tile)
{
    using layout = hist_layout<MODE>;
    for (int i = threadIdx.x; i < fast_mode<MODE>::planes * LEVELS_U8; i += blockDim.x) {
        uint32_t sum = 0;
        for (int c = 0; c < layout::copies; c++)
            sum += sh[layout::word(static_cast<unsigned>(i), static_cast<unsigned>(c))];
        const unsigned plane = static_cast<unsigned>(i) / LEVELS_U8;
        if (sum)
            atomicAdd(hist + (static_cast<size_t>(plane) * tiles + tile) * LEVELS_U8 +
                          static_cast<unsigned>(i) % LEVELS_U8,
                      sum);
    }
}

/* The counting pass (eq_hist_u8 and, with the LUT folded in, eq_hist_lut_u8).
 * blockIdx.x: the tile; blockIdx.y: the slice of its thread steps. Global layout of hist:
 * (plane * tiles + tile) * 256 + bin, added to (the bands of an image add up).
 * gray (global to-gray only, else null): where the gray keys are written, the output
 * image, so that the mapping pass reads one byte a pixel instead of three. */
template <int MODE, bool FOLD_LUT>
__device__ __forceinline__ void count_pass(const uint8_t *in, size_t stride, fast_tiles t,
                                           uint32_t *hist, uint8_t *gray, size_t gray_stride,
                                           const fxi_eq_kernel_args &lut)
{
    constexpr int CH = fast_mode<MODE>::channels, PLANES = fast_mode<MODE>::planes;
    using layout = hist_layout<MODE>;
    __shared__ __align__(8) uint32_t sh[layout::words];
    __shared__ bool last_block;
    __shared__ float unit_of[unit_table<MODE>::size];
    for (int i = threadIdx.x; i < layout::words; i += blockDim.x)
        sh[i] = 0;
    fill_unit_table<MODE>(unit_of);
    __syncthreads();
    uint32_t *mine = sh + layout::base();
    const unsigned tiles = gridDim.x, tile = blockIdx.x;
    const int tx = static_cast<int>(tile) % t.tiles_x, ty = static_cast<int>(tile) / t.tiles_x;
    const int x_begin = tx * t.tile_w;
    /* The tile's columns inside the image, then CLAHE's padding beyond its right edge. */
    const int inside = max(0, min(t.tile_w, t.width - x_begin)), pad = t.tile_w - inside;
    const unsigned units = fxi_eq_fast_units(inside);
    uint64_t begin, end;
    if (units > 0) {
        fxi_eq_slice_steps(static_cast<uint64_t>(t.tile_h) * units, gridDim.y, blockIdx.y, &begin,
                           &end);
        /* step i is unit u of tile row j: one division for the thread's first step, then
         * blockDim.x steps on by whole rows and units (no division a step) */
        uint64_t i = begin + threadIdx.x;
        unsigned j, u;
        split(i, units, &j, &u);
        const unsigned rows_on = blockDim.x / units, units_on = blockDim.x % units;
        for (; i < end; i += blockDim.x) {
            const int sy = fxi_reflect101(ty * t.tile_h + static_cast<int>(j), t.height);
            count_group<MODE>(
                in + static_cast<size_t>(sy) * stride + static_cast<size_t>(x_begin) * CH, inside,
                u, unit_of, mine, layout::step,
                gray ? gray + static_cast<size_t>(sy) * gray_stride + x_begin : nullptr);
            j += rows_on;
            u += units_on;
            if (u >= units) {
                u -= units;
                j++;
            }
        }
    }
    if (pad > 0) {
        fxi_eq_slice_steps(static_cast<uint64_t>(t.tile_h) * static_cast<unsigned>(pad), gridDim.y,
                           blockIdx.y, &begin, &end);
        for (uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
            unsigned j, k;
            split(i, static_cast<unsigned>(pad), &j, &k);
            const int sy = fxi_reflect101(ty * t.tile_h + static_cast<int>(j), t.height);
            const int sx = fxi_reflect101(x_begin + inside + static_cast<int>(k), t.width);
            const uint8_t *p = in + static_cast<size_t>(sy) * stride + static_cast<size_t>(sx) * CH;
            uint32_t px[CH];
            for (int c = 0; c < CH; c++)
                px[c] = p[c];
            for (int q = 0; q < PLANES; q++)
                atomicAdd(mine + (q * LEVELS_U8 + fast_key<MODE>(px, q, unit_of)) * layout::step,
                          1u);
        }
    }
    __syncthreads();
    flush_counts<MODE>(sh, hist, tiles, tile);
    if (!FOLD_LUT) return;
    /* The LUT pass folded in (fold_lut: global equalization, the whole image in this
     * launch): the last block to finish computes it, a launch saved. Each block's
     * counts are in global memory (fence) before it counts itself done; the last one
     * sees them all (fence) and resets the counter for the next launch. */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned blocks = gridDim.x * gridDim.y;
        last_block = atomicAdd(lut.hist_done, 1u) == blocks - 1u;
    }
    __syncthreads();
    if (!last_block) return;
    __threadfence();
    /* The counters are free now: their words hold the scan (2 words a thread) and,
     * after it, the image's histograms, read from L2 (ld.cg: never a line this SM's L1
     * kept from earlier). */
    unsigned long long *scan_tmp = reinterpret_cast<unsigned long long *>(sh);
    uint32_t *counts = sh + 2 * blockDim.x;
    for (int i = threadIdx.x; i < PLANES * LEVELS_U8; i += blockDim.x)
        counts[i] = __ldcg(hist + i);
    __syncthreads();
    for (unsigned plane = 0; plane < static_cast<unsigned>(PLANES); plane++)
        lut_of(lut, plane, counts + plane * LEVELS_U8, scan_tmp);
    if (threadIdx.x == 0) *lut.hist_done = 0u;
}

template <int MODE>
__global__ void __launch_bounds__(FXI_EQ_GPU_MAX_BLOCK)
    eq_hist_u8(const uint8_t *in, size_t stride, fast_tiles t, uint32_t *hist, uint8_t *gray,
               size_t gray_stride, fxi_eq_kernel_args lut)
{
    count_pass<MODE, false>(in, stride, t, hist, gray, gray_stride, lut);
}

/* The counting pass whose last block computes the LUTs (fold_lut), a kernel of its own:
 * the LUT's code would raise every counting launch's registers (53 against 39 for
 * gray: a third of the occupancy), so this one runs blocks of at most FOLD_MAX_BLOCK
 * threads with its registers capped for FOLD_MIN_BLOCKS of them an SM. */
constexpr unsigned FOLD_MAX_BLOCK = 256;
constexpr int FOLD_MIN_BLOCKS = FXI_EQ_GPU_FOLD_MIN_BLOCKS;

template <int MODE>
__global__ void __launch_bounds__(FOLD_MAX_BLOCK, FOLD_MIN_BLOCKS)
    eq_hist_lut_u8(const uint8_t *in, size_t stride, fast_tiles t, uint32_t *hist, uint8_t *gray,
                   size_t gray_stride, fxi_eq_kernel_args lut)
{
    count_pass<MODE, true>(in, stride, t, hist, gray, gray_stride, lut);
}

/* The global LUTs as the mapping reads them, in shared memory: a plane's LUT an entry a
 * key (hsv: also the factor per V, fxi_hsv_u8_factor of V and its V'); hsv-float's V' per
 * bin and its unit table. */
template <int MODE> struct map_tables {
    uint32_t lut[fast_mode<MODE>::planes * LEVELS_U8];
    float hsv_f[LEVELS_U8];
    uint32_t hsv_factor[factor_table<MODE>::size];
    float unit[unit_table<MODE>::size];
};

/* t from the global LUTs (eq_map_u8; eq_fused_u8 builds its own, fused_tables); the caller
 * __syncthreads before using t. */
template <int MODE>
__device__ __forceinline__ void fill_map_tables(map_tables<MODE> &t, const uint16_t *value_lut,
                                                const float *float_lut)
{
    fill_unit_table<MODE>(t.unit);
    for (int i = threadIdx.x; i < fast_mode<MODE>::planes * LEVELS_U8; i += blockDim.x) {
        if (MODE == FXI_EQ_MODE_HSV_FLOAT) {
            t.hsv_f[i] = float_lut[i]; /* the global LUT of hsv-float: V' per bin */
            continue;
        }
        const uint32_t v = value_lut[i];
        t.lut[i] = v;
        if (MODE == FXI_EQ_MODE_HSV)
            t.hsv_factor[i] = fxi_hsv_u8_factor(static_cast<uint32_t>(i), v);
    }
}

/* A vector group's output words o from its words w, through t (or copied). */
template <int MODE>
__device__ __forceinline__ void map_words(const map_tables<MODE> &t, bool copy, const uint32_t *w,
                                          uint32_t *o)
{
    constexpr int CH = fast_mode<MODE>::channels, OCH = CH;
    for (int i2 = 0; i2 < 4 * OCH; i2++)
        o[i2] = 0;
#pragma unroll
    for (int p = 0; p < VEC; p++) {
        uint32_t px[CH], res[CH];
        for (int c = 0; c < CH; c++)
            px[c] = byte_of(w, p * CH + c);
        map_or_copy<MODE, CH>(copy, px, t.lut, t.hsv_f, t.hsv_factor, t.unit, res);
        for (int c = 0; c < OCH; c++)
            set_byte(o, p * OCH + c, res[c]);
    }
}

/* A short or unaligned group's n pixels from src to dst, pixel by pixel. */
template <int MODE>
__device__ __forceinline__ void map_pixels(const map_tables<MODE> &t, bool copy, const uint8_t *src,
                                           uint8_t *dst, int n)
{
    constexpr int CH = fast_mode<MODE>::channels, OCH = CH;
    for (int p = 0; p < n; p++) {
        uint32_t px[CH], res[CH];
        for (int c = 0; c < CH; c++)
            px[c] = src[p * CH + c];
        map_or_copy<MODE, CH>(copy, px, t.lut, t.hsv_f, t.hsv_factor, t.unit, res);
        for (int c = 0; c < OCH; c++)
            dst[p * OCH + c] = static_cast<uint8_t>(res[c]);
    }
}

/* Map group `unit` of an image row (row: its first pixel; out_row: the output row's)
 * through t, or copy it (hsv-float with nothing to stretch). Every mapped mode writes
 * as many channels as it reads (to-gray maps as gray). */
template <int MODE>
__device__ __forceinline__ void map_group(const map_tables<MODE> &t, bool copy, const uint8_t *row,
                                          uint8_t *out_row, int width, unsigned unit)
{
    constexpr int CH = fast_mode<MODE>::channels;
    const fxi_eq_group g = fxi_eq_group_of(reinterpret_cast<uintptr_t>(row), CH, width, unit);
    if (g.n <= 0) return;
    const uint8_t *src = row + static_cast<size_t>(g.x0) * CH;
    uint8_t *dst = out_row + static_cast<size_t>(g.x0) * CH;
    if (g.vector) {
        uint32_t w[4 * CH], o[4 * CH];
        load_vec<CH>(src, w);
        map_words<MODE>(t, copy, w, o);
        store_vec<CH>(dst, o);
    } else {
        map_pixels<MODE>(t, copy, src, dst, g.n);
    }
}

/* A 1-D grid striding over height x units thread steps. */
template <int MODE>
__global__ void __launch_bounds__(FXI_EQ_GPU_MAX_BLOCK)
    eq_map_u8(const uint8_t *in, size_t in_stride, uint8_t *out, size_t out_stride, int width,
              int height, unsigned units, const uint16_t *value_lut, const float *float_lut,
              const int *identity)
{
    __shared__ map_tables<MODE> t;
    fill_map_tables<MODE>(t, value_lut, float_lut);
    /* hsv-float with nothing to stretch returns the image unchanged (as the CPU). */
    const bool copy = MODE == FXI_EQ_MODE_HSV_FLOAT && identity[0];
    __syncthreads();
    const size_t items = static_cast<size_t>(height) * units;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < items;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        unsigned y, u;
        split(i, units, &y, &u);
        map_group<MODE>(t, copy, in + static_cast<size_t>(y) * in_stride,
                        out + static_cast<size_t>(y) * out_stride, width, u);
    }
}

/* The fused launch's grid-wide barrier: each block's first thread counts the block in at
 * *arrived (zero at launch) and waits until every block has; the blocks are all resident
 * (a cooperative launch). The count is a release (after the __syncthreads: the block's
 * histogram atomics come before it) and the wait's loads acquire (the others' reads come
 * after), in place of two full fences. */
__device__ __forceinline__ void grid_barrier(unsigned *arrived)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(arrived) : "memory");
        unsigned seen;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                         : "=r"(seen)
                         : "l"(arrived)
                         : "memory");
        } while (seen < gridDim.x);
    }
    __syncthreads();
}

/* The fused launch's block: one thread a bin of the 8-bit LUT (fused_tables). */
constexpr unsigned FUSED_BLOCK = 256;

/* The mapping tables of a global one-plane LUT of 256 bins, from the complete histogram
 * in global memory, by a block of FUSED_BLOCK threads (a bin a thread): lut_of's
 * arithmetic for global equalization (fxi_eq_cdf_origin_of, fxi_level; no clipping,
 * 8-bit keys: a key is its bin) with warp scans, so that every block of eq_fused_u8
 * builds its own in about a microsecond. scratch: 2 * WARP words for the warps' sums
 * (64-bit), then 256 for the counts (fxi_eq_cdf_origin_of reads them). */
template <int MODE>
__device__ __forceinline__ void fused_tables(const fxi_eq_kernel_args &a, map_tables<MODE> &t,
                                             unsigned long long *warp_sums, uint32_t *counts)
{
    __shared__ unsigned s_first;
    const unsigned b = threadIdx.x, lane = b % WARP, warp = b / WARP;
    const uint32_t h = __ldcg(a.hist + b);
    counts[b] = h;
    if (b == 0) s_first = LEVELS_U8;
    unsigned long long cdf = h; /* inclusive, within the warp */
    for (int off = 1; off < WARP; off *= 2) {
        const unsigned long long v = __shfl_up_sync(FULL_WARP, cdf, off);
        if (lane >= static_cast<unsigned>(off)) cdf += v;
    }
    if (lane == WARP - 1) warp_sums[warp] = cdf;
    __syncthreads();
    const unsigned used = __ballot_sync(FULL_WARP, h != 0u);
    if (lane == 0 && used) atomicMin(&s_first, warp * WARP + __ffs(used) - 1u);
    unsigned long long total = 0;
    for (unsigned w = 0; w < FUSED_BLOCK / WARP; w++) {
        if (w < warp) cdf += warp_sums[w];
        total += warp_sums[w];
    }
    __syncthreads();
    const fxi_eq_cdf_origin o =
        fxi_eq_cdf_origin_of(a.scale, counts, LEVELS_U8, s_first, total, a.maxval);
    const uint32_t v =
        o.identity ? b : (cdf < o.base ? 0u : fxi_level(cdf - o.base, o.factor, a.maxval));
    t.lut[b] = v;
    if (MODE == FXI_EQ_MODE_HSV) t.hsv_factor[b] = fxi_hsv_u8_factor(b, v);
    __syncthreads();
}

/* The fused launch's work dealt to its blocks: a unit of a pass is N steps a thread
 * (deal<MODE>::count_steps, map_steps), thread x of the block taking steps
 * first + x, first + x + FUSED_BLOCK, ... of the image's height x units, all their loads
 * in flight at once (about the bytes a thread equalize_tuning.h names). Block b takes
 * unit b first, then the next unit a counter deals, so that every SM works until the
 * pass is done. */
template <int MODE> struct deal {
    static constexpr unsigned bytes_a_step = VEC * fast_mode<MODE>::channels;
    static constexpr unsigned steps(unsigned bytes)
    {
        return bytes / bytes_a_step > 0 ? bytes / bytes_a_step : 1u;
    }
    static constexpr bool hsv = MODE == FXI_EQ_MODE_HSV;
    static constexpr unsigned count_steps =
        steps(hsv ? FXI_EQ_GPU_FUSED_HSV_COUNT_BYTES : FXI_EQ_GPU_FUSED_DEAL_BYTES);
    static constexpr unsigned map_steps =
        steps(hsv ? FXI_EQ_GPU_FUSED_HSV_MAP_BYTES : FXI_EQ_GPU_FUSED_DEAL_BYTES);
    /* blocks an SM the launch bounds leave registers for */
    static constexpr int min_blocks =
        hsv ? FXI_EQ_GPU_FUSED_HSV_MIN_BLOCKS : FXI_EQ_GPU_FUSED_MIN_BLOCKS;
};
/* The most units a fused launch deals (counters of 32 bits): 2^30 units of at least
 * FUSED_BLOCK steps, at least 2^42 pixels. */
constexpr uint64_t FUSED_MAX_UNITS = 1u << 30;

/* This block's units: blockIdx.x, then gridDim.x + what the counter *dealt gives, while
 * below `units`; for each, load(u) then finish(u). The block takes its next unit once the
 * current one's loads are in flight, so that the atomic's round trip overlaps finish
 * and no block holds a unit long before it can start it (the end of the pass). */
template <class Load, class Finish>
__device__ __forceinline__ void deal_units(unsigned *dealt, unsigned units, Load &&load,
                                           Finish &&finish)
{
    __shared__ unsigned next_unit[2]; /* two: one is read while the other is written */
    unsigned slot = 0;
    for (unsigned u = blockIdx.x; u < units; slot ^= 1u) {
        load(u);
        unsigned taken = 0;
        if (threadIdx.x == 0) taken = atomicAdd(dealt, 1u);
        finish(u);
        if (threadIdx.x == 0) next_unit[slot] = gridDim.x + taken;
        __syncthreads();
        u = next_unit[slot];
    }
}

/* A unit's steps of one thread, loaded: n of them, oldest first (the rows and units of
 * their groups, and a vector group's words). */
template <int MODE, unsigned STEPS> struct loaded_unit {
    static constexpr unsigned N = STEPS;
    unsigned n, row[N], unit[N];
    uint32_t w[N][4 * fast_mode<MODE>::channels];
};

/* Load unit c's steps of this thread (their vector groups' words). */
template <int MODE, unsigned N>
__device__ __forceinline__ void load_unit(const uint8_t *in, size_t in_stride, int width,
                                          unsigned units, size_t items, unsigned c,
                                          loaded_unit<MODE, N> &d)
{
    constexpr int CH = fast_mode<MODE>::channels;
    size_t i0;
    d.n = fxi_eq_unit_steps(items, c, N, FUSED_BLOCK, threadIdx.x, &i0);
    if (d.n == 0) return;
    fxi_eq_walk at = fxi_eq_walk_at(i0, FUSED_BLOCK, units);
#pragma unroll
    for (unsigned s = 0; s < N; s++) {
        if (s >= d.n) break;
        d.row[s] = at.row;
        d.unit[s] = at.unit;
        const uint8_t *r = in + static_cast<size_t>(at.row) * in_stride;
        const fxi_eq_group g = fxi_eq_group_of(reinterpret_cast<uintptr_t>(r), CH, width, at.unit);
        if (g.vector) load_vec<CH>(r + static_cast<size_t>(g.x0) * CH, d.w[s]);
        fxi_eq_walk_on(&at);
    }
}

/* Count a loaded unit of one-plane mode MODE into the block's lane columns. */
template <int MODE, unsigned N>
__device__ __forceinline__ void count_loaded(const loaded_unit<MODE, N> &d, const uint8_t *in,
                                             size_t in_stride, int width, const float *unit_of,
                                             uint32_t *mine)
{
    constexpr int CH = fast_mode<MODE>::channels;
    static_assert(hist_layout<MODE>::columns, "lane columns");
#pragma unroll
    for (unsigned s = 0; s < N; s++) {
        if (s >= d.n) break;
        const uint8_t *r = in + static_cast<size_t>(d.row[s]) * in_stride;
        const fxi_eq_group g =
            fxi_eq_group_of(reinterpret_cast<uintptr_t>(r), CH, width, d.unit[s]);
        uint32_t keys[1][VEC];
        if (g.vector) {
            keys_of_words<MODE>(d.w[s], unit_of, keys);
            count_keys<1, VEC>(keys, mine, WARP);
        } else if (g.n > 0) {
            keys_of_pixels<MODE>(r + static_cast<size_t>(g.x0) * CH, g.n, unit_of, keys);
            count_keys<1, VEC>(keys, mine, WARP, g.n);
        }
    }
}

/* Map a loaded unit through t, newest step first. */
template <int MODE, unsigned N>
__device__ __forceinline__ void map_loaded(const map_tables<MODE> &t, const loaded_unit<MODE, N> &d,
                                           const uint8_t *in, size_t in_stride, uint8_t *out,
                                           size_t out_stride, int width)
{
    constexpr int CH = fast_mode<MODE>::channels;
#pragma unroll
    for (unsigned k = 0; k < N; k++) {
        const unsigned s = N - 1 - k;
        if (s >= d.n) continue;
        const uint8_t *r = in + static_cast<size_t>(d.row[s]) * in_stride;
        const fxi_eq_group g =
            fxi_eq_group_of(reinterpret_cast<uintptr_t>(r), CH, width, d.unit[s]);
        uint8_t *dst =
            out + static_cast<size_t>(d.row[s]) * out_stride + static_cast<size_t>(g.x0) * CH;
        if (g.vector) {
            uint32_t o[4 * CH];
            map_words<MODE>(t, false, d.w[s], o);
            store_vec<CH>(dst, o);
        } else if (g.n > 0) {
            map_pixels<MODE>(t, false, r + static_cast<size_t>(g.x0) * CH, dst, g.n);
        }
    }
}

/* Global equalization of a device image in one launch: the counting pass, the LUT and the
 * mapping pass (eq_hist_lut_u8 then eq_map_u8 otherwise), for one-plane modes on the
 * 8-bit fast path. Its blocks must all be resident at once (a cooperative launch, for
 * the grid-wide barrier):
 * - the count: the blocks take the image's units front to back as a counter deals them
 *   (deal_units);
 * - the grid's barrier, then every block builds the mapping tables from the complete
 *   histogram itself (fused_tables);
 * - the map, its units dealt newest first: the count's last reads are still in L2
 *   (about 30 MiB of a read stream stays there on the H200, r132);
 * - the last block to have read the histogram zeroes it and the counters as it ends.
 * The histogram and the counters are zero at launch (the last launch left them so, or
 * the launcher's memset). */
template <int MODE>
__global__ void __launch_bounds__(FUSED_BLOCK, deal<MODE>::min_blocks)
    eq_fused_u8(const uint8_t *in, size_t in_stride, uint8_t *out, size_t out_stride, int width,
                int height, unsigned units, fxi_eq_kernel_args lut)
{
    using layout = hist_layout<MODE>;
    static_assert(fast_mode<MODE>::planes == 1, "one-plane modes only");
    __shared__ __align__(8) uint32_t sh[layout::words];
    __shared__ map_tables<MODE> t;
    for (int i = threadIdx.x; i < layout::words; i += blockDim.x)
        sh[i] = 0;
    fill_unit_table<MODE>(t.unit);
    __syncthreads();
    uint32_t *mine = sh + layout::base();
    const size_t items = static_cast<size_t>(height) * units;
    unsigned *counters = lut.hist_done;
    {
        constexpr unsigned N = deal<MODE>::count_steps;
        loaded_unit<MODE, N> d;
        deal_units(
            counters + FXI_EQ_COUNT_DEALT, fxi_eq_deal_units(items, N, FUSED_BLOCK),
            [&](unsigned c) { load_unit(in, in_stride, width, units, items, c, d); },
            [&](unsigned) { count_loaded(d, in, in_stride, width, t.unit, mine); });
    }
    __syncthreads();
    flush_counts<MODE>(sh, lut.hist, 1u, 0u);
    /* the map's counter (no block takes from it before the barrier) */
    if (blockIdx.x == 0 && threadIdx.x == 0) counters[FXI_EQ_MAP_DEALT] = 0u;
    grid_barrier(counters);
    fused_tables<MODE>(lut, t, reinterpret_cast<unsigned long long *>(sh), sh + 2 * WARP);
    /* this block has read the histogram (fused_tables ends with a __syncthreads): the
     * round trip of its count overlaps the map */
    unsigned readers = 0;
    if (threadIdx.x == 0) readers = atomicAdd(counters + FXI_EQ_FUSED_READERS, 1u);
    {
        /* map unit k is the image's unit all - 1 - k: newest first */
        constexpr unsigned N = deal<MODE>::map_steps;
        const unsigned all = fxi_eq_deal_units(items, N, FUSED_BLOCK);
        loaded_unit<MODE, N> d;
        deal_units(
            counters + FXI_EQ_MAP_DEALT, all,
            [&](unsigned k) { load_unit(in, in_stride, width, units, items, all - 1 - k, d); },
            [&](unsigned) { map_loaded(t, d, in, in_stride, out, out_stride, width); });
    }
    /* every block has read the histogram: the last one zeroes it and the counters for the
     * next launch (gpu_cuda.c's hist_zero: no clearing launch before it) */
    if (threadIdx.x == 0 && readers == gridDim.x - 1u) {
        for (int b = 0; b < LEVELS_U8; b++)
            lut.hist[b] = 0u;
        counters[FXI_EQ_BLOCKS_DONE] = counters[FXI_EQ_FUSED_READERS] = 0u;
        counters[FXI_EQ_COUNT_DEALT] = 0u;
    }
}

/* CLAHE of a one-channel 8-bit image with 256 bins: each pixel the blend of its four
 * tiles' LUTs (all of them in shared memory, a byte an entry: levels <= 255), the
 * general eq_map's arithmetic (fxi_clahe_axis_at, fxi_clahe_blend). A 1-D grid striding
 * over height x units thread steps. */
__global__ void __launch_bounds__(FXI_EQ_GPU_MAX_BLOCK)
    eq_clahe_map_u8(const uint8_t *in, size_t in_stride, uint8_t *out, size_t out_stride, int width,
                    int height, unsigned units, const uint16_t *bin_lut, int tiles_x, int tiles_y,
                    float inv_tile_w, float inv_tile_h, uint32_t maxval)
{
    extern __shared__ __align__(16) uint8_t luts[]; /* tile * 256 + level */
    const int entries = tiles_x * tiles_y * LEVELS_U8;
    if ((reinterpret_cast<uintptr_t>(bin_lut) & 15u) == 0) {
        /* Eight 16-bit entries a load (every block reads all tiles' LUTs: a few loads
         * a thread, not one per entry), narrowed to bytes. */
        const uint4 *src = reinterpret_cast<const uint4 *>(bin_lut);
        uint2 *dst = reinterpret_cast<uint2 *>(luts);
        for (int i = threadIdx.x; i < entries / 8; i += blockDim.x) {
            const uint4 v = src[i];
            dst[i] = make_uint2((v.x & 0xFFu) | (v.x >> 16 & 0xFFu) << 8 | (v.y & 0xFFu) << 16 |
                                    (v.y >> 16 & 0xFFu) << 24,
                                (v.z & 0xFFu) | (v.z >> 16 & 0xFFu) << 8 | (v.w & 0xFFu) << 16 |
                                    (v.w >> 16 & 0xFFu) << 24);
        }
    } else {
        for (int i = threadIdx.x; i < entries; i += blockDim.x)
            luts[i] = static_cast<uint8_t>(bin_lut[i]);
    }
    __syncthreads();
    const size_t items = static_cast<size_t>(height) * units;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < items;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        unsigned y, u;
        split(i, units, &y, &u);
        const uint8_t *row = in + static_cast<size_t>(y) * in_stride;
        const fxi_eq_group g = fxi_eq_group_of(reinterpret_cast<uintptr_t>(row), 1, width, u);
        if (g.n <= 0) continue;
        const fxi_clahe_axis ys = fxi_clahe_axis_at(static_cast<int>(y), inv_tile_h, tiles_y);
        const uint8_t *l1 = luts + static_cast<size_t>(ys.t1) * tiles_x * LEVELS_U8;
        const uint8_t *l2 = luts + static_cast<size_t>(ys.t2) * tiles_x * LEVELS_U8;
        const uint8_t *src = row + g.x0;
        uint8_t *dst = out + static_cast<size_t>(y) * out_stride + g.x0;
        uint32_t w[4] = {0, 0, 0, 0}, o[4] = {0, 0, 0, 0};
        if (g.vector) load_vec<1>(src, w);
#pragma unroll
        for (int p = 0; p < VEC; p++) {
            if (p >= g.n) continue;
            const uint32_t v = g.vector ? byte_of(w, p) : src[p];
            const fxi_clahe_axis xs = fxi_clahe_axis_at(g.x0 + p, inv_tile_w, tiles_x);
            const int a1 = xs.t1 * LEVELS_U8 + static_cast<int>(v),
                      a2 = xs.t2 * LEVELS_U8 + static_cast<int>(v);
            const uint32_t r = fxi_clahe_blend(l1[a1], l1[a2], l2[a1], l2[a2], xs, ys, maxval);
            if (g.vector)
                set_byte(o, p, r);
            else
                dst[p] = static_cast<uint8_t>(r);
        }
        if (g.vector) store_vec<1>(dst, o);
    }
}

/* Whether the fast counting pass applies (u8, 256 bins, no mask, a fast layout; global
 * or CLAHE: fast_count), and the fast global mapping after it (fast_u8): equalize_math.h's
 * rule, which the CPU's fast_u8.c applies too. */
bool fast_count(const fxi_eq_kernel_args &a)
{
    return fxi_eq_u8_fast_path(FXI_EQ_FAST_COUNT, FXI_EQ_FAST_MODES_GPU, !a.is_u16, a.mode,
                               a.in_channels, a.bins, a.mask != nullptr, a.adaptive) != 0;
}

bool fast_u8(const fxi_eq_kernel_args &a)
{
    return fxi_eq_u8_fast_path(FXI_EQ_FAST_COUNT | FXI_EQ_FAST_MAP, FXI_EQ_FAST_MODES_GPU,
                               !a.is_u16, a.mode, a.in_channels, a.bins, a.mask != nullptr,
                               a.adaptive) != 0;
}

/* CLAHE's fast mapping: one 8-bit gray channel, 256 bins (a key is its bin; the mask
 * only ever limits the counting), every tile's LUT fits in shared memory. */
bool fast_clahe_map(const fxi_eq_kernel_args &a)
{
    return a.adaptive && !a.is_u16 && a.mode == FXI_EQ_MODE_GRAY && a.in_channels == 1 &&
           a.bins == LEVELS_U8 && a.level_bits == 8 &&
           fxi_eq_clahe_luts_fit(a.grid.tiles_x * a.grid.tiles_y,
                                 FXI_EQ_GPU_CLAHE_LUT_SHARED_BYTES);
}

/* The modes eq_map_u8 maps (to-gray maps as gray: launch_fast_map), and those
 * eq_hist_u8 counts. */
#define FAST_MAP_MODES(X)                                                                          \
    X(FXI_EQ_MODE_GRAY)                                                                            \
    X(FXI_EQ_MODE_HSV) X(FXI_EQ_MODE_LUMA) X(FXI_EQ_MODE_RGB) X(FXI_EQ_MODE_HSV_FLOAT)
#define FAST_COUNT_MODES(X) FAST_MAP_MODES(X) X(FXI_EQ_MODE_TO_GRAY)

/* The fast counting pass of mode M over t's image: as many blocks an SM as are
 * resident together (FXI_EQ_FAST_THREADS_PER_SM at most; the lane columns' 32 KiB of
 * shared memory allow fewer), so the grid is one full wave, never a wave and a bit. */
template <int M, bool FOLD_LUT>
fx_status launch_hist_mode(fx_context *ctx, fast_tiles t, int tiles, unsigned block,
                           const uint8_t *in, size_t in_stride, uint32_t *hist, uint8_t *gray,
                           size_t gray_stride, const fxi_eq_kernel_args &lut, cudaStream_t stream)
{
    const int sms = ctx->cuda->multiprocessors;
    auto kernel = FOLD_LUT ? eq_hist_lut_u8<M> : eq_hist_u8<M>;
    int resident = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, static_cast<int>(block),
                                                      0) != cudaSuccess)
        resident = 0;
    const fxi_eq_hist_launch h = fxi_eq_fast_hist_geometry(t.tile_h, tiles, block, sms, resident);
    kernel<<<dim3(h.tiles, h.slices), block, 0, stream>>>(in, in_stride, t, hist, gray,
                                                          gray_stride, lut);
    return fxi_cuda_check_launch(ctx, FOLD_LUT ? "eq_hist_lut_u8" : "eq_hist_u8");
}

/* Whether the fast counting pass of a's whole image computes the LUTs in its last block
 * (eq_hist_lut_u8): global equalization of a one-plane mode, a block size the scan
 * takes (a power of two, at most FOLD_MAX_BLOCK) with room for the scan in the
 * counters' shared memory, and the counter to find the last block. CLAHE keeps eq_lut (one block a tile: many LUTs in parallel), and so do the
 * bands of a host image (the LUT needs them all). */
template <int M> bool fold_lut_fits(unsigned block)
{
    /* rgb's three planes: its pass needs more registers than the cap leaves (spills) */
    return fast_mode<M>::planes == 1 && block >= WARP && (block & (block - 1)) == 0 &&
           block <= FOLD_MAX_BLOCK &&
           static_cast<size_t>(hist_layout<M>::words) >=
               2u * block + static_cast<size_t>(fast_mode<M>::planes) * LEVELS_U8;
}

bool fold_lut(const fxi_eq_kernel_args &a)
{
    if (!FXI_EQ_GPU_FOLD_LUT || a.adaptive || !a.hist_done || !fast_count(a)) return false;
    switch (a.mode) {
#define FOLD_CASE(M)                                                                               \
    case M: return fold_lut_fits<M>(a.block);
        FAST_COUNT_MODES(FOLD_CASE)
#undef FOLD_CASE
    default: return false;
    }
}

/* The modes eq_fused_u8 runs (FXI_EQ_GPU_FUSED_MODES, equalize_tuning.h): one-plane modes
 * whose mapping reads the value LUT. */
#define FUSED_MODES(X) X(FXI_EQ_MODE_GRAY) X(FXI_EQ_MODE_HSV) X(FXI_EQ_MODE_LUMA)

/* Whether a's equalization may run as one launch (eq_fused_u8): global, both passes on the
 * 8-bit fast path (fast_u8), a mode of FUSED_MODES (one plane) that FXI_EQ_GPU_FUSED_MODES
 * names, blocks of FUSED_BLOCK threads, the counters after the histogram, and a GPU that
 * launches cooperatively. */
bool fused(const fx_context *ctx, const fxi_eq_kernel_args &a)
{
    if (!ctx->cuda->cooperative || a.block != FUSED_BLOCK || a.adaptive || !a.hist_done ||
        !fast_u8(a))
        return false;
    /* the units dealt, counted in 32 bits (an image of up to 2^40 pixels) */
    const uint64_t items = static_cast<uint64_t>(a.height) * fxi_eq_fast_units(a.width);
    if (items / FUSED_BLOCK >= FUSED_MAX_UNITS) return false;
    switch (a.mode) {
#define FUSED_CASE(M)                                                                              \
    case M: return (FXI_EQ_GPU_FUSED_MODES & FXI_EQ_MODE_BIT(M)) != 0;
        FUSED_MODES(FUSED_CASE)
#undef FUSED_CASE
    default: return false;
    }
}

/* Blocks of eq_fused_u8<M> an SM can hold at once (0 where the query fails). */
template <int M> int fused_resident()
{
    int resident = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &resident, eq_fused_u8<M>, static_cast<int>(FUSED_BLOCK), 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return resident;
}

/* eq_fused_u8<M> over a's image in a.fused_blocks blocks. *launched stays false where
 * the GPU cannot hold them all at once (nothing has run; the caller launches the passes
 * one by one). */
template <int M>
fx_status launch_fused_mode(fx_context *ctx, const fxi_eq_kernel_args &a, cudaStream_t stream,
                            bool *launched)
{
    const uint8_t *in = a.in;
    uint8_t *out = a.out;
    size_t in_stride = a.in_stride, out_stride = a.out_stride;
    int width = a.width, height = a.height;
    unsigned units = fxi_eq_fast_units(a.width);
    fxi_eq_kernel_args lut = a;
    void *params[] = {&in, &in_stride, &out, &out_stride, &width, &height, &units, &lut};
    if (a.fused_graph) {
        /* the plan fixes every argument but the images (lut holds them too) */
        const uint64_t key[FXI_KERNEL_GRAPH_KEY] = {reinterpret_cast<uintptr_t>(in), in_stride,
                                                    reinterpret_cast<uintptr_t>(out), out_stride};
        FXI_TRY(fxi_kernel_graph_launch(
            ctx, a.fused_graph, reinterpret_cast<const void *>(eq_fused_u8<M>),
            dim3(a.fused_blocks), dim3(FUSED_BLOCK), params, 1, key, stream, launched));
        if (*launched) return FX_OK;
    }
    const cudaError_t e =
        cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(eq_fused_u8<M>), a.fused_blocks,
                                    FUSED_BLOCK, params, 0, stream);
    if (e == cudaErrorCooperativeLaunchTooLarge) {
        (void)cudaGetLastError();
        return FX_OK;
    }
    if (e != cudaSuccess) return fxi_cuda_error(ctx, e, "launch of eq_fused_u8");
    *launched = true;
    return fxi_cuda_check_launch(ctx, "eq_fused_u8");
}

fx_status launch_fused(fx_context *ctx, const fxi_eq_kernel_args &a, cudaStream_t stream,
                       bool *launched)
{
    *launched = false;
    switch (a.mode) {
#define FUSED_LAUNCH(M)                                                                            \
    case M: return launch_fused_mode<M>(ctx, a, stream, launched);
        FUSED_MODES(FUSED_LAUNCH)
#undef FUSED_LAUNCH
    default: return FX_OK;
    }
}

/* The fast counting pass over a's image (global: a band of it, as narrowed; CLAHE: the
 * whole image in its tiles); with with_lut (fold_lut true), the LUT pass too. */
fx_status launch_fast_hist(fx_context *ctx, const fxi_eq_kernel_args &a, cudaStream_t stream,
                           bool with_lut = false)
{
    const fxi_eq_kernel_args &lut = a;
    fast_tiles t;
    t.width = a.width;
    t.height = a.height;
    t.tiles_x = a.adaptive ? a.grid.tiles_x : 1;
    t.tile_w = a.adaptive ? a.grid.tile_w : a.width;
    t.tile_h = a.adaptive ? a.grid.tile_h : a.height;
    const int tiles = a.adaptive ? a.grid.tiles_x * a.grid.tiles_y : 1;
    /* Global to-gray: the gray image goes to the output here (launch_fast_map). */
    uint8_t *gray = a.mode == FXI_EQ_MODE_TO_GRAY && !a.adaptive ? a.out : nullptr;
    switch (a.mode) {
#define HIST_CASE(M)                                                                               \
    case M:                                                                                        \
        return with_lut ? launch_hist_mode<M, true>(ctx, t, tiles, a.block, a.in, a.in_stride,    \
                                                    a.hist, gray, a.out_stride, lut, stream)       \
                        : launch_hist_mode<M, false>(ctx, t, tiles, a.block, a.in, a.in_stride,   \
                                                     a.hist, gray, a.out_stride, lut, stream);
        FAST_COUNT_MODES(HIST_CASE)
#undef HIST_CASE
    default: break;
    }
    return fxi_cuda_check_launch(ctx, "eq_hist_u8");
}

/* Global to-gray maps the gray image that its counting pass wrote to the output, in
 * place: one byte read a pixel instead of three (the fast counting pass always runs
 * before this one, on the same rows). */
fx_status launch_fast_map(fx_context *ctx, const fxi_eq_kernel_args &args, cudaStream_t stream)
{
    fxi_eq_kernel_args a = args;
    if (a.mode == FXI_EQ_MODE_TO_GRAY) {
        a.mode = FXI_EQ_MODE_GRAY;
        a.in = a.out;
        a.in_stride = a.out_stride;
    }
    const unsigned units = fxi_eq_fast_units(a.width);
    const unsigned blocks = fxi_eq_fast_grid(static_cast<size_t>(a.height) * units, a.block,
                                             ctx->cuda->multiprocessors);
    switch (a.mode) {
#define MAP_CASE(M)                                                                                \
    case M:                                                                                        \
        eq_map_u8<M><<<blocks, a.block, 0, stream>>>(a.in, a.in_stride, a.out, a.out_stride,       \
                                                     a.width, a.height, units, a.value_lut,        \
                                                     a.float_lut, a.identity);                     \
        break;
        FAST_MAP_MODES(MAP_CASE)
#undef MAP_CASE
    default: break;
    }
    return fxi_cuda_check_launch(ctx, "eq_map_u8");
}

fx_status launch_fast_clahe_map(fx_context *ctx, const fxi_eq_kernel_args &a, cudaStream_t stream)
{
    const unsigned units = fxi_eq_fast_units(a.width);
    const unsigned blocks = fxi_eq_fast_grid(static_cast<size_t>(a.height) * units, a.block,
                                             ctx->cuda->multiprocessors);
    const size_t shared = static_cast<size_t>(a.grid.tiles_x) * a.grid.tiles_y * LEVELS_U8;
    eq_clahe_map_u8<<<blocks, a.block, shared, stream>>>(
        a.in, a.in_stride, a.out, a.out_stride, a.width, a.height, units, a.bin_lut, a.grid.tiles_x,
        a.grid.tiles_y, a.inv_tile_w, a.inv_tile_h, a.maxval);
    return fxi_cuda_check_launch(ctx, "eq_clahe_map_u8");
}

/* The image's arguments narrowed to rows [y0, y0 + rows): in and out start at row y0,
 * the height is the band's (the fast kernels and their grids see only the band). */
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

extern "C" unsigned fxi_equalize_fused_blocks(fx_context *ctx, const fxi_eq_kernel_args *args)
{
    const fxi_eq_kernel_args &a = *args;
    if (!fused(ctx, a)) return 0;
    int resident = 0;
    switch (a.mode) {
#define FUSED_RESIDENT(M)                                                                          \
    case M: resident = fused_resident<M>(); break;
        FUSED_MODES(FUSED_RESIDENT)
#undef FUSED_RESIDENT
    default: return 0;
    }
    return fxi_eq_fused_grid(static_cast<size_t>(a.height) * fxi_eq_fast_units(a.width),
                             FUSED_BLOCK, ctx->cuda->multiprocessors, resident);
}

extern "C" fx_status fxi_equalize_clear_launch(fx_context *ctx, const fxi_eq_kernel_args *args)
{
    const fxi_eq_kernel_args &a = *args;
    const size_t tiles = static_cast<size_t>(a.grid.tiles_x) * a.grid.tiles_y;
    const size_t entries = static_cast<size_t>(a.planes) * tiles * a.bins;
    /* the counters after the histograms too (fxi_eq_counter; zero as the launches leave
     * them, cleared here as well, in case a launch failed part-way) */
    if (a.hist_zero) *a.hist_zero = 0; /* what runs after this leaves counts there */
    return fxi_device_memset(ctx, a.hist, 0,
                             entries * sizeof *a.hist + FXI_EQ_COUNTERS * sizeof *a.hist_done);
}

extern "C" fx_status fxi_equalize_fast_hist_launch(fx_context *ctx, const fxi_eq_kernel_args *args,
                                                   int y0, int rows, cudaStream_t stream)
{
    fxi_eq_kernel_args a = *args;
    FXI_TRY(narrow_to_rows(ctx, y0, rows, &a));
    return launch_fast_hist(ctx, a, stream);
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

extern "C" fx_status fxi_equalize_fast_map_launch(fx_context *ctx, const fxi_eq_kernel_args *args,
                                                  int y0, int rows, cudaStream_t stream)
{
    fxi_eq_kernel_args a = *args;
    FXI_TRY(narrow_to_rows(ctx, y0, rows, &a));
    return launch_fast_map(ctx, a, stream);
}

extern "C" fx_status fxi_equalize_launch(fx_context *ctx, const fxi_eq_kernel_args *args)
{
    FXI_TRY(fxi_cuda_require(ctx, "GPU equalization"));
    const fxi_eq_kernel_args &a = *args;
    const int sms = ctx->cuda->multiprocessors;
    cudaStream_t stream = ctx->cuda->stream;
    const unsigned tiles = static_cast<unsigned>(a.grid.tiles_x * a.grid.tiles_y);
    if (a.fused_blocks) {
        /* hist is zero where the last launch was a fused one (it leaves it so) */
        const bool zero = a.hist_zero && *a.hist_zero;
        if (!zero) FXI_TRY(fxi_equalize_clear_launch(ctx, args));
        bool launched = false;
        FXI_TRY(launch_fused(ctx, a, stream, &launched));
        if (launched) {
            if (a.hist_zero) *a.hist_zero = 1;
            return FX_OK;
        }
    }
    FXI_TRY(fxi_equalize_clear_launch(ctx, args));
    const bool lut_folded = fold_lut(a);
    if (fast_count(a)) {
        FXI_TRY(launch_fast_hist(ctx, a, stream, lut_folded));
    } else {
        const fxi_eq_hist_launch h = fxi_eq_hist_geometry(
            a.grid.tile_h, static_cast<int>(tiles), static_cast<int>(a.block), sms, BLOCKS_PER_SM);
        const size_t shared_bytes = static_cast<size_t>(a.planes) * a.bins * sizeof(uint32_t);
        const int shared = shared_bytes <= SHARED_HISTOGRAM_BYTES;
        const dim3 hist_grid(h.tiles, h.slices);
        if (a.is_u16)
            eq_histogram<uint16_t><<<hist_grid, h.threads, shared ? shared_bytes : 0, stream>>>(
                a, h.rows_per_block, shared);
        else
            eq_histogram<uint8_t><<<hist_grid, h.threads, shared ? shared_bytes : 0, stream>>>(
                a, h.rows_per_block, shared);
        FXI_TRY(fxi_cuda_check_launch(ctx, "eq_histogram"));
    }

    if (!lut_folded) FXI_TRY(fxi_equalize_lut_launch(ctx, args, stream));

    if (fast_u8(a)) return launch_fast_map(ctx, a, stream);
    if (fast_clahe_map(a)) return launch_fast_clahe_map(ctx, a, stream);
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
