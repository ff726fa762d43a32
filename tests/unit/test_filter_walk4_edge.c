/* filter/walk4_edge.h, the row sums the 8-bit walk kernel's (gpu_u8.cu k_u8_walk4) edge
 * threads compute, against a plain reference: for output element e of a row (pixel
 * e / C, channel e % C) and tap j, the sample at pixel e / C - ax + j by the border
 * rule, or the channel's border value. Every thread of rows 1..40 pixels wide is
 * checked (left edges, right edges, both at once on narrow rows, the inside too), for
 * every border, C = 1..4, K = 3 and 5, every anchor, box and weighted taps. */

#include "filter/walk4_edge.h"
#include "fxtest.h"

/* A small deterministic generator (xorshift32): the same cases everywhere. */
static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

#define MAX_WIDTH 40
#define MAX_CHANNELS 4

/* The reference's sample: pixel x (any integer) of the row, channel c. */
static uint32_t reference_sample(const uint8_t *row, int64_t x, int c, int channels, int64_t width,
                                 int border, const double *border_value)
{
    const int64_t xx = fxi_border_index(x, width, border);
    return xx < 0 ? (uint32_t)border_value[c] : row[xx * channels + c];
}

/* Row sum of output element e: taps over pixels e / C - ax .. + K - 1; a constant row
 * (row NULL) is the border value everywhere. */
static uint32_t reference_row_sum(const uint8_t *row, int64_t e, int k, int ax, int channels,
                                  int64_t width, int border, const double *border_value,
                                  const uint32_t *taps)
{
    const int64_t x = e / channels;
    const int c = (int)(e % channels);
    uint32_t sum = 0;
    for (int j = 0; j < k; j++) {
        const uint32_t v =
            row ? reference_sample(row, x - ax + j, c, channels, width, border, border_value)
                : (uint32_t)border_value[c];
        sum += (taps ? taps[j] : 1u) * v;
    }
    return sum;
}

/* Every thread (e0 = 0, 4, 8 ... below the row's elements) of every shape: its 4 sums,
 * from its pixels resolved once, against the reference; returns the mismatches. */
static int check_shapes(int k, int channels, int border, const uint32_t *taps,
                        const double *border_value, uint32_t *seed)
{
    int bad = 0;
    uint8_t row[MAX_WIDTH * MAX_CHANNELS];
    for (int64_t width = 1; width <= MAX_WIDTH; width++) {
        const int64_t n = width * channels;
        for (int64_t i = 0; i < n; i++)
            row[i] = (uint8_t)(next_random(seed) & 0xFF);
        for (int ax = 0; ax < k; ax++) {
            for (int64_t e0 = 0; e0 < n; e0 += 4) {
                const int64_t first = e0 - (int64_t)ax * channels;
                const int64_t px0 = fxi_walk4_first_pixel(first, channels);
                const int phase = (int)(first - px0 * channels);
                if (phase < 0 || phase > FXI_WALK4_MAX_PHASE(channels)) bad++;
                const int count = FXI_WALK4_PIXELS(k, channels);
                int32_t pixels[FXI_WALK4_MAX_PIXELS];
                for (int i = 0; i < count; i++) /* as the kernel resolves them */
                    pixels[i] = fxi_walk4_edge_column(px0 + i, width, channels, border);
                const uint32_t border_bytes = fxi_walk4_border_bytes(border_value, channels);
                uint32_t sums[4], constant[4];
                fxi_walk4_edge_row_sums(row, pixels, phase, k, channels, taps, border_bytes, sums);
                fxi_walk4_constant_row_sums(phase, k, channels, taps, border_bytes, constant);
                /* outputs past the row are not stored: only those below n count */
                for (int m = 0; m < 4 && e0 + m < n; m++) {
                    const uint32_t want = reference_row_sum(row, e0 + m, k, ax, channels, width,
                                                            border, border_value, taps);
                    const uint32_t want_constant = reference_row_sum(
                        NULL, e0 + m, k, ax, channels, width, border, border_value, taps);
                    if (sums[m] != want || constant[m] != want_constant) {
                        if (bad++ < 10)
                            fprintf(stderr,
                                    "  K %d C %d border %d width %lld ax %d e0 %lld output %d: "
                                    "%u (want %u), constant row %u (want %u)\n",
                                    k, channels, border, (long long)width, ax, (long long)e0, m,
                                    sums[m], want, constant[m], want_constant);
                    }
                }
            }
        }
    }
    return bad;
}

