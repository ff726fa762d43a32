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

size_t fxi_nm_ramp_param_count(size_t frames, int channels, int gain_channels)
{
    return (frames + 1) * (size_t)gain_channels + (size_t)channels;
}

size_t fxi_nm_batch_frames(size_t frame_samples)
{
    const size_t frames = frame_samples ? FXI_NM_BATCH_SAMPLES / frame_samples : 1;
    return frames > 0 ? frames : 1;
}

void fxi_nm_batch_describe(fxi_nm_ramp_batch *b, size_t frames, size_t length, size_t last_length,
                           int channels, int gain_channels, int ramp)
{
    b->frames = (uint32_t)frames;
    b->frame_samples = (uint32_t)(length * (size_t)channels);
    b->samples = (uint32_t)(((frames - 1) * length + last_length) * (size_t)channels);
    b->channels = channels;
    b->gain_channels = gain_channels;
    b->ramp = ramp;
    /* As the CPU ramp computes them: 1.0 / (double)length. */
    b->step = 1.0 / (double)length;
    b->last_step = 1.0 / (double)last_length;
}

void fxi_nm_batch_pack_process(const bool *process, int channels, int gain_channels, size_t frames,
                               double *params)
{
    double *flags = params + (frames + 1) * (size_t)gain_channels;
    for (int c = 0; c < channels; c++)
        flags[c] = process[c] ? 1.0 : 0.0;
}
