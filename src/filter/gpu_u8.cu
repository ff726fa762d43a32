/* The GPU filter's 8-bit fast path (layouts: gpu_u8_geometry.h). Sums of whole numbers
 * below 2^24 are exact in FP32 in any order, so every kernel here gives the CPU's exact
 * int32 sum, and finishes it with fxi_finish_exact_at (filter_math.h) as every other
 * strategy does: the same bytes.
 *
 * Why it is fast: taps come from the kernel parameters (a constant-bank broadcast, no
 * per-tap branch); each thread of the two-pass kernels computes several outputs from a
 * window of values held in registers (one load feeds several FMAs); the fused kernel
 * reads the image once and writes it once.
 */
#include "filter/gpu_u8_device.cuh"
#include "filter/walk4_edge.h"

using namespace fxi_filter_device;
using namespace fxi_u8_device;

namespace
{

constexpr int ROW_R = FXI_GPU_U8_ROW_OUTPUTS;
constexpr int COL_R = FXI_GPU_U8_COL_OUTPUTS;
/* k_u8_rows_dp4a: quads of outputs a thread, enough for the block's row_segment pixels a
 * thread */
constexpr int DP4A_QUADS = (ROW_R + 3) / 4;

/* fused: stage the tile's input rows (as floats), row-filter them into a float tile, then
 * column-filter that; one output element per thread, tile_h rows. K: a K x K kernel,
 * unrolled, its column pass sliding a window of K values down the rows (one load an
 * output); 0: any size up to the fused limit, loops at run time. */
template <int K, bool BATCH>
__global__ void __launch_bounds__(FXI_GPU_U8_FUSED_THREADS)
    k_u8_fused(const __grid_constant__ fxi_filter_args a,
               const __grid_constant__ fxi_gpu_u8_launch g,
               const __grid_constant__ fxi_gpu_u8_taps tp, const fxi_gpu_u8_image *batch)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    const int C = a.channels, TW = g.tile_w, IW = g.in_w;
    const int kw = K ? K : a.kw, kh = K ? K : a.kh;
    const int t = threadIdx.x;
    const int IH = g.tile_h + kh - 1;
    float *rp = reinterpret_cast<float *>(smem);
    float *in = rp + static_cast<size_t>(IH) * TW;
    const int64_t n = a.width * C;
    const int64_t e0 = static_cast<int64_t>(blockIdx.x) * TW, e = e0 + t;
    const int64_t first = e0 - static_cast<int64_t>(a.ax) * C;
    const bool interior = first >= 0 && first + IW <= n;
    const int c = static_cast<int>(e % C);
    for (int64_t ty = blockIdx.y; ty < g.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * g.tile_h;
        const int rows = static_cast<int>(min(static_cast<int64_t>(g.tile_h), a.rows - r0));
        const int ih = rows + kh - 1;
        __syncthreads(); /* the previous tile's smem is read */
        for (int q = 0; q < ih; q++) {
            const int64_t row = src_row(a, r0 + q);
            float *d = in + q * IW;
            if (row >= 0 && interior) {
                const uint8_t *p = im.src + row * im.src_stride + first;
                for (int k = t; k < IW; k += TW)
                    d[k] = byte_float(p[k]);
            } else {
                for (int k = t; k < IW; k += TW)
                    d[k] = element<BATCH>(a, im, row, first + k);
            }
        }
        __syncthreads();
        for (int q = 0; q < ih; q++) {
            const float *s = in + q * IW + t;
            float acc = 0.f;
#pragma unroll
            for (int j = 0; j < kw; j++)
                acc = __fmaf_rn(tp.row[j], s[j * C], acc);
            rp[q * TW + t] = acc;
        }
        __syncthreads();
        if (e < n && K) {
            constexpr int KK = K > 0 ? K : 1; /* K = 0 never comes here */
            const float *s = rp + t;
            float win[KK];
#pragma unroll
            for (int i = 0; i < KK - 1; i++)
                win[i] = s[i * TW];
            for (int r = 0; r < rows; r++) {
                win[KK - 1] = s[(r + KK - 1) * TW];
                float acc = 0.f;
#pragma unroll
                for (int i = 0; i < KK; i++)
                    acc = __fmaf_rn(tp.col[i], win[i], acc);
                put(a, im, tp, r0 + r, e, c, acc);
#pragma unroll
                for (int i = 0; i < KK - 1; i++)
                    win[i] = win[i + 1];
            }
        } else if (e < n) {
            for (int r = 0; r < rows; r++) {
                const float *s = rp + r * TW + t;
                float acc = 0.f;
                for (int i = 0; i < kh; i++)
                    acc = __fmaf_rn(tp.col[i], s[i * TW], acc);
                put(a, im, tp, r0 + r, e, c, acc);
            }
        }
    }
}

/* fused 3x3 and 5x5, walking: each thread one output element, down tile_h rows: the K
 * samples of each input row it needs straight from global memory (L1: the block's warps
 * read the same bytes), its row sum into a window of K row sums in registers, each output
 * K multiply-adds from that window. No shared memory, no barrier. */
