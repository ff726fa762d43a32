/* Internal interface between the image file front ends (image_io.c: whole images,
 * image_stream.c: bands of rows) and the codecs (png.c, jpeg.c, pnm.c). PNG and JPEG
 * decoders take the whole file in memory and allocate the image; their encoders
 * produce the file in memory (or, for PNG, hand it to a byte sink band by band).
 * PNM/PFM are read and written in parts, straight between the file and the image's
 * rows. Every output goes through one checked file writer (file_io.c).
 */
#ifndef FXKIT_IO_INTERNAL_H
#define FXKIT_IO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "core/internal.h"
#include "fxkit/io.h"

/* Bytes read first to identify a file and find a Netpbm header; a header longer than
 * this (long comments) goes through the whole-file path. */
#define FXI_IMAGE_HEAD_BYTES 4096
/* The format a file's first bytes say (FX_IMAGE_AUTO: none that fxkit reads; the
 * whole-file decoder names what it is). */
fx_image_format fxi_image_format_of(const uint8_t *data, size_t size);

/* Is the host little-endian? (16-bit samples are big-endian in PNM and PNG files.) */
static inline bool fxi_host_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Swap the two bytes of each of n 16-bit samples in place (a loop compilers vectorise). */
static inline void fxi_swap16(uint16_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(v[i] << 8 | v[i] >> 8);
}

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

/* Encoders to memory (PNM/PFM are written straight from the image's rows, see
 * fxi_pnm_write_band); the caller has checked that the format holds the image's shape and type. */
fx_status fxi_png_encode(fx_context *ctx, const fx_image *img, const fxi_png_params *params,
                         fxi_buffer *out);
fx_status fxi_jpeg_encode(fx_context *ctx, const fx_image *img, int quality, fxi_buffer *out);

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
/* The whole image through the PNG encoder into `sink` (a file, as it is made). */
fx_status fxi_png_encode_to(fx_context *ctx, const fx_image *img, const fxi_png_params *params,
                            fxi_byte_sink sink);
typedef struct fxi_png_stream fxi_png_stream;
/* A PNG encoder of rows in order (params as fxi_png_encode's: compression, filter and
 * band size). Bands
 * are compressed on the context's threads once enough have arrived to keep them
 * busy; a write_rows call returns once the rows it took need no longer stay valid. */
fx_status fxi_png_stream_open_with(fx_context *ctx, int width, int height, int channels,
                                   fx_sample_type type, const fxi_png_params *params,
                                   fxi_byte_sink sink, fxi_png_stream **out);
fx_status fxi_png_stream_write_rows(fxi_png_stream *s, const fx_image *rows);
fx_status fxi_png_stream_close(fxi_png_stream *s);
void fxi_png_stream_discard(fxi_png_stream *s);

/* ---- files (file_io.c): descriptors, one system call per large transfer ---- */

/* Fewest iovec entries every POSIX system takes in one call (_XOPEN_IOV_MAX). */
#ifdef IOV_MAX
#define FXI_IOV_BATCH IOV_MAX
#else
#define FXI_IOV_BATCH 16
#endif

/* An input file: open, regular, not empty (FX_EIO / FX_EFORMAT details as the
 * whole-image reader has always given them). */
typedef struct fxi_in_file {
    int fd;
    uint64_t size;
} fxi_in_file;

fx_status fxi_in_open(fx_context *ctx, const char *path, fxi_in_file *f);
/* Read up to `size` bytes at `offset`; *got < size only at the end of the file. */
fx_status fxi_in_read_at(fx_context *ctx, const fxi_in_file *f, uint64_t offset, void *dst,
                         size_t size, size_t *got);
/* The same into several buffers (iov is modified). */
fx_status fxi_in_readv_at(fx_context *ctx, const fxi_in_file *f, uint64_t offset, struct iovec *iov,
                          int count, size_t *got);
/* The first FXI_IMAGE_HEAD_BYTES of an open file (fewer when it is shorter) into head. */
fx_status fxi_image_read_head(fx_context *ctx, const fxi_in_file *f, uint8_t *head, size_t *n);
void fxi_in_close(fxi_in_file *f);

/* An output file. With via_temp, bytes go to a hidden temporary file beside the
 * target that close renames into place, so the target is never half-written;
 * without, the target is written directly and removed on failure (when it is a
 * regular file: a device such as /dev/full is left alone). */
