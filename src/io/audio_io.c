/* Audio files through libsndfile: streaming reader and writer, whole-file helpers.
 *
 * Integer PCM is moved through libsndfile's native integer calls, so the
 * mapping is exact: 8- and 16-bit files through sf_readf_short /
 * sf_writef_short (an 8-bit v arrives as v << 8), 24- and 32-bit ones through
 * sf_readf_int / sf_writef_int, whose samples are left-aligned 32-bit integers.
 * A b-bit sample v reads as v / 2^(b-1) and writes back as the same v
 * (audio_convert.c, vectorised). Float, double and compressed formats go
 * through the double calls with libsndfile's normalisation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sndfile.h>

#include "io/audio_convert.h"
#include "io/io_internal.h"

/* Frames moved per libsndfile call on the integer paths (the integer buffer's size). */
#define AUDIO_CHUNK_FRAMES 4096
/* Integer formats of at most this many bits travel as 16-bit shorts. */
#define SHORT_PATH_BITS 16
/* Chunks looked at when searching a WAV/AIFF header for its frame count. */
#define HEADER_MAX_CHUNKS 64

struct fx_audio_reader {
    fx_context *ctx;
    SNDFILE *sf;
    fx_audio_info info;
    bool integer;     /* integer PCM: read through the short or int calls */
    bool shorts;      /* 8 or 16 bits: sf_readf_short (else sf_readf_int) */
    uint64_t done;    /* frames delivered so far */
    void *chunk;      /* AUDIO_CHUNK_FRAMES * channels shorts or ints, integer path only */
    fx_status failed; /* first error; later reads return FX_EBADSTATE */
};

struct fx_audio_writer {
    fx_context *ctx;
    SNDFILE *sf;
    int channels;
    int bits;    /* integer sample bits, 0 for the double path */
    void *chunk; /* AUDIO_CHUNK_FRAMES * channels shorts (16 bits) or ints */
    fx_status failed;
};

static const struct {
    const char *ext;
    fx_audio_container container;
} audio_extensions[] = {
    {"wav", FX_AUDIO_WAV},   {"flac", FX_AUDIO_FLAC}, {"aif", FX_AUDIO_AIFF},
    {"aiff", FX_AUDIO_AIFF}, {"ogg", FX_AUDIO_OGG},
};

fx_audio_container fx_audio_container_from_path(const char *path)
{
    if (!path) return FX_AUDIO_AUTO;
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return FX_AUDIO_AUTO;
    for (size_t i = 0; i < sizeof audio_extensions / sizeof *audio_extensions; i++)
        if (!strcasecmp(dot + 1, audio_extensions[i].ext)) return audio_extensions[i].container;
    return FX_AUDIO_AUTO;
}

/* ---- sample formats ---- */

/* libsndfile subformat -> fxkit format; `integer` tells whether the int path is exact. */
static fx_sample_format format_of_subtype(int subtype, bool *integer)
{
    *integer = true;
    switch (subtype) {
    case SF_FORMAT_PCM_S8:
    case SF_FORMAT_PCM_U8: return FX_SF_U8;
    case SF_FORMAT_PCM_16: return FX_SF_S16;
    case SF_FORMAT_PCM_24: return FX_SF_S24;
    case SF_FORMAT_PCM_32: return FX_SF_S32;
    default: break;
    }
    *integer = false;
    switch (subtype) {
    case SF_FORMAT_FLOAT: return FX_SF_F32;
    case SF_FORMAT_DOUBLE: return FX_SF_F64;
    default: return FX_SF_SAME; /* Vorbis, Opus, ADPCM, µ-law, …: no PCM format to keep */
    }
}

/* ---- truncation ---- */

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
}
static unsigned le16(const uint8_t *b)
{
    return (unsigned)b[0] | (unsigned)b[1] << 8;
}

static bool read_exact(FILE *f, void *buf, size_t n)
{
    return fread(buf, 1, n, f) == n;
}

