/* fx_gpu_rates_get: what FX_DEVICE_AUTO's cost model (core/device_cost.h) knows of a
 * GPU, measured once per process and GPU: FX_GPU_RATES_PROBE_BYTES copied host ->
 * device and back from pinned memory, and once on the device, each timed with events
 * on the context's stream after one untimed warm-up copy. The cache is the process's
 * (the rates belong to the machine, not to a context): a batch's workers, each with its
 * own context, measure once between them. */
#include <pthread.h>
#include <string.h>

#include "gpu/gpu_internal.h"

/* GPUs whose rates the process keeps; a GPU beyond them is measured per call. */
#define RATES_CACHE_GPUS 64
#define MS_PER_S 1e3

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static fx_gpu_rates cache[RATES_CACHE_GPUS];
static bool cached[RATES_CACHE_GPUS];

/* Milliseconds of one copy of `bytes` of `kind` on the context's stream. */
static fx_status time_copy(fx_context *ctx, void *dst, const void *src, size_t bytes,
                           enum cudaMemcpyKind kind, cudaEvent_t ev[2], float *ms)
{
    cudaStream_t stream = ctx->cuda->stream;
    FX_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream)); /* warm-up, untimed */
    FX_CUDA(cudaEventRecord(ev[0], stream));
    FX_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    FX_CUDA(cudaEventRecord(ev[1], stream));
    FX_CUDA(cudaEventSynchronize(ev[1]));
    FX_CUDA(cudaEventElapsedTime(ms, ev[0], ev[1]));
    return FX_OK;
}

static double rate_of(size_t bytes, float ms)
{
    return ms > 0 ? (double)bytes / ((double)ms / MS_PER_S) : 0;
}

static fx_status measure(fx_context *ctx, fx_gpu_rates *r)
{
    const uint64_t start = fx_time_ns();
    const size_t bytes = FX_GPU_RATES_PROBE_BYTES;
    void *host = NULL, *dev = NULL;
    size_t host_size = 0;
    cudaEvent_t ev[2] = {NULL, NULL};
    float up = 0, down = 0, on_device = 0;
    fx_status st = fxi_pinned_take(ctx, bytes, &host, &host_size);
    /* Two halves on the device: the device copy reads one and writes the other. */
    if (st == FX_OK) st = fxi_device_alloc(ctx, 2 * bytes, &dev);
    if (st == FX_OK && cudaEventCreate(&ev[0]) != cudaSuccess)
        st = fxi_error(ctx, FX_ECUDA, "cudaEventCreate failed");
    if (st == FX_OK && cudaEventCreate(&ev[1]) != cudaSuccess)
        st = fxi_error(ctx, FX_ECUDA, "cudaEventCreate failed");
    if (st == FX_OK) memset(host, 0, bytes); /* touched: no first-touch faults timed */
    if (st == FX_OK) st = time_copy(ctx, dev, host, bytes, cudaMemcpyHostToDevice, ev, &up);
    if (st == FX_OK) st = time_copy(ctx, host, dev, bytes, cudaMemcpyDeviceToHost, ev, &down);
    if (st == FX_OK)
        st = time_copy(ctx, (char *)dev + bytes, dev, bytes, cudaMemcpyDeviceToDevice, ev,
                       &on_device);
    for (int i = 0; i < 2; i++)
        if (ev[i]) (void)cudaEventDestroy(ev[i]);
    (void)fxi_stream_sync(ctx);
    fxi_device_free(ctx, dev);
    fxi_pinned_give(ctx, host, host_size);
    if (st != FX_OK) return st;
    r->upload_bytes_per_s = rate_of(bytes, up);
    r->download_bytes_per_s = rate_of(bytes, down);
    r->device_bytes_per_s = rate_of(2 * bytes, on_device);
    r->multiprocessors = ctx->cuda->multiprocessors;
    r->measured_ms = fx_elapsed_ms(start, fx_time_ns());
    return FX_OK;
}

fx_status fx_gpu_rates_get(fx_context *ctx, fx_gpu_rates *rates)
{
    FXI_RETURN_IF(!rates, FX_EINVAL, "fx_gpu_rates_get: NULL rates");
    memset(rates, 0, sizeof *rates);
    /* A pending auto context's GPU is started by the ask (its rates are what auto needs). */
    (void)fxi_gpu_start(ctx);
    FXI_TRY(fxi_cuda_require(ctx, "measuring the GPU's rates"));
    const int gpu = ctx->cuda->device;
    const bool cacheable = gpu >= 0 && gpu < RATES_CACHE_GPUS;
    /* Held while measuring: the other workers wait for the one measurement rather than
     * time their copies against each other's. */
    pthread_mutex_lock(&cache_lock);
    if (cacheable && cached[gpu]) {
        *rates = cache[gpu];
        pthread_mutex_unlock(&cache_lock);
        return FX_OK;
    }
    fxi_device_guard guard;
    fx_status st = fxi_device_enter(ctx, &guard);
    if (st == FX_OK) {
        st = measure(ctx, rates);
        fxi_device_leave(&guard);
    }
    if (st == FX_OK && cacheable) {
        cache[gpu] = *rates;
        cached[gpu] = true;
    }
    pthread_mutex_unlock(&cache_lock);
    return st;
}
