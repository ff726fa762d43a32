/* The context's pinned pool: page-locked host blocks taken and given back by size,
 * kept for reuse until the context is released (gpu_internal.h states the rules).
 * A small unsorted array of free blocks: a context holds a handful of staging
 * blocks, so a linear search costs nothing next to one copy. */
#include "gpu/gpu_internal.h"

/* Index of the smallest free block of at least `bytes`, or -1. */
static int smallest_fitting(const fxi_cuda_state *s, size_t bytes)
{
    int best = -1;
    for (int i = 0; i < s->pinned_free_count; i++)
        if (s->pinned_free[i].size >= bytes &&
            (best < 0 || s->pinned_free[i].size < s->pinned_free[best].size))
            best = i;
    return best;
}

/* Take block i out of the free array (the last one fills its place). */
static fxi_buffer remove_free(fxi_cuda_state *s, int i)
{
    fxi_buffer b = s->pinned_free[i];
    s->pinned_free[i] = s->pinned_free[--s->pinned_free_count];
    return b;
}

fx_status fxi_pinned_take(fx_context *ctx, size_t bytes, void **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    FXI_TRY(fxi_cuda_require(ctx, "pinned memory"));
    if (bytes == 0) return FX_OK;
    fxi_cuda_state *s = ctx->cuda;
    const int i = smallest_fitting(s, bytes);
    if (i >= 0) {
        const fxi_buffer b = remove_free(s, i);
        *out = b.ptr;
        *size = b.size;
        return FX_OK;
    }
    FXI_TRY(fxi_pinned_alloc(ctx, bytes, out));
    *size = bytes;
    return FX_OK;
}

void fxi_pinned_give(fx_context *ctx, void *ptr, size_t size)
{
    if (!ptr || !ctx || !ctx->cuda) return;
    fxi_cuda_state *s = ctx->cuda;
    if (s->pinned_free_count == FXI_PINNED_POOL_BLOCKS) {
        /* Full: the smallest of the kept blocks and this one is freed. */
        int smallest = 0;
        for (int i = 1; i < s->pinned_free_count; i++)
            if (s->pinned_free[i].size < s->pinned_free[smallest].size) smallest = i;
        if (s->pinned_free[smallest].size >= size) {
            fxi_pinned_free(ctx, ptr);
            return;
        }
        fxi_pinned_free(ctx, remove_free(s, smallest).ptr);
    }
    s->pinned_free[s->pinned_free_count++] = (fxi_buffer){ptr, size};
}

void fxi_pinned_pool_release(fx_context *ctx)
{
    if (!ctx || !ctx->cuda) return;
    fxi_cuda_state *s = ctx->cuda;
    while (s->pinned_free_count > 0)
        fxi_pinned_free(ctx, remove_free(s, s->pinned_free_count - 1).ptr);
}

fx_status fxi_gpu_pinned_take(fx_context *ctx, size_t bytes, void **out, size_t *size)
{
    return fxi_pinned_take(ctx, bytes, out, size);
}

void fxi_gpu_pinned_give(fx_context *ctx, void *ptr, size_t size)
{
    fxi_pinned_give(ctx, ptr, size);
}
