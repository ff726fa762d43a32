/* The GPU gain ramp's launch geometry and parameter block, and the per-element
 * work of one thread, shared by the C side (tests, the host launcher) and the
 * kernel (src/cuda/normalize.cu). The kernel reads everything it needs from the
 * parameter block: one double array of [from[G], to[G], process[C]] for G gain
 * channels (1 when coupled) and C channels. */
#ifndef FXKIT_NORMALIZE_GPU_PLAN_H
#define FXKIT_NORMALIZE_GPU_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "normalize_math.h"

/* 256 threads (8 warps) per block and at most 8 blocks per multiprocessor; each
 * thread strides over the rest, so a frame of any size is one launch. The ramp
 * is memory-bound: more blocks would not add bandwidth. */
#define FXI_NM_RAMP_THREADS 256
#define FXI_NM_RAMP_BLOCKS_PER_SM 8

#define FXI_NM_RAMP_FROM(gains, g) (g)
#define FXI_NM_RAMP_TO(gains, g) ((gains) + (g))
#define FXI_NM_RAMP_PROCESS(gains, c) (2 * (gains) + (c))

typedef struct fxi_nm_ramp_frame {
    int channels, gain_channels;
    const double *from, *to; /* per gain channel */
    const bool *process;     /* per channel */
} fxi_nm_ramp_frame;

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks for `elements` samples (frames x channels) on a GPU of that many SMs. */
size_t fxi_nm_ramp_blocks(size_t elements, int multiprocessors);
/* Doubles in the parameter block. */
size_t fxi_nm_ramp_param_count(int channels, int gain_channels);
void fxi_nm_ramp_pack(const fxi_nm_ramp_frame *f, double *params);

#ifdef __cplusplus
}
#endif

/* What the thread for element e (sample e / channels of the frame, channel
 * e % channels) writes: the sample times its gain, or the sample itself in a
 * channel that is not processed. The CPU ramp computes the same expression. */
static inline FX_HD double fxi_nm_ramp_element(const double *src, const double *params, size_t e,
                                               int channels, int gain_channels, size_t length,
                                               int ramp)
{
    const size_t i = e / (size_t)channels;
    const int c = (int)(e % (size_t)channels);
    if (params[FXI_NM_RAMP_PROCESS(gain_channels, c)] == 0.0) return src[e];
    const int g = gain_channels == 1 ? 0 : c;
    return src[e] * fxi_nm_gain_at(params[FXI_NM_RAMP_FROM(gain_channels, g)],
                                   params[FXI_NM_RAMP_TO(gain_channels, g)], i, length, ramp);
}

#endif