static bool skip_chunk(FILE *f, uint32_t size)
{
    /* IFF chunks are padded to an even length. */
    return fseeko(f, (off_t)size + (off_t)(size & 1), SEEK_CUR) == 0;
}

/* Frames that a PCM WAV's data chunk declares. False when the header does not
 * say: no data chunk found, or a streamed file's placeholder size (0 or 2^32-1). */
static bool wav_declared_frames(FILE *f, uint64_t *frames)
{
    enum { FMT_BLOCK_ALIGN = 12, FMT_MIN = 16, STREAMED_SIZE = 0xffffffffu };
    uint8_t b[FMT_MIN];
    if (!read_exact(f, b, 12) || memcmp(b, "RIFF", 4) || memcmp(b + 8, "WAVE", 4)) return false;
    unsigned block_align = 0;
    for (int i = 0; i < HEADER_MAX_CHUNKS; i++) {
        uint8_t chunk[8];
        if (!read_exact(f, chunk, sizeof chunk)) return false;
        uint32_t size = le32(chunk + 4);
        if (!memcmp(chunk, "data", 4)) {
            if (!block_align || size == 0 || size == STREAMED_SIZE) return false;
            *frames = size / block_align;
            return true;
        }
        if (!memcmp(chunk, "fmt ", 4) && size >= FMT_MIN) {
            if (!read_exact(f, b, FMT_MIN)) return false;
            block_align = le16(b + FMT_BLOCK_ALIGN);
            size -= FMT_MIN;
        }
        if (!skip_chunk(f, size)) return false;
    }
    return false;
}

/* Frames that an AIFF's COMM chunk declares. */
static bool aiff_declared_frames(FILE *f, uint64_t *frames)
{
    enum { COMM_FRAMES = 2, COMM_MIN = 6 };
    uint8_t b[12];
    if (!read_exact(f, b, 12) || memcmp(b, "FORM", 4) ||
        (memcmp(b + 8, "AIFF", 4) && memcmp(b + 8, "AIFC", 4)))
        return false;
    for (int i = 0; i < HEADER_MAX_CHUNKS; i++) {
        uint8_t chunk[8];
        if (!read_exact(f, chunk, sizeof chunk)) return false;
        uint32_t size = be32(chunk + 4);
        if (!memcmp(chunk, "COMM", 4) && size >= COMM_MIN) {
            if (!read_exact(f, b, COMM_MIN)) return false;
            *frames = be32(b + COMM_FRAMES);
            return true;
        }
        if (!skip_chunk(f, size)) return false;
    }
    return false;
}

/* libsndfile opens a WAV or AIFF whose data was cut short and reports only the
 * frames present; compare with what the header promised, so that a cut file is
 * an error rather than silently shorter audio. */
static fx_status check_not_truncated(fx_context *ctx, const char *path, const SF_INFO *sfi,
                                     bool integer_or_float)
{
    int major = sfi->format & SF_FORMAT_TYPEMASK;
    bool wav = major == SF_FORMAT_WAV || major == SF_FORMAT_WAVEX;
    /* Only for PCM/float WAV is block_align the size of one frame. */
    if (!(wav && integer_or_float) && major != SF_FORMAT_AIFF) return FX_OK;
    FILE *f = fopen(path, "rb");
    if (!f) return FX_OK; /* libsndfile has it open; nothing more to learn */
    uint64_t declared = 0;
    bool known = wav ? wav_declared_frames(f, &declared) : aiff_declared_frames(f, &declared);
    fclose(f);
    FXI_RETURN_IF(known && declared > (uint64_t)sfi->frames, FX_EFORMAT,
                 "truncated: header promises %llu frames, file holds %llu",
                 (unsigned long long)declared, (unsigned long long)sfi->frames);
    return FX_OK;
}

/* ---- reader ---- */

static fx_status open_failure(fx_context *ctx, const char *what)
{
    int err = sf_error(NULL);
    fx_status st = err == SF_ERR_SYSTEM                 ? FX_EIO
                   : err == SF_ERR_UNSUPPORTED_ENCODING ? FX_EUNSUPPORTED
                                                        : FX_EFORMAT;
    return fxi_error(ctx, st, "%s: %s", what, sf_strerror(NULL));
}

