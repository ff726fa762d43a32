/* PNG in memory: decoding through libspng (banded rows too); encoding through the
 * project's own banded encoder (png_stream.c) into a growing buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spng.h>

#include "io/io_internal.h"

/* Largest single chunk and total cached ancillary chunk data we accept: real
 * files stay far below this, hostile ones cannot make libspng hold more. */
#define PNG_CHUNK_LIMIT ((size_t)64 << 20)

/* The end chunk: length 0, "IEND", and its CRC, the same in every PNG. */
static const uint8_t PNG_IEND_CHUNK[] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};

#define PNG_BITS_8 8
#define PNG_BITS_16 16

typedef struct png_layout {
    int channels;
    fx_sample_type type;
    int spng_format; /* what spng_decode_image is asked for */
    int flags;       /* spng_decode_flags */
} png_layout;

/* The fxkit image a PNG header decodes to. 8- and 16-bit images are decoded in
 * their own layout (SPNG_FMT_PNG: 16-bit in host byte order); gray below 8 bits
 * is expanded to 8-bit (SPNG_FMT_G8 scales to full range) and palettes to RGB,
 * or RGBA when a tRNS chunk gives the palette transparency. */
static fx_status png_layout_of(fx_context *ctx, spng_ctx *png, const struct spng_ihdr *ihdr,
                               png_layout *lay)
{
    bool wide = ihdr->bit_depth == PNG_BITS_16;
    lay->type = wide ? FX_U16 : FX_U8;
    lay->spng_format = SPNG_FMT_PNG;
    lay->flags = 0;
    switch (ihdr->color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
        lay->channels = 1;
        if (ihdr->bit_depth < PNG_BITS_8) lay->spng_format = SPNG_FMT_G8;
        return FX_OK;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: lay->channels = 2; return FX_OK;
    case SPNG_COLOR_TYPE_TRUECOLOR: lay->channels = 3; return FX_OK;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: lay->channels = 4; return FX_OK;
    case SPNG_COLOR_TYPE_INDEXED: {
        struct spng_trns trns;
        bool has_trns = spng_get_trns(png, &trns) == 0;
        lay->type = FX_U8;
        lay->channels = has_trns ? 4 : 3;
        lay->spng_format = has_trns ? SPNG_FMT_RGBA8 : SPNG_FMT_RGB8;
        lay->flags = has_trns ? SPNG_DECODE_TRNS : 0;
        return FX_OK;
    }
    default:
        return fxi_error(ctx, FX_EFORMAT, "PNG header: unknown color type %d", ihdr->color_type);
    }
}

static fx_status spng_failure(fx_context *ctx, const char *what, int err)
{
    if (err == SPNG_EUSER_WIDTH || err == SPNG_EUSER_HEIGHT)
        return fxi_error(ctx, FX_ELIMIT, "PNG %s: image size exceeds the limit of %d pixels a side",
                         what, ctx->limits.max_dimension);
    if (err == SPNG_EMEM) return fxi_error(ctx, FX_ENOMEM, "PNG %s: out of memory", what);
    /* libspng says only "end of stream" for a file that stops early. */
    if (err == SPNG_IO_EOF)
        return fxi_error(ctx, FX_EFORMAT, "PNG %s: truncated (the file ends early)", what);
    return fxi_error(ctx, FX_EFORMAT, "PNG %s: %s", what, spng_strerror(err));
}

