/* The filter's per-strategy rates for FX_DEVICE_AUTO (filter_cost.h).
 *
 * CPU: nanoseconds per output sample on one thread, 8-bit samples, measured on the
 * 2-core development machine with
 *   build-dev/bench/filter_bench compute KERNEL 2048 2048 3 3 1 STRATEGY
 * (box:3 box 7.2 ms, gaussian:5 separable 3.7 ms, gaussian:31 separable 35 ms, sharpen
 * direct 16 ms over 12.6 M samples; 1024x1024x3 with random 7x7 and 25x25 integer
 * kernels: direct 23 and 110 ms, fft 43 ms). Direct costs less per tap once the taps
 * fill its vectors: a first rate up to FXI_COST_DIRECT_KNEE taps, a second beyond.
 * 16-bit and float samples lose the 8-bit narrow paths: FXI_COST_WIDE_FACTOR (the
 * H200 machine, bench/device_auto.py 2026-11-26 03:23: dense 15x15 direct on 10000x6000
 * RGB, 16-bit 421.8 ms against 8-bit 220.6 ms through files: 1.9).
 *
 * GPU: seconds on one multiprocessor; the core divides by the GPU's count. From the
 * 1-gigapixel gaussian:5 on the H200 (issue 25: compute 0.05 s for 3e9 samples x 10 taps
 * on 132 SMs: 4.5e9 taps per SM and second); box and fft relative to it are
 * estimates. Direct and the wide factor: H200, bench/device_auto.py, 2026-11-26 03:23
 * (10000x6000 RGB through files, less the whole-file, staging and first-use costs of
 * core/device_cost.h): dense 15x15 direct 8-bit ~70 ms (the separable rate per tap),
 * 16-bit ~140 ms (2x); dense 25x25 fft ~15 ms (the model's 17). The 8-bit fast kernels
 * of device images are faster still (not modelled: a device image stays on the GPU). */
#include <string.h>

#include <math.h>

#include "filter/filter_cost.h"

#define NS 1e-9
#define FXI_COST_DIRECT_NS_PER_TAP 0.15
#define FXI_COST_DIRECT_KNEE 64
#define FXI_COST_DIRECT_NS_PER_TAP_BEYOND 0.055
#define FXI_COST_SEPARABLE_NS_PER_TAP 0.045
#define FXI_COST_SEPARABLE_MIN_NS 0.3
#define FXI_COST_BOX_NS 0.56
#define FXI_COST_FFT_NS_PER_LOG2 0.63
#define FXI_COST_WIDE_FACTOR 1.9

/* GPU (see above). */
#define FXI_COST_GPU_TAPS_PER_SM_S 4.5e9
#define FXI_COST_GPU_DIRECT_SLOWDOWN 1.0 /* measured: direct's taps cost separable's */
#define FXI_COST_GPU_WIDE_FACTOR 2.0     /* 16-bit and float samples */
#define FXI_COST_GPU_BOX_TAPS 4          /* running sums: about 4 taps' work per output */
#define FXI_COST_GPU_FFT_TAPS_PER_LOG2 2 /* forward, product, inverse */
/* Launches, synchronisation and a plan's set-up (taps, streams, staging). */
#define FXI_COST_GPU_FIXED_S 150e-6

static double cpu_ns_per_sample(const fxi_filter_work *w, double samples)
{
    switch (w->strategy) {
    case FX_STRATEGY_BOX: return FXI_COST_BOX_NS;
    case FX_STRATEGY_SEPARABLE: {
        double ns = FXI_COST_SEPARABLE_NS_PER_TAP * (w->kw + w->kh);
        return ns > FXI_COST_SEPARABLE_MIN_NS ? ns : FXI_COST_SEPARABLE_MIN_NS;
    }
    case FX_STRATEGY_FFT: return FXI_COST_FFT_NS_PER_LOG2 * log2(samples > 2 ? samples : 2);
    default: {
        const int taps = w->nonzero > 0 ? w->nonzero : 1;
        if (taps <= FXI_COST_DIRECT_KNEE) return FXI_COST_DIRECT_NS_PER_TAP * taps;
        return FXI_COST_DIRECT_NS_PER_TAP * FXI_COST_DIRECT_KNEE +
               FXI_COST_DIRECT_NS_PER_TAP_BEYOND * (taps - FXI_COST_DIRECT_KNEE);
    }
    }
}

static double gpu_taps_per_sample(const fxi_filter_work *w, double samples)
{
    switch (w->strategy) {
    case FX_STRATEGY_BOX: return FXI_COST_GPU_BOX_TAPS;
    case FX_STRATEGY_SEPARABLE: return w->kw + w->kh;
    case FX_STRATEGY_FFT:
        return FXI_COST_GPU_FFT_TAPS_PER_LOG2 * log2(samples > 2 ? samples : 2);
    default: return FXI_COST_GPU_DIRECT_SLOWDOWN * (w->nonzero > 0 ? w->nonzero : 1);
    }
}

void fxi_filter_cost(const fxi_filter_work *w, fxi_item_cost *out)
{
    memset(out, 0, sizeof *out);
    const double pixels = (double)w->desc.width * (double)w->desc.height;
    const double samples = pixels * (w->filter_channels > 0 ? w->filter_channels : 1);
    const uint64_t bytes = (uint64_t)w->desc.width * (uint64_t)w->desc.height *
                           (uint64_t)w->desc.channels * fx_sample_size(w->desc.type);
    const double wide = w->desc.type == FX_U8 ? 1.0 : FXI_COST_WIDE_FACTOR;
    out->cpu_thread_s = samples * cpu_ns_per_sample(w, samples) * wide * NS;
    out->cpu_bytes = 2.0 * (double)bytes;
    const double gpu_wide = w->desc.type == FX_U8 ? 1.0 : FXI_COST_GPU_WIDE_FACTOR;
    out->gpu_sm_s =
        samples * gpu_taps_per_sample(w, samples) * gpu_wide / FXI_COST_GPU_TAPS_PER_SM_S;
    out->gpu_fixed_s = FXI_COST_GPU_FIXED_S;
    out->upload_bytes = bytes;
    out->download_bytes = bytes;
    out->staging_bytes = 2.0 * (double)bytes; /* packed on the way up, unpacked down */
    out->stream_bytes = w->streamed ? 2.0 * (double)bytes : 0;
    /* The GPU's own bands (stream.c's auto_band), the file read into pinned buffers. */
    out->gpu_banded = w->streamed && bytes > FX_FILTER_STREAM_GPU_ABOVE_BYTES;
    out->on_device = w->on_device;
}
