/* A band of output rows and the input rows they read: the one rule behind the
 * streamed filter (stream.c) and the GPU's row bands (gpu_geometry.c's fxi_gpu_band_at).
 * Plain C with no fxkit types, so the geometry tests and the GPU host code include it
 * alike. */
#ifndef FXKIT_FILTER_BAND_H
#define FXKIT_FILTER_BAND_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fxi_band {
    int64_t out_begin, out_end; /* output rows [out_begin, out_end) */
    int64_t in_begin, in_end;   /* the input rows they read, [in_begin, in_end) */
} fxi_band;

/* Band `index` (from 0) of bands of band_rows output rows over an image of `height`
 * rows (the last band may be shorter), where output row y reads the input rows
 * y - above … y + below (a kernel kh rows tall anchored at row ay: above = ay,
 * below = kh - 1 - ay). Without clip the input rows are virtual: those outside
 * [0, height) stand for the rows the border rule names. With clip they are cut to
 * the image. */
fxi_band fxi_band_at(int64_t index, int64_t band_rows, int64_t height, int64_t above, int64_t below,
                     bool clip);

#ifdef __cplusplus
}
#endif
#endif
