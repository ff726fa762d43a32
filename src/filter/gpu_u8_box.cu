/* The 8-bit one-pass box (layout FXI_U8_BOX_SLIDE, gpu_u8_geometry.h; its arithmetic in
 * box_slide.h): every 8-bit box the walk does not take, in exact uint32 sums finished as
 * the CPU's (filter_math.h), so the bytes are the CPU's.
 *
 * Why it is fast: the image is read once (the rows leaving the window a second time,
 * mostly from L2) and written once, with no intermediate; a row's work is a few integer
 * operations an element for every kernel size: column sums slide down in registers (one
 * add and one subtract a word of 4 elements), and each output is one difference of two
 * prefix sums in shared memory, finished 4 to a 32-bit store. The two-pass box it replaces
 * wrote and read a uint16 intermediate of twice the image. Every thread loads aligned
 * words, those at the row's two ends from edge rows that a launch before it writes with
 * the border rule applied (k_u8_box_side): the border rule in the loop made their warps
 * the blocks' slowest, more than half of box:121's time (docs/BENCHMARKS.md, r118-r120).
 */
#include "filter/box_slide.h"
#include "filter/gpu_u8_device.cuh"

using namespace fxi_filter_device;
using namespace fxi_u8_device;

namespace
{

constexpr int PIX = FXI_GPU_U8_SLIDE_PIXELS;
constexpr int OUTPUTS_IN_FLIGHT = FXI_GPU_U8_SLIDE_OUTPUTS_IN_FLIGHT;
constexpr int WARM_ROWS = FXI_GPU_U8_SLIDE_WARM_ROWS;
constexpr int WORDS_IN_FLIGHT = FXI_GPU_U8_SLIDE_WORDS_IN_FLIGHT;
constexpr int SIDE_THREADS = 128; /* k_u8_box_side's blocks: a word of an edge row each */
constexpr int SIDE_ROWS = FXI_GPU_U8_SLIDE_SIDE_ROWS; /* ... and its rows a thread */

/* Where a block's staged pixels come from: the border rule resolved once per block, not
 * per row (it depends on the column only). Staged element t is element phase + t of the
 * block's first pixel p0 (phase = s0 - p0 * C): pixel j = (phase + t) / C of the map. */
struct column_map {
    const int32_t *source; /* the stored pixel of each staged pixel, -1: the constant border */
    int phase;
};

/* The 4 elements from staged element t0 (a multiple of 4) of stored row `row` (-1: a
 * constant row), through the map: for the threads at the row's two ends where there are
 * no edge rows (fxi_gpu_u8_slide_side), and for constant rows. Out of line, a word a call
 * (a call a row, its words through local memory, spilled 60 bytes in the loop). */
template <int C>
__device__ __noinline__ uint32_t edge_word(const fxi_filter_args &a, const u8_image &im,
                                           int64_t row, column_map map, int t0)
{
    const uint8_t *src = im.src + (row < 0 ? 0 : row * im.src_stride);
    uint32_t w = 0;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int c;
        const int j = fxi_box_slide_pixel(map.phase, t0 + i, C, &c);
        const int32_t px = row < 0 ? -1 : map.source[j];
        const uint32_t v = px < 0 ? static_cast<uint32_t>(border_sample<int32_t>(a, c))
                                  : src[static_cast<int64_t>(px) * C + c];
        w |= v << (8 * i);
    }
    return w;
}

/* How a block's outputs finish, chosen once: the integer rule (fxi_finish_u32_product),
 * cv2.blur's float rule (fxi_finish_float_scale before scalar_from, the double rule
 * after), or any other (put_whole: the exact finish in double, an alpha kept). */
enum finish_kind { FINISH_U32, FINISH_FLOAT, FINISH_ANY };

__device__ __forceinline__ finish_kind finish_of(const fxi_filter_args &a, const fxi_gpu_u8_taps &tp,
                                                 int channels)
{
    if (a.filter_channels != channels) return FINISH_ANY;
    if (tp.int_finish) return FINISH_U32;
    if (tp.scale == 1.0 && a.finish.mode == FXI_ROUND_FLOAT_SCALE) return FINISH_FLOAT;
    return FINISH_ANY;
}

