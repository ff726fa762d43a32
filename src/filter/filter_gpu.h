/* The filter plan's GPU seam (src/filter/gpu_plan_cuda.c with CUDA, the stubs in
 * src/filter/gpu_nocuda.c without), named like the other jobs' seams: prepare /
 * run / release. The planner hands it the resolved taps and strategy. */
#ifndef FXKIT_FILTER_GPU_H
#define FXKIT_FILTER_GPU_H

#include "filter/filter_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fxi_filter_gpu_desc {
    const fxi_taps *taps; /* copied: the GPU state keeps what it needs */
    fx_image_desc desc;
    fx_filter_strategy strategy; /* resolved (never auto) */
    int border;
    const double *border_value; /* desc.channels values */
    int filter_channels;
    int gpu_block;      /* 0, 8, 16, 32 */
    int gpu_memory_mib; /* 0 = what is free */
} fxi_filter_gpu_desc;

/* Upload the taps, choose the launch geometry; FX_EINVAL / FX_EUNSUPPORTED with a
 * detail when the strategy cannot run this kernel on this GPU. */
fx_status fxi_filter_gpu_prepare(fx_context *ctx, const fxi_filter_gpu_desc *d, void **state);
/* src and dst: device images (filtered where they are) or host images (streamed in
 * bands), of the planned shape. */
fx_status fxi_filter_gpu_run(void *state, const fx_image *src, fx_image *dst, fx_timings *timings);
/* count images of the planned shape, src[i] into dst[i], all device images or all host
 * images (the planner has checked each). Device images on the 8-bit fast path: one
 * launch a pass for the whole batch (gpu_u8.h); others image after image on the
 * context's stream; host images each as fxi_filter_gpu_run. With timings, compute_ms
 * once for the batch (host images: each image's stages). */
fx_status fxi_filter_gpu_run_batch(void *state, const fx_image *src, fx_image *dst, int count,
                                   fx_timings *timings);
void fxi_filter_gpu_release(void *state);
/* What runs on device images beyond the strategy (--explain), or "" when the strategy's
 * general kernels do. */
const char *fxi_filter_gpu_kernel_words(const void *state);

#ifdef __cplusplus
}
#endif
#endif