typedef struct fxi_out_reserve fxi_out_reserve; /* file_parallel.c */
typedef struct fxi_out_file {
    fx_context *ctx;
    int fd;
    bool regular;      /* ours to remove on failure */
    bool failed;       /* a write failed: close fails too */
    bool writable_map; /* large positioned writes map its pages (fxi_out_maps_well) */
    char *temp_path, *final_path;
    /* Large positioned writes (file_parallel.c): the window of the file mapped now, and
     * the thread that reserves the file's blocks ahead of them (NULL: none). */
    uint8_t *window;
    uint64_t window_offset;
    size_t window_bytes;
    fxi_out_reserve *reserve;
} fxi_out_file;

fx_status fxi_out_open(fx_context *ctx, const char *path, bool via_temp, fxi_out_file *f);
fx_status fxi_out_write(fxi_out_file *f, const void *data, size_t size);
/* A positioned write of a whole iovec array (iov is modified); a large one goes on the
 * context's threads (fxi_out_pwritev_mapped). */
fx_status fxi_out_pwritev(fxi_out_file *f, struct iovec *iov, int count, uint64_t offset);
/* A byte sink that appends to the file. */
fxi_byte_sink fxi_out_sink(fxi_out_file *f);
/* Finish: close (reporting delayed write errors), rename a temporary into place. On
 * failure the output is removed as by fxi_out_abort. */
fx_status fxi_out_close(fxi_out_file *f);
/* Give up: close and remove what was written. */
void fxi_out_abort(fxi_out_file *f);
/* The file's final size, when the writer knows it (a Netpbm stream): a large output's
 * blocks are then reserved ahead of its writes by a thread of its own (file_parallel.c).
 * Nothing is promised by it: a failure to reserve shows up at the write it concerns. */
void fxi_out_expect_size(fxi_out_file *f, uint64_t size);

/* ---- large transfers on the context's threads (file_parallel.c) ----
 *
 * One thread copying between the page cache and memory moves 2-4 GB/s; a 3 GB PPM then
 * spends a second each way. A positioned transfer of at least FXI_IO_PARALLEL_MIN_BYTES
 * is split over the context's threads: reads as preadv calls of their own (any file
 * system); writes to tmpfs as copies into the file's pages, mapped (parallel write()
 * calls serialise on the file's lock), after fallocate has reserved them so that a full
 * file system is an error, never a SIGBUS. Each returns false in *taken when the
 * transfer is not for it (small, one thread, another file system, a file that cannot be
 * mapped or reserved): the caller then makes the plain system calls. */
fx_status fxi_in_readv_parallel(fx_context *ctx, const fxi_in_file *f, uint64_t offset,
                                struct iovec *iov, int count, size_t *got, bool *taken);
fx_status fxi_out_pwritev_mapped(fxi_out_file *f, const struct iovec *iov, int count,
                                 uint64_t offset, bool *taken);
/* Whether large writes to this descriptor (opened read-write) go through mapped pages:
 * on tmpfs only, where they were measured to pay (file_parallel.c). */
bool fxi_out_maps_well(int fd);
/* Unmap the window and stop the reserving thread (close and abort call it). */
void fxi_out_parallel_end(fxi_out_file *f);
/* The shared part of both: advance an iovec array past `done` bytes. */
void fxi_iov_advance(struct iovec **iov, int *count, size_t done);

/* ---- PGM/PPM/PFM in parts (pnm.c), for the fast file paths and the row streams ---- */

/* The shape of a Netpbm file. */
typedef struct fxi_pnm_layout {
    int width, height, channels;
    fx_sample_type type;   /* u8 (maxval <= 255), u16, f32 (PFM) */
    unsigned maxval;       /* integer kinds */
    bool pfm;              /* rows bottom to top, float samples */
    bool little_endian;    /* PFM */
    bool ascii;            /* P2/P3: decoded whole, never by rows */
    size_t file_row_bytes; /* bytes of one row in the file (binary kinds) */
} fxi_pnm_layout;

/* Parse the header at the start of a prefix of a file, data[0..size); *header_len:
 * where the pixels start. The shape is checked against the context's limits. When
 * the header does not parse the context's error is left as it was (the caller then
 * takes the whole-file path, which reports). */
bool fxi_pnm_try_header(fx_context *ctx, const uint8_t *data, size_t size, fxi_pnm_layout *lay,
                        size_t *header_len);
/* The error for pixel data shorter than the header promises (as the decoder words it). */
fx_status fxi_pnm_truncated(fx_context *ctx, const fxi_pnm_layout *lay, uint64_t have);
/* Bytes of pixel data a binary file must hold. FX_EOVERFLOW when they do not fit. */
fx_status fxi_pnm_data_bytes(fx_context *ctx, const fxi_pnm_layout *lay, size_t *bytes);
/* Fill iov[0..rows) so that one read of the file bytes of image rows
 * [image_row, image_row + rows) lands each row at its place in band (band row 0 =
 * image row image_row). The file holds that band contiguously from
 * fxi_pnm_band_offset on; PFM's rows are stored bottom-up, so its iovecs run backwards. */
