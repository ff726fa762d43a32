/* fxkit — internal definitions shared across the library's files (prefix fxi_).
 * Never installed; tests may include it.
 */
#ifndef FXKIT_INTERNAL_H
#define FXKIT_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "fxkit/fxkit.h"

#define FXI_ERROR_MAX 1024

typedef struct fxi_pool fxi_pool;
typedef struct fxi_cuda_state fxi_cuda_state;
typedef struct fxi_gpu_background fxi_gpu_background;

struct fx_context {
    fx_device_kind device; /* resolved: CPU or GPU (CPU while gpu_pending) */
    int gpu_index;
    fx_device_kind requested; /* as created: AUTO chooses item by item (device_cost.h) */
    bool gpu_pending; /* FX_DEVICE_AUTO whose GPU has not been looked for yet: no CUDA call
                       * made for it; fxi_gpu_start looks, once */
    int threads;
    fx_log_fn log;
    void *log_user;
    fx_log_level log_level;
    fx_limits limits;
    fx_status last_status;
    char error[FXI_ERROR_MAX];
    fxi_pool *pool; /* NULL when threads == 1 */
    void *scratch;  /* host scratch, grown on demand */
    size_t scratch_size;
    fxi_cuda_state *cuda; /* stream and device buffers; NULL on the CPU (and while a
                           * background start runs: see gpu_background) */
    fxi_gpu_background *gpu_background; /* non-NULL: made with start_gpu_in_background;
                                         * fxi_gpu_join waits for the start */
    bool gpu_warm; /* FX_DEVICE_AUTO: an item chose the GPU (core/device_cost.h) */
    int machine_cpus; /* fx_cpu_count() when the context was made */
    uint64_t batch_bytes; /* fx_context_options.batch_bytes (0: items alone) */
};

/* ---- errors: whoever detects an error writes the detail once; callers propagate ---- */

#if defined(__GNUC__)
#define FXI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FXI_PRINTF(a, b)
#endif

/* Record `status` with a formatted detail in ctx (ctx may be NULL), log it at error
 * level, and return status so that callers can write `return fxi_error(...)`. */
fx_status fxi_error(fx_context *ctx, fx_status status, const char *fmt, ...) FXI_PRINTF(3, 4);
fx_status fxi_verror(fx_context *ctx, fx_status status, const char *fmt, va_list ap);
/* Prefix the existing detail, e.g. "line 3: " + detail. */
void fxi_error_prefix(fx_context *ctx, const char *fmt, ...) FXI_PRINTF(2, 3);
/* Deliver a message through the context's log callback, if any, at or below its level. */
void fxi_log(fx_context *ctx, fx_log_level level, const char *fmt, ...) FXI_PRINTF(3, 4);

#define FXI_RETURN_IF(cond, status, ...)                                                            \
    do {                                                                                           \
        if (cond) return fxi_error(ctx, (status), __VA_ARGS__);                                    \
    } while (0)

#define FXI_TRY(expr)                                                                               \
    do {                                                                                           \
        fx_status fxi_try_status_ = (expr);                                                        \
        if (fxi_try_status_ != FX_OK) return fxi_try_status_;                                      \
    } while (0)

/* ---- overflow-checked size arithmetic ---- */

static inline bool fxi_mul_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool fxi_add_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}
/* a * b * c without overflow. */
static inline bool fxi_mul3_size(size_t a, size_t b, size_t c, size_t *out)
{
    size_t ab;
    return fxi_mul_size(a, b, &ab) && fxi_mul_size(ab, c, out);
}

/* malloc/calloc that record FX_ENOMEM with the byte count on failure. */
fx_status fxi_malloc(fx_context *ctx, size_t bytes, void **out);
fx_status fxi_calloc(fx_context *ctx, size_t count, size_t size, void **out);
/* Ask for transparent huge pages over a large buffer not yet touched (a hint, never an error). */
void fxi_advise_huge_pages(void *data, size_t bytes);

/* Context scratch buffer of at least `bytes`, reused across calls (not thread-safe:
 * one user at a time, like the context). */
fx_status fxi_scratch(fx_context *ctx, size_t bytes, void **out);

/* ---- files (file_replace.c) ---- */

/* Put the finished file `temp` in place of `final` atomically (at every moment `final`
 * names the old file or the new one, whole), without the writeback of the whole new
 * file that ext4 (auto_da_alloc) starts on the caller's clock when a rename replaces an
 * existing file: an existing regular `final` is exchanged with `temp`
 * (renameat2 RENAME_EXCHANGE) and the old file, now under `temp`, removed. Elsewhere, or
 * where the file system cannot exchange, a plain rename. Returns 0 or an errno value;
 * on failure `final` is as it was and `temp` still exists. */
int fxi_file_replace(const char *temp, const char *final);
/* A hint before `final` is replaced: when it is a regular file whose cached pages are
 * all clean, drop them from the page cache (its bytes on disk stay as they are), so that
 * the new file's pages reuse that memory. Never starts writeback (a file with dirty
 * pages is left alone) and never fails: anything unusual means no hint. The caller
 * knows that nothing is about to read `final` (the CLI: an output that is no input). */
