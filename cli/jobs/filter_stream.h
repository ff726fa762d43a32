/* fxkit filter on images too large to hold: bands from file to file
 * (filter_stream.c). */
#ifndef FXCLI_FILTER_STREAM_H
#define FXCLI_FILTER_STREAM_H

#include "cli.h"

/* What one streamed image needs: its shape, the file's, working and output types,
 * the kernel (its plan options) and the output rows per band. */
typedef struct fxcli_stream_job {
    const fx_kernel *kernel;
    const fx_filter_options *options;
    int width, height, channels, kernel_height, band_rows;
    fx_sample_type file_type, work_type, out_type;
} fxcli_stream_job;

/* Rows of one band: the outputs it keeps and the inputs they read (image rows). */
typedef struct fxcli_band_rows {
    int out_begin, out_end, in_begin, in_end;
} fxcli_band_rows;

/* Output rows per band for an image of this shape at the working type, or 0 to
 * filter it whole: rows_option > 0 asks for bands of that many rows (at least the
 * kernel's height); 0 streams only images above 1 GiB, in bands of about 64 MiB;
 * the wrap border and images no taller than a band are always filtered whole. */
int fxcli_stream_band_rows(int rows_option, int width, int height, int channels,
                           fx_sample_type type, int kernel_height, int border);
/* The band whose outputs start at row y0. */
fxcli_band_rows fxcli_stream_band_at(int y0, int band_rows, int height, int kernel_height);
/* Filter the reader's image into out_path band by band. */
fx_status fxcli_filter_streamed(fx_context *ctx, const fxcli_stream_job *job,
                                fx_image_reader *reader, const char *out_path,
                                const fx_image_write_options *wo, fxcli_result *res);

#endif
