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

/* What places a block in its row: the row's n elements, each block's slide_out outputs,
 * the window (ax, kw) and channels, and tile_w threads of ept staged elements each. */
typedef struct fxi_box_slide_shape {
    int64_t n, slide_out;
    int ax, kw, channels, ept, tile_w;
} fxi_box_slide_shape;

/* Block bx's place in the row and its threads, as the kernel sets them: its first output
 * element o0 and their count outs, its staged tile's start s0 and offset
 * (fxi_box_slide_start), and which of its threads load: threads [0, loaders) (the rest
 * lie past every window of the block's outputs); of those, threads [0, left) stage
 * elements before the row and threads [right, loaders) elements past its end (right >=
 * left: a thread at both ends counts as left). Those edge threads' elements take the
 * border rule. */
typedef struct fxi_box_slide_block {
    int64_t o0, s0;
    int offset, outs, loaders, left, right;
} fxi_box_slide_block;

static inline FX_HD fxi_box_slide_block fxi_box_slide_block_at(const fxi_box_slide_shape *sh,
                                                               int64_t bx)
{
    fxi_box_slide_block b;
    b.o0 = bx * sh->slide_out;
    b.s0 = fxi_box_slide_start(b.o0, sh->ax, sh->channels, &b.offset);
    b.outs = (int)(sh->slide_out < sh->n - b.o0 ? sh->slide_out : sh->n - b.o0);
    /* the block's last staged element that a window reads */
    const int64_t last = b.outs - 1 + b.offset + (int64_t)(sh->kw - 1) * sh->channels;
    b.loaders = (int)(last / sh->ept + 1 < sh->tile_w ? last / sh->ept + 1 : sh->tile_w);
    const int64_t left = b.s0 < 0 ? (-b.s0 + sh->ept - 1) / sh->ept : 0;
    b.left = (int)(left < b.loaders ? left : b.loaders);
    const int64_t right = (sh->n - b.s0) / sh->ept; /* the first thread reaching past n */
    b.right = (int)(right < b.left ? b.left : right < b.loaders ? right : b.loaders);
    return b;
}

/* The edge rows (the box slide's side buffer, gpu_u8_geometry.h): each virtual row's edge
 * threads' elements with the border rule applied, so that those threads load aligned
 * words as the others do. A row holds left_blocks slots of left_w elements (blocks 0 ..
 * left_blocks - 1, their threads [0, left)), then right_blocks slots of right_w (the
 * row's last right_blocks blocks, their threads [right, loaders)). */
typedef struct fxi_box_slide_side {
    int64_t blocks; /* the row's blocks (tiles_x) */
    int64_t left_blocks, right_blocks;
    int64_t left_w, right_w;
} fxi_box_slide_side;

/* Where element k of edge thread tid of block bx (b) lies in an edge row. */
static inline FX_HD int64_t fxi_box_slide_side_index(const fxi_box_slide_side *sd,
                                                     const fxi_box_slide_block *b, int64_t bx,
                                                     int tid, int ept, int k)
{
    if (tid < b->left) return bx * sd->left_w + (int64_t)tid * ept + k;
    return sd->left_blocks * sd->left_w + (bx - (sd->blocks - sd->right_blocks)) * sd->right_w +
           (int64_t)(tid - b->right) * ept + k;
}

/* The row element (any integer: the border rule applies) that index i of an edge row
 * holds: fxi_box_slide_side_index's inverse. */
static inline FX_HD int64_t fxi_box_slide_side_element(const fxi_box_slide_side *sd,
                                                       const fxi_box_slide_shape *sh, int64_t i)
{
    const int64_t lefts = sd->left_blocks * sd->left_w;
    if (i < lefts) return fxi_box_slide_block_at(sh, i / sd->left_w).s0 + i % sd->left_w;
    const int64_t j = i - lefts;
    const fxi_box_slide_block b =
        fxi_box_slide_block_at(sh, sd->blocks - sd->right_blocks + j / sd->right_w);
    return b.s0 + (int64_t)b.right * sh->ept + j % sd->right_w;
}

#endif