template <int K, bool BATCH>
__global__ void __launch_bounds__(FXI_GPU_U8_FUSED_THREADS)
    k_u8_walk(const __grid_constant__ fxi_filter_args a,
              const __grid_constant__ fxi_gpu_u8_launch g,
              const __grid_constant__ fxi_gpu_u8_taps tp, const fxi_gpu_u8_image *batch)
{
    const int C = a.channels;
    const int64_t n = a.width * C;
    const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= n) return;
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    const int c = static_cast<int>(e % C);
    const int64_t first = e - static_cast<int64_t>(a.ax) * C; /* tap 0's element */
    const bool interior = first >= 0 && first + (K - 1) * C < n;
    for (int64_t ty = blockIdx.y; ty < g.tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * g.tile_h;
        const int rows = static_cast<int>(min(static_cast<int64_t>(g.tile_h), a.rows - r0));
        float win[K] = {}; /* row sums; the first K - 1 rows fill it */
#pragma unroll 2
        for (int q = 0; q < rows + K - 1; q++) {
            const int64_t row = src_row(a, r0 + q);
            float rs = 0.f;
            if (row >= 0 && interior) {
                const uint8_t *p = im.src + row * im.src_stride + first;
#pragma unroll
                for (int j = 0; j < K; j++)
                    rs = __fmaf_rn(tp.row[j], byte_float(__ldg(p + j * C)), rs);
            } else {
#pragma unroll
                for (int j = 0; j < K; j++)
                    rs = __fmaf_rn(tp.row[j], element<BATCH>(a, im, row, first + j * C), rs);
            }
#pragma unroll
            for (int i = 0; i < K - 1; i++)
                win[i] = win[i + 1];
            win[K - 1] = rs;
            if (q >= K - 1) {
                float acc = 0.f;
#pragma unroll
                for (int i = 0; i < K; i++)
                    acc = __fmaf_rn(tp.col[i], win[i], acc);
                put(a, im, tp, r0 + q - (K - 1), e, c, acc);
            }
        }
    }
}

/* The taps a k_u8_walk4 instance sums with: the plan's (multiply-adds), a box's (adds),
 * or 3x3 taps in the ratios 1 : 2 : 1 both ways (gaussian:3, fxi_gpu_u8_taps.binomial3),
 * summed with those weights known here (a shift and adds) and finished from the unit sum. */
enum walk_taps { WALK_WEIGHTED, WALK_BOX, WALK_121 };

/* Tap j of a row's or a column's taps (tp.row or tp.col) as the walk sums with it. */
template <int K, int TAPS>
__device__ __forceinline__ uint32_t walk_tap(const float *taps, int j)
{
    static_assert(TAPS != WALK_121 || K == 3, "1 : 2 : 1 is a 3-tap kernel");
    return TAPS == WALK_121 ? (j == 1 ? 2u : 1u) : static_cast<uint32_t>(taps[j]);
}

/* A k_u8_walk4 thread's E row sums of one row (the out-of-line constant_row_sums'). */
template <int E> struct walk_row_sums {
    uint32_t v[E];
};

/* The row sums of a constant row (the constant border above or below the image) for the
 * E elements of a k_u8_walk4 thread whose tap 0 reads element `first`, 4 at a time
 * (walk4_edge.h). Out of line: only the first and last K - 1 rows of a constant border
 * come here, and its arithmetic (a division for C = 3) would otherwise take registers
 * from the walk. One call for the E sums: a call for each 4 of them, in the walk's
 * unrolled loop, cost the 4-element walk spills (3x3: 8 bytes became 60). */
template <int K, int C, int TAPS, int E>
__device__ __noinline__ walk_row_sums<E> constant_row_sums(const fxi_filter_args &a,
                                                           const fxi_gpu_u8_taps &tp, int64_t first)
{
    uint32_t taps[K];
#pragma unroll
    for (int j = 0; j < K; j++)
        taps[j] = walk_tap<K, TAPS>(tp.row, j); /* box: 1 each */
    const uint32_t border_bytes = fxi_walk4_border_bytes(a.border_value, C);
    walk_row_sums<E> s;
#pragma unroll
    for (int b = 0; b < E / 4; b++) {
        const int64_t f = first + 4 * b;
        const int phase = static_cast<int>(f - fxi_walk4_first_pixel(f, C) * C);
        fxi_walk4_constant_row_sums(phase, K, C, taps, border_bytes, s.v + 4 * b);
    }
    return s;
}

/* The aligned words an inside k_u8_walk4 thread loads a row (walk4_edge.h). */
template <int K, int C, int E> constexpr int walk4_row_words = FXI_WALK4_ROW_WORDS(K, C, E);

/* The NW aligned words from which an inside k_u8_walk4 thread's row q of the tile at r0
 * is summed (first: tap 0's element); false, with w untouched, for a constant row. */
template <int NW>
__device__ __forceinline__ bool row_words(const fxi_filter_args &a, const u8_image &im,
                                          bool plain_rows, int64_t base, int64_t r0, int q,
                                          int64_t first, uint32_t (&w)[NW])
{
    const int64_t row = plain_rows ? base + q : src_row(a, r0 + q);
    if (row < 0) return false;
    const uint32_t *p =
        reinterpret_cast<const uint32_t *>(im.src + row * im.src_stride) + (first >> 2);
#pragma unroll
    for (int i = 0; i < NW; i++)
        w[i] = __ldg(p + i);
    return true;
}

/* The walk's ring holds elements 2i and 2i + 1 in the 16-bit halves of its word i where
 * every column sum of row sums stays <= 65535 (so that a column sums two elements an add):
 * a box's (255 K^2) and 1 : 2 : 1's (16 * 255 for its unit sums); one element a word for
 * weighted taps, whose row sums alone are bounded so (pair_row_sums);
 * FXI_GPU_U8_WALK_RING_PAIRS. */
template <int TAPS>
constexpr bool ring_pairs = FXI_GPU_U8_WALK_RING_PAIRS != 0 && TAPS != WALK_WEIGHTED;
static_assert(255 * 5 * 5 <= 65535 && 255 * 16 <= 65535, "a pair's halves hold its column sums");
/* Words of a ring slot of E elements. */
template <int E, bool PAIRS> constexpr int ring_words = PAIRS ? E / 2 : E;

/* A ring slot from E row sums s, one a word. */
template <int E, bool PAIRS>
__device__ __forceinline__ void to_ring(const uint32_t *s, uint32_t (&slot)[ring_words<E, PAIRS>])
{
#pragma unroll
    for (int i = 0; i < ring_words<E, PAIRS>; i++)
        slot[i] = PAIRS ? s[2 * i] | s[2 * i + 1] << 16 : s[i];
}