/* The rare finishes out of line, so that their double arithmetic does not hold
 * registers in the kernel's loop: the exact rule of one output (cv2.blur's double tail),
 * and a row's outputs by put_whole (other rules, an alpha kept). */
__device__ __noinline__ uint32_t finish_exact(const fxi_filter_args &a, uint32_t sum, int64_t e)
{
    return static_cast<uint32_t>(fxi_finish_exact_at(&a.finish, static_cast<double>(sum), e));
}

template <int C>
__device__ __noinline__ void finish_any(const fxi_filter_args &a, const u8_image &im,
                                        const fxi_gpu_u8_taps &tp, const uint32_t *prefix,
                                        int64_t r, int64_t o0, int outs, int offset, int reach)
{
    for (int o = threadIdx.x; o < outs; o += blockDim.x)
        put_whole(a, im, tp, r, o0 + o, static_cast<int>((o0 + o) % C),
                  fxi_box_window(prefix, o + offset, reach, C));
}

/* A row's outputs o = first, first + stride, ... below `end`, OUTPUTS_IN_FLIGHT at a time
 * with their prefix loads issued together (filter_tuning.h), each finished by
 * finish_sum; returns the first output left. */
template <int C, typename F>
__device__ __forceinline__ int finish_in_flight(const uint32_t *prefix, uint8_t *drow, int first,
                                                int stride, int end, int offset, int reach,
                                                F finish_sum)
{
    int o = first;
#pragma unroll 1
    for (; o + (OUTPUTS_IN_FLIGHT - 1) * stride < end; o += OUTPUTS_IN_FLIGHT * stride) {
        uint32_t sum[OUTPUTS_IN_FLIGHT];
#pragma unroll
        for (int u = 0; u < OUTPUTS_IN_FLIGHT; u++)
            sum[u] = fxi_box_window(prefix, o + u * stride + offset, reach, C);
#pragma unroll
        for (int u = 0; u < OUTPUTS_IN_FLIGHT; u++)
            drow[o + u * stride] = static_cast<uint8_t>(finish_sum(sum[u]));
    }
    return o;
}

/* Prefix words i + M .. i + M + 3 (i a multiple of 4, the prefix 16-byte aligned): one
 * 128-bit load when M is 0, else two loads. The second may reach up to 3 words past the
 * last word wanted: the prefix has 4 words of padding after it (gpu_u8_geometry.c). */
template <int M> __device__ __forceinline__ uint4 prefix_quad(const uint32_t *prefix, int i)
{
    const uint32_t *p = prefix + i;
    if constexpr (M == 0) {
        return *reinterpret_cast<const uint4 *>(p);
    } else if constexpr (M == 1) {
        const uint4 a = *reinterpret_cast<const uint4 *>(p);
        return make_uint4(a.y, a.z, a.w, p[4]);
    } else if constexpr (M == 2) {
        const uint2 a = *reinterpret_cast<const uint2 *>(p + 2);
        const uint2 b = *reinterpret_cast<const uint2 *>(p + 4);
        return make_uint4(a.x, a.y, b.x, b.y);
    } else {
        const uint4 b = *reinterpret_cast<const uint4 *>(p + 4);
        return make_uint4(p[3], b.x, b.y, b.z);
    }
}

/* The output word of the 4 sums hi - lo, each finished by finish_byte (whose low byte is
 * the output). */
template <typename F>
__device__ __forceinline__ uint32_t finish_quad(uint4 hi, uint4 lo, F finish_byte)
{
    const uint32_t b0 = finish_byte(hi.x - lo.x), b1 = finish_byte(hi.y - lo.y);
    const uint32_t b2 = finish_byte(hi.z - lo.z), b3 = finish_byte(hi.w - lo.w);
    return __byte_perm(__byte_perm(b0, b1, 0x0040), __byte_perm(b2, b3, 0x0040), 0x5410);
}

/* Output words k = threadIdx.x, + blockDim.x, ... below `words` (outputs 4k .. 4k + 3),
 * WORDS_IN_FLIGHT at a time: output 4k + j is prefix[4k + j + hi0 + MA] - prefix[4k + j +
 * lo0 + MB] (fxi_box_window), hi0 and lo0 multiples of 4. */
