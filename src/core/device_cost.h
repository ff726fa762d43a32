/* FX_DEVICE_AUTO's choice of device, item by item, by estimated cost.
 *
 * Each job describes one item (a plan's image, a normalize stream) as an fxi_item_cost:
 * its arithmetic on one CPU thread and on one GPU multiprocessor (the jobs' own
 * *_cost.c hold their per-strategy rates), the bytes it moves over PCIe when it lives
 * in host memory, and the GPU's fixed costs. The core turns that into two estimates,
 * with the context's CPU threads and the GPU's measured rates (fx_gpu_rates_get: a
 * short timed pinned copy each way, once per process and GPU), and picks the smaller.
 * An item in device memory always stays on the GPU.
 *
 * fxi_device_estimate_make and fxi_device_estimate_text are pure (unit-tested with
 * fixed rates); fxi_device_choose applies them on a context. */
#ifndef FXKIT_DEVICE_COST_H
#define FXKIT_DEVICE_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxkit/fxkit.h"

/* ---- the core's own constants (the jobs' rates are in their *_cost.c) ---- */

/* CPU threads do not scale perfectly (shared memory bandwidth, the last chunk's wait).
 * On the H200 machine's 16 cores (bench/device_auto.py, 2026-11-26 03:23): dense 15x15
 * direct on 10000x6000 RGB took 220.6 ms through files (decode and encode overlapped),
 * against the dev machine's per-tap rate / (16 x 0.85) = 244 ms: 0.94. */
#define FXI_CPU_THREAD_EFFICIENCY 0.94
/* Host memory bandwidth the CPU path cannot beat (bytes read + written per second):
 * equalize hsv on 10000x6000 (180 MB in, 180 MB out) took 8.9 ms on the H200
 * machine's 16 cores (issue 25), so at least 40 GB/s there. */
#define FXI_CPU_MEMORY_BYTES_PER_S 40e9
/* Waking the pool's threads for one run (src/core/pool.c; filter_tuning.h's
 * FXI_SERIAL_MAX_WORK measurement: ~10-15 us when asleep). */
#define FXI_CPU_POOL_WAKE_S 15e-6
/* ---- measured on the H200 machine (H200, bench/device_auto.py, 2026-11-26 03:23:
 * /work/notes/s4/auto_r2.log; pinned 53.6 GB/s up, 54.3 GB/s down, 132 SMs) ---- */

/* The GPU path of a host image is serial: the context's threads pack the image into
 * pinned staging (every byte read and written once, at FXI_CPU_MEMORY_BYTES_PER_S),
 * the copies cross PCIe at the measured pinned rates, then the result is unpacked the
 * same way. 10000x6000 RGB equalize hsv: GPU - CPU = 43 ms per item, of which PCIe is
 * 6.7 ms and packing + unpacking 2 x 360 MB at 40 GB/s = 18 ms; the rest is the first
 * use below. */
/* A context's first GPU item makes its pinned blocks and grows the device memory pool
 * (cudaHostAlloc, cudaMallocAsync): FXI_GPU_FIRST_USE_S plus the item's staging bytes
 * (up + down, at most FXI_GPU_FIRST_USE_MAX_BYTES: the blocks are reused whatever the
 * image) at FXI_GPU_FIRST_USE_BYTES_PER_S. Contexts that start together (a batch's
 * workers, one per CPU share) take turns in the driver: the i-th waits for the i - 1
 * before it, (workers + 1) / 2 set-ups on average. Fit to 16 one-thread workers: 16 x 20 s
 * stereo clips, whole-buffer normalize (17.6 MB staged): 83 ms per clip on the GPU against
 * 18 ms on the CPU, ~7.8 ms of set-up each; 64 x 320x240 RGB dense 15x15 (0.46 MB): ~1.9 ms
 * each; and the 43 ms above (one context: ~17 ms). */
#define FXI_GPU_FIRST_USE_S 1.7e-3
#define FXI_GPU_FIRST_USE_BYTES_PER_S 2.8e9
#define FXI_GPU_FIRST_USE_MAX_BYTES 44e6
/* An image streamed from a file to a file (fx_filter_file, fx_filter_stream): the CPU
 * path filters bands while a reader thread decodes ahead and a writer thread encodes,
 * so its time is the larger of its arithmetic and the file bytes (in + out) at
 * FXI_STREAM_BANDED_BYTES_PER_S (box:3, gaussian:5 and :31 on 10000x6000 RGB PPM: 62-75
 * ms for 360 MB); so does the GPU path of an item that streams in the GPU's bands
 * (gpu_banded: the filter's images above FX_FILTER_STREAM_GPU_ABOVE_BYTES), with no
 * packing. A GPU path that takes whole images decodes the whole image first and encodes it
 * after, at FXI_STREAM_WHOLE_BYTES_PER_S (equalize hsv, which reads and writes whole
 * images on both devices: 159 ms on the CPU, 14 of them arithmetic: 145 ms for 360 MB). */
