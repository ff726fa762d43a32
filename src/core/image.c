/* Image buffers: shapes, limits, allocation, sample conversion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device_cost.h"
#include "internal.h"

size_t fx_sample_size(fx_sample_type type)
{
    switch (type) {
    case FX_U8: return 1;
    case FX_U16: return 2;
    case FX_F32: return 4;
    default: return 0;
    }
}

const char *fx_sample_type_name(fx_sample_type type)
{
    switch (type) {
    case FX_U8: return "u8";
    case FX_U16: return "u16";
    case FX_F32: return "f32";
    default: return "unknown";
    }
}

fx_status fx_image_size(int width, int height, int channels, fx_sample_type type, size_t *stride,
                        size_t *bytes)
{
    size_t sample = fx_sample_size(type);
    if (width <= 0 || height <= 0 || channels < 1 || channels > FX_MAX_IMAGE_CHANNELS || !sample)
        return FX_EINVAL;
    size_t row, total;
    if (!fxi_mul3_size((size_t)width, (size_t)channels, sample, &row)) return FX_EOVERFLOW;
    if (!fxi_mul_size(row, (size_t)height, &total)) return FX_EOVERFLOW;
    if (stride) *stride = row;
    if (bytes) *bytes = total;
    return FX_OK;
}

fx_status fx_image_check_limits(fx_context *ctx, uint64_t width, uint64_t height, uint64_t channels)
{
    const fx_limits *lim = &ctx->limits;
    FXI_RETURN_IF(width == 0 || height == 0, FX_EFORMAT, "image size %llux%llu is empty",
                 (unsigned long long)width, (unsigned long long)height);
    FXI_RETURN_IF(channels < 1 || channels > FX_MAX_IMAGE_CHANNELS, FX_EUNSUPPORTED,
                 "%llu channels (fxkit images have 1 to %d)", (unsigned long long)channels,
                 FX_MAX_IMAGE_CHANNELS);
    FXI_RETURN_IF(channels > (uint64_t)lim->max_channels, FX_ELIMIT,
                 "%llu channels exceed the limit of %d", (unsigned long long)channels,
                 lim->max_channels);
    FXI_RETURN_IF(width > (uint64_t)lim->max_dimension || height > (uint64_t)lim->max_dimension,
                 FX_ELIMIT, "image size %llux%llu exceeds the limit of %d pixels a side",
                 (unsigned long long)width, (unsigned long long)height, lim->max_dimension);
    /* Both sides are below max_dimension (< 2^31), so the product fits in 64 bits. */
    FXI_RETURN_IF(width * height > lim->max_pixels, FX_ELIMIT,
                 "image size %llux%llu (%llu pixels) exceeds the limit of %llu pixels",
                 (unsigned long long)width, (unsigned long long)height,
                 (unsigned long long)(width * height), (unsigned long long)lim->max_pixels);
    return FX_OK;
}

/* Check a shape against the limits and fill in *img's description (no pixels yet):
 * *bytes is what its pixels take. On failure *img is zeroed. */
static fx_status describe(fx_context *ctx, fx_image *img, int width, int height, int channels,
                          fx_sample_type type, size_t *bytes)
{
    memset(img, 0, sizeof *img);
    FXI_RETURN_IF(width <= 0 || height <= 0, FX_EINVAL, "image size %dx%d is not positive", width,
                 height);
    FXI_RETURN_IF(!fx_sample_size(type), FX_EINVAL, "unknown sample type %d", (int)type);
    FXI_TRY(fx_image_check_limits(ctx, (uint64_t)width, (uint64_t)height, (uint64_t)channels));
    size_t stride;
    fx_status st = fx_image_size(width, height, channels, type, &stride, bytes);
    FXI_RETURN_IF(st != FX_OK, st, "image %dx%dx%d %s: size overflows", width, height, channels,
                 fx_sample_type_name(type));
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->stride = stride;
    return FX_OK;
}

