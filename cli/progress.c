/* A one-line progress bar on stderr, shown only on a terminal and only when the
 * batch lasts long enough to be worth watching. Called with the console lock held. */
#include <stdatomic.h>
#include <stdio.h>

#include "cli.h"

/* Nothing is drawn during the first half second: short batches stay silent. */
#define PROGRESS_DELAY_NS UINT64_C(500000000)
/* Redraw at most ten times a second. */
#define PROGRESS_INTERVAL_NS UINT64_C(100000000)
#define BAR_WIDTH 30
/* Wide enough to blank the longest line the bar prints. */
#define LINE_WIDTH 79

static struct {
    bool enabled;
    size_t total, done, failed;
    uint64_t start_ns, last_draw_ns;
} progress;

/* Read by the signal handler, hence atomic. */
static atomic_bool visible;

void fxcli_progress_start(size_t total, bool enabled)
{
    progress.enabled = enabled;
    progress.total = total;
    progress.done = progress.failed = 0;
    progress.start_ns = fx_time_ns();
    progress.last_draw_ns = 0;
    atomic_store(&visible, false);
}

static void draw(uint64_t now)
{
    size_t filled = progress.total ? progress.done * BAR_WIDTH / progress.total : BAR_WIDTH;
    char bar[BAR_WIDTH + 1];
    for (size_t i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %zu/%zu files, %.1f s", bar, progress.done, progress.total,
            fx_elapsed_ms(progress.start_ns, now) / 1000.0);
    if (progress.failed) fprintf(stderr, ", %zu failed", progress.failed);
    fflush(stderr);
    progress.last_draw_ns = now;
    atomic_store(&visible, true);
}

void fxcli_progress_update(size_t done, size_t failed)
{
    progress.done = done;
    progress.failed = failed;
    if (!progress.enabled) return;
    uint64_t now = fx_time_ns();
    if (now - progress.start_ns < PROGRESS_DELAY_NS) return;
    if (atomic_load(&visible) && now - progress.last_draw_ns < PROGRESS_INTERVAL_NS &&
        done < progress.total)
        return;
    draw(now);
}

void fxcli_progress_clear(void)
{
    if (!atomic_load(&visible)) return;
    fprintf(stderr, "\r%*s\r", LINE_WIDTH, "");
    atomic_store(&visible, false);
}

void fxcli_progress_end(void)
{
    fxcli_progress_clear();
    progress.enabled = false;
}

bool fxcli_progress_visible(void)
{
    return atomic_load(&visible);
}
