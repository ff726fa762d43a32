/* Images in bands of rows (fxkit/image_stream.h): a reader and a writer over the
 * codecs' row interfaces, and a header probe. */
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"

typedef enum reader_kind { READ_NETPBM, READ_PNG, READ_WHOLE } reader_kind;

struct fx_image_reader {
    fx_context *ctx;
    fx_image_info info;
    reader_kind kind;
    int next_row;
    bool failed;
    fxi_in_file file;   /* READ_NETPBM */
    fxi_pnm_layout pnm; /* READ_NETPBM */
    size_t header_len;  /* READ_NETPBM */
    fxi_png_rows *png;  /* READ_PNG */
    fx_image whole;     /* READ_WHOLE */
};

/* A file decoded by the whole-image reader: the same errors, by construction. */
static fx_status open_whole(fx_context *ctx, const char *path, fx_image_reader *r)
{
    FXI_TRY(fx_image_read_file(ctx, path, &r->whole));
    r->kind = READ_WHOLE;
    r->info.width = r->whole.width;
    r->info.height = r->whole.height;
    r->info.channels = r->whole.channels;
    r->info.type = r->whole.type;
    r->info.rows_streamed = false;
    return FX_OK;
}

static void set_shape(fx_image_info *info, int w, int h, int c, fx_sample_type t)
{
    info->width = w;
    info->height = h;
    info->channels = c;
    info->type = t;
}

/* Binary PGM/PPM/PFM whose header fits in the head; anything else is decoded whole
 * (*whole set, no error recorded) — except that a probe (header_only) of an ASCII
 * file whose header parsed takes its shape from the header. */
static fx_status open_netpbm(fx_context *ctx, fx_image_reader *r, const uint8_t *head, size_t n,
                             bool header_only, bool *whole)
{
    const bool parsed = fxi_pnm_try_header(ctx, head, n, &r->pnm, &r->header_len);
    if (parsed && r->pnm.ascii && header_only) {
        set_shape(&r->info, r->pnm.width, r->pnm.height, r->pnm.channels, r->pnm.type);
        return FX_OK;
    }
    if (!parsed || r->pnm.ascii) {
        *whole = true;
        return FX_OK;
    }
    size_t need;
    FXI_TRY(fxi_pnm_data_bytes(ctx, &r->pnm, &need));
    uint64_t have = r->file.size - r->header_len;
    if (have < need) return fxi_pnm_truncated(ctx, &r->pnm, have);
    r->kind = READ_NETPBM;
    set_shape(&r->info, r->pnm.width, r->pnm.height, r->pnm.channels, r->pnm.type);
    r->info.rows_streamed = true;
    return FX_OK;
}

static fx_status open_png(fx_context *ctx, fx_image_reader *r, bool header_only, bool *whole)
{
    fxi_png_shape shape;
    FXI_TRY(fxi_png_rows_open(ctx, &r->file, header_only, &shape, &r->png));
    set_shape(&r->info, shape.width, shape.height, shape.channels, shape.type);
    r->kind = READ_PNG;
    r->info.rows_streamed = !shape.interlaced;
    if (shape.interlaced && !header_only) { /* passes, not rows: decoded whole */
        fxi_png_rows_close(r->png);
        r->png = NULL;
        *whole = true;
    }
    return FX_OK;
}

/* A JPEG's frame header sits after its metadata segments (EXIF, ICC: up to 64 KiB
 * each): read a growing prefix until the header is in it, or the whole file. */
#define JPEG_PROBE_FIRST_BYTES ((size_t)64 << 10)

static fx_status probe_jpeg(fx_context *ctx, fx_image_reader *r)
{
    size_t want = JPEG_PROBE_FIRST_BYTES;
    for (;;) {
        if (want > r->file.size) want = (size_t)r->file.size;
        void *data;
        FXI_TRY(fxi_malloc(ctx, want, &data));
        size_t got = 0;
        fx_status st = fxi_in_read_at(ctx, &r->file, 0, data, want, &got);
        int w = 0, h = 0, c = 0;
        bool last = want == r->file.size || got < want;
        /* On a prefix, a header that does not parse yet means: read more. */
        if (st == FX_OK && !last && !fxi_jpeg_has_frame_header(data, got)) {
            free(data);
            want *= 2;
            continue;
        }
        if (st == FX_OK) st = fxi_jpeg_probe(ctx, data, got, &w, &h, &c);
        if (st == FX_OK) st = fx_image_check_limits(ctx, (uint64_t)w, (uint64_t)h, (uint64_t)c);
        free(data);
        FXI_TRY(st);
        set_shape(&r->info, w, h, c, FX_U8);
        return FX_OK;
    }
}