template <int MA, int MB, typename F>
__device__ __forceinline__ void finish_words_at(const uint32_t *prefix, uint32_t *dwords, int words,
                                                int hi0, int lo0, F finish_byte)
{
    const int stride = blockDim.x;
    int k = threadIdx.x;
#pragma unroll 1
    for (; k + (WORDS_IN_FLIGHT - 1) * stride < words; k += WORDS_IN_FLIGHT * stride) {
        uint4 hi[WORDS_IN_FLIGHT], lo[WORDS_IN_FLIGHT];
#pragma unroll
        for (int u = 0; u < WORDS_IN_FLIGHT; u++) {
            hi[u] = prefix_quad<MA>(prefix, 4 * (k + u * stride) + hi0);
            lo[u] = prefix_quad<MB>(prefix, 4 * (k + u * stride) + lo0);
        }
#pragma unroll
        for (int u = 0; u < WORDS_IN_FLIGHT; u++)
            dwords[k + u * stride] = finish_quad(hi[u], lo[u], finish_byte);
    }
#pragma unroll 1
    for (; k < words; k += stride)
        dwords[k] = finish_quad(prefix_quad<MA>(prefix, 4 * k + hi0),
                                prefix_quad<MB>(prefix, 4 * k + lo0), finish_byte);
}

/* finish_words_at for the block's misalignments (MA, MB) = QUAD / 4, QUAD % 4, chosen at
 * run time (the same for every thread of the block). */
template <int QUAD, typename F>
__device__ __forceinline__ void finish_words_by(int quad, const uint32_t *prefix, uint32_t *dwords,
                                                int words, int hi0, int lo0, F finish_byte)
{
    if constexpr (QUAD < 16) {
        if (quad == QUAD)
            finish_words_at<QUAD / 4, QUAD % 4>(prefix, dwords, words, hi0, lo0, finish_byte);
        else
            finish_words_by<QUAD + 1>(quad, prefix, dwords, words, hi0, lo0, finish_byte);
    }
}

/* A row's outputs 0 .. end - 1 rounded down to a multiple of 4, a word of 4 consecutive
 * outputs a thread at a time (drow 4-byte aligned): one store, and 2 to 4 shared-memory
 * loads, for 4 outputs; returns this thread's first output left (bytes). */
template <int C, typename F>
__device__ __forceinline__ int finish_words(const uint32_t *prefix, uint8_t *drow, int end,
                                            int offset, int reach, F finish_byte)
{
    const int hi = offset + reach, lo = offset - C; /* output 0's window: prefix[hi] - prefix[lo] */
    const int ma = hi & 3, mb = lo & 3;
    finish_words_by<0>(4 * ma + mb, prefix, reinterpret_cast<uint32_t *>(drow), end >> 2, hi - ma,
                       lo - mb, finish_byte);
    return (end & ~3) + static_cast<int>(threadIdx.x);
}

/* What a thread loads: nothing (its elements lie past every window of the block's
 * outputs), aligned words, bytes (rows not at multiples of 4 bytes), or, where some of
 * its elements lie outside the row, aligned words of the edge rows (LOAD_SIDE: the
 * borders applied by k_u8_box_side) or elements by the border rule (LOAD_EDGE, without
 * edge rows, and for the constant border's rows outside the image). */
enum load_kind { LOAD_NONE, LOAD_WORDS, LOAD_BYTES, LOAD_EDGE, LOAD_SIDE };

/* The WORDS words of virtual row v from element `mine` (a multiple of 4), staged element
 * `t` of the block; LOAD_SIDE: from `side`, this thread's words in edge row 0 (rows of
 * side_row bytes). */