fx_status fx_image_alloc(fx_context *ctx, fx_image *img, int width, int height, int channels,
                         fx_sample_type type)
{
    size_t bytes;
    FXI_TRY(describe(ctx, img, width, height, channels, type, &bytes));
    void *data;
    fx_status st = fxi_calloc(ctx, 1, bytes, &data);
    if (st != FX_OK) {
        memset(img, 0, sizeof *img);
        return st;
    }
    fxi_advise_huge_pages(data, bytes);
    img->data = data;
    return FX_OK;
}

void fx_image_free(fx_image *img)
{
    if (!img) return;
    if (img->memory == FX_MEMORY_DEVICE)
        fxi_gpu_image_free(img->data);
    else
        free(img->data);
    memset(img, 0, sizeof *img);
}

/* ---- device images ---- */

fx_status fx_image_alloc_device(fx_context *ctx, fx_image *img, int width, int height, int channels,
                                fx_sample_type type)
{
    memset(img, 0, sizeof *img);
    /* (A device image is a GPU request: it starts a pending auto context's GPU.) */
    FXI_RETURN_IF(!fxi_gpu_start(ctx), FX_ENODEVICE,
                 "a device image needs a GPU context (this one runs on the CPU)");
    size_t bytes;
    FXI_TRY(describe(ctx, img, width, height, channels, type, &bytes));
    img->memory = FX_MEMORY_DEVICE;
    fx_status st = fxi_gpu_image_alloc(ctx, img, bytes);
    if (st != FX_OK) memset(img, 0, sizeof *img);
    return st;
}

/* Both images have pixels, the same shape and type, strides that hold a row, and
 * live where the copy's direction says. */
static fx_status check_transfer(fx_context *ctx, const fx_image *src, const fx_image *dst,
                                fx_memory from, const char *what)
{
    FXI_RETURN_IF(!fxi_gpu_start(ctx), FX_ENODEVICE, "%s needs a GPU context", what);
    FXI_RETURN_IF(!src || !dst || !src->data || !dst->data, FX_EINVAL, "%s: image without pixels",
                 what);
    FXI_RETURN_IF(src->memory != from || dst->memory == from, FX_EINVAL,
                 "%s: the source must be a %s image and the destination a %s image", what,
                 from == FX_MEMORY_HOST ? "host" : "device",
                 from == FX_MEMORY_HOST ? "device" : "host");
    FXI_RETURN_IF(src->width != dst->width || src->height != dst->height ||
                     src->channels != dst->channels || src->type != dst->type,
                 FX_EINVAL, "%s: %dx%dx%d %s and %dx%dx%d %s differ in shape or type", what,
                 src->width, src->height, src->channels, fx_sample_type_name(src->type), dst->width,
                 dst->height, dst->channels, fx_sample_type_name(dst->type));
    size_t row;
    fx_status st = fx_image_size(src->width, src->height, src->channels, src->type, &row, NULL);
    FXI_RETURN_IF(st != FX_OK, st, "%s: bad image shape", what);
    FXI_RETURN_IF(src->stride < row || dst->stride < row, FX_EINVAL, "%s: stride shorter than a row",
                 what);
    return FX_OK;
}

fx_status fx_image_upload(fx_context *ctx, const fx_image *host, fx_image *device)
{
    FXI_TRY(check_transfer(ctx, host, device, FX_MEMORY_HOST, "upload"));
    return fxi_gpu_image_copy(ctx, host, device);
}

fx_status fx_image_download(fx_context *ctx, const fx_image *device, fx_image *host)
{
    FXI_TRY(check_transfer(ctx, device, host, FX_MEMORY_DEVICE, "download"));
    return fxi_gpu_image_copy(ctx, device, host);
}

/* Scale between 8 and 16 bits: 255 * 257 = 65535 maps full scale to full scale. */
#define U8_TO_U16_SCALE 257

