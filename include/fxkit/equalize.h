/* fxkit — histogram equalization: global (OpenCV's equalizeHist and the published
 * CDF scalers) and adaptive (CLAHE, OpenCV's createCLAHE), on gray and colour
 * images, 8- and 16-bit, with the same bytes on the CPU and the GPU.
 *
 * Plan once, run many: fx_equalize_plan_create checks the options against an image
 * shape, reads the mask and allocates everything; fx_equalize_run only computes.
 * The option table (fx_equalize_options_table) is the library's: the program's
 * parser, its --help and docs/OPTIONS.md come from it. docs/ALGORITHMS.md gives
 * every formula.
 */
#ifndef FXKIT_EQUALIZE_H
#define FXKIT_EQUALIZE_H

#include "image.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --space: where the histogram is taken on a colour image. Gray images (1 or 2
 * channels) are always equalized directly. Values are the table's choice indices. */
typedef enum fx_equalize_space {
    FX_EQ_SPACE_GRAY = 0,     /* colour converted to gray (OpenCV's weights), written gray */
    FX_EQ_SPACE_HSV = 1,      /* V = max(R,G,B) equalized, hue and saturation kept exactly */
    FX_EQ_SPACE_LUMA = 2,     /* Y of OpenCV's YCrCb, bytes identical to OpenCV's pipeline */
    FX_EQ_SPACE_RGB = 3,      /* each channel on its own (shifts hue) */
    FX_EQ_SPACE_HSV_FLOAT = 4 /* the published float RGB->HSV->RGB round trip */
} fx_equalize_space;

/* --scale: how the cumulative histogram becomes output levels. */
typedef enum fx_equalize_scale {
    FX_EQ_SCALE_MINMAX = 0, /* OpenCV's equalizeHist: first non-empty bin subtracted */
    FX_EQ_SCALE_MAX = 1,    /* cdf / N: the published "max absolute" scaler */
    FX_EQ_SCALE_MMS = 2,    /* (cdf - h[0]) / (N - h[0]): the published "min-max" scaler */
    FX_EQ_SCALE_MAS = 3     /* alias of FX_EQ_SCALE_MAX (the published name) */
} fx_equalize_scale;

typedef struct fx_equalize_options {
    fx_equalize_space space; /* hsv */
    int bins;                /* 2..65536; 0 = one per level for 8-bit, 4096 for 16-bit */
    fx_equalize_scale scale; /* minmax (global equalization) */
    int adaptive;            /* 1 = CLAHE */
    const char *tiles;       /* CLAHE tile grid "CxR" (columns x rows) */
    double clip;             /* CLAHE clip limit, OpenCV's meaning; 0 = no clipping */
    const char *mask;        /* file whose non-zero pixels build the histogram (NULL: all) */
    int gpu_block;           /* GPU threads per block; 0 = the tuned default */
    /* API only, not in the option table (a table row holds numbers and text, not
     * pixels): a mask already in memory (gray, 8 or 16 bits, the image's size). Wins
     * over `mask`; the command line reads --mask FILE once into it for the whole batch.
     * Borrowed: it must outlive the plan. */
    const fx_image *mask_image;
} fx_equalize_options;

/* The defaults, from the table. */
FX_API void fx_equalize_options_init(fx_equalize_options *opts);
/* The job's option table (ends with a NULL name); rows point into fx_equalize_options. */
FX_API const fx_option *fx_equalize_options_table(void);
/* Ranges, --tiles syntax and combinations (e.g. --mask with --adaptive), without an
 * image: FX_EINVAL or FX_ERANGE with a detail naming the option. */
FX_API fx_status fx_equalize_options_check(fx_context *ctx, const fx_equalize_options *opts);
/* Channels of the output for an input of `channels`: 1 or 2 for --space gray on a
 * colour image, else the input's. */
FX_API int fx_equalize_output_channels(const fx_equalize_options *opts, int channels);

typedef struct fx_equalize_plan fx_equalize_plan;

/* Plan for images of this shape and type (fx_image_desc_of gives an image's). u8 and
 * u16 images of 1 to 4 channels; at most 2^32 - 1 pixels. Reads opts->mask when given
 * (checked against the shape). The plan keeps ctx and uses its device (on an
 * FX_DEVICE_AUTO context with a GPU: the CPU or the GPU, whichever the cost model
 * expects to be faster for this shape; a device image given to a CPU plan moves it
 * to the GPU): run it on the context's thread only. */
FX_API fx_status fx_equalize_plan_create(fx_context *ctx, const fx_equalize_options *opts,
                                         const fx_image_desc *desc, fx_equalize_plan **out);
/* Equalize `in` into `out` (the plan's shape; out has fx_equalize_output_channels
 * channels; out may be in itself when the layouts are the same). Both host images
 * (any context), or both device images (a GPU context only).
 *
 * Completion: with host images the call returns when `out` holds the result (on a
 * GPU context they go up and come back in row bands through pinned staging
 * buffers). With device images the work is queued on the context's CUDA stream and
 * the call returns without waiting for it (so that the caller's next work queues
 * behind it): every later fxkit call on the same context sees the result
 * (fx_image_download waits for it; so does fx_image_free); code that reads `out`
 * by other means must synchronise with the context's stream first. With timings
 * the call waits for the GPU to measure the stage.
 *
 * When timings is not NULL the stages are added to it: compute_ms, and upload_ms
 * and download_ms for host images on a GPU (there the 8-bit global kernels count
 * and map each band as it crosses, so upload_ms holds the histogram pass, download_ms
 * the mapping pass, and compute_ms only the LUTs). */
FX_API fx_status fx_equalize_run(fx_equalize_plan *plan, const fx_image *in, fx_image *out,
                                 fx_timings *timings);
/* Safe with NULL. */
FX_API void fx_equalize_plan_free(fx_equalize_plan *plan);
/* What the plan does and on which device, and why (one line, for --explain), e.g.
 * "global on hsv, 256 bins; device: cpu (auto: cpu ~9 ms, gpu ~14 ms incl. PCIe
 * 2 x 180 MB at 27 GB/s)". On an FX_DEVICE_AUTO context the device is chosen per plan
 * by estimated cost (docs/ALGORITHMS.md, "Choosing the device"). */
FX_API const char *fx_equalize_plan_explain(const fx_equalize_plan *plan);

/* One call: plan, run, free. When out->data is NULL, *out is allocated with the
 * right shape where `in` lives (host or device); release it with fx_image_free. */
FX_API fx_status fx_equalize(fx_context *ctx, const fx_equalize_options *opts, const fx_image *in,
                             fx_image *out, fx_timings *timings);

#ifdef __cplusplus
}
#endif
#endif
