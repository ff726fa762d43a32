/* Global histograms on the CPU: each thread counts its rows into a histogram of
 * its own; the histograms are summed at the end (integer, so the order of the
 * sum does not matter and the GPU's atomics give the same counts). */
#include <string.h>

#include "equalize_internal.h"

/* One row, written for constant channels/type/mode so the compiler specialises
 * each call below. */
static inline void count_row(const fx_equalize_plan *p, const uint8_t *row, const uint8_t *mask,
                             uint32_t *h, int channels, fx_sample_type type, int mode)
{
    uint32_t px[FX_MAX_IMAGE_CHANNELS], keys[FXI_EQ_MAX_PLANES];
    fxi_hsvf hsv;
    const int full_bins = p->bins == 1u << p->level_bits;
    for (int x = 0; x < p->width; x++) {
        if (mask && !mask[x]) continue;
        fxi_eq_load_pixel(row, x, channels, type, px);
        int n = fxi_pixel_keys(mode, px, p->maxval, p->bins, keys, &hsv);
        for (int k = 0; k < n; k++) {
            uint32_t bin = mode == FXI_EQ_MODE_HSV_FLOAT || full_bins
                               ? keys[k]
                               : fxi_bin_of(keys[k], p->bins, p->level_bits);
            h[(uint32_t)k * p->bins + bin]++;
        }
    }
}

static void count_row_dispatch(const fx_equalize_plan *p, const uint8_t *row, const uint8_t *mask,
                               uint32_t *h)
{
    const int ch = p->in_channels;
    if (p->type == FX_U8 && ch == 1)
        count_row(p, row, mask, h, 1, FX_U8, FXI_EQ_MODE_GRAY);
    else if (p->type == FX_U8 && ch == 3 && p->mode == FXI_EQ_MODE_HSV)
        count_row(p, row, mask, h, 3, FX_U8, FXI_EQ_MODE_HSV);
    else if (p->type == FX_U8 && ch == 3 && p->mode == FXI_EQ_MODE_LUMA)
        count_row(p, row, mask, h, 3, FX_U8, FXI_EQ_MODE_LUMA);
    else
        count_row(p, row, mask, h, ch, p->type, p->mode);
}

typedef struct hist_job {
    fx_equalize_plan *plan;
    const fx_image *in;
} hist_job;

/* 8-bit, 256 bins, no mask: fast_u8.c's rows into sub-histograms, summed once
 * per chunk. */
static void count_rows_u8(const hist_job *job, size_t begin, size_t end, uint32_t *h)
{
    uint32_t sub[FXI_EQ_SUB_HISTS][FXI_EQ_U8_LEVELS];
    memset(sub, 0, sizeof sub);
    for (size_t y = begin; y < end; y++)
        fxi_eq_u8_count_row(job->plan, fx_image_row(job->in, (int)y), sub);
    for (int k = 0; k < FXI_EQ_SUB_HISTS; k++)
        for (int b = 0; b < FXI_EQ_U8_LEVELS; b++)
            h[b] += sub[k][b];
}

static void count_rows(void *arg, size_t begin, size_t end, int worker)
{
    const hist_job *job = arg;
    const fx_equalize_plan *p = job->plan;
    uint32_t *h = p->hist_work + (size_t)worker * (size_t)p->planes * p->bins;
    if (!p->mask && fxi_eq_u8_fast(p)) {
        count_rows_u8(job, begin, end, h);
        return;
    }
    for (size_t y = begin; y < end; y++) {
        const uint8_t *mask = p->mask ? p->mask + y * (size_t)p->width : NULL;
        count_row_dispatch(p, fx_image_row(job->in, (int)y), mask, h);
    }
}

void fxi_eq_cpu_histogram(fx_equalize_plan *p, const fx_image *in)
{
    const size_t per_worker = (size_t)p->planes * p->bins;
    memset(p->hist_work, 0, (size_t)p->hist_workers * per_worker * sizeof *p->hist_work);
    hist_job job = {p, in};
    fxi_parallel_for(p->ctx, (size_t)p->height, FXI_EQ_HIST_ROWS_PER_CHUNK, count_rows, &job);
    memcpy(p->hist, p->hist_work, per_worker * sizeof *p->hist);
    for (int w = 1; w < p->hist_workers; w++) {
        const uint32_t *h = p->hist_work + (size_t)w * per_worker;
        for (size_t i = 0; i < per_worker; i++)
            p->hist[i] += h[i];
    }
}