/* Open for rows, or with header_only just far enough to fill r->info (a probe). */
static fx_status open_reader(fx_context *ctx, const char *path, bool header_only,
                             fx_image_reader *r)
{
    FXI_RETURN_IF(!path, FX_EINVAL, "image path is NULL");
    r->ctx = ctx;
    r->file.fd = -1;
    FXI_TRY(fxi_in_open(ctx, path, &r->file));
    uint8_t head[FXI_IMAGE_HEAD_BYTES];
    size_t n = 0;
    FXI_TRY(fxi_image_read_head(ctx, &r->file, head, &n));
    r->info.format = fxi_image_format_of(head, n);
    bool whole = false;
    switch (r->info.format) {
    case FX_IMAGE_PNG: FXI_TRY(open_png(ctx, r, header_only, &whole)); break;
    case FX_IMAGE_PNM:
    case FX_IMAGE_PFM: FXI_TRY(open_netpbm(ctx, r, head, n, header_only, &whole)); break;
    case FX_IMAGE_JPEG:
        if (header_only) return probe_jpeg(ctx, r);
        whole = true;
        break;
    default: whole = true; break; /* the whole-image reader names what it is not */
    }
    if (!whole) return FX_OK;
    fxi_in_close(&r->file);
    return open_whole(ctx, path, r);
}

static void release_reader(fx_image_reader *r)
{
    fxi_in_close(&r->file);
    fxi_png_rows_close(r->png);
    fx_image_free(&r->whole);
    free(r);
}

fx_status fx_image_reader_open(fx_context *ctx, const char *path, fx_image_reader **out)
{
    *out = NULL;
    fx_image_reader *r = calloc(1, sizeof *r);
    FXI_RETURN_IF(!r, FX_ENOMEM, "out of memory for an image reader");
    fx_status st = open_reader(ctx, path, false, r);
    if (st != FX_OK) {
        release_reader(r);
        return st;
    }
    *out = r;
    return FX_OK;
}

fx_status fx_image_probe_file(fx_context *ctx, const char *path, fx_image_info *info)
{
    memset(info, 0, sizeof *info);
    fx_image_reader *r = calloc(1, sizeof *r);
    FXI_RETURN_IF(!r, FX_ENOMEM, "out of memory for an image reader");
    fx_status st = open_reader(ctx, path, true, r);
    if (st == FX_OK) *info = r->info;
    release_reader(r);
    return st;
}

void fx_image_reader_info(const fx_image_reader *reader, fx_image_info *info)
{
    *info = reader->info;
}

void fx_image_reader_close(fx_image_reader *reader)
{
    if (reader) release_reader(reader);
}

/* The band must be a host image of the reader's row shape with room for max_rows. */
static fx_status check_band(fx_context *ctx, const fx_image_info *info, const fx_image *band,
                            int rows)
{
    size_t row_bytes;
    FXI_RETURN_IF(!band || !band->data || band->memory != FX_MEMORY_HOST, FX_EINVAL,
                 "band has no host pixels");
    FXI_RETURN_IF(band->width != info->width || band->channels != info->channels ||
                     band->type != info->type,
                 FX_EINVAL,
                 "band of %dx%d, %d channel(s) of %s does not match the image's %d, %d "
                 "channel(s) of %s",
                 band->width, band->height, band->channels, fx_sample_type_name(band->type),
                 info->width, info->channels, fx_sample_type_name(info->type));
    FXI_RETURN_IF(rows < 1 || band->height < rows, FX_EINVAL, "%d rows asked for a band of %d rows",
                 rows, band->height);
    FXI_TRY(fx_image_size(band->width, 1, band->channels, band->type, &row_bytes, NULL));
    FXI_RETURN_IF(band->stride < row_bytes, FX_EINVAL, "band stride %zu is below the row size %zu",
                 band->stride, row_bytes);
    return FX_OK;
}

