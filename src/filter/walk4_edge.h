/* The row sums of the 8-bit walk kernel's edge threads (gpu_u8.cu, k_u8_walk4), shared
 * with the CPU's unit test (FX_HD: empty in C, __host__ __device__ in CUDA), so the test
 * runs exactly what those threads compute.
 *
 * A thread of k_u8_walk4 computes 4 adjacent output elements e0 .. e0 + 3 of a row (e0 a
 * multiple of 4); a K-tap row pass reads, for output m and tap j, element
 * first + m + j * C, first = e0 - ax * C. Those elements lie in the pixels
 * px0 .. px0 + NP - 1, px0 = floor(first / C): element first + s is channel
 * (phase + s) % C of pixel px0 + (phase + s) / C, phase = first - px0 * C (0 unless
 * C = 3: C divides 4 otherwise, and so divides e0). A thread near the image's left or
 * right edge (or past it: elements >= n, whose outputs are not stored) takes the border
 * rule per pixel. The pixels depend on the thread only, never on the row, so the thread
 * resolves its NP pixels once, before it walks down the rows (fxi_walk4_edge_column),
 * and each row is then independent byte loads and 4 x K multiply-adds (6 x K for C = 3,
 * fxi_walk4_edge_row_sums): no division, no border rule a row. A constant row (the
 * constant border above or below the image) holds the border value of each element's
 * channel (fxi_walk4_constant_row_sums).
 *
 * Sums are uint32: the walk kernel runs only where 255 * the row taps' sum <= 65535.
 * Keep this header to the C/CUDA common subset: no VLAs, no C++.
 */
#ifndef FXKIT_FILTER_WALK4_EDGE_H
#define FXKIT_FILTER_WALK4_EDGE_H

#include <stdint.h>

#include "core/host_device.h"
#include "filter/filter_math.h"

/* The largest phase: 0 where C divides 4, C - 1 for C = 3. */
#define FXI_WALK4_MAX_PHASE(channels) ((4 % (channels)) ? (channels)-1 : 0)
/* Pixels holding a thread's elements (of any phase) under a K-tap row pass of C channels. */
#define FXI_WALK4_PIXELS(k, channels) ((FXI_WALK4_MAX_PHASE(channels) + 3) / (channels) + (k))
/* The most pixels (K = 5, C = 1): an array of this many holds any thread's. */
#define FXI_WALK4_MAX_PIXELS FXI_WALK4_PIXELS(5, 1)

/* The kernel's loops fully unrolled (k and channels are compile-time there, so every
 * array index is too); the host pass and C compilers see plain loops. */
#ifdef __CUDA_ARCH__
#define FXI_WALK4_UNROLL _Pragma("unroll")
#else
#define FXI_WALK4_UNROLL
#endif

/* px0 = floor(first / channels) (first may be negative: the left edge). */
static inline FX_HD int64_t fxi_walk4_first_pixel(int64_t first, int channels)
{
    return first >= 0 ? first / channels : -((channels - 1 - first) / channels);
}

/* The constant border's values of channels 0..3 (whole numbers in 0..255 for 8-bit
 * images, planner.c checks), one byte each: bits 8c .. 8c + 7 hold channel c's. */
static inline FX_HD uint32_t fxi_walk4_border_bytes(const double *border_value, int channels)
{
    uint32_t bytes = 0;
    for (int c = 0; c < channels; c++)
        bytes |= ((uint32_t)border_value[c] & 0xFFu) << (8 * c);
    return bytes;
}

/* Pixel px (any integer) of a row of `width` pixels under `border`, resolved for
 * fxi_walk4_edge_row_sums: the offset of its first byte in the stored row (its index
 * times channels), or -1 for the constant border outside the row. */
static inline FX_HD int32_t fxi_walk4_edge_column(int64_t px, int64_t width, int channels,
                                                  int border)
{
    const int64_t xx = fxi_border_index(px, width, border);
    return xx < 0 ? -1 : (int32_t)(xx * channels);
}

/* Channel c of a resolved pixel (fxi_walk4_edge_column) of stored row `row`. */
static inline FX_HD uint32_t fxi_walk4_edge_sample(const uint8_t *row, int32_t column, int c,
                                                   uint32_t border_bytes)
{
    return column >= 0 ? (uint32_t)row[column + c] : (border_bytes >> (8 * c)) & 0xFFu;
}

/* The 4 row sums of stored row `row` from the thread's resolved pixels (FXI_WALK4_PIXELS
 * columns, of pixels px0, px0 + 1 ...): sums[m] = sum over tap j of taps[j] times
 * channel (phase + m) % C of pixel (phase + m) / C + j; taps NULL: every tap is 1 (box).
 * Every phase's sums are computed and the thread's selected (C = 3: 6 sums, 4 kept), so
 * that every index is a compile-time constant in the kernel (its arrays stay in
 * registers, one copy of the code serves the three phases). No load depends on another:
 * the kernel issues them together. The caller guarantees row elements <= INT32_MAX. */
