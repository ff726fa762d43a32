/* The input rows of a streamed filter's bands, decoded one band ahead on a thread of
 * their own (fx_filter_file), so that decoding band i + 1 overlaps filtering band i
 * (on the GPU: its upload, compute and download) as the writer thread overlaps the
 * write of band i - 1 (io/writer_thread.h).
 *
 * Band i's input rows (fxi_band_at with clip) are rows 0, 1, … of buffer i % 2. The
 * thread fills buffer i % 2 with band i once band i - 2 is released: it copies the rows
 * band i shares with band i - 1 from the other buffer (both only read them) and
 * decodes the rest.
 *
 * The fx_image_reader must have been opened on a context of its own (rctx), used by no
 * one else until finish(): the thread reports its errors there, and get() / finish()
 * copy a failure's detail into the caller's context. */
#ifndef FXKIT_FILTER_BAND_READER_H
#define FXKIT_FILTER_BAND_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"
#include "fxkit/image_stream.h"

typedef struct fxi_band_reader fxi_band_reader;

/* The bands: band_rows output rows each over `height` rows, each reading `halo` rows
 * above and below (clipped to the image). buffers[0] and [1] hold the largest band's
 * input rows; they stay the caller's, untouched by it until finish() returns. */
typedef struct fxi_band_reader_setup {
    fx_image_reader *reader;
    fx_context *rctx;
    fx_image buffers[2];
    int64_t band_rows, height, halo;
} fxi_band_reader_setup;

fx_status fxi_band_reader_start(fx_context *ctx, const fxi_band_reader_setup *setup,
                                fxi_band_reader **out);
/* Wait until band `index` (0, 1, … in turn) is decoded; *rows: its input rows. A failure
 * of the thread is returned with its detail copied into ctx. */
fx_status fxi_band_reader_get(fxi_band_reader *t, int64_t index, fx_image *rows);
/* Band `index` is filtered: its buffer may take band index + 2. */
void fxi_band_reader_release(fxi_band_reader *t, int64_t index);
/* Stop the thread (NULL-safe) and free t; the milliseconds it spent decoding are added
 * to timings->decode_ms. */
void fxi_band_reader_finish(fxi_band_reader *t, fx_timings *timings);

#endif
