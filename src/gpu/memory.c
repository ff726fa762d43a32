/* Device and pinned memory, copies and stream synchronisation on the context's
 * GPU and stream. */
#include <sched.h>
#include <string.h>

#include "gpu/gpu_internal.h"

#define MIB (1024.0 * 1024.0)

/* Every function below runs one CUDA call with the context's GPU current and
 * turns its result into an fx_status naming the call. */
#define GUARDED(call)                                                                              \
    do {                                                                                           \
        fxi_device_guard guard_;                                                                   \
        FXI_TRY(fxi_device_enter(ctx, &guard_));                                                    \
        cudaError_t err_ = (call);                                                                 \
        fxi_device_leave(&guard_);                                                                 \
        if (err_ != cudaSuccess) return fxi_cuda_error(ctx, (int)err_, #call);                     \
        return FX_OK;                                                                              \
    } while (0)

/* The out-of-memory detail: how much was asked for and how much the GPU has. */
static fx_status device_out_of_memory(fx_context *ctx, size_t bytes)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) free_bytes = total_bytes = 0;
    (void)cudaGetLastError();
    return fxi_error(ctx, FX_ENOMEM,
                     "GPU out of memory: %s(%zu bytes) on GPU %d (free %.0f of %.0f MiB)",
                     ctx->cuda->memory_pools ? "cudaMallocAsync" : "cudaMalloc", bytes,
                     ctx->cuda->device, (double)free_bytes / MIB, (double)total_bytes / MIB);
}

fx_status fxi_device_alloc(fx_context *ctx, size_t bytes, void **out)
{
    *out = NULL;
    if (bytes == 0) return FX_OK;
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    /* Stream-ordered allocation where the GPU has memory pools: no device-wide
     * synchronisation (cudaFree has one), and the pool reuses memory cheaply. */
    cudaError_t e = ctx->cuda->memory_pools ? cudaMallocAsync(out, bytes, ctx->cuda->stream)
                                            : cudaMalloc(out, bytes);
    fx_status st = FX_OK;
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        st = device_out_of_memory(ctx, bytes);
    } else if (e != cudaSuccess) {
        st =
            fxi_cuda_error(ctx, (int)e, ctx->cuda->memory_pools ? "cudaMallocAsync" : "cudaMalloc");
    }
    fxi_device_leave(&guard);
    if (st != FX_OK) *out = NULL;
    return st;
}

void fxi_device_free(fx_context *ctx, void *ptr)
{
    if (!ptr || !ctx || !ctx->cuda) return;
    fxi_device_guard guard;
    if (fxi_device_enter(ctx, &guard) != FX_OK) return;
    if (ctx->cuda->memory_pools)
        (void)cudaFreeAsync(ptr, ctx->cuda->stream);
    else
        (void)cudaFree(ptr);
    fxi_device_leave(&guard);
}

fx_status fxi_device_memset(fx_context *ctx, void *ptr, int value, size_t bytes)
{
    if (bytes == 0) return FX_OK;
    GUARDED(cudaMemsetAsync(ptr, value, bytes, ctx->cuda->stream));
}

fx_status fxi_pinned_alloc(fx_context *ctx, size_t bytes, void **out)
{
    *out = NULL;
    if (bytes == 0) return FX_OK;
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    cudaError_t e = cudaHostAlloc(out, bytes, cudaHostAllocDefault);
    fxi_device_leave(&guard);
    if (e == cudaSuccess) return FX_OK;
    *out = NULL;
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
        return fxi_error(ctx, FX_ENOMEM,
                         "cannot allocate %zu bytes of pinned host memory (cudaHostAlloc)", bytes);
    return fxi_cuda_error(ctx, (int)e, "cudaHostAlloc");
}

void fxi_pinned_free(fx_context *ctx, void *ptr)
{
    if (!ptr || !ctx || !ctx->cuda) return;
    fxi_device_guard guard;
    if (fxi_device_enter(ctx, &guard) != FX_OK) return;
    (void)cudaFreeHost(ptr);
    fxi_device_leave(&guard);
}

fx_status fxi_device_buffer(fx_context *ctx, fxi_buffer_slot slot, size_t bytes, void **out)
{
    FXI_TRY(fxi_cuda_require(ctx, "a device buffer"));
    fxi_buffer *b = &ctx->cuda->device_buffers[slot];
    if (b->size < bytes) {
        /* Stream-ordered free: work already queued on the old buffer finishes first. */
        fxi_device_free(ctx, b->ptr);
        b->ptr = NULL;
        b->size = 0;
        FXI_TRY(fxi_device_alloc(ctx, bytes, &b->ptr));
        b->size = bytes;
    }
    *out = b->ptr;
    return FX_OK;
}

