/* fxkit — image convolution filtering.
 *
 * dst(x, y) = offset + scale * sum over the kernel of w(i, j) * src(x + i - ax, y + j - ay)
 *
 * This is correlation, as OpenCV's filter2D computes it (the kernel is not flipped;
 * `convolve` flips it), with the anchor (ax, ay) at (kw/2, kh/2) unless given, and an
 * output the size of the input. Samples outside the image come from the border rule.
 * Integer outputs round half to even, then saturate (the gaussian preset on integer
 * images rounds half up, as cv2.GaussianBlur's fixed-point path does; the box preset on
 * 8-bit images follows cv2.blur's fixed-point divide: see docs/ALGORITHMS.md).
 *
 * Plan once, run many: fx_filter_plan_create analyses the kernel (rational weights, rank 1,
 * box), chooses a strategy and allocates; fx_filter_run only computes, on images of
 * the planned shape and type. A batch of same-shaped images reuses one plan.
 */
#ifndef FXKIT_FILTER_H
#define FXKIT_FILTER_H

#include "image.h"
#include "image_stream.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels up to this many taps a side (text, presets and C arrays alike). */
#define FX_KERNEL_MAX_SIDE 4096

typedef enum fx_border {
    FX_BORDER_CONSTANT = 0,   /* iiii|abcdefgh|iiii with the border value */
    FX_BORDER_REPLICATE = 1,  /* aaaa|abcdefgh|hhhh */
    FX_BORDER_REFLECT = 2,    /* dcba|abcdefgh|hgfe */
    FX_BORDER_REFLECT101 = 3, /* edcb|abcdefgh|gfed (the default, as OpenCV) */
    FX_BORDER_WRAP = 4        /* efgh|abcdefgh|abcd */
} fx_border;

typedef enum fx_filter_strategy {
    FX_STRATEGY_AUTO = 0,
    FX_STRATEGY_DIRECT = 1,    /* every tap at every pixel, tiled and vectorised */
    FX_STRATEGY_SEPARABLE = 2, /* rank-1 kernels: a row pass, then a column pass */
    FX_STRATEGY_BOX = 3,       /* constant kernels: running sums, O(1) per pixel */
    FX_STRATEGY_FFT = 4,       /* large kernels: tiled FFT convolution (within 1 unit) */
    /* GPU only (--device gpu): the published CUDA variants, one thread per output, with
     * --gpu-block 8|16|32; exact like direct. */
    FX_STRATEGY_GPU_GLOBAL = 5,   /* taps and samples from global memory */
    FX_STRATEGY_GPU_CONSTANT = 6, /* taps in constant memory */
    FX_STRATEGY_GPU_SHARED = 7,   /* input tile with its halo in shared memory */
    FX_STRATEGY_GPU_TEXTURE = 8,  /* samples through a texture object */
    FX_STRATEGY_COUNT
} fx_filter_strategy;

/* "auto", "direct", "separable", "box", "fft", "gpu-global", "gpu-constant", "gpu-shared",
 * "gpu-texture"; NULL for an unknown value. */
FX_API const char *fx_filter_strategy_name(fx_filter_strategy s);
/* "constant", "replicate", "reflect", "reflect101", "wrap"; NULL for an unknown value. */
FX_API const char *fx_border_name(fx_border b);

/* ---- kernels ---- */

typedef struct fx_kernel fx_kernel;

/* Parse kernel text: a preset ("gaussian:5", "box:3x5", "sharpen", see
 * fx_kernel_preset_list) or inline weights: rows separated by ';' or new lines,
 * numbers by spaces or commas, an optional "/ DIVISOR" at the end, '#' starts a
 * comment that runs to the end of the line: "1 2 1; 2 4 2; 1 2 1 / 16". Errors name
 * the problem ("kernel row 2 has 4 numbers, row 1 has 3"). */
FX_API fx_status fx_kernel_parse(fx_context *ctx, const char *text, fx_kernel **out);
/* A preset by name and parameters, e.g. "gaussian:7:1.5", "emboss:h". */
FX_API fx_status fx_kernel_preset(fx_context *ctx, const char *spec, fx_kernel **out);
/* A kernel from row-major weights (width * height doubles, copied). */
FX_API fx_status fx_kernel_create(fx_context *ctx, int width, int height, const double *weights,
                                  fx_kernel **out);
FX_API void fx_kernel_free(fx_kernel *k);

FX_API int fx_kernel_width(const fx_kernel *k);
FX_API int fx_kernel_height(const fx_kernel *k);
/* The kernel's name as given ("gaussian:5", or "custom 3x3"). */
FX_API const char *fx_kernel_name(const fx_kernel *k);
/* The weights as applied to images of this sample type (presets can depend on it:
 * gaussian uses OpenCV's fixed-point weights on integer images), row-major into
 * `weights` (width * height doubles), and the offset added to every output. */
