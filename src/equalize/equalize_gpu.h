/* The equalize plan's GPU seam (src/equalize/gpu_cuda.c with CUDA, the stubs in
 * src/equalize/gpu_nocuda.c without): the plan hands its analysed options over once,
 * then runs on host or device images. Named like the other jobs' seams:
 * prepare / run / release. */
#ifndef FXKIT_EQUALIZE_GPU_H
#define FXKIT_EQUALIZE_GPU_H

#include "equalize/equalize_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device buffers and uploads for a plan on a GPU context (plan->gpu set). */
fx_status fxi_equalize_gpu_prepare(fx_equalize_plan *plan);
/* in and out: device images (equalized where they are) or host images (staged
 * through pinned memory), of the planned shape. */
fx_status fxi_equalize_gpu_run(fx_equalize_plan *plan, const fx_image *in, fx_image *out,
                               fx_timings *timings);
/* Safe when the plan has no GPU state. */
void fxi_equalize_gpu_release(fx_equalize_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
