/* The equalize job's side of FX_DEVICE_AUTO's cost model (core/device_cost.h): one
 * image in seconds of one CPU thread and of one GPU multiprocessor, by mode, depth and,
 * for CLAHE, the number of tile LUT entries (planes x tiles x bins). Plain C,
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
    uint32_t bins; /* the plan's bins; 0: the type's default (256 for 8-bit, 4096 for 16-bit) */
    int tiles;     /* CLAHE tiles (columns x rows); 0: the default 8x8 */
    bool masked;   /* a mask limits the counting (no 8-bit fast counting pass) */
} fxi_equalize_work;

void fxi_equalize_cost(const fxi_equalize_work *w, fxi_item_cost *out);

/* CLAHE's tile LUT entries of w (planes x tiles x bins, defaults resolved); 0 for
 * global equalization. */
double fxi_equalize_lut_entries(const fxi_equalize_work *w);

#endif
