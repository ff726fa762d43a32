/* fxkit — dynamic audio normalization (the Dynamic Audio Normalizer, ffmpeg's
 * dynaudnorm).
 *
 * The signal is cut into frames; each frame gets the gain that brings it to the
 * target peak (or RMS), soft-limited by the maximum gain; a minimum filter and a
 * Gaussian filter over neighbouring frames smooth those gains, and the gain is
 * ramped sample by sample from one frame's value to the next. docs/ALGORITHMS.md
 * gives every operation.
 *
 * With the default options and any input of at least `window` frames, every
 * output sample is bit-identical to ffmpeg 5.1's `-af dynaudnorm` with the same
 * options (without --threshold). compat = FX_NORMALIZE_COMPAT_FFMPEG51 also
 * reproduces 5.1's defects (short inputs passed through, misaligned threshold
 * weights).
 *
 * Streaming: open, then push input and pull output in any chunk sizes, flush at
 * the end of the input and pull the rest. The output is the input's length and
 * lags it by the look-ahead (min + Gaussian half-windows, in frames); memory is
 * bounded by that look-ahead plus what the caller has pushed and not pulled.
 * The result does not depend on the chunk sizes.
 */
#ifndef FXKIT_NORMALIZE_H
#define FXKIT_NORMALIZE_H

#include "audio.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fx_normalize_preset {
    FX_NORMALIZE_PRESET_NONE = 0,
    FX_NORMALIZE_PRESET_DANPI = 1 /* the published GPU variant (DANPI)'s parameters */
} fx_normalize_preset;

typedef enum fx_normalize_compat {
    FX_NORMALIZE_COMPAT_NONE = 0,    /* ffmpeg 5.1's arithmetic, with its defects fixed */
    FX_NORMALIZE_COMPAT_FFMPEG51 = 1 /* ffmpeg 5.1 exactly, defects included */
} fx_normalize_compat;

/* The options; fx_normalize_options_init writes the defaults (from the table). */
typedef struct fx_normalize_options {
    double frame_ms;      /* frame length in ms, rounded as ffmpeg does to an even sample count */
    int frame_samples;    /* 0: from frame_ms; else the frame length in samples */
    int window;           /* frames (odd) of the minimum and the Gaussian filter */
    int min_window;       /* 0: `window`; else the minimum filter's own width (odd) */
    int gauss_window;     /* 0: `window`; else the Gaussian filter's own width (odd) */
    double peak;          /* target peak */
    double max_gain;      /* soft limit of every gain */
    double min_gain;      /* 0 = off; else the RMS gain's floor */
    double target_rms;    /* 0 = off; else the target RMS */
    int coupling;         /* 1: one gain for all channels */
    int correct_dc;       /* remove the DC offset (a one-pole estimate per frame) */
    int alt_boundary;     /* alternative boundary mode: no fade in/out at the ends */
    double compress;      /* 0 = off; else the soft-knee compression factor */
    double threshold;     /* 0 = off; frames whose peak is below it do not count */
    const char *channels; /* NULL or "all"; else "0,2-3": channels to process */
    double overlap;       /* 0..1: frames overlap by this fraction */
    int ramp;             /* 1: ramp the gain per sample; 0: a constant gain per frame */
    fx_normalize_preset preset; /* sets the fields still at their defaults */
    fx_normalize_compat compat;
} fx_normalize_options;

/* The option table (name, alias, range, default, help of every field): the
 * program's parser, --help and docs/OPTIONS.md come from it. */
FX_API const fx_option *fx_normalize_options_table(void);
FX_API void fx_normalize_options_init(fx_normalize_options *opts);

typedef struct fx_normalize fx_normalize;

/* What a stream resolved its options to. */
typedef struct fx_normalize_info {
    int frame_length;   /* samples per analysis frame */
    int advance;        /* samples per frame step (frame_length unless overlap) */
    int min_window;     /* frames */
    int gauss_window;   /* frames */
    int latency_frames; /* frames of look-ahead before output appears */
    int on_gpu;         /* 1 when the context's GPU does the per-sample work */
} fx_normalize_info;

