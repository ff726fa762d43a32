/* The equalize job's option table: each default is written here once; the
 * program's parser and --help, docs/OPTIONS.md and fx_equalize_options_init all
 * read these rows. */
#include <stddef.h>
#include <string.h>

#include "equalize_internal.h"

#define OPT(field) offsetof(fx_equalize_options, field)

/* FX_OPT_ENUM rows write their field through an int (src/core/options.c). */
_Static_assert(sizeof(fx_equalize_space) == sizeof(int), "fx_equalize_space is stored as an int");
_Static_assert(sizeof(fx_equalize_scale) == sizeof(int), "fx_equalize_scale is stored as an int");

/* Same order as fx_equalize_space and fx_equalize_scale. */
static const char *const space_names[] = {"gray", "hsv", "luma", "rgb", "hsv-float", NULL};
static const char *const scale_names[] = {"minmax", "max", "mms", "mas", NULL};

/* OpenCV's createCLAHE defaults: clip limit 40, an 8x8 grid. */
#define DEFAULT_CLIP 40.0
#define MAX_CLIP 65536.0
/* GPU block sizes: whole warps, up to the CUDA limit. */
#define MAX_GPU_BLOCK FXI_EQ_GPU_MAX_BLOCK

static const fx_option table[] = {
    {"space", 0, FX_OPT_ENUM, OPT(space), FX_EQ_SPACE_HSV, 0, 0, NULL, space_names, "SPACE",
     "colour images: equalize V of HSV (hue kept), OpenCV's luma, each RGB channel, "
     "gray, or the published float HSV round trip; gray images are equalized directly"},
    {"bins", 'b', FX_OPT_INT, OPT(bins), 0, 0, FXI_EQ_MAX_BINS, NULL, NULL, "N",
     "histogram bins, 2 to 65536 (0 = one per level for 8-bit, 4096 for 16-bit)"},
    {"scale", 0, FX_OPT_ENUM, OPT(scale), FX_EQ_SCALE_MINMAX, 0, 0, NULL, scale_names, "SCALE",
     "CDF scaling: OpenCV's equalizeHist (minmax), cdf/N (max, alias mas), or the "
     "published min-max scaler (mms)"},
    {"adaptive", 'a', FX_OPT_BOOL, OPT(adaptive), 0, 0, 1, NULL, NULL, NULL,
     "contrast-limited adaptive equalization (CLAHE, OpenCV's createCLAHE)"},
    {"tiles", 0, FX_OPT_STRING, OPT(tiles), 0, 0, 0, "8x8", NULL, "CxR",
     "CLAHE tile grid, columns x rows (each 1 to 256)"},
    {"clip", 0, FX_OPT_DOUBLE, OPT(clip), DEFAULT_CLIP, 0, MAX_CLIP, NULL, NULL, "L",
     "CLAHE clip limit in mean bin heights (0 = no limit)"},
    {"mask", 0, FX_OPT_STRING, OPT(mask), 0, 0, 0, NULL, NULL, "FILE",
     "gray 8- or 16-bit image of the input's size: only its non-zero pixels build the "
     "histogram (read once for the batch; from C, mask_image gives one already in memory)"},
    {"gpu-block", 0, FX_OPT_INT, OPT(gpu_block), 0, 0, MAX_GPU_BLOCK, NULL, NULL, "N",
     "GPU threads per block, a multiple of 32 (0 = the tuned default, 256; on device images "
     "global gray, hsv and luma run in one launch only with 256, else in two)"},
    FX_OPTION_END};

const fx_option *fx_equalize_options_table(void)
{
    return table;
}

void fx_equalize_options_init(fx_equalize_options *opts)
{
    memset(opts, 0, sizeof *opts);
    fx_options_defaults(table, opts);
}

fx_status fx_equalize_options_check(fx_context *ctx, const fx_equalize_options *opts)
{
    FXI_TRY(fx_options_validate(ctx, table, opts));
    FXI_RETURN_IF(opts->bins != 0 && opts->bins < FXI_EQ_MIN_BINS, FX_ERANGE,
                 "--bins: %d is too few (at least %d, or 0 for the default)", opts->bins,
                 FXI_EQ_MIN_BINS);
    FXI_RETURN_IF(opts->gpu_block % FXI_WARP_THREADS != 0, FX_ERANGE,
                 "--gpu-block: %d is not a multiple of %d", opts->gpu_block, FXI_WARP_THREADS);
    int tx, ty;
    FXI_TRY(fxi_parse_tiles(ctx, opts->tiles ? opts->tiles : "8x8", &tx, &ty));
    FXI_RETURN_IF(opts->adaptive && (opts->mask || opts->mask_image), FX_EINVAL,
                 "--mask applies to global equalization; it cannot be used with --adaptive");
    return FX_OK;
}

int fx_equalize_output_channels(const fx_equalize_options *opts, int channels)
{
    if (opts->space == FX_EQ_SPACE_GRAY && channels >= 3) return channels == 4 ? 2 : 1;
    return channels;
}
