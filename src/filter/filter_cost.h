/* The filter job's side of FX_DEVICE_AUTO's cost model (core/device_cost.h): one
 * plan's item in seconds of one CPU thread and of one GPU multiprocessor, by strategy,
 * kernel and image. Plain C, unit-tested with fixed rates (tests/unit/test_device_cost.c). */
#ifndef FXKIT_FILTER_COST_H
#define FXKIT_FILTER_COST_H

#include "core/device_cost.h"

typedef struct fxi_filter_work {
    fx_filter_strategy strategy; /* resolved: direct, separable, box or fft */
    int kw, kh, nonzero;         /* the kernel's size and non-zero taps */
    fx_image_desc desc;
    int filter_channels; /* channels filtered (an alpha kept is only copied) */
    bool on_device;      /* the image lives in device memory */
    bool streamed;       /* from a file to a file in bands (fx_filter_file's choice of
                          * bands: FXI_STREAM_* in core/device_cost.h) */
} fxi_filter_work;

void fxi_filter_cost(const fxi_filter_work *w, fxi_item_cost *out);

#endif
