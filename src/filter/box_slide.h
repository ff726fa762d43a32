/* The arithmetic of the one-pass 8-bit box (gpu_u8_box.cu, layout FXI_U8_BOX_SLIDE in
 * gpu_u8_geometry.h), shared with the CPU's unit test (FX_HD: empty in C, __host__
 * __device__ in CUDA), so the test runs what the kernel's threads compute.
 *
 * A block owns output elements o0 .. o0 + slide_out - 1 of a row (o0 a multiple of 4)
 * and walks down tile_h output rows. Output element o needs the column sums of elements
 * o - ax * C + j * C, j = 0 .. kw - 1. The block stages in_w elements from s0, the
 * multiple of 4 at or below o0 - ax * C (fxi_box_slide_start), so that every thread
 * loads whole aligned 32-bit words; output o0 + i reads staged element i + offset.
 *
 * Down the rows, each thread keeps the column sums of its staged elements over the kh
 * rows of the window, two to a register (fxi_box_pairs_add / _sub): a row enters before
 * the leaving row is taken away, so each 16-bit half stays within 0 .. 255 * kh <= 65535
 * (kh <= 257) and no carry or borrow crosses into the other half.
 *
 * Across the row, the block turns the column sums into a channel-strided inclusive prefix
 * P[t] = colsum[t] + P[t - C] (a scan in registers, warps and shared memory), and each
 * output is one difference of two prefixes (fxi_box_window): the same exact uint32 sum
 * for every kernel width, where the CPU's box sums kw column sums.
 *
 * Keep this header to the C/CUDA common subset.
 */
#ifndef FXKIT_FILTER_BOX_SLIDE_H
#define FXKIT_FILTER_BOX_SLIDE_H

#include <stdint.h>

#include "core/border_math.h"
#include "core/host_device.h"

/* Adds the 4 bytes of `word` (elements 4w .. 4w + 3) to the column sums: elements 4w and
 * 4w + 2 in lo's low and high halves, 4w + 1 and 4w + 3 in hi's. */
static inline FX_HD void fxi_box_pairs_add(uint32_t *lo, uint32_t *hi, uint32_t word)
{
    *lo += word & 0x00FF00FFu;
    *hi += (word >> 8) & 0x00FF00FFu;
}

/* Takes a row's word away again (each half holds at least those bytes: they were added). */
static inline FX_HD void fxi_box_pairs_sub(uint32_t *lo, uint32_t *hi, uint32_t word)
{
    *lo -= word & 0x00FF00FFu;
    *hi -= (word >> 8) & 0x00FF00FFu;
}

/* Column sum of element 4w + i (i = 0 .. 3) of the pair registers of word w. */
static inline FX_HD uint32_t fxi_box_pairs_element(uint32_t lo, uint32_t hi, int i)
{
    return (((i & 1) ? hi : lo) >> (16 * (i >> 1))) & 0xFFFFu;
}

/* The staged tile's first element for a block whose first output element is o0 (tap 0
 * of output o0 is element o0 - ax * channels: s0 is the multiple of 4 at or below it),
 * and in *offset that element's place in the tile (0 .. 3). */
static inline FX_HD int64_t fxi_box_slide_start(int64_t o0, int ax, int channels, int *offset)
{
    const int64_t tap0 = o0 - (int64_t)ax * channels;
    *offset = (int)fxi_mod(tap0, 4);
    return tap0 - *offset;
}

/* The staged pixels' map: the block's first staged pixel (floor(s0 / C)), and in *phase
 * element s0's channel in it; staged element t is then channel (phase + t) % C of map
 * pixel (phase + t) / C (fxi_box_slide_pixel). */
static inline FX_HD int64_t fxi_box_slide_first_pixel(int64_t s0, int channels, int *phase)
{
    *phase = (int)fxi_mod(s0, channels);
    return (s0 - *phase) / channels;
}

static inline FX_HD int fxi_box_slide_pixel(int phase, int t, int channels, int *channel)
{
    *channel = (phase + t) % channels;
    return (phase + t) / channels;
}

/* The window sum of the output whose tap 0 is staged element s: column sums s, s + C,
 * ..., s + reach (reach = (kw - 1) * C), from the channel-strided inclusive prefix, which
 * has C zeros before it (prefix[-C .. -1]: the sums before the tile). */
static inline FX_HD uint32_t fxi_box_window(const uint32_t *prefix, int s, int reach, int channels)
{
    return prefix[s + reach] - prefix[s - channels];
}

#endif
