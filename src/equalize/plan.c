/* fx_equalize_plan_create / run / free and the one-call fx_equalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "equalize_internal.h"
#include "equalize/equalize_cost.h"
#include "equalize/equalize_gpu.h"

#define LEVEL_BITS_U8 8
#define LEVEL_BITS_U16 16
#define HSV_TABLE_SIDE 256 /* 8-bit V x 8-bit channel */

static int mode_of(fx_equalize_space space, int channels)
{
    if (channels <= 2) return FXI_EQ_MODE_GRAY;
    switch (space) {
    case FX_EQ_SPACE_GRAY: return FXI_EQ_MODE_TO_GRAY;
    case FX_EQ_SPACE_LUMA: return FXI_EQ_MODE_LUMA;
    case FX_EQ_SPACE_RGB: return FXI_EQ_MODE_RGB;
    case FX_EQ_SPACE_HSV_FLOAT: return FXI_EQ_MODE_HSV_FLOAT;
    default: return FXI_EQ_MODE_HSV;
    }
}

static fx_status check_shape(fx_context *ctx, const fx_image_desc *s)
{
    FXI_RETURN_IF(!s, FX_EINVAL, "equalize: no image shape");
    FXI_RETURN_IF(s->width < 1 || s->height < 1, FX_EINVAL, "equalize: image size %dx%d is empty",
                 s->width, s->height);
    FXI_RETURN_IF(s->channels < 1 || s->channels > FX_MAX_IMAGE_CHANNELS, FX_EINVAL,
                 "equalize: %d channels (1 to %d)", s->channels, FX_MAX_IMAGE_CHANNELS);
    FXI_RETURN_IF(s->type != FX_U8 && s->type != FX_U16, FX_EUNSUPPORTED,
                 "equalize: %s images are not supported (8- or 16-bit integers only)",
                 fx_sample_type_name(s->type));
    FXI_RETURN_IF((uint64_t)s->width * (uint64_t)s->height > UINT32_MAX, FX_ELIMIT,
                 "equalize: %dx%d has more than 2^32 - 1 pixels", s->width, s->height);
    return FX_OK;
}

/* Bins, levels, scale, mode and grid from the options and the shape. */
static fx_status resolve(fx_context *ctx, const fx_equalize_options *o, const fx_image_desc *s,
                         fx_equalize_plan *p)
{
    p->width = s->width;
    p->height = s->height;
    p->pixels = (uint64_t)s->width * (uint64_t)s->height;
    p->in_channels = s->channels;
    p->out_channels = fx_equalize_output_channels(o, s->channels);
    p->type = s->type;
    p->mode = mode_of(o->space, s->channels);
    p->level_bits = s->type == FX_U8 ? LEVEL_BITS_U8 : LEVEL_BITS_U16;
    p->maxval = (1u << p->level_bits) - 1;
    uint32_t levels = 1u << p->level_bits;
    p->bins = o->bins            ? (uint32_t)o->bins
              : s->type == FX_U8 ? levels
                                 : (uint32_t)FXI_EQ_DEFAULT_BINS_U16;
    FXI_RETURN_IF(p->bins > levels, FX_ERANGE, "--bins: %u is more than the %u levels of %s images",
                 p->bins, levels, fx_sample_type_name(s->type));
    p->planes = p->mode == FXI_EQ_MODE_RGB ? FXI_EQ_MAX_PLANES : 1;
    p->scale = o->scale == FX_EQ_SCALE_MAS ? FX_EQ_SCALE_MAX : o->scale;
    p->adaptive = o->adaptive;
    p->gpu_block = o->gpu_block;
    int tx = 1, ty = 1;
    if (p->adaptive) FXI_TRY(fxi_parse_tiles(ctx, o->tiles ? o->tiles : "8x8", &tx, &ty));
    FXI_TRY(fxi_clahe_grid_make(ctx, s->width, s->height, tx, ty, &p->grid));
    uint64_t area = (uint64_t)p->grid.tile_w * (uint64_t)p->grid.tile_h;
    FXI_RETURN_IF(area > UINT32_MAX, FX_ELIMIT, "CLAHE: tiles of %dx%d pixels are too large",
                 p->grid.tile_w, p->grid.tile_h);
    p->clip_limit = p->adaptive ? fxi_clahe_clip_limit(o->clip, (uint32_t)area, p->bins) : 0;
    return FX_OK;
}

