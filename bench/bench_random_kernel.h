/* The GPU benchmarks' float kernels (gpu_rows, gpu_fft_tiles): a k x k kernel of
 * pseudo-random taps (not separable, some negative), the same for the same k, as the
 * text fx_kernel_parse reads (rows separated by ';'); and the generator behind it. */
#ifndef FXKIT_BENCH_RANDOM_KERNEL_H
#define FXKIT_BENCH_RANDOM_KERNEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t bench_next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

/* The caller frees the text; NULL when out of memory. */
static inline char *bench_random_kernel(int k)
{
    char *text = malloc((size_t)k * (size_t)k * 12 + 16), *p = text;
    if (!text) return NULL;
    uint64_t seed = (uint64_t)k;
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++)
            p += sprintf(p, "%s%.6f", j ? " " : "",
                         ((double)(bench_next_random(&seed) >> 22) / 2147483648.0 - 0.3) / k);
        p += sprintf(p, "%s", i + 1 < k ? ";" : "");
    }
    return text;
}

#endif