static fx_status check_reader_info(fx_context *ctx, const SF_INFO *sfi)
{
    FXI_RETURN_IF(sfi->channels < 1, FX_EFORMAT, "audio header: %d channels", sfi->channels);
    FXI_RETURN_IF(sfi->channels > ctx->limits.max_channels, FX_ELIMIT,
                 "%d audio channels exceed the limit of %d", sfi->channels,
                 ctx->limits.max_channels);
    FXI_RETURN_IF(sfi->samplerate <= 0, FX_EFORMAT, "audio header: sample rate %d", sfi->samplerate);
    FXI_RETURN_IF(sfi->frames < 0, FX_EFORMAT, "audio header: unknown length");
    FXI_RETURN_IF((uint64_t)sfi->frames > ctx->limits.max_audio_frames, FX_ELIMIT,
                 "%lld audio frames exceed the limit of %llu", (long long)sfi->frames,
                 (unsigned long long)ctx->limits.max_audio_frames);
    return FX_OK;
}

static fx_status reader_setup(fx_context *ctx, const char *path, fx_audio_reader *r)
{
    SF_INFO sfi;
    memset(&sfi, 0, sizeof sfi);
    r->sf = sf_open(path, SFM_READ, &sfi);
    if (!r->sf) return open_failure(ctx, "cannot open audio");
    FXI_TRY(check_reader_info(ctx, &sfi));
    bool integer = false;
    r->info.format = format_of_subtype(sfi.format & SF_FORMAT_SUBMASK, &integer);
    r->integer = integer;
    r->shorts = integer && r->info.format != FX_SF_S24 && r->info.format != FX_SF_S32;
    FXI_TRY(check_not_truncated(ctx, path, &sfi, r->info.format != FX_SF_SAME));
    r->info.frames = (uint64_t)sfi.frames;
    r->info.channels = sfi.channels;
    r->info.rate = sfi.samplerate;
    if (r->integer) {
        FXI_TRY(fxi_calloc(ctx, (size_t)AUDIO_CHUNK_FRAMES * (size_t)sfi.channels,
                          r->shorts ? sizeof(int16_t) : sizeof(int32_t), &r->chunk));
    } else {
        sf_command(r->sf, SFC_SET_NORM_DOUBLE, NULL, SF_TRUE);
    }
    return FX_OK;
}

fx_status fx_audio_reader_open(fx_context *ctx, const char *path, fx_audio_reader **out)
{
    *out = NULL;
    FXI_RETURN_IF(!path, FX_EINVAL, "audio path is NULL");
    void *mem;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof(fx_audio_reader), &mem));
    fx_audio_reader *r = mem;
    r->ctx = ctx;
    fx_status status = reader_setup(ctx, path, r);
    if (status != FX_OK) {
        fx_audio_reader_close(r);
        return status;
    }
    *out = r;
    return FX_OK;
}

void fx_audio_reader_info(const fx_audio_reader *reader, fx_audio_info *info)
{
    *info = reader->info;
}

/* Read up to `frames` through the integer buffer, converting to doubles. */
static sf_count_t read_integer(fx_audio_reader *r, double *buf, size_t frames)
{
    size_t channels = (size_t)r->info.channels, total = 0;
    while (total < frames) {
        size_t want = frames - total < AUDIO_CHUNK_FRAMES ? frames - total : AUDIO_CHUNK_FRAMES;
        sf_count_t got = r->shorts ? sf_readf_short(r->sf, r->chunk, (sf_count_t)want)
                                   : sf_readf_int(r->sf, r->chunk, (sf_count_t)want);
        if (got <= 0) break;
        size_t n = (size_t)got * channels;
        double *dst = buf + total * channels;
        if (r->shorts)
            fxi_audio_s16_to_double(r->chunk, dst, n);
        else
            fxi_audio_left_aligned_to_double(r->chunk, dst, n);
        total += (size_t)got;
        if ((size_t)got < want) break;
    }
    return (sf_count_t)total;
}