template <int C, int WORDS>
__device__ __forceinline__ void row_words(const fxi_filter_args &a, const u8_image &im, int64_t v,
                                          int64_t mine, int t, column_map map, load_kind kind,
                                          const uint8_t *side, int64_t side_row,
                                          uint32_t (&w)[WORDS])
{
    if (kind == LOAD_SIDE) {
        const uint32_t *q = reinterpret_cast<const uint32_t *>(side + v * side_row);
#pragma unroll
        for (int k = 0; k < WORDS; k++)
            w[k] = __ldg(q + k);
        return;
    }
    const int64_t row = kind == LOAD_NONE ? 0 : src_row(a, v);
    if (kind == LOAD_NONE) {
#pragma unroll
        for (int k = 0; k < WORDS; k++)
            w[k] = 0;
    } else if (row >= 0 && kind == LOAD_WORDS) {
        const uint32_t *q = reinterpret_cast<const uint32_t *>(im.src + row * im.src_stride + mine);
#pragma unroll
        for (int k = 0; k < WORDS; k++)
            w[k] = __ldg(q + k);
    } else if (row >= 0 && kind == LOAD_BYTES) {
        const uint8_t *p = im.src + row * im.src_stride + mine;
#pragma unroll
        for (int k = 0; k < WORDS; k++)
            w[k] = static_cast<uint32_t>(p[4 * k]) | static_cast<uint32_t>(p[4 * k + 1]) << 8 |
                   static_cast<uint32_t>(p[4 * k + 2]) << 16 |
                   static_cast<uint32_t>(p[4 * k + 3]) << 24;
    } else {
#pragma unroll /* constant indices: w stays in registers */
        for (int k = 0; k < WORDS; k++)
            w[k] = edge_word<C>(a, im, row, map, t + 4 * k);
    }
}

template <int WORDS>
__device__ __forceinline__ void add_words(uint32_t (&lo)[WORDS], uint32_t (&hi)[WORDS],
                                          const uint32_t (&w)[WORDS])
{
#pragma unroll
    for (int k = 0; k < WORDS; k++)
        fxi_box_pairs_add(&lo[k], &hi[k], w[k]);
}

/* One block: tile_w threads, each staging EPT = PIX * C consecutive elements (whole
 * words and whole pixels), so that element t of the tile is channel (s0 + t) % C and a
 * thread's first element is a multiple of C from the tile's: the channel-strided scan
 * needs no realignment between threads. Per output row, two barriers: the warps' totals,
 * then the prefix; the next row's totals are written only after every thread has passed
 * the second barrier, and its prefix only after the first, so one buffer serves. */
