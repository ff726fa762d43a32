/* fxi_writer_thread (writer_thread.h): one thread, one band in flight, a mutex and a
 * condition variable between the caller and the thread. */
#include <pthread.h>
#include <stdlib.h>

#include "io/writer_thread.h"

struct fxi_writer_thread {
    fx_context *ctx, *wctx;
    fx_image_writer *writer;
    pthread_t tid;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    fx_image band;    /* the band in flight, valid while `pending` */
    bool pending;     /* a band waits for the thread or is being written */
    bool stop;        /* no more bands: the thread exits when idle */
    fx_status status; /* the first failure of a write */
    double encode_ms; /* the thread's time in the writer */
};

static void *run(void *arg)
{
    fxi_writer_thread *t = arg;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->pending && !t->stop)
            pthread_cond_wait(&t->changed, &t->lock);
        if (!t->pending) break; /* stopped and idle */
        const fx_image band = t->band;
        const bool skip = t->status != FX_OK; /* after a failure, bands are only drained */
        pthread_mutex_unlock(&t->lock);
        fx_status st = FX_OK;
        const uint64_t t0 = fx_time_ns();
        if (!skip) st = fx_image_writer_write_rows(t->writer, &band);
        const double ms = fx_elapsed_ms(t0, fx_time_ns());
        pthread_mutex_lock(&t->lock);
        t->encode_ms += ms;
        if (t->status == FX_OK) t->status = st;
        t->pending = false;
        pthread_cond_broadcast(&t->changed);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

fx_status fxi_writer_thread_start(fx_context *ctx, fx_image_writer *writer, fx_context *wctx,
                                  fxi_writer_thread **out)
{
    *out = NULL;
    fxi_writer_thread *t;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *t, (void **)&t));
    *t = (fxi_writer_thread){.ctx = ctx, .wctx = wctx, .writer = writer, .status = FX_OK};
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->changed, NULL);
    if (pthread_create(&t->tid, NULL, run, t) != 0) {
        pthread_cond_destroy(&t->changed);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return fxi_error(ctx, FX_ENOMEM, "cannot start a writer thread");
    }
    *out = t;
    return FX_OK;
}

/* Wait until no band is in flight; the thread's status (relayed into ctx on failure). */
static fx_status wait_idle(fxi_writer_thread *t)
{
    pthread_mutex_lock(&t->lock);
    while (t->pending)
        pthread_cond_wait(&t->changed, &t->lock);
    const fx_status st = t->status;
    pthread_mutex_unlock(&t->lock);
    /* The thread is idle: wctx is ours to read. */
    if (st != FX_OK) fxi_error(t->ctx, st, "%s", fx_context_error(t->wctx));
    return st;
}

fx_status fxi_writer_thread_put(fxi_writer_thread *t, const fx_image *band)
{
    FXI_TRY(wait_idle(t));
    pthread_mutex_lock(&t->lock);
    t->band = *band;
    t->pending = true;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
    return FX_OK;
}

fx_status fxi_writer_thread_finish(fxi_writer_thread *t, bool report, fx_timings *timings)
{
    if (!t) return FX_OK;
    pthread_mutex_lock(&t->lock);
    while (t->pending)
        pthread_cond_wait(&t->changed, &t->lock);
    t->stop = true;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->tid, NULL);
    const fx_status st = t->status;
    if (st != FX_OK && report) fxi_error(t->ctx, st, "%s", fx_context_error(t->wctx));
    if (timings) timings->encode_ms += t->encode_ms;
    pthread_cond_destroy(&t->changed);
    pthread_mutex_destroy(&t->lock);
    free(t);
    return st;
}
