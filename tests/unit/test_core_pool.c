/* Thread pool: every item exactly once, any count and grain, nested loops, reuse. */
#include <stdatomic.h>
#include <stdlib.h>

#include "core/internal.h"
#include "fxtest.h"

typedef struct visit_args {
    atomic_int *hits;
    int max_worker_seen;
    int threads;
    atomic_int bad_worker;
} visit_args;

static void visit(void *p, size_t begin, size_t end, int worker)
{
    visit_args *a = p;
    if (worker < 0 || worker >= a->threads) atomic_store(&a->bad_worker, 1);
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&a->hits[i], 1);
}

static void check_each_once(fx_context *ctx, size_t count, size_t grain)
{
    atomic_int *hits = calloc(count ? count : 1, sizeof *hits);
    visit_args a = {hits, 0, fx_context_threads(ctx), 0};
    fxi_parallel_for(ctx, count, grain, visit, &a);
    int wrong = 0;
    for (size_t i = 0; i < count; i++)
        wrong += atomic_load(&hits[i]) != 1;
    FXT_CHECK_EQ(wrong, 0);
    FXT_CHECK_EQ(atomic_load(&a.bad_worker), 0);
    free(hits);
}

FXT_TEST(every_item_exactly_once)
{
    static const int thread_counts[] = {1, 2, 3, 8};
    static const size_t counts[] = {0, 1, 2, 7, 64, 1000, 100003};
    static const size_t grains[] = {0, 1, 5, 4096};
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        fx_context *ctx = fxt_context(FX_DEVICE_CPU, thread_counts[t]);
        FXT_CHECK_EQ(fx_context_threads(ctx), thread_counts[t]);
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
            for (size_t g = 0; g < sizeof grains / sizeof *grains; g++)
                check_each_once(ctx, counts[c], grains[g]);
        fx_context_destroy(ctx);
    }
}

typedef struct nested_args {
    fx_context *ctx;
    atomic_long total;
} nested_args;

static void inner(void *p, size_t begin, size_t end, int worker)
{
    (void)worker;
    atomic_fetch_add(&((nested_args *)p)->total, (long)(end - begin));
}

static void outer(void *p, size_t begin, size_t end, int worker)
{
    (void)worker;
    nested_args *a = p;
    /* A loop inside a loop must not deadlock: it runs serially on this worker. */
    for (size_t i = begin; i < end; i++)
        fxi_parallel_for(a->ctx, 10, 1, inner, a);
}

FXT_TEST(nested_loops_do_not_deadlock)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 4);
    nested_args a = {ctx, 0};
    fxi_parallel_for(ctx, 100, 1, outer, &a);
    FXT_CHECK_EQ(atomic_load(&a.total), 1000);
    fx_context_destroy(ctx);
}

FXT_TEST(many_loops_on_one_pool)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    nested_args a = {ctx, 0};
    for (int i = 0; i < 2000; i++)
        fxi_parallel_for(ctx, 17, 1, inner, &a);
    FXT_CHECK_EQ(atomic_load(&a.total), 2000 * 17);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(every_item_exactly_once), FXT_CASE(nested_loops_do_not_deadlock),
         FXT_CASE(many_loops_on_one_pool))
