/* fxi_band_at (src/filter/band.c), the one rule for a band of output rows and the
 * input rows it reads, against brute force: every output row of the band, every tap
 * of the kernel, every anchor. */
#include <stdint.h>

#include "filter/band.h"
#include "fxtest.h"

#define MAX_HEIGHT 23
#define MAX_KERNEL 7

enum { CONSTANT, REPLICATE, REFLECT, REFLECT101, BORDERS };

/* The row that virtual row p of a column of n rows stands for (-1: the constant
 * border), one reflection at a time as the border rules are defined. */
static int64_t resolve(int64_t p, int64_t n, int border)
{
    while (p < 0 || p >= n) {
        switch (border) {
        case CONSTANT: return -1;
        case REPLICATE: return p < 0 ? 0 : n - 1;
        case REFLECT: p = p < 0 ? -p - 1 : 2 * n - 1 - p; break;
        default:
            if (n == 1) return 0;
            p = p < 0 ? -p : 2 * n - 2 - p;
        }
    }
    return p;
}

/* Virtual rows, as the GPU packs them: exactly the rows the band's outputs read. */
FXT_TEST(virtual_rows_are_those_the_outputs_read)
{
    for (int64_t height = 1; height <= MAX_HEIGHT; height++)
        for (int64_t rows = 1; rows <= height + 2; rows++)
            for (int kh = 1; kh <= MAX_KERNEL; kh++)
                for (int ay = 0; ay < kh; ay++) {
                    int64_t covered = 0;
                    for (int64_t i = 0; i * rows < height; i++) {
                        const fxi_band b = fxi_band_at(i, rows, height, ay, kh - 1 - ay, false);
                        int64_t out_lo = INT64_MAX, out_hi = INT64_MIN;
                        int64_t in_lo = INT64_MAX, in_hi = INT64_MIN;
                        for (int64_t y = 0; y < height; y++) {
                            if (y / rows != i) continue;
                            out_lo = y < out_lo ? y : out_lo;
                            out_hi = y + 1 > out_hi ? y + 1 : out_hi;
                            for (int j = 0; j < kh; j++) {
                                const int64_t v = y - ay + j;
                                in_lo = v < in_lo ? v : in_lo;
                                in_hi = v + 1 > in_hi ? v + 1 : in_hi;
                            }
                        }
                        if (!FXT_CHECK_EQ(b.out_begin, out_lo) ||
                            !FXT_CHECK_EQ(b.out_end, out_hi) || !FXT_CHECK_EQ(b.in_begin, in_lo) ||
                            !FXT_CHECK_EQ(b.in_end, in_hi)) {
                            printf("  height %lld, rows %lld, kh %d, ay %d, band %lld\n",
                                   (long long)height, (long long)rows, kh, ay, (long long)i);
                            return;
                        }
                        covered += b.out_end - b.out_begin;
                    }
                    FXT_CHECK_EQ(covered, height);
                }
}

/* Clipped rows with kh - 1 either side, as the streamer reads them: the image rows
 * the outputs read under any anchor, cut to the image. */
FXT_TEST(clipped_rows_cover_every_anchor)
{
    for (int64_t height = 1; height <= MAX_HEIGHT; height++)
        for (int64_t rows = 1; rows <= height; rows++)
            for (int kh = 1; kh <= MAX_KERNEL; kh++)
                for (int64_t i = 0; i * rows < height; i++) {
                    const fxi_band b = fxi_band_at(i, rows, height, kh - 1, kh - 1, true);
                    int64_t lo = INT64_MAX, hi = INT64_MIN;
                    for (int64_t y = i * rows; y < height && y < (i + 1) * rows; y++)
                        for (int ay = 0; ay < kh; ay++)
                            for (int j = 0; j < kh; j++) {
                                const int64_t v = y - ay + j;
                                if (v < 0 || v >= height) continue;
                                lo = v < lo ? v : lo;
                                hi = v + 1 > hi ? v + 1 : hi;
                            }
                    if (!FXT_CHECK_EQ(b.in_begin, lo) || !FXT_CHECK_EQ(b.in_end, hi)) {
                        printf("  height %lld, rows %lld, kh %d, band %lld\n", (long long)height,
                               (long long)rows, kh, (long long)i);
                        return;
                    }
                }
}

/* What makes streaming exact: filtering the clipped band as an image of its own, each
 * output row it keeps reads the same image rows (border rules included) as in the
 * whole image, for every border but wrap, when a band holds the kernel's height. */
FXT_TEST(band_as_its_own_image_reads_the_whole_images_rows)
{
    for (int border = 0; border < BORDERS; border++)
        for (int64_t height = 1; height <= MAX_HEIGHT; height++)
            for (int kh = 1; kh <= MAX_KERNEL; kh++)
                for (int64_t rows = kh; rows <= height; rows++)
                    for (int ay = 0; ay < kh; ay++)
                        for (int64_t i = 0; i * rows < height; i++) {
                            const fxi_band b = fxi_band_at(i, rows, height, kh - 1, kh - 1, true);
                            const int64_t local_height = b.in_end - b.in_begin;
                            for (int64_t y = b.out_begin; y < b.out_end; y++)
                                for (int j = 0; j < kh; j++) {
                                    const int64_t whole = resolve(y - ay + j, height, border);
                                    int64_t local =
                                        resolve(y - b.in_begin - ay + j, local_height, border);
                                    if (local >= 0) local += b.in_begin;
                                    if (!FXT_CHECK_EQ(local, whole)) {
                                        printf("  border %d, height %lld, rows %lld, kh %d, ay "
                                               "%d, y %lld, tap %d\n",
                                               border, (long long)height, (long long)rows, kh, ay,
                                               (long long)y, j);
                                        return;
                                    }
                                }
                        }
}

FXT_MAIN(FXT_CASE(virtual_rows_are_those_the_outputs_read),
         FXT_CASE(clipped_rows_cover_every_anchor),
         FXT_CASE(band_as_its_own_image_reads_the_whole_images_rows))
