/* Device images: pixels on the context's GPU, and copies to and from host images.
 *
 * A device image is allocated with cudaMalloc, not from the context's stream-ordered
 * pool, because fx_image_free has no context: cudaFree works from any thread and any
 * current device, and waits for the work that may still use the memory.
 */
#include "gpu/gpu_internal.h"

fx_status fxi_gpu_image_alloc(fx_context *ctx, fx_image *img, size_t bytes)
{
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    void *ptr = NULL;
    cudaError_t e = cudaMalloc(&ptr, bytes);
    fx_status st = FX_OK;
    if (e != cudaSuccess) {
        st = fxi_cuda_error(ctx, (int)e, "cudaMalloc (device image)");
        if (st == FX_ENOMEM)
            fxi_error(ctx, FX_ENOMEM,
                      "GPU out of memory for a %dx%dx%d %s device image (%zu bytes)", img->width,
                      img->height, img->channels, fx_sample_type_name(img->type), bytes);
    } else {
        /* Zeroed like fx_image_alloc, and complete before the image is handed out. */
        e = cudaMemsetAsync(ptr, 0, bytes, ctx->cuda->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->cuda->stream);
        if (e != cudaSuccess) {
            st = fxi_cuda_error(ctx, (int)e, "cudaMemsetAsync (device image)");
            (void)cudaFree(ptr);
            ptr = NULL;
        }
    }
    img->data = ptr;
    fxi_device_leave(&guard);
    return st;
}

static fx_status copy_guarded(fx_context *ctx, const fx_image *src, fx_image *dst)
{
    size_t row = (size_t)src->width * (size_t)src->channels * fx_sample_size(src->type);
    if (src->memory == FX_MEMORY_HOST)
        FXI_TRY(fxi_copy_h2d_2d(ctx, dst->data, dst->stride, src->data, src->stride, row,
                               (size_t)src->height));
    else
        FXI_TRY(fxi_copy_d2h_2d(ctx, dst->data, dst->stride, src->data, src->stride, row,
                               (size_t)src->height));
    /* Synchronous for the caller: the host side may be reused (upload) or read
     * (download) as soon as this returns. */
    return fxi_stream_sync(ctx);
}

fx_status fxi_gpu_image_copy(fx_context *ctx, const fx_image *src, fx_image *dst)
{
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = copy_guarded(ctx, src, dst);
    fxi_device_leave(&guard);
    return st;
}

void fxi_gpu_image_free(void *data)
{
    if (data) (void)cudaFree(data);
}
