/* The fft strategy on the CPU: tiled overlap-save correlation through FFTW3 single
 * precision.
 *
 * Why FFT: a kw x kh kernel costs kw * kh multiply-adds per output sample directly; a
 * tiled FFT costs about 2 transforms of an N x M tile per (N - kh + 1) x (M - kw + 1)
 * outputs, i.e. O(log(N M)) per output at any kernel size. The planner picks it for
 * large non-separable kernels; it is within one unit of the exact result on integer
 * images, not bit-exact (docs/ALGORITHMS.md).
 *
 * How (overlap-save, per tile and channel):
 *  1. read the tile's input block, rows [y0 - ay, y0 - ay + oh + kh - 1) and columns
 *     [x0 - ax, x0 - ax + ow + kw - 1), borders applied by fxi_padded_row, into an
 *     N x M plane (zero beyond the block), minus a bias (see below);
 *  2. forward real-to-complex 2-D transform;
 *  3. multiply by K = conj(FFT(kernel placed at the origin)) / (N M), made at plan time:
 *     the conjugate turns circular convolution into circular correlation,
 *     c(y, x) = sum w[i][j] * in((y + i) mod N, (x + j) mod M), so outputs with
 *     y <= N - kh and x <= M - kw never wrap and are exact correlations;
 *  4. inverse transform, and store the valid oh x ow corner plus offset + bias * sum(w).
 *
 * Subtracting a bias near the block's mean before the transform (and adding back its
 * response, bias * sum(w), after) keeps the transform's rounding error proportional to
 * the image's local variation rather than to its brightness: on full-range 16-bit noise
 * it cut the outputs that differ from the exact rounding from 0.33% to 0.12%; natural
 * images with large flat areas gain more.
 *
 * Threads: tiles are independent; each worker owns one set of planes and a complex
 * buffer, and FFTW's new-array execute functions are thread-safe on one plan. FFTW's
 * planner is not, so plans are made and destroyed under one process-wide mutex.
 */
#include "filter/fft_sides.h"
#include "filter/filter_internal.h"

#ifndef FXKIT_HAVE_FFTW

bool fxi_fft_available(void)
{
    return false;
}

fx_status fxi_fft_prepare(fx_context *ctx, const fxi_taps *taps, const fx_image_desc *desc,
                          void **state)
{
    (void)taps;
    (void)desc;
    *state = NULL;
    return fxi_error(ctx, FX_EUNSUPPORTED,
                     "the fft strategy needs FFTW3 (libfftw3-dev) at build time; this build "
                     "has none");
}

void fxi_fft_release(void *state)
{
    (void)state;
}

fx_status fxi_filter_fft(const fxi_filter_job *job, void *state)
{
    (void)state;
    return fxi_error(job->ctx, FX_EUNSUPPORTED,
                     "the fft strategy needs FFTW3 (libfftw3-dev) at build time; this build "
                     "has none");
}

#else

#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- tile geometry ----
 *
 * Transform sides are 2^a, 3 * 2^a or 5 * 2^a: FFTW's codelets handle these fastest
 * with FFTW_ESTIMATE plans (measured on the 2-core EPYC: sides with 3^3 or 5^3 factors,
 * such as 216 or 250, ran 1.5-2x slower per point than 256). The side of each
 * dimension is chosen by a cost model, see choose_sides. */
/* Planes start at multiples of this many floats, so every plane has the alignment of
 * the first, which the plans were made for (FFTW's new-array execute needs it). */
#define FFT_PLANE_ALIGN_FLOATS 16

/* FFTW's planner (plan creation and destruction) is not thread-safe. */
static pthread_mutex_t fft_planner_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct fft_worker {
    float *planes;       /* channels planes of plane_stride floats (fftwf_malloc) */
    fftwf_complex *freq; /* n_rows x (n_cols / 2 + 1) (fftwf_malloc) */
    float *row_in;       /* one padded input row, channel-interleaved */
    float *row_out;      /* one output row, channel-interleaved */
} fft_worker;

