/* A fixed pool of worker threads that runs one parallel loop at a time.
 *
 * The calling thread takes part as worker 0; the pool's threads are workers
 * 1..n-1. Items are handed out in chunks through one atomic counter, so uneven
 * rows balance themselves. A loop started from inside a worker runs serially
 * on that worker instead of deadlocking.
 *
 * Between loops a thread spins a short while (POOL_SPIN_NS) before it sleeps on the
 * condition variable: a run of loops back to back (a plan reused over many small images)
 * then finds its workers awake, instead of paying a futex wake-up and a reschedule
 * (~10 us on the development machine) for each loop.
 */
#include <sched.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* Chunks per thread: enough to balance uneven work, few enough to keep the
 * atomic counter cold. */
#define CHUNKS_PER_THREAD 4
/* How long a thread waits awake for the next loop or for its workers (ns): longer than
 * the gap between two back-to-back runs on small images, short enough that an idle pool
 * costs nothing to speak of. */
#define POOL_SPIN_NS 50000

struct fxi_pool {
    int threads; /* including the caller */
    pthread_t *tids;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    /* Written under the lock; atomic so that a spinning thread may read them without it. */
    _Atomic uint64_t generation; /* bumped for each loop */
    atomic_int busy_workers;     /* pool threads still inside the current loop */
    atomic_int stop;
    /* the current loop */
    fxi_range_fn fn;
    void *arg;
    size_t count, chunk;
    atomic_size_t next;
};

static _Thread_local int in_pool_task;

static void run_chunks(fxi_pool *pool, int worker)
{
    in_pool_task = 1;
    for (;;) {
        size_t begin = atomic_fetch_add(&pool->next, pool->chunk);
        if (begin >= pool->count) break;
        size_t end = begin + pool->chunk < pool->count ? begin + pool->chunk : pool->count;
        pool->fn(pool->arg, begin, end, worker);
    }
    in_pool_task = 0;
}

typedef struct worker_start {
    fxi_pool *pool;
    int worker;
} worker_start;

/* Between two looks: give the core away if anything else wants it (the machine may
 * have more runnable threads than cores, and a spinning thread would hold one). */
static inline void cpu_relax(void)
{
    sched_yield();
}

/* Spin up to POOL_SPIN_NS until *value differs from `unlike` (or the pool stops). */
static void spin_while_equal(fxi_pool *pool, _Atomic uint64_t *value, uint64_t unlike)
{
    const uint64_t until = fx_time_ns() + POOL_SPIN_NS;
    while (atomic_load(value) == unlike && !atomic_load(&pool->stop) && fx_time_ns() < until)
        cpu_relax();
}

static void *worker_main(void *p)
{
    worker_start start = *(worker_start *)p;
    free(p);
    fxi_pool *pool = start.pool;
    uint64_t seen = 0;
    for (;;) {
        spin_while_equal(pool, &pool->generation, seen);
        pthread_mutex_lock(&pool->lock);
        while (!pool->stop && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->stop) break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_chunks(pool, start.worker);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy_workers == 0) pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

fx_status fxi_pool_create(int threads, fxi_pool **out)
{
    *out = NULL;
    fxi_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return FX_ENOMEM;
    pool->threads = threads;
    pool->tids = calloc((size_t)threads, sizeof *pool->tids);
    if (!pool->tids) {
        free(pool);
        return FX_ENOMEM;
    }
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    for (int i = 1; i < threads; i++) {
        worker_start *start = malloc(sizeof *start);
        if (!start) break;
        start->pool = pool;
        start->worker = i;
        if (pthread_create(&pool->tids[i], NULL, worker_main, start) != 0) {
            free(start);
            break;
        }
        pool->started++;
    }
    /* Fewer threads than asked (resource limits) still make a correct pool. */
    pool->threads = pool->started + 1;
    *out = pool;
    return FX_OK;
}

void fxi_pool_destroy(fxi_pool *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i <= pool->started; i++)
        pthread_join(pool->tids[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    free(pool->tids);
    free(pool);
}

void fxi_parallel_for(fx_context *ctx, size_t count, size_t grain, fxi_range_fn fn, void *arg)
{
    if (count == 0) return;
    if (grain == 0) grain = 1;
    fxi_pool *pool = ctx ? ctx->pool : NULL;
    if (!pool || pool->threads < 2 || in_pool_task || count <= grain) {
        fn(arg, 0, count, 0);
        return;
    }
    size_t chunk = count / ((size_t)pool->threads * CHUNKS_PER_THREAD);
    if (chunk < grain) chunk = grain;

    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->count = count;
    pool->chunk = chunk;
    atomic_store(&pool->next, 0);
    pool->busy_workers = pool->started;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    run_chunks(pool, 0);

    /* The workers' last chunks usually end within microseconds of ours. */
    const uint64_t until = fx_time_ns() + POOL_SPIN_NS;
    while (atomic_load(&pool->busy_workers) > 0 && fx_time_ns() < until)
        cpu_relax();
    pthread_mutex_lock(&pool->lock);
    while (pool->busy_workers > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
