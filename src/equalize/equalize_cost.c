/* Equalize's rates for FX_DEVICE_AUTO (equalize_cost.h).
 *
 * CPU, global equalization: nanoseconds per pixel on one thread, measured on the 2-core
 * development machine with build-dev/bench/equalize_bench IMAGE 1 5 [--space S] on a
 * 2048x2048 `fxkit gen image` photo: 8-bit RGB hsv 9.1 ms, luma 9.1, rgb 45, to gray 69;
 * gray 2.9 ms; 16-bit RGB hsv 44 ms. 16-bit images in other modes:
 * FXI_EQ_COST_WIDE_FACTOR (not measured beyond hsv).
 *
 * CPU, CLAHE: per pixel, plus per tile LUT entry (planes x tiles x bins: each is
 * cleared, counted into, clipped, redistributed and summed, and the interpolation's
 * four lookups a pixel spread over them). The general path is one code for 8 and 16
 * bits and takes the same time: equalize_bench --adaptive on the 2048x2048 photos
 * (2026-11-26, the dev machine loaded, ratios only): 8-bit RGB hsv 209.6 ms, 16-bit
 * 208.7 ms; 16-bit gray 153.5 (x 0.73); 16-bit rgb 298 (x 1.42); 8-bit gray, the fast
 * path (clahe_u8.c), 14.0 ms. Bins: 16-bit hsv 8x8 4096 -> 65536 bins 209 -> 313 ms,
 * 16x16 4096 -> 16384 -> 65536 bins 247 -> 300 -> 506 ms, 16-bit gray 16x16 65536 bins
 * 415 ms: 8-13 ns a LUT entry there. There, the general CLAHE ran at ~24 ns a pixel
 * unloaded; on the H200 machine's 16 threads it runs at about twice that per thread,
 * so the CLAHE rates below are that machine's, per thread (x 16 x
 * FXI_CPU_THREAD_EFFICIENCY): the fast gray path's eq_clahe_cpu_ms 15.3-16.6 ms
 * (gpu_jobs_bench 10000x6000, the H200 run r7 of 2026-11-26 08:05 in docs/BENCHMARKS.md)
 * is 3.8 ns, and x 14 (the dev machine's general / fast ratio) gives 53 ns for the
 * general path. Cross-check: device_auto's big16 CLAHE (the same run) took 530.6 ms on
 * the CPU per item, of which ~320 ms are the whole-file read and write of 720 MB (twice
 * big equalize hsv's 174 - 14 ms): ~210 ms for 60 M pixels on 16 threads, 53 ns. The
 * old rule (24 ns x the 16-bit factor 4.8 of global hsv) said 115 ns, 460 ms: auto then
 * started CUDA for this item (~300 ms, r7: 785 ms of wall time against the CPU's 539).
 *
 * GPU: seconds per pixel on one multiprocessor, from equalize hsv 10000x6000 on the
 * H200 (issue 25: 12.3 ms with 7.1 ms of upload and ~3.3 ms of download, so ~2 ms of
 * histogram and mapping for 60 M pixels on 132 SMs). CLAHE's general kernels
 * (eq_histogram, eq_lut, eq_map: 16-bit, masks, other bins, colour): FACTOR x that,
 * above what they measured for 8-bit gray (1.655 ms, 3.6 ns); 16-bit hsv to be measured
 * (gpu_jobs_bench's eq_clahe16_hsv_device_ms; 2 to 5 ms expected: 60 M pixels of three
 * 16-bit loads, four LUT lookups from L2 and three 64-bit divisions, 1.1 GB of traffic).
 * The 8-bit gray fast kernels: eq_clahe_device_ms 0.256 ms (r7). Bins: each tile
 * LUT entry is read three times by one block of eq_lut (a block a LUT: latency, not
 * bandwidth), and histograms of more than FXI_EQ_GPU_SHARED_HISTOGRAM_BYTES a tile are
 * counted with global atomics; both estimates, to be measured on the H200
 * (eq_clahe16_gray_bins65536_device_ms against eq_clahe16_gray_device_ms). */
#include <string.h>

#include "equalize/equalize_cost.h"
#include "equalize/equalize_internal.h"