static inline FX_HD void fxi_walk4_edge_row_sums(const uint8_t *row, const int32_t *columns,
                                                 int phase, int k, int channels,
                                                 const uint32_t *taps, uint32_t border_bytes,
                                                 uint32_t sums[4])
{
    const int max_phase = FXI_WALK4_MAX_PHASE(channels);
    uint32_t all[4 + 2]; /* all[i]: the sums of element px0 * C + i (phase i) */
    FXI_WALK4_UNROLL
    for (int i = 0; i < 4 + max_phase; i++) {
        const int slot = i / channels, c = i % channels;
        uint32_t sum = 0;
        FXI_WALK4_UNROLL
        for (int j = 0; j < k; j++)
            sum += (taps ? taps[j] : 1u) *
                   fxi_walk4_edge_sample(row, columns[slot + j], c, border_bytes);
        all[i] = sum;
    }
    FXI_WALK4_UNROLL
    for (int m = 0; m < 4; m++) {
        uint32_t v = all[m];
        FXI_WALK4_UNROLL
        for (int p = 1; p <= max_phase; p++) /* selects: no run-time index */
            if (phase == p) v = all[m + p];
        sums[m] = v;
    }
}

/* The 4 row sums of a constant row (every element its channel's border value) for the
 * thread whose elements start at channel `phase`. */
static inline FX_HD void fxi_walk4_constant_row_sums(int phase, int k, int channels,
                                                     const uint32_t *taps, uint32_t border_bytes,
                                                     uint32_t sums[4])
{
    FXI_WALK4_UNROLL
    for (int m = 0; m < 4; m++) {
        const uint32_t v = (border_bytes >> (8 * ((phase + m) % channels))) & 0xFFu;
        uint32_t sum = 0;
        FXI_WALK4_UNROLL
        for (int j = 0; j < k; j++)
            sum += (taps ? taps[j] : 1u) * v;
        sums[m] = sum;
    }
}

/* The aligned words an inside thread of E elements loads a row (gpu_u8.cu): bytes first ..
 * first + (K - 1) * C + E - 1 feed its E outputs, held in that span's words rounded up,
 * from one more loaded word (the realignment's). */
#define FXI_WALK4_ROW_WORDS(k, channels, elements) \
    ((((k)-1) * (channels) + (elements) + 3) / 4 + 1)

/* ---- which threads are edge threads, and the edge blocks' lanes ----
 * A row of n elements has threads t = 0 .. T - 1 (T = ceil(n / E)) of E elements each
 * (e0 = E * t). Thread t is inside (aligned word loads, gpu_u8.cu's inside_row_sums)
 * when its first tap element first = e0 - lead (lead = ax * C) is >= 0, its E outputs
 * are all in the row, and its row_words (FXI_WALK4_ROW_WORDS) aligned words from
 * first & ~3 end in the row.
 * The three conditions are monotone in t, so the inside threads are one run [lo, hi)
 * and the edge threads the rest: a prefix [0, lo) and a suffix [hi, T). */
static inline FX_HD int fxi_walk4_thread_inside(int64_t t, int64_t n, int elements, int64_t lead,
                                                int row_words)
{
    const int64_t e0 = (int64_t)elements * t, first = e0 - lead;
    return first >= 0 && e0 + elements <= n && (first >> 2) * 4 + 4 * (int64_t)row_words <= n;
}

/* The run of inside threads [*lo, *hi) of a row (the comment above); no inside thread:
 * *lo = *hi = T. A few steps from each end (lead is below 4 pixels of 4 channels). */
static inline FX_HD void fxi_walk4_inside_threads(int64_t n, int elements, int64_t lead,
                                                  int row_words, int64_t *lo, int64_t *hi)
{
    const int64_t threads = (n + elements - 1) / elements;
    int64_t l = 0;
    while (l < threads && !fxi_walk4_thread_inside(l, n, elements, lead, row_words))
        l++;
    int64_t h = threads;
    if (l < threads) /* then thread l is inside: the walk down stops there at the latest */
        while (!fxi_walk4_thread_inside(h - 1, n, elements, lead, row_words))
            h--;
    *lo = l;
    *hi = h;
}

/* The 4-element groups of a row's edge threads: E / 4 for each of the lo + T - hi edge
 * threads. The edge blocks give each such group a lane of its own (gpu_u8.cu,
 * walk4_edge_lanes). */
static inline FX_HD int64_t fxi_walk4_edge_groups(int64_t n, int elements, int64_t lo, int64_t hi)
{
    const int64_t threads = (n + elements - 1) / elements;
    return (lo + threads - hi) * (elements / 4);
}

/* Edge group g (0 .. fxi_walk4_edge_groups - 1) of a row: its first element e0, a
 * multiple of 4 (the prefix's threads first, then the suffix's, E / 4 groups each, in
 * order). e0 may be >= n: the last thread's groups past the row, which store nothing. */
static inline FX_HD int64_t fxi_walk4_edge_group_e0(int64_t g, int elements, int64_t lo, int64_t hi)
{
    const int per_thread = elements / 4;
    const int64_t k = g / per_thread, t = k < lo ? k : hi + (k - lo);
    return (int64_t)elements * t + 4 * (g % per_thread);
}

#endif