/* An inside thread's E row sums (E a multiple of 4) of one row from its words w (bytes
 * from first & ~3 on; shift: (first & 3) * 8) into a ring slot: the words realigned with
 * funnel shifts, two elements summed at once in the 16-bit halves of a register (no carry
 * crosses: each half stays <= 65535), E / 2 such pairs, kept as pairs where PAIRS. */
template <int K, int C, int TAPS, int NW, int E, bool PAIRS>
__device__ __forceinline__ void inside_row_sums(const uint32_t (&w)[NW], int shift,
                                                const uint32_t (&wr)[K],
                                                uint32_t (&sums)[ring_words<E, PAIRS>])
{
    constexpr int NA = NW - 1;
    uint32_t al[NA + 1];
#pragma unroll
    for (int i = 0; i < NA; i++) /* al[i]: bytes first + 4i .. + 3 */
        al[i] = __funnelshift_r(w[i], w[i + 1], shift);
    al[NA] = 0;
#pragma unroll
    for (int b = 0; b < E / 4; b++) { /* outputs 4b .. 4b + 3 */
        uint32_t lo = 0, hi = 0;      /* outputs 4b, 4b + 1 and 4b + 2, 4b + 3 in halves */
#pragma unroll
        for (int j = 0; j < K; j++) {
            const int o = 4 * b + j * C; /* compile time: bytes o .. o + 3 of al */
            const uint32_t x =
                (o & 3) ? __funnelshift_r(al[o >> 2], al[(o >> 2) + 1], (o & 3) * 8) : al[o >> 2];
            const uint32_t pl = __byte_perm(x, 0u, 0x5150), ph = __byte_perm(x, 0u, 0x5352);
            if (TAPS == WALK_BOX) {
                lo += pl;
                hi += ph;
            } else {
                lo += wr[j] * pl;
                hi += wr[j] * ph;
            }
        }
        if (PAIRS) {
            sums[2 * b] = lo;
            sums[2 * b + 1] = hi;
        } else {
            sums[4 * b + 0] = lo & 0xFFFFu;
            sums[4 * b + 1] = lo >> 16;
            sums[4 * b + 2] = hi & 0xFFFFu;
            sums[4 * b + 3] = hi >> 16;
        }
    }
}

/* One k_u8_walk4 thread's walk down its tiles (the kernel's comment), E elements from
 * e0, the tiles of strip `strip` (tiles strip, strip + gridDim.y ...). EDGE false: a
 * thread whose bytes lie inside every row (aligned words, two sums a register). EDGE
 * true (E = 4: walk4_edge.h's): the image's left and right edges, with `columns` the
 * pixels its elements lie in, resolved by the border rule once, and its elements
 * starting at channel `phase` (walk4_edge.h): a row is independent byte loads and the
 * sums, about the cost of an inside row, where resolving the border for every row made
 * the edge warps the slowest of their blocks. Both instances are inlined into the
 * kernel: `columns` is live only in the edge's walk. */
template <int K, int C, int TAPS, bool BATCH, int E, bool EDGE>
__device__ __forceinline__ void walk4_rows(const fxi_filter_args &a, const fxi_gpu_u8_launch &g,
                                           const fxi_gpu_u8_taps &tp, const u8_image &im,
                                           int64_t e0, int64_t first, int64_t strip,
                                           const int32_t *columns, int phase,
                                           uint32_t border_bytes)
{
    static_assert(!EDGE || E == 4, "the edge's row sums are 4 elements (walk4_edge.h)");
    constexpr int NW = walk4_row_words<K, C, E>;
    const int64_t n = a.width * C;
    const int shift = static_cast<int>(first & 3) * 8;
    uint32_t wr[K], wc[K];
#pragma unroll
    for (int j = 0; j < K; j++) {
        wr[j] = walk_tap<K, TAPS>(tp.row, j);
        wc[j] = walk_tap<K, TAPS>(tp.col, j);
    }
    /* the finish of the sums as summed: WALK_121's are the unit sums */
    const uint32_t mul = TAPS == WALK_121 ? tp.unit_mul : tp.mul;
    const uint32_t add_mul = TAPS == WALK_121 ? tp.unit_add_mul : tp.add * tp.mul;
    for (int64_t ty = strip; ty < g.tiles_y; ty += gridDim.y) { /* the strip's tiles */
        const int64_t r0 = ty * g.tile_h;
        const int rows = static_cast<int>(min(static_cast<int64_t>(g.tile_h), a.rows - r0));
        const int total = rows + K - 1;
        /* a tile whose rows all lie inside the image reads stored row base + q: no border
         * rule a row */
        const int64_t base = a.resolved ? r0 : a.v0 + r0;
        const bool plain_rows = a.resolved || (base >= 0 && base + total <= a.height);
        constexpr bool PAIRS = ring_pairs<TAPS>;
        uint32_t win[K][ring_words<E, PAIRS>]; /* ring: row q's E row sums in slot q % K */
        /* inside threads load the words of row q + 1 before they sum row q: two rows'
         * loads in flight a thread, not one (FXI_GPU_U8_WALK_PREFETCH_MAX_K) */
        constexpr bool PREFETCH = K <= FXI_GPU_U8_WALK_PREFETCH_MAX_K;
        uint32_t next[NW] = {};
        bool next_stored = !EDGE && PREFETCH &&
                           row_words<NW>(a, im, plain_rows, base, r0, 0, first, next);
        for (int q0 = 0; q0 < total; q0 += K) {
#pragma unroll
            for (int u = 0; u < K; u++) {
                const int q = q0 + u;
                if (q >= total) break;
                bool stored; /* false: a constant row */
                if (!EDGE) {
                    uint32_t w[NW];
                    if (PREFETCH) {
#pragma unroll
                        for (int i = 0; i < NW; i++)
                            w[i] = next[i];
                        stored = next_stored;
                        if (q + 1 < total)
                            next_stored =
                                row_words<NW>(a, im, plain_rows, base, r0, q + 1, first, next);
                    } else {
                        stored = row_words<NW>(a, im, plain_rows, base, r0, q, first, w);
                    }
                    if (stored) inside_row_sums<K, C, TAPS, NW, E, PAIRS>(w, shift, wr, win[u]);
                } else {
                    const int64_t row = plain_rows ? base + q : src_row(a, r0 + q);
                    stored = row >= 0;
                    if (stored) { /* the pixels resolved once */
                        uint32_t sums[4];
                        fxi_walk4_edge_row_sums(im.src + row * im.src_stride, columns, phase, K, C,
                                                TAPS == WALK_BOX ? nullptr : wr, border_bytes,
                                                sums);
                        to_ring<E, PAIRS>(sums, win[u]);
                    }
                }
                if (!stored) {
                    const walk_row_sums<E> rs = constant_row_sums<K, C, TAPS, E>(a, tp, first);
                    to_ring<E, PAIRS>(rs.v, win[u]);
                }
                if (q >= K - 1) {
                    const int64_t r = r0 + q - (K - 1);
                    uint8_t *d = im.dst + r * im.dst_stride + e0;
#pragma unroll
                    for (int b = 0; b < E / 4; b++) { /* output word b: elements 4b .. 4b + 3 */
                        uint32_t v[4];
#pragma unroll
                        for (int k = 0; k < 4; k += PAIRS ? 2 : 1) {
                            const int m = PAIRS ? (4 * b + k) / 2 : 4 * b + k; /* ring word */
                            uint32_t s = 0;
#pragma unroll
                            for (int i = 0; i < K; i++) { /* row r + i: slot (u + 1 + i) % K */
                                const uint32_t x = win[(u + 1 + i) % K][m];
                                s += TAPS == WALK_BOX ? x : wc[i] * x;
                            }
                            if (PAIRS) {
                                v[k] = fxi_finish_u32_premul(s & 0xFFFFu, add_mul, mul, tp.shift,
                                                             255u);
                                v[k + 1] =
                                    fxi_finish_u32_premul(s >> 16, add_mul, mul, tp.shift, 255u);
                            } else {
                                v[k] = fxi_finish_u32_premul(s, add_mul, mul, tp.shift, 255u);
                            }
                        }
                        if (e0 + 4 * b + 4 <= n) {
                            *reinterpret_cast<uint32_t *>(d + 4 * b) =
                                __byte_perm(__byte_perm(v[0], v[1], 0x0040),
                                            __byte_perm(v[2], v[3], 0x0040), 0x5410);
                        } else {
#pragma unroll
                            for (int k = 0; k < 4; k++)
                                if (e0 + 4 * b + k < n) d[4 * b + k] = static_cast<uint8_t>(v[k]);
                        }
                    }
                }
            }
        }
    }
}

