/* Equalize's rates for FX_DEVICE_AUTO (equalize_cost.h).
 *
 * CPU: nanoseconds per pixel on one thread, measured on the 2-core development machine
 * with build-dev/bench/equalize_bench IMAGE 1 5 [--space S | --adaptive] on a
 * 2048x2048 `fxkit gen image` photo: 8-bit RGB hsv 9.1 ms, luma 9.1, rgb 45, to gray 69,
 * CLAHE 101; gray 2.9 ms; 16-bit RGB hsv 44 ms. 16-bit images in other modes:
 * FXI_EQ_COST_WIDE_FACTOR (not measured beyond hsv).
 *
 * GPU: seconds per pixel on one multiprocessor, from equalize hsv 10000x6000 on the
 * H200 (issue 25: 12.3 ms with 7.1 ms of upload and ~3.3 ms of download, so ~2 ms of
 * histogram and mapping for 60 M pixels on 132 SMs); CLAHE's factor is an estimate. To
 * be measured on the H200. */
#include <string.h>

#include "equalize/equalize_cost.h"
#include "equalize/equalize_internal.h"

#define NS 1e-9
#define FXI_EQ_COST_GRAY_NS 0.70
#define FXI_EQ_COST_HSV_NS 2.2
#define FXI_EQ_COST_LUMA_NS 2.2
#define FXI_EQ_COST_RGB_NS 10.6
#define FXI_EQ_COST_TO_GRAY_NS 16.5
#define FXI_EQ_COST_HSV_FLOAT_NS 10.0 /* not measured: about rgb's */
#define FXI_EQ_COST_CLAHE_NS 24.0
#define FXI_EQ_COST_WIDE_FACTOR 4.8

#define FXI_EQ_COST_GPU_SM_NS 4.4   /* per pixel, one SM: 60e6 px in 2 ms on 132 SMs */
#define FXI_EQ_COST_GPU_CLAHE_FACTOR 4.0
#define FXI_EQ_COST_GPU_FIXED_S 150e-6 /* two passes, the LUT between, plan set-up */

static double cpu_ns_per_pixel(const fxi_equalize_work *w)
{
    if (w->adaptive) return FXI_EQ_COST_CLAHE_NS;
    switch (w->mode) {
    case FXI_EQ_MODE_GRAY: return FXI_EQ_COST_GRAY_NS * (w->in_channels > 1 ? 1.5 : 1.0);
    case FXI_EQ_MODE_TO_GRAY: return FXI_EQ_COST_TO_GRAY_NS;
    case FXI_EQ_MODE_LUMA: return FXI_EQ_COST_LUMA_NS;
    case FXI_EQ_MODE_RGB: return FXI_EQ_COST_RGB_NS;
    case FXI_EQ_MODE_HSV_FLOAT: return FXI_EQ_COST_HSV_FLOAT_NS;
    default: return FXI_EQ_COST_HSV_NS;
    }
}

void fxi_equalize_cost(const fxi_equalize_work *w, fxi_item_cost *out)
{
    memset(out, 0, sizeof *out);
    const double pixels = (double)w->width * (double)w->height;
    const uint64_t px = (uint64_t)w->width * (uint64_t)w->height;
    const uint64_t sample = fx_sample_size(w->type);
    const double wide = w->type == FX_U8 ? 1.0 : FXI_EQ_COST_WIDE_FACTOR;
    out->cpu_thread_s = pixels * cpu_ns_per_pixel(w) * wide * NS;
    out->upload_bytes = px * (uint64_t)w->in_channels * sample;
    out->download_bytes = px * (uint64_t)w->out_channels * sample;
    /* The histogram reads the image, the mapping reads it again and writes the output. */
    out->cpu_bytes = 2.0 * (double)out->upload_bytes + (double)out->download_bytes;
    out->gpu_sm_s = pixels * FXI_EQ_COST_GPU_SM_NS * NS *
                    (w->adaptive ? FXI_EQ_COST_GPU_CLAHE_FACTOR : 1.0);
    out->gpu_fixed_s = FXI_EQ_COST_GPU_FIXED_S;
    out->staging_bytes = (double)out->upload_bytes + (double)out->download_bytes;
    out->on_device = w->on_device;
}
