/* The fft strategy on the GPU: tiled overlap-save correlation through cuFFT, the CPU
 * fft's method (src/filter/cpu_fft.c) with the tiles transformed in batches.
 *
 * Per batch of tiles (one plane per tile and filtered channel):
 *  1. pack: each plane is the tile's input block with the borders applied (the
 *     shared formulas of filter/filter_math.h), as floats, minus a bias (the sample at
 *     the block's centre: keeps the transform's rounding error proportional to the
 *     local variation, not to the brightness), zero beyond the block;
 *  2. in-place real-to-complex 2-D transforms of the whole batch (cufftExecR2C);
 *  3. multiply by the kernel's spectrum, conj(FFT(kernel at the origin)) / (N M),
 *     computed once per plan at the tile size;
 *  4. complex-to-real transforms back (cufftExecC2R);
 *  5. extract: the valid (N - kh + 1) x (M - kw + 1) corner of each plane, plus the
 *     offset and the bias's response (bias * sum of taps), rounded and saturated as the
 *     CPU's float path (fxi_finish_float), channels interleaved again; unfiltered
 *     channels (alpha) copied from the input.
 *
 * A pass is cut into up to three regions, each with tiles of its own shape
 * (gpu_fft_geometry.h): the main tiles, and narrower or shorter ones for the strips their
 * whole tiles leave at the right and the bottom.
 *
 * Engines (per shape): a batch buffer, its two cuFFT plans and their shared work area. Engine 0
 * filters device images on the context's stream; engines 1… belong to the band slots
 * (each stream its own, since a cuFFT plan's work area must not be shared by
 * transforms in flight on two streams).
 *
 * C interface (cuFFT's handles are ints); compiled only with CUDA.
 */
#ifndef FXKIT_CUDA_FILTER_FFT_H
#define FXKIT_CUDA_FILTER_FFT_H

#include "filter/gpu_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif
#include "filter/gpu_fft_geometry.h"
#include "filter/gpu_fft_tiles.h"

#define FXI_FFT_ENGINES (FXI_GPU_MAX_STREAMS + 1)
#define FXI_FFT_DEVICE_ENGINE 0

typedef struct fxi_fft_engine {
    int forward, inverse; /* cufftHandle */
    bool made;
    int64_t batch_tiles;
    float *data; /* batch_tiles * planes planes of geom.plane_floats floats */
    void *work;  /* the plans' shared work area */
} fxi_fft_engine;

/* One tile shape's kernel spectrum (its geometry's plane_floats floats: N x (M / 2 + 1)
 * complex) and engines. */
typedef struct fxi_fft_shape {
    float *spectrum;
    fxi_fft_engine engine[FXI_FFT_ENGINES];
} fxi_fft_shape;

typedef struct fxi_gpu_fft {
    fxi_gpu_fft_shapes plan; /* the shapes' sides and batches (gpu_fft_geometry.h) */
    fxi_fft_shape shape[FXI_FFT_SHAPES];
    int64_t height; /* the image's: a band's strip engines are sized for its last band */
    double weight_sum;
} fxi_gpu_fft;

/* One batch of tiles, as the kernels read it (filled by gpu_fft_plan_cuda.c). */
typedef struct fxi_fft_batch {
    fxi_filter_args a;     /* image, borders, output rows [0, a.rows) of the pass */
    fxi_fft_region region; /* the part of the pass these tiles cover */
    int n_rows, n_cols, out_rows, out_cols, planes;
    int64_t row_floats, plane_floats;
    int64_t tiles_x;           /* over the region */
    int64_t first_tile, tiles; /* the batch: the region's tiles [first_tile, first_tile + tiles) */
    float *data;
    const float *spectrum;
    double weight_sum;
} fxi_fft_batch;

/* The tile shapes for this image and kernel under `engine_budget` bytes per engine, the
 * kernel's spectrum for each, and engine 0 for whole-image passes. FX_ENOMEM with a detail when
 * cuFFT or the buffers find no memory even for one tile per batch. The context's GPU is
 * current. */
fx_status fxi_gpu_fft_prepare(fx_context *ctx, const fxi_taps *taps, int64_t width, int64_t height,
                              int filter_channels, size_t engine_budget, fxi_gpu_fft *f);
/* Make engine `index` of every shape for passes of pass_rows output rows, unless made:
 * the batch is the shape's, balanced over its region of such a pass (a strip with no
 * region there: of the whole image's), halved while cuFFT or the allocations run out of
 * memory. */
fx_status fxi_gpu_fft_engine_ready(fx_context *ctx, fxi_gpu_fft *f, int index, int64_t width,
                                   int64_t pass_rows);
void fxi_gpu_fft_engine_drop(fx_context *ctx, fxi_gpu_fft *f, int index);
void fxi_gpu_fft_release(fx_context *ctx, fxi_gpu_fft *f);
/* Filter the pass described by `a` (a->rows output rows) with engine `index`, queued on
 * `stream`. */
fx_status fxi_gpu_fft_pass(fx_context *ctx, fxi_gpu_fft *f, int index, const fxi_filter_args *a,
                           cudaStream_t stream);

/* The kernels (filter_fft.cu); each launch checked. */
fx_status fxi_fft_pack_launch(fx_context *ctx, const fxi_fft_batch *b, cudaStream_t stream);
fx_status fxi_fft_multiply_launch(fx_context *ctx, const fxi_fft_batch *b, cudaStream_t stream);
fx_status fxi_fft_extract_launch(fx_context *ctx, const fxi_fft_batch *b, cudaStream_t stream);
/* spectrum[k] = conj(spectrum[k]) * scale, for `count` complex values. */
fx_status fxi_fft_conjugate_scale_launch(fx_context *ctx, float *spectrum, int64_t count,
                                         float scale, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
