/* The PNG writer (io_internal.h): rows in bands, bands compressed on all of the
 * context's threads, bytes to the sink in file order as each batch of bands is done.
 *
 * The image is cut into bands of band_rows rows, each compressed independently
 * into deflate blocks that end on a byte boundary, so the zlib stream is the bands
 * concatenated (after a two-byte header) and each band is one IDAT chunk whose
 * CRC-32 is computed on the thread that compressed it. The stream's Adler-32 is
 * the per-band Adler-32s combined in order. The fast coder needs nothing from the
 * band before; zlib levels are primed with its last 32 KiB of filtered bytes, as
 * pigz does, so they lose little against a single stream.
 *
 * Bands arrive through write_rows: whole bands are filtered straight from the
 * caller's rows, a band split across calls is gathered in a carry buffer. Bands
 * are queued in slots (twice the thread count) and compressed when the slots are
 * full or the call returns, since the caller's rows are only valid until then.
 * The thread that finishes a band hands every finished band from the next one in
 * file order to the sink, under a lock, so the writes overlap the compression of
 * the bands still running instead of following the whole batch. With the fast
 * coder, the whole bands of one call run as a pipeline instead of batches: each
 * thread takes the next band, waits only until its slot's previous band has gone
 * to the sink, and no thread waits at a batch's end for the slowest band.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/io_internal.h"
#include "io/png_chunks.h"
#include "io/png_deflate.h"
#include "io/png_filter.h"

enum {
    SLOTS_PER_THREAD = 2, /* a batch keeps every thread busy despite uneven bands */
    ZLIB_WINDOW = 32768,  /* the dictionary a zlib band is primed with */
    ZLIB_RAW_WINDOW_BITS = -15,
    ZLIB_MEM_LEVEL = 8,
    ZLIB_HEADER_BYTES = 2,
    ADLER_BYTES = 4,
    PNG_DEPTH_8 = 8,
    PNG_DEPTH_16 = 16,
    /* Room before a band's deflate bytes for the chunk head and the zlib header,
     * and after them for the Adler-32 and the chunk CRC. */
    SLOT_HEAD_ROOM = FXI_PNG_CHUNK_HEAD_BYTES + ZLIB_HEADER_BYTES,
    SLOT_TAIL_ROOM = ADLER_BYTES + FXI_PNG_CHUNK_CRC_BYTES,
    /* zlib's margin over deflateBound for the sync flush marker of a band. */
    ZLIB_FLUSH_MARGIN = 64,
};

/* zlib header: deflate with a 32 KiB window (CMF 0x78), then FLG with the level
 * class in its top two bits and a check value making CMF*256+FLG divisible by 31. */
#define ZLIB_CMF 0x78
#define ZLIB_CHECK_DIVISOR 31
#define ZLIB_FLEVEL_SHIFT 6

typedef struct band_slot {
    /* input */
    const uint8_t *rows; /* first raw row */
    size_t stride;
    const uint8_t *above; /* the raw row above the band, NULL for the first */
    int count;            /* rows */
    bool final;
    /* work */
    uint8_t *filtered; /* count * (1 + row_bytes) */
    size_t filtered_size;
    uint8_t *scratch;  /* AUTO's five candidate rows, then two byte-swapped rows */
    uint8_t *out_base; /* SLOT_HEAD_ROOM, the deflate bytes, SLOT_TAIL_ROOM */
    size_t out_size;
    uint32_t adler, crc;
    int zlib_error; /* Z_OK, or what zlib said */
    bool done;      /* compressed, waiting for its turn in the file */
} band_slot;

struct fxi_png_stream {
    fx_context *ctx;
    int width, height, channels;
    fx_sample_type type;
    fxi_png_params params;
    fxi_byte_sink sink;
    size_t row_bytes, bpp;
    int band_rows;
    int rows_done;
    fx_status failed; /* a failed stream takes nothing more */

    band_slot *slots;
    int slot_count, slots_used;
    size_t out_capacity;

