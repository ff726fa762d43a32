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
 * From filter_bench compute on the 2-core development machine (1 vs 2 threads:
 * 1.7-1.9x); to be measured on the H200 machine's 16 cores. */
#define FXI_CPU_THREAD_EFFICIENCY 0.85
/* Host memory bandwidth the CPU path cannot beat (bytes read + written per second):
 * equalize hsv on 10000x6000 (180 MB in, 180 MB out) took 8.9 ms on the H200
 * machine's 16 cores (issue 25), so at least 40 GB/s there. */
#define FXI_CPU_MEMORY_BYTES_PER_S 40e9
/* Waking the pool's threads for one run (src/core/pool.c; filter_tuning.h's
 * FXI_SERIAL_MAX_WORK measurement: ~10-15 us when asleep). */
#define FXI_CPU_POOL_WAKE_S 15e-6
/* A host image goes through pinned staging (packed on the CPU's threads, then DMA):
 * the host path moves its bytes at this share of the pinned copy rate. To be measured
 * on the H200 (equalize's upload from host memory: 25 GB/s against 54 GB/s pinned). */
#define FXI_GPU_STAGING_EFFICIENCY 0.5
/* Rates assumed when the measurement cannot run (H200, DESIGN.md: 54/55 GB/s pinned). */
#define FXI_GPU_DEFAULT_COPY_BYTES_PER_S 25e9
#define FXI_GPU_DEFAULT_MULTIPROCESSORS 132
/* What no GPU beats, for the choice made without measuring (a CPU estimate below the
 * GPU's best case goes to the CPU at once): twice an H200's multiprocessors, PCIe 6 x16. */
#define FXI_GPU_MAX_MULTIPROCESSORS 264
#define FXI_GPU_MAX_COPY_BYTES_PER_S 128e9

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
    bool on_device;          /* the item is in device memory: the GPU, always */
} fxi_item_cost;

typedef enum fxi_device_reason {
    FXI_REASON_CHEAPER = 0, /* the model's estimates */
    FXI_REASON_NO_GPU,      /* auto, but no usable GPU */
    FXI_REASON_ON_DEVICE,   /* the item lives in device memory */
    FXI_REASON_TINY,        /* the CPU estimate is below any GPU's best case */
    FXI_REASON_FORCED,      /* the context was created for one device */
    FXI_REASON_NEEDS_GPU,   /* what was asked runs only on the GPU */
    FXI_REASON_FALLBACK     /* the GPU ran out of memory: the CPU took the item */
} fxi_device_reason;

typedef struct fxi_device_estimate {
    fx_device_kind device; /* FX_DEVICE_CPU or FX_DEVICE_GPU */
    fxi_device_reason reason;
    double cpu_s, gpu_s; /* gpu_s includes pcie_s; 0 where not estimated */
    double pcie_s;
    uint64_t upload_bytes, download_bytes;
    double copy_bytes_per_s; /* the effective host-path rate used */
} fxi_device_estimate;

/* The CPU estimate of c on `threads` threads. */
double fxi_cpu_estimate_s(const fxi_item_cost *c, int threads);
/* The least c could take on any GPU (FXI_GPU_MAX_*): no rates needed. */
double fxi_gpu_best_case_s(const fxi_item_cost *c);
/* Both estimates and the choice. rates NULL: no GPU (the CPU). */
void fxi_device_estimate_make(const fxi_item_cost *c, int threads, const fx_gpu_rates *rates,
                              fxi_device_estimate *out);
/* "cpu (auto: cpu ~12 ms, gpu ~19 ms incl. PCIe 2 x 180 MB at 25 GB/s)". */
void fxi_device_estimate_text(const fxi_device_estimate *e, int gpu_index, char *buf, size_t size);

/* The device for item c on ctx, and its explanation in why (may be NULL): the
 * context's device unless it was created FX_DEVICE_AUTO with a usable GPU; then the
 * model (the GPU's rates measured on first need). needs_gpu: what was asked runs only
 * on the GPU (a GPU strategy): the GPU when there is one. */
fx_device_kind fxi_device_choose(fx_context *ctx, const fxi_item_cost *c, bool needs_gpu,
                                 fxi_device_estimate *e, char *why, size_t size);
/* True when ctx chooses item by item (FX_DEVICE_AUTO with a usable GPU). */
bool fxi_device_auto(const fx_context *ctx);
/* An auto item on the GPU ran out of memory: say so through the log (warning) and
 * record the fallback in e and why. */
void fxi_device_fallback(fx_context *ctx, const char *job, fxi_device_estimate *e, char *why,
                         size_t size);

#endif
