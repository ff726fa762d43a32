/* The one context a fuzz target keeps for its whole run: CPU, one thread, and the
 * given limits (0 = the library's defaults). Small limits keep every accepted
 * image cheap to allocate. The fuzzer's process ends with the context still
 * reachable, which LeakSanitizer does not report. */
#ifndef FUZZ_CONTEXT_H
#define FUZZ_CONTEXT_H

#include <stdlib.h>

#include "fxkit/fxkit.h"

static inline fx_context *fuzz_context(uint64_t max_pixels, int max_dimension)
{
    static fx_context *ctx;
    if (!ctx) {
        fx_context_options opts;
        fx_context_options_init(&opts);
        opts.device = FX_DEVICE_CPU;
        opts.threads = 1;
        opts.limits.max_pixels = max_pixels;
        opts.limits.max_dimension = max_dimension;
        if (fx_context_create(&opts, &ctx) != FX_OK) abort();
    }
    return ctx;
}

#endif
