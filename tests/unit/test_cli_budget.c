/* The batch's memory budget (cli/memory_budget.c): threads reserving random amounts
 * never hold more than the budget at once, as counted by the test itself; an item
 * larger than the budget runs alone; the estimate of an image is three copies of its
 * decoded pixels, from the header alone. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fxtest.h"

#define THREADS 8
#define ROUNDS 200
#define LIMIT 1000u

typedef struct shared {
    fxcli_budget budget;
    atomic_uint_fast64_t held; /* what the holders hold, counted here */
    atomic_int holders;
    atomic_int over;       /* times the held total exceeded the limit */
    atomic_int not_alone;  /* times an oversized item had company */
    uint64_t seed;
} shared;

typedef struct arg {
    shared *s;
    uint64_t seed;
} arg;

static void *hammer(void *p)
{
    arg *a = p;
    shared *s = a->s;
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t r = fxt_rand(&a->seed);
        /* Mostly items below the limit; every 16th one is larger than it. */
        uint64_t bytes = r % 16 == 0 ? LIMIT + 1 + r % LIMIT : r % (LIMIT / 2);
        fxcli_budget_acquire(&s->budget, bytes);
        uint64_t now = atomic_fetch_add(&s->held, bytes) + bytes;
        int with = atomic_fetch_add(&s->holders, 1) + 1;
        if (bytes > LIMIT && with > 1) atomic_fetch_add(&s->not_alone, 1);
        if (bytes <= LIMIT && now > LIMIT) atomic_fetch_add(&s->over, 1);
        usleep((useconds_t)(r % 50));
        atomic_fetch_sub(&s->holders, 1);
        atomic_fetch_sub(&s->held, bytes);
        fxcli_budget_release(&s->budget, bytes);
    }
    return NULL;
}

FXT_TEST(reservations_never_exceed_the_budget)
{
    shared s;
    memset(&s, 0, sizeof s);
    fxcli_budget_init(&s.budget, LIMIT);
    pthread_t t[THREADS];
    arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (arg){&s, (uint64_t)i + 1};
        pthread_create(&t[i], NULL, hammer, &args[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    FXT_CHECK_EQ(atomic_load(&s.over), 0);
    FXT_CHECK_EQ(atomic_load(&s.not_alone), 0);
    FXT_CHECK(s.budget.peak_running > 1); /* small items did run side by side */
    FXT_CHECK_EQ(s.budget.used, 0);
    FXT_CHECK_EQ(s.budget.running, 0);
    fxcli_budget_destroy(&s.budget);
}

FXT_TEST(estimate_from_the_header)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    char *input = (char *)fxt_sample("coffee.png");
    fxcli_item item = {.input = input, .output = NULL};
    FXT_CHECK_EQ(fxcli_item_estimate(ctx, &item), 600ull * 400 * 3 * 3);
    item.input = "/nonexistent.png"; /* the job reports it; nothing reserved */
    FXT_CHECK_EQ(fxcli_item_estimate(ctx, &item), 0);
    item.input = NULL; /* generated outputs */
    FXT_CHECK_EQ(fxcli_item_estimate(ctx, &item), 0);
    FXT_CHECK(fxcli_default_budget() > 0);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(reservations_never_exceed_the_budget), FXT_CASE(estimate_from_the_header))