    uint8_t *carry; /* a band gathered across write_rows calls */
    int carry_rows;
    uint8_t *above;  /* copy of the last row of the last batch */
    bool have_above;
    uint8_t *dictionary; /* zlib levels: the last filtered bytes of the last batch */
    size_t dictionary_size;

    uint32_t adler;
    bool header_written;

    pthread_mutex_t emit_lock; /* the sink, next_emit, the slots' done flags, s->adler */
    pthread_cond_t slot_free;  /* next_emit moved on (or emitting failed) */
    bool lock_ready, cond_ready;
    int next_emit;         /* the first band (of the batch or pipeline) not in the sink yet */
    int emit_end;          /* the bands of the batch or pipeline */
    fx_status emit_failed; /* the first failure of a band or the sink in this batch */
};

static bool is_fast(const fxi_png_params *p)
{
    return p->compression == FX_PNG_COMPRESSION_FAST;
}

/* ---- one band, on a worker thread ---- */

static void swap_16(const uint8_t *src, uint8_t *dst, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        dst[i] = src[i + 1];
        dst[i + 1] = src[i];
    }
}

static fxi_png_filter_type filter_type_of(int filter)
{
    return filter == FX_PNG_FILTER_AUTO ? FXI_PNG_FILTER_AUTO
                                        : (fxi_png_filter_type)(filter - FX_PNG_FILTER_NONE);
}

static void filter_band(const fxi_png_stream *s, band_slot *b)
{
    size_t n = s->row_bytes;
    /* PNG stores 16-bit samples big-endian; rows are swapped into scratch first. */
    bool swap = s->type == FX_U16 && fxi_host_little_endian();
    uint8_t *candidates = b->scratch;
    uint8_t *swapped[2] = {b->scratch + FXI_PNG_FILTER_TYPES * n,
                           b->scratch + (FXI_PNG_FILTER_TYPES + 1) * n};
    uint8_t *zero_row = swapped[1]; /* free until the first swapped row is written */
    const uint8_t *above = b->above;
    if (!above) {
        memset(zero_row, 0, n);
        above = zero_row;
    } else if (swap) {
        swap_16(above, swapped[1], n);
        above = swapped[1];
    }
    fxi_png_filter_type type = filter_type_of(s->params.filter);
    for (int y = 0; y < b->count; y++) {
        const uint8_t *cur = b->rows + (size_t)y * b->stride;
        if (swap) {
            uint8_t *dst = swapped[y & 1];
            swap_16(cur, dst, n);
            cur = dst;
        }
        fxi_png_filter_row(type, cur, above, n, s->bpp, b->filtered + (size_t)y * (n + 1),
                           candidates);
        above = cur;
    }
    b->filtered_size = (size_t)b->count * (n + 1);
    b->adler = fxi_png_adler32(1, b->filtered, b->filtered_size);
}

static void compress_zlib(const fxi_png_stream *s, band_slot *b, const uint8_t *dict,
                          size_t dict_size)
{
    b->zlib_error = Z_OK;
    z_stream z;
    memset(&z, 0, sizeof z);
    int err = deflateInit2(&z, s->params.compression, Z_DEFLATED, ZLIB_RAW_WINDOW_BITS,
                           ZLIB_MEM_LEVEL, Z_DEFAULT_STRATEGY);
    if (err != Z_OK) {
        b->zlib_error = err;
        return;
    }
    if (dict_size) err = deflateSetDictionary(&z, dict, (uInt)dict_size);
    uint8_t *out = b->out_base + SLOT_HEAD_ROOM;
    size_t capacity = s->out_capacity - SLOT_HEAD_ROOM - SLOT_TAIL_ROOM;
    z.next_in = b->filtered;
    z.avail_in = (uInt)b->filtered_size;
    z.next_out = out;
    z.avail_out = (uInt)capacity;
    if (err == Z_OK) err = deflate(&z, b->final ? Z_FINISH : Z_SYNC_FLUSH);
    /* The buffer holds deflateBound's worst case: one call finishes the band. */
    if (b->final ? err != Z_STREAM_END : (err != Z_OK || z.avail_in || !z.avail_out))
        b->zlib_error = err == Z_OK || err == Z_STREAM_END ? Z_BUF_ERROR : err;
    b->out_size = capacity - z.avail_out;
    deflateEnd(&z);
}

