/* fx_image_convert on the GPU: host image in, host image out, or device image in, device
 * image out (converted in place on the device, convert_device).
 *
 * The rows are packed (in parallel, on the context's threads) into a pinned
 * staging buffer, copied to the device in one transfer at full PCIe speed,
 * converted, copied back into pinned memory and unpacked into the destination's
 * rows. Staging and device buffers belong to the context and are reused by the
 * next call.
 */
#include "gpu/gpu_internal.h"

static fx_status check_images(fx_context *ctx, const fx_image *src, const fx_image *dst,
                              size_t *src_row, size_t *dst_row, size_t *src_bytes,
                              size_t *dst_bytes)
{
    FXI_RETURN_IF(!src || !dst || !src->data || !dst->data, FX_EINVAL,
                 "GPU convert: image without pixels");
    FXI_RETURN_IF(src->width != dst->width || src->height != dst->height ||
                     src->channels != dst->channels,
                 FX_EINVAL, "GPU convert: %dx%dx%d to %dx%dx%d changes the shape", src->width,
                 src->height, src->channels, dst->width, dst->height, dst->channels);
    fx_status st =
        fx_image_size(src->width, src->height, src->channels, src->type, src_row, src_bytes);
    if (st == FX_OK)
        st = fx_image_size(dst->width, dst->height, dst->channels, dst->type, dst_row, dst_bytes);
    FXI_RETURN_IF(st != FX_OK, st, "GPU convert: bad image shape %dx%dx%d %s to %s", src->width,
                 src->height, src->channels, fx_sample_type_name(src->type),
                 fx_sample_type_name(dst->type));
    FXI_RETURN_IF(src->stride < *src_row || dst->stride < *dst_row, FX_EINVAL,
                 "GPU convert: stride shorter than a row");
    return FX_OK;
}

/* Wall time of the stage that ends now, when timing was asked for. */
static fx_status stage_end(fx_context *ctx, fx_timings *t, double *field, uint64_t *since)
{
    if (!t) return FX_OK;
    FXI_TRY(fxi_stream_sync(ctx));
    uint64_t now = fx_time_ns();
    *field = fx_elapsed_ms(*since, now);
    *since = now;
    return FX_OK;
}

static fx_status convert_guarded(fx_context *ctx, const fx_image *src, fx_image *dst, fx_timings *t)
{
    size_t src_row, dst_row, src_bytes, dst_bytes;
    FXI_TRY(check_images(ctx, src, dst, &src_row, &dst_row, &src_bytes, &dst_bytes));
    const size_t rows = (size_t)src->height;
    const size_t count = src_row / fx_sample_size(src->type) * rows;

    void *pin_in, *pin_out, *dev_in, *dev_out;
    FXI_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_IN, src_bytes, &pin_in));
    FXI_TRY(fxi_pinned_buffer(ctx, FXI_BUFFER_OUT, dst_bytes, &pin_out));
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, src_bytes, &dev_in));
    FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_OUT, dst_bytes, &dev_out));

    uint64_t since = fx_time_ns();
    fxi_parallel_copy_rows(ctx, pin_in, src_row, src->data, src->stride, src_row, rows);
    FXI_TRY(fxi_copy_h2d(ctx, dev_in, pin_in, src_bytes));
    FXI_TRY(stage_end(ctx, t, t ? &t->upload_ms : NULL, &since));

    FXI_TRY(fxi_cuda_convert_launch(ctx, dev_in, src->type, dev_out, dst->type, count));
    FXI_TRY(stage_end(ctx, t, t ? &t->compute_ms : NULL, &since));

    FXI_TRY(fxi_copy_d2h(ctx, pin_out, dev_out, dst_bytes));
    FXI_TRY(fxi_stream_sync(ctx));
    fxi_parallel_copy_rows(ctx, dst->data, dst->stride, pin_out, dst_row, dst_row, rows);
    if (t) t->download_ms = fx_elapsed_ms(since, fx_time_ns());
    return FX_OK;
}

/* Device images: converted where they are, queued on the context's stream (the caller's
 * next fxkit call on the context sees the result). Rows must be tight: one kernel runs
 * over the samples as one array. */
static fx_status convert_device(fx_context *ctx, const fx_image *src, fx_image *dst, fx_timings *t)
{
    size_t src_row, dst_row, src_bytes, dst_bytes;
    FXI_TRY(check_images(ctx, src, dst, &src_row, &dst_row, &src_bytes, &dst_bytes));
    FXI_RETURN_IF(src->stride != src_row || dst->stride != dst_row, FX_EUNSUPPORTED,
                 "GPU convert: device images with padded rows (make them contiguous)");
    const size_t count = src_row / fx_sample_size(src->type) * (size_t)src->height;
    uint64_t since = fx_time_ns();
    FXI_TRY(fxi_cuda_convert_launch(ctx, src->data, src->type, dst->data, dst->type, count));
    return stage_end(ctx, t, t ? &t->compute_ms : NULL, &since);
}

fx_status fxi_gpu_image_convert(fx_context *ctx, const fx_image *src, fx_image *dst, fx_timings *t)
{
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    fx_status st = src->memory == FX_MEMORY_DEVICE ? convert_device(ctx, src, dst, t)
                                                   : convert_guarded(ctx, src, dst, t);
    fxi_device_leave(&guard);
    return st;
}