void fxi_pnm_band_iovecs(const fxi_pnm_layout *lay, const fx_image *band, int rows,
                         struct iovec *iov);
uint64_t fxi_pnm_band_offset(const fxi_pnm_layout *lay, int image_row, int rows);
/* Turn rows [0, rows) of band, which hold file bytes, into samples in place: byte
 * order, and rescaling of other maxvals (with the check against maxval). */
fx_status fxi_pnm_finish_band(fx_context *ctx, const fxi_pnm_layout *lay, fx_image *band, int rows);
/* Rows [first, first + rows) of a binary file whose header (lay, header_len) was parsed,
 * read straight into band's rows by one positioned vector read and finished as above;
 * a format error is prefixed "PNM: " or "PFM: ". */
fx_status fxi_pnm_read_rows(fx_context *ctx, const fxi_in_file *f, const fxi_pnm_layout *lay,
                            size_t header_len, int first, fx_image *band, int rows);

/* The layout fxkit writes an image of this shape in (P5/P6 maxval 255 or 65535, or
 * little-endian PFM), and its header text (returns the length). */
fxi_pnm_layout fxi_pnm_layout_for(int width, int height, int channels, fx_sample_type type);
#define FXI_PNM_HEADER_MAX 64 /* "P6\n2147483647 2147483647\n65535\n" fits */
size_t fxi_pnm_header_text(const fxi_pnm_layout *lay, char *buf, size_t size);
/* Write a band of rows (any stride) of an image written in layout `lay` whose
 * header took header_len bytes, at the band's own place in the file (PFM's rows run
 * bottom-up: its bands go below the ones before). Positioned writes, so that a large
 * band is written on the context's threads (fxi_out_pwritev). 16-bit and big-endian
 * hosts go through a bounded buffer. */
fx_status fxi_pnm_write_band(fx_context *ctx, fxi_out_file *out, const fxi_pnm_layout *lay,
                             const fx_image *band, int image_row, size_t header_len);

/* ---- shared by the whole-image and the row-stream writers (image_io.c) ---- */

/* The target format of a write (from opts or the path's extension) and the
 * options' ranges checked; errors name what is wrong. */
fx_status fxi_write_format(fx_context *ctx, const char *path, const fx_image_write_options *opts,
                           fx_image_format *fmt);
/* FX_EUNSUPPORTED naming what the format takes when it cannot hold this shape. */
fx_status fxi_check_target(fx_context *ctx, int width, int height, int channels,
                           fx_sample_type type, fx_image_format fmt);

/* ---- rows of a PNG (png.c, decoding side) ---- */

/* libspng's progressive decoder over a file: rows top to bottom in the layout the
 * whole-image decoder gives, with the same checks and error details (the end of the
 * file, up to a complete IEND, is checked after the last row). Interlaced files
 * cannot be delivered top to bottom: open reports *interlaced and the caller
 * decodes them whole. */
typedef struct fxi_png_rows fxi_png_rows;
typedef struct fxi_png_shape {
    int width, height, channels;
    fx_sample_type type;
    bool interlaced;
} fxi_png_shape;
/* Takes the open file (closed by fxi_png_rows_close, or here on failure). With
 * header_only, stops after the header (a probe). */
fx_status fxi_png_rows_open(fx_context *ctx, fxi_in_file *file, bool header_only,
                            fxi_png_shape *shape, fxi_png_rows **out);
fx_status fxi_png_rows_read(fxi_png_rows *r, uint8_t *row);
/* After the last row: the chunks up to IEND. */
fx_status fxi_png_rows_finish(fxi_png_rows *r);
void fxi_png_rows_close(fxi_png_rows *r);

/* The whole-image PNG decoder's own path for 8/16-bit gray, gray+alpha, RGB and
 * RGBA without interlacing (png_inflate.c): the file after a header libspng has
 * checked; the same errors as libspng's path. */
fx_status fxi_png_decode_plain(fx_context *ctx, const uint8_t *data, size_t size, int width,
                               int height, int channels, fx_sample_type type, fx_image *img);

/* Whether a complete frame header (SOFn) comes before the first scan. */
bool fxi_jpeg_has_frame_header(const uint8_t *data, size_t size);
/* JPEG header: size and channels (1 gray, 3 otherwise; CMYK is FX_EUNSUPPORTED). */
fx_status fxi_jpeg_probe(fx_context *ctx, const uint8_t *data, size_t size, int *width, int *height,
                         int *channels);

#endif
