/* A one-line progress bar on stderr, shown only on a terminal and only when the
 * batch lasts long enough to be worth watching.
 *
 * The bar counts finished files plus the fractions that running items report
 * (fxcli_progress_item: streamed audio knows how many frames are done), so one
 * long file moves the bar too. A ticker thread redraws it while nothing finishes.
 * Start and end take the console lock themselves; update and clear are called
 * with it held. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"

/* Nothing is drawn during the first half second: short batches stay silent. */
#define PROGRESS_DELAY_NS UINT64_C(500000000)
/* Redraw at most ten times a second; the ticker wakes at the same pace. */
#define PROGRESS_INTERVAL_NS UINT64_C(100000000)
#define NS_PER_SECOND UINT64_C(1000000000)
#define BAR_WIDTH 30
/* Wide enough to blank the longest line the bar prints. */
#define LINE_WIDTH 79
/* Item fractions are kept as fixed point: FRACTION_ONE is a whole item. */
#define FRACTION_ONE UINT32_C(65536)

static struct {
    const char *unit; /* what is counted, plural ("files" unless set) */
    bool enabled;
    size_t total, done, failed;
    uint64_t start_ns, last_draw_ns;
    pthread_t ticker;
    bool ticker_running;
    bool stop; /* under the console lock */
} progress;

/* Fraction done of the item each worker is on, written without the console lock. */
static atomic_uint_least32_t item_fraction[FXCLI_MAX_JOBS];
/* Read by the signal handler, hence atomic. */
static atomic_bool visible;

void fxcli_progress_item(int slot, uint64_t done, uint64_t total)
{
    if (slot < 0 || slot >= FXCLI_MAX_JOBS) return;
    uint32_t f = 0;
    if (total > 0)
        f = done >= total ? FRACTION_ONE : (uint32_t)((double)done / (double)total * FRACTION_ONE);
    atomic_store_explicit(&item_fraction[slot], f, memory_order_relaxed);
}

/* Finished files plus the running items' fractions, in files. */
static double units_done(void)
{
    double running = 0;
    for (int i = 0; i < FXCLI_MAX_JOBS; i++)
        running += atomic_load_explicit(&item_fraction[i], memory_order_relaxed);
    double units = (double)progress.done + running / FRACTION_ONE;
    return units < (double)progress.total ? units : (double)progress.total;
}

static void draw(uint64_t now)
{
    double units = units_done();
    double share = progress.total ? units / (double)progress.total : 1.0;
    size_t filled = (size_t)(share * BAR_WIDTH);
    char bar[BAR_WIDTH + 1];
    for (size_t i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%%  %zu/%zu %s, %.1f s", bar, (int)(share * 100), progress.done,
            progress.total, progress.unit ? progress.unit : "files",
            fx_elapsed_ms(progress.start_ns, now) / 1000.0);
    if (progress.failed) fprintf(stderr, ", %zu failed", progress.failed);
    fflush(stderr);
    progress.last_draw_ns = now;
    atomic_store(&visible, true);
}

/* Draw when the delay has passed and the last drawing is old enough (lock held). */
static void maybe_draw(bool finished_one)
{
    if (!progress.enabled) return;
    uint64_t now = fx_time_ns();
    if (now - progress.start_ns < PROGRESS_DELAY_NS) return;
    bool recent = now - progress.last_draw_ns < PROGRESS_INTERVAL_NS;
    if (atomic_load(&visible) && recent && !(finished_one && progress.done == progress.total))
        return;
    draw(now);
}

static void *ticker_main(void *unused)
{
    (void)unused;
    const struct timespec pause = {(time_t)(PROGRESS_INTERVAL_NS / NS_PER_SECOND),
                                   (long)(PROGRESS_INTERVAL_NS % NS_PER_SECOND)};
    for (;;) {
        nanosleep(&pause, NULL);
        fxcli_console_lock();
        bool stop = progress.stop;
        if (!stop) maybe_draw(false);
        fxcli_console_unlock();
        if (stop) return NULL;
    }
}

void fxcli_progress_start(size_t total, bool enabled)
{
    fxcli_console_lock();
    progress.enabled = enabled;
    progress.total = total;
    progress.done = progress.failed = 0;
    progress.start_ns = fx_time_ns();
    progress.last_draw_ns = 0;
    progress.stop = false;
    for (int i = 0; i < FXCLI_MAX_JOBS; i++)
        atomic_store(&item_fraction[i], 0);
    atomic_store(&visible, false);
    fxcli_console_unlock();
    /* Without a ticker the bar still moves whenever a file finishes. */
    progress.ticker_running =
        enabled && pthread_create(&progress.ticker, NULL, ticker_main, NULL) == 0;
}

void fxcli_progress_unit(const char *plural)
{
    progress.unit = plural;
}

void fxcli_progress_update(size_t done, size_t failed)
{
    progress.done = done;
    progress.failed = failed;
    maybe_draw(true);
}

void fxcli_progress_clear(void)
{
    if (!atomic_load(&visible)) return;
    fprintf(stderr, "\r%*s\r", LINE_WIDTH, "");
    atomic_store(&visible, false);
}

void fxcli_progress_end(void)
{
    fxcli_console_lock();
    progress.stop = true;
    fxcli_console_unlock();
    if (progress.ticker_running) pthread_join(progress.ticker, NULL);
    progress.ticker_running = false;
    fxcli_console_lock();
    fxcli_progress_clear();
    progress.enabled = false;
    fxcli_console_unlock();
}

bool fxcli_progress_visible(void)
{
    return atomic_load(&visible);
}
