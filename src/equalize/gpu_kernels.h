/* The equalize kernels' launchers (equalize.cu), called by equalize_gpu.c.
 * Everything a kernel reads is in fxi_eq_kernel_args, computed on the host. */
#ifndef FXKIT_EQUALIZE_KERNELS_H
#define FXKIT_EQUALIZE_KERNELS_H

#include <math.h>
#include <stdint.h>

#include "gpu/gpu_internal.h"

#ifdef __cplusplus
/* equalize_internal.h has no C++ guards of its own; its system includes are above. */
extern "C" {
#endif
#include "equalize/equalize_internal.h"

/* The counters after the histograms (fxi_eq_kernel_args.hist_done), zero between launches:
 * the blocks done (the counting pass's last block; the fused launch's barrier); the fused
 * launch's readers of the histogram, and the units it has dealt to count and to map. */
enum fxi_eq_counter {
    FXI_EQ_BLOCKS_DONE = 0,
    FXI_EQ_FUSED_READERS = 1,
    FXI_EQ_COUNT_DEALT = 2,
    FXI_EQ_MAP_DEALT = 3,
    FXI_EQ_COUNTERS = 4
};

typedef struct fxi_eq_kernel_args {
    const uint8_t *in;
    size_t in_stride;
    uint8_t *out;
    size_t out_stride;
    int width, height, in_channels, is_u16, mode, planes, scale, adaptive;
    uint32_t maxval, level_bits, bins, clip_limit;
    fxi_clahe_grid grid;
    float inv_tile_w, inv_tile_h; /* 1.0f / tile size, as the CPU computes them */
    const uint8_t *mask;          /* width * height bytes or NULL */
    uint32_t *hist;               /* planes * tiles * bins, zeroed by the launcher */
    unsigned *hist_done;          /* after hist, FXI_EQ_COUNTERS words (fxi_eq_counter) */
    uint16_t *bin_lut;            /* planes * tiles * bins */
    uint16_t *value_lut;          /* planes << level_bits (global) */
    float *float_lut;             /* bins (hsv-float global) */
    int *identity;                /* planes: nothing to stretch */
    unsigned block;               /* threads per block */
    unsigned fused_blocks; /* the one-launch pass's grid (fxi_equalize_fused_blocks), 0: none */
    int *hist_zero;        /* host: hist and hist_done are zero now (no clearing needed) */
    fxi_kernel_graph *fused_graph; /* the one-launch pass's graph, the plan's */
} fxi_eq_kernel_args;

/* Histograms (per tile for CLAHE), the LUTs, then the mapping pass; queued on the
 * context's stream, the context's GPU current. */
fx_status fxi_equalize_launch(fx_context *ctx, const fxi_eq_kernel_args *args);

/* The pieces of that launch, for callers that interleave them with transfers (host
 * images: equalize_gpu.c). All with the context's GPU current; each queues its work
 * on `stream` (the context's stream where none is named) and returns. */

/* Whether args take the 8-bit fast path (both passes of equalize_math.h's
 * fxi_eq_u8_fast_path on FXI_EQ_FAST_MODES_GPU: u8, 256 bins, no mask, global; gray
 * with one channel, to-gray/hsv/luma/rgb/hsv-float with three): only then may the
 * *_rows pieces run. */
bool fxi_equalize_fast_path_gpu(const fxi_eq_kernel_args *args);
/* The grid of the one-launch global pass (count, LUT and map in one cooperative launch)
 * for args' image, or 0 where it does not apply (mode, block size, GPU); for the plan to
 * find once. The context's GPU current. */
unsigned fxi_equalize_fused_blocks(fx_context *ctx, const fxi_eq_kernel_args *args);
/* args->hist zeroed, on the context's stream. */
fx_status fxi_equalize_clear_launch(fx_context *ctx, const fxi_eq_kernel_args *args);
/* Fast path: rows [y0, y0 + rows) of the image counted into args->hist (added to
 * what is there: the bands of one image may be counted in any order, on any streams). */
fx_status fxi_equalize_fast_hist_launch(fx_context *ctx, const fxi_eq_kernel_args *args, int y0,
                                           int rows, cudaStream_t stream);
/* The LUTs from the complete args->hist (every mode). */
fx_status fxi_equalize_lut_launch(fx_context *ctx, const fxi_eq_kernel_args *args,
                                cudaStream_t stream);
/* Fast path: rows [y0, y0 + rows) of args->in mapped through the LUTs into the same
 * rows of args->out. */
fx_status fxi_equalize_fast_map_launch(fx_context *ctx, const fxi_eq_kernel_args *args, int y0,
                                          int rows, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
