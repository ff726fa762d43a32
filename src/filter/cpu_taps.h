/* Applying taps to a row on the CPU, shared by the direct and separable strategies.
 *
 * A group of up to four taps is one pass over the output row:
 *   out[x] = start + w0 * p0[x] + w1 * p1[x] + …      (integers: exact, any order)
 *   out[x] = fma(w3, p3[x], fma(w2, p2[x], fma(w1, p1[x], fma(w0, p0[x], start))))
 * where start is `init` for the first group and out[x] after it. For floats that is the
 * plain chain of fused multiply-adds in tap order, whatever the grouping, so the
 * result of every output is fixed by the tap order alone (and a GPU thread doing the
 * same chain gets the same bits).
 */
#ifndef FXKIT_FILTER_CPU_TAPS_H
#define FXKIT_FILTER_CPU_TAPS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define FXI_TAP_GROUP 4

/* Taps in the next group: four, but never a lone tap at the end (5 = 3 + 2,
 * 9 = 4 + 3 + 2), which would cost a pass of its own. */
static inline int fxi_group_size(int remaining)
{
    return remaining == 5 ? 3 : remaining > FXI_TAP_GROUP ? FXI_TAP_GROUP : remaining;
}

#define FXI_SUM1(O) w[0] * (O)p[0][x]
#define FXI_SUM2(O) FXI_SUM1(O) + w[1] * (O)p[1][x]
#define FXI_SUM3(O) FXI_SUM2(O) + w[2] * (O)p[2][x]
#define FXI_SUM4(O) FXI_SUM3(O) + w[3] * (O)p[3][x]
#define FXI_FMA1(S) fmaf(w[0], p[0][x], S)
#define FXI_FMA2(S) fmaf(w[1], p[1][x], FXI_FMA1(S))
#define FXI_FMA3(S) fmaf(w[2], p[2][x], FXI_FMA2(S))
#define FXI_FMA4(S) fmaf(w[3], p[3][x], FXI_FMA3(S))

/* Both loops of a group: from init (first) or from out[x]. */
#define FXI_GROUP_LOOP(EXPR_FROM)                                                                  \
    do {                                                                                           \
        if (first)                                                                                 \
            for (int64_t x = 0; x < n; x++)                                                        \
                out[x] = EXPR_FROM(init);                                                          \
        else                                                                                       \
            for (int64_t x = 0; x < n; x++)                                                        \
                out[x] = EXPR_FROM(out[x]);                                                        \
    } while (0)

#define FXI_INT_FROM1(S) (S) + FXI_SUM1(O_)
#define FXI_INT_FROM2(S) (S) + FXI_SUM2(O_)
#define FXI_INT_FROM3(S) (S) + FXI_SUM3(O_)
#define FXI_INT_FROM4(S) (S) + FXI_SUM4(O_)

/* name(out, p, w, g, first, init, n) for integer sums of type O from samples P. */
#define FXI_DEFINE_APPLY_INT(name, O, P, attr)                                                     \
    attr static void name(O *out, const P *const *p, const O *w, int g, bool first, O init,        \
                          int64_t n)                                                               \
    {                                                                                              \
        typedef O O_;                                                                              \
        switch (g) {                                                                               \
        case 4: FXI_GROUP_LOOP(FXI_INT_FROM4); break;                                              \
        case 3: FXI_GROUP_LOOP(FXI_INT_FROM3); break;                                              \
        case 2: FXI_GROUP_LOOP(FXI_INT_FROM2); break;                                              \
        default: FXI_GROUP_LOOP(FXI_INT_FROM1); break;                                             \
        }                                                                                          \
    }

/* name(out, p, w, g, first, init, n) for float chains from samples P. */
#define FXI_DEFINE_APPLY_F32(name, P, attr)                                                        \
    attr static void name(float *out, const P *const *p, const float *w, int g, bool first,        \
                          float init, int64_t n)                                                   \
    {                                                                                              \
        switch (g) {                                                                               \
        case 4: FXI_GROUP_LOOP(FXI_FMA4); break;                                                   \
        case 3: FXI_GROUP_LOOP(FXI_FMA3); break;                                                   \
        case 2: FXI_GROUP_LOOP(FXI_FMA2); break;                                                   \
        default: FXI_GROUP_LOOP(FXI_FMA1); break;                                                  \
        }                                                                                          \
    }

/* The apply functions of one instruction set, named with its suffix. */
#define FXI_DEFINE_APPLIES(suffix, attr)                                                           \
    FXI_DEFINE_APPLY_INT(apply_i32_i32_##suffix, int32_t, int32_t, attr)                           \
    FXI_DEFINE_APPLY_INT(apply_i32_u8_##suffix, int32_t, uint8_t, attr)                            \
    FXI_DEFINE_APPLY_INT(apply_i64_i64_##suffix, int64_t, int64_t, attr)                           \
    FXI_DEFINE_APPLY_F32(apply_f32_f32_##suffix, float, attr)                                      \
    FXI_DEFINE_APPLY_F32(apply_f32_u8_##suffix, uint8_t, attr)

/* One tap list (pointers and weights, zero weights already left out) applied to out:
 * groups in order, the first from init. Generic over the apply function. */
#define FXI_APPLY_TAPS(apply, out, ptrs, weights, count, init, n)                                  \
    do {                                                                                           \
        bool first_ = true;                                                                        \
        for (int k_ = 0; k_ < (count);) {                                                          \
            int g_ = fxi_group_size((count)-k_);                                                   \
            apply((out), (ptrs) + k_, (weights) + k_, g_, first_, (init), (n));                    \
            first_ = false;                                                                        \
            k_ += g_;                                                                              \
        }                                                                                          \
        if (first_)                                                                                \
            for (int64_t x_ = 0; x_ < (n); x_++)                                                   \
                (out)[x_] = (init);                                                                \
    } while (0)

#endif