typedef struct fft_state {
    int n_rows, n_cols;     /* transform size N x M */
    int out_rows, out_cols; /* valid outputs per tile: N - kh + 1, M - kw + 1 */
    int tiles_x, tiles_y;
    int width, height, channels;
    int kw, kh, ax, ay;
    float offset;
    double weight_sum;     /* sum of the taps: the response to a constant */
    size_t plane_stride;   /* floats */
    size_t freq_count;     /* complex values per spectrum */
    fftwf_complex *kernel; /* conj(FFT(kernel)) / (N M) */
    fftwf_plan forward, inverse;
    int workers;
    fft_worker *worker;
} fft_state;

bool fxi_fft_available(void)
{
    return true;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Choose the transform size N x M for a kw x kh kernel on a width x height image with
 * `threads` workers: the pair of nice sides in [kernel, max side] that minimises the
 * modelled time, ceil(tiles / threads) rounds of one tile's cost, where a tile costs
 * N M (log2(N M) + FXI_FFT_IO_LEVELS) per channel, more beyond the cache. This takes big
 * tiles for big images (less overlap: each tile recomputes kernel-1 rows and columns
 * of its neighbours), tiles no bigger than the image plus the kernel for small ones,
 * and enough tiles to keep every thread busy. The largest side considered is
 * FXI_FFT_MAX_SIDE, or twice the kernel where the kernel is larger. */
static void choose_sides(int width, int height, int kw, int kh, int threads, int *n_rows,
                         int *n_cols)
{
    int max_r = fxi_fft_next_nice_side(kh * 2 > FXI_FFT_MAX_SIDE ? kh * 2 : FXI_FFT_MAX_SIDE);
    int max_c = fxi_fft_next_nice_side(kw * 2 > FXI_FFT_MAX_SIDE ? kw * 2 : FXI_FFT_MAX_SIDE);
    /* no tile larger than the whole image plus its halo */
    int whole_r = fxi_fft_next_nice_side(height + kh - 1),
        whole_c = fxi_fft_next_nice_side(width + kw - 1);
    if (max_r > whole_r) max_r = whole_r;
    if (max_c > whole_c) max_c = whole_c;

    double best = -1;
    *n_rows = max_r;
    *n_cols = max_c;
    for (int r = fxi_fft_next_nice_side(kh); r <= max_r; r = fxi_fft_next_nice_side(r + 1)) {
        for (int c = fxi_fft_next_nice_side(kw); c <= max_c; c = fxi_fft_next_nice_side(c + 1)) {
            int64_t tiles = ceil_div(height, r - kh + 1) * ceil_div(width, c - kw + 1);
            double points = (double)r * c;
            double per_point = log2(points) + FXI_FFT_IO_LEVELS;
            if (points > FXI_FFT_CACHE_POINTS) per_point *= FXI_FFT_CACHE_PENALTY;
            double cost = (double)ceil_div(tiles, threads) * points * per_point;
            if (best < 0 || cost < best) {
                best = cost;
                *n_rows = r;
                *n_cols = c;
            }
        }
    }
}

void fxi_fft_release(void *state)
{
    fft_state *s = state;
    if (!s) return;
    pthread_mutex_lock(&fft_planner_lock);
    if (s->forward) fftwf_destroy_plan(s->forward);
    if (s->inverse) fftwf_destroy_plan(s->inverse);
    pthread_mutex_unlock(&fft_planner_lock);
    if (s->worker) {
        for (int i = 0; i < s->workers; i++) {
            fftwf_free(s->worker[i].planes);
            fftwf_free(s->worker[i].freq);
            free(s->worker[i].row_in);
            free(s->worker[i].row_out);
        }
        free(s->worker);
    }
    fftwf_free(s->kernel);
    free(s);
}

/* fftwf_malloc with FX_ENOMEM on failure (count elements of `size` bytes). */
static fx_status fft_alloc(fx_context *ctx, size_t count, size_t size, void **out)
{
    size_t bytes;
    FXI_RETURN_IF(!fxi_mul_size(count, size, &bytes), FX_EOVERFLOW,
                 "fft buffer of %zu x %zu bytes overflows", count, size);
    *out = fftwf_malloc(bytes);
    FXI_RETURN_IF(!*out, FX_ENOMEM, "out of memory for an fft buffer of %zu bytes", bytes);
    return FX_OK;
}

static fx_status fft_prepare(fx_context *ctx, const fxi_taps *taps, const fx_image_desc *desc,
                             fft_state *s)
{
    s->width = desc->width;
    s->height = desc->height;
    s->channels = desc->channels;
    s->kw = taps->kw;
    s->kh = taps->kh;
    s->ax = taps->ax;
    s->ay = taps->ay;
    s->offset = taps->offset;
    s->workers = fx_context_threads(ctx) > 0 ? fx_context_threads(ctx) : 1;

    choose_sides(s->width, s->height, s->kw, s->kh, s->workers, &s->n_rows, &s->n_cols);
    s->out_rows = s->n_rows - s->kh + 1;
    s->out_cols = s->n_cols - s->kw + 1;
    s->tiles_y = (int)ceil_div(s->height, s->out_rows);
    s->tiles_x = (int)ceil_div(s->width, s->out_cols);

    size_t points, half_cols = (size_t)s->n_cols / 2 + 1;
    FXI_RETURN_IF(!fxi_mul_size((size_t)s->n_rows, (size_t)s->n_cols, &points) ||
                     !fxi_mul_size((size_t)s->n_rows, half_cols, &s->freq_count),
                 FX_EOVERFLOW, "fft tile %d x %d overflows", s->n_cols, s->n_rows);
    s->plane_stride =
        (points + FFT_PLANE_ALIGN_FLOATS - 1) / FFT_PLANE_ALIGN_FLOATS * FFT_PLANE_ALIGN_FLOATS;
    size_t plane_floats, row_in_floats, row_out_floats;
    FXI_RETURN_IF(!fxi_mul_size(s->plane_stride, (size_t)s->channels, &plane_floats) ||
                     !fxi_mul_size((size_t)s->n_cols, (size_t)s->channels, &row_in_floats) ||
                     !fxi_mul_size((size_t)s->out_cols, (size_t)s->channels, &row_out_floats),
                 FX_EOVERFLOW, "fft buffers for %d channels overflow", s->channels);

    FXI_TRY(fxi_calloc(ctx, (size_t)s->workers, sizeof *s->worker, (void **)&s->worker));
    for (int i = 0; i < s->workers; i++) {
        fft_worker *w = &s->worker[i];
        FXI_TRY(fft_alloc(ctx, plane_floats, sizeof(float), (void **)&w->planes));
        FXI_TRY(fft_alloc(ctx, s->freq_count, sizeof(fftwf_complex), (void **)&w->freq));
        FXI_TRY(fxi_malloc(ctx, row_in_floats * sizeof(float), (void **)&w->row_in));
        FXI_TRY(fxi_malloc(ctx, row_out_floats * sizeof(float), (void **)&w->row_out));
    }
    FXI_TRY(fft_alloc(ctx, s->freq_count, sizeof(fftwf_complex), (void **)&s->kernel));

    /* FFTW_ESTIMATE: plans in microseconds, and the same plan (so the same results) on
     * every run; FFTW_MEASURE would time candidates and could pick differently. */
    float *plane = s->worker[0].planes;
    fftwf_complex *freq = s->worker[0].freq;
    pthread_mutex_lock(&fft_planner_lock);
    s->forward = fftwf_plan_dft_r2c_2d(s->n_rows, s->n_cols, plane, freq, FFTW_ESTIMATE);
    s->inverse = fftwf_plan_dft_c2r_2d(s->n_rows, s->n_cols, freq, plane, FFTW_ESTIMATE);
    pthread_mutex_unlock(&fft_planner_lock);
    FXI_RETURN_IF(!s->forward || !s->inverse, FX_ENOMEM, "FFTW could not plan a %d x %d transform",
                 s->n_cols, s->n_rows);

    /* The kernel at the origin of a zero plane; its spectrum, conjugated (correlation)
     * and scaled by 1 / (N M) (FFTW's transforms are unnormalised). */
    memset(plane, 0, points * sizeof(float));
    double sum = 0;
    for (int i = 0; i < s->kh; i++) {
        for (int j = 0; j < s->kw; j++) {
            float v = taps->w[(size_t)i * s->kw + j];
            plane[(size_t)i * s->n_cols + j] = v;
            sum += v;
        }
    }
    s->weight_sum = sum;
    fftwf_execute_dft_r2c(s->forward, plane, s->kernel);
    float norm = (float)(1.0 / (double)points);
    for (size_t k = 0; k < s->freq_count; k++) {
        fxi_fft_conj_scale(&s->kernel[k][0], &s->kernel[k][1], norm);
    }
    return FX_OK;
}

fx_status fxi_fft_prepare(fx_context *ctx, const fxi_taps *taps, const fx_image_desc *desc,
                          void **state)
{
    *state = NULL;
    FXI_RETURN_IF(!taps->w, FX_EINVAL, "the fft strategy needs float taps");
    FXI_RETURN_IF(desc->width < 1 || desc->height < 1 || desc->channels < 1 ||
                     desc->channels > FX_MAX_IMAGE_CHANNELS,
                 FX_EINVAL, "fft: bad image shape %dx%d with %d channels", desc->width,
                 desc->height, desc->channels);
    fft_state *s;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *s, (void **)&s));
    fx_status st = fft_prepare(ctx, taps, desc, s);
    if (st != FX_OK) {
        fxi_fft_release(s);
        return st;
    }
    *state = s;
    return FX_OK;
}

