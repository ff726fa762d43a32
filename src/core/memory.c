/* Host allocation that reports failures with the size asked for. */
#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "internal.h"

fx_status fxi_malloc(fx_context *ctx, size_t bytes, void **out)
{
    *out = malloc(bytes ? bytes : 1);
    FXI_RETURN_IF(!*out, FX_ENOMEM, "cannot allocate %zu bytes of host memory", bytes);
    return FX_OK;
}

fx_status fxi_calloc(fx_context *ctx, size_t count, size_t size, void **out)
{
    size_t bytes;
    FXI_RETURN_IF(!fxi_mul_size(count, size, &bytes), FX_EOVERFLOW,
                 "allocation of %zu x %zu bytes overflows", count, size);
    *out = calloc(bytes ? count : 1, bytes ? size : 1);
    FXI_RETURN_IF(!*out, FX_ENOMEM, "cannot allocate %zu bytes of host memory", bytes);
    return FX_OK;
}

fx_status fxi_scratch(fx_context *ctx, size_t bytes, void **out)
{
    if (bytes > ctx->scratch_size) {
        void *grown = realloc(ctx->scratch, bytes);
        FXI_RETURN_IF(!grown, FX_ENOMEM, "cannot allocate %zu bytes of scratch memory", bytes);
        ctx->scratch = grown;
        ctx->scratch_size = bytes;
    }
    *out = ctx->scratch;
    return FX_OK;
}

/* Large buffers are touched first by the filter or codec that fills them; with 4 KiB pages
 * that costs one fault per page (about 7000 for a 28 MB image, a third of a 3x3 filter's
 * time). Transparent huge pages cut that 512-fold where the system allows them on request
 * (the "madvise" setting); elsewhere the advice is ignored. */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
#define HUGE_PAGE_MIN_BUFFER (2 * HUGE_PAGE_BYTES)

void fxi_advise_huge_pages(void *data, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes < HUGE_PAGE_MIN_BUFFER) return;
    uintptr_t start = ((uintptr_t)data + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
    uintptr_t end = ((uintptr_t)data + bytes) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
    if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}
