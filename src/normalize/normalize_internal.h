/* Dynamic audio normalization: what the files of src/normalize share.
 *
 * params.c resolves the options into fxi_nm_params; analyze.c does the per-frame
 * work before the gain (DC, compression, peak/RMS, local gain); history.c turns
 * local gains into smoothed gains (minimum filter, Gaussian); stream.c holds the
 * frames in flight and applies the gain ramp.
 */
#ifndef FXKIT_NORMALIZE_INTERNAL_H
#define FXKIT_NORMALIZE_INTERNAL_H

#include <float.h>
#include <stdbool.h>

#include "core/internal.h"
#include "fxkit/normalize.h"

/* ffmpeg's limits on the window (frames). */
#define FXI_NM_MIN_WINDOW 3
#define FXI_NM_MAX_WINDOW 301
/* sqrt(pi) / 2: bound(T, v) has slope 1 at v = 0. */
#define FXI_NM_BOUND_SCALE 0.8862269254527580136490837416705725913987747280611935
/* Smoothing weights of the DC estimate and of the compression threshold. */
#define FXI_NM_DC_WEIGHT 0.1
#define FXI_NM_COMPRESS_WEIGHT (1.0 / 3.0)

typedef struct fxi_nm_params {
    int channels, rate;
    size_t frame_length;      /* samples per analysis frame */
    size_t advance;           /* samples per step (== frame_length without overlap) */
    int min_half, gauss_half; /* half widths: a window of w frames has w / 2 */
    double peak, max_gain, min_gain, target_rms, compress, threshold;
    bool coupled, correct_dc, alt_boundary, ramp, compat;
    bool *process;   /* per channel: false = passed through untouched */
    double *weights; /* 2 * gauss_half + 1 Gaussian weights, summing to about 1 */
} fxi_nm_params;

/* Resolve the options (preset, frame length, windows, channel list) and check
 * them; `p` owns its arrays (fxi_nm_params_free). */
fx_status fxi_nm_params_resolve(fx_context *ctx, const fx_normalize_options *opts, int channels,
                                int rate, fxi_nm_params *p);
void fxi_nm_params_free(fxi_nm_params *p);
/* ffmpeg's frame length: lrint(rate * ms / 1000), made even. */
size_t fxi_nm_frame_length(int rate, double frame_ms);
/* ffmpeg's Gaussian weights for a window of 2 * half + 1 frames. */
void fxi_nm_gauss_weights(int half, double *weights);
/* Parse "all", "0,2-3": set process[c] for the channels listed. */
fx_status fxi_nm_parse_channels(fx_context *ctx, const char *text, int channels, bool *process);

/* ---- per-frame analysis (analyze.c) ---- */

/* erf(FXI_NM_BOUND_SCALE * (v / limit)) * limit: slope 1 at 0, saturating at limit. */
double fxi_nm_bound(double limit, double v);
/* The soft knee T with bound(T, 1) == threshold (ffmpeg's search, x86-64 llrint included). */
double fxi_nm_compress_knee(double threshold);

/* State carried from frame to frame by the pre-processing. */
typedef struct fxi_nm_carry {
    bool first;        /* no frame analysed yet */
    double *dc;        /* per channel: the DC estimate */
    double *threshold; /* per channel (or [0] when coupled): compression threshold */
    double *window;    /* overlap only: the last frame_length samples, planar, then zeros */
} fxi_nm_carry;

/* Local gain of one frame and channel (or of all channels when coupled). */
typedef struct fxi_nm_gain {
    double gain;
    double flag; /* 1.0 when the frame counts for the threshold, else 0.0 */
} fxi_nm_gain;

fx_status fxi_nm_carry_init(fx_context *ctx, const fxi_nm_params *p, fxi_nm_carry *carry);
void fxi_nm_carry_free(fxi_nm_carry *carry);

/* Pre-process one frame in place (`n` interleaved frames of samples) and compute
 * its local gains: gains[0] when coupled, else gains[c] per channel. */
void fxi_nm_analyze(fx_context *ctx, const fxi_nm_params *p, fxi_nm_carry *carry, double *x,
                    size_t n, fxi_nm_gain *gains);
/* The local gain of a frame from its levels: its peak and (with a target RMS) its RMS. */
fxi_nm_gain fxi_nm_local_gain(const fxi_nm_params *p, double peak, double rms);
/* RMS from a sum of squares of `count` samples (at least DBL_EPSILON). */
double fxi_nm_rms_of_sum(double sumsq, size_t count);
/* The pad sample ffmpeg appends at the end of the stream, channel c, sample i. */
double fxi_nm_pad_sample(const fxi_nm_params *p, const fxi_nm_carry *carry, int c, size_t i);

/* ---- gain history (history.c): minimum filter, Gaussian, limit ---- */

typedef struct fxi_nm_history {
    int min_half, gauss_half;
    size_t ring;            /* capacity of each ring (frames) */
    double *g, *t, *m, *mt; /* local gains, flags; minimum and its flags (by M position) */
    uint64_t frames;        /* local gains received */
    uint64_t smoothed;      /* smoothed gains produced */
    double first_gain;      /* the ramp's start and the left padding */
} fxi_nm_history;

fx_status fxi_nm_history_init(fx_context *ctx, const fxi_nm_params *p, fxi_nm_history *h);
void fxi_nm_history_free(fxi_nm_history *h);
/* Add the next frame's local gain (and the minimum it completes). True when the
 * next smoothed gain (frame h->smoothed) can now be computed. */
bool fxi_nm_history_add(const fxi_nm_params *p, fxi_nm_history *h, fxi_nm_gain gain);
/* The Gaussian and the limit: frame h->smoothed's smoothed gain (then the next
 * frame's); *local and *minimum receive that frame's own and minimum gains. */
double fxi_nm_history_smooth(const fxi_nm_params *p, fxi_nm_history *h, double *local,
                             double *minimum);
/* The ramp's start value of the first frame. */
double fxi_nm_history_start(const fxi_nm_history *h);

#endif
