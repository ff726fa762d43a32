/* Hot loops are compiled twice: for the baseline x86-64 (or any other CPU) and for
 * AVX2 with FMA, picked once at run time. The loops are plain C that the compiler
 * vectorises; FXI_SIMD_VARIANTS(define) expands `define(suffix, attributes)` for both. */
#ifndef FXKIT_CPU_SIMD_H
#define FXKIT_CPU_SIMD_H

#include <stdbool.h>

#if defined(__x86_64__) || defined(__i386__)
#define FXI_HAVE_AVX2_VARIANT 1
#define FXI_SIMD_VARIANTS(define) define(base, ) define(avx2, __attribute__((target("avx2,fma"))))
static inline bool fxi_cpu_has_avx2(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#define FXI_PICK(name) (fxi_cpu_has_avx2() ? name##_avx2 : name##_base)
#else
#define FXI_SIMD_VARIANTS(define) define(base, )
#define FXI_PICK(name) (name##_base)
#endif

#endif
