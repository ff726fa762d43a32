/* The filter job's internals: kernels, resolved taps, plans, strategies. */
#ifndef FXKIT_FILTER_INTERNAL_H
#define FXKIT_FILTER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/device_cost.h"
#include "core/internal.h"
#include "filter/filter_math.h"
#include "fxkit/filter.h"

/* ---- kernels as given ---- */

typedef enum fxi_kernel_kind {
    FXI_KERNEL_WEIGHTS = 0, /* explicit weights (text, C array, most presets) */
    FXI_KERNEL_GAUSSIAN,    /* weights depend on the sample type (OpenCV's rules) */
} fxi_kernel_kind;

/* Weights with an exact form: numerators over one denominator. */
typedef struct fxi_rational {
    int64_t *num; /* width * height, row-major */
    int64_t den;  /* > 0 */
} fxi_rational;

struct fx_kernel {
    int width, height;
    char name[64];
    fxi_kernel_kind kind;
    double *weights;         /* row-major, the values applied (num / den when rational) */
    bool rational;           /* num/den below are valid */
    fxi_rational exact;      /* the weights exactly, when rational */
    bool box;                /* the box preset: cv2.blur's rounding on 8-bit images */
    bool mid_offset;         /* emboss: add mid-scale (128, 32768, 0.5) to every output */
    double sigma_x, sigma_y; /* gaussian: <= 0 means from the size */
};

/* An empty kernel of this size with weight storage (and exact storage when
 * `rational`), named `name`. */
fx_status fxi_kernel_new(fx_context *ctx, int width, int height, bool rational, const char *name,
                         fx_kernel **out);

/* 1-D Gaussian weights as OpenCV computes them for this sample type: integer images
 * get the fixed-point weights of cv2.GaussianBlur (numerators over 2^bits, bits = 8
 * for u8 and 16 for u16); float images getGaussianKernel's float values (in dbl,
 * each rounded to float). */
void fxi_gaussian_fixed(int n, double sigma, int bits, double *scratch, int64_t *num);
void fxi_gaussian_float(int n, double sigma, double *w);

/* --anchor "X,Y" (NULL or "": keep *ax, *ay), checked against the kernel's size. */
fx_status fxi_parse_anchor(fx_context *ctx, const char *text, int kw, int kh, int *ax, int *ay);
/* --border-value "V" or "V1,…,VC" into `channels` values (NULL or "": zeros). */
fx_status fxi_parse_border_value(fx_context *ctx, const char *text, int channels, double *values);

/* Does spec start with a preset's name? */
bool fxi_is_preset(const char *spec);

/* ---- taps resolved for one plan (sample type, scale, offset, anchor, flip) ---- */

typedef enum fxi_acc {
    FXI_ACC_I32 = 0, /* exact, every partial sum fits in int32 */
    FXI_ACC_I64,     /* exact, in int64 (below 2^53, so the finish is exact in double) */
    FXI_ACC_F32,     /* float accumulation with fused multiply-adds, fixed tap order */
    FXI_ACC_RAW,     /* (padded rows only) the image's own samples, unconverted */
    FXI_ACC_F32X     /* exact sums held in floats (taps->float_exact): finished as exact */
} fxi_acc;

typedef struct fxi_taps {
    int kw, kh; /* size */
    int ax, ay; /* anchor */
    fxi_acc acc;
    /* exact: numerators (row-major), and the rank-1 factors num = col[i] * row[j] */
    int64_t *num;
    int64_t *num_row, *num_col; /* NULL unless rank 1 */
    /* float: weights (row-major), and the rank-1 factors w = col[i] * row[j] */
    float *w;
    float *w_row, *w_col; /* NULL unless rank 1 (within float precision) */
    float offset;         /* float path: added to every output */
    fxi_finish finish;    /* exact path */
    bool box;             /* every tap the same (non-zero) */
    bool rank1;
    int nonzero;        /* taps that are not zero */
    int32_t *nz;        /* their row-major indices: the one tap order every strategy keeps */
    bool integer_image; /* u8/u16: round and saturate outputs */
    /* Exact taps whose every partial sum stays below 2^24: float arithmetic on whole
     * numbers is then exact too, and the CPU's loops use it (8 lanes of FMA instead of
     * 32-bit multiplies). num_f, num_row_f and num_col_f hold the numerators as floats. */
    bool float_exact;
    float *num_f, *num_row_f, *num_col_f;
    float maxval; /* 255, 65535 (integer images) */
} fxi_taps;

/* Resolve kernel + options for images of `type` whose rows hold `row_elements` samples
 * (width * channels: where cv2.blur's scalar row tail starts; 0 when there is no image)
 * into taps (allocated; free with fxi_taps_free). */
fx_status fxi_taps_resolve(fx_context *ctx, const fx_kernel *k, const fx_filter_options *o,
                           fx_sample_type type, int64_t row_elements, fxi_taps *t);
void fxi_taps_free(fxi_taps *t);
/* The strategy a plan would take (auto resolved), without building one; AUTO when the
 * kernel and options do not resolve (the plan then reports why). */
