/* What both FFT paths share (cpu_fft.c with FFTW, the GPU's with cuFFT): transform sides
 * of 2^a, 3 * 2^a or 5 * 2^a, for which both libraries have fast kernels, and the
 * arithmetic on the spectra (FX_HD: the kernels call it too). */
#ifndef FXKIT_FILTER_FFT_SIDES_H
#define FXKIT_FILTER_FFT_SIDES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/host_device.h"
#include "filter/filter_tuning.h"


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

/* The kernel's spectrum for correlation, from its transform: conjugated (circular
 * convolution becomes circular correlation) and scaled by 1 / (N M) (both libraries'
 * transforms are unnormalised), one bin in place. */
static inline FX_HD void fxi_fft_conj_scale(float *re, float *im, float scale)
{
    *re = *re * scale;
    *im = *im * -scale;
}

/* One bin of an image tile's spectrum times the kernel's, in place; built without fused
 * multiply-adds on both sides (C without contraction, nvcc --fmad=false), so that the
 * CPU tests replay the GPU's products. */
static inline FX_HD void fxi_fft_modulate(float *re, float *im, float wr, float wi)
{
    const float xr = *re, xi = *im;
    *re = xr * wr - xi * wi;
    *im = xr * wi + xi * wr;
}

#endif