typedef struct batch {
    fxi_png_stream *s;
    bool filter;   /* this pass filters */
    bool compress; /* this pass compresses */
} batch;

static void emit_finished(fxi_png_stream *s, band_slot *b);

/* The fast coder on a filtered band. */
static void deflate_fast(band_slot *b)
{
    b->zlib_error = Z_OK;
    b->out_size = fxi_deflate_band(b->filtered, b->filtered_size, b->final,
                                   b->out_base + SLOT_HEAD_ROOM);
}

/* A compressed band's IDAT CRC, then its turn at the sink. */
static void finish_band(fxi_png_stream *s, band_slot *b)
{
    b->crc = (uint32_t)crc32(0L, b->out_base + SLOT_HEAD_ROOM, (uInt)b->out_size);
    emit_finished(s, b);
}

static void run_bands(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const batch *job = arg;
    fxi_png_stream *s = job->s;
    for (size_t i = begin; i < end; i++) {
        band_slot *b = &s->slots[i];
        if (job->filter) filter_band(s, b);
        if (!job->compress) continue;
        if (is_fast(&s->params)) {
            deflate_fast(b);
        } else {
            /* The band before is this batch's previous slot, or the last of the batch before. */
            const uint8_t *dict = s->dictionary;
            size_t dict_size = s->dictionary_size;
            if (i > 0) {
                const band_slot *prev = &s->slots[i - 1];
                dict_size = prev->filtered_size < ZLIB_WINDOW ? prev->filtered_size : ZLIB_WINDOW;
                dict = prev->filtered + prev->filtered_size - dict_size;
            }
            compress_zlib(s, b, dict, dict_size);
        }
        finish_band(s, b);
    }
}

/* ---- the serial part: batches, chunks, the sink ---- */

static uint8_t zlib_flags(int compression)
{
    enum { FLEVEL_FASTEST = 0, FLEVEL_FAST = 1, FLEVEL_DEFAULT = 2, FLEVEL_MAX = 3 };
    enum { LEVEL_DEFAULT = 6, LEVEL_FAST_BELOW = 2 };
    int flevel = compression < LEVEL_FAST_BELOW    ? FLEVEL_FASTEST
                 : compression < LEVEL_DEFAULT     ? FLEVEL_FAST
                 : compression == LEVEL_DEFAULT    ? FLEVEL_DEFAULT
                                                   : FLEVEL_MAX;
    unsigned flg = (unsigned)flevel << ZLIB_FLEVEL_SHIFT;
    flg += ZLIB_CHECK_DIVISOR - (ZLIB_CMF * 256u + flg) % ZLIB_CHECK_DIVISOR;
    return (uint8_t)flg;
}

/* Frame a compressed band as one IDAT chunk in the room around it and hand it on. */
static fx_status emit_band(fxi_png_stream *s, band_slot *b, bool first)
{
    fx_context *ctx = s->ctx;
    uint8_t *data = b->out_base + SLOT_HEAD_ROOM;
    uint8_t zlib_header[ZLIB_HEADER_BYTES] = {ZLIB_CMF, zlib_flags(s->params.compression)};
    size_t prefix = first ? ZLIB_HEADER_BYTES : 0;
    size_t suffix = b->final ? ADLER_BYTES : 0;
    uint8_t *start = data - prefix - FXI_PNG_CHUNK_HEAD_BYTES;
    memcpy(data - prefix, zlib_header, prefix);
    s->adler = (uint32_t)adler32_combine(s->adler, b->adler, (z_off_t)b->filtered_size);
    if (suffix) fxi_png_put_u32(data + b->out_size, s->adler);
    size_t length = prefix + b->out_size + suffix;
    FXI_RETURN_IF(length > FXI_PNG_CHUNK_MAX, FX_ELIMIT, "PNG: a band of %zu bytes is too large",
                 length);
    fxi_png_chunk_head(start, (uint32_t)length, "IDAT");
    uint32_t crc = fxi_png_chunk_crc("IDAT", data - prefix, prefix, b->crc, b->out_size,
                                     data + b->out_size, suffix);
    fxi_png_put_u32(data + b->out_size + suffix, crc);
    return s->sink.write(s->sink.opaque, start,
                         FXI_PNG_CHUNK_HEAD_BYTES + length + FXI_PNG_CHUNK_CRC_BYTES);
}