typedef struct fft_run {
    const fxi_filter_job *job;
    fft_state *s;
} fft_run;

/* Multiply a spectrum by the kernel's, in place. */
static void modulate(fftwf_complex *restrict x, const fftwf_complex *restrict k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fxi_fft_modulate(&x[i][0], &x[i][1], k[i][0], k[i][1]);
}

/* dst[j] = src[j * stride] - bias: one channel of an interleaved row. Inlined with a
 * constant stride for each channel count. */
static inline void take_channel(float *restrict dst, const float *restrict src, int n, int stride,
                                float bias)
{
    for (int j = 0; j < n; j++)
        dst[j] = src[(size_t)j * stride] - bias;
}

static void take_row(float *restrict dst, const float *restrict src, int n, int chans, float bias)
{
    switch (chans) {
    case 1: take_channel(dst, src, n, 1, bias); break;
    case 2: take_channel(dst, src, n, 2, bias); break;
    case 3: take_channel(dst, src, n, 3, bias); break;
    default: take_channel(dst, src, n, chans, bias); break;
    }
}

/* dst[j * stride] = src[j] + add, the inverse of take_channel. */
static inline void put_channel(float *restrict dst, const float *restrict src, int n, int stride,
                               float add)
{
    for (int j = 0; j < n; j++)
        dst[(size_t)j * stride] = src[j] + add;
}

