// CPU stand-ins for the CUDA features of the 8-bit kernels the emulations run
// (tests/emu/run_walk4_emu.sh, run_box_emu.sh; checking only, not shipped). k_u8_walk4 has
// no barrier: its threads run one after another. k_u8_box_slide's threads run as threads
// of the process, one block at a time: __syncthreads and __shfl_up_sync call the hooks
// below, which its emulation sets.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cuda_runtime_api.h>
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __noinline__
#undef __launch_bounds__
#undef __grid_constant__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __grid_constant__
inline thread_local uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline void (*emu_barrier_hook)() = nullptr;
inline uint32_t (*emu_shfl_up_hook)(uint32_t v, int offset) = nullptr;
using std::max;
using std::min;
/* The emulation drivers' test data: a 32-bit xorshift, one stream a process. */
inline uint32_t emu_random()
{
    static uint32_t state = 12345;
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}
template <class T> inline T __ldg(const T *p)
{
    return *p;
}
inline uint32_t __funnelshift_r(uint32_t lo, uint32_t hi, uint32_t s)
{
    return (uint32_t)(((((uint64_t)hi) << 32) | lo) >> (s & 31));
}
inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s)
{
    uint8_t b[8];
    for (int i = 0; i < 4; i++) {
        b[i] = (x >> (8 * i)) & 0xFF;
        b[4 + i] = (y >> (8 * i)) & 0xFF;
    }
    uint32_t r = 0;
    for (int i = 0; i < 4; i++)
        r |= (uint32_t)b[(s >> (4 * i)) & 7] << (8 * i);
    return r;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c)
{
    for (int i = 0; i < 4; i++)
        c += ((a >> (8 * i)) & 0xFF) * ((b >> (8 * i)) & 0xFF);
    return c;
}
inline float __uint_as_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
inline float __fsub_rn(float a, float b)
{
    return a - b;
}
inline float __fmaf_rn(float a, float b, float c)
{
    return std::fma(a, b, c);
}
inline unsigned __float2uint_rn(float f)
{
    return (unsigned)std::nearbyint(f);
}
inline uint4 make_uint4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint4 r;
    r.x = a;
    r.y = b;
    r.z = c;
    r.w = d;
    return r;
}
template <class T> T tex1Dfetch(cudaTextureObject_t, int)
{
    return T();
}
inline void __syncthreads()
{
    if (emu_barrier_hook) emu_barrier_hook();
}
inline uint32_t __shfl_up_sync(unsigned, uint32_t v, int offset)
{
    return emu_shfl_up_hook(v, offset);
}
#define __shared__