/* walk4_rows for 4 elements of an edge thread, from e0 (a multiple of 4): their pixels
 * resolved by the border rule first (they depend on the column only, not on the row). */
template <int K, int C, int TAPS, bool BATCH>
__device__ __forceinline__ void walk4_edge(const fxi_filter_args &a, const fxi_gpu_u8_launch &g,
                                           const fxi_gpu_u8_taps &tp, const u8_image &im,
                                           int64_t e0, int64_t first, int64_t strip)
{
    constexpr int NP = FXI_WALK4_PIXELS(K, C);
    const int64_t px0 = fxi_walk4_first_pixel(first, C);
    /* 0 where C divides 4 (e0 is a multiple of 4): a constant then */
    const int phase = FXI_WALK4_MAX_PHASE(C) ? static_cast<int>(first - px0 * C) : 0;
    int32_t columns[NP];
#pragma unroll
    for (int i = 0; i < NP; i++) /* int32: rows of at most INT32_MAX elements */
        columns[i] = fxi_walk4_edge_column(px0 + i, a.width, C, a.border);
    walk4_rows<K, C, TAPS, BATCH, 4, true>(a, g, tp, im, e0, first, strip, columns, phase,
                                           fxi_walk4_border_bytes(a.border_value, C));
}

/* An edge block of k_u8_walk4 (blockIdx.x >= g.walk_grid_x, where g.walk_edge_blocks):
 * the edge threads' work of a run of strips, one lane for each 4-element group of each
 * strip (walk4_edge.h's groups), so that the edge's longer walk fills warps of its own
 * and no inside warp waits on it. The block at strip y takes strips y .. y + S - 1, S =
 * its lanes over a strip's groups; the other blocks of its column leave at once. */
template <int K, int C, int TAPS, bool BATCH, int E>
__device__ __forceinline__ void walk4_edge_lanes(const fxi_filter_args &a,
                                                 const fxi_gpu_u8_launch &g,
                                                 const fxi_gpu_u8_taps &tp, const u8_image &im)
{
    const int64_t n = a.width * C, lead = static_cast<int64_t>(a.ax) * C;
    int64_t lo, hi;
    fxi_walk4_inside_threads(n, E, lead, walk4_row_words<K, C, E>, &lo, &hi);
    const int64_t groups = fxi_walk4_edge_groups(n, E, lo, hi);
    /* groups >= 1: a row's last thread is always an edge thread (unit-tested) */
    const int64_t per_block = max(static_cast<int64_t>(blockDim.x) / groups, int64_t{1});
    if (blockIdx.y % per_block != 0) return;
#pragma unroll 1
    for (int64_t i = threadIdx.x; i < per_block * groups; i += blockDim.x) {
        const int64_t strip = blockIdx.y + i / groups;
        if (strip >= gridDim.y) return; /* i only grows */
        const int64_t e0 = fxi_walk4_edge_group_e0(i % groups, E, lo, hi);
        if (e0 < n) walk4_edge<K, C, TAPS, BATCH>(a, g, tp, im, e0, e0 - lead, strip);
    }
}

