/* One audio file through the normalizer, read -> push -> pull -> write.
 *
 * Overlapped, two threads share the work: an I/O thread reads chunks ahead
 * into free input buffers and writes the filled output buffers (writing
 * first, so that memory stays bounded), while the calling thread pushes each
 * input chunk into the normalizer and pulls what is ready into output
 * buffers. The buffers travel between the two through four queues under one
 * lock; chunks stay small enough to be in cache when the other thread takes
 * them. The normalizer sees the same chunks in the same order as in the
 * sequential form, so the output is the same bits.
 */
#include <pthread.h>
#include <stdlib.h>

#include "normalize/normalize_math.h"
#include "normalize_pipeline.h"

/* Frames per chunk: 16 Ki frames (256 KiB of stereo doubles) stays in L2. */
#define CHUNK_FRAMES ((size_t)1 << 14)
/* Buffers in flight each way. */
#define PIPE_BUFFERS 8
/* An idle I/O thread waits until this many buffers can be written or read
 * (or the end): one wake-up per few chunks, not per chunk. */
#define WAKE_BATCH (PIPE_BUFFERS / 2)

/* The library's level arithmetic (the normalizer's own frame measure), over the
 * stream's interleaved samples in order. */
static void levels_add(fxcli_levels *l, const double *x, size_t count)
{
    l->peak = fxi_nm_peak_add(l->peak, x, count, 1);
    l->sum_squares = fxi_nm_sumsq_add(l->sum_squares, x, count, 1);
    l->samples += count;
}

/* ---- sequential ---- */

/* Pull everything ready and write it. */
static fx_status drain_sequential(fx_normalize *n, fx_audio_writer *w, double *buf, int channels,
                                  fxcli_stream_levels *lv, fxcli_result *res)
{
    for (;;) {
        size_t got = 0;
        uint64_t t0 = fx_time_ns();
        fx_status st = fx_normalize_pull(n, buf, CHUNK_FRAMES, &got);
        uint64_t t1 = fx_time_ns();
        res->timings.compute_ms += fx_elapsed_ms(t0, t1);
        if (st != FX_OK || got == 0) return st;
        if (lv->wanted) levels_add(&lv->out, buf, got * (size_t)channels);
        st = fx_audio_writer_write(w, buf, got);
        res->timings.encode_ms += fx_elapsed_ms(t1, fx_time_ns());
        if (st != FX_OK) return st;
    }
}

static fx_status stream_sequential(fx_normalize *n, fx_audio_reader *r, fx_audio_writer *w,
                                   const fx_audio_info *info, double *buf, fxcli_stream_levels *lv,
                                   fxcli_result *res)
{
    fx_status st = FX_OK;
    uint64_t frames = 0;
    for (;;) {
        size_t got = 0;
        uint64_t t0 = fx_time_ns();
        st = fx_audio_reader_read(r, buf, CHUNK_FRAMES, &got);
        uint64_t t1 = fx_time_ns();
        res->timings.decode_ms += fx_elapsed_ms(t0, t1);
        if (st != FX_OK) break;
        if (lv->wanted) levels_add(&lv->in, buf, got * (size_t)info->channels);
        st = got ? fx_normalize_push(n, buf, got) : fx_normalize_flush(n);
        res->timings.compute_ms += fx_elapsed_ms(t1, fx_time_ns());
        if (st == FX_OK) st = drain_sequential(n, w, buf, info->channels, lv, res);
        if (st != FX_OK || got == 0) break;
        frames += got;
        fxcli_progress_item(res->slot, frames, info->frames);
    }
    res->width = (int64_t)frames;
    return st;
}

/* ---- overlapped ---- */

/* A FIFO of buffer numbers. */
typedef struct queue {
    int item[PIPE_BUFFERS];
    int head, count;
} queue;

static void queue_put(queue *q, int b)
{
    q->item[(q->head + q->count) % PIPE_BUFFERS] = b;
    q->count++;
}

static int queue_take(queue *q)
{
    int b = q->item[q->head];
    q->head = (q->head + 1) % PIPE_BUFFERS;
    q->count--;
    return b;
}

typedef struct pipeline {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* any queue or flag below changed */
    fx_audio_reader *reader;
    fx_audio_writer *writer;
    double *in[PIPE_BUFFERS], *out[PIPE_BUFFERS];
    size_t in_frames[PIPE_BUFFERS], out_frames[PIPE_BUFFERS];
    queue in_free, in_full, out_free, out_full;
    bool input_done;             /* the end of the input (or a failure) was read */
    bool compute_done;           /* no more output will be queued */
    fx_status io_status;         /* the first read or write failure */
    double decode_ms, encode_ms; /* the I/O thread's own */
} pipeline;

static void io_failed(pipeline *p, fx_status st)
{
    if (st != FX_OK && p->io_status == FX_OK) p->io_status = st;
}