fx_status fx_audio_reader_read(fx_audio_reader *reader, double *buf, size_t max_frames, size_t *got)
{
    fx_context *ctx = reader->ctx;
    *got = 0;
    FXI_RETURN_IF(reader->failed != FX_OK, FX_EBADSTATE, "audio reader failed earlier");
    uint64_t left = reader->info.frames - reader->done;
    size_t want = left < max_frames ? (size_t)left : max_frames;
    if (want == 0) return FX_OK;
    sf_count_t n = reader->integer ? read_integer(reader, buf, want)
                                   : sf_readf_double(reader->sf, buf, (sf_count_t)want);
    int err = sf_error(reader->sf);
    if (err != SF_ERR_NO_ERROR) {
        reader->failed = FX_EFORMAT;
        return fxi_error(ctx, FX_EFORMAT, "audio data: %s", sf_error_number(err));
    }
    if (n < 0) n = 0;
    reader->done += (uint64_t)n;
    if ((size_t)n < want) {
        reader->failed = FX_EFORMAT;
        return fxi_error(ctx, FX_EFORMAT, "truncated: header promises %llu frames, file holds %llu",
                         (unsigned long long)reader->info.frames, (unsigned long long)reader->done);
    }
    *got = (size_t)n;
    return FX_OK;
}

void fx_audio_reader_close(fx_audio_reader *reader)
{
    if (!reader) return;
    if (reader->sf) sf_close(reader->sf); /* read-only: nothing to report */
    free(reader->chunk);
    free(reader);
}

/* ---- writer ---- */

typedef struct write_format {
    int sf_subtype;
    int bits; /* 0: written as doubles */
} write_format;

static fx_status write_format_of(fx_context *ctx, fx_sample_format fmt, write_format *wf)
{
    switch (fmt) {
    case FX_SF_SAME:
    case FX_SF_S16: *wf = (write_format){SF_FORMAT_PCM_16, 16}; return FX_OK;
    case FX_SF_S24: *wf = (write_format){SF_FORMAT_PCM_24, 24}; return FX_OK;
    case FX_SF_S32: *wf = (write_format){SF_FORMAT_PCM_32, 32}; return FX_OK;
    case FX_SF_F32: *wf = (write_format){SF_FORMAT_FLOAT, 0}; return FX_OK;
    case FX_SF_F64: *wf = (write_format){SF_FORMAT_DOUBLE, 0}; return FX_OK;
    case FX_SF_U8:
        return fxi_error(ctx, FX_EUNSUPPORTED, "u8 audio is read-only (write s16 instead)");
    default: return fxi_error(ctx, FX_EINVAL, "unknown sample format %d", (int)fmt);
    }
}

/* The libsndfile format word for a container and sample format. */
static fx_status sf_format_for(fx_context *ctx, fx_audio_container container, int channels,
                               fx_sample_format fmt, int *sf_format, int *bits)
{
    if (container == FX_AUDIO_OGG) { /* Vorbis: the sample format does not apply */
        *sf_format = SF_FORMAT_OGG | SF_FORMAT_VORBIS;
        *bits = 0;
        return FX_OK;
    }
    write_format wf = {0, 0};
    FXI_TRY(write_format_of(ctx, fmt, &wf));
    *bits = wf.bits;
    switch (container) {
    case FX_AUDIO_WAV:
        /* WAVE_FORMAT_EXTENSIBLE carries the speaker layout that players expect
         * for more than two channels. */
        *sf_format = (channels > 2 ? SF_FORMAT_WAVEX : SF_FORMAT_WAV) | wf.sf_subtype;
        return FX_OK;
    case FX_AUDIO_FLAC:
        FXI_RETURN_IF(wf.sf_subtype != SF_FORMAT_PCM_16 && wf.sf_subtype != SF_FORMAT_PCM_24,
                     FX_EUNSUPPORTED, "FLAC holds 8/16/24-bit integer samples, not %s",
                     fx_sample_format_name(fmt));
        *sf_format = SF_FORMAT_FLAC | wf.sf_subtype;
        return FX_OK;
    case FX_AUDIO_AIFF: *sf_format = SF_FORMAT_AIFF | wf.sf_subtype; return FX_OK;
    default: return fxi_error(ctx, FX_EINVAL, "unknown audio container %d", (int)container);
    }
}

