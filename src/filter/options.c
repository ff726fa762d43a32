/* The filter job's options: the table (the one place where names, defaults and
 * ranges are written) and the parsers of its list-valued options. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_internal.h"

static const char *const border_names[] = {"constant",   "replicate", "reflect",
                                           "reflect101", "wrap",      NULL};
/* In fx_filter_strategy order. */
static const char *const strategy_names[] = {
    "auto",       "direct",       "separable",  "box",         "fft",
    "gpu-global", "gpu-constant", "gpu-shared", "gpu-texture", NULL};
static const char *const alpha_names[] = {"keep", "filter", NULL};

/* Scale and offset beyond this are surely mistakes (and would overflow sums). */
#define SCALE_LIMIT 1e9
#define OFFSET_LIMIT 1e9

#define OPT(field) offsetof(fx_filter_options, field)

/* FX_OPT_ENUM rows write their field through an int (src/core/options.c). */
_Static_assert(sizeof(fx_border) == sizeof(int), "fx_border is stored as an int");
_Static_assert(sizeof(fx_alpha_mode) == sizeof(int), "fx_alpha_mode is stored as an int");
_Static_assert(sizeof(fx_filter_strategy) == sizeof(int), "fx_filter_strategy is stored as an int");

static const fx_option filter_table[] = {
    {"border", 'b', FX_OPT_ENUM, OPT(border), FX_BORDER_REFLECT101, 0, 0, NULL, border_names,
     "MODE",
     "samples outside the image: constant, replicate, reflect, reflect101 (as OpenCV) "
     "or wrap"},
    {"border-value", 0, FX_OPT_STRING, OPT(border_value), 0, 0, 0, "0", NULL, "V[,V…]",
     "value of the constant border, one for all channels or one per channel"},
    {"scale", 0, FX_OPT_DOUBLE, OPT(scale), 1, -SCALE_LIMIT, SCALE_LIMIT, NULL, NULL, "S",
     "multiply every weight by S"},
    {"offset", 0, FX_OPT_DOUBLE, OPT(offset), 0, -OFFSET_LIMIT, OFFSET_LIMIT, NULL, NULL, "D",
     "add D to every output sample (sample units: 0…255 for 8-bit)"},
    {"anchor", 0, FX_OPT_STRING, OPT(anchor), 0, 0, 0, NULL, NULL, "X,Y",
     "kernel position over the output pixel (default: the centre, kw/2,kh/2)"},
    {"convolve", 0, FX_OPT_BOOL, OPT(convolve), 0, 0, 1, NULL, NULL, NULL,
     "flip the kernel: true convolution (default: correlation, as OpenCV's filter2D)"},
    {"alpha", 0, FX_OPT_ENUM, OPT(alpha), FX_ALPHA_KEEP, 0, 0, NULL, alpha_names, "MODE",
     "alpha of GA/RGBA images: keep (unchanged) or filter"},
    {"strategy", 0, FX_OPT_ENUM, OPT(strategy), FX_STRATEGY_AUTO, 0, 0, NULL, strategy_names,
     "NAME",
     "auto (by kernel and image size), direct, separable, box or fft; with --device gpu also "
     "gpu-global, gpu-constant, gpu-shared or gpu-texture (the published CUDA variants)"},
    {"gpu-block", 0, FX_OPT_INT, OPT(gpu_block), 0, 0, 32, NULL, NULL, "N",
     "GPU variants: threads per block side, 8, 16 or 32; 0 means 16"},
    {"gpu-memory", 0, FX_OPT_INT, OPT(gpu_memory_mib), 0, 0, 1 << 24, NULL, NULL, "MIB",
     "GPU: device memory for streaming an image in row bands; 0 means what is free"},
    FX_OPTION_END};

const fx_option *fx_filter_options_table(void)
{
    return filter_table;
}

void fx_filter_options_init(fx_filter_options *o)
{
    memset(o, 0, sizeof *o);
    fx_options_defaults(filter_table, o);
}

const char *fx_filter_strategy_name(fx_filter_strategy s)
{
    return (unsigned)s < FX_STRATEGY_COUNT ? strategy_names[s] : NULL;
}

const char *fx_border_name(fx_border b)
{
    return (unsigned)b <= FX_BORDER_WRAP ? border_names[b] : NULL;
}

/* Numbers separated by commas into out[0..max); the count read. */
static fx_status parse_list(fx_context *ctx, const char *option, const char *text, double *out,
                            int max, int *count)
{
    *count = 0;
    const char *s = text;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        FXI_RETURN_IF(end == s, FX_EINVAL, "--%s '%s': expected a number at '%s'", option, text, s);
        FXI_RETURN_IF(!isfinite(v), FX_EINVAL, "--%s '%s': values must be finite", option, text);
        FXI_RETURN_IF(*count == max, FX_EINVAL, "--%s '%s': at most %d values", option, text, max);
        out[(*count)++] = v;
        if (!*end) return FX_OK;
        FXI_RETURN_IF(*end != ',', FX_EINVAL, "--%s '%s': unexpected '%s'", option, text, end);
        s = end + 1;
    }
}

fx_status fxi_parse_anchor(fx_context *ctx, const char *text, int kw, int kh, int *ax, int *ay)
{
    if (!text || !*text) return FX_OK;
    double v[2];
    int n;
    FXI_TRY(parse_list(ctx, "anchor", text, v, 2, &n));
    FXI_RETURN_IF(n != 2 || v[0] != floor(v[0]) || v[1] != floor(v[1]), FX_EINVAL,
                 "--anchor '%s': expected two whole numbers X,Y", text);
    FXI_RETURN_IF(v[0] < 0 || v[0] >= kw || v[1] < 0 || v[1] >= kh, FX_ERANGE,
                 "--anchor %s is outside the %dx%d kernel (X 0…%d, Y 0…%d)", text, kw, kh, kw - 1,
                 kh - 1);
    *ax = (int)v[0];
    *ay = (int)v[1];
    return FX_OK;
}

fx_status fxi_parse_border_value(fx_context *ctx, const char *text, int channels, double *values)
{
    for (int c = 0; c < channels; c++)
        values[c] = 0;
    if (!text || !*text) return FX_OK;
    double v[FX_MAX_IMAGE_CHANNELS];
    int n;
    FXI_TRY(parse_list(ctx, "border-value", text, v, FX_MAX_IMAGE_CHANNELS, &n));
    FXI_RETURN_IF(
        n != 1 && n != channels, FX_EINVAL,
        "--border-value '%s' has %d values; give 1 or %d (one per channel of this %d-channel "
        "image)",
        text, n, channels, channels);
    for (int c = 0; c < channels; c++)
        values[c] = v[n == 1 ? 0 : c];
    return FX_OK;
}