static double sample_max(fx_sample_type type)
{
    return type == FX_U8 ? 255.0 : type == FX_U16 ? 65535.0 : 1.0;
}

static double load_sample(const uint8_t *row, size_t i, fx_sample_type type)
{
    switch (type) {
    case FX_U8: return row[i];
    case FX_U16: return ((const uint16_t *)(const void *)row)[i];
    default: return ((const float *)(const void *)row)[i];
    }
}

/* Round half to even (the default rounding mode) and saturate to [0, max]. */
static double saturate(double v, double max)
{
    if (!(v > 0)) return 0; /* also maps NaN to 0 */
    if (v > max) return max;
    return nearbyint(v);
}

typedef struct convert_job {
    const fx_image *src;
    fx_image *dst;
} convert_job;

/* Rows [begin, end) of one conversion. */
static void convert_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const convert_job *job = arg;
    const fx_image *src = job->src;
    fx_image *dst = job->dst;
    size_t n = (size_t)src->width * (size_t)src->channels;
    double smax = sample_max(src->type), dmax = sample_max(dst->type);
    for (int y = (int)begin; y < (int)end; y++) {
        const uint8_t *in = fx_image_row(src, y);
        uint8_t *out = fx_image_row(dst, y);
        for (size_t i = 0; i < n; i++) {
            double v = load_sample(in, i, src->type);
            switch (dst->type) {
            case FX_U8:
                out[i] = (uint8_t)(src->type == FX_U16 ? saturate(v / U8_TO_U16_SCALE, 255)
                                                       : saturate(v * dmax / smax, 255));
                break;
            case FX_U16:
                ((uint16_t *)(void *)out)[i] =
                    (uint16_t)(src->type == FX_U8 ? v * U8_TO_U16_SCALE
                                                  : saturate(v * dmax / smax, 65535));
                break;
            default: ((float *)(void *)out)[i] = (float)(v / smax); break;
            }
        }
    }
}

/* Rows per chunk handed to a thread: a few thousand samples amortise the hand-out. */
#define CONVERT_ROWS_PER_CHUNK 4

fx_status fx_image_convert(fx_context *ctx, const fx_image *src, fx_image *dst, fx_timings *timings)
{
    FXI_RETURN_IF(!src->data || !dst->data, FX_EINVAL, "convert: image without pixels");
    FXI_RETURN_IF(src->memory != dst->memory, FX_EINVAL,
                 "convert: a %s image into a %s image (give two host or two device images)",
                 src->memory == FX_MEMORY_DEVICE ? "device" : "host",
                 dst->memory == FX_MEMORY_DEVICE ? "device" : "host");
    FXI_RETURN_IF(src->memory == FX_MEMORY_DEVICE && !fxi_gpu_start(ctx), FX_ENODEVICE,
                 "convert: device images need a GPU context");
    FXI_RETURN_IF(src->width != dst->width || src->height != dst->height ||
                     src->channels != dst->channels,
                 FX_EINVAL, "convert: %dx%dx%d to %dx%dx%d changes the shape", src->width,
                 src->height, src->channels, dst->width, dst->height, dst->channels);
    /* FX_DEVICE_AUTO converts host images on the CPU: one pass over memory costs less
     * there than the trips over PCIe (core/device_cost.h's memory bandwidth against
     * its staged copy rate). */
    const bool on_gpu = ctx->device == FX_DEVICE_GPU &&
                        (src->memory == FX_MEMORY_DEVICE || !fxi_device_auto(ctx));
    if (on_gpu) return fxi_gpu_image_convert(ctx, src, dst, timings);
    uint64_t start = fx_time_ns();
    convert_job job = {src, dst};
    fxi_parallel_for(ctx, (size_t)src->height, CONVERT_ROWS_PER_CHUNK, convert_rows, &job);
    if (timings) timings->compute_ms += fx_elapsed_ms(start, fx_time_ns());
    return FX_OK;
}