static fx_status fail(fxi_png_stream *s, fx_status st)
{
    if (s->failed == FX_OK) s->failed = st;
    return st;
}

/* Hand band b's slot and every finished slot after it, in file order, to the
 * sink; called by the thread that finished b. Only one thread at a time writes,
 * and none after a failure. */
static void emit_finished(fxi_png_stream *s, band_slot *b)
{
    fx_context *ctx = s->ctx;
    pthread_mutex_lock(&s->emit_lock);
    b->done = true;
    const int before = s->next_emit;
    while (s->emit_failed == FX_OK && s->next_emit < s->emit_end &&
           s->slots[s->next_emit % s->slot_count].done) {
        band_slot *next = &s->slots[s->next_emit % s->slot_count];
        next->done = false; /* the slot is free once its band is out */
        if (next->zlib_error != Z_OK) {
            s->emit_failed = fxi_error(
                ctx, next->zlib_error == Z_MEM_ERROR ? FX_ENOMEM : FX_EBADSTATE,
                "PNG: zlib failed on a band (%s)", zError(next->zlib_error));
            break;
        }
        const bool first = !s->header_written;
        s->header_written = true;
        s->emit_failed = emit_band(s, next, first);
        s->next_emit++;
    }
    if (s->next_emit != before || s->emit_failed != FX_OK) pthread_cond_broadcast(&s->slot_free);
    pthread_mutex_unlock(&s->emit_lock);
}

/* ---- the fast coder's pipeline over the whole bands of one call ---- */

typedef struct pipeline {
    fxi_png_stream *s;
    const uint8_t *rows; /* the first row of the first band */
    size_t stride;
    int rows_total;      /* rows in the pipeline's bands */
    atomic_int next_band;
} pipeline;

/* One band of the pipeline into its slot: rows, the row above, whether it ends
 * the image. */
static void pipeline_band(const pipeline *p, int j, band_slot *b)
{
    const fxi_png_stream *s = p->s;
    const int row0 = j * s->band_rows;
    b->rows = p->rows + (size_t)row0 * p->stride;
    b->stride = p->stride;
    b->count = p->rows_total - row0 < s->band_rows ? p->rows_total - row0 : s->band_rows;
    b->above = j > 0 ? b->rows - p->stride : s->have_above ? s->above : NULL;
    b->final = s->rows_done + row0 + b->count == s->height;
}

/* Each thread: take the next band, wait for its slot, filter, compress, emit. */
static void pipeline_worker(void *arg, size_t begin, size_t end, int worker)
{
    (void)begin, (void)end, (void)worker;
    pipeline *p = arg;
    fxi_png_stream *s = p->s;
    for (;;) {
        const int j = atomic_fetch_add(&p->next_band, 1);
        if (j >= s->emit_end) return;
        pthread_mutex_lock(&s->emit_lock);
        while (s->emit_failed == FX_OK && s->next_emit + s->slot_count <= j)
            pthread_cond_wait(&s->slot_free, &s->emit_lock);
        const bool failed = s->emit_failed != FX_OK;
        pthread_mutex_unlock(&s->emit_lock);
        if (failed) return;
        band_slot *b = &s->slots[j % s->slot_count];
        pipeline_band(p, j, b);
        filter_band(s, b);
        deflate_fast(b);
        finish_band(s, b);
    }
}

/* Rows of the whole bands in `available` rows from rows_done on (the image's last
 * band may be shorter). */
static int whole_band_rows(const fxi_png_stream *s, int available)
{
    if (s->rows_done + available == s->height) return available;
    return available / s->band_rows * s->band_rows;
}

