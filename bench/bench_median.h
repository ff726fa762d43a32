/* The median the C benchmarks report: sorts v in place and takes its middle
 * (the upper one of an even count). */
#ifndef FXKIT_BENCH_MEDIAN_H
#define FXKIT_BENCH_MEDIAN_H

#include <stdlib.h>

static int bench_compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_compare_doubles);
    return v[n / 2];
}

#endif
