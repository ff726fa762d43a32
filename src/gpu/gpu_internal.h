/* GPU plumbing shared by the library's CUDA files (and GPU tests).
 *
 * Usable from C: the functions take and return plain types only; CUDA types
 * appear only inside struct fxi_cuda_state, which C callers treat as opaque.
 * cuda_runtime_api.h is a C header, so C files in src/gpu and the jobs' *_cuda.c may call the runtime
 * directly and use FX_CUDA.
 *
 * Rules kept here for the whole GPU side:
 * - all work goes to the context's own stream (non-blocking, so it never
 *   synchronises with the legacy default stream); only that stream is ever
 *   synchronised (no cudaDeviceSynchronize);
 * - every entry point that touches the GPU runs between fxi_device_enter and
 *   fxi_device_leave, which select the context's GPU and restore the caller's
 *   current device afterwards: the library leaves no cudaSetDevice behind;
 * - every failed CUDA call becomes an fx_status with a detail naming the call,
 *   its error name and message, and the GPU.
 */
#ifndef FXKIT_GPU_INTERNAL_H
#define FXKIT_GPU_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "fxkit/fxkit.h"
#include "gpu/gpu_tuning.h"

#ifdef __cplusplus
/* core/internal.h has no C++ guards of its own; its includes are above, so only
 * its declarations land inside this block. */