/* The fast coder over `count` rows of whole bands, all on the threads at once. */
static fx_status run_pipeline(fxi_png_stream *s, const uint8_t *rows, size_t stride, int count)
{
    fx_context *ctx = s->ctx;
    pipeline p = {s, rows, stride, count, 0};
    const int bands = (count + s->band_rows - 1) / s->band_rows;
    s->next_emit = 0;
    s->emit_end = bands;
    s->emit_failed = FX_OK;
    for (int i = 0; i < s->slot_count; i++)
        s->slots[i].done = false;
    /* One loop per thread; each takes bands in order from p.next_band. */
    const int threads = ctx && ctx->threads > 0 ? ctx->threads : 1;
    fxi_parallel_for(ctx, (size_t)threads, 1, pipeline_worker, &p);
    if (s->emit_failed != FX_OK) return fail(s, s->emit_failed);
    memcpy(s->above, rows + (size_t)(count - 1) * stride, s->row_bytes);
    s->have_above = true;
    s->rows_done += count;
    return FX_OK;
}

/* Compress the queued bands and write them out; the next batch starts empty. */
static fx_status run_batch(fxi_png_stream *s)
{
    fx_context *ctx = s->ctx;
    if (!s->slots_used) return FX_OK;
    batch job = {s, true, is_fast(&s->params)};
    s->next_emit = 0;
    s->emit_end = s->slots_used;
    s->emit_failed = FX_OK;
    for (int i = 0; i < s->slots_used; i++)
        s->slots[i].done = false;
    fxi_parallel_for(ctx, (size_t)s->slots_used, 1, run_bands, &job);
    if (!job.compress) {
        /* zlib bands read the filtered tail of the band before: filter all first. */
        job = (batch){s, false, true};
        fxi_parallel_for(ctx, (size_t)s->slots_used, 1, run_bands, &job);
    }
    if (s->emit_failed != FX_OK) return fail(s, s->emit_failed);
    band_slot *last = &s->slots[s->slots_used - 1];
    memcpy(s->above, last->rows + (size_t)(last->count - 1) * last->stride, s->row_bytes);
    s->have_above = true;
    if (!is_fast(&s->params)) {
        s->dictionary_size =
            last->filtered_size < ZLIB_WINDOW ? last->filtered_size : ZLIB_WINDOW;
        memcpy(s->dictionary, last->filtered + last->filtered_size - s->dictionary_size,
               s->dictionary_size);
    }
    s->slots_used = 0;
    return FX_OK;
}

/* Queue the band of `count` rows starting at rows; run the batch when the slots are full. */
static fx_status queue_band(fxi_png_stream *s, const uint8_t *rows, size_t stride, int count)
{
    band_slot *b = &s->slots[s->slots_used];
    b->rows = rows;
    b->stride = stride;
    b->count = count;
    b->final = s->rows_done + count == s->height;
    if (s->slots_used > 0) {
        const band_slot *prev = &s->slots[s->slots_used - 1];
        b->above = prev->rows + (size_t)(prev->count - 1) * prev->stride;
    } else {
        b->above = s->have_above ? s->above : NULL;
    }
    s->rows_done += count;
    s->slots_used++;
    return s->slots_used == s->slot_count ? run_batch(s) : FX_OK;
}

