/* What a fresh buffer costs: the first and the second pass over a newly allocated
 * 400 MiB buffer (a write every 64 bytes), four times. The first pass faults every
 * page in; the gap between the two is what a whole-image filter pays for its fresh
 * buffers and a banded one, reusing small buffers, does not (docs/BENCHMARKS.md,
 * "filter file to file on the CPU").
 *
 * usage: build/bench/first_touch [MIB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DEFAULT_MIB 400
#define ROUNDS 4
/* One write per cache line. */
#define STRIDE 64

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : DEFAULT_MIB;
    size_t n = mib << 20;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_s();
        volatile char *p = malloc(n);
        if (!p) {
            fprintf(stderr, "first_touch: cannot allocate %zu MiB\n", mib);
            return 1;
        }
        for (size_t k = 0; k < n; k += STRIDE)
            p[k] = (char)k;
        double t1 = now_s();
        for (size_t k = 0; k < n; k += STRIDE)
            p[k] = (char)(p[k] + 1);
        double t2 = now_s();
        printf("%zu MiB: first touch %.0f ms (%.2f GB/s), second pass %.0f ms\n", mib,
               (t1 - t0) * 1e3, (double)n / (t1 - t0) / 1e9, (t2 - t1) * 1e3);
        free((void *)p);
    }
    return 0;
}