#define NS 1e-9
#define FXI_EQ_COST_GRAY_NS 0.70
#define FXI_EQ_COST_HSV_NS 2.2
#define FXI_EQ_COST_LUMA_NS 2.2
#define FXI_EQ_COST_RGB_NS 10.6
#define FXI_EQ_COST_TO_GRAY_NS 16.5
#define FXI_EQ_COST_HSV_FLOAT_NS 10.0 /* not measured: about rgb's */
#define FXI_EQ_COST_WIDE_FACTOR 4.8   /* global 16-bit hsv / 8-bit hsv; not CLAHE's */

/* CLAHE on the CPU (the H200 machine's threads, above) */
#define FXI_EQ_COST_CLAHE_NS 53.0        /* general path, 8 or 16 bits, hsv */
#define FXI_EQ_COST_CLAHE_GRAY_FACTOR 0.73 /* gray through the general path */
#define FXI_EQ_COST_CLAHE_RGB_FACTOR 1.42  /* three planes */
#define FXI_EQ_COST_CLAHE_GRAY_U8_NS 3.8 /* the 8-bit gray fast path */
#define FXI_EQ_COST_CLAHE_ENTRY_NS 20.0  /* a tile LUT entry: the dev machine's ~10, x 2 */

#define FXI_EQ_COST_GPU_SM_NS 4.4 /* per pixel, one SM: 60e6 px in 2 ms on 132 SMs */
#define FXI_EQ_COST_GPU_CLAHE_FACTOR 4.0
#define FXI_EQ_COST_GPU_CLAHE_FAST_SM_NS 0.6 /* 8-bit gray: 0.256 ms x 132 SMs / 60e6 px */
/* Estimates, to be measured on the H200 (gpu_jobs_bench, the file's comment). */
#define FXI_EQ_COST_GPU_LUT_ENTRY_SM_NS 4.0   /* ~3 strided L2 reads an entry, one block a LUT */
#define FXI_EQ_COST_GPU_GLOBAL_HIST_SM_NS 4.0 /* a key counted with a global atomic */
#define FXI_EQ_COST_GPU_FIXED_S 150e-6 /* two passes, the LUT between, plan set-up */

#define DEFAULT_TILES 64 /* 8x8 */

static uint32_t bins_of(const fxi_equalize_work *w)
{
    if (w->bins) return w->bins;
    return w->type == FX_U8 ? FXI_EQ_U8_LEVELS : FXI_EQ_DEFAULT_BINS_U16;
}

static int planes_of(const fxi_equalize_work *w)
{
    return w->mode == FXI_EQ_MODE_RGB ? FXI_EQ_MAX_PLANES : 1;
}

double fxi_equalize_lut_entries(const fxi_equalize_work *w)
{
    if (!w->adaptive) return 0;
    const int tiles = w->tiles > 0 ? w->tiles : DEFAULT_TILES;
    return (double)planes_of(w) * (double)tiles * (double)bins_of(w);
}

/* The 8-bit gray CLAHE fast path on the CPU (clahe_u8.c: fxi_eq_clahe_u8_fast). */
static bool cpu_fast_gray_clahe(const fxi_equalize_work *w)
{
    return w->adaptive && w->mode == FXI_EQ_MODE_GRAY &&
           fxi_eq_u8_fast_path(FXI_EQ_FAST_COUNT, FXI_EQ_FAST_MODES_CPU, w->type == FX_U8, w->mode,
                               w->in_channels, bins_of(w), w->masked, w->adaptive);
}

/* Both GPU fast kernels (gpu_kernels.cu's fast_count and fast_clahe_map): every tile's
 * LUT in shared memory. */
static bool gpu_fast_gray_clahe(const fxi_equalize_work *w)
{
    const int tiles = w->tiles > 0 ? w->tiles : DEFAULT_TILES;
    return cpu_fast_gray_clahe(w) &&
           fxi_eq_clahe_luts_fit(tiles, FXI_EQ_GPU_CLAHE_LUT_SHARED_BYTES);
}