static fx_status read_netpbm_rows(fx_image_reader *r, fx_image *band, int rows)
{
    return fxi_pnm_read_rows(r->ctx, &r->file, &r->pnm, r->header_len, r->next_row, band, rows);
}

static fx_status read_png_rows(fx_image_reader *r, fx_image *band, int rows)
{
    for (int y = 0; y < rows; y++)
        FXI_TRY(fxi_png_rows_read(r->png, fx_image_row(band, y)));
    if (r->next_row + rows == r->info.height) FXI_TRY(fxi_png_rows_finish(r->png));
    return FX_OK;
}

static fx_status copy_whole_rows(fx_image_reader *r, fx_image *band, int rows)
{
    size_t row_bytes =
        (size_t)r->info.width * (size_t)r->info.channels * fx_sample_size(r->info.type);
    for (int y = 0; y < rows; y++)
        memcpy(fx_image_row(band, y), fx_image_row(&r->whole, r->next_row + y), row_bytes);
    return FX_OK;
}

fx_status fx_image_reader_read_rows(fx_image_reader *reader, fx_image *band, int max_rows, int *got)
{
    fx_context *ctx = reader->ctx;
    *got = 0;
    FXI_RETURN_IF(reader->failed, FX_EBADSTATE, "the image reader failed earlier");
    int rows = reader->info.height - reader->next_row;
    if (rows == 0) return FX_OK;
    if (rows > max_rows) rows = max_rows;
    FXI_TRY(check_band(ctx, &reader->info, band, rows));
    fx_status st = reader->kind == READ_NETPBM ? read_netpbm_rows(reader, band, rows)
                   : reader->kind == READ_PNG  ? read_png_rows(reader, band, rows)
                                               : copy_whole_rows(reader, band, rows);
    if (st != FX_OK) {
        reader->failed = true;
        return st;
    }
    reader->next_row += rows;
    *got = rows;
    return FX_OK;
}

/* ---- writer ---- */

struct fx_image_writer {
    fx_context *ctx;
    fx_image_format format;
    int width, height, channels;
    fx_sample_type type;
    int rows_done;
    bool failed;
    fxi_out_file out;
    fxi_pnm_layout pnm;  /* PNM, PFM */
    size_t header_len;   /* PNM, PFM */
    fxi_png_stream *png; /* PNG */
    fx_image whole;      /* JPEG: gathered, encoded at close */
    int jpeg_quality;
};

void fx_image_writer_discard(fx_image_writer *w)
{
    if (!w) return;
    fxi_png_stream_discard(w->png);
    fx_image_free(&w->whole);
    fxi_out_abort(&w->out);
    free(w);
}

static fx_status start_format(fx_image_writer *w, const fx_image_write_options *opts)
{
    fx_context *ctx = w->ctx;
    switch (w->format) {
    case FX_IMAGE_PNG: {
        const fxi_png_params png = {opts->png_compression, opts->png_filter, 0};
        return fxi_png_stream_open_with(ctx, w->width, w->height, w->channels, w->type, &png,
                                        fxi_out_sink(&w->out), &w->png);
    }
    case FX_IMAGE_JPEG:
        w->jpeg_quality = opts->jpeg_quality;
        return fx_image_alloc(ctx, &w->whole, w->width, w->height, w->channels, w->type);
    default: {
        char header[FXI_PNM_HEADER_MAX];
        w->pnm = fxi_pnm_layout_for(w->width, w->height, w->channels, w->type);
        w->header_len = fxi_pnm_header_text(&w->pnm, header, sizeof header);
        size_t data = 0;
        FXI_TRY(fxi_pnm_data_bytes(ctx, &w->pnm, &data));
        FXI_TRY(fxi_out_write(&w->out, header, w->header_len));
        fxi_out_expect_size(&w->out, w->header_len + (uint64_t)data);
        return FX_OK;
    }
    }
}

