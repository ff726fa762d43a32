/* Global equalization on the CPU: LUTs from the histogram, then one pass that
 * maps every pixel. The general pass calls equalize_math.h per pixel, as each GPU
 * thread does; the fast 8-bit paths read tables filled by the same functions. */
#include <string.h>

#include "equalize_internal.h"

#define U8_LEVELS 256

/* Output level of every key value, per plane: the bin's level, or the key itself
 * when the image has nothing to stretch. */
static void build_value_luts(fx_equalize_plan *p)
{
    const uint32_t levels = 1u << p->level_bits;
    for (int k = 0; k < p->planes; k++) {
        uint16_t *bin_lut = p->bin_lut + (size_t)k * p->bins;
        uint16_t *vlut = p->value_lut + (size_t)k * levels;
        int identity;
        fxi_eq_global_lut(p->hist + (size_t)k * p->bins, p->bins, p->maxval, p->scale, bin_lut,
                          &identity);
        for (uint32_t v = 0; v < levels; v++)
            vlut[v] = (uint16_t)(identity ? v : bin_lut[fxi_bin_of(v, p->bins, p->level_bits)]);
    }
    if (fxi_eq_u8_fast_map(p)) fxi_eq_u8_tables(p);
    if (p->hsv_table)
        for (uint32_t v = 0; v < U8_LEVELS; v++)
            for (uint32_t c = 0; c < U8_LEVELS; c++)
                p->hsv_table[v * U8_LEVELS + c] =
                    (uint8_t)fxi_hsv_channel(c, v, p->value_lut[v], p->maxval);
}

typedef struct apply_job {
    const fx_equalize_plan *plan;
    const fx_image *in;
    fx_image *out;
    int copy; /* hsv-float with nothing to stretch: the input unchanged */
} apply_job;

/* Any mode, any type: the per-pixel functions the GPU runs. */
static inline void map_row_general(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out,
                                   int channels, fx_sample_type type, int mode)
{
    const uint32_t levels = 1u << p->level_bits;
    uint32_t px[FX_MAX_IMAGE_CHANNELS], res[FX_MAX_IMAGE_CHANNELS] = {0};
    uint32_t keys[FXI_EQ_MAX_PLANES], mapped[FXI_EQ_MAX_PLANES] = {0};
    fxi_hsvf hsv = {0};
    for (int x = 0; x < p->width; x++) {
        fxi_eq_load_pixel(in, x, channels, type, px);
        int n = fxi_pixel_keys(mode, px, p->maxval, p->bins, keys, &hsv);
        float mapped_v = 0.0f;
        if (mode == FXI_EQ_MODE_HSV_FLOAT)
            mapped_v = p->float_lut[keys[0]];
        else
            for (int k = 0; k < n; k++)
                mapped[k] = p->value_lut[(uint32_t)k * levels + keys[k]];
        int written =
            fxi_pixel_write(mode, px, channels, keys, mapped, mapped_v, &hsv, p->maxval, res);
        fxi_eq_store_pixel(out, x, written, type, res);
    }
}

/* 8-bit gray with alpha: one lookup per pixel (gray alone is fxi_eq_u8_map_row). */
static void map_row_gray_alpha_u8(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out)
{
    const uint16_t *vlut = p->value_lut;
    for (int x = 0; x < p->width; x++) {
        out[2 * x] = (uint8_t)vlut[in[2 * x]];
        out[2 * x + 1] = in[2 * x + 1];
    }
}

/* 8-bit hsv with alpha: the (V, channel) table holds fxi_hsv_channel for this image's
 * LUT (without alpha it is fxi_eq_u8_map_row). */
static void map_row_hsv_alpha_u8(const fx_equalize_plan *p, const uint8_t *in, uint8_t *out)
{
    const int channels = 4;
    const uint8_t *table = p->hsv_table;
    for (int x = 0; x < p->width; x++) {
        const uint8_t *s = in + (size_t)x * (size_t)channels;
        uint8_t *d = out + (size_t)x * (size_t)channels;
        const uint8_t *t = table + fxi_max3(s[0], s[1], s[2]) * U8_LEVELS;
        uint8_t r = t[s[0]], g = t[s[1]], b = t[s[2]];
        d[3] = s[3];
        d[0] = r, d[1] = g, d[2] = b;
    }
}

static void map_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const apply_job *job = arg;
    const fx_equalize_plan *p = job->plan;
    const size_t row_bytes = (size_t)p->width * (size_t)p->in_channels * fx_sample_size(p->type);
    for (size_t y = begin; y < end; y++) {
        const uint8_t *in = fx_image_row(job->in, (int)y);
        uint8_t *out = fx_image_row(job->out, (int)y);
        if (job->copy)
            memmove(out, in, row_bytes);
        else if (fxi_eq_u8_fast_map(p))
            fxi_eq_u8_map_row(p, in, out);
        else if (p->type == FX_U8 && p->mode == FXI_EQ_MODE_GRAY)
            map_row_gray_alpha_u8(p, in, out);
        else if (p->hsv_table)
            map_row_hsv_alpha_u8(p, in, out);
        else
            map_row_general(p, in, out, p->in_channels, p->type, p->mode);
    }
}

void fxi_eq_cpu_global(fx_equalize_plan *p, const fx_image *in, fx_image *out)
{
    apply_job job = {p, in, out, 0};
    if (p->mode == FXI_EQ_MODE_HSV_FLOAT)
        fxi_eq_float_lut(p->hist, p->bins, p->scale, p->float_lut, &job.copy);
    else
        build_value_luts(p);
    fxi_parallel_for(p->ctx, (size_t)p->height, FXI_EQ_APPLY_ROWS_PER_CHUNK, map_rows, &job);
}
