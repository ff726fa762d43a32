/* Geometry and parameter packing of the GPU gain ramp, as plain C so that the
 * unit tests check what the kernel is handed (the kernel invents no index
 * arithmetic of its own). */
#include "normalize_gpu_plan.h"

size_t fxi_nm_ramp_blocks(size_t elements, int multiprocessors)
{
    if (elements == 0) return 0;
    const size_t needed = (elements + FXI_NM_RAMP_THREADS - 1) / FXI_NM_RAMP_THREADS;
    const size_t cap =
        (size_t)(multiprocessors > 0 ? multiprocessors : 1) * FXI_NM_RAMP_BLOCKS_PER_SM;
    return needed < cap ? needed : cap;
}

size_t fxi_nm_ramp_param_count(int channels, int gain_channels)
{
    return 2 * (size_t)gain_channels + (size_t)channels;
}

void fxi_nm_ramp_pack(const fxi_nm_ramp_frame *f, double *params)
{
    for (int g = 0; g < f->gain_channels; g++) {
        params[FXI_NM_RAMP_FROM(f->gain_channels, g)] = f->from[g];
        params[FXI_NM_RAMP_TO(f->gain_channels, g)] = f->to[g];
    }
    for (int c = 0; c < f->channels; c++)
        params[FXI_NM_RAMP_PROCESS(f->gain_channels, c)] = f->process[c] ? 1.0 : 0.0;
}
