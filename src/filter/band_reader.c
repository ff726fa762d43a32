/* fxi_band_reader (band_reader.h): one thread, two buffers, a mutex and a condition
 * variable between the caller and the thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "filter/band.h"
#include "filter/band_reader.h"

struct fxi_band_reader {
    fx_context *ctx;
    fxi_band_reader_setup in;
    int64_t count; /* bands */
    pthread_t tid;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int64_t ready;    /* bands [0, ready) are decoded */
    int64_t released; /* bands [0, released) are filtered */
    bool stop;        /* the caller is done: the thread exits */
    fx_status status; /* the thread's failure; it stops there */
    double decode_ms; /* the thread's time in the reader */
};

static fxi_band band(const fxi_band_reader *t, int64_t index)
{
    return fxi_band_at(index, t->in.band_rows, t->in.height, t->in.halo, t->in.halo, true);
}

static uint8_t *row(const fx_image *img, int64_t y)
{
    return img->data + (size_t)y * img->stride;
}

/* Decode input rows [from, b->in_end) into buffer rows [from - b->in_begin, …). */
static fx_status decode(fxi_band_reader *t, const fxi_band *b, const fx_image *buf, int64_t from)
{
    fx_context *ctx = t->in.rctx;
    while (from < b->in_end) {
        fx_image at = *buf;
        at.data = row(buf, from - b->in_begin);
        at.height = (int)(b->in_end - from);
        int got = 0;
        FXI_TRY(fx_image_reader_read_rows(t->in.reader, &at, at.height, &got));
        FXI_RETURN_IF(got == 0, FX_EFORMAT, "the image ends after %lld rows", (long long)from);
        from += got;
    }
    return FX_OK;
}

/* Band k into buffer k % 2: the rows it shares with band k - 1 copied, the rest decoded. */
static fx_status fill(fxi_band_reader *t, int64_t k)
{
    const fxi_band b = band(t, k);
    const fx_image *buf = &t->in.buffers[k % 2];
    int64_t from = b.in_begin;
    if (k > 0) {
        const fxi_band p = band(t, k - 1);
        const fx_image *prev = &t->in.buffers[(k - 1) % 2];
        const int64_t shared_end = p.in_end < b.in_end ? p.in_end : b.in_end;
        for (int64_t y = b.in_begin; y < shared_end; y++)
            memcpy(row(buf, y - b.in_begin), row(prev, y - p.in_begin), buf->stride);
        from = shared_end > from ? shared_end : from;
    }
    return decode(t, &b, buf, from);
}

static void *run(void *arg)
{
    fxi_band_reader *t = arg;
    for (int64_t k = 0; k < t->count; k++) {
        pthread_mutex_lock(&t->lock);
        while (k >= t->released + 2 && !t->stop) /* buffer k % 2 still holds band k - 2 */
            pthread_cond_wait(&t->changed, &t->lock);
        const bool stop = t->stop;
        pthread_mutex_unlock(&t->lock);
        if (stop) break;
        const uint64_t t0 = fx_time_ns();
        const fx_status st = fill(t, k);
        const double ms = fx_elapsed_ms(t0, fx_time_ns());
        pthread_mutex_lock(&t->lock);
        t->decode_ms += ms;
        if (st == FX_OK) t->ready = k + 1;
        else t->status = st;
        pthread_cond_broadcast(&t->changed);
        pthread_mutex_unlock(&t->lock);
        if (st != FX_OK) break;
    }
    return NULL;
}

fx_status fxi_band_reader_start(fx_context *ctx, const fxi_band_reader_setup *setup,
                                fxi_band_reader **out)
{
    *out = NULL;
    FXI_RETURN_IF(setup->band_rows < 1 || setup->height < 1, FX_EINVAL,
                  "band reader: %lld rows per band over %lld rows", (long long)setup->band_rows,
                  (long long)setup->height);
    fxi_band_reader *t;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *t, (void **)&t));
    *t = (fxi_band_reader){.ctx = ctx,
                           .in = *setup,
                           .count = (setup->height + setup->band_rows - 1) / setup->band_rows,
                           .status = FX_OK};
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->changed, NULL);
    if (pthread_create(&t->tid, NULL, run, t) != 0) {
        pthread_cond_destroy(&t->changed);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return fxi_error(ctx, FX_ENOMEM, "cannot start a reader thread");
    }
    *out = t;
    return FX_OK;
}

fx_status fxi_band_reader_get(fxi_band_reader *t, int64_t index, fx_image *rows)
{
    pthread_mutex_lock(&t->lock);
    while (t->ready <= index && t->status == FX_OK)
        pthread_cond_wait(&t->changed, &t->lock);
    const fx_status st = t->ready > index ? FX_OK : t->status;
    pthread_mutex_unlock(&t->lock);
    if (st != FX_OK) /* the thread has stopped: rctx is ours to read */
        return fxi_error(t->ctx, st, "%s", fx_context_error(t->in.rctx));
    const fxi_band b = band(t, index);
    *rows = t->in.buffers[index % 2];
    rows->height = (int)(b.in_end - b.in_begin);
    return FX_OK;
}

void fxi_band_reader_release(fxi_band_reader *t, int64_t index)
{
    pthread_mutex_lock(&t->lock);
    if (index + 1 > t->released) t->released = index + 1;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
}

void fxi_band_reader_finish(fxi_band_reader *t, fx_timings *timings)
{
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    t->stop = true;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->tid, NULL);
    if (timings) timings->decode_ms += t->decode_ms;
    pthread_cond_destroy(&t->changed);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
