/* Transform sizes both FFT paths use (cpu_fft.c with FFTW, the GPU's with cuFFT): sides
 * of 2^a, 3 * 2^a or 5 * 2^a, for which both libraries have fast kernels. */
#ifndef FXKIT_FILTER_FFT_SIDES_H
#define FXKIT_FILTER_FFT_SIDES_H

#include <stdbool.h>
#include <stdint.h>

/* Smaller transforms are all overhead. */
#define FXI_FFT_MIN_SIDE 16

/* Is n = 2^a, 3 * 2^a or 5 * 2^a? */
static inline bool fxi_fft_nice_side(int n)
{
    if (n % 3 == 0)
        n /= 3;
    else if (n % 5 == 0)
        n /= 5;
    return n > 0 && (n & (n - 1)) == 0;
}

/* The smallest nice side >= n (and >= FXI_FFT_MIN_SIDE). */
static inline int fxi_fft_next_nice_side(int64_t n)
{
    if (n < FXI_FFT_MIN_SIDE) n = FXI_FFT_MIN_SIDE;
    while (!fxi_fft_nice_side((int)n))
        n++;
    return (int)n;
}

#endif