#define FXI_STREAM_BANDED_BYTES_PER_S 5.3e9
#define FXI_STREAM_WHOLE_BYTES_PER_S 2.5e9
/* Rates assumed when the measurement cannot run (H200, DESIGN.md: 54/55 GB/s pinned). */
#define FXI_GPU_DEFAULT_COPY_BYTES_PER_S 50e9
/* CUDA's start in a process (the driver, the primary context, the first stream), paid by
 * the first item of an auto process that takes the GPU: on the H200 machine (16 cores,
 * bench/device_auto.py, 2026-11-26 06:13) a process of tiny items took 340-390 ms more on
 * `--device gpu` than on `cpu` (64 thumbnails 365 against 25 ms, 16 clips 415 against 29);
 * single items the GPU computes 10-30% faster lost 235-358 ms of wall time under auto
 * without it counted (10000x6000 dense 25x25 fft, 16-bit CLAHE). */
#define FXI_GPU_PROCESS_START_S 0.30
#define FXI_GPU_DEFAULT_MULTIPROCESSORS 132
/* What no GPU beats, for the choice made without measuring (a CPU estimate below the
 * GPU's best case goes to the CPU at once): twice an H200's multiprocessors, PCIe 6 x16,
 * no packing, no first use. */
#define FXI_GPU_MAX_MULTIPROCESSORS 264
#define FXI_GPU_MAX_COPY_BYTES_PER_S 128e9
/* What every GPU's pinned copies beat (PCIe 3 x16 in practice), for a GPU choice made
 * without measuring: the GPU estimate at this rate, with the context's own
 * multiprocessors, below the CPU's. */
#define FXI_GPU_MIN_COPY_BYTES_PER_S 12e9

/* One item, as its job describes it. */
typedef struct fxi_item_cost {
    double cpu_thread_s;     /* the item's work on one CPU thread, seconds */
    bool cpu_serial;         /* it runs on one thread whatever the context has */
    double cpu_bytes;        /* host bytes read + written by the CPU path */
    double gpu_sm_s;         /* its arithmetic on one GPU multiprocessor, seconds */
    double gpu_fixed_s;      /* what does not scale with the multiprocessors: launches,
                              * synchronisations, plan set-up, host work of the GPU path */
    uint64_t upload_bytes;   /* host -> device when the item lives in host memory */
    uint64_t download_bytes; /* device -> host */
    double staging_bytes;    /* bytes the host packs into pinned staging and unpacks from
                              * it (0: the job's gpu_fixed_s holds its own host work) */
    double stream_bytes;     /* file bytes decoded + encoded when the item streams from a
                              * file to a file (FXI_STREAM_*); 0 for an image in memory */
    bool gpu_banded;         /* the GPU path streams that file in pinned bands too: no
                              * packing, the file at FXI_STREAM_BANDED_BYTES_PER_S */
    bool on_device;          /* the item is in device memory: the GPU, always */
} fxi_item_cost;

/* What the model knows of the context an item runs on. */
typedef struct fxi_device_setting {
    int threads;         /* its CPU threads */
    int workers;         /* contexts expected to start on the GPU together: the machine's CPUs
                          * over the context's threads (a batch of one-thread workers: the CPUs) */
    bool gpu_warm;       /* an earlier item of the context went to the GPU: the first use is paid */
    int multiprocessors; /* its GPU's, when known without measuring (0: not known) */
    double batch_share;  /* the item's bytes over its batch's (fx_context_options.batch_bytes):
                          * its share of CUDA's start, and workers x that of the context's
                          * first use (at most all of either); 0: the item alone, all */
} fxi_device_setting;

typedef enum fxi_device_reason {
    FXI_REASON_CHEAPER = 0, /* the model's estimates */
    FXI_REASON_NO_GPU,      /* auto, but no usable GPU */
    FXI_REASON_ON_DEVICE,   /* the item lives in device memory */
    FXI_REASON_TINY,        /* the CPU estimate is below any GPU's best case */
    FXI_REASON_FORCED,      /* the context was created for one device */
    FXI_REASON_NEEDS_GPU,   /* what was asked runs only on the GPU */
    FXI_REASON_FALLBACK,    /* the GPU ran out of memory: the CPU took the item */
    FXI_REASON_BOUND,       /* the CPU estimate is below the GPU's least cost on this
                             * context: its best case plus the host work and first use
                             * that no copy rate changes (no measuring needed) */
    FXI_REASON_SURE,        /* the GPU's estimate at FXI_GPU_MIN_COPY_BYTES_PER_S is below
                             * the CPU's (no measuring needed) */
    FXI_REASON_ASSUMED      /* a GPU not started yet would lose even at the rates assumed
                             * without measuring (FXI_GPU_DEFAULT_*): it is not started */
} fxi_device_reason;

