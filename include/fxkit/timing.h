/* fxkit — monotonic time and per-stage timings.
 *
 * The library measures stages only when the caller passes an fx_timings to a
 * call that accepts one; it never times itself otherwise.
 */
#ifndef FXKIT_TIMING_H
#define FXKIT_TIMING_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic clock in nanoseconds (CLOCK_MONOTONIC); only differences are meaningful. */
FX_API uint64_t fx_time_ns(void);

/* Milliseconds between two fx_time_ns() readings. */
static inline double fx_elapsed_ms(uint64_t start_ns, uint64_t end_ns)
{
    return (double)(end_ns - start_ns) / 1e6;
}

/* Per-stage wall times of one file, in milliseconds. A stage that did not happen is 0. */
typedef struct fx_timings {
    double decode_ms;
    double upload_ms;
    double compute_ms;
    double download_ms;
    double encode_ms;
} fx_timings;

#ifdef __cplusplus
}
#endif
#endif