/* Write one filled output buffer; called and returns with the lock held. */
static void io_write_one(pipeline *p)
{
    const int b = queue_take(&p->out_full);
    const bool failed = p->io_status != FX_OK;
    pthread_mutex_unlock(&p->lock);
    uint64_t t0 = fx_time_ns();
    fx_status st = failed ? FX_OK : fx_audio_writer_write(p->writer, p->out[b], p->out_frames[b]);
    p->encode_ms += fx_elapsed_ms(t0, fx_time_ns());
    pthread_mutex_lock(&p->lock);
    io_failed(p, st);
    queue_put(&p->out_free, b);
}

/* Read into one free input buffer; called and returns with the lock held. */
static void io_read_one(pipeline *p)
{
    const int b = queue_take(&p->in_free);
    pthread_mutex_unlock(&p->lock);
    size_t got = 0;
    uint64_t t0 = fx_time_ns();
    fx_status st = fx_audio_reader_read(p->reader, p->in[b], CHUNK_FRAMES, &got);
    p->decode_ms += fx_elapsed_ms(t0, fx_time_ns());
    pthread_mutex_lock(&p->lock);
    io_failed(p, st);
    p->in_frames[b] = got;
    if (st != FX_OK || got == 0) p->input_done = true;
    if (st == FX_OK)
        queue_put(&p->in_full, b);
    else
        queue_put(&p->in_free, b);
}

/* Worth waking for. It cannot deadlock: the compute thread waits only for an
 * empty output queue, when all output buffers are full, or for an input, when
 * all input buffers are free. */
static bool io_batch_ready(const pipeline *p)
{
    return p->compute_done || p->out_full.count >= WAKE_BATCH ||
           (!p->input_done && p->in_free.count >= WAKE_BATCH);
}

static void *io_thread(void *arg)
{
    pipeline *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (p->out_full.count) {
            io_write_one(p);
        } else if (!p->input_done && !p->compute_done && p->in_free.count) {
            io_read_one(p);
        } else if (p->compute_done) {
            break;
        } else {
            while (!io_batch_ready(p))
                pthread_cond_wait(&p->changed, &p->lock);
            continue;
        }
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Wait until `q` holds a buffer or the I/O failed; take it (-1 on failure). */
static int take_when_ready(pipeline *p, queue *q)
{
    pthread_mutex_lock(&p->lock);
    while (!q->count && p->io_status == FX_OK)
        pthread_cond_wait(&p->changed, &p->lock);
    const int b = p->io_status == FX_OK ? queue_take(q) : -1;
    pthread_mutex_unlock(&p->lock);
    return b;
}

static void give(pipeline *p, queue *q, int b)
{
    pthread_mutex_lock(&p->lock);
    queue_put(q, b);
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

/* Pull everything ready into output buffers for the I/O thread. */
static fx_status drain_overlapped(pipeline *p, fx_normalize *n, int channels,
                                  fxcli_stream_levels *lv, fxcli_result *res)
{
    while (fx_normalize_ready(n) > 0) {
        const int b = take_when_ready(p, &p->out_free);
        if (b < 0) return FX_OK; /* the I/O failure is reported by the caller */
        uint64_t t0 = fx_time_ns();
        size_t got = 0;
        fx_status st = fx_normalize_pull(n, p->out[b], CHUNK_FRAMES, &got);
        if (lv->wanted) levels_add(&lv->out, p->out[b], got * (size_t)channels);
        res->timings.compute_ms += fx_elapsed_ms(t0, fx_time_ns());
        p->out_frames[b] = got;
        give(p, st == FX_OK ? &p->out_full : &p->out_free, b);
        if (st != FX_OK) return st;
    }
    return FX_OK;
}

/* The calling thread's part: push every input chunk, pull into output buffers. */
static fx_status compute_loop(pipeline *p, fx_normalize *n, const fx_audio_info *info,
                              fxcli_stream_levels *lv, fxcli_result *res)
{
    uint64_t frames = 0;
    for (;;) {
        const int b = take_when_ready(p, &p->in_full);
        if (b < 0) break;
        const size_t got = p->in_frames[b];
        uint64_t t0 = fx_time_ns();
        if (lv->wanted) levels_add(&lv->in, p->in[b], got * (size_t)info->channels);
        fx_status st = got ? fx_normalize_push(n, p->in[b], got) : fx_normalize_flush(n);
        res->timings.compute_ms += fx_elapsed_ms(t0, fx_time_ns());
        give(p, &p->in_free, b);
        if (st == FX_OK) st = drain_overlapped(p, n, info->channels, lv, res);
        if (st != FX_OK) {
            res->width = (int64_t)frames;
            return st;
        }
        if (got == 0) break;
        frames += got;
        fxcli_progress_item(res->slot, frames, info->frames);
    }
    res->width = (int64_t)frames;
    return FX_OK;
}

static fx_status stream_overlapped(fx_normalize *n, fx_audio_reader *r, fx_audio_writer *w,
                                   const fx_audio_info *info, double *buffers,
                                   fxcli_stream_levels *lv, fxcli_result *res)
{
    pipeline p = {.reader = r, .writer = w};
    const size_t samples = CHUNK_FRAMES * (size_t)info->channels;
    for (int b = 0; b < PIPE_BUFFERS; b++) {
        p.in[b] = buffers + (size_t)(2 * b) * samples;
        p.out[b] = buffers + (size_t)(2 * b + 1) * samples;
        queue_put(&p.in_free, b);
        queue_put(&p.out_free, b);
    }
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.changed, NULL);
    pthread_t io;
    fx_status st;
    if (pthread_create(&io, NULL, io_thread, &p) != 0) {
        st = fxcli_fail(res, FX_ENOMEM, "cannot start the I/O thread");
    } else {
        st = compute_loop(&p, n, info, lv, res);
        pthread_mutex_lock(&p.lock);
        p.compute_done = true;
        pthread_cond_broadcast(&p.changed);
        pthread_mutex_unlock(&p.lock);
        pthread_join(io, NULL);
        if (st == FX_OK) st = p.io_status;
    }
    res->timings.decode_ms += p.decode_ms;
    res->timings.encode_ms += p.encode_ms;
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.lock);
    return st;
}