fx_status fxi_pinned_buffer(fx_context *ctx, fxi_buffer_slot slot, size_t bytes, void **out)
{
    FXI_TRY(fxi_cuda_require(ctx, "a pinned buffer"));
    fxi_buffer *b = &ctx->cuda->pinned_buffers[slot];
    if (b->size < bytes) {
        /* Queued copies may still read or write the old buffer. */
        if (b->ptr) FXI_TRY(fxi_stream_sync(ctx));
        fxi_pinned_give(ctx, b->ptr, b->size);
        b->ptr = NULL;
        b->size = 0;
        FXI_TRY(fxi_pinned_take(ctx, bytes, &b->ptr, &b->size));
    }
    *out = b->ptr;
    return FX_OK;
}

fx_status fxi_copy_h2d(fx_context *ctx, void *dst_device, const void *src_host, size_t bytes)
{
    if (bytes == 0) return FX_OK;
    GUARDED(
        cudaMemcpyAsync(dst_device, src_host, bytes, cudaMemcpyHostToDevice, ctx->cuda->stream));
}

fx_status fxi_copy_d2h(fx_context *ctx, void *dst_host, const void *src_device, size_t bytes)
{
    if (bytes == 0) return FX_OK;
    GUARDED(
        cudaMemcpyAsync(dst_host, src_device, bytes, cudaMemcpyDeviceToHost, ctx->cuda->stream));
}

fx_status fxi_copy_h2d_2d(fx_context *ctx, void *dst_device, size_t dst_pitch, const void *src_host,
                          size_t src_pitch, size_t row_bytes, size_t rows)
{
    if (row_bytes == 0 || rows == 0) return FX_OK;
    GUARDED(cudaMemcpy2DAsync(dst_device, dst_pitch, src_host, src_pitch, row_bytes, rows,
                              cudaMemcpyHostToDevice, ctx->cuda->stream));
}

fx_status fxi_copy_d2h_2d(fx_context *ctx, void *dst_host, size_t dst_pitch, const void *src_device,
                          size_t src_pitch, size_t row_bytes, size_t rows)
{
    if (row_bytes == 0 || rows == 0) return FX_OK;
    GUARDED(cudaMemcpy2DAsync(dst_host, dst_pitch, src_device, src_pitch, row_bytes, rows,
                              cudaMemcpyDeviceToHost, ctx->cuda->stream));
}

fx_status fxi_stream_sync(fx_context *ctx)
{
    GUARDED(cudaStreamSynchronize(ctx->cuda->stream));
}

static cudaError_t wait_yielding(cudaStream_t stream)
{
    cudaError_t e;
    while ((e = cudaStreamQuery(stream)) == cudaErrorNotReady)
        sched_yield();
    return e;
}

fx_status fxi_stream_sync_yielding(fx_context *ctx)
{
    GUARDED(wait_yielding(ctx->cuda->stream));
}

typedef struct row_copy {
    uint8_t *dst;
    size_t dst_stride;
    const uint8_t *src;
    size_t src_stride;
    size_t row_bytes;
} row_copy;

static void copy_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const row_copy *c = arg;
    if (c->dst_stride == c->row_bytes && c->src_stride == c->row_bytes) {
        memcpy(c->dst + begin * c->row_bytes, c->src + begin * c->row_bytes,
               (end - begin) * c->row_bytes);
        return;
    }
    for (size_t y = begin; y < end; y++)
        memcpy(c->dst + y * c->dst_stride, c->src + y * c->src_stride, c->row_bytes);
}

void fxi_parallel_copy_rows(fx_context *ctx, void *dst, size_t dst_stride, const void *src,
                            size_t src_stride, size_t row_bytes, size_t rows)
{
    if (rows == 0 || row_bytes == 0) return;
    row_copy c = {dst, dst_stride, src, src_stride, row_bytes};
    fxi_parallel_for(ctx, rows, fxi_copy_grain(row_bytes), copy_rows, &c);
}

bool fxi_page_locked(const void *ptr)
{
    struct cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, ptr) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error of the caller's: it stages instead */
        return false;
    }
    return at.type == cudaMemoryTypeHost;
}
