/* fxkit — GPU discovery.
 *
 * In a build without CUDA, or on a machine without an NVIDIA GPU, fx_gpu_count
 * reports 0 GPUs and succeeds.
 */
#ifndef FXKIT_GPU_H
#define FXKIT_GPU_H

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_gpu_info {
    int index;
    char name[256];
    uint64_t total_memory;  /* bytes */
    uint64_t free_memory;   /* bytes, at the time of the query */
    int cc_major, cc_minor; /* compute capability, e.g. 9.0 */
    int multiprocessors;
    int driver_version; /* e.g. 13000 for 13.0; 0 when unknown */
    int runtime_version;
} fx_gpu_info;

/* 1 when the library was built with CUDA. */
FX_API int fx_gpu_built(void);
/* Number of usable GPUs (0 without CUDA or without a driver). ctx may be NULL; when
 * given, a failure other than "no device" leaves a detail there. */
FX_API fx_status fx_gpu_count(fx_context *ctx, int *count);
FX_API fx_status fx_gpu_info_get(fx_context *ctx, int index, fx_gpu_info *info);

/* What FX_DEVICE_AUTO's cost model knows of the context's GPU (docs/ALGORITHMS.md,
 * "Choosing the device"): copy rates timed once per process and GPU on first need (a
 * short pinned copy each way, FX_GPU_RATES_PROBE_BYTES, and one on the device), and
 * the multiprocessors from the device's properties. */
typedef struct fx_gpu_rates {
    double upload_bytes_per_s;   /* host -> device, from pinned memory */
    double download_bytes_per_s; /* device -> host, into pinned memory */
    double device_bytes_per_s;   /* a copy on the device (bytes read + written) */
    int multiprocessors;
    double measured_ms; /* how long the measurement took (0: assumed, not measured) */
} fx_gpu_rates;

#define FX_GPU_RATES_PROBE_BYTES ((size_t)8 << 20)

/* The rates of the context's GPU, measured on the first call in the process for that
 * GPU and cached. FX_ENODEVICE on a context without a GPU. */
FX_API fx_status fx_gpu_rates_get(fx_context *ctx, fx_gpu_rates *rates);

/* ---- streams, for bindings that exchange device memory with other libraries ----
 * (DLPack, __cuda_array_interface__): a GPU context queues its work on its own CUDA
 * stream, which these calls name, order after a producer's stream and wait for. */

/* The context's CUDA stream (a cudaStream_t); NULL on a CPU context, and on a GPU context
 * made with start_gpu_in_background whose start failed (fx_context_gpu_ready says why):
 * never pass that NULL on to CUDA, which would take it for the legacy default stream. */
FX_API void *fx_context_stream(const fx_context *ctx);
/* Queue the context's later work behind everything queued so far on `stream` (a
 * cudaStream_t of the context's GPU, or 0 for the legacy default stream) without
 * blocking the host. FX_ENODEVICE on a CPU context. */
FX_API fx_status fx_context_wait_stream(fx_context *ctx, void *stream);
/* Return when the work queued on the context's stream has finished (FX_OK at once on
 * a CPU context). */
FX_API fx_status fx_context_synchronize(fx_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
