/* fxkit — image buffers.
 *
 * Pixels are interleaved (RGBRGB…), rows top to bottom, `stride` bytes apart
 * (stride >= width * channels * sample size). 8- and 16-bit samples are
 * unsigned integers; float samples are nominally in [0, 1].
 */
#ifndef FXKIT_IMAGE_H
#define FXKIT_IMAGE_H

#include "context.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fx_sample_type { FX_U8 = 1, FX_U16 = 2, FX_F32 = 3 } fx_sample_type;

#define FX_MAX_IMAGE_CHANNELS 4

/* Where an image's pixels live. */
typedef enum fx_memory {
    FX_MEMORY_HOST = 0,  /* ordinary host memory (the default of a zeroed fx_image) */
    FX_MEMORY_DEVICE = 1 /* device memory on the GPU of the context that made it */
} fx_memory;

typedef struct fx_image {
    uint8_t *data;     /* first byte of the top row */
    int width, height; /* pixels */
    int channels;      /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    fx_sample_type type;
    size_t stride;    /* bytes from one row to the next */
    fx_memory memory; /* FX_MEMORY_HOST unless made by fx_image_alloc_device */
} fx_image;

/* The shape and type of an image, without its pixels: what the image jobs plan for
 * (fx_filter_plan_create, fx_equalize_plan_create). */
typedef struct fx_image_desc {
    int width, height, channels;
    fx_sample_type type;
} fx_image_desc;

/* The shape and type of img. */
static inline fx_image_desc fx_image_desc_of(const fx_image *img)
{
    fx_image_desc d = {img->width, img->height, img->channels, img->type};
    return d;
}

/* Bytes per sample: 1, 2 or 4; 0 for an unknown type. */
FX_API size_t fx_sample_size(fx_sample_type type);
/* "u8", "u16", "f32". */
FX_API const char *fx_sample_type_name(fx_sample_type type);

/* Tight stride and total bytes for an image of this shape, overflow-checked:
 * FX_EINVAL for a non-positive size or bad channel count/type, FX_EOVERFLOW when
 * the product does not fit in size_t. Either output may be NULL. */
FX_API fx_status fx_image_size(int width, int height, int channels, fx_sample_type type,
                               size_t *stride, size_t *bytes);

/* Allocate a zeroed image of this shape (checked against the context's limits).
 * *img is overwritten; release with fx_image_free. */
FX_API fx_status fx_image_alloc(fx_context *ctx, fx_image *img, int width, int height, int channels,
                                fx_sample_type type);
/* Free the pixels of an image made by fx_image_alloc, fx_image_alloc_device or a
 * decoder; leaves *img zeroed. Safe on a zeroed image. A device image is freed on the
 * GPU it lives on after the work queued on it has finished. */
FX_API void fx_image_free(fx_image *img);

/* ---- images on the GPU ----
 * A device image (memory == FX_MEMORY_DEVICE) is allocated on the context's GPU with a
 * tight stride and zeroed. The jobs' _run calls accept it on a GPU context, so a caller
 * whose pixels already live on the GPU filters them with no transfer. These calls fail
 * with FX_ENODEVICE on a CPU context. */
FX_API fx_status fx_image_alloc_device(fx_context *ctx, fx_image *img, int width, int height,
                                       int channels, fx_sample_type type);
/* Copy a host image into a device image of the same shape and type (any strides).
 * Returns once the host image may be reused. */
FX_API fx_status fx_image_upload(fx_context *ctx, const fx_image *host, fx_image *device);
/* Copy a device image into a host image of the same shape and type (any strides).
 * Returns when the pixels are there. */
FX_API fx_status fx_image_download(fx_context *ctx, const fx_image *device, fx_image *host);

/* Check an image shape against the context's limits (FX_ELIMIT with a detail naming
 * the limit). Decoders call this before they allocate. */
FX_API fx_status fx_image_check_limits(fx_context *ctx, uint64_t width, uint64_t height,
                                       uint64_t channels);

/* Pointer to the first sample of row y. */
static inline void *fx_image_row(const fx_image *img, int y)
{
    return img->data + (size_t)y * img->stride;
}

/* Convert samples between types into an allocated dst of the same size and
 * channel count: u8<->u16 scale by 257, integer->f32 divides by the maximum,
 * f32->integer rounds half to even and saturates.
 *
 * Runs where the context runs: on the CPU's threads, or on its GPU (upload,
 * kernel, download) with byte-identical results; an FX_DEVICE_AUTO context converts
 * host images on the CPU (one pass over memory beats two trips over PCIe). On a GPU context src and dst may
 * both be device images with tight rows (fx_image_alloc_device's): converted on the
 * device, queued on the context's stream like a job's _run. When timings is not NULL, the
 * stages are measured into it (compute_ms on the CPU; upload_ms, compute_ms and
 * download_ms on a GPU). */
FX_API fx_status fx_image_convert(fx_context *ctx, const fx_image *src, fx_image *dst,
                                  fx_timings *timings);

#ifdef __cplusplus
}
#endif
#endif
