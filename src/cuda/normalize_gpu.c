/* fxi_cuda_normalize_ramp: one frame's gain ramp on the context's GPU. The
 * frame and its parameter block go up in one copy through pinned staging, the
 * kernel runs on the context's stream, and the result comes back into the
 * caller's buffer. Staging and device buffers belong to the context and are
 * reused frame after frame. */
#include <string.h>

#include "cuda_internal.h"
#include "normalize/normalize_cuda.h"
#include "normalize/normalize_gpu_plan.h"

static fx_status ramp_guarded(fx_context *ctx, const double *src, double *dst, size_t length,
                              const double *params, int channels, int gain_channels, int ramp)
{
    size_t samples, staged, sample_bytes, staged_bytes;
    const size_t param_count = fxi_nm_ramp_param_count(channels, gain_channels);
    FX_RETURN_IF(!fxi_mul_size(length, (size_t)channels, &samples) ||
                     !fxi_add_size(samples, param_count, &staged) ||
                     !fxi_mul_size(staged, sizeof(double), &staged_bytes),
                 FX_EOVERFLOW, "normalize: GPU frame of %zu x %d samples overflows", length,
                 channels);
    sample_bytes = samples * sizeof(double);
    void *pin_in, *pin_out, *dev_in, *dev_out;
    FX_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, staged_bytes, &pin_in));
    FX_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_OUT, sample_bytes, &pin_out));
    FX_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, staged_bytes, &dev_in));
    FX_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, sample_bytes, &dev_out));
    memcpy(pin_in, src, sample_bytes);
    memcpy((double *)pin_in + samples, params, param_count * sizeof(double));
    FX_TRY(fxi_copy_h2d(ctx, dev_in, pin_in, staged_bytes));
    FX_TRY(fxi_cuda_normalize_ramp_launch(ctx, dev_in, dev_out, (const double *)dev_in + samples,
                                          length, channels, gain_channels, ramp));
    FX_TRY(fxi_copy_d2h(ctx, pin_out, dev_out, sample_bytes));
    FX_TRY(fxi_stream_sync(ctx));
    memcpy(dst, pin_out, sample_bytes);
    return FX_OK;
}

fx_status fxi_cuda_normalize_ramp(fx_context *ctx, const double *src, double *dst, size_t length,
                                  const double *params, int channels, int gain_channels, int ramp)
{
    fxi_device_guard guard;
    FX_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = ramp_guarded(ctx, src, dst, length, params, channels, gain_channels, ramp);
    fxi_device_leave(&guard);
    return st;
}
