/* The filter kernels' arguments and launcher (filter.cu), called by filter_gpu.c.
 * Everything a kernel reads is in fxi_filter_args, computed on the host: the launch
 * geometry comes from filter/gpu_geometry.c, the per-output arithmetic from
 * filter/filter_math.h (the CPU's own border index and finish rules). */
#ifndef FXKIT_FILTER_KERNELS_H
#define FXKIT_FILTER_KERNELS_H

#include <math.h>
#include <stdint.h>

#include "gpu/gpu_internal.h"

#ifdef __cplusplus
/* filter_internal.h has no C++ guards of its own; its system includes are above. */
extern "C" {
#endif
#include "filter/filter_internal.h"
#include "filter/gpu_geometry.h"

/* Bytes of the constant-memory tap table (of the 64 KiB a module has). */
#define FXI_GPU_CONSTANT_BYTES (60 * 1024)

typedef struct fxi_filter_args {
    fxi_gpu_launch launch; /* fxi_gpu_launch_geometry's answer for this pass */
    /* input: `resolved` = 1: virtual row v is row v of src (a staged band, borders
     * already applied); 0: src is the whole image, virtual row v is image row
     * fxi_border_index(v0 + v) */
    const uint8_t *src;
    size_t src_stride;
    int src_type; /* fx_sample_type */
    int resolved;
    int64_t v0;
    int64_t width, height; /* the whole image */
    int channels, filter_channels, border;
    double border_value[FX_MAX_IMAGE_CHANNELS];
    /* output: rows [0, rows) of dst; output row r reads virtual rows r … r + kh - 1 */
    uint8_t *dst;
    size_t dst_stride;
    int64_t rows;
    /* taps: dense kw * kh in the accumulator's type (int32, int64, float), row-major,
     * device memory; the rank-1 factors for separable */
    int kw, kh, ax, ay;
    int acc; /* fxi_acc: I32, I64, F32 */
    const void *taps;
    const void *taps_row, *taps_col;
    float offset; /* float kernels: the accumulator's start */
    fxi_finish finish;
    int integer_image;
    float maxval;
    /* box: the one numerator (exact) or weight (float); the column sums (device) */
    int64_t box_num;
    double box_w;
    void *work;
    size_t work_stride; /* bytes per row of work */
    /* gpu-texture: src's offset, in samples, from the aligned address the texture starts at */
    int64_t tex_offset;
} fxi_filter_args;

/* Dynamic shared memory a block gets without opting in (cudaFuncAttribute...). */
#define FXI_GPU_DEFAULT_SHARED_BYTES (48 * 1024)

/* Texture objects start at addresses aligned to this (cudaDevAttrTextureAlignment is at
 * most 512 bytes). */
#define FXI_GPU_TEXTURE_ALIGN 512

/* Queue the pass on `stream` (the context's GPU is current): one launch, two for box,
 * each checked with fxi_cuda_check_launch. gpu-constant copies the taps to constant
 * memory first; gpu-texture makes a texture object over src and waits for the pass
 * before it destroys it. */
fx_status fxi_filter_launch(fx_context *ctx, const fxi_filter_args *a, cudaStream_t stream);

#ifdef __cplusplus
}
/* The ring kernels (filter_ring.cu), for launches with launch.ring set. */
fx_status fxi_filter_launch_ring(fx_context *ctx, const fxi_filter_args &a, cudaStream_t stream);
#endif
#endif
