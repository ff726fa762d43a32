/* fxi_cuda_normalize_ramp: the gain ramp of a batch of frames on the context's
 * GPU, in place in host memory. The samples and the parameter block go up in one
 * copy through pinned staging, the kernel runs on the context's stream, and the
 * result comes back over the samples. The CPU's threads copy between the
 * caller's memory and the staging buffers (one thread alone would be slower than
 * the bus). Staging and device buffers belong to the context and are reused batch
 * after batch. */
#include <string.h>

#include "cuda_internal.h"
#include "normalize/normalize_cuda.h"

/* Doubles per thread's share of a staging copy: 1 MiB. */
#define COPY_GRAIN ((size_t)1 << 17)

typedef struct staged_copy {
    double *dst;
    const double *src;
} staged_copy;

static void copy_range(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const staged_copy *c = arg;
    memcpy(c->dst + begin, c->src + begin, (end - begin) * sizeof *c->dst);
}

static void parallel_copy(fx_context *ctx, double *dst, const double *src, size_t count)
{
    staged_copy c = {dst, src};
    fxi_parallel_for(ctx, count, COPY_GRAIN, copy_range, &c);
}

static fx_status ramp_guarded(fx_context *ctx, double *samples, const fxi_nm_ramp_batch *b,
                              const double *params, size_t param_count)
{
    const size_t count = b->samples, staged = count + param_count;
    size_t staged_bytes;
    FX_RETURN_IF(!fxi_mul_size(staged, sizeof(double), &staged_bytes), FX_EOVERFLOW,
                 "normalize: GPU batch of %zu samples overflows", count);
    const size_t sample_bytes = count * sizeof(double);
    void *pin_in, *pin_out, *dev_in, *dev_out;
    FX_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, staged_bytes, &pin_in));
    FX_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_OUT, sample_bytes, &pin_out));
    FX_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, staged_bytes, &dev_in));
    FX_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, sample_bytes, &dev_out));
    parallel_copy(ctx, pin_in, samples, count);
    memcpy((double *)pin_in + count, params, param_count * sizeof(double));
    FX_TRY(fxi_copy_h2d(ctx, dev_in, pin_in, staged_bytes));
    FX_TRY(fxi_cuda_normalize_ramp_launch(ctx, dev_in, dev_out, (const double *)dev_in + count, b));
    FX_TRY(fxi_copy_d2h(ctx, pin_out, dev_out, sample_bytes));
    FX_TRY(fxi_stream_sync(ctx));
    parallel_copy(ctx, samples, pin_out, count);
    return FX_OK;
}

fx_status fxi_cuda_normalize_ramp(fx_context *ctx, double *samples, const fxi_nm_ramp_batch *batch,
                                  const double *params, size_t param_count)
{
    fxi_device_guard guard;
    FX_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = ramp_guarded(ctx, samples, batch, params, param_count);
    fxi_device_leave(&guard);
    return st;
}
