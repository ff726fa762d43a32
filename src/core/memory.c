/* Host allocation that reports failures with the size asked for. */
#include <stdlib.h>

#include "internal.h"

fx_status fxi_malloc(fx_context *ctx, size_t bytes, void **out)
{
    *out = malloc(bytes ? bytes : 1);
    FX_RETURN_IF(!*out, FX_ENOMEM, "cannot allocate %zu bytes of host memory", bytes);
    return FX_OK;
}

fx_status fxi_calloc(fx_context *ctx, size_t count, size_t size, void **out)
{
    size_t bytes;
    FX_RETURN_IF(!fxi_mul_size(count, size, &bytes), FX_EOVERFLOW,
                 "allocation of %zu x %zu bytes overflows", count, size);
    *out = calloc(bytes ? count : 1, bytes ? size : 1);
    FX_RETURN_IF(!*out, FX_ENOMEM, "cannot allocate %zu bytes of host memory", bytes);
    return FX_OK;
}

fx_status fxi_scratch(fx_context *ctx, size_t bytes, void **out)
{
    if (bytes > ctx->scratch_size) {
        void *grown = realloc(ctx->scratch, bytes);
        FX_RETURN_IF(!grown, FX_ENOMEM, "cannot allocate %zu bytes of scratch memory", bytes);
        ctx->scratch = grown;
        ctx->scratch_size = bytes;
    }
    *out = ctx->scratch;
    return FX_OK;
}
