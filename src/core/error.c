/* Error detail and logging through the context's callback. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

fx_status fxi_verror(fx_context *ctx, fx_status status, const char *fmt, va_list ap)
{
    if (!ctx) return status;
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    ctx->last_status = status;
    if (ctx->log && ctx->log_level >= FX_LOG_ERROR)
        ctx->log(ctx->log_user, FX_LOG_ERROR, ctx->error);
    return status;
}

fx_status fxi_error(fx_context *ctx, fx_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fxi_verror(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}

void fxi_error_prefix(fx_context *ctx, const char *fmt, ...)
{
    if (!ctx) return;
    char prefix[FXI_ERROR_MAX], old[FXI_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, ctx->error, sizeof old);
    /* Truncation is fine: the detail is for people, and it stays terminated. */
    size_t n = strlen(prefix) < sizeof ctx->error - 1 ? strlen(prefix) : sizeof ctx->error - 1;
    memcpy(ctx->error, prefix, n);
    snprintf(ctx->error + n, sizeof ctx->error - n, "%s", old);
}

void fxi_log(fx_context *ctx, fx_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->log || level > ctx->log_level) return;
    char message[FXI_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, level, message);
}

const char *fx_context_error(const fx_context *ctx)
{
    return ctx ? ctx->error : "";
}

void fx_context_clear_error(fx_context *ctx)
{
    if (!ctx) return;
    ctx->error[0] = '\0';
    ctx->last_status = FX_OK;
}