fx_status fxi_png_stream_write_rows(fxi_png_stream *s, const fx_image *rows)
{
    fx_context *ctx = s->ctx;
    if (s->failed != FX_OK) return fxi_error(ctx, s->failed, "PNG: the encoder failed earlier");
    FXI_RETURN_IF(rows->width != s->width || rows->channels != s->channels || rows->type != s->type,
                 FX_EINVAL, "PNG: a band of %dx%d, %d channel(s) of %s does not match the image",
                 rows->width, rows->height, rows->channels, fx_sample_type_name(rows->type));
    int pending = s->rows_done + s->carry_rows;
    FXI_RETURN_IF(rows->height > s->height - pending, FX_EINVAL,
                 "PNG: %d more rows than the image's %d", rows->height - (s->height - pending),
                 s->height);
    int y = 0;
    if (is_fast(&s->params) && s->carry_rows == 0) {
        const int whole = whole_band_rows(s, rows->height);
        if (whole > 0) {
            FXI_TRY(run_pipeline(s, fx_image_row(rows, 0), rows->stride, whole));
            y = whole;
        }
    }
    while (y < rows->height) {
        int band_end = s->rows_done + s->band_rows < s->height ? s->rows_done + s->band_rows
                                                               : s->height;
        int need = band_end - s->rows_done - s->carry_rows;
        int have = rows->height - y;
        fx_status st = FX_OK;
        if (s->carry_rows == 0 && have >= need) {
            st = queue_band(s, fx_image_row(rows, y), rows->stride, need);
            y += need;
        } else {
            /* The carry may still be queued from the start of this call. */
            if (s->carry_rows == 0) st = run_batch(s);
            int take = have < need ? have : need;
            for (int k = 0; st == FX_OK && k < take; k++)
                memcpy(s->carry + (size_t)(s->carry_rows + k) * s->row_bytes,
                       fx_image_row(rows, y + k), s->row_bytes);
            s->carry_rows += take;
            y += take;
            if (st == FX_OK && take == need) {
                int count = s->carry_rows;
                s->carry_rows = 0;
                st = queue_band(s, s->carry, s->row_bytes, count);
            }
        }
        if (st != FX_OK) return fail(s, st);
    }
    /* The queued bands may point at the caller's rows: finish them now. */
    return run_batch(s);
}

static fx_status write_head(fxi_png_stream *s)
{
    enum { COLOR_GRAY = 0, COLOR_RGB = 2, COLOR_GRAY_ALPHA = 4, COLOR_RGBA = 6 };
    static const int color_types[] = {0, COLOR_GRAY, COLOR_GRAY_ALPHA, COLOR_RGB, COLOR_RGBA};
    uint8_t head[FXI_PNG_HEAD_BYTES];
    fxi_png_write_head(head, (uint32_t)s->width, (uint32_t)s->height,
                       s->type == FX_U16 ? PNG_DEPTH_16 : PNG_DEPTH_8, color_types[s->channels]);
    return s->sink.write(s->sink.opaque, head, sizeof head);
}

static fx_status allocate(fxi_png_stream *s)
{
    fx_context *ctx = s->ctx;
    size_t filtered = (size_t)s->band_rows * (s->row_bytes + 1);
    size_t deflated = fxi_deflate_band_bound(filtered);
    if (!is_fast(&s->params)) {
        size_t zlib_bound = (size_t)deflateBound(NULL, (uLong)filtered) + ZLIB_FLUSH_MARGIN;
        if (zlib_bound > deflated) deflated = zlib_bound;
    }
    s->out_capacity = SLOT_HEAD_ROOM + deflated + SLOT_TAIL_ROOM;
    size_t scratch = (FXI_PNG_FILTER_TYPES + 2) * s->row_bytes;
    FXI_TRY(fxi_malloc(ctx, (size_t)s->slot_count * sizeof *s->slots, (void **)&s->slots));
    memset(s->slots, 0, (size_t)s->slot_count * sizeof *s->slots);
    for (int i = 0; i < s->slot_count; i++) {
        band_slot *b = &s->slots[i];
        FXI_TRY(fxi_malloc(ctx, filtered, (void **)&b->filtered));
        FXI_TRY(fxi_malloc(ctx, scratch, (void **)&b->scratch));
        FXI_TRY(fxi_malloc(ctx, s->out_capacity, (void **)&b->out_base));
    }
    FXI_TRY(fxi_malloc(ctx, (size_t)s->band_rows * s->row_bytes, (void **)&s->carry));
    FXI_TRY(fxi_malloc(ctx, s->row_bytes, (void **)&s->above));
    if (!is_fast(&s->params)) FXI_TRY(fxi_malloc(ctx, ZLIB_WINDOW, (void **)&s->dictionary));
    return FX_OK;
}