static double cpu_clahe_ns_per_pixel(const fxi_equalize_work *w)
{
    if (cpu_fast_gray_clahe(w)) return FXI_EQ_COST_CLAHE_GRAY_U8_NS;
    switch (w->mode) {
    case FXI_EQ_MODE_GRAY: return FXI_EQ_COST_CLAHE_NS * FXI_EQ_COST_CLAHE_GRAY_FACTOR;
    case FXI_EQ_MODE_RGB: return FXI_EQ_COST_CLAHE_NS * FXI_EQ_COST_CLAHE_RGB_FACTOR;
    default: return FXI_EQ_COST_CLAHE_NS; /* hsv; luma, to gray, hsv-float not measured */
    }
}

static double cpu_global_ns_per_pixel(const fxi_equalize_work *w)
{
    double ns;
    switch (w->mode) {
    case FXI_EQ_MODE_GRAY: ns = FXI_EQ_COST_GRAY_NS * (w->in_channels > 1 ? 1.5 : 1.0); break;
    case FXI_EQ_MODE_TO_GRAY: ns = FXI_EQ_COST_TO_GRAY_NS; break;
    case FXI_EQ_MODE_LUMA: ns = FXI_EQ_COST_LUMA_NS; break;
    case FXI_EQ_MODE_RGB: ns = FXI_EQ_COST_RGB_NS; break;
    case FXI_EQ_MODE_HSV_FLOAT: ns = FXI_EQ_COST_HSV_FLOAT_NS; break;
    default: ns = FXI_EQ_COST_HSV_NS; break;
    }
    return ns * (w->type == FX_U8 ? 1.0 : FXI_EQ_COST_WIDE_FACTOR);
}

/* One GPU multiprocessor's seconds for w's CLAHE. */
static double gpu_clahe_sm_s(const fxi_equalize_work *w, double pixels)
{
    if (gpu_fast_gray_clahe(w)) return pixels * FXI_EQ_COST_GPU_CLAHE_FAST_SM_NS * NS;
    double s = pixels * FXI_EQ_COST_GPU_SM_NS * FXI_EQ_COST_GPU_CLAHE_FACTOR * NS;
    /* eq_histogram counts in shared memory while a tile's histograms fit there. */
    const double hist_bytes = (double)planes_of(w) * (double)bins_of(w) * sizeof(uint32_t);
    if (hist_bytes > (double)FXI_EQ_GPU_SHARED_HISTOGRAM_BYTES)
        s += pixels * planes_of(w) * FXI_EQ_COST_GPU_GLOBAL_HIST_SM_NS * NS;
    return s;
}

void fxi_equalize_cost(const fxi_equalize_work *w, fxi_item_cost *out)
{
    memset(out, 0, sizeof *out);
    const double pixels = (double)w->width * (double)w->height;
    const uint64_t px = (uint64_t)w->width * (uint64_t)w->height;
    const uint64_t sample = fx_sample_size(w->type);
    /* The LUT entries' share runs on the tiles' threads: with fewer tiles than threads it
     * is estimated too low (a 1x1 grid of 65536 bins: ~1.3 ms of one thread's work taken
     * as spread over all), small beside the pixels' share of any image worth a choice. */
    const double entries = fxi_equalize_lut_entries(w);
    out->cpu_thread_s = w->adaptive ? pixels * cpu_clahe_ns_per_pixel(w) * NS +
                                          entries * FXI_EQ_COST_CLAHE_ENTRY_NS * NS
                                    : pixels * cpu_global_ns_per_pixel(w) * NS;
    out->upload_bytes = px * (uint64_t)w->in_channels * sample;
    out->download_bytes = px * (uint64_t)w->out_channels * sample;
    /* The histogram reads the image, the mapping reads it again and writes the output. */
    out->cpu_bytes = 2.0 * (double)out->upload_bytes + (double)out->download_bytes;
    out->gpu_sm_s = w->adaptive ? gpu_clahe_sm_s(w, pixels) +
                                      entries * FXI_EQ_COST_GPU_LUT_ENTRY_SM_NS * NS
                                : pixels * FXI_EQ_COST_GPU_SM_NS * NS;
    out->gpu_fixed_s = FXI_EQ_COST_GPU_FIXED_S;
    out->staging_bytes = (double)out->upload_bytes + (double)out->download_bytes;
    out->on_device = w->on_device;
}