/* fused 3x3 and 5x5, walking, E = FXI_GPU_U8_WALK_ELEMENTS(K) adjacent elements a thread
 * (4, or 8 for 3x3 where FXI_GPU_U8_WALK3_ELEMENTS says so) in integers (C channels, taps
 * whole numbers, every row sum <= 65535, the u32 finish, every channel filtered, rows of
 * src and dst 4-byte aligned, rows of at most INT32_MAX elements: fxi_filter_launch_u8
 * checks). Per input row, a thread whose bytes lie inside the row loads them as aligned
 * 32-bit words, realigns them with funnel shifts, and sums two elements at once in the
 * 16-bit halves of a register (one multiply-add a tap for two outputs: no carry crosses,
 * each half stays <= 65535); the other threads (the image's left and right edges) resolve
 * their elements' border rule once and load them as bytes (walk4_rows); constant rows take
 * the border value. The column sum of K row sums (a ring of registers, unrolled by K) is
 * an exact uint32, finished as fxi_finish_u32_product and stored as E / 4 words. Where
 * g.walk_edge_blocks, the edge threads leave at once and the blocks after the
 * g.walk_grid_x of each grid row walk their elements instead (walk4_edge_lanes), so that
 * no inside warp waits on an edge lane's longer walk. */
template <int K, int C, int TAPS, bool BATCH, int E>
__global__ void __launch_bounds__(FXI_GPU_U8_FUSED_THREADS,
                                  (K == 3 ? (TAPS == WALK_BOX   ? FXI_GPU_U8_WALK3_BOX_SM_THREADS
                                             : TAPS == WALK_121 ? FXI_GPU_U8_WALK3_121_SM_THREADS
                                                                : FXI_GPU_U8_WALK3_SM_THREADS)
                                          : FXI_GPU_U8_WALK5_SM_THREADS) /
                                      FXI_GPU_U8_FUSED_THREADS)
    k_u8_walk4(const __grid_constant__ fxi_filter_args a,
               const __grid_constant__ fxi_gpu_u8_launch g,
               const __grid_constant__ fxi_gpu_u8_taps tp, const fxi_gpu_u8_image *batch)
{
    static_assert(E % 4 == 0, "whole output words");
    constexpr int NW = walk4_row_words<K, C, E>;
    const int64_t n = a.width * C;
    /* BATCH: a template argument here, not a run-time choice: the one-image kernel keeps
     * its rows in the parameter bank, where the batch's would take registers this kernel
     * spills for (image_of) */
    if (blockIdx.x >= g.walk_grid_x) { /* an edge block (g.walk_edge_blocks) */
        walk4_edge_lanes<K, C, TAPS, BATCH, E>(a, g, tp, image_of(a, BATCH ? batch : nullptr));
        return;
    }
    const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t e0 = E * t;
    if (e0 >= n) return;
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    const int64_t lead = static_cast<int64_t>(a.ax) * C;
    const int64_t first = e0 - lead; /* tap 0's element */
    if (fxi_walk4_thread_inside(t, n, E, lead, NW)) {
        walk4_rows<K, C, TAPS, BATCH, E, false>(a, g, tp, im, e0, first, blockIdx.y, nullptr,
                                                0, 0);
        return;
    }
    if (g.walk_edge_blocks) return; /* the edge blocks walk this thread's elements */
    /* an edge thread of 8 elements walks its tiles twice, 4 elements each time: the
     * edge's registers of 4 (an 8-element edge walk spilled some 300 bytes under the 3x3
     * launch bounds), and the time of about one 8-element inside walk */
#pragma unroll 1
    for (int b = 0; b < E / 4 && e0 + 4 * b < n; b++)
        walk4_edge<K, C, TAPS, BATCH>(a, g, tp, im, e0 + 4 * b, first + 4 * b, blockIdx.y);
}

/* One tap of R outputs from a window of R consecutive inputs in registers (the two-pass
 * kernels' register blocking): acc[m] += w * win[m], then the window slides by one and
 * takes `next`. Unrolled by R in the caller, the registers rotate with no moves. */
template <int R>
__device__ __forceinline__ void tap_and_slide(float (&acc)[R], float (&win)[R], float w, float next)
{
#pragma unroll
    for (int m = 0; m < R; m++)
        acc[m] = __fmaf_rn(w, win[m], acc[m]);
#pragma unroll
    for (int m = 0; m < R - 1; m++)
        win[m] = win[m + 1];
    win[R - 1] = next;
}

/* two-pass rows: one virtual row's segment of row_tx * R pixels per block, staged as one
 * float plane per channel; thread (tx, c) computes R consecutive outputs of channel c (R
 * multiply-adds per tap from a register window), staged as uint16 and written out
 * coalesced. */
template <int R, bool BATCH>
__global__ void
k_u8_rows(const __grid_constant__ fxi_filter_args a, const __grid_constant__ fxi_gpu_u8_launch g,
          const __grid_constant__ fxi_gpu_u8_taps tp, uint16_t *work, const fxi_gpu_u8_image *batch)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    if (BATCH)
        work += blockIdx.z * (g.work_bytes / sizeof(uint16_t)); /* each image's intermediate */
    const int C = a.channels, TX = g.row_tx, PL = g.row_plane;
    const int tx = threadIdx.x, c = threadIdx.y, tid = c * TX + tx, threads = TX * C;
    float *planes = reinterpret_cast<float *>(smem);
    uint16_t *out = reinterpret_cast<uint16_t *>(planes + static_cast<size_t>(C) * PL);
    const int64_t pixels = static_cast<int64_t>(TX) * R;
    const int64_t p0 = static_cast<int64_t>(blockIdx.x) * pixels;
    const int64_t n = a.width * C;
    const int64_t first = (p0 - a.ax) * C;
    const int in_count = PL * C;
    const bool interior = first >= 0 && first + in_count <= n;
    const int outs = static_cast<int>(min(pixels, a.width - p0)) * C;
    const size_t wstride = g.work_stride / sizeof(uint16_t);
    for (int64_t v = blockIdx.y; v < g.row_tiles_y; v += gridDim.y) {
        const int64_t row = src_row(a, v);
        __syncthreads(); /* the previous row's planes and outputs are read */
        /* thread (tx, c) stages channel c's plane: no division a sample (the int32
         * pipe's cycles the multiply-adds need) */
        float *plane = planes + c * PL;
        if (row >= 0 && interior) {
            const uint8_t *p = im.src + row * im.src_stride + first + c;
            for (int px = tx; px < PL; px += TX)
                plane[px] = byte_float(p[px * C]);
        } else {
            for (int px = tx; px < PL; px += TX)
                plane[px] = element<BATCH>(a, im, row, first + static_cast<int64_t>(px) * C + c);
        }
        __syncthreads();
        const float *s = planes + c * PL + tx * R;
        uint16_t *o = out + tx * R * C + c;
        float acc[R], win[R];
#pragma unroll
        for (int m = 0; m < R; m++) {
            acc[m] = 0.f;
            win[m] = s[m];
        }
        /* unrolled by R: the window's registers rotate once a round, no moves */
#pragma unroll R
        for (int j = 0; j < a.kw; j++)
            tap_and_slide<R>(acc, win, tp.row[j], s[j + R]);
#pragma unroll
        for (int m = 0; m < R; m++)
            o[m * C] = static_cast<uint16_t>(acc[m]);
        __syncthreads();
        uint16_t *d = work + v * wstride + p0 * C;
        for (int k = tid; k < outs; k += threads)
            d[k] = out[k];
    }
}