FX_API fx_status fx_kernel_weights(fx_context *ctx, const fx_kernel *k, fx_sample_type type,
                                   double *weights, double *offset);

/* The presets, for --list-kernels: name (with its parameter syntax) and a line of help.
 * Returns the number of presets; index past the end gives NULL strings. */
FX_API int fx_kernel_preset_list(int index, const char **syntax, const char **help);

/* ---- options ---- */

typedef enum fx_alpha_mode {
    FX_ALPHA_KEEP = 0,  /* the alpha of GA/RGBA images passes through unchanged */
    FX_ALPHA_FILTER = 1 /* alpha is filtered like the other channels */
} fx_alpha_mode;

typedef struct fx_filter_options {
    fx_border border;            /* reflect101 */
    const char *border_value;    /* constant border: "V" or "V1,V2,…" per channel, in sample
                                    units (0…255 for 8-bit); NULL or "" = 0 */
    double scale;                /* multiplies the weights (1) */
    double offset;               /* added to every output, in sample units (0) */
    const char *anchor;          /* "X,Y" in the kernel; NULL or "" = (kw/2, kh/2) */
    int convolve;                /* flip the kernel: true convolution (0) */
    fx_alpha_mode alpha;         /* keep */
    fx_filter_strategy strategy; /* auto */
    int gpu_block;               /* GPU variants: threads per block side, 8, 16 or 32 (0 = 16) */
    int gpu_memory_mib;          /* GPU: device memory for streaming bands (0 = what is free) */
} fx_filter_options;

/* The defaults, from the option table. */
FX_API void fx_filter_options_init(fx_filter_options *o);
/* The option table behind fx_filter_options (names, defaults, ranges, help): the
 * command line, its --help and any binding read this one table. */
FX_API const fx_option *fx_filter_options_table(void);

/* ---- plan and run ---- */

typedef struct fx_filter_plan fx_filter_plan;

/* Analyse the kernel, choose the strategy (or check the forced one applies), and
 * allocate. The plan keeps a copy of what it needs; kernel and options may be freed. */
FX_API fx_status fx_filter_plan_create(fx_context *ctx, const fx_kernel *kernel,
                                       const fx_filter_options *options, const fx_image_desc *desc,
                                       fx_filter_plan **out);
/* Filter src into dst (same shape and type as planned; distinct buffers). With
 * timings, compute_ms is added to (on a GPU context also upload_ms and download_ms).
 * On a GPU context src and dst may be device images (fx_image_alloc_device: filtered
 * where they are, no transfer) or host images (streamed through the GPU in row bands);
 * on a CPU context both must be host images. */
FX_API fx_status fx_filter_run(fx_filter_plan *plan, const fx_image *src, fx_image *dst,
                               fx_timings *timings);
/* Filter a batch: src[i] into dst[i] for i < count, every image of the planned shape and
 * type, with the bytes fx_filter_run gives each. The images are all host images or all
 * device images (an image in the other memory: FX_EINVAL naming its index); count == 0
 * does nothing. No output may be another image's input. With timings, compute_ms is
 * added to once for the whole batch (host images on a GPU context: each image's stages,
 * as fx_filter_run adds them).
 * - CPU context: the images in parallel over the context's threads, each image filtered
 *   whole by one thread (many small images keep every core busy without splitting any);
 *   the fft strategy runs image after image, each on all threads.
 * - GPU context, device images: on the 8-bit fast path (separable and box kernels with
 *   exact sums, docs/ALGORITHMS.md) one launch a pass for the whole batch; the two-pass
 *   layout's intermediates take device memory for a chunk of the batch at a time. Other
 *   strategies and types run image after image on the context's stream (exact, one or
 *   more launches an image). Returns with the work queued, as fx_filter_run does (with
 *   timings: finished).
 * - GPU context, host images: each streamed through the GPU as fx_filter_run does. */
FX_API fx_status fx_filter_run_batch(fx_filter_plan *plan, const fx_image *src, fx_image *dst,
                                     int count, fx_timings *timings);
FX_API void fx_filter_plan_free(fx_filter_plan *plan);

/* The strategy the plan runs, and why it was chosen (one line, for --explain), ending
 * with the device and why: "...; device: cpu (auto: cpu ~12 ms, gpu ~19 ms incl. PCIe
 * 2 x 180 MB at 27 GB/s)". On an FX_DEVICE_AUTO context with a GPU each plan runs where
 * the cost model (docs/ALGORITHMS.md, "Choosing the device") expects it to be faster
 * for its shape, assuming host images; a device image given to a CPU plan moves it to
 * the GPU, and a host image the GPU has no memory for runs on the CPU (a warning
 * through the context's log). */
