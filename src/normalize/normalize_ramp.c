/* The CPU gain ramp: every sample of a frame times its gain (normalize_math.h's
 * cross-fade from the previous frame's gain to this frame's).
 *
 * The common case, coupled channels that are all processed, runs as a loop
 * the compiler vectorises: one gain per sample position (counted in a 32-bit
 * integer, which converts to double in SIMD registers) multiplied into each
 * channel, inlined for one and two channels so that the channel loop unrolls.
 * The arithmetic is the shared header's, operation for operation, so the bits
 * are those of the plain per-element form (fxi_nm_gain_at times the sample)
 * that the other cases use, as the GPU kernel's fxi_nm_batch_element does. Built with -fno-trapping-math (see
 * src/CMakeLists.txt) so that the select between ramp and constant gain
 * vectorises; values are unaffected.
 */
#include <stdint.h>

#include "normalize_gpu_plan.h"
#include "normalize_internal.h"
#include "normalize_math.h"
#include "normalize_ramp.h"

/* Coupled, all channels processed: one gain per position for `channels` samples. */
static inline __attribute__((always_inline)) void
ramp_coupled(const fxi_nm_ramp_job *r, int32_t begin, int32_t end, int channels)
{
    const double from = r->from[0], to = r->to[0];
    const double step = 1.0 / (double)r->length;
    const bool ramp = r->p->ramp;
    const int32_t first = (int32_t)r->first;
    const double *src = r->src;
    double *dst = r->dst;
    for (int32_t i = begin; i < end; i++) {
        const double g = ramp ? fxi_nm_fade_step(from, to, step, (double)i + 1.0) : to;
        const size_t at = (size_t)(i - first) * (size_t)channels;
        for (int c = 0; c < channels; c++)
            dst[at + (size_t)c] = src[at + (size_t)c] * g;
    }
}

/* Any layout: each sample with its own channel's gain, unprocessed channels copied. */
static void ramp_general(const fxi_nm_ramp_job *r, size_t begin, size_t end)
{
    const size_t channels = (size_t)r->p->channels;
    for (size_t i = begin; i < end; i++) {
        const double *x = r->src + (i - r->first) * channels;
        double *y = r->dst + (i - r->first) * channels;
        for (size_t c = 0; c < channels; c++) {
            const size_t g = r->p->coupled ? 0 : c;
            y[c] = r->p->process[c]
                       ? x[c] * fxi_nm_gain_at(r->from[g], r->to[g], i, r->length, r->p->ramp)
                       : x[c];
        }
    }
}

static bool all_processed(const fxi_nm_params *p)
{
    for (int c = 0; c < p->channels; c++)
        if (!p->process[c]) return false;
    return true;
}

void fxi_nm_ramp_range(const fxi_nm_ramp_job *r, size_t begin, size_t end)
{
    if (!r->p->coupled || !all_processed(r->p) || r->length > INT32_MAX) {
        ramp_general(r, begin, end);
        return;
    }
    const int32_t b = (int32_t)begin, e = (int32_t)end;
    switch (r->p->channels) {
    case 1: ramp_coupled(r, b, e, 1); break;
    case 2: ramp_coupled(r, b, e, 2); break;
    default: ramp_coupled(r, b, e, r->p->channels); break;
    }
}