/* two-pass rows for row taps that are whole numbers below 256 (tp.row_bytes: every 8-bit
 * Gaussian's), in byte dot products: __dp4a multiplies 4 samples by 4 taps and adds them
 * to an int32, exactly, in one instruction where FP32 takes four multiply-adds. Each
 * channel's plane is staged as bytes; output x = 4u + phi (a quad u, a phase phi) is the
 * sum over q of dp4a(sample word u + q, tap word q of phase phi), tap word q of phase phi
 * holding taps 4q - phi .. 4q + 3 - phi (zeros outside the kernel): one sample word
 * loaded a q for 4 * DP4A_QUADS outputs. The block's row_tx * row_segment pixels a
 * channel, as k_u8_rows's; thread (tx, c) takes quads tx * DP4A_QUADS on. */
template <bool BATCH>
__global__ void __launch_bounds__(FXI_GPU_U8_ROW_DP4A_THREADS, FXI_GPU_U8_ROW_DP4A_SM_BLOCKS)
    k_u8_rows_dp4a(const __grid_constant__ fxi_filter_args a,
                   const __grid_constant__ fxi_gpu_u8_launch g,
                   const __grid_constant__ fxi_gpu_u8_taps tp, uint16_t *work,
                   const fxi_gpu_u8_image *batch)
{
    constexpr int U = DP4A_QUADS;
    extern __shared__ __align__(16) unsigned char smem[];
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    if (BATCH)
        work += blockIdx.z * (g.work_bytes / sizeof(uint16_t)); /* each image's intermediate */
    const int C = a.channels, TX = g.row_tx, PL = g.row_plane;
    const int tx = threadIdx.x, c = threadIdx.y, tid = c * TX + tx, threads = TX * C;
    /* shared memory: the tap words, the byte planes (in k_u8_rows's float planes'
     * room), the uint16 outputs */
    uint4 *tap_words = reinterpret_cast<uint4 *>(smem); /* [q]: phases 0..3 */
    unsigned char *planes = smem + FXI_GPU_U8_ROW_TAP_WORD_BYTES;
    uint16_t *out = reinterpret_cast<uint16_t *>(planes + static_cast<size_t>(C) * PL * 4);
    const int Q = FXI_TAP_WORDS(a.kw);
    for (int i = tid; i < 4 * Q; i += threads)
        reinterpret_cast<uint32_t *>(tap_words)[i] = fxi_tap_word(tp.row, a.kw, i / 4, i % 4);
    const int64_t pixels = static_cast<int64_t>(TX) * g.row_segment;
    const int64_t p0 = static_cast<int64_t>(blockIdx.x) * pixels;
    const int64_t n = a.width * C;
    const int64_t first = (p0 - a.ax) * C;
    const bool interior = first >= 0 && first + static_cast<int64_t>(PL) * C <= n;
    const int outs = static_cast<int>(min(pixels, a.width - p0)) * C;
    const size_t wstride = g.work_stride / sizeof(uint16_t);
    /* the quads' last sample word: zeros staged past the plane up to it */
    const int staged = 4 * (U * TX + Q);
    for (int64_t v = blockIdx.y; v < g.row_tiles_y; v += gridDim.y) {
        const int64_t row = src_row(a, v);
        __syncthreads(); /* the previous row's planes and outputs are read */
        unsigned char *plane = planes + static_cast<size_t>(c) * PL * 4;
        if (row >= 0 && interior) {
            const uint8_t *p = im.src + row * im.src_stride + first + c;
            for (int px = tx; px < PL; px += TX)
                plane[px] = p[px * C];
        } else {
            for (int px = tx; px < PL; px += TX)
                plane[px] = static_cast<unsigned char>(
                    element<BATCH>(a, im, row, first + static_cast<int64_t>(px) * C + c));
        }
        for (int px = PL + tx; px < staged; px += TX)
            plane[px] = 0;
        __syncthreads();
        const uint32_t *words = reinterpret_cast<const uint32_t *>(plane) + tx * U;
        uint32_t win[U], acc[4 * U];
#pragma unroll
        for (int i = 0; i < U; i++)
            win[i] = words[i];
#pragma unroll
        for (int m = 0; m < 4 * U; m++)
            acc[m] = 0;
#pragma unroll 4
        for (int q = 0; q < Q; q++) {
            const uint4 w = tap_words[q];
#pragma unroll
            for (int i = 0; i < U; i++) {
                acc[4 * i] = __dp4a(win[i], w.x, acc[4 * i]);
                acc[4 * i + 1] = __dp4a(win[i], w.y, acc[4 * i + 1]);
                acc[4 * i + 2] = __dp4a(win[i], w.z, acc[4 * i + 2]);
                acc[4 * i + 3] = __dp4a(win[i], w.w, acc[4 * i + 3]);
            }
#pragma unroll
            for (int i = 0; i < U - 1; i++)
                win[i] = win[i + 1];
            win[U - 1] = words[U + q];
        }
#pragma unroll
        for (int m = 0; m < 4 * U; m++) {
            const int x = 4 * U * tx + m;
            if (x < pixels) out[x * C + c] = static_cast<uint16_t>(acc[m]);
        }
        __syncthreads();
        uint16_t *d = work + v * wstride + p0 * C;
        for (int k = tid; k < outs; k += threads)
            d[k] = out[k];
    }
}