template <int C, bool BATCH>
__global__ void __launch_bounds__(FXI_GPU_U8_SLIDE_THREADS, FXI_GPU_U8_SLIDE_SM_BLOCKS(C))
    k_u8_box_slide(const __grid_constant__ fxi_filter_args a,
                   const __grid_constant__ fxi_gpu_u8_launch g,
                   const __grid_constant__ fxi_gpu_u8_taps tp, const fxi_gpu_u8_image *batch,
                   int aligned, const uint8_t *side)
{
    constexpr int EPT = PIX * C, WORDS = EPT / 4;
    static_assert(EPT % 4 == 0, "a thread stages whole words");
    extern __shared__ __align__(16) uint32_t smem_words[];
    uint32_t *prefix = smem_words + 4;  /* g.in_w, after 4 zeros (fxi_box_window) */
    uint32_t *totals = prefix + g.in_w + 4; /* 4 a warp, after 4 words of padding */
    if (threadIdx.x < 4) smem_words[threadIdx.x] = prefix[g.in_w + threadIdx.x] = 0;
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int64_t n = a.width * C;
    const fxi_box_slide_shape shape = {n, g.slide_out, a.ax, a.kw, C, EPT, g.tile_w};
    const fxi_box_slide_block blk = fxi_box_slide_block_at(&shape, blockIdx.x);
    const int64_t o0 = blk.o0, s0 = blk.s0;
    const int offset = blk.offset, outs = blk.outs;
    const int t = tid * EPT; /* this thread's first staged element */
    const int64_t mine = s0 + t;
    /* the column map (shared memory after the warps' totals), built once */
    int32_t *source = reinterpret_cast<int32_t *>(totals + 4 * (blockDim.x / 32));
    int phase;
    const int64_t p0 = fxi_box_slide_first_pixel(s0, C, &phase);
    const column_map map = {source, phase};
    for (int j = tid; j < g.slide_pixels; j += blockDim.x)
        source[j] = static_cast<int32_t>(fxi_border_index(p0 + j, a.width, a.border));
    __syncthreads();
    const int reach = (a.kw - 1) * C;
    /* the last tile of a row reaches past it: threads past every window load nothing */
    const bool edge = tid < blk.left || tid >= blk.right;
    const load_kind kind = tid >= blk.loaders ? LOAD_NONE
                           : edge && side     ? LOAD_SIDE
                           : edge             ? LOAD_EDGE
                           : aligned          ? LOAD_WORDS
                                              : LOAD_BYTES;
    if (kind == LOAD_SIDE) {
        const fxi_box_slide_side sd = {g.tiles_x, g.side_left_blocks, g.side_right_blocks,
                                       g.side_left_w, g.side_right_w};
        side += (BATCH ? blockIdx.z * g.work_bytes : 0) +
                fxi_box_slide_side_index(&sd, &blk, blockIdx.x, tid, EPT, 0);
    }
    const finish_kind finish = finish_of(a, tp, C);
    /* FINISH_FLOAT: the block's outputs before `split` take the float rule */
    const int split = static_cast<int>(
        max(static_cast<int64_t>(0), min(static_cast<int64_t>(outs), a.finish.scalar_from - o0)));
    const float mul = static_cast<float>(a.finish.mul);
    /* the block's outputs leave a word of 4 at a time where every row's are 4-byte aligned */
    const bool words_out =
        ((reinterpret_cast<uintptr_t>(im.dst + o0) | static_cast<uintptr_t>(im.dst_stride)) & 3) ==
        0;
    for (int64_t ty = blockIdx.y; ty < g.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * g.tile_h, r1 = min(r0 + g.tile_h, a.rows);
        uint32_t lo[WORDS], hi[WORDS];
#pragma unroll
        for (int k = 0; k < WORDS; k++)
            lo[k] = hi[k] = 0;
        /* output row r reads virtual rows r .. r + kh - 1: the first kh - 1 here,
         * WARM_ROWS rows' loads in flight at a time */
        const int64_t v_end = r0 + a.kh - 1;
        int64_t v = r0;
#pragma unroll 1
        for (; v + WARM_ROWS <= v_end; v += WARM_ROWS) {
            uint32_t w[WARM_ROWS][WORDS];
#pragma unroll
            for (int m = 0; m < WARM_ROWS; m++)
                row_words<C, WORDS>(a, im, v + m, mine, t, map, kind, side, g.work_stride, w[m]);
#pragma unroll
            for (int m = 0; m < WARM_ROWS; m++)
                add_words(lo, hi, w[m]);
        }
#pragma unroll 1
        for (; v < v_end; v++) {
            uint32_t w0[WORDS];
            row_words<C, WORDS>(a, im, v, mine, t, map, kind, side, g.work_stride, w0);
            add_words(lo, hi, w0);
        }
        uint32_t enter[WORDS];
        row_words<C, WORDS>(a, im, v_end, mine, t, map, kind, side, g.work_stride, enter);
#pragma unroll 1
        for (int64_t r = r0; r < r1; r++) {
            add_words(lo, hi, enter);
            /* the leaving row and the next entering row load while this row is scanned */
            uint32_t leave[WORDS];
            row_words<C, WORDS>(a, im, r, mine, t, map, kind, side, g.work_stride, leave);
            if (r + 1 < r1)
                row_words<C, WORDS>(a, im, r + a.kh, mine, t, map, kind, side, g.work_stride,
                                    enter);
            /* the thread's channel-strided inclusive prefix, and its totals by channel */
            uint32_t p[EPT];
#pragma unroll
            for (int i = 0; i < EPT; i++) {
                p[i] = fxi_box_pairs_element(lo[i / 4], hi[i / 4], i % 4);
                if (i >= C) p[i] += p[i - C];
            }
            uint32_t total[C], carry[C];
#pragma unroll
            for (int q = 0; q < C; q++)
                total[q] = carry[q] = p[EPT - C + q];
#pragma unroll
            for (int off = 1; off < 32; off <<= 1)
#pragma unroll
                for (int q = 0; q < C; q++) {
                    const uint32_t before = __shfl_up_sync(0xFFFFFFFFu, carry[q], off);
                    if (lane >= off) carry[q] += before;
                }
            if (lane == 31)
#pragma unroll
                for (int q = 0; q < C; q++)
                    totals[4 * warp + q] = carry[q];
            __syncthreads();
#pragma unroll
            for (int q = 0; q < C; q++)
                carry[q] -= total[q]; /* the warp's lanes before this one */
#pragma unroll 1
            for (int w = 0; w < warp; w++)
#pragma unroll
                for (int q = 0; q < C; q++)
                    carry[q] += totals[4 * w + q];
            uint4 *mine_prefix = reinterpret_cast<uint4 *>(prefix + t);
#pragma unroll
            for (int k = 0; k < WORDS; k++)
                mine_prefix[k] = make_uint4(p[4 * k] + carry[(4 * k) % C],
                                            p[4 * k + 1] + carry[(4 * k + 1) % C],
                                            p[4 * k + 2] + carry[(4 * k + 2) % C],
                                            p[4 * k + 3] + carry[(4 * k + 3) % C]);
            __syncthreads();
            /* outputs o = tid + m * blockDim.x: conflict-free loads, coalesced bytes */
            uint8_t *drow = im.dst + r * im.dst_stride + o0;
            if (finish == FINISH_U32) {
                const auto rule = [&](uint32_t sum) {
                    return fxi_finish_u32_product(sum, tp.add, tp.mul, tp.shift, 255u);
                };
                int o = words_out ? finish_words<C>(prefix, drow, outs, offset, reach, rule)
                                  : finish_in_flight<C>(prefix, drow, tid, blockDim.x, outs, offset,
                                                        reach, rule);
                for (; o < outs; o += blockDim.x)
                    drow[o] = static_cast<uint8_t>(
                        fxi_finish_u32_product(fxi_box_window(prefix, o + offset, reach, C), tp.add,
                                               tp.mul, tp.shift, 255u));
            } else if (finish == FINISH_FLOAT) {
                /* the outputs from `split` on (cv2.blur's double tail) one at a time */
                int o = words_out
                            ? finish_words<C>(prefix, drow, split, offset, reach,
                                              [&](uint32_t sum) {
                                                  return fxi_finish_float_scale_u8_bits(sum, mul);
                                              })
                            : finish_in_flight<C>(prefix, drow, tid, blockDim.x, split, offset,
                                                  reach, [&](uint32_t sum) {
                                                      return fxi_finish_float_scale(sum, mul, 255u);
                                                  });
                for (; o < outs; o += blockDim.x) {
                    const uint32_t sum = fxi_box_window(prefix, o + offset, reach, C);
                    drow[o] =
                        static_cast<uint8_t>(o < split ? fxi_finish_float_scale(sum, mul, 255u)
                                                       : finish_exact(a, sum, o0 + o));
                }
            } else {
                finish_any<C>(a, im, tp, prefix, r, o0, outs, offset, reach);
            }
#pragma unroll
            for (int k = 0; k < WORDS; k++)
                fxi_box_pairs_sub(&lo[k], &hi[k], leave[k]);
        }
    }
}