FX_API fx_filter_strategy fx_filter_plan_strategy(const fx_filter_plan *plan);
FX_API const char *fx_filter_plan_explain(const fx_filter_plan *plan);

/* One call: plan, run into dst (allocated here with src's shape; free with
 * fx_image_free), free the plan. */
FX_API fx_status fx_filter(fx_context *ctx, const fx_kernel *kernel,
                           const fx_filter_options *options, const fx_image *src, fx_image *dst);

/* ---- images larger than memory: filtering in bands of rows ----
 *
 * fx_filter_stream reads an image from an fx_image_reader and writes the result to an
 * fx_image_writer (include/fxkit/image_stream.h) a band of rows at a time: memory
 * holds a band with its halo (kh - 1 rows above and below), not the image. Each band
 * is filtered as an image of its own, which inside the image holds every row its
 * outputs read, and at the image's top and bottom has the image's edges, where the
 * border rules apply as they do to the whole image. So every row has the bytes
 * fx_filter gives on the whole image, for every strategy but fft (whose tiles then
 * differ: within its usual rounding) and every border but wrap (which reads the far
 * edge: such images are filtered in one band). */

/* Images of more bytes (at the type filtered at) than this are streamed when the
 * caller leaves the band size to fx_filter_band_rows ... */
#define FX_FILTER_STREAM_ABOVE_BYTES ((uint64_t)1 << 30)
/* ... in bands of about this many bytes of input. On the H200 machine (16 cores), a 1 GP
 * RGB PPM (40000x25000), gaussian:5 file to file on the GPU, 2 rounds each, 2026-11-26:
 * bands of 64 MiB (533 rows) 1.44 / 1.32 s and 875 MB of RSS; 34 MB (280 rows) 1.17 /
 * 1.22 s; 17 MB (140 rows) 1.27 / 1.11 s and 290 MB; 8 MB (70 rows) 1.38 / 1.28 s (the
 * per-band launches and waits: compute 223 ms against 68). The smaller bands stay in the
 * caches from the file's read to the upload and from the download to the write. */
#define FX_FILTER_STREAM_BAND_BYTES ((uint64_t)16 << 20)
/* On a CPU context, with a plan that gives the whole image's bytes in bands (every
 * strategy but fft), from this size on ... */
#define FX_FILTER_STREAM_CPU_ABOVE_BYTES ((uint64_t)16 << 20)
/* ... in bands of about this many bytes. Bands reused from band to band stay in the
 * process's memory, where a whole image's buffers are fresh pages, each faulted in
 * (at 0.5 GB/s on the 2-core development VM). File to file there, gaussian:5, RGB,
 * medians of 7 (min-max), 2026-11-25: a 8000x8000 PPM took 886 ms whole (394-1645),
 * 314 / 318 / 324 / 338 ms in bands of 2 / 4 / 8 / 16 MiB; 5000x5000 170 ms (154-816)
 * whole, 140-150 ms in any of those bands; 4096x2304 (28 MB) 84-183 ms whole, 74-82 ms
 * in bands; PNG, whose decoding dominates, moved by -8% to +32% (8000x8000: 2523 ms
 * whole, 1720 ms in bands; 4096x2304: 272-283 ms whole, 280-299 in bands). */
#define FX_FILTER_STREAM_CPU_BAND_BYTES ((uint64_t)8 << 20)
/* On a GPU context, with a plan that gives the whole image's bytes in bands (every
 * strategy but fft), images from this size up to FX_FILTER_STREAM_ABOVE_BYTES ... */
#define FX_FILTER_STREAM_GPU_ABOVE_BYTES ((uint64_t)16 << 20)
/* ... in bands of about this many bytes, read into and written from the pinned band
 * buffers that go to the GPU (no packing into staging, and the file's decoding and
 * encoding overlap the GPU's work). On the H200 machine (16 cores), 2026-11-26 (runs r16
 * and r18 in docs/BENCHMARKS.md), 200 RGB 4096x2304 PPMs gaussian:31 on gpu:0 file to
 * file, three rounds each: whole images 1.57-1.93 s (the CPU: 1.44-1.70); bands of
 * 2 MiB 0.93-0.99, 3 MiB 0.86-1.02, 4 MiB 1.13-1.14, 6 MiB 1.17-1.31 s. One 10000x6000
 * gaussian:5: whole 0.57-0.71 s, 3 MiB 0.41-0.50, 4 MiB 0.42-0.44, 16 MiB 0.47-0.57
 * (CUDA's start, ~0.3 s, in each). Above FX_FILTER_STREAM_ABOVE_BYTES the bands of
 * FX_FILTER_STREAM_BAND_BYTES stay: the 1 GP image's 4 MiB bands took 1.50-1.67 s
 * against 1.30-1.60 in 16 MiB (each band's launches and waits). */
