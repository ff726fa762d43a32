/* The normalizer's GPU seam (src/normalize/normalize_gpu_cuda.c with CUDA, the stubs
 * in src/normalize/normalize_gpu_nocuda.c without), named like the other jobs':
 * prepare / run / release. A stream runs in two stages, so "run" is the upload of
 * new samples and the two stage runs, levels and ramp.
 *
 * prepare: a slot ring of ring_samples doubles in pinned host memory (not zeroed;
 * the stream's own) with a copy on the device. upload: `count` samples of the host
 * ring from sample `at` queued up to the device (the next levels or ramp waits for
 * them). levels: the levels of a run of frames starting at `at` (frames x gain
 * channels pairs of peak and sum of squares into `levels`). ramp: the gain ramp of
 * a batch starting at `at`, back into the host ring in place
 * (normalize_gpu_plan.h's batch and parameter block of param_count doubles). */
#ifndef FXKIT_NORMALIZE_GPU_H
#define FXKIT_NORMALIZE_GPU_H

#include <stddef.h>

#include "fxkit/fxkit.h"
#include "normalize/normalize_gpu_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fxi_normalize_gpu fxi_normalize_gpu;

fx_status fxi_normalize_gpu_prepare(fx_context *ctx, size_t ring_samples, double **host_ring,
                                    fxi_normalize_gpu **out);
fx_status fxi_normalize_gpu_upload(fx_context *ctx, fxi_normalize_gpu *gpu, size_t at,
                                   size_t count);
fx_status fxi_normalize_gpu_levels(fx_context *ctx, fxi_normalize_gpu *gpu, size_t at,
                                   const fxi_nm_levels_job *job, double *levels);
fx_status fxi_normalize_gpu_ramp(fx_context *ctx, fxi_normalize_gpu *gpu, size_t at,
                                 const fxi_nm_ramp_batch *batch, const double *params,
                                 size_t param_count);
/* Safe with NULL. */
void fxi_normalize_gpu_release(fx_context *ctx, fxi_normalize_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
