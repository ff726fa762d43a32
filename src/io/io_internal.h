/* Internal interface between the image file front end (image_io.c) and the
 * codecs (png.c, jpeg.c, pnm.c). Decoders take the whole file in memory and
 * allocate the image; encoders produce the whole file in memory, which
 * image_io.c writes out, so that every codec shares one checked write path.
 */
#ifndef FXKIT_IO_INTERNAL_H
#define FXKIT_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* An encoded file in memory and the function that frees it (codec libraries
 * hand out buffers from their own allocators). */
typedef struct fxi_buffer {
    uint8_t *data;
    size_t size;
    void (*release)(void *data);
} fxi_buffer;

/* Free the buffer (safe on a zeroed one) and zero it. */
void fxi_buffer_release(fxi_buffer *buf);

/* Each decoder overwrites *img with a newly allocated image, or leaves it zeroed
 * on failure. The data has already been identified by its signature. */
fx_status fxi_png_decode(fx_context *ctx, const uint8_t *data, size_t size, fx_image *img);
fx_status fxi_jpeg_decode(fx_context *ctx, const uint8_t *data, size_t size, fx_image *img);
/* PGM/PPM (P2, P3, P5, P6) and PFM (Pf, PF). */
fx_status fxi_pnm_decode(fx_context *ctx, const uint8_t *data, size_t size, fx_image *img);

/* How the PNG writer compresses: compression is FX_PNG_COMPRESSION_FAST (its own
 * Huffman coder) or a zlib level 0..9; filter an fx_png_filter; band_rows the rows
 * compressed as one unit on one thread (0: about FXI_PNG_BAND_BYTES of pixels). */
typedef struct fxi_png_params {
    int compression;
    int filter;
    int band_rows;
} fxi_png_params;
#define FXI_PNG_BAND_BYTES ((size_t)512 << 10)

/* Encoders; the caller has checked that the format holds the image's shape and type. */
fx_status fxi_png_encode(fx_context *ctx, const fx_image *img, const fxi_png_params *params,
                         fxi_buffer *out);
fx_status fxi_jpeg_encode(fx_context *ctx, const fx_image *img, int quality, fxi_buffer *out);
fx_status fxi_pnm_encode(fx_context *ctx, const fx_image *img, fxi_buffer *out);
fx_status fxi_pfm_encode(fx_context *ctx, const fx_image *img, fxi_buffer *out);

/* Where a streaming encoder puts its bytes, in file order. */
typedef struct fxi_byte_sink {
    fx_status (*write)(void *opaque, const void *data, size_t size);
    void *opaque;
} fxi_byte_sink;

/* A PNG encoder that takes rows in bands, top to bottom, and hands its bytes to a
 * sink as they are ready, so a writer needs memory for a band, not the image.
 * write_rows takes a band of consecutive rows (width, channels and type as opened).
 * close writes what remains (the end of the stream, IEND) and frees the encoder;
 * discard frees it without finishing (after an error). */
typedef struct fxi_png_stream fxi_png_stream;
fx_status fxi_png_stream_open(fx_context *ctx, int width, int height, int channels,
                              fx_sample_type type, int compression, fxi_byte_sink sink,
                              fxi_png_stream **out);
/* The same with the filter and band size chosen (params as fxi_png_encode's). Bands
 * are compressed on the context's threads once enough have arrived to keep them
 * busy; a write_rows call returns once the rows it took need no longer stay valid. */
fx_status fxi_png_stream_open_with(fx_context *ctx, int width, int height, int channels,
                                   fx_sample_type type, const fxi_png_params *params,
                                   fxi_byte_sink sink, fxi_png_stream **out);
fx_status fxi_png_stream_write_rows(fxi_png_stream *s, const fx_image *rows);
fx_status fxi_png_stream_close(fxi_png_stream *s);
void fxi_png_stream_discard(fxi_png_stream *s);

#endif