FXT_TEST(walk4_edge_row_sums_match_the_reference)
{
    uint32_t seed = 26;
    int bad = 0;
    for (int k = 3; k <= 5; k += 2) {
        for (int channels = 1; channels <= MAX_CHANNELS; channels++) {
            for (int border = FXI_CONSTANT; border <= FXI_WRAP; border++) {
                double border_value[MAX_CHANNELS];
                for (int c = 0; c < MAX_CHANNELS; c++)
                    border_value[c] = c == 0 ? 255 : (double)(next_random(&seed) & 0xFF);
                /* weighted taps with 255 * their sum <= 65535, as the kernel requires */
                uint32_t taps[5];
                for (int j = 0; j < k; j++)
                    taps[j] = 1 + (uint32_t)(next_random(&seed) % (257 / k));
                bad += check_shapes(k, channels, border, taps, border_value, &seed);
                bad += check_shapes(k, channels, border, NULL, border_value, &seed);
            }
        }
    }
    FXT_CHECK_EQ(bad, 0);
}

/* Every output's pixels lie within the FXI_WALK4_PIXELS the kernel resolves: the sums
 * read no slot past them (checked by filling the slots past them with a pixel whose
 * bytes would change every sum). */
FXT_TEST(walk4_edge_row_sums_read_only_the_resolved_pixels)
{
    const uint8_t row[8] = {1, 2, 3, 4, 200, 201, 202, 203};
    const uint32_t taps[5] = {1, 2, 3, 4, 5};
    for (int k = 3; k <= 5; k += 2)
        for (int channels = 1; channels <= MAX_CHANNELS; channels++)
            for (int phase = 0; phase <= FXI_WALK4_MAX_PHASE(channels); phase++) {
                const int count = FXI_WALK4_PIXELS(k, channels);
                int32_t pixels[FXI_WALK4_MAX_PIXELS + 8], poisoned[FXI_WALK4_MAX_PIXELS + 8];
                for (int i = 0; i < FXI_WALK4_MAX_PIXELS + 8; i++) {
                    pixels[i] = 0;
                    poisoned[i] = i < count ? 0 : 4; /* bytes 200 .. 203 */
                }
                uint32_t want[4], got[4];
                fxi_walk4_edge_row_sums(row, pixels, phase, k, channels, taps, 0, want);
                fxi_walk4_edge_row_sums(row, poisoned, phase, k, channels, taps, 0, got);
                for (int m = 0; m < 4; m++)
                    FXT_CHECK_EQ(got[m], want[m]);
            }
}

/* The edge threads of a row (walk4_edge.h's fxi_walk4_inside_threads) against the
 * predicate thread by thread, and the edge blocks' groups: each edge thread's E / 4
 * groups exactly once, no inside thread's, for rows of 1 to 300 elements, E = 4 and 8,
 * K = 3 and 5, C = 1..4, every anchor. */
FXT_TEST(walk4_edge_groups_are_the_edge_threads_once)
{
    enum { MAX_N = 300 };
    int bad = 0;
    for (int elements = 4; elements <= 8; elements += 4)
        for (int k = 3; k <= 5; k += 2)
            for (int channels = 1; channels <= MAX_CHANNELS; channels++)
                for (int ax = 0; ax < k; ax++)
                    for (int64_t n = 1; n <= MAX_N; n++) {
                        const int row_words = FXI_WALK4_ROW_WORDS(k, channels, elements);
                        const int64_t lead = (int64_t)ax * channels;
                        const int64_t threads = (n + elements - 1) / elements;
                        int64_t lo, hi;
                        fxi_walk4_inside_threads(n, elements, lead, row_words, &lo, &hi);
                        int seen[MAX_N + 8] = {0}; /* groups by e0 / 4 */
                        const int64_t groups = fxi_walk4_edge_groups(n, elements, lo, hi);
                        /* the kernel divides by it: a row's last thread is an edge thread */
                        bad += groups < 1;
                        for (int64_t g = 0; g < groups; g++) {
                            const int64_t e0 = fxi_walk4_edge_group_e0(g, elements, lo, hi);
                            if (e0 < 0 || e0 % 4 || e0 >= threads * elements) {
                                bad++;
                                continue;
                            }
                            seen[e0 / 4]++;
                        }
                        for (int64_t t = 0; t < threads; t++) {
                            const int inside =
                                fxi_walk4_thread_inside(t, n, elements, lead, row_words);
                            bad += inside != (t >= lo && t < hi);
                            for (int b = 0; b < elements / 4; b++)
                                bad += seen[(elements * t) / 4 + b] != !inside;
                        }
                    }
    FXT_CHECK_EQ(bad, 0);
}

FXT_MAIN(FXT_CASE(walk4_edge_row_sums_match_the_reference),
         FXT_CASE(walk4_edge_row_sums_read_only_the_resolved_pixels),
         FXT_CASE(walk4_edge_groups_are_the_edge_threads_once))