/* planes * tiles * bins entries of `size` bytes. */
static fx_status alloc_per_bin(fx_context *ctx, const fx_equalize_plan *p, size_t size, void **out)
{
    size_t tiles = (size_t)p->grid.tiles_x * (size_t)p->grid.tiles_y, n;
    FXI_RETURN_IF(!fxi_mul3_size((size_t)p->planes, tiles, (size_t)p->bins, &n), FX_EOVERFLOW,
                 "equalize: %zu tiles of %u bins overflow", tiles, p->bins);
    return fxi_calloc(ctx, n, size, out);
}

static fx_status alloc_cpu_buffers(fx_context *ctx, fx_equalize_plan *p)
{
    FXI_TRY(alloc_per_bin(ctx, p, sizeof *p->hist, (void **)&p->hist));
    FXI_TRY(alloc_per_bin(ctx, p, sizeof *p->bin_lut, (void **)&p->bin_lut));
    if (p->adaptive) {
        const size_t w = (size_t)p->width;
        FXI_TRY(fxi_calloc(ctx, w, sizeof *p->x_axis, (void **)&p->x_axis));
        if (!fxi_eq_clahe_u8_fast(p)) return FX_OK;
        FXI_TRY(alloc_per_bin(ctx, p, sizeof *p->tile_lutf, (void **)&p->tile_lutf));
        FXI_TRY(fxi_calloc(ctx, w, sizeof *p->x_index1, (void **)&p->x_index1));
        FXI_TRY(fxi_calloc(ctx, w, sizeof *p->x_index2, (void **)&p->x_index2));
        FXI_TRY(fxi_calloc(ctx, w, sizeof *p->x_weight, (void **)&p->x_weight));
        return fxi_calloc(ctx, w, sizeof *p->x_weight1, (void **)&p->x_weight1);
    }
    p->hist_workers = fx_context_threads(ctx);
    if (p->hist_workers < 1) p->hist_workers = 1;
    FXI_TRY(fxi_calloc(ctx, (size_t)p->hist_workers * (size_t)p->planes * p->bins,
                      sizeof *p->hist_work, (void **)&p->hist_work));
    if (p->mode == FXI_EQ_MODE_HSV_FLOAT)
        return fxi_calloc(ctx, p->bins, sizeof *p->float_lut, (void **)&p->float_lut);
    FXI_TRY(fxi_calloc(ctx, (size_t)p->planes << p->level_bits, sizeof *p->value_lut,
                      (void **)&p->value_lut));
    if (p->mode == FXI_EQ_MODE_HSV && p->type == FX_U8 && !fxi_eq_u8_fast_map(p))
        FXI_TRY(fxi_malloc(ctx, HSV_TABLE_SIDE * HSV_TABLE_SIDE, (void **)&p->hsv_table));
    return FX_OK;
}

static fx_status alloc_cpu(fx_context *ctx, fx_equalize_plan *p)
{
    if (p->cpu_ready) return FX_OK;
    FXI_TRY(alloc_cpu_buffers(ctx, p));
    p->cpu_ready = true;
    return FX_OK;
}

static void explain_update(fx_equalize_plan *p)
{
    static const char *const modes[] = {"gray", "to gray", "hsv", "luma", "rgb", "hsv-float"};
    char why[160];
    fxi_device_estimate_text(&p->device, p->ctx->gpu_index, why, sizeof why);
    snprintf(p->explain, sizeof p->explain, "%s%s, %u bins; device: %s",
             p->adaptive ? "CLAHE on " : "global on ",
             p->mode >= 0 && p->mode <= FXI_EQ_MODE_HSV_FLOAT ? modes[p->mode] : "?", p->bins,
             why);
}