static void put_row(float *restrict dst, const float *restrict src, int n, int chans, float add)
{
    switch (chans) {
    case 1: put_channel(dst, src, n, 1, add); break;
    case 2: put_channel(dst, src, n, 2, add); break;
    case 3: put_channel(dst, src, n, 3, add); break;
    default: put_channel(dst, src, n, chans, add); break;
    }
}

static void fft_tile(const fxi_filter_job *job, fft_state *s, fft_worker *w, int tile)
{
    const int nc = s->n_cols, chans = s->channels, filtered = job->filter_channels;
    int ty = tile / s->tiles_x, tx = tile % s->tiles_x;
    int y0 = ty * s->out_rows, x0 = tx * s->out_cols;
    int oh = s->height - y0 < s->out_rows ? s->height - y0 : s->out_rows;
    int ow = s->width - x0 < s->out_cols ? s->width - x0 : s->out_cols;
    int in_h = oh + s->kh - 1, in_w = ow + s->kw - 1;
    int64_t first_row = (int64_t)y0 - s->ay;

    /* The bias subtracted from the block: the mean of its middle row, per channel (one
     * extra row read; a separate pass for the block's exact mean cost more than 10% of
     * the run). Not finite (a float image with inf or NaN): no bias; the transform
     * spreads such a sample over the whole tile anyway. */
    float bias[FX_MAX_IMAGE_CHANNELS] = {0};
    fxi_padded_row(job, FXI_ACC_F32, first_row + in_h / 2, x0, (int64_t)x0 + ow, s->ax,
                   s->kw - 1 - s->ax, w->row_in);
    for (int c = 0; c < filtered; c++) {
        double sum = 0;
        for (int j = 0; j < in_w; j++)
            sum += w->row_in[(size_t)j * chans + c];
        float mean = (float)(sum / in_w);
        bias[c] = isfinite(mean) ? mean : 0;
    }

    /* 1. the input block, deinterleaved into one plane per filtered channel */
    for (int r = 0; r < in_h; r++) {
        fxi_padded_row(job, FXI_ACC_F32, first_row + r, x0, (int64_t)x0 + ow, s->ax,
                       s->kw - 1 - s->ax, w->row_in);
        for (int c = 0; c < filtered; c++) {
            float *dst = w->planes + c * s->plane_stride + (size_t)r * nc;
            take_row(dst, w->row_in + c, in_w, chans, bias[c]);
            if (in_w < nc) memset(dst + in_w, 0, (size_t)(nc - in_w) * sizeof(float));
        }
    }
    for (int c = 0; c < filtered; c++) {
        float *plane = w->planes + c * s->plane_stride;
        if (in_h < s->n_rows)
            memset(plane + (size_t)in_h * nc, 0, (size_t)(s->n_rows - in_h) * nc * sizeof(float));
        /* 2-4. transform, correlate with the kernel, transform back */
        fftwf_execute_dft_r2c(s->forward, plane, w->freq);
        modulate(w->freq, s->kernel, s->freq_count);
        fftwf_execute_dft_c2r(s->inverse, w->freq, plane);
    }

    /* the valid corner, interleaved again, plus the offset and the bias's response */
    for (int c = filtered; c < chans; c++)
        for (int j = 0; j < ow; j++)
            w->row_out[(size_t)j * chans + c] = 0; /* not stored: the alpha passes through */
    float add[FX_MAX_IMAGE_CHANNELS] = {0};
    for (int c = 0; c < filtered; c++)
        add[c] = (float)(s->offset + bias[c] * s->weight_sum);
    for (int r = 0; r < oh; r++) {
        for (int c = 0; c < filtered; c++)
            put_row(w->row_out + c, w->planes + c * s->plane_stride + (size_t)r * nc, ow, chans,
                    add[c]);
        fxi_store_row(job, FXI_ACC_F32, y0 + r, x0, (int64_t)x0 + ow, w->row_out);
    }
    if (tx == 0 && filtered < chans) fxi_copy_unfiltered(job, y0, y0 + oh);
}

static void fft_tiles(void *arg, size_t begin, size_t end, int worker)
{
    fft_run *run = arg;
    for (size_t t = begin; t < end; t++)
        fft_tile(run->job, run->s, &run->s->worker[worker], (int)t);
}

fx_status fxi_filter_fft(const fxi_filter_job *job, void *state)
{
    fx_context *ctx = job->ctx;
    fft_state *s = state;
    FXI_RETURN_IF(!s, FX_EINVAL, "fft: the plan has no fft state");
    FXI_RETURN_IF(job->src->width != s->width || job->src->height != s->height ||
                     job->channels != s->channels,
                 FX_EINVAL, "fft: image %dx%d with %d channels, planned for %dx%d with %d",
                 job->src->width, job->src->height, job->channels, s->width, s->height,
                 s->channels);
    FXI_RETURN_IF(fx_context_threads(ctx) > s->workers, FX_EINVAL,
                 "fft: the context has %d threads, the plan buffers for %d",
                 fx_context_threads(ctx), s->workers);
    fft_run run = {job, s};
    fxi_parallel_for(ctx, (size_t)s->tiles_x * (size_t)s->tiles_y, 1, fft_tiles, &run);
    return FX_OK;
}

#endif