#define FX_FILTER_STREAM_GPU_BAND_BYTES ((uint64_t)3 << 20)

/* Output rows per band for an image of this shape (desc->type: the type it is filtered
 * at) on this context, or 0 to filter it whole. rows > 0 asks for bands of that many
 * rows, raised to the kernel's height (so that the border rules at the image's top and
 * bottom see the rows they would see in the whole image). rows == 0 leaves the choice
 * to the library: with any strategy but fft, on a CPU context images above
 * FX_FILTER_STREAM_CPU_ABOVE_BYTES in bands of about FX_FILTER_STREAM_CPU_BAND_BYTES, on a
 * GPU context images above FX_FILTER_STREAM_GPU_ABOVE_BYTES (up to
 * FX_FILTER_STREAM_ABOVE_BYTES) in bands of about FX_FILTER_STREAM_GPU_BAND_BYTES;
 * otherwise (larger images on a GPU, fft, or ctx NULL) images above
 * FX_FILTER_STREAM_ABOVE_BYTES in bands of about FX_FILTER_STREAM_BAND_BYTES. The wrap
 * border and images no taller than a band give 0. options may be NULL (the defaults). */
FX_API int fx_filter_band_rows(fx_context *ctx, const fx_kernel *kernel,
                               const fx_filter_options *options, const fx_image_desc *desc,
                               int rows);

/* Called after each band is written: rows_done of the image's rows_total are out. */
typedef void (*fx_filter_progress_fn)(void *user, int rows_done, int rows_total);

typedef struct fx_filter_stream_options {
    int band_rows;                  /* output rows per band; 0 = fx_filter_band_rows's choice,
                                       and the whole image as one band when that is 0 */
    fx_sample_type out_type;        /* type written (0 = the reader's); the image is filtered at
                                       the more precise of the two, converted band by band */
    fx_filter_progress_fn progress; /* NULL: none */
    void *progress_user;            /* passed to progress */
} fx_filter_stream_options;

/* Zeroes: automatic bands, the reader's type, no progress. */
FX_API void fx_filter_stream_options_init(fx_filter_stream_options *o);

/* Room for a plan's device and why ("cpu (auto: cpu ~12 ms, gpu ~19 ms incl. ...)"). */
#define FX_FILTER_DEVICE_TEXT 160

/* What a streamed filter did. */
typedef struct fx_filter_stream_result {
    int band_rows;               /* output rows per band (the image's height: one band) */
    fx_filter_strategy strategy; /* the strategy of the last band's plan */
    char device[FX_FILTER_DEVICE_TEXT]; /* the last band's device and why (an FX_DEVICE_AUTO
                                         * context chooses per plan by cost) */
} fx_filter_stream_result;

/* Filter the reader's remaining image into the writer, band by band. The writer must
 * have been opened with the reader's width, height and channels and stream->out_type
 * (the reader's type when 0); it is neither closed nor discarded here (after an error
 * the caller discards it). stream and result may be NULL. With timings, decode_ms and
 * encode_ms (reading and writing rows) are added to, as fx_filter_run adds its own. */
FX_API fx_status fx_filter_stream(fx_context *ctx, const fx_kernel *kernel,
                                  const fx_filter_options *options,
                                  const fx_filter_stream_options *stream, fx_image_reader *reader,
                                  fx_image_writer *writer, fx_filter_stream_result *result,
                                  fx_timings *timings);

/* File to file through fx_filter_stream: opens in_path, writes out_path (format from
 * write_options or its extension; write_options may be NULL), closes both. On failure
 * nothing is left at out_path. Opening the reader counts as decode_ms. A PGM/PPM/PFM
 * output on a context of more than one thread is written from a thread of this call's
 * own while the next band is read and filtered (one more band of output rows in memory);
 * encode_ms is then that thread's time, which overlaps decode_ms and compute_ms. */
FX_API fx_status fx_filter_file(fx_context *ctx, const fx_kernel *kernel,
                                const fx_filter_options *options,
                                const fx_filter_stream_options *stream, const char *in_path,
                                const char *out_path, const fx_image_write_options *write_options,
                                fx_filter_stream_result *result, fx_timings *timings);

#ifdef __cplusplus
}
#endif
#endif