/* The device for the plan's image (FX_DEVICE_AUTO: by cost, core/device_cost.h), and
 * its buffers there. An auto plan the GPU has no memory for goes to the CPU. */
static fx_status plan_device(fx_context *ctx, fx_equalize_plan *p)
{
    fxi_equalize_work w = {.mode = p->mode,
                           .adaptive = p->adaptive != 0,
                           .width = p->width,
                           .height = p->height,
                           .in_channels = p->in_channels,
                           .out_channels = p->out_channels,
                           .type = p->type,
                           .on_device = false,
                           .bins = p->bins,
                           .tiles = p->grid.tiles_x * p->grid.tiles_y,
                           .masked = p->mask != NULL};
    fxi_item_cost cost;
    fxi_equalize_cost(&w, &cost);
    fx_device_kind where = fxi_device_choose(ctx, &cost, false, &p->device, NULL, 0);
    fx_status st = FX_OK;
    if (where == FX_DEVICE_GPU) {
        st = fxi_equalize_gpu_prepare(p);
        if (st == FX_ENOMEM && fxi_device_auto(ctx)) {
            fxi_equalize_gpu_release(p);
            fxi_device_fallback(ctx, "equalize", &p->device, NULL, 0);
            where = FX_DEVICE_CPU;
            st = FX_OK;
        }
    }
    if (st == FX_OK && where == FX_DEVICE_CPU) st = alloc_cpu(ctx, p);
    explain_update(p);
    return st;
}

const char *fx_equalize_plan_explain(const fx_equalize_plan *plan)
{
    return plan ? plan->explain : "";
}

fx_status fx_equalize_plan_create(fx_context *ctx, const fx_equalize_options *opts,
                                  const fx_image_desc *desc, fx_equalize_plan **out)
{
    FXI_RETURN_IF(!out, FX_EINVAL, "equalize: no plan pointer");
    *out = NULL;
    FXI_RETURN_IF(!ctx || !opts, FX_EINVAL, "equalize: no context or options");
    FXI_TRY(fx_equalize_options_check(ctx, opts));
    FXI_TRY(check_shape(ctx, desc));
    fx_equalize_plan *p;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *p, (void **)&p));
    p->ctx = ctx;
    fx_status st = resolve(ctx, opts, desc, p);
    if (st == FX_OK) st = fxi_eq_load_mask(ctx, opts, p->width, p->height, &p->mask);
    if (st == FX_OK) st = plan_device(ctx, p);
    if (st != FX_OK) {
        fx_equalize_plan_free(p);
        return st;
    }
    *out = p;
    return FX_OK;
}

void fx_equalize_plan_free(fx_equalize_plan *p)
{
    if (!p) return;
    fxi_equalize_gpu_release(p);
    free(p->mask);
    free(p->hist);
    free(p->hist_work);
    free(p->bin_lut);
    free(p->value_lut);
    free(p->float_lut);
    free(p->hsv_table);
    free(p->x_axis);
    free(p->tile_lutf);
    free(p->x_index1);
    free(p->x_index2);
    free(p->x_weight);
    free(p->x_weight1);
    free(p);
}

static fx_status check_image(fx_context *ctx, const fx_equalize_plan *p, const fx_image *img,
                             int channels, const char *which)
{
    FXI_RETURN_IF(!img || !img->data, FX_EINVAL, "equalize: %s image has no pixels", which);
    FXI_RETURN_IF(img->width != p->width || img->height != p->height || img->channels != channels ||
                     img->type != p->type,
                 FX_EINVAL, "equalize: %s image is %dx%dx%d %s; the plan is for %dx%dx%d %s", which,
                 img->width, img->height, img->channels, fx_sample_type_name(img->type), p->width,
                 p->height, channels, fx_sample_type_name(p->type));
    size_t row;
    FXI_TRY(fx_image_size(img->width, img->height, img->channels, img->type, &row, NULL));
    FXI_RETURN_IF(img->stride < row, FX_EINVAL, "equalize: %s stride %zu is shorter than a row",
                 which, img->stride);
    return FX_OK;
}

