/* Border index arithmetic shared by every job and by the CUDA kernels (FX_HD: empty
 * in C, __host__ __device__ in CUDA): one definition, so the filter's borders and
 * CLAHE's padding are the same function on the CPU and the GPU.
 *
 * C/CUDA common subset only: no VLAs, no C++.
 */
#ifndef FXKIT_CORE_BORDER_MATH_H
#define FXKIT_CORE_BORDER_MATH_H

#include <stdint.h>

#include "core/host_device.h"

/* Non-negative p mod n (n > 0). */
static inline FX_HD int64_t fxi_mod(int64_t p, int64_t n)
{
    int64_t r = p % n;
    return r < 0 ? r + n : r;
}

/* OpenCV's BORDER_REFLECT_101 (borderInterpolate): the line mirrored about its first
 * and last sample without repeating them, gfedcb|abcdefgh|gfedcba, for any p however
 * far outside (the pattern repeats every 2n - 2 samples); a line of one sample is
 * that sample everywhere. Positions inside return at once: the common case costs
 * no division. */
static inline FX_HD int64_t fxi_reflect101(int64_t p, int64_t n)
{
    if (p >= 0 && p < n) return p;
    if (n == 1) return 0;
    const int64_t q = fxi_mod(p, 2 * n - 2);
    return q < n ? q : 2 * n - 2 - q;
}

#endif