/* The edge rows (box_slide.h's fxi_box_slide_side): word w of virtual rows v of each
 * image, its 4 elements by the border rule, as edge_word reads them. One thread a word
 * and SIDE_ROWS rows (grid y, strided), images in grid z: the word's 4 source columns
 * (a few 64-bit divisions each) are found once for those rows, and the rows' loads are
 * in flight together. */
template <bool BATCH>
__global__ void k_u8_box_side(const __grid_constant__ fxi_filter_args a,
                              const __grid_constant__ fxi_gpu_u8_launch g,
                              const fxi_gpu_u8_image *batch, uint8_t *side)
{
    const int64_t word = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (word * 4 >= static_cast<int64_t>(g.work_stride)) return;
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    const int C = a.channels;
    const fxi_box_slide_shape shape = {
        a.width * C, g.slide_out, a.ax, a.kw, C, FXI_GPU_U8_SLIDE_PIXELS * C, g.tile_w};
    const fxi_box_slide_side sd = {g.tiles_x, g.side_left_blocks, g.side_right_blocks,
                                   g.side_left_w, g.side_right_w};
    int64_t at[4]; /* the element's place in a stored row, or -1: the constant border */
    uint32_t border[4];
    for (int i = 0; i < 4; i++) {
        const int64_t e = fxi_box_slide_side_element(&sd, &shape, word * 4 + i);
        const int64_t p = floor_div(e, C);
        const int c = static_cast<int>(e - p * C);
        const int64_t x = fxi_border_index(p, a.width, a.border);
        at[i] = x < 0 ? -1 : x * C + c;
        border[i] = static_cast<uint32_t>(border_sample<int32_t>(a, c));
    }
    uint32_t *out = reinterpret_cast<uint32_t *>(side + (BATCH ? blockIdx.z * g.work_bytes : 0));
    const int64_t words = static_cast<int64_t>(g.work_stride / 4);
    for (int64_t v0 = static_cast<int64_t>(blockIdx.y) * SIDE_ROWS; v0 < g.vrows;
         v0 += static_cast<int64_t>(gridDim.y) * SIDE_ROWS) {
#pragma unroll
        for (int k = 0; k < SIDE_ROWS; k++) {
            const int64_t v = v0 + k;
            if (v >= g.vrows) break;
            const int64_t row = src_row(a, v);
            const uint8_t *src = im.src + (row < 0 ? 0 : row * im.src_stride);
            uint32_t w = 0;
#pragma unroll
            for (int i = 0; i < 4; i++)
                w |= (row < 0 || at[i] < 0 ? border[i] : src[at[i]]) << (8 * i);
            out[v * words + word] = w;
        }
    }
}

