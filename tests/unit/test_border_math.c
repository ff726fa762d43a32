/* core/border_math.h's reflect-101 index (the filter's reflect101 border and CLAHE's
 * padding, on the CPU and in the kernels) against the definition built by brute
 * force: the line walked outward sample by sample, turning at the first and the last
 * sample without repeating them (gfedcb|abcdefgh|gfedcba). */
#include <stdlib.h>

#include "core/border_math.h"
#include "filter/filter_math.h"
#include "fxtest.h"

/* Sizes up to this are checked at every position within NEAR_SPANS lines of the
 * image on either side. */
#define MAX_EXHAUSTIVE_SIZE 64
#define NEAR_SPANS 5
/* Far positions: a walk this long each way, for a few sizes. */
#define FAR_DISTANCE 1000000

/* The index at p: start at sample 0 and take |p| steps in p's direction, a step that
 * would leave the line turning back instead (which skips the edge sample, so it is
 * not repeated); a line of one sample stays where it is. */
static int64_t walk_reflect101(int64_t p, int64_t n)
{
    if (n == 1) return 0;
    int64_t at = 0, dir = p < 0 ? -1 : 1;
    for (int64_t steps = p < 0 ? -p : p; steps > 0; steps--) {
        if (at + dir < 0 || at + dir >= n) dir = -dir;
        at += dir;
    }
    return at;
}

FXT_TEST(reflect101_matches_the_mirror_walk_near_the_line)
{
    int bad = 0;
    for (int64_t n = 1; n <= MAX_EXHAUSTIVE_SIZE; n++) {
        /* One walk per direction, compared at every step. */
        for (int dir = -1; dir <= 1; dir += 2) {
            int64_t at = 0, d = dir;
            for (int64_t k = 0; k <= NEAR_SPANS * n + 2; k++) {
                const int64_t p = dir * k;
                if (fxi_reflect101(p, n) != at) {
                    if (bad++ < 10)
                        fprintf(stderr, "  n %lld p %lld: %lld, walk %lld\n", (long long)n,
                                (long long)p, (long long)fxi_reflect101(p, n), (long long)at);
                }
                if (n > 1) {
                    if (at + d < 0 || at + d >= n) d = -d;
                    at += d;
                }
            }
        }
    }
    FXT_CHECK_EQ(bad, 0);
}

FXT_TEST(reflect101_matches_the_mirror_walk_far_outside)
{
    static const int64_t sizes[] = {1, 2, 3, 4, 7, 100, 1023, 4096};
    static const int64_t offsets[] = {0, 1, 2, 5, 99, 1001};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
            for (int sign = -1; sign <= 1; sign += 2) {
                const int64_t p = sign * (FAR_DISTANCE + offsets[o]);
                FXT_CHECK_EQ(fxi_reflect101(p, sizes[s]), walk_reflect101(p, sizes[s]));
            }
}

/* Positions whose walk would be too long: the pattern repeats every 2n - 2 samples
 * (the walk is back at 0, moving forward), so p = m (2n - 2) + k must give the walk's
 * index at k. The walks to +-k are taken step by step once per size. */
FXT_TEST(reflect101_extreme_positions)
{
    static const int64_t sizes[] = {2, 3, 5, 1000, 65536};
    static const int64_t far[] = {INT64_MAX / 2, INT64_MIN / 2, (int64_t)1 << 40,
                                  -((int64_t)1 << 40) - 7};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int64_t n = sizes[s], period = 2 * n - 2, span = 2 * n;
        int64_t *fwd = malloc((size_t)(span + 1) * sizeof *fwd);
        int64_t *bwd = malloc((size_t)(span + 1) * sizeof *bwd);
        if (!FXT_CHECK(fwd && bwd)) return;
        for (int dir = -1; dir <= 1; dir += 2) {
            int64_t *walk = dir < 0 ? bwd : fwd, at = 0, d = dir;
            for (int64_t k = 0; k <= span; k++) {
                walk[k] = at;
                if (at + d < 0 || at + d >= n) d = -d;
                at += d;
            }
        }
        int bad = 0;
        for (size_t f = 0; f < sizeof far / sizeof *far; f++) {
            const int64_t p = far[f] - far[f] % period; /* a multiple of the period */
            for (int64_t k = 0; k <= span; k++)
                bad += fxi_reflect101(p + k, n) != fwd[k] || fxi_reflect101(p - k, n) != bwd[k];
        }
        FXT_CHECK_EQ(bad, 0);
        free(fwd);
        free(bwd);
    }
    FXT_CHECK_EQ(fxi_reflect101(INT64_MAX / 2, 1), 0);
    FXT_CHECK_EQ(fxi_reflect101(INT64_MIN / 2, 1), 0);
}

/* The filter's border switch and CLAHE's padding use this one definition. */
FXT_TEST(filter_border_reflect101_is_the_core_function)
{
    for (int64_t n = 1; n <= 9; n++)
        for (int64_t p = -40; p <= 40; p++)
            FXT_CHECK_EQ(fxi_border_index(p, n, FXI_REFLECT101), walk_reflect101(p, n));
}

FXT_MAIN(FXT_CASE(reflect101_matches_the_mirror_walk_near_the_line),
         FXT_CASE(reflect101_matches_the_mirror_walk_far_outside),
         FXT_CASE(reflect101_extreme_positions),
         FXT_CASE(filter_border_reflect101_is_the_core_function))