fx_filter_strategy fxi_filter_strategy_for(fx_context *ctx, const fx_kernel *kernel,
                                           const fx_filter_options *o, const fx_image_desc *d);
/* The device a host image of shape d streamed from a file to a file would run on
 * (FX_DEVICE_AUTO's cost model, core/device_cost.h: CPU bands against the GPU's whole
 * image; the context's device otherwise), without building a plan or marking the
 * context; e (may be NULL) gets the estimates. */
fx_device_kind fxi_filter_device_for(fx_context *ctx, const fx_kernel *kernel,
                                     const fx_filter_options *o, const fx_image_desc *d,
                                     fxi_device_estimate *e);
/* fx_filter_plan_create, with the device already decided for the whole the plan is part
 * of (decided NULL: the plan's own choice; a GPU-only strategy chooses for itself). */
fx_status fxi_filter_plan_create_decided(fx_context *ctx, const fx_kernel *kernel,
                                         const fx_filter_options *options,
                                         const fx_image_desc *desc,
                                         const fxi_device_estimate *decided,
                                         fx_filter_plan **out);

/* ---- strategies ---- */

typedef struct fxi_filter_job {
    fx_context *ctx;
    const fxi_taps *taps;
    int border;
    double border_value[FX_MAX_IMAGE_CHANNELS]; /* in sample units */
    int channels;                               /* channels of the image */
    int filter_channels; /* the first channels filtered (the alpha may pass through) */
    const fx_image *src;
    fx_image *dst;
} fxi_filter_job;

/* Work geometry and per-worker scratch of the direct, separable and box strategies,
 * chosen and allocated at plan time: the image is cut into bands of band_h rows and
 * tiles of tile_w columns; each worker owns worker_bytes of scratch. */
typedef struct fxi_cpu_state {
    int tile_w, band_h;
    size_t worker_bytes;
    int workers;
    uint8_t *scratch; /* workers * worker_bytes */
} fxi_cpu_state;

/* Geometry (tile, band, scratch per worker) for images of `width` columns. */
fx_status fxi_direct_geometry(fx_context *ctx, const fxi_taps *t, int width, int height,
                              int channels, fxi_cpu_state *s);
fx_status fxi_separable_geometry(fx_context *ctx, const fxi_taps *t, int width, int height,
                                 int channels, fxi_cpu_state *s);
fx_status fxi_box_geometry(fx_context *ctx, const fxi_taps *t, int width, int height, int channels,
                           fxi_cpu_state *s);

/* Every strategy: filter job->src into job->dst on the context's threads. */
fx_status fxi_filter_direct(const fxi_filter_job *job, void *state);
fx_status fxi_filter_separable(const fxi_filter_job *job, void *state);
fx_status fxi_filter_box(const fxi_filter_job *job, void *state);
fx_status fxi_filter_fft(const fxi_filter_job *job, void *state);

/* FFT strategy: state made at plan time (transforms of the kernel, FFTW plans); NULL
 * state and FX_EUNSUPPORTED with a detail in a build without FFTW. */
bool fxi_fft_available(void);
fx_status fxi_fft_prepare(fx_context *ctx, const fxi_taps *taps, const fx_image_desc *desc,
                          void **state);
void fxi_fft_release(void *state);

/* ---- padded rows: the one place where borders are applied on the CPU ---- */

/* Row `y` (any integer) of channel-interleaved samples, columns [x0 - left, x1 + right)
 * of the image in image coordinates, with the border rule applied in both directions,
 * converted to int32, int64 or float by `acc` (int32 and int64 hold integer samples,
 * float the sample value as float), written to out. */
void fxi_padded_row(const fxi_filter_job *job, fxi_acc acc, int64_t y, int64_t x0, int64_t x1,
                    int left, int right, void *out);
/* The same row, without a copy when it can be read in place: raw samples (or float
 * samples of a float image) whose columns lie inside the image. Returns the pointer to
 * read (into the image, or `out` after filling it). */
const void *fxi_padded_row_view(const fxi_filter_job *job, fxi_acc acc, int64_t y, int64_t x0,
                                int64_t x1, int left, int right, void *out);
/* Bytes of one element of the working type. */
size_t fxi_acc_size(fxi_acc acc);

/* Copy channels that are not filtered (alpha) from src to dst for rows [y0, y1). */
void fxi_copy_unfiltered(const fxi_filter_job *job, int y0, int y1);

/* Store a row of accumulated values into dst row y, columns [x0, x1) (all channels
 * interleaved, (x1 - x0) * channels values): exact sums (I32, I64) through the taps'
 * finish rule; float accumulators (F32) rounded and saturated on integer images, as
 * they are on float images. Only the filtered channels are written. */
void fxi_store_row(const fxi_filter_job *job, fxi_acc acc, int y, int64_t x0, int64_t x1,
                   const void *values);

/* An image handed to a plan's run: pixels, the plan's shape and type, a stride that holds
 * a row (FX_EINVAL naming `which`, "input" or "output"). */
fx_status fxi_filter_check_image(fx_context *ctx, const fx_image_desc *d, const fx_image *img,
                                 const char *which);

#endif
