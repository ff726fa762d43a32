/* The equalize GPU seam in a build without CUDA: no GPU context can exist, so these
 * are reached only through misuse; they fail with FX_ENODEVICE. */
#include "equalize/equalize_gpu.h"
#include "core/internal.h"

fx_status fxi_equalize_gpu_prepare(fx_equalize_plan *plan)
{
    (void)plan;
    return fxi_error(NULL, FX_ENODEVICE, "this build has no CUDA support");
}

fx_status fxi_equalize_gpu_run(fx_equalize_plan *plan, const fx_image *in, fx_image *out,
                                fx_timings *timings)
{
    (void)plan, (void)in, (void)out, (void)timings;
    return fxi_error(NULL, FX_ENODEVICE, "this build has no CUDA support");
}

void fxi_equalize_gpu_release(fx_equalize_plan *plan)
{
    (void)plan;
}