fx_status fxcli_normalize_stream(fx_normalize *n, fx_audio_reader *r, fx_audio_writer *w,
                                 const fx_audio_info *info, bool overlap, fxcli_stream_levels *lv,
                                 fxcli_result *res)
{
    const size_t buffers = overlap ? 2 * PIPE_BUFFERS : 1;
    size_t samples;
    if (__builtin_mul_overflow(CHUNK_FRAMES * buffers, (size_t)info->channels, &samples))
        return fxcli_fail(res, FX_EOVERFLOW, "%d channels are too many", info->channels);
    double *mem = malloc(samples * sizeof *mem);
    if (!mem) return fxcli_fail(res, FX_ENOMEM, "out of memory for audio chunks");
    fx_status st = overlap ? stream_overlapped(n, r, w, info, mem, lv, res)
                           : stream_sequential(n, r, w, info, mem, lv, res);
    free(mem);
    return st;
}

/* ---- whole file (a GPU context) ---- */

/* Read every frame of r into a buffer of its own: the header's count, which the reader
 * never exceeds (a short file is reported as truncated), as fx_audio_read_file does. */
static fx_status read_all(fx_context *ctx, fx_audio_reader *r, const fx_audio_info *info,
                          fx_audio *in)
{
    fx_status st = fx_audio_alloc(ctx, in, info->frames, info->channels, info->rate);
    if (st != FX_OK) return st;
    in->format = info->format;
    const size_t channels = (size_t)info->channels;
    size_t frames = 0;
    while (frames < in->frames) {
        size_t got = 0;
        st = fx_audio_reader_read(r, in->data + frames * channels, in->frames - frames, &got);
        if (st != FX_OK) return st;
        if (got == 0) break;
        frames += got;
    }
    in->frames = frames;
    return FX_OK;
}

fx_status fxcli_normalize_whole(fx_context *ctx, const fx_normalize_options *opts,
                                fx_audio_reader *r, fx_audio_writer *w, const fx_audio_info *info,
                                fxcli_stream_levels *lv, fxcli_result *res)
{
    fx_audio in = {0}, out = {0};
    uint64_t t0 = fx_time_ns();
    fx_status st = read_all(ctx, r, info, &in);
    uint64_t t1 = fx_time_ns();
    res->timings.decode_ms += fx_elapsed_ms(t0, t1);
    const size_t samples = in.frames * (size_t)in.channels;
    /* One pass over the whole buffer: the same order, so the same sums, as the stream's
     * chunk after chunk. */
    if (st == FX_OK && lv->wanted) levels_add(&lv->in, in.data, samples);
    if (st == FX_OK && in.frames > 0) st = fx_normalize_audio(ctx, opts, &in, &out);
    uint64_t t2 = fx_time_ns();
    res->timings.compute_ms += fx_elapsed_ms(t1, t2);
    if (st == FX_OK && in.frames > 0) {
        if (lv->wanted) levels_add(&lv->out, out.data, samples);
        st = fx_audio_writer_write(w, out.data, out.frames);
    }
    res->timings.encode_ms += fx_elapsed_ms(t2, fx_time_ns());
    fxcli_progress_item(res->slot, in.frames, info->frames);
    res->width = (int64_t)in.frames;
    fx_audio_free(&in);
    fx_audio_free(&out);
    return st;
}