static fx_status decode_with(fx_context *ctx, spng_ctx *png, const uint8_t *data, size_t size,
                             fx_image *img)
{
    int err = spng_set_png_buffer(png, data, size);
    if (!err)
        err = spng_set_image_limits(png, (uint32_t)ctx->limits.max_dimension,
                                    (uint32_t)ctx->limits.max_dimension);
    if (!err) err = spng_set_chunk_limits(png, PNG_CHUNK_LIMIT, PNG_CHUNK_LIMIT);
    if (err) return spng_failure(ctx, "setup", err);

    struct spng_ihdr ihdr;
    err = spng_get_ihdr(png, &ihdr);
    if (err) return spng_failure(ctx, "header", err);
    png_layout lay = {0};
    FXI_TRY(png_layout_of(ctx, png, &ihdr, &lay));
    FXI_TRY(fx_image_check_limits(ctx, ihdr.width, ihdr.height, (uint64_t)lay.channels));

    /* The common layouts take the faster path (png_inflate.c). */
    if (lay.spng_format == SPNG_FMT_PNG && lay.flags == 0 && ihdr.bit_depth >= PNG_BITS_8 &&
        ihdr.interlace_method == SPNG_INTERLACE_NONE)
        return fxi_png_decode_plain(ctx, data, size, (int)ihdr.width, (int)ihdr.height,
                                    lay.channels, lay.type, img);

    size_t need;
    err = spng_decoded_image_size(png, lay.spng_format, &need);
    if (err) return spng_failure(ctx, "header", err);
    FXI_TRY(fx_image_alloc(ctx, img, (int)ihdr.width, (int)ihdr.height, lay.channels, lay.type));
    /* fx_image_alloc makes tight rows, which is what libspng writes. */
    if (need != img->stride * (size_t)img->height) {
        fx_image_free(img);
        return fxi_error(ctx, FX_EFORMAT, "PNG: decoded size %zu does not match %dx%dx%d", need,
                         (int)ihdr.width, (int)ihdr.height, lay.channels);
    }
    err = spng_decode_image(png, img->data, need, lay.spng_format, lay.flags);
    /* Read the chunks after the image up to IEND, so that a cut file fails. */
    if (!err) err = spng_decode_chunks(png);
    if (err) {
        fx_image_free(img);
        return spng_failure(ctx, "data", err);
    }
    /* libspng accepts an IEND whose CRC was cut off; the complete chunk is constant. */
    if (!memmem(data, size, PNG_IEND_CHUNK, sizeof PNG_IEND_CHUNK)) {
        fx_image_free(img);
        return fxi_error(ctx, FX_EFORMAT, "PNG data: truncated (no complete IEND chunk)");
    }
    return FX_OK;
}

fx_status fxi_png_decode(fx_context *ctx, const uint8_t *data, size_t size, fx_image *img)
{
    memset(img, 0, sizeof *img);
    spng_ctx *png = spng_ctx_new(0);
    FXI_RETURN_IF(!png, FX_ENOMEM, "PNG: cannot create a decoder");
    fx_status status = decode_with(ctx, png, data, size, img);
    spng_ctx_free(png);
    return status;
}

/* ---- rows of a file, for the row reader (image_stream.c) ---- */

struct fxi_png_rows {
    fx_context *ctx;
    spng_ctx *png;
    FILE *file;
    uint64_t file_size;
    png_layout lay;
    size_t row_bytes;
};

void fxi_png_rows_close(fxi_png_rows *r)
{
    if (!r) return;
    spng_ctx_free(r->png);
    if (r->file) fclose(r->file); /* read-only: nothing to lose on close */
    free(r);
}

static fx_status rows_start(fx_context *ctx, fxi_png_rows *r, bool header_only,
                            fxi_png_shape *shape)
{
    int err = spng_set_png_file(r->png, r->file);
    if (!err)
        err = spng_set_image_limits(r->png, (uint32_t)ctx->limits.max_dimension,
                                    (uint32_t)ctx->limits.max_dimension);
    if (!err) err = spng_set_chunk_limits(r->png, PNG_CHUNK_LIMIT, PNG_CHUNK_LIMIT);
    if (err) return spng_failure(ctx, "setup", err);
    struct spng_ihdr ihdr;
    err = spng_get_ihdr(r->png, &ihdr);
    if (err) return spng_failure(ctx, "header", err);
    FXI_TRY(png_layout_of(ctx, r->png, &ihdr, &r->lay));
    FXI_TRY(fx_image_check_limits(ctx, ihdr.width, ihdr.height, (uint64_t)r->lay.channels));
    *shape = (fxi_png_shape){(int)ihdr.width, (int)ihdr.height, r->lay.channels, r->lay.type,
                             ihdr.interlace_method != SPNG_INTERLACE_NONE};
    r->row_bytes = (size_t)shape->width * (size_t)shape->channels * fx_sample_size(shape->type);
    if (header_only || shape->interlaced) return FX_OK;
    err = spng_decode_image(r->png, NULL, 0, r->lay.spng_format,
                            r->lay.flags | SPNG_DECODE_PROGRESSIVE);
    if (err) return spng_failure(ctx, "data", err);
    return FX_OK;
}

