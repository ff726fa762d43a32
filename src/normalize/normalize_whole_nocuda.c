/* The whole-buffer GPU path in a build without CUDA: no GPU context can exist, so
 * this is reached only through misuse; it fails with FX_ENODEVICE. */
#include "normalize/normalize_whole.h"

fx_status fxi_normalize_gpu_whole(fx_context *ctx, const fxi_nm_params *p, const fx_audio *in,
                                  double *out)
{
    (void)p, (void)in, (void)out;
    return fxi_error(ctx, FX_ENODEVICE, "this build has no CUDA support");
}
