/* --mask: a gray image whose non-zero pixels build the histogram. Kept as one
 * byte per pixel (1 = counts) in the plan. */
#include <stdlib.h>

#include "equalize_internal.h"

static fx_status check_mask(fx_context *ctx, const fx_image *m, int width, int height)
{
    FXI_RETURN_IF(m->memory != FX_MEMORY_HOST || !m->data, FX_EINVAL,
                 "--mask: the mask must be a host image with pixels");
    FXI_RETURN_IF(m->channels != 1, FX_EINVAL, "--mask: the mask must be gray (it has %d channels)",
                 m->channels);
    FXI_RETURN_IF(m->type != FX_U8 && m->type != FX_U16, FX_EINVAL,
                 "--mask: the mask must have 8- or 16-bit samples (it has %s)",
                 fx_sample_type_name(m->type));
    FXI_RETURN_IF(m->width != width || m->height != height, FX_EINVAL,
                 "--mask: the mask is %dx%d but the image is %dx%d", m->width, m->height, width,
                 height);
    return FX_OK;
}

static fx_status copy_mask(fx_context *ctx, const fx_image *m, uint8_t **out)
{
    uint8_t *bits;
    FXI_TRY(fxi_malloc(ctx, (size_t)m->width * (size_t)m->height, (void **)&bits));
    uint64_t used = 0;
    for (int y = 0; y < m->height; y++) {
        const uint8_t *row = fx_image_row(m, y);
        uint8_t *dst = bits + (size_t)y * (size_t)m->width;
        for (int x = 0; x < m->width; x++) {
            uint32_t v = m->type == FX_U8 ? row[x] : ((const uint16_t *)(const void *)row)[x];
            dst[x] = v != 0;
            used += dst[x];
        }
    }
    if (used == 0) {
        free(bits);
        return fxi_error(ctx, FX_EINVAL, "--mask: the mask selects no pixel (it is all zero)");
    }
    *out = bits;
    return FX_OK;
}

fx_status fxi_eq_load_mask(fx_context *ctx, const fx_equalize_options *opts, int width, int height,
                           uint8_t **out)
{
    *out = NULL;
    if (opts->mask_image) {
        FXI_TRY(check_mask(ctx, opts->mask_image, width, height));
        return copy_mask(ctx, opts->mask_image, out);
    }
    if (!opts->mask) return FX_OK;
    fx_image m = {0};
    fx_status st = fx_image_read_file(ctx, opts->mask, &m);
    if (st != FX_OK) {
        fxi_error_prefix(ctx, "--mask %s: ", opts->mask);
        return st;
    }
    st = check_mask(ctx, &m, width, height);
    if (st == FX_OK) st = copy_mask(ctx, &m, out);
    fx_image_free(&m);
    return st;
}