fx_status fx_equalize_run(fx_equalize_plan *p, const fx_image *in, fx_image *out,
                          fx_timings *timings)
{
    if (!p) return FX_EINVAL;
    fx_context *ctx = p->ctx;
    FXI_TRY(check_image(ctx, p, in, p->in_channels, "input"));
    FXI_TRY(check_image(ctx, p, out, p->out_channels, "output"));
    FXI_RETURN_IF(in->memory != out->memory, FX_EINVAL,
                 "equalize: the input is a %s image and the output a %s image (both must be "
                 "the same kind)",
                 in->memory == FX_MEMORY_DEVICE ? "device" : "host",
                 out->memory == FX_MEMORY_DEVICE ? "device" : "host");
    FXI_RETURN_IF(in->data == out->data &&
                     (in->stride != out->stride || p->in_channels != p->out_channels),
                 FX_EINVAL, "equalize: in place needs the same layout for input and output");
    if (!p->gpu && in->memory == FX_MEMORY_DEVICE && fxi_device_auto(ctx) && fxi_gpu_start(ctx)) {
        /* An auto plan made for a host image meets a device image: the GPU, where it is
         * (started here when no item of a pending auto context has needed it yet). */
        FXI_TRY(fxi_equalize_gpu_prepare(p));
        p->device.device = FX_DEVICE_GPU;
        p->device.reason = FXI_REASON_ON_DEVICE;
        fxi_device_adopt(ctx, &p->device, &p->device, NULL, 0); /* the context is warm */
        explain_update(p);
    }
    if (p->gpu) {
        fx_status st = fxi_equalize_gpu_run(p, in, out, timings);
        /* In place, the GPU may have written part of the input over: no second try. */
        if (st != FX_ENOMEM || !fxi_device_auto(ctx) || in->memory != FX_MEMORY_HOST ||
            in->data == out->data)
            return st;
        /* Out of GPU memory on a host image: this item, and the plan's later ones, on
         * the CPU. */
        fxi_equalize_gpu_release(p);
        fxi_device_fallback(ctx, "equalize", &p->device, NULL, 0);
        explain_update(p);
        FXI_TRY(alloc_cpu(ctx, p));
    }
    FXI_RETURN_IF(in->memory == FX_MEMORY_DEVICE, FX_EINVAL,
                 "equalize: device images need a GPU context (this one runs on the CPU)");
    uint64_t start = fx_time_ns();
    if (p->adaptive) {
        fxi_eq_cpu_clahe(p, in, out);
    } else {
        fxi_eq_cpu_histogram(p, in);
        fxi_eq_cpu_global(p, in, out);
    }
    if (timings) timings->compute_ms += fx_elapsed_ms(start, fx_time_ns());
    return FX_OK;
}

fx_status fx_equalize(fx_context *ctx, const fx_equalize_options *opts, const fx_image *in,
                      fx_image *out, fx_timings *timings)
{
    FXI_RETURN_IF(!in || !out, FX_EINVAL, "equalize: no input or output image");
    const fx_image_desc desc = fx_image_desc_of(in);
    fx_equalize_plan *plan;
    FXI_TRY(fx_equalize_plan_create(ctx, opts, &desc, &plan));
    int allocated = 0;
    fx_status st = FX_OK;
    if (!out->data) {
        int ch = fx_equalize_output_channels(opts, in->channels);
        st = in->memory == FX_MEMORY_DEVICE
                 ? fx_image_alloc_device(ctx, out, in->width, in->height, ch, in->type)
                 : fx_image_alloc(ctx, out, in->width, in->height, ch, in->type);
        allocated = st == FX_OK;
    }
    if (st == FX_OK) st = fx_equalize_run(plan, in, out, timings);
    if (st != FX_OK && allocated) fx_image_free(out);
    fx_equalize_plan_free(plan);
    return st;
}
