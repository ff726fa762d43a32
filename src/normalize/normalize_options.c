/* The option table of dynamic audio normalization: every default, range and help
 * line is written here once; the program's parser, --help and docs/OPTIONS.md
 * read it. Short aliases are ffmpeg's where the program does not already use the
 * letter (-o, -t, -h are output, threads and help there). */
#include <stddef.h>
#include <string.h>

#include "normalize_internal.h"

#define OPT(field) offsetof(fx_normalize_options, field)

/* FX_OPT_ENUM rows write their field through an int (src/core/options.c). */
_Static_assert(sizeof(fx_normalize_preset) == sizeof(int),
               "fx_normalize_preset is stored as an int");
_Static_assert(sizeof(fx_normalize_compat) == sizeof(int),
               "fx_normalize_compat is stored as an int");

#define DEFAULT_FRAME_MS 500
#define MIN_FRAME_MS 10
#define MAX_FRAME_MS 8000
/* 2^22 samples: 95 s at 44.1 kHz, far beyond any useful frame. */
#define MAX_FRAME_SAMPLES 4194304
#define DEFAULT_WINDOW 31
#define DEFAULT_PEAK 0.95
#define DEFAULT_MAX_GAIN 10
#define MIN_MAX_GAIN 1
#define MAX_MAX_GAIN 100
#define MAX_COMPRESS 30

static const char *const preset_names[] = {"none", "danpi", NULL};
static const char *const compat_names[] = {"none", "ffmpeg5.1", NULL};

static const fx_option normalize_table[] = {
    {"frame-ms", 'f', FX_OPT_DOUBLE, OPT(frame_ms), DEFAULT_FRAME_MS, MIN_FRAME_MS, MAX_FRAME_MS,
     NULL, NULL, "MS", "frame length in ms (rounded to an even number of samples)"},
    {"frame-samples", 0, FX_OPT_INT, OPT(frame_samples), 0, 0, MAX_FRAME_SAMPLES, NULL, NULL, "N",
     "frame length in samples (0 = from --frame-ms)"},
    {"window", 'g', FX_OPT_INT, OPT(window), DEFAULT_WINDOW, FXI_NM_MIN_WINDOW, FXI_NM_MAX_WINDOW,
     NULL, NULL, "N", "frames (odd) of the minimum and the Gaussian filter"},
    {"min-window", 0, FX_OPT_INT, OPT(min_window), 0, 0, FXI_NM_MAX_WINDOW, NULL, NULL, "N",
     "frames (odd) of the minimum filter (0 = --window)"},
    {"gauss-window", 0, FX_OPT_INT, OPT(gauss_window), 0, 0, FXI_NM_MAX_WINDOW, NULL, NULL, "N",
     "frames (odd) of the Gaussian filter (0 = --window)"},
    {"peak", 'p', FX_OPT_DOUBLE, OPT(peak), DEFAULT_PEAK, 0, 1, NULL, NULL, "P",
     "target peak of each frame"},
    {"max-gain", 'm', FX_OPT_DOUBLE, OPT(max_gain), DEFAULT_MAX_GAIN, MIN_MAX_GAIN, MAX_MAX_GAIN,
     NULL, NULL, "M", "soft limit of every gain"},
    {"min-gain", 0, FX_OPT_DOUBLE, OPT(min_gain), 0, 0, MAX_MAX_GAIN, NULL, NULL, "G",
     "floor of the RMS gain (0 = off; the peak still limits)"},
    {"target-rms", 'r', FX_OPT_DOUBLE, OPT(target_rms), 0, 0, 1, NULL, NULL, "R",
     "target RMS of each frame (0 = off: peak only)"},
    {"coupling", 0, FX_OPT_BOOL, OPT(coupling), 1, 0, 1, NULL, NULL, NULL,
     "one gain for all channels (--no-coupling: one per channel)"},
    {"correct-dc", 'c', FX_OPT_BOOL, OPT(correct_dc), 0, 0, 1, NULL, NULL, NULL,
     "remove the DC offset"},
    {"alt-boundary", 'b', FX_OPT_BOOL, OPT(alt_boundary), 0, 0, 1, NULL, NULL, NULL,
     "alternative boundary mode: full gain at the ends, no fade in/out"},
    {"compress", 's', FX_OPT_DOUBLE, OPT(compress), 0, 0, MAX_COMPRESS, NULL, NULL, "S",
     "soft-knee compression factor (0 = off)"},
    {"threshold", 0, FX_OPT_DOUBLE, OPT(threshold), 0, 0, 1, NULL, NULL, "T",
     "frames whose peak is at or below T do not count (0 = off)"},
    {"channels", 0, FX_OPT_STRING, OPT(channels), 0, 0, 0, "all", NULL, "LIST",
     "channels to process, from 0: all, or e.g. 0,2-3 (the others pass through)"},
    {"overlap", 0, FX_OPT_DOUBLE, OPT(overlap), 0, 0, 1, NULL, NULL, "O",
     "overlap of consecutive frames, 0..1"},
    {"ramp", 0, FX_OPT_BOOL, OPT(ramp), 1, 0, 1, NULL, NULL, NULL,
     "ramp the gain sample by sample (--no-ramp: constant per frame)"},
    {"preset", 0, FX_OPT_ENUM, OPT(preset), FX_NORMALIZE_PRESET_NONE, 0, 0, NULL, preset_names,
     "NAME", "danpi: the published GPU variant's parameters, for options left at their defaults"},
    {"compat", 0, FX_OPT_ENUM, OPT(compat), FX_NORMALIZE_COMPAT_NONE, 0, 0, NULL, compat_names,
     "MODE", "ffmpeg5.1: reproduce ffmpeg 5.1's defects too (short inputs, threshold)"},
    FX_OPTION_END};

const fx_option *fx_normalize_options_table(void)
{
    return normalize_table;
}

void fx_normalize_options_init(fx_normalize_options *opts)
{
    memset(opts, 0, sizeof *opts);
    fx_options_defaults(normalize_table, opts);
}