/* two-pass columns, multiply-adds: R output rows per thread, one element, from a window
 * of R intermediate values in registers. */
template <int R, bool BATCH>
__global__ void k_u8_cols(const __grid_constant__ fxi_filter_args a,
                          const __grid_constant__ fxi_gpu_u8_launch g,
                          const __grid_constant__ fxi_gpu_u8_taps tp, const uint16_t *work,
                          const fxi_gpu_u8_image *batch)
{
    const int64_t n = a.width * a.channels;
    const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= n) return;
    const u8_image im = image_of(a, BATCH ? batch : nullptr);
    if (BATCH)
        work += blockIdx.z * (g.work_bytes / sizeof(uint16_t)); /* each image's intermediate */
    const int c = static_cast<int>(e % a.channels);
    const int64_t ws = static_cast<int64_t>(g.work_stride / sizeof(uint16_t));
    for (int64_t ty = blockIdx.y; ty < g.col_tiles_y; ty += gridDim.y) {
        const int64_t r0 = ty * R;
        /* rows r0 + m + i: past the last virtual row only for outputs past the last row
         * (not stored) and the window's last load, which the buffer's padding holds */
        const uint16_t *p = work + r0 * ws + e;
        float acc[R], win[R];
#pragma unroll
        for (int m = 0; m < R; m++) {
            acc[m] = 0.f;
            win[m] = byte_float(__ldg(p + m * ws));
        }
        p += R * ws;
#pragma unroll R
        for (int i = 0; i < a.kh; i++) {
            tap_and_slide<R>(acc, win, tp.col[i], byte_float(__ldg(p)));
            p += ws;
        }
#pragma unroll
        for (int m = 0; m < R; m++)
            if (r0 + m < a.rows) put(a, im, tp, r0 + m, e, c, acc[m]);
    }
}

template <typename K> fx_status allow_shared(fx_context *ctx, K kernel, size_t bytes)
{
    if (bytes > FXI_GPU_DEFAULT_SHARED_BYTES)
        FX_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes)));
    return FX_OK;
}

/* k_u8_walk4's conditions (its comment): else k_u8_walk runs. rows_aligned: the rows of
 * every image (src, dst and their strides) start at multiples of 4 bytes. The geometry's
 * elements a thread must be the kernel's: both are FXI_GPU_U8_WALK_ELEMENTS, unless the
 * C and CUDA sources were built with different FXI_GPU_U8_WALK3_ELEMENTS (then the
 * one-element walk, correct and slower, runs). */
bool walk4_fits(const fxi_filter_args &a, const fxi_gpu_u8_launch &g, const fxi_gpu_u8_taps &tp,
                bool rows_aligned)
{
    return FXI_GPU_U8_WALK_VECTOR && tp.int_finish && tp.pair_row_sums &&
           a.filter_channels == a.channels && a.channels >= 1 && a.channels <= 4 && a.kw == a.kh &&
           (a.kw == 3 || a.kw == 5) && g.walk_elements == FXI_GPU_U8_WALK_ELEMENTS(a.kw) &&
           rows_aligned &&
           a.width * a.channels <= INT32_MAX; /* the edge threads' int32 element indices */
}

using walk4_fn = void (*)(fxi_filter_args, fxi_gpu_u8_launch, fxi_gpu_u8_taps,
                          const fxi_gpu_u8_image *);

template <int K, int TAPS, bool BATCH> walk4_fn walk4_for_channels(int channels)
{
    constexpr int E = FXI_GPU_U8_WALK_ELEMENTS(K);
    switch (channels) {
    case 1: return k_u8_walk4<K, 1, TAPS, BATCH, E>;
    case 2: return k_u8_walk4<K, 2, TAPS, BATCH, E>;
    case 3: return k_u8_walk4<K, 3, TAPS, BATCH, E>;
    default: return k_u8_walk4<K, 4, TAPS, BATCH, E>;
    }
}

template <bool BATCH> walk4_fn walk4_for(int k, int channels, walk_taps taps)
{
    if (k == 3)
        return taps == WALK_BOX   ? walk4_for_channels<3, WALK_BOX, BATCH>(channels)
               : taps == WALK_121 ? walk4_for_channels<3, WALK_121, BATCH>(channels)
                                  : walk4_for_channels<3, WALK_WEIGHTED, BATCH>(channels);
    return taps == WALK_BOX ? walk4_for_channels<5, WALK_BOX, BATCH>(channels)
                            : walk4_for_channels<5, WALK_WEIGHTED, BATCH>(channels);
}

walk4_fn walk4_kernel(int k, int channels, walk_taps taps, bool batch)
{
    return batch ? walk4_for<true>(k, channels, taps) : walk4_for<false>(k, channels, taps);
}

/* The fused (staged or walking) or two-pass launches of one image (BATCH false) or of a
 * batch (grid z = image, `count` of them). */
