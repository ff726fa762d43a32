/* The normalize kernels' launchers (src/normalize/normalize_kernels.cu), for
 * the seam in normalize_gpu_cuda.c), callable from C and CUDA. */
#ifndef FXKIT_NORMALIZE_KERNELS_H
#define FXKIT_NORMALIZE_KERNELS_H

#include "fxkit/fxkit.h"
#include "normalize_gpu_plan.h"
#include "normalize_pcm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queue the levels of a run of frames (job.frames slots from slots_device) on
 * the context's stream: out_device receives frames x gain channels pairs (peak,
 * sum of squares). */
fx_status fxi_normalize_levels_launch(fx_context *ctx, const double *slots_device,
                                      const fxi_nm_levels_job *job, double *out_device);
/* Queue the ramp of one batch (device samples, interleaved) on the context's
 * stream; params is the batch's block (normalize_gpu_plan.h), on the device. */
fx_status fxi_normalize_ramp_launch(fx_context *ctx, const double *src_device, double *dst_device,
                                    const double *params_device, const fxi_nm_ramp_batch *batch);

/* Queue the widening of `count` packed samples (src_device, in `pcm`'s width) to
 * doubles (normalize_pcm.h's conversions) into dst_device on the context's stream. */
fx_status fxi_normalize_unpack_launch(fx_context *ctx, const void *src_device, fxi_nm_pcm pcm,
                                      double *dst_device, size_t count);

#ifdef __cplusplus
}
#endif
#endif
