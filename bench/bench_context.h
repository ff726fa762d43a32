/* A context of the C benchmarks: the device asked for, the library's other defaults (every
 * CPU thread); NULL when it cannot be made (no GPU, say). */
#ifndef FXKIT_BENCH_CONTEXT_H
#define FXKIT_BENCH_CONTEXT_H

#include "fxkit/fxkit.h"

static inline fx_context *bench_context(fx_device_kind kind)
{
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = kind;
    fx_context *ctx = NULL;
    if (fx_context_create(&o, &ctx) != FX_OK) return NULL;
    return ctx;
}

#endif
