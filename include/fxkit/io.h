/* fxkit — image and audio files.
 *
 * Images: PNG 1–4 channels 8/16-bit, JPEG gray/RGB 8-bit (libturbojpeg), PGM/PPM
 * (P5/P6, maxval up to 65535) and PFM float (own code). Audio: whatever libsndfile
 * reads; writes WAV, FLAC, AIFF and OGG (Vorbis) by extension.
 *
 * PNG reading: libspng reads and checks the header; plain 8/16-bit non-interlaced
 * files are then decoded by fxkit's own chunk walker and unfiltering around zlib's
 * inflate, every other layout (low bit depths, palettes, interlacing) and the
 * banded reader (fx_image_reader) by libspng. PNG writing is fxkit's own: row
 * filters, its own deflate coder (the default) or zlib's levels 0..9, and the
 * chunks with zlib's CRC-32 and Adler-32; libspng is not used to write.
 *
 * Every decoder checks the header against the context's limits before it
 * allocates, and reports truncated or corrupt data as FX_EFORMAT with a detail.
 */
#ifndef FXKIT_IO_H
#define FXKIT_IO_H

#include "audio.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fx_image_format {
    FX_IMAGE_AUTO = 0, /* on read: from the file's signature; on write: from the extension */
    FX_IMAGE_PNG,
    FX_IMAGE_JPEG,
    FX_IMAGE_PNM, /* PGM for 1 channel, PPM for 3 */
    FX_IMAGE_PFM
} fx_image_format;

/* From the path's extension (.png .jpg .jpeg .pgm .ppm .pnm .pfm, any case);
 * FX_IMAGE_AUTO when not recognised. */
FX_API fx_image_format fx_image_format_from_path(const char *path);
/* "png", "jpeg", "pnm", "pfm". */
FX_API const char *fx_image_format_name(fx_image_format fmt);

/* PNG compression: FX_PNG_COMPRESSION_FAST (the default) is fxkit's own coder, a
 * Huffman code per band of rows fitted to its filtered bytes; 0..9 are zlib levels
 * (0 = stored, 9 = smallest). Both compress bands of rows on all the context's threads. */
#define FX_PNG_COMPRESSION_FAST (-1)
#define FX_PNG_COMPRESSION_MAX 9

/* PNG row filters: AUTO picks one per row (least sum of absolute residuals). */
typedef enum fx_png_filter {
    FX_PNG_FILTER_AUTO = 0,
    FX_PNG_FILTER_NONE,
    FX_PNG_FILTER_SUB,
    FX_PNG_FILTER_UP,
    FX_PNG_FILTER_AVG,
    FX_PNG_FILTER_PAETH
} fx_png_filter;

/* JPEG quality: the default (fx_image_write_options_init) and the range accepted. */
#define FX_DEFAULT_JPEG_QUALITY 90
#define FX_MIN_JPEG_QUALITY 1
#define FX_MAX_JPEG_QUALITY 100

typedef struct fx_image_write_options {
    fx_image_format format; /* AUTO: from the path's extension */
    int jpeg_quality;       /* FX_MIN_JPEG_QUALITY..FX_MAX_JPEG_QUALITY, default
                               FX_DEFAULT_JPEG_QUALITY */
    int png_compression;    /* FX_PNG_COMPRESSION_FAST (default) or zlib level 0..9 */
    fx_png_filter png_filter; /* default FX_PNG_FILTER_AUTO */
    /* Write at the path itself, not into a hidden file beside it that replaces the path
     * once complete (fx_image_write_file and fx_image_writer) — for a caller that
     * already writes to a temporary file of its own and removes it on failure or
     * interruption (default 0) */
    int in_place;
} fx_image_write_options;

FX_API void fx_image_write_options_init(fx_image_write_options *opts);

/* Decode a file; the format comes from its first bytes, not its name. *img is
 * overwritten with a newly allocated image (release with fx_image_free). */
FX_API fx_status fx_image_read_file(fx_context *ctx, const char *path, fx_image *img);
FX_API fx_status fx_image_read_memory(fx_context *ctx, const void *data, size_t size,
                                      fx_image *img);

/* Encode to a file. The target format must hold the image: JPEG takes 8-bit
 * 1 or 3 channels, PNM 1 or 3 channels 8/16-bit, PFM 1 or 3 channels float; PNG
 * 1–4 channels 8/16-bit. Anything else is FX_EUNSUPPORTED naming what it got.
 * The file appears whole or not at all: it is written beside `path` and replaces it once
 * complete, so a failure leaves an existing file as it was (opts->in_place writes at
 * `path` itself; a device such as /dev/stdout is always written directly).
 * opts may be NULL for the defaults. */
FX_API fx_status fx_image_write_file(fx_context *ctx, const char *path, const fx_image *img,
                                     const fx_image_write_options *opts);

/* ---- audio ---- */

typedef enum fx_audio_container {
    FX_AUDIO_AUTO = 0, /* from the extension */
    FX_AUDIO_WAV,
    FX_AUDIO_FLAC,
    FX_AUDIO_AIFF,
    FX_AUDIO_OGG
} fx_audio_container;

/* From the path's extension (.wav .flac .aif .aiff .ogg); FX_AUDIO_AUTO if none. */
FX_API fx_audio_container fx_audio_container_from_path(const char *path);

typedef struct fx_audio_reader fx_audio_reader;
typedef struct fx_audio_writer fx_audio_writer;

typedef struct fx_audio_info {
    uint64_t frames; /* total frames (as the header says) */
    int channels;
    int rate;
    fx_sample_format format; /* FX_SF_SAME when not a PCM/float format (e.g. Vorbis) */
} fx_audio_info;

/* Streaming read, so files of any length need only a chunk in memory. */
FX_API fx_status fx_audio_reader_open(fx_context *ctx, const char *path, fx_audio_reader **out);
FX_API void fx_audio_reader_info(const fx_audio_reader *reader, fx_audio_info *info);
/* Read up to max_frames interleaved frames into buf; *got is 0 at the end. */
FX_API fx_status fx_audio_reader_read(fx_audio_reader *reader, double *buf, size_t max_frames,
                                      size_t *got);
FX_API void fx_audio_reader_close(fx_audio_reader *reader);

/* Streaming write. format FX_SF_SAME means s16. Integer formats round half to
 * even and saturate. fx_audio_writer_close finishes the file and reports any error. */
FX_API fx_status fx_audio_writer_open(fx_context *ctx, const char *path,
                                      fx_audio_container container, int channels, int rate,
                                      fx_sample_format format, fx_audio_writer **out);
FX_API fx_status fx_audio_writer_write(fx_audio_writer *writer, const double *buf, size_t frames);
FX_API fx_status fx_audio_writer_close(fx_audio_writer *writer);

/* Whole-file helpers on top of the streaming calls. */
FX_API fx_status fx_audio_read_file(fx_context *ctx, const char *path, fx_audio *audio);
/* format FX_SF_SAME: audio->format, or s16 when that is unknown. */
FX_API fx_status fx_audio_write_file(fx_context *ctx, const char *path, const fx_audio *audio,
                                     fx_audio_container container, fx_sample_format format);

#ifdef __cplusplus
}
#endif
#endif