/* Stage times in ms, measured only after fx_normalize_set_timing(n, 1): the
 * four stages the published GPU variant logs. */
typedef struct fx_normalize_stage_times {
    double analyze_ms;    /* DC, compression and per-frame peak/RMS */
    double min_filter_ms; /* local gains and the minimum filter */
    double gauss_ms;      /* the Gaussian filter */
    double gain_ms;       /* the per-sample gain */
} fx_normalize_stage_times;

/* Called once per frame and channel when the frame's smoothed gain is known:
 * the frame's own gain, after the minimum filter, after smoothing. */
typedef void (*fx_normalize_gain_fn)(void *user, uint64_t frame, int channel, double local,
                                     double minimum, double smoothed);

/* Open a stream for `channels` interleaved channels at `rate` Hz. opts may be
 * NULL for the defaults. Checks the options (FX_ERANGE/FX_EINVAL naming the
 * option). On a GPU context the per-sample work runs there; on an FX_DEVICE_AUTO
 * context with a GPU, there or on the CPU, whichever the cost model expects to be
 * faster for a stream of this shape (fx_normalize_explain says which and why). */
FX_API fx_status fx_normalize_open(fx_context *ctx, const fx_normalize_options *opts, int channels,
                                   int rate, fx_normalize **out);
FX_API void fx_normalize_info_get(const fx_normalize *n, fx_normalize_info *info);
/* The stream's device and why (one line, for --explain), e.g. "cpu (auto: cpu ~170 ms,
 * gpu ~175 ms incl. PCIe 2 x 42 MB at 27 GB/s)". */
FX_API const char *fx_normalize_explain(const fx_normalize *n);
FX_API void fx_normalize_set_timing(fx_normalize *n, int enabled);
FX_API void fx_normalize_stage_times_get(const fx_normalize *n, fx_normalize_stage_times *t);
FX_API void fx_normalize_set_gain_log(fx_normalize *n, fx_normalize_gain_fn fn, void *user);

/* Append `frames` interleaved frames of input. */
FX_API fx_status fx_normalize_push(fx_normalize *n, const double *in, size_t frames);
/* The end of the input: what is still held becomes available to pull. No push after it. */
FX_API fx_status fx_normalize_flush(fx_normalize *n);
/* Take up to max_frames finished frames; *got is 0 when none is ready yet (or, after
 * flush, when everything has been pulled). */
FX_API fx_status fx_normalize_pull(fx_normalize *n, double *out, size_t max_frames, size_t *got);
/* Frames ready to pull now. */
FX_API size_t fx_normalize_ready(const fx_normalize *n);
FX_API void fx_normalize_close(fx_normalize *n);

/* Whether fx_normalize_audio on ctx takes a buffer of `frames` frames, read from a file
 * of `format`, to the GPU whole: a GPU context, options whose analysis needs only each
 * frame's levels (no DC correction, compression, overlap or compat mode) and, on an
 * FX_DEVICE_AUTO context, the cost model's choice. When it does, `why` (if not NULL)
 * says where and why in one line (as --explain prints it); otherwise the buffer streams
 * and fx_normalize_open chooses the stream's device (fx_normalize_explain). */
FX_API bool fx_normalize_whole_on_gpu(fx_context *ctx, const fx_normalize_options *opts,
                                      int channels, int rate, uint64_t frames,
                                      fx_sample_format format, char *why, size_t size);

/* One call: normalize a whole buffer into *out (allocated here, same shape and
 * rate; release with fx_audio_free). */
FX_API fx_status fx_normalize_audio(fx_context *ctx, const fx_normalize_options *opts,
                                    const fx_audio *in, fx_audio *out);

#ifdef __cplusplus
}
#endif
#endif
