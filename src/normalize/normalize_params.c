/* Options to parameters: the preset, the frame length, the windows, the channel
 * list and the Gaussian weights, each as ffmpeg 5.1 computes it. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "normalize_internal.h"

/* The published GPU variant (DANPI): frames of 1024 samples, RMS target 0.06,
 * half-widths 15, RMS gain within 0.1..10, peak 0.95, a constant gain per frame. */
#define DANPI_FRAME_SAMPLES 1024
#define DANPI_TARGET_RMS 0.06
#define DANPI_WINDOW 31
#define DANPI_MIN_GAIN 0.1

#define MS_PER_SECOND 1000.0

size_t fxi_nm_frame_length(int rate, double frame_ms)
{
    long length = lrint((double)rate * (frame_ms / MS_PER_SECOND));
    if (length < 1) length = 1;
    return (size_t)(length + (length % 2));
}

void fxi_nm_gauss_weights(int half, double *weights)
{
    const int size = 2 * half + 1;
    const double sigma = (((size / 2.0) - 1.0) / 3.0) + (1.0 / 3.0);
    const double c1 = 1.0 / (sigma * sqrt(2.0 * M_PI));
    const double c2 = 2.0 * sigma * sigma;
    double total = 0.0;
    for (int i = 0; i < size; i++) {
        const int x = i - half;
        weights[i] = c1 * exp(-x * x / c2);
        total += weights[i];
    }
    const double adjust = 1.0 / total;
    for (int i = 0; i < size; i++)
        weights[i] *= adjust;
}

/* One channel number of a list; advances *s. */
static bool parse_channel(const char **s, int channels, int *out)
{
    if (!isdigit((unsigned char)**s)) return false;
    char *end;
    long v = strtol(*s, &end, 10);
    *s = end;
    if (v < 0 || v >= channels) return false;
    *out = (int)v;
    return true;
}

fx_status fxi_nm_parse_channels(fx_context *ctx, const char *text, int channels, bool *process)
{
    bool all = !text || !strcmp(text, "all");
    for (int c = 0; c < channels; c++)
        process[c] = all;
    if (all) return FX_OK;
    const char *s = text;
    for (;;) {
        int first, last;
        FXI_RETURN_IF(!parse_channel(&s, channels, &first), FX_EINVAL,
                     "--channels: '%s' is not a list of channels 0..%d (e.g. 0,2-3)", text,
                     channels - 1);
        last = first;
        if (*s == '-') {
            s++;
            FXI_RETURN_IF(!parse_channel(&s, channels, &last) || last < first, FX_EINVAL,
                         "--channels: '%s' is not a list of channels 0..%d (e.g. 0,2-3)", text,
                         channels - 1);
        }
        for (int c = first; c <= last; c++)
            process[c] = true;
        if (*s == '\0') return FX_OK;
        FXI_RETURN_IF(*s != ',', FX_EINVAL,
                     "--channels: '%s' is not a list of channels 0..%d (e.g. 0,2-3)", text,
                     channels - 1);
        s++;
    }
}

/* The preset's values for the fields still at their defaults. */
static void apply_preset(fx_normalize_options *o)
{
    if (o->preset != FX_NORMALIZE_PRESET_DANPI) return;
    fx_normalize_options d;
    fx_normalize_options_init(&d);
    if (o->frame_samples == d.frame_samples) o->frame_samples = DANPI_FRAME_SAMPLES;
    if (o->target_rms == d.target_rms) o->target_rms = DANPI_TARGET_RMS;
    if (o->window == d.window) o->window = DANPI_WINDOW;
    if (o->min_gain == d.min_gain) o->min_gain = DANPI_MIN_GAIN;
    if (o->ramp == d.ramp) o->ramp = 0;
}

static fx_status check_odd(fx_context *ctx, const char *name, int width)
{
    FXI_RETURN_IF(width % 2 == 0, FX_EINVAL,
                 "--%s: %d is even; the window must be odd (frames either side of the centre)",
                 name, width);
    FXI_RETURN_IF(width < FXI_NM_MIN_WINDOW, FX_ERANGE, "--%s: %d is out of range [%d, %d]", name,
                 width, FXI_NM_MIN_WINDOW, FXI_NM_MAX_WINDOW);
    return FX_OK;
}

fx_status fxi_nm_params_resolve(fx_context *ctx, const fx_normalize_options *opts, int channels,
                                int rate, fxi_nm_params *p)
{
    memset(p, 0, sizeof *p);
    fx_normalize_options o;
    if (opts)
        o = *opts;
    else
        fx_normalize_options_init(&o);
    FXI_TRY(fx_options_validate(ctx, fx_normalize_options_table(), &o));
    apply_preset(&o);
    FXI_RETURN_IF(channels < 1 || channels > ctx->limits.max_channels, FX_ELIMIT,
                 "%d audio channels (allowed: 1 to %d)", channels, ctx->limits.max_channels);
    FXI_RETURN_IF(rate <= 0, FX_EINVAL, "sample rate %d is not positive", rate);
    const int min_window = o.min_window ? o.min_window : o.window;
    const int gauss_window = o.gauss_window ? o.gauss_window : o.window;
    FXI_TRY(check_odd(ctx, "window", o.window));
    FXI_TRY(check_odd(ctx, "min-window", min_window));
    FXI_TRY(check_odd(ctx, "gauss-window", gauss_window));

    p->channels = channels;
    p->rate = rate;
    p->frame_length =
        o.frame_samples ? (size_t)o.frame_samples : fxi_nm_frame_length(rate, o.frame_ms);
    long advance = lrint((double)p->frame_length * (1. - o.overlap));
    p->advance = advance < 1 ? 1 : (size_t)advance;
    p->min_half = min_window / 2;
    p->gauss_half = gauss_window / 2;
    p->peak = o.peak;
    p->max_gain = o.max_gain;
    p->min_gain = o.min_gain;
    p->target_rms = o.target_rms;
    p->compress = o.compress;
    p->threshold = o.threshold;
    p->coupled = o.coupling;
    p->correct_dc = o.correct_dc;
    p->alt_boundary = o.alt_boundary;
    p->ramp = o.ramp;
    p->compat = o.compat == FX_NORMALIZE_COMPAT_FFMPEG51;

    void *mem;
    FXI_TRY(fxi_calloc(ctx, (size_t)channels, sizeof(bool), &mem));
    p->process = mem;
    fx_status st = fxi_nm_parse_channels(ctx, o.channels, channels, p->process);
    if (st == FX_OK) st = fxi_calloc(ctx, (size_t)gauss_window, sizeof(double), &mem);
    if (st != FX_OK) {
        fxi_nm_params_free(p);
        return st;
    }
    p->weights = mem;
    fxi_nm_gauss_weights(p->gauss_half, p->weights);
    return FX_OK;
}

void fxi_nm_params_free(fxi_nm_params *p)
{
    free(p->process);
    free(p->weights);
    p->process = NULL;
    p->weights = NULL;
}
