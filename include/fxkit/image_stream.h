/* fxkit — images read and written in bands of rows.
 *
 * A reader delivers an image's rows top to bottom, a band at a time; a writer takes
 * them the same way. A job that works band by band then goes from file to file
 * with memory for its bands, not for the image:
 *
 *   PGM/PPM/PFM (binary)  rows read and written in place, one system call a band
 *   PNG                   rows decoded progressively (libspng); written through the
 *                         PNG band encoder
 *   JPEG, ASCII PGM/PPM,  decoded whole when the reader opens, then handed out in
 *   interlaced PNG        bands; a JPEG writer gathers the image and encodes it at
 *                         close. Memory for these is the whole image, not the bands
 *                         (libturbojpeg has no row interface).
 *
 * fx_image_reader_info says which of the two a file gets (rows_streamed).
 * Truncated and corrupt files fail with the same status and detail as
 * fx_image_read_file gives them, at open or at the band where the damage is.
 * A writer writes to a temporary file beside the target and renames it into place
 * at close: the target is never half-written, and nothing is left after a failure
 * or fx_image_writer_discard.
 */
#ifndef FXKIT_IMAGE_STREAM_H
#define FXKIT_IMAGE_STREAM_H

#include <stdbool.h>

#include "io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_image_info {
    int width, height, channels;
    fx_sample_type type;  /* what the decoders give: u8, u16 or f32 */
    fx_image_format format;
    bool rows_streamed;   /* false: decoded whole (see above) */
} fx_image_info;

/* The shape of an image file from its header, without decoding the pixels
 * (for PNG and PGM/PPM/PFM a few kilobytes are read; a JPEG is read but not
 * decoded). Checked against the context's limits like a decode. */
FX_API fx_status fx_image_probe_file(fx_context *ctx, const char *path, fx_image_info *info);

typedef struct fx_image_reader fx_image_reader;

FX_API fx_status fx_image_reader_open(fx_context *ctx, const char *path, fx_image_reader **out);
FX_API void fx_image_reader_info(const fx_image_reader *reader, fx_image_info *info);
/* Decode the next rows, at most max_rows of them, into rows 0, 1, … of band: a
 * host image of the reader's width, channels and type with at least max_rows rows
 * (any stride). *got is the number delivered: 0 at the end of the image. After an
 * error the reader can only be closed. */
FX_API fx_status fx_image_reader_read_rows(fx_image_reader *reader, fx_image *band, int max_rows,
                                           int *got);
FX_API void fx_image_reader_close(fx_image_reader *reader);

typedef struct fx_image_writer fx_image_writer;

/* Start writing an image of this shape; the format comes from opts->format or the
 * path's extension, as for fx_image_write_file, and must hold the shape. opts may
 * be NULL for the defaults. */
FX_API fx_status fx_image_writer_open(fx_context *ctx, const char *path, int width, int height,
                                      int channels, fx_sample_type type,
                                      const fx_image_write_options *opts, fx_image_writer **out);
/* The next band->height rows, top to bottom (band: width, channels and type as
 * opened, any stride). After an error the writer can only be discarded. */
FX_API fx_status fx_image_writer_write_rows(fx_image_writer *writer, const fx_image *band);
/* Finish the file (every row must have been written) and move it into place; frees
 * the writer. On failure nothing is left at the path. */
FX_API fx_status fx_image_writer_close(fx_image_writer *writer);
/* Give up: free the writer and remove what it wrote. Safe on NULL. */
FX_API void fx_image_writer_discard(fx_image_writer *writer);

#ifdef __cplusplus
}
#endif
#endif
