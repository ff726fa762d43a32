/* Normalize's rates for FX_DEVICE_AUTO (normalize_cost.h).
 *
 * CPU: a stream runs on one thread (cpu_serial). 2.8 ns per sample: `fxkit normalize
 * --device cpu -t 1 --timings` on a 60 s stereo `fxkit gen audio` file (5.3 M samples,
 * compute 14.7 ms) on the 2-core development machine.
 *
 * GPU: the path measured in issue 25 took 328 ms for a 6-minute stereo file where the
 * CPU took 322 ms on the H200 machine: most of its time is host work that does not
 * scale with the multiprocessors (frame gains on the host, a synchronisation per batch).
 * FXI_NM_COST_GPU_NS_PER_SAMPLE keeps that ratio to this CPU rate. To be measured on
 * the H200 again when the GPU path changes (issue 25, item 3). */
#include <string.h>

#include "normalize/normalize_cost.h"

#define NS 1e-9
#define FXI_NM_COST_CPU_NS_PER_SAMPLE 2.8
#define FXI_NM_COST_GPU_NS_PER_SAMPLE (FXI_NM_COST_CPU_NS_PER_SAMPLE * 1.02)
#define FXI_NM_COST_GPU_FIXED_S 1e-3 /* pinned ring, streams, the first batch's wait */
#define FXI_NM_COST_NOMINAL_SECONDS 60
/* Samples travel as doubles both ways. */
#define FXI_NM_COST_BYTES_PER_SAMPLE 8

/* The whole-buffer GPU path (normalize_whole*.c): the samples go up packed in their
 * format's width (FXI_NM_COST_BYTES_PER_SAMPLE when they do not pack) and come back as
 * doubles; the host packs, unpacks and computes the frame gains on the context's
 * threads. Per sample of that host work and the fixed cost (launches, waits): to be
 * measured on the H200 (normalize_gpu_bench's nm_whole_* lines). */
#define FXI_NM_COST_WHOLE_GPU_NS_PER_SAMPLE 0.5
#define FXI_NM_COST_WHOLE_GPU_FIXED_S 2e-3

void fxi_normalize_whole_cost(int channels, uint64_t frames, int packed_bytes,
                              fxi_item_cost *out)
{
    fxi_normalize_cost(channels, 1, frames, out);
    const double samples = (double)frames * (double)channels;
    out->gpu_fixed_s = FXI_NM_COST_WHOLE_GPU_FIXED_S + samples * FXI_NM_COST_WHOLE_GPU_NS_PER_SAMPLE * NS;
    out->upload_bytes = (uint64_t)samples * (uint64_t)packed_bytes;
}

fx_device_kind fxi_normalize_whole_device(fx_context *ctx, int channels, uint64_t frames,
                                          int packed_bytes, char *why, size_t size)
{
    fxi_item_cost cost = {0};
    fxi_normalize_whole_cost(channels, frames, packed_bytes, &cost);
    return fxi_device_choose(ctx, &cost, false, NULL, why, size);
}

void fxi_normalize_cost(int channels, int rate, uint64_t frames, fxi_item_cost *out)
{
    memset(out, 0, sizeof *out);
    if (!frames) frames = (uint64_t)rate * FXI_NM_COST_NOMINAL_SECONDS;
    const double samples = (double)frames * (double)channels;
    const uint64_t bytes = frames * (uint64_t)channels * FXI_NM_COST_BYTES_PER_SAMPLE;
    out->cpu_thread_s = samples * FXI_NM_COST_CPU_NS_PER_SAMPLE * NS;
    out->cpu_serial = true;
    out->cpu_bytes = 2.0 * (double)bytes;
    out->gpu_sm_s = 0;
    out->gpu_fixed_s = FXI_NM_COST_GPU_FIXED_S + samples * FXI_NM_COST_GPU_NS_PER_SAMPLE * NS;
    out->upload_bytes = bytes;
    out->download_bytes = bytes;
    out->on_device = false;
}

fx_device_kind fxi_normalize_device(fx_context *ctx, int channels, int rate, uint64_t frames,
                                    char *why, size_t size)
{
    fxi_item_cost cost = {0};
    fxi_normalize_cost(channels, rate, frames, &cost);
    return fxi_device_choose(ctx, &cost, false, NULL, why, size);
}