fx_status fxi_png_stream_open_with(fx_context *ctx, int width, int height, int channels,
                                   fx_sample_type type, const fxi_png_params *params,
                                   fxi_byte_sink sink, fxi_png_stream **out)
{
    *out = NULL;
    FXI_RETURN_IF(width < 1 || height < 1 || channels < 1 || channels > FX_MAX_IMAGE_CHANNELS ||
                     (type != FX_U8 && type != FX_U16),
                 FX_EINVAL, "PNG: cannot write %dx%d, %d channel(s) of %s", width, height,
                 channels, fx_sample_type_name(type));
    FXI_RETURN_IF(params->compression != FX_PNG_COMPRESSION_FAST &&
                     (params->compression < 0 || params->compression > FX_PNG_COMPRESSION_MAX),
                 FX_EINVAL, "PNG compression %d is outside 0..%d", params->compression,
                 FX_PNG_COMPRESSION_MAX);
    FXI_RETURN_IF(params->filter < FX_PNG_FILTER_AUTO || params->filter > FX_PNG_FILTER_PAETH,
                 FX_EINVAL, "PNG filter %d is not one of auto, none, sub, up, avg, paeth",
                 params->filter);
    FXI_RETURN_IF(params->band_rows < 0, FX_EINVAL, "PNG: %d rows per band", params->band_rows);
    fxi_png_stream *s = calloc(1, sizeof *s);
    FXI_RETURN_IF(!s, FX_ENOMEM, "PNG: out of memory for the encoder");
    s->ctx = ctx;
    s->width = width;
    s->height = height;
    s->channels = channels;
    s->type = type;
    s->params = *params;
    s->sink = sink;
    s->bpp = (size_t)channels * fx_sample_size(type);
    s->row_bytes = (size_t)width * s->bpp;
    s->band_rows = params->band_rows;
    if (!s->band_rows) {
        size_t rows = FXI_PNG_BAND_BYTES / s->row_bytes;
        s->band_rows = rows < 1 ? 1 : rows > (size_t)height ? height : (int)rows;
    }
    if (s->band_rows > height) s->band_rows = height;
    int bands = (height + s->band_rows - 1) / s->band_rows;
    int threads = ctx && ctx->threads > 0 ? ctx->threads : 1;
    s->slot_count = threads * SLOTS_PER_THREAD < bands ? threads * SLOTS_PER_THREAD : bands;
    s->adler = (uint32_t)adler32(0L, NULL, 0);
    fx_status st = pthread_mutex_init(&s->emit_lock, NULL) == 0
                       ? FX_OK
                       : fxi_error(ctx, FX_ENOMEM, "PNG: cannot create the encoder's lock");
    s->lock_ready = st == FX_OK;
    if (st == FX_OK && pthread_cond_init(&s->slot_free, NULL) != 0)
        st = fxi_error(ctx, FX_ENOMEM, "PNG: cannot create the encoder's condition");
    s->cond_ready = st == FX_OK;
    if (st == FX_OK) st = allocate(s);
    if (st == FX_OK) st = write_head(s);
    if (st != FX_OK) {
        fxi_png_stream_discard(s);
        return st;
    }
    *out = s;
    return FX_OK;
}

fx_status fxi_png_stream_close(fxi_png_stream *s)
{
    fx_context *ctx = s->ctx;
    fx_status st = s->failed;
    if (st != FX_OK)
        st = fxi_error(ctx, st, "PNG: the encoder failed earlier");
    else if (s->rows_done + s->carry_rows != s->height)
        st = fxi_error(ctx, FX_EINVAL, "PNG: closed after %d of %d rows",
                       s->rows_done + s->carry_rows, s->height);
    if (st == FX_OK) {
        uint8_t iend[FXI_PNG_IEND_BYTES];
        fxi_png_write_iend(iend);
        st = s->sink.write(s->sink.opaque, iend, sizeof iend);
    }
    fxi_png_stream_discard(s);
    return st;
}

void fxi_png_stream_discard(fxi_png_stream *s)
{
    if (!s) return;
    for (int i = 0; s->slots && i < s->slot_count; i++) {
        free(s->slots[i].filtered);
        free(s->slots[i].scratch);
        free(s->slots[i].out_base);
    }
    free(s->slots);
    free(s->carry);
    free(s->above);
    free(s->dictionary);
    if (s->cond_ready) pthread_cond_destroy(&s->slot_free);
    if (s->lock_ready) pthread_mutex_destroy(&s->emit_lock);
    free(s);
}
