/* GPU discovery and the context's GPU state (CUDA build). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.h"

int fx_gpu_built(void)
{
    return 1;
}

/* Errors of cudaGetDeviceCount that mean "this machine has no usable GPU"
 * rather than a failure: no device, or no (recent enough) driver. */
static int means_no_gpu(cudaError_t e)
{
    return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver;
}

/* fxi_gpu_runtime_asks: every cudaGetDeviceCount the library makes. */
static atomic_int runtime_asks;

int fxi_gpu_runtime_asks(void)
{
    return atomic_load(&runtime_asks);
}

fx_status fx_gpu_count(fx_context *ctx, int *count)
{
    if (!count) return fxi_error(ctx, FX_EINVAL, "fx_gpu_count: NULL count");
    *count = 0;
    int n = 0;
    /* Counted before the call: an ask that finds nothing, or fails, still counts. */
    atomic_fetch_add(&runtime_asks, 1);
    cudaError_t e = cudaGetDeviceCount(&n);
    if (means_no_gpu(e)) {
        (void)cudaGetLastError(); /* not an error for the caller: leave nothing behind */
        return FX_OK;
    }
    if (e != cudaSuccess) return fxi_cuda_error(ctx, (int)e, "cudaGetDeviceCount");
    *count = n;
    return FX_OK;
}

/* Select `device` for this thread, remembering the caller's current device. */
static fx_status enter_index(fx_context *ctx, int device, fxi_device_guard *guard)
{
    guard->changed = 0;
    FX_CUDA(cudaGetDevice(&guard->previous));
    if (guard->previous != device) {
        FX_CUDA(cudaSetDevice(device));
        guard->changed = 1;
    }
    return FX_OK;
}

static fx_status query_memory(fx_context *ctx, int device, size_t *free_bytes, size_t *total_bytes)
{
    fxi_device_guard guard;
    FXI_TRY(enter_index(ctx, device, &guard));
    cudaError_t e = cudaMemGetInfo(free_bytes, total_bytes);
    fxi_device_leave(&guard);
    if (e != cudaSuccess) return fxi_cuda_error(ctx, (int)e, "cudaMemGetInfo");
    return FX_OK;
}