fx_status fxi_png_rows_open(fx_context *ctx, fxi_in_file *file, bool header_only,
                            fxi_png_shape *shape, fxi_png_rows **out)
{
    *out = NULL;
    fxi_png_rows *r = calloc(1, sizeof *r);
    FILE *f = r ? fdopen(file->fd, "rb") : NULL;
    if (!f) {
        free(r);
        fxi_in_close(file);
        return fxi_error(ctx, FX_ENOMEM, "PNG: out of memory for a decoder");
    }
    file->fd = -1; /* the FILE owns it now */
    r->ctx = ctx;
    r->file = f;
    r->file_size = file->size;
    r->png = spng_ctx_new(0);
    fx_status st = r->png ? rows_start(ctx, r, header_only, shape)
                          : fxi_error(ctx, FX_ENOMEM, "PNG: cannot create a decoder");
    if (st != FX_OK) {
        fxi_png_rows_close(r);
        return st;
    }
    *out = r;
    return FX_OK;
}

fx_status fxi_png_rows_read(fxi_png_rows *r, uint8_t *row)
{
    int err = spng_decode_row(r->png, row, r->row_bytes);
    /* SPNG_EOI comes with the last row. */
    if (err && err != SPNG_EOI) return spng_failure(r->ctx, "data", err);
    return FX_OK;
}

/* Enough of the file's end to find the IEND chunk after trailing bytes that some
 * writers leave; a file with more junk than this after IEND is refused. */
#define IEND_SEARCH_BYTES 4096

fx_status fxi_png_rows_finish(fxi_png_rows *r)
{
    fx_context *ctx = r->ctx;
    int err = spng_decode_chunks(r->png);
    if (err) return spng_failure(ctx, "data", err);
    /* As in the whole-image decoder: libspng accepts an IEND whose CRC was cut off. */
    uint8_t tail[IEND_SEARCH_BYTES];
    size_t n = r->file_size < sizeof tail ? (size_t)r->file_size : sizeof tail;
    bool found = fseeko(r->file, (off_t)(r->file_size - n), SEEK_SET) == 0 &&
                 fread(tail, 1, n, r->file) == n &&
                 memmem(tail, n, PNG_IEND_CHUNK, sizeof PNG_IEND_CHUNK) != NULL;
    FXI_RETURN_IF(!found, FX_EFORMAT, "PNG data: truncated (no complete IEND chunk)");
    return FX_OK;
}

/* ---- encoding: the banded encoder of png_stream.c into a growing buffer ---- */

typedef struct memory_sink {
    fx_context *ctx;
    uint8_t *data;
    size_t size, capacity;
} memory_sink;

static fx_status memory_sink_write(void *opaque, const void *data, size_t size)
{
    memory_sink *m = opaque;
    fx_context *ctx = m->ctx;
    if (size > m->capacity - m->size) {
        size_t want = m->capacity ? m->capacity : size;
        while (want - m->size < size) {
            FXI_RETURN_IF(want > SIZE_MAX / 2, FX_EOVERFLOW, "PNG: encoded file too large");
            want *= 2;
        }
        uint8_t *grown = realloc(m->data, want);
        FXI_RETURN_IF(!grown, FX_ENOMEM, "PNG: out of memory for %zu encoded bytes", want);
        m->data = grown;
        m->capacity = want;
    }
    memcpy(m->data + m->size, data, size);
    m->size += size;
    return FX_OK;
}

fx_status fxi_png_encode_to(fx_context *ctx, const fx_image *img, const fxi_png_params *params,
                            fxi_byte_sink sink)
{
    fxi_png_stream *s;
    FXI_TRY(fxi_png_stream_open_with(ctx, img->width, img->height, img->channels, img->type,
                                    params, sink, &s));
    fx_status st = fxi_png_stream_write_rows(s, img);
    if (st != FX_OK) {
        fxi_png_stream_discard(s);
        return st;
    }
    return fxi_png_stream_close(s);
}

fx_status fxi_png_encode(fx_context *ctx, const fx_image *img, const fxi_png_params *params,
                         fxi_buffer *out)
{
    /* A first guess of the file size: half the pixels' bytes, grown if short. */
    enum { FIRST_GUESS_DIVISOR = 2 };
    memset(out, 0, sizeof *out);
    memory_sink m = {ctx, NULL, 0, 0};
    size_t raw = img->stride * (size_t)img->height;
    m.capacity = raw / FIRST_GUESS_DIVISOR + 1;
    m.data = malloc(m.capacity);
    FXI_RETURN_IF(!m.data, FX_ENOMEM, "PNG: out of memory for the encoded file");
    fxi_byte_sink sink = {memory_sink_write, &m};
    fx_status st = fxi_png_encode_to(ctx, img, params, sink);
    if (st != FX_OK) {
        free(m.data);
        return st;
    }
    out->data = m.data;
    out->size = m.size;
    out->release = free;
    return FX_OK;
}
