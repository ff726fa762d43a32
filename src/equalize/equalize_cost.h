/* The equalize job's side of FX_DEVICE_AUTO's cost model (core/device_cost.h): one
 * image in seconds of one CPU thread and of one GPU multiprocessor, by mode. Plain C,
 * unit-tested with fixed rates (tests/unit/test_device_cost.c). */
#ifndef FXKIT_EQUALIZE_COST_H
#define FXKIT_EQUALIZE_COST_H

#include "core/device_cost.h"

typedef struct fxi_equalize_work {
    int mode; /* fxi_eq_mode */
    bool adaptive;
    int width, height, in_channels, out_channels;
    fx_sample_type type;
    bool on_device;
} fxi_equalize_work;

void fxi_equalize_cost(const fxi_equalize_work *w, fxi_item_cost *out);

#endif
