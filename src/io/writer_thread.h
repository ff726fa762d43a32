/* An image writer fed from another thread, so that writing band i overlaps whatever
 * the caller does next (filtering band i + 1). One band is in flight at a time: put()
 * waits for the band before, hands the new one over and returns; the band's memory
 * stays the caller's to keep untouched until the next put() or finish() returns.
 *
 * The fx_image_writer must have been opened on a context of its own (wctx), used by no
 * one else while bands are in flight: the writer thread reports its errors there, and
 * put() / finish() copy a failure's detail into the caller's context. */
#ifndef FXKIT_IO_WRITER_THREAD_H
#define FXKIT_IO_WRITER_THREAD_H

#include "core/internal.h"
#include "fxkit/image_stream.h"

typedef struct fxi_writer_thread fxi_writer_thread;

fx_status fxi_writer_thread_start(fx_context *ctx, fx_image_writer *writer, fx_context *wctx,
                                  fxi_writer_thread **out);
/* Wait for the band in flight (its failure is returned, detail in ctx), then hand
 * `band` (rows of the writer's shape) over. */
fx_status fxi_writer_thread_put(fxi_writer_thread *t, const fx_image *band);
/* Wait for the last band, stop the thread and free t (NULL-safe); the milliseconds the
 * thread spent writing are added to timings->encode_ms. Returns the first failure, its
 * detail copied into ctx when `report` (false: the caller fails for a reason of its own,
 * whose detail stays). */
fx_status fxi_writer_thread_finish(fxi_writer_thread *t, bool report, fx_timings *timings);

#endif