fx_status fx_image_writer_open(fx_context *ctx, const char *path, int width, int height,
                               int channels, fx_sample_type type,
                               const fx_image_write_options *opts, fx_image_writer **out)
{
    *out = NULL;
    fx_image_write_options defaults;
    if (!opts) {
        fx_image_write_options_init(&defaults);
        opts = &defaults;
    }
    fx_image_format fmt = FX_IMAGE_AUTO;
    FXI_TRY(fxi_write_format(ctx, path, opts, &fmt));
    FXI_TRY(fxi_check_target(ctx, width, height, channels, type, fmt));
    FXI_TRY(fx_image_check_limits(ctx, (uint64_t)width, (uint64_t)height, (uint64_t)channels));
    fx_image_writer *w = calloc(1, sizeof *w);
    FXI_RETURN_IF(!w, FX_ENOMEM, "out of memory for an image writer");
    *w = (fx_image_writer){.ctx = ctx,
                           .format = fmt,
                           .width = width,
                           .height = height,
                           .channels = channels,
                           .type = type};
    w->out.fd = -1;
    fx_status st = fxi_out_open(ctx, path, !opts->in_place, &w->out);
    if (st == FX_OK) st = start_format(w, opts);
    if (st != FX_OK) {
        fx_image_writer_discard(w);
        return st;
    }
    *out = w;
    return FX_OK;
}

static fx_status write_band(fx_image_writer *w, const fx_image *band)
{
    fx_context *ctx = w->ctx;
    switch (w->format) {
    case FX_IMAGE_PNG: return fxi_png_stream_write_rows(w->png, band);
    case FX_IMAGE_JPEG: {
        size_t row_bytes = (size_t)w->width * (size_t)w->channels * fx_sample_size(w->type);
        for (int y = 0; y < band->height; y++)
            memcpy(fx_image_row(&w->whole, w->rows_done + y), fx_image_row(band, y), row_bytes);
        return FX_OK;
    }
    default:
        return fxi_pnm_write_band(ctx, &w->out, &w->pnm, band, w->rows_done, w->header_len);
    }
}

fx_status fx_image_writer_write_rows(fx_image_writer *writer, const fx_image *band)
{
    fx_context *ctx = writer->ctx;
    FXI_RETURN_IF(writer->failed, FX_EBADSTATE, "the image writer failed earlier");
    fx_image_info shape = {writer->width, writer->height, writer->channels,
                           writer->type,  writer->format, true};
    FXI_TRY(check_band(ctx, &shape, band, band ? band->height : 0));
    FXI_RETURN_IF(band->height > writer->height - writer->rows_done, FX_EINVAL,
                 "a band of %d rows after %d of the image's %d", band->height, writer->rows_done,
                 writer->height);
    fx_status st = write_band(writer, band);
    if (st != FX_OK) {
        writer->failed = true;
        return st;
    }
    writer->rows_done += band->height;
    return FX_OK;
}

static fx_status finish_format(fx_image_writer *w)
{
    fx_context *ctx = w->ctx;
    if (w->format == FX_IMAGE_PNG) {
        fxi_png_stream *png = w->png;
        w->png = NULL; /* close frees it, whatever happens */
        return fxi_png_stream_close(png);
    }
    if (w->format != FX_IMAGE_JPEG) return FX_OK;
    fxi_buffer buf = {0};
    FXI_TRY(fxi_jpeg_encode(ctx, &w->whole, w->jpeg_quality, &buf));
    fx_status st = fxi_out_write(&w->out, buf.data, buf.size);
    fxi_buffer_release(&buf);
    return st;
}

fx_status fx_image_writer_close(fx_image_writer *writer)
{
    if (!writer) return FX_EINVAL;
    fx_context *ctx = writer->ctx;
    fx_status st = FX_OK;
    if (writer->failed)
        st = fxi_error(ctx, FX_EBADSTATE, "the image writer failed earlier");
    else if (writer->rows_done != writer->height)
        st = fxi_error(ctx, FX_EINVAL, "image writer closed after %d of %d rows", writer->rows_done,
                       writer->height);
    if (st == FX_OK) st = finish_format(writer);
    if (st == FX_OK) {
        st = fxi_out_close(&writer->out); /* removes the temporary on failure */
        writer->out.fd = -1;
    }
    fx_image_writer_discard(writer);
    return st;
}
