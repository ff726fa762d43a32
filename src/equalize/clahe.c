/* CLAHE on the CPU, OpenCV's algorithm: a clipped histogram and LUT per tile of
 * the (reflect-101 padded) image, then each pixel blends the LUTs of the four
 * nearest tile centres. The per-tile LUT and the per-pixel blend are the
 * equalize_math.h functions the GPU kernels call. */
#include <string.h>

#include "equalize_internal.h"

typedef struct clahe_job {
    fx_equalize_plan *plan;
    const fx_image *in;
    fx_image *out;
} clahe_job;

static inline uint32_t bin_of_key(const fx_equalize_plan *p, uint32_t key)
{
    return p->mode == FXI_EQ_MODE_HSV_FLOAT ? key : fxi_bin_of(key, p->bins, p->level_bits);
}

/* Histograms and LUTs of tiles [begin, end), every plane. */
static void tile_luts(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const clahe_job *job = arg;
    fx_equalize_plan *p = job->plan;
    const fxi_clahe_grid *g = &p->grid;
    const size_t tiles = (size_t)g->tiles_x * (size_t)g->tiles_y;
    uint32_t px[FX_MAX_IMAGE_CHANNELS], keys[FXI_EQ_MAX_PLANES];
    fxi_hsvf hsv;
    for (size_t t = begin; t < end; t++) {
        const int tx = (int)(t % (size_t)g->tiles_x), ty = (int)(t / (size_t)g->tiles_x);
        const uint32_t area = (uint32_t)g->tile_w * (uint32_t)g->tile_h;
        if (p->tile_lutf) {
            uint32_t *hist = p->hist + t * p->bins;
            uint16_t *lut = p->bin_lut + t * p->bins;
            fxi_eq_clahe_u8_tile_hist(p, job->in, tx, ty, hist);
            fxi_eq_tile_lut(hist, p->bins, p->clip_limit, area, p->maxval, lut);
            for (uint32_t b = 0; b < p->bins; b++)
                p->tile_lutf[t * p->bins + b] = (float)lut[b];
            continue;
        }
        for (int k = 0; k < p->planes; k++)
            memset(p->hist + ((size_t)k * tiles + t) * p->bins, 0, p->bins * sizeof *p->hist);
        for (int j = 0; j < g->tile_h; j++) {
            const int sy = fxi_reflect101(ty * g->tile_h + j, g->height);
            const uint8_t *row = fx_image_row(job->in, sy);
            for (int i = 0; i < g->tile_w; i++) {
                const int sx = fxi_reflect101(tx * g->tile_w + i, g->width);
                fxi_eq_load_pixel(row, sx, p->in_channels, p->type, px);
                int n = fxi_pixel_keys(p->mode, px, p->maxval, p->bins, keys, &hsv);
                for (int k = 0; k < n; k++)
                    p->hist[((size_t)k * tiles + t) * p->bins + bin_of_key(p, keys[k])]++;
            }
        }
        for (int k = 0; k < p->planes; k++) {
            const size_t at = ((size_t)k * tiles + t) * p->bins;
            fxi_eq_tile_lut(p->hist + at, p->bins, p->clip_limit, area, p->maxval, p->bin_lut + at);
        }
    }
}

static void interpolate_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const clahe_job *job = arg;
    const fx_equalize_plan *p = job->plan;
    const fxi_clahe_grid *g = &p->grid;
    const size_t tiles = (size_t)g->tiles_x * (size_t)g->tiles_y;
    const float inv_th = 1.0f / (float)g->tile_h;
    uint32_t px[FX_MAX_IMAGE_CHANNELS], res[FX_MAX_IMAGE_CHANNELS] = {0};
    uint32_t keys[FXI_EQ_MAX_PLANES], mapped[FXI_EQ_MAX_PLANES] = {0};
    fxi_hsvf hsv = {0};
    for (size_t y = begin; y < end; y++) {
        const fxi_clahe_axis ys = fxi_clahe_axis_at((int)y, inv_th, g->tiles_y);
        const uint8_t *in = fx_image_row(job->in, (int)y);
        uint8_t *out = fx_image_row(job->out, (int)y);
        if (p->tile_lutf) {
            fxi_eq_clahe_u8_row(p, in, out, ys);
            continue;
        }
        for (int x = 0; x < p->width; x++) {
            const fxi_clahe_axis xs = p->x_axis[x];
            fxi_eq_load_pixel(in, x, p->in_channels, p->type, px);
            int n = fxi_pixel_keys(p->mode, px, p->maxval, p->bins, keys, &hsv);
            for (int k = 0; k < n; k++) {
                const uint16_t *lut = p->bin_lut + (size_t)k * tiles * p->bins;
                const uint32_t b = bin_of_key(p, keys[k]);
                const size_t r1 = (size_t)ys.t1 * (size_t)g->tiles_x,
                             r2 = (size_t)ys.t2 * (size_t)g->tiles_x;
                mapped[k] =
                    fxi_clahe_blend(lut[(r1 + (size_t)xs.t1) * p->bins + b],
                                    lut[(r1 + (size_t)xs.t2) * p->bins + b],
                                    lut[(r2 + (size_t)xs.t1) * p->bins + b],
                                    lut[(r2 + (size_t)xs.t2) * p->bins + b], xs, ys, p->maxval);
            }
            const float mapped_v = (float)mapped[0] / (float)p->maxval;
            int written = fxi_pixel_write(p->mode, px, p->in_channels, keys, mapped, mapped_v, &hsv,
                                          p->maxval, res);
            fxi_eq_store_pixel(out, x, written, p->type, res);
        }
    }
}

void fxi_eq_cpu_clahe(fx_equalize_plan *p, const fx_image *in, fx_image *out)
{
    const fxi_clahe_grid *g = &p->grid;
    clahe_job job = {p, in, out};
    fxi_parallel_for(p->ctx, (size_t)g->tiles_x * (size_t)g->tiles_y, 1, tile_luts, &job);
    const float inv_tw = 1.0f / (float)g->tile_w;
    for (int x = 0; x < p->width; x++)
        p->x_axis[x] = fxi_clahe_axis_at(x, inv_tw, g->tiles_x);
    if (p->tile_lutf) fxi_eq_clahe_u8_columns(p);
    fxi_parallel_for(p->ctx, (size_t)p->height, FXI_EQ_INTERP_ROWS_PER_CHUNK, interpolate_rows,
                     &job);
}