static const char *container_name(fx_audio_container c)
{
    static const char *const names[] = {"auto", "WAV", "FLAC", "AIFF", "OGG"};
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "unknown";
}

static fx_status writer_setup(fx_context *ctx, const char *path, fx_audio_container container,
                              int channels, int rate, fx_sample_format format, fx_audio_writer *w)
{
    SF_INFO sfi;
    memset(&sfi, 0, sizeof sfi);
    sfi.channels = channels;
    sfi.samplerate = rate;
    FXI_TRY(sf_format_for(ctx, container, channels, format, &sfi.format, &w->bits));
    FXI_RETURN_IF(!sf_format_check(&sfi), FX_EUNSUPPORTED,
                 "%s cannot hold %d channel(s) of %s at %d Hz", container_name(container), channels,
                 container == FX_AUDIO_OGG ? "Vorbis" : fx_sample_format_name(format), rate);
    w->sf = sf_open(path, SFM_WRITE, &sfi);
    if (!w->sf) return open_failure(ctx, "cannot create audio");
    /* libsndfile's PEAK chunk of float files holds the time of writing: without it
     * the same samples always make the same file (and ffmpeg writes none either). */
    sf_command(w->sf, SFC_SET_ADD_PEAK_CHUNK, NULL, SF_FALSE);
    w->channels = channels;
    if (w->bits)
        FXI_TRY(fxi_calloc(ctx, (size_t)AUDIO_CHUNK_FRAMES * (size_t)channels,
                          w->bits <= SHORT_PATH_BITS ? sizeof(int16_t) : sizeof(int32_t),
                          &w->chunk));
    return FX_OK;
}

fx_status fx_audio_writer_open(fx_context *ctx, const char *path, fx_audio_container container,
                               int channels, int rate, fx_sample_format format,
                               fx_audio_writer **out)
{
    *out = NULL;
    FXI_RETURN_IF(!path, FX_EINVAL, "audio path is NULL");
    if (container == FX_AUDIO_AUTO) container = fx_audio_container_from_path(path);
    FXI_RETURN_IF(container == FX_AUDIO_AUTO, FX_EINVAL,
                 "unknown audio extension (use .wav, .flac, .aif, .aiff or .ogg)");
    FXI_RETURN_IF(channels < 1 || channels > ctx->limits.max_channels, FX_ELIMIT,
                 "%d audio channels (allowed: 1 to %d)", channels, ctx->limits.max_channels);
    FXI_RETURN_IF(rate <= 0, FX_EINVAL, "sample rate %d is not positive", rate);
    void *mem;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof(fx_audio_writer), &mem));
    fx_audio_writer *w = mem;
    w->ctx = ctx;
    fx_status status = writer_setup(ctx, path, container, channels, rate, format, w);
    if (status != FX_OK) {
        if (w->sf) sf_close(w->sf);
        free(w->chunk);
        free(w);
        return status;
    }
    *out = w;
    return FX_OK;
}

/* Each sample: x * 2^(bits-1) rounded half to even, saturated to the b-bit
 * range (NaN -> 0), as shorts or left-aligned ints. */