fx_status fx_gpu_info_get(fx_context *ctx, int index, fx_gpu_info *info)
{
    if (!info) return fxi_error(ctx, FX_EINVAL, "fx_gpu_info_get: NULL info");
    memset(info, 0, sizeof *info);
    int count;
    FXI_TRY(fx_gpu_count(ctx, &count));
    FXI_RETURN_IF(index < 0 || index >= count, FX_ENODEVICE, "GPU %d: there %s %d GPU%s", index,
                 count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
    struct cudaDeviceProp prop;
    FX_CUDA(cudaGetDeviceProperties(&prop, index));
    size_t free_bytes, total_bytes;
    FXI_TRY(query_memory(ctx, index, &free_bytes, &total_bytes));
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->total_memory = total_bytes;
    info->free_memory = free_bytes;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    /* Versions are informative: 0 when the query fails. */
    if (cudaDriverGetVersion(&info->driver_version) != cudaSuccess) info->driver_version = 0;
    if (cudaRuntimeGetVersion(&info->runtime_version) != cudaSuccess) info->runtime_version = 0;
    (void)cudaGetLastError();
    return FX_OK;
}

static fx_status init_state(fx_context *ctx)
{
    fxi_cuda_state *s = ctx->cuda;
    const int dev = s->device;
    FX_CUDA(cudaDeviceGetAttribute(&s->multiprocessors, cudaDevAttrMultiProcessorCount, dev));
    FX_CUDA(cudaDeviceGetAttribute(&s->cc_major, cudaDevAttrComputeCapabilityMajor, dev));
    FX_CUDA(cudaDeviceGetAttribute(&s->cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
    FX_CUDA(cudaDeviceGetAttribute(&s->memory_pools, cudaDevAttrMemoryPoolsSupported, dev));
    FX_CUDA(cudaDeviceGetAttribute(&s->cooperative, cudaDevAttrCooperativeLaunch, dev));
    /* Creating the stream makes the device's primary CUDA context now, so a GPU
     * that cannot be used fails here (and AUTO falls back to the CPU) rather
     * than in the middle of a job. Non-blocking: no implicit synchronisation
     * with the legacy default stream that other code in the process may use. */
    FX_CUDA(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    return FX_OK;
}

fx_status fxi_gpu_context_init(fx_context *ctx)
{
    fxi_cuda_state *s = calloc(1, sizeof *s);
    FXI_RETURN_IF(!s, FX_ENOMEM, "cannot allocate the GPU state");
    s->device = ctx->gpu_index;
    ctx->cuda = s;
    fxi_device_guard guard;
    fx_status st = enter_index(ctx, s->device, &guard);
    if (st == FX_OK) {
        st = init_state(ctx);
        fxi_device_leave(&guard);
    }
    /* On failure leave no half-made state: with FX_DEVICE_AUTO the context
     * carries on without a GPU. */
    if (st != FX_OK) fxi_gpu_context_release(ctx);
    return st;
}

void fxi_gpu_context_release(fx_context *ctx)
{
    fxi_cuda_state *s = ctx ? ctx->cuda : NULL;
    if (!s) return;
    fxi_device_guard guard;
    int entered = enter_index(NULL, s->device, &guard) == FX_OK;
    for (int i = 0; i < FXI_BUFFER_SLOTS; i++)
        fxi_device_free(ctx, s->device_buffers[i].ptr);
    if (s->stream) {
        (void)cudaStreamSynchronize(s->stream);
        (void)cudaStreamDestroy(s->stream);
    }
    for (int i = 0; i < FXI_BUFFER_SLOTS; i++)
        fxi_pinned_free(ctx, s->pinned_buffers[i].ptr);
    fxi_pinned_pool_release(ctx);
    if (entered) fxi_device_leave(&guard);
    (void)cudaGetLastError();
    free(s);
    ctx->cuda = NULL;
}

int fxi_gpu_multiprocessors(const fx_context *ctx)
{
    return ctx && ctx->cuda ? ctx->cuda->multiprocessors : 0;
}

/* ---- streams for interop (include/fxkit/gpu.h) ---- */

void *fx_context_stream(const fx_context *ctx)
{
    /* The stream is the GPU's state: asking for it starts a pending auto context's GPU
     * (as fx_context_device does; the context is the caller's). */
    if (ctx && ctx->gpu_pending) (void)fxi_gpu_start((fx_context *)ctx);
    (void)fxi_gpu_wait((fx_context *)ctx); /* a background start: its stream, if any */
    return ctx && ctx->cuda ? (void *)ctx->cuda->stream : NULL;
}

fx_status fx_context_wait_stream(fx_context *ctx, void *stream)
{
    (void)fxi_gpu_start(ctx);
    FXI_TRY(fxi_cuda_require(ctx, "waiting for a CUDA stream"));
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    /* An event marks the producer's work so far; the context's stream waits for it on
     * the GPU. Destroying the event at once is allowed: the wait keeps what it needs. */
    cudaEvent_t event = NULL;
    fx_status st = FX_OK;
    cudaError_t err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(event, (cudaStream_t)stream);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(ctx->cuda->stream, event, 0);
    if (err != cudaSuccess)
        st = fxi_error(ctx, FX_ECUDA, "waiting for stream %p: %s", stream, cudaGetErrorString(err));
    if (event) (void)cudaEventDestroy(event);
    fxi_device_leave(&guard);
    return st;
}

fx_status fx_context_synchronize(fx_context *ctx)
{
    FXI_TRY(fxi_gpu_join(ctx));
    if (!ctx->cuda) return FX_OK;
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = fxi_stream_sync(ctx);
    fxi_device_leave(&guard);
    return st;
}