template <bool BATCH>
fx_status launch_layout(fx_context *ctx, const fxi_filter_args &a, const fxi_gpu_u8_launch &g,
                        const fxi_gpu_u8_taps &tp, void *work, const fxi_gpu_u8_image *images,
                        unsigned count, cudaStream_t stream)
{
    if (g.layout == FXI_U8_FUSED && g.walk) {
        const dim3 grid(static_cast<unsigned>(g.grid_x), static_cast<unsigned>(g.grid_y), count);
        if (a.kw == 3)
            k_u8_walk<3, BATCH><<<grid, g.tile_w, 0, stream>>>(a, g, tp, images);
        else
            k_u8_walk<5, BATCH><<<grid, g.tile_w, 0, stream>>>(a, g, tp, images);
        return fxi_cuda_check_launch(ctx, "filter 8-bit fused (walk)");
    }
    if (g.layout == FXI_U8_FUSED) {
        /* the common square sizes unrolled (K), the rest at run time */
        auto kernel = a.kw == 3 && a.kh == 3   ? k_u8_fused<3, BATCH>
                      : a.kw == 5 && a.kh == 5 ? k_u8_fused<5, BATCH>
                                               : k_u8_fused<0, BATCH>;
        FXI_TRY(allow_shared(ctx, kernel, g.shared_bytes));
        const dim3 grid(static_cast<unsigned>(g.grid_x), static_cast<unsigned>(g.grid_y), count);
        kernel<<<grid, g.tile_w, g.shared_bytes, stream>>>(a, g, tp, images);
        return fxi_cuda_check_launch(ctx, "filter 8-bit fused");
    }
    /* two-pass: `work` holds count intermediates of g.work_bytes, image z's at z * work_bytes */
    uint16_t *w = static_cast<uint16_t *>(work);
    const dim3 rows_grid(static_cast<unsigned>(g.row_grid_x), static_cast<unsigned>(g.row_grid_y),
                         count);
    const dim3 rows_block(static_cast<unsigned>(g.row_tx), static_cast<unsigned>(a.channels));
    const dim3 cols_grid(static_cast<unsigned>(g.col_grid_x), static_cast<unsigned>(g.col_grid_y),
                         count);
    if (tp.row_bytes && FXI_GPU_U8_ROW_DP4A) {
        FXI_TRY(allow_shared(ctx, k_u8_rows_dp4a<BATCH>, g.row_shared_bytes));
        k_u8_rows_dp4a<BATCH>
            <<<rows_grid, rows_block, g.row_shared_bytes, stream>>>(a, g, tp, w, images);
    } else {
        FXI_TRY(allow_shared(ctx, k_u8_rows<ROW_R, BATCH>, g.row_shared_bytes));
        k_u8_rows<ROW_R, BATCH>
            <<<rows_grid, rows_block, g.row_shared_bytes, stream>>>(a, g, tp, w, images);
    }
    FXI_TRY(fxi_cuda_check_launch(ctx, "filter 8-bit separable (rows)"));
    k_u8_cols<COL_R, BATCH><<<cols_grid, g.col_threads, 0, stream>>>(a, g, tp, w, images);
    return fxi_cuda_check_launch(ctx, "filter 8-bit separable (columns)");
}

} /* namespace */

extern "C" fx_status fxi_filter_launch_u8(fx_context *ctx, const fxi_filter_args *ap,
                                          const fxi_gpu_u8_launch *gp, const fxi_gpu_u8_taps *tp,
                                          void *work, const fxi_gpu_u8_batch *batch,
                                          fxi_kernel_graph *graph, cudaStream_t stream)
{
    const fxi_filter_args &a = *ap;
    const fxi_gpu_u8_launch &g = *gp;
    /* one image (the args'), or grid z = the batch's images, each block reading its row
     * pointers from the table */
    const fxi_gpu_u8_image *images = batch ? batch->images : nullptr;
    const unsigned count = batch ? static_cast<unsigned>(batch->count) : 1u;
    const bool rows_aligned = batch ? batch->rows_aligned != 0
                                    : ((reinterpret_cast<uintptr_t>(a.src) | a.src_stride |
                                        reinterpret_cast<uintptr_t>(a.dst) | a.dst_stride) %
                                       4) == 0;
    if (g.layout == FXI_U8_BOX_SLIDE)
        return fxi_filter_launch_u8_box(ctx, ap, gp, tp, images, count, rows_aligned, work, stream);
    if (g.layout == FXI_U8_FUSED && g.walk && walk4_fits(a, g, *tp, rows_aligned)) {
        /* tile_w threads of walk_elements elements a block (gpu_u8_geometry.c) */
        const dim3 grid(static_cast<unsigned>(g.walk_grid_x + g.walk_edge_blocks),
                        static_cast<unsigned>(g.grid_y), count);
        const walk_taps taps = g.box ? WALK_BOX : tp->binomial3 ? WALK_121 : WALK_WEIGHTED;
        const auto kernel = walk4_kernel(a.kw, a.channels, taps, images != nullptr);
        if (graph && !images) {
            /* the runtime only reads the arguments */
            void *params[] = {const_cast<fxi_filter_args *>(&a),
                              const_cast<fxi_gpu_u8_launch *>(&g),
                              const_cast<fxi_gpu_u8_taps *>(tp), &images};
            const uint64_t key[FXI_KERNEL_GRAPH_KEY] = {
                reinterpret_cast<uintptr_t>(a.src), a.src_stride,
                reinterpret_cast<uintptr_t>(a.dst), a.dst_stride};
            bool launched;
            FXI_TRY(fxi_kernel_graph_launch(ctx, graph, reinterpret_cast<const void *>(kernel),
                                            grid, dim3(static_cast<unsigned>(g.tile_w)), params, 0,
                                            key, stream, &launched));
            if (launched) return FX_OK;
        }
        kernel<<<grid, g.tile_w, 0, stream>>>(a, g, *tp, images);
        return fxi_cuda_check_launch(ctx, "filter 8-bit fused (walk, 4 or 8 elements a thread)");
    }
    return images ? launch_layout<true>(ctx, a, g, *tp, work, images, count, stream)
                  : launch_layout<false>(ctx, a, g, *tp, work, nullptr, 1u, stream);
}