static fx_status write_integer(fx_audio_writer *w, const double *buf, size_t frames)
{
    size_t channels = (size_t)w->channels;
    const bool shorts = w->bits <= SHORT_PATH_BITS;
    for (size_t done = 0; done < frames;) {
        size_t n = frames - done < AUDIO_CHUNK_FRAMES ? frames - done : AUDIO_CHUNK_FRAMES;
        const double *src = buf + done * channels;
        sf_count_t written;
        if (shorts) {
            fxi_audio_double_to_s16(src, w->chunk, n * channels);
            written = sf_writef_short(w->sf, w->chunk, (sf_count_t)n);
        } else {
            fxi_audio_double_to_left_aligned(src, w->chunk, n * channels, w->bits);
            written = sf_writef_int(w->sf, w->chunk, (sf_count_t)n);
        }
        if (written != (sf_count_t)n) return FX_EIO;
        done += n;
    }
    return FX_OK;
}

fx_status fx_audio_writer_write(fx_audio_writer *writer, const double *buf, size_t frames)
{
    fx_context *ctx = writer->ctx;
    FXI_RETURN_IF(writer->failed != FX_OK, FX_EBADSTATE, "audio writer failed earlier");
    if (frames == 0) return FX_OK;
    fx_status st = writer->bits ? write_integer(writer, buf, frames)
                   : sf_writef_double(writer->sf, buf, (sf_count_t)frames) == (sf_count_t)frames
                       ? FX_OK
                       : FX_EIO;
    if (st != FX_OK) {
        writer->failed = st;
        return fxi_error(ctx, st, "audio write error: %s", sf_strerror(writer->sf));
    }
    return FX_OK;
}

fx_status fx_audio_writer_close(fx_audio_writer *writer)
{
    if (!writer) return FX_OK;
    fx_context *ctx = writer->ctx;
    fx_status status = writer->failed;
    /* sf_close writes the final header (and flushes encoders): report its error. */
    int err = sf_close(writer->sf);
    if (err != SF_ERR_NO_ERROR && status == FX_OK)
        status = fxi_error(ctx, FX_EIO, "finishing the audio file: %s", sf_error_number(err));
    free(writer->chunk);
    free(writer);
    return status;
}

/* ---- whole files ---- */

static fx_status read_all(fx_context *ctx, fx_audio_reader *r, fx_audio *audio)
{
    fx_audio_info info;
    fx_audio_reader_info(r, &info);
    FXI_RETURN_IF(info.frames > SIZE_MAX, FX_EOVERFLOW, "%llu frames do not fit in memory",
                 (unsigned long long)info.frames);
    FXI_TRY(fx_audio_alloc(ctx, audio, (size_t)info.frames, info.channels, info.rate));
    audio->format = info.format;
    for (size_t done = 0; done < audio->frames;) {
        size_t got;
        FXI_TRY(fx_audio_reader_read(r, audio->data + done * (size_t)info.channels,
                                    audio->frames - done, &got));
        if (got == 0) break; /* cannot happen: a short read is reported as truncated */
        done += got;
    }
    return FX_OK;
}

fx_status fx_audio_read_file(fx_context *ctx, const char *path, fx_audio *audio)
{
    memset(audio, 0, sizeof *audio);
    fx_audio_reader *r;
    FXI_TRY(fx_audio_reader_open(ctx, path, &r));
    fx_status status = read_all(ctx, r, audio);
    fx_audio_reader_close(r);
    if (status != FX_OK) fx_audio_free(audio);
    return status;
}

fx_status fx_audio_write_file(fx_context *ctx, const char *path, const fx_audio *audio,
                              fx_audio_container container, fx_sample_format format)
{
    FXI_RETURN_IF(!audio || (!audio->data && audio->frames), FX_EINVAL, "audio has no samples");
    /* Keep the source's format; u8 is read-only, so 8-bit sources become s16,
     * which holds every 8-bit value exactly. */
    if (format == FX_SF_SAME) format = audio->format == FX_SF_U8 ? FX_SF_S16 : audio->format;
    fx_audio_writer *w;
    FXI_TRY(fx_audio_writer_open(ctx, path, container, audio->channels, audio->rate, format, &w));
    fx_status status = fx_audio_writer_write(w, audio->data, audio->frames);
    fx_status closed = fx_audio_writer_close(w);
    return status != FX_OK ? status : closed;
}