void fxi_file_release_cache(const char *final);

/* memcpy for blocks that go to memory the CPU will not read soon (pinned staging on
 * its way to a GPU, a band just down from one, into the caller's image): its
 * non-temporal stores skip reading each destination line before it is written, a
 * third of a cached copy's memory traffic. Falls back to memcpy for small blocks and
 * CPUs without SSE2. */
void fxi_copy_streaming(void *dst, const void *src, size_t n);

/* ---- thread pool ---- */

/* Work function: process items [begin, end). `worker` is 0..threads-1 and unique
 * among concurrently running calls, for per-thread scratch. */
typedef void (*fxi_range_fn)(void *arg, size_t begin, size_t end, int worker);

fx_status fxi_pool_create(int threads, fxi_pool **out);
void fxi_pool_destroy(fxi_pool *pool);
/* Split [0, count) into chunks of at least `grain` items and run them on the
 * context's threads (the calling thread takes part). Returns when all are done. */
void fxi_parallel_for(fx_context *ctx, size_t count, size_t grain, fxi_range_fn fn, void *arg);

/* ---- GPU plumbing the core calls (src/gpu/ with CUDA, src/gpu/gpu_nocuda.c without) ----
 * The core names no job: each job declares its own GPU seam in its folder
 * (filter/filter_gpu.h, equalize/equalize_gpu.h, normalize/normalize_gpu.h). */

/* Set up the context's GPU state (device check, stream) for ctx->gpu_index. */
fx_status fxi_gpu_context_init(fx_context *ctx);
/* How many times the library has asked the CUDA runtime for the GPUs (fx_gpu_count, the
 * first call of every way into CUDA: a context's start, fxkit info): each ask counts,
 * whatever it found, so "asked, no GPU" and "never asked" differ. A build without CUDA
 * counts its asks too (answered at once). Process-wide, thread-safe; for tests. */
int fxi_gpu_runtime_asks(void);

/* FX_DEVICE_AUTO starts its GPU lazily (docs/ALGORITHMS.md, "Choosing the device"): a
 * context is made without any CUDA call, and its GPU is looked for and set up when an
 * item could use it (core/device_cost.c), a device image or the GPU's own state (stream,
 * rates) is asked for. fxi_gpu_start does that once for a pending context (the outcome
 * stays: a GPU ready, or the CPU for good, logged as at creation) and returns whether
 * ctx has a GPU ready; on any other context it only answers that, without CUDA. A
 * context is used by one thread at a time, so no lock: each worker starts its own. */
bool fxi_gpu_start(fx_context *ctx);
/* A context made with start_gpu_in_background (its ctx->device is FX_DEVICE_GPU from the
 * start): wait for the start, once, and install its GPU state in ctx->cuda; return its
 * outcome, the start's error recorded on ctx again on every call after a failure (so
 * that each GPU call reports why). FX_OK at once on every other context.
 * fxi_cuda_require (every GPU entry point's gate) calls it: code below the gates reads
 * ctx->cuda as before. */
fx_status fxi_gpu_join(fx_context *ctx);
/* fxi_gpu_join without recording a failure on ctx: for the calls that only look (the
 * stream's getter) or let go (fx_context_destroy). */
fx_status fxi_gpu_wait(fx_context *ctx);
/* Whether a context of this process has started a GPU (explicitly or by fxi_gpu_start):
 * after that, CUDA's own start is paid. */
bool fxi_gpu_started_in_process(void);
/* Whether ctx may run an item on a GPU: one is ready, or an auto context has not looked
 * yet. Never calls CUDA. */
static inline bool fxi_gpu_possible(const fx_context *ctx)
{
    return ctx->device == FX_DEVICE_GPU || ctx->gpu_pending;
}
/* Release the stream and any device/pinned buffers the context owns. Safe when
 * ctx->cuda is NULL. */
void fxi_gpu_context_release(fx_context *ctx);
/* The context's GPU's multiprocessors (read when the context was made); 0 without one. */
int fxi_gpu_multiprocessors(const fx_context *ctx);
/* fx_image_convert on the context's GPU (src/gpu/image_convert.c). */
fx_status fxi_gpu_image_convert(fx_context *ctx, const fx_image *src, fx_image *dst,
                                 fx_timings *timings);
/* Device images (src/gpu/image_device.c): allocation on the context's GPU, copies
 * between host and device images, and the free that fx_image_free calls (NULL-safe;
 * nothing to do in a build without CUDA, where no device image can exist). */
/* A block of page-locked host memory from the GPU context's pinned pool, for host rows
 * that go up and come down by DMA, and back (gpu/gpu_internal.h's fxi_pinned_take and
 * fxi_pinned_give). Without CUDA: FX_ENODEVICE. */
fx_status fxi_gpu_pinned_take(fx_context *ctx, size_t bytes, void **out, size_t *size);
void fxi_gpu_pinned_give(fx_context *ctx, void *ptr, size_t size);
fx_status fxi_gpu_image_alloc(fx_context *ctx, fx_image *img, size_t bytes);
fx_status fxi_gpu_image_copy(fx_context *ctx, const fx_image *src, fx_image *dst);
void fxi_gpu_image_free(void *data);

#endif
