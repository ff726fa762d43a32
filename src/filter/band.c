/* The rows of one band (band.h). */
#include "filter/band.h"

fxi_band fxi_band_at(int64_t index, int64_t band_rows, int64_t height, int64_t above, int64_t below,
                     bool clip)
{
    fxi_band b;
    b.out_begin = index * band_rows;
    b.out_end = b.out_begin + band_rows < height ? b.out_begin + band_rows : height;
    b.in_begin = b.out_begin - above;
    b.in_end = b.out_end + below;
    if (clip) {
        if (b.in_begin < 0) b.in_begin = 0;
        if (b.in_end > height) b.in_end = height;
    }
    return b;
}
