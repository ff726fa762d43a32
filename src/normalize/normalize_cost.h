/* The normalize job's side of FX_DEVICE_AUTO's cost model (core/device_cost.h): a
 * stream in seconds on one CPU thread (the stream runs on one) and on the GPU path.
 * Plain C, unit-tested with fixed rates (tests/unit/test_device_cost.c). */
#ifndef FXKIT_NORMALIZE_COST_H
#define FXKIT_NORMALIZE_COST_H

#include "core/device_cost.h"

/* frames 0: not known when the stream opens; a nominal length is assumed
 * (FXI_NM_COST_NOMINAL_SECONDS). */
void fxi_normalize_cost(int channels, int rate, uint64_t frames, fxi_item_cost *out);

/* The device for a stream on ctx, and why (see fxi_device_choose). */
fx_device_kind fxi_normalize_device(fx_context *ctx, int channels, int rate, uint64_t frames,
                                    char *why, size_t size);

/* The whole-buffer GPU path (fx_normalize_audio on a buffer whose samples pack in
 * packed_bytes each) against the CPU's stream. */
void fxi_normalize_whole_cost(int channels, uint64_t frames, int packed_bytes,
                              fxi_item_cost *out);
fx_device_kind fxi_normalize_whole_device(fx_context *ctx, int channels, uint64_t frames,
                                          int packed_bytes, char *why, size_t size);

#endif