extern "C" {
#endif
#include "core/internal.h"

/* Buffers that a context keeps between calls and grows on demand (released with
 * the context): an input and an output buffer of each kind are enough for a
 * one-input, one-output job. */
typedef enum fxi_buffer_slot {
    FXI_BUFFER_IN = 0,
    FXI_BUFFER_OUT = 1,
    FXI_BUFFER_SLOTS
} fxi_buffer_slot;

typedef struct fxi_buffer {
    void *ptr;
    size_t size;
} fxi_buffer;

struct fxi_cuda_state {
    int device;          /* the GPU this context works on */
    cudaStream_t stream; /* all of the context's work, non-blocking */
    int multiprocessors; /* cached: launch geometry scales with it */
    int cc_major, cc_minor;
    int memory_pools; /* stream-ordered allocation supported (else cudaMalloc) */
    int cooperative;  /* cooperative launches (every block of a grid resident together) */
    fxi_buffer device_buffers[FXI_BUFFER_SLOTS]; /* stream-ordered device memory */
    fxi_buffer pinned_buffers[FXI_BUFFER_SLOTS]; /* page-locked host staging */
    /* the pinned pool's free blocks (pinned_pool.c): pinned_free[0..pinned_free_count) */
    fxi_buffer pinned_free[FXI_PINNED_POOL_BLOCKS];
    int pinned_free_count;
};

/* ---- errors ---- */

/* Record a failed CUDA call: FX_ENOMEM for cudaErrorMemoryAllocation, FX_ECUDA
 * otherwise, with "CALL failed on GPU N: cudaErrorName (message)". Clears the
 * runtime's last-error state so the next call does not see a stale error. */
fx_status fxi_cuda_error(fx_context *ctx, int error, const char *call);

/* Run a CUDA runtime call; on failure record it and return from the enclosing
 * function (which needs an fx_context *ctx in scope). */
#define FX_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t fxi_cuda_err_ = (call);                                                        \
        if (fxi_cuda_err_ != cudaSuccess) return fxi_cuda_error(ctx, (int)fxi_cuda_err_, #call);   \
    } while (0)

/* After a kernel launch: report a launch error (bad configuration, no kernel
 * image for this GPU) naming the kernel. Does not wait for the kernel. */
fx_status fxi_cuda_check_launch(fx_context *ctx, const char *kernel);

/* ---- current device guard ---- */

typedef struct fxi_device_guard {
    int previous; /* the caller's current device, restored by fxi_device_leave */
    int changed;
} fxi_device_guard;

/* Make the context's GPU current for this thread, remembering the caller's. */
fx_status fxi_device_enter(fx_context *ctx, fxi_device_guard *guard);
void fxi_device_leave(const fxi_device_guard *guard);

/* FX_OK when ctx has a GPU state; FX_EBADSTATE with a detail otherwise. */
fx_status fxi_cuda_require(fx_context *ctx, const char *what);

/* ---- memory (all on the context's GPU and stream) ---- */

/* Device memory, stream-ordered: usable by the context's stream at once. Out of
 * memory gives FX_ENOMEM with "GPU out of memory: ... (free X of Y MiB)". */
fx_status fxi_device_alloc(fx_context *ctx, size_t bytes, void **out);
/* Safe with NULL. Stream-ordered: the memory is reused only after the work
 * queued before it on the context's stream. */
void fxi_device_free(fx_context *ctx, void *ptr);
fx_status fxi_device_memset(fx_context *ctx, void *ptr, int value, size_t bytes);

/* Page-locked host memory (fast, asynchronous copies). Safe with NULL. */
fx_status fxi_pinned_alloc(fx_context *ctx, size_t bytes, void **out);
void fxi_pinned_free(fx_context *ctx, void *ptr);

/* The context's reusable buffers: at least `bytes` in slot `slot`, grown (the old
 * contents dropped) when too small; the pinned ones come from the pinned pool below
 * (a grown one's old block goes back to it). Valid until the next call for the same slot
 * or the context's end. */
fx_status fxi_device_buffer(fx_context *ctx, fxi_buffer_slot slot, size_t bytes, void **out);
fx_status fxi_pinned_buffer(fx_context *ctx, fxi_buffer_slot slot, size_t bytes, void **out);

/* ---- the pinned pool (pinned_pool.c): one per context, for every job's staging ----
 *
 * Page-locked host blocks that callers hold across calls (the filter's band
 * staging, equalize's band staging, a normalize stream's slot ring, the context's
 * pinned buffers above). cudaHostAlloc and cudaFreeHost cost milliseconds and
 * serialise the process's CUDA calls, so a block given back is kept, not freed, and
 * serves the next taker that fits: a batch of files or streams on one context pins
 * its memory once.
 *
 * fxi_pinned_take: the smallest free block of at least `bytes`, else a new block of
 * exactly `bytes`; `size` receives the block's size (>= bytes), which the giver
 * passes back. bytes == 0 gives NULL and size 0. The block's contents are undefined.
 * fxi_pinned_give: hands the block back (safe with NULL). The giver first makes sure
 * no queued copy still reads or writes it (synchronises the streams that used it).
 * The pool keeps at most FXI_PINNED_POOL_BLOCKS free blocks; beyond that the
 * smallest is freed. fxi_pinned_pool_release (the context's release) frees every
 * free block; blocks still taken are their holder's to give back first.
 * Like the context, the pool is used by one thread at a time. */
fx_status fxi_pinned_take(fx_context *ctx, size_t bytes, void **out, size_t *size);
void fxi_pinned_give(fx_context *ctx, void *ptr, size_t size);
void fxi_pinned_pool_release(fx_context *ctx);

/* Asynchronous copies on the context's stream. From pageable host memory the
 * runtime stages the data and the call returns once the source may be reused;
 * to pageable host memory the data is there only after fxi_stream_sync. */
fx_status fxi_copy_h2d(fx_context *ctx, void *dst_device, const void *src_host, size_t bytes);
fx_status fxi_copy_d2h(fx_context *ctx, void *dst_host, const void *src_device, size_t bytes);
/* Row by row: `rows` rows of `row_bytes` bytes, each side with its own pitch (an
 * image's stride). */
fx_status fxi_copy_h2d_2d(fx_context *ctx, void *dst_device, size_t dst_pitch, const void *src_host,
                          size_t src_pitch, size_t row_bytes, size_t rows);
fx_status fxi_copy_d2h_2d(fx_context *ctx, void *dst_host, size_t dst_pitch, const void *src_device,
                          size_t src_pitch, size_t row_bytes, size_t rows);
/* Host to host, `rows` rows of row_bytes between strided buffers, on the context's
 * CPU threads: filling and emptying pinned staging (one thread alone is slower than
 * the bus). Contiguous rows go as one memcpy per task. */
void fxi_parallel_copy_rows(fx_context *ctx, void *dst, size_t dst_stride, const void *src,
                            size_t src_stride, size_t row_bytes, size_t rows);
/* Rows per task of a parallel staging copy of rows of row_bytes. */
static inline size_t fxi_copy_grain(size_t row_bytes)
{
    return FXI_COPY_BYTES_PER_TASK / row_bytes + 1;
}

/* Whether ptr is page-locked host memory (cudaHostAlloc'd or registered), which the GPU
 * reads and writes by DMA where it is, with no copy through staging. */
bool fxi_page_locked(const void *ptr);

/* Wait for everything queued on the context's stream (that stream only). */
fx_status fxi_stream_sync(fx_context *ctx);
/* The same, for waits of a DMA's length: the thread yields its core while it
 * waits (the runtime's wait spins on it), so that the process's other threads (a
 * batch's readers and writers) run meanwhile. (A blocking-sync event, which puts
 * the thread to sleep, measured slower: the batch of 64 files 1.07-1.24x, a 20 s
 * file's ramp 2x, from the wake-ups.) */
fx_status fxi_stream_sync_yielding(fx_context *ctx);

/* ---- a kernel launched as a CUDA graph (kernel_graph.c) ---- */

/* One kernel launched run after run with the same grid, as a graph of its one node: the
 * graph's launch costs less than the kernel's (H200, an empty cooperative kernel of 396
 * x 256 threads and the stream's synchronisation, medians of 200: 7.8 us against 10.4;
 * 8.6 where the node's arguments are set before each launch; r166). Zeroed before its
 * first launch; the context's GPU current on every call. */
enum { FXI_KERNEL_GRAPH_KEY = 4 };
typedef struct fxi_kernel_graph {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaGraphNode_t node;
    uint64_t key[FXI_KERNEL_GRAPH_KEY]; /* the last launch's (fxi_kernel_graph_launch) */
    /* the last launch's kernel and shape: a launch of another sets the node again too */
    const void *func;
    dim3 grid, block;
    int broken; /* the runtime would not make it: launch directly */
} fxi_kernel_graph;

/* Launch `func` over grid x block threads (no dynamic shared memory) with the arguments
 * `params` (as cudaLaunchKernel takes them; cooperative: all its blocks resident at
 * once) on `stream` through g. The graph is made on the first call; after that the node
 * is set again where `key` (the caller's summary of the arguments' values: every one
 * that may change between its launches) or the kernel, grid or block differs from the
 * last launch's.
 * *launched stays false where the runtime will not make or launch the graph
 * (nothing has run: the caller launches the kernel itself, now and from then on). */
fx_status fxi_kernel_graph_launch(fx_context *ctx, fxi_kernel_graph *g, const void *func, dim3 grid,
                                  dim3 block, void **params, int cooperative,
                                  const uint64_t key[FXI_KERNEL_GRAPH_KEY], cudaStream_t stream,
                                  bool *launched);
void fxi_kernel_graph_release(fxi_kernel_graph *g);

/* ---- kernels ---- */

/* Convert `count` tightly packed samples between sample types on the device,
 * with fx_image_convert's rule (convert.cu). Queued on the context's stream;
 * the caller has made the context's GPU current. */
fx_status fxi_cuda_convert_launch(fx_context *ctx, const void *src_device, fx_sample_type src_type,
                                  void *dst_device, fx_sample_type dst_type, size_t count);

/* fxi_gpu_image_convert (declared in core/internal.h, called by fx_image_convert
 * on a GPU context): host images in and out (any strides), through pinned
 * staging. Byte-identical to the CPU. With t, fills upload_ms (staging +
 * host-to-device), compute_ms and download_ms (device-to-host + unstaging),
 * each a wall time measured with the stream synchronised. */

#ifdef __cplusplus
}
#endif
#endif
