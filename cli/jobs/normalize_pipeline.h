/* Streaming one audio file through the normalizer with reading, normalizing and
 * writing overlapped (cli/jobs/normalize_pipeline.c). */
#ifndef FXCLI_NORMALIZE_PIPELINE_H
#define FXCLI_NORMALIZE_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/* Peak and RMS of everything seen, for --verbose. */
typedef struct fxcli_levels {
    double peak, sum_squares;
    uint64_t samples;
} fxcli_levels;

/* The two ends of a stream: the input's and the output's levels. */
typedef struct fxcli_stream_levels {
    bool wanted;
    fxcli_levels in, out;
} fxcli_stream_levels;

/* Read every frame of `r`, push it through `n` (flushing at the end) and write
 * what it gives to `w`. With `overlap` a second thread reads ahead and writes
 * behind while this one normalizes; without, the three steps alternate on this
 * thread. Either way the output is the same. Times go to res->timings (decode,
 * compute, encode), the frames read to res->width. */
fx_status fxcli_normalize_stream(fx_normalize *n, fx_audio_reader *r, fx_audio_writer *w,
                                 const fx_audio_info *info, bool overlap, fxcli_stream_levels *lv,
                                 fxcli_result *res);

/* The same with the whole file in memory and one fx_normalize_audio call (on a GPU
 * context its whole-buffer path: a few launches for the file, the samples up in the
 * file's width): read everything, normalize, write everything. The same bytes, and
 * the same levels (summed over the buffer in the stream's order). */
fx_status fxcli_normalize_whole(fx_context *ctx, const fx_normalize_options *opts,
                                fx_audio_reader *r, fx_audio_writer *w, const fx_audio_info *info,
                                fxcli_stream_levels *lv, fxcli_result *res);

#endif
