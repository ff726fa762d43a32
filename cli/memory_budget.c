/* The memory budget of a batch: each item reserves what it is estimated to need
 * before it starts and gives it back when done, so the items running at once never
 * add up to more than the budget. The estimate comes from the input's header
 * (fx_image_probe_file), before anything is decoded. */
#include <unistd.h>

#include "cli.h"

/* Copies of the decoded image an image job holds at its peak: the input, its
 * result (or the converted samples) and the encoder's output, which is at most
 * about the image's size. */
#define IMAGE_WORKING_COPIES 3
/* What an audio item holds: it streams in chunks, so a small constant. */
#define AUDIO_ITEM_BYTES ((uint64_t)16 << 20)
/* The default budget is this fraction of physical memory. */
#define DEFAULT_BUDGET_DIVISOR 2

void fxcli_budget_init(fxcli_budget *b, uint64_t limit)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->freed, NULL);
    b->limit = limit;
    b->used = b->peak = 0;
    b->running = b->peak_running = 0;
}

void fxcli_budget_destroy(fxcli_budget *b)
{
    pthread_cond_destroy(&b->freed);
    pthread_mutex_destroy(&b->lock);
}

void fxcli_budget_acquire(fxcli_budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    /* An item larger than the whole budget still runs, but alone. */
    while (b->running > 0 && b->used + bytes > b->limit)
        pthread_cond_wait(&b->freed, &b->lock);
    b->used += bytes;
    b->running++;
    if (b->used > b->peak) b->peak = b->used;
    if (b->running > b->peak_running) b->peak_running = b->running;
    pthread_mutex_unlock(&b->lock);
}

void fxcli_budget_release(fxcli_budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    b->used -= bytes;
    b->running--;
    pthread_cond_broadcast(&b->freed);
    pthread_mutex_unlock(&b->lock);
}

uint64_t fxcli_default_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return UINT64_MAX; /* unknown: cores alone decide */
    return (uint64_t)pages * (uint64_t)page / DEFAULT_BUDGET_DIVISOR;
}

uint64_t fxcli_item_estimate(fx_context *ctx, const fxcli_item *item)
{
    if (!item->input || item->skip) return 0;
    if (fxcli_media_of_input(item->input) == FXCLI_MEDIA_AUDIO) return AUDIO_ITEM_BYTES;
    fx_image_info info;
    /* An unreadable header: the job itself reports the error, at no cost. */
    if (fx_image_probe_file(ctx, item->input, &info) != FX_OK) return 0;
    uint64_t pixels = (uint64_t)info.width * (uint64_t)info.height * (uint64_t)info.channels;
    return pixels * fx_sample_size(info.type) * IMAGE_WORKING_COPIES;
}
