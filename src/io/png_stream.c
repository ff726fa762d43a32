/* The PNG row-band encoder (io_internal.h). This first form gathers the bands into
 * one image and encodes it whole at close; the interface is what a band-by-band
 * encoder keeps. */
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"

struct fxi_png_stream {
    fx_context *ctx;
    fx_image image;
    int rows_done;
    int compression;
    fxi_byte_sink sink;
};

fx_status fxi_png_stream_open(fx_context *ctx, int width, int height, int channels,
                              fx_sample_type type, int compression, fxi_byte_sink sink,
                              fxi_png_stream **out)
{
    *out = NULL;
    fxi_png_stream *s = calloc(1, sizeof *s);
    FX_RETURN_IF(!s, FX_ENOMEM, "PNG: out of memory for the encoder");
    fx_status st = fx_image_alloc(ctx, &s->image, width, height, channels, type);
    if (st != FX_OK) {
        free(s);
        return st;
    }
    s->ctx = ctx;
    s->compression = compression;
    s->sink = sink;
    *out = s;
    return FX_OK;
}

fx_status fxi_png_stream_write_rows(fxi_png_stream *s, const fx_image *rows)
{
    fx_context *ctx = s->ctx;
    FX_RETURN_IF(rows->width != s->image.width || rows->channels != s->image.channels ||
                     rows->type != s->image.type,
                 FX_EINVAL, "PNG: a band of %dx%d, %d channel(s) of %s does not match the image",
                 rows->width, rows->height, rows->channels, fx_sample_type_name(rows->type));
    FX_RETURN_IF(rows->height > s->image.height - s->rows_done, FX_EINVAL,
                 "PNG: %d more rows than the image's %d", rows->height - (s->image.height - s->rows_done),
                 s->image.height);
    size_t row_bytes = (size_t)rows->width * (size_t)rows->channels * fx_sample_size(rows->type);
    for (int y = 0; y < rows->height; y++)
        memcpy(fx_image_row(&s->image, s->rows_done + y), fx_image_row(rows, y), row_bytes);
    s->rows_done += rows->height;
    return FX_OK;
}

fx_status fxi_png_stream_close(fxi_png_stream *s)
{
    fx_context *ctx = s->ctx;
    fx_status st = FX_OK;
    if (s->rows_done != s->image.height)
        st = fxi_error(ctx, FX_EINVAL, "PNG: closed after %d of %d rows", s->rows_done,
                       s->image.height);
    fxi_buffer buf = {0};
    if (st == FX_OK) st = fxi_png_encode(ctx, &s->image, s->compression, &buf);
    if (st == FX_OK) st = s->sink.write(s->sink.opaque, buf.data, buf.size);
    fxi_buffer_release(&buf);
    fxi_png_stream_discard(s);
    return st;
}

void fxi_png_stream_discard(fxi_png_stream *s)
{
    if (!s) return;
    fx_image_free(&s->image);
    free(s);
}