typedef struct fxi_device_estimate {
    fx_device_kind device; /* FX_DEVICE_CPU or FX_DEVICE_GPU */
    fxi_device_reason reason;
    double cpu_s, gpu_s; /* gpu_s includes pcie_s, staging_s, stream_s, first_use_s, start_s;
                          * 0 where not estimated */
    double pcie_s;
    double staging_s;   /* packing into and unpacking from pinned staging */
    double stream_s;    /* the file decoded and encoded: whole, before and after, or in
                         * bands (stream_banded) */
    bool stream_banded;
    double first_use_s; /* the context's first GPU use (0 when warm) */
    double start_s;     /* CUDA's start in this process (0 once a context started a GPU) */
    uint64_t upload_bytes, download_bytes;
    double copy_bytes_per_s; /* the pinned copy rate used (mean of up and down) */
} fxi_device_estimate;

/* The CPU estimate of c on `threads` threads. */
double fxi_cpu_estimate_s(const fxi_item_cost *c, int threads);
/* The least c could take on any GPU (FXI_GPU_MAX_*): no rates needed. */
double fxi_gpu_best_case_s(const fxi_item_cost *c);
/* The first GPU use of a cold context among s->workers starting together (0 when warm). */
double fxi_gpu_first_use_s(const fxi_item_cost *c, const fxi_device_setting *s);
/* CUDA's start in a process (FXI_GPU_PROCESS_START_S), as much of it as an item of s
 * carries. */
double fxi_gpu_process_start_s(const fxi_device_setting *s);
/* The least c could take on any GPU from a context s: fxi_gpu_best_case_s (with s's
 * multiprocessors where known) plus the host work (packing, the whole file) and the
 * first use, which no GPU's rates change. Fills e's staging_s, stream_s, first_use_s and
 * gpu_s (the bound). */
double fxi_gpu_least_on_s(const fxi_item_cost *c, const fxi_device_setting *s,
                          fxi_device_estimate *e);
/* Both estimates and the choice. rates NULL: no GPU (the CPU). */
void fxi_device_estimate_make(const fxi_item_cost *c, const fxi_device_setting *s,
                              const fx_gpu_rates *rates, fxi_device_estimate *out);
/* "cpu (auto: cpu ~12 ms, gpu ~44 ms incl. PCIe 2 x 180 MB at 54 GB/s, packing 18 ms,
 * first GPU use 17 ms)". */
void fxi_device_estimate_text(const fxi_device_estimate *e, int gpu_index, char *buf, size_t size);

/* The device for item c on ctx, and its explanation in why (may be NULL): the
 * context's device unless it was created FX_DEVICE_AUTO with a usable GPU; then the
 * model (the GPU's rates measured on first need). A pending auto context (no GPU looked
 * for yet: fxi_gpu_start) takes the CPU without any CUDA call when c's CPU estimate is
 * below the least any GPU could cost it; otherwise its GPU is started here, once. needs_gpu: what was asked runs only
 * on the GPU (a GPU strategy): the GPU when there is one. A GPU choice marks the
 * context warm (its later items pay no first use). */
fx_device_kind fxi_device_choose(fx_context *ctx, const fxi_item_cost *c, bool needs_gpu,
                                 fxi_device_estimate *e, char *why, size_t size);
/* fxi_device_choose's choice without its mark: what an item would get (a what-if, e.g.
 * fx_filter_band_rows), the context left as it was (but for the GPU's start, as above). */
fx_device_kind fxi_device_predict(fx_context *ctx, const fxi_item_cost *c, bool needs_gpu,
                                  fxi_device_estimate *e);
/* Take a choice made for a larger whole (a file's bands take the file's choice) as the
 * item's: copied into e (may be decided itself), the context marked, why written. */
void fxi_device_adopt(fx_context *ctx, const fxi_device_estimate *decided, fxi_device_estimate *e,
                      char *why, size_t size);
/* True when ctx chooses item by item: FX_DEVICE_AUTO with a usable GPU, or whose GPU
 * has not been looked for yet (fxi_gpu_possible). Never calls CUDA. */
bool fxi_device_auto(const fx_context *ctx);
/* An auto item on the GPU ran out of memory: say so through the log (warning) and
 * record the fallback in e and why. */
void fxi_device_fallback(fx_context *ctx, const char *job, fxi_device_estimate *e, char *why,
                         size_t size);

#endif
