/* Entry points of the normalize GPU code (src/cuda/normalize.cu and
 * normalize_gpu.c), callable from C and CUDA. */
#ifndef FXKIT_NORMALIZE_CUDA_H
#define FXKIT_NORMALIZE_CUDA_H

#include "fxkit/fxkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queue the ramp of one frame (length x channels interleaved doubles) on the
 * context's stream; params is the block of normalize_gpu_plan.h. */
fx_status fxi_cuda_normalize_ramp_launch(fx_context *ctx, const double *src_device,
                                         double *dst_device, const double *params_device,
                                         size_t length, int channels, int gain_channels, int ramp);

#ifdef __cplusplus
}
#endif
#endif
