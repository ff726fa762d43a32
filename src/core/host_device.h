/* FX_HD marks the per-output arithmetic that the C paths and the CUDA kernels share:
 * __host__ __device__ under nvcc, nothing in C. */
#ifndef FXKIT_CORE_HOST_DEVICE_H
#define FXKIT_CORE_HOST_DEVICE_H

#ifdef __CUDACC__
#define FX_HD __host__ __device__
#else
#define FX_HD
#endif

#endif
