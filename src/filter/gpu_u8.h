/* The GPU filter's 8-bit fast path (gpu_u8.cu; layouts in gpu_u8_geometry.h): exact
 * sums in FP32, the CPU's finish (filter_math.h), so the bytes are the CPU's. */
#ifndef FXKIT_FILTER_GPU_U8_H
#define FXKIT_FILTER_GPU_U8_H

#include "filter/gpu_kernels.h"
#include "filter/gpu_u8_geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The taps, passed by value as a kernel parameter (constant memory every thread reads
 * at the same index: a broadcast, no per-tap branch). */
typedef struct fxi_gpu_u8_taps {
    float row[FXI_GPU_U8_MAX_TAPS]; /* box: 1 each */
    float col[FXI_GPU_U8_MAX_TAPS];
    double scale; /* the exact sum = scale * the FP32 sum (box: its numerator; else 1) */
    /* 1: the finish is MULSHIFT with 32-bit products and scale is 1, so outputs finish
     * with fxi_finish_u32_product(sum, add, mul, shift) (filter_math.h): the same value
     * as fxi_finish_exact_at, in integers */
    int int_finish;
    uint32_t add, mul;
    int shift;
    /* 1: 255 * the row taps' sum <= 65535, so two row sums share a register's 16-bit
     * halves without a carry between them (k_u8_walk4) */
    int pair_row_sums;
    /* 1: 3x3 taps c * (1, 2, 1) along rows and d * (1, 2, 1) down columns (gaussian:3)
     * with the integer finish: k_u8_walk4 sums them as 1, 2, 1 known at compile time (a
     * shift and adds, no multiplies) and finishes the unit sum S as
     * (S * unit_mul + unit_add_mul) >> shift, the same 32 bits as the plan's finish of
     * the whole sum c * d * S (fxi_gpu_u8_taps_binomial3). */
    int binomial3;
    uint32_t unit_mul, unit_add_mul;
    /* 1: every row tap a whole number in 0 .. 255 (the two-pass rows then sum in byte dot
     * products, k_u8_rows_dp4a) */
    int row_bytes;
} fxi_gpu_u8_taps;

/* Set u's binomial3 (and its unit finish) when its kw x kh taps qualify: every other
 * field set, int_finish among them. (c * d * S + add) * mul = S * (c * d * mul) +
 * add * mul, and the plan's int_finish already bounds the left side below 2^32 for every
 * sum, so neither product on the right wraps and the result is the same. */
static inline void fxi_gpu_u8_taps_binomial3(fxi_gpu_u8_taps *u, int kw, int kh)
{
    u->binomial3 = 0;
    if (kw != 3 || kh != 3 || !u->int_finish) return;
    const float c = u->row[0], d = u->col[0];
    if (!(c >= 1.0f && d >= 1.0f) || u->row[1] != 2.0f * c || u->row[2] != c ||
        u->col[1] != 2.0f * d || u->col[2] != d)
        return;
    u->binomial3 = 1;
    u->unit_mul = (uint32_t)c * (uint32_t)d * u->mul;
    u->unit_add_mul = u->add * u->mul;
}

/* One image of a batch (fx_filter_run_batch): its rows on the device. */
typedef struct fxi_gpu_u8_image {
    const uint8_t *src;
    uint8_t *dst;
    uint64_t src_stride, dst_stride;
} fxi_gpu_u8_image;

/* Images of the args' shape filtered by one launch a pass: grid z is the image, each
 * block reads its rows from the table (the args' src and dst are then unused). */
typedef struct fxi_gpu_u8_batch {
    const fxi_gpu_u8_image *images; /* device memory, count entries */
    int count;                      /* 1 .. FXI_GPU_U8_BATCH_MAX_IMAGES */
    int rows_aligned; /* every src, dst and stride is a multiple of 4 bytes (k_u8_walk4) */
} fxi_gpu_u8_batch;

/* Queue the pass (one launch fused or box slide, two for two-pass) on `stream`, each
 * launch checked: on the args' image when batch is NULL, else on the batch's images.
 * work: two-pass and the box slide's edge rows, g->work_bytes of device memory per image
 * (image z's at z * work_bytes). graph: NULL, or where one image's pass is the one
 * walk (k_u8_walk4), the graph it is launched through, keyed on the args' src, dst and
 * their strides: the caller keeps every other argument the same from launch to launch. */
fx_status fxi_filter_launch_u8(fx_context *ctx, const fxi_filter_args *a,
                               const fxi_gpu_u8_launch *g, const fxi_gpu_u8_taps *taps, void *work,
                               const fxi_gpu_u8_batch *batch, fxi_kernel_graph *graph,
                               cudaStream_t stream);

/* The box slide's launches (gpu_u8_box.cu): fxi_filter_launch_u8 calls it for that
 * layout. images: NULL for the args' image, else `count` of a batch; rows_aligned: every
 * row of src starts at a multiple of 4 bytes; work: g->work_bytes a image for the edge
 * rows (fxi_gpu_u8_slide_side), NULL when g->work_bytes is 0. */
fx_status fxi_filter_launch_u8_box(fx_context *ctx, const fxi_filter_args *a,
                                   const fxi_gpu_u8_launch *g, const fxi_gpu_u8_taps *taps,
                                   const fxi_gpu_u8_image *images, unsigned count, int rows_aligned,
                                   void *work, cudaStream_t stream);

/* The box slide's blocks of tile_w threads and shared_bytes that the current device runs
 * at once (its SMs times the blocks an SM holds), 0 when CUDA cannot say. */
int64_t fxi_filter_u8_box_resident_blocks(int channels, int tile_w, size_t shared_bytes);

#ifdef __cplusplus
}
#endif
#endif
