/* The CPU gain ramp over a range of a frame's sample positions (normalize_ramp.c). */
#ifndef FXKIT_NORMALIZE_RAMP_H
#define FXKIT_NORMALIZE_RAMP_H

#include <stddef.h>

#include "normalize_internal.h"

typedef struct fxi_nm_ramp_job {
    const fxi_nm_params *p;
    const double *src;       /* the frame's samples from position `first` on (interleaved) */
    double *dst;             /* where position `first` goes */
    const double *from, *to; /* per gain channel: the previous frame's gain and this one's */
    size_t length;           /* the frame's samples per channel */
    size_t first;            /* the position that src and dst point at */
} fxi_nm_ramp_job;

/* dst = src times the gain at positions [begin, end) of the frame, begin >= first. */
void fxi_nm_ramp_range(const fxi_nm_ramp_job *r, size_t begin, size_t end);

#endif