template <bool BATCH> auto slide_kernel(int channels)
{
    switch (channels) {
    case 1: return k_u8_box_slide<1, BATCH>;
    case 2: return k_u8_box_slide<2, BATCH>;
    case 3: return k_u8_box_slide<3, BATCH>;
    default: return k_u8_box_slide<4, BATCH>;
    }
}

} /* namespace */

extern "C" fx_status fxi_filter_launch_u8_box(fx_context *ctx, const fxi_filter_args *a,
                                              const fxi_gpu_u8_launch *g, const fxi_gpu_u8_taps *tp,
                                              const fxi_gpu_u8_image *images, unsigned count,
                                              int rows_aligned, void *work, cudaStream_t stream)
{
    FXI_RETURN_IF(a->channels < 1 || a->channels > 4 || a->width > INT32_MAX ||
                      g->in_w != g->tile_w * FXI_GPU_U8_SLIDE_PIXELS * a->channels ||
                      g->shared_bytes > FXI_GPU_DEFAULT_SHARED_BYTES,
                  FX_EINVAL, "filter 8-bit box slide: a launch geometry this kernel was not built for");
    uint8_t *side = g->work_bytes ? static_cast<uint8_t *>(work) : nullptr;
    if (side) {
        const int64_t words = static_cast<int64_t>(g->work_stride / 4);
        const int64_t row_blocks = (g->vrows + SIDE_ROWS - 1) / SIDE_ROWS;
        const dim3 side_grid(static_cast<unsigned>((words + SIDE_THREADS - 1) / SIDE_THREADS),
                             static_cast<unsigned>(min(row_blocks, static_cast<int64_t>(65535))),
                             count);
        if (images)
            k_u8_box_side<true><<<side_grid, SIDE_THREADS, 0, stream>>>(*a, *g, images, side);
        else
            k_u8_box_side<false><<<side_grid, SIDE_THREADS, 0, stream>>>(*a, *g, nullptr, side);
        FXI_TRY(fxi_cuda_check_launch(ctx, "filter 8-bit box (edge rows)"));
    }
    const dim3 grid(static_cast<unsigned>(g->grid_x), static_cast<unsigned>(g->grid_y), count);
    const auto kernel = images ? slide_kernel<true>(a->channels) : slide_kernel<false>(a->channels);
    kernel<<<grid, g->tile_w, g->shared_bytes, stream>>>(*a, *g, *tp, images, rows_aligned, side);
    return fxi_cuda_check_launch(ctx, "filter 8-bit box (one pass, sliding)");
}

extern "C" int64_t fxi_filter_u8_box_resident_blocks(int channels, int tile_w, size_t shared_bytes)
{
    int per_sm = 0, device = 0, sms = 0;
    if (channels < 1 || channels > 4 ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, slide_kernel<false>(channels), tile_w,
                                                      shared_bytes) != cudaSuccess ||
        cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        (void)cudaGetLastError(); /* an answer we do without: the default strips */
        return 0;
    }
    return static_cast<int64_t>(per_sm) * sms;
}
