/* The GPU fft strategy's plans: geometry, the kernel's spectrum, the cuFFT engines and
 * the sequence of one pass (gpu_fft.h). */
#include <stdlib.h>
#include <string.h>

#include <cufft.h>

#include "filter/gpu_fft.h"

#define MIB ((double)(1 << 20))

static const char *cufft_result_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cuFFT error";
    }
}

/* A failed cuFFT call: FX_ENOMEM when it ran out of memory, FX_ECUDA otherwise. */
static fx_status cufft_error(fx_context *ctx, cufftResult r, const char *call)
{
    (void)cudaGetLastError(); /* cuFFT may leave a runtime error behind */
    if (r == CUFFT_ALLOC_FAILED)
        return fxi_error(ctx, FX_ENOMEM, "GPU out of memory: %s failed (%s)", call,
                         cufft_result_name(r));
    return fxi_error(ctx, FX_ECUDA, "%s failed: %s (%d)", call, cufft_result_name(r), (int)r);
}

#define FX_CUFFT(call)                                                                             \
    do {                                                                                           \
        cufftResult fxi_cufft_r_ = (call);                                                         \
        if (fxi_cufft_r_ != CUFFT_SUCCESS) return cufft_error(ctx, fxi_cufft_r_, #call);           \
    } while (0)

/* In-place 2-D transforms of `batch` planes laid out as the geometry says. */
static fx_status make_plan(fx_context *ctx, const fxi_gpu_fft_geometry *g, int batch, bool forward,
                           cufftHandle *h, size_t *work)
{
    int n[2] = {g->n_rows, g->n_cols};
    int real_embed[2] = {g->n_rows, (int)g->row_floats};
    int complex_embed[2] = {g->n_rows, (int)(g->row_floats / 2)};
    const int real_dist = (int)g->plane_floats, complex_dist = (int)(g->plane_floats / 2);
    FX_CUFFT(cufftSetAutoAllocation(*h, 0));
    if (forward)
        FX_CUFFT(cufftMakePlanMany(*h, 2, n, real_embed, 1, real_dist, complex_embed, 1,
                                   complex_dist, CUFFT_R2C, batch, work));
    else
        FX_CUFFT(cufftMakePlanMany(*h, 2, n, complex_embed, 1, complex_dist, real_embed, 1,
                                   real_dist, CUFFT_C2R, batch, work));
    return FX_OK;
}

static void engine_free(fx_context *ctx, fxi_fft_engine *e)
{
    if (e->made) {
        (void)cufftDestroy(e->forward);
        (void)cufftDestroy(e->inverse);
    }
    fxi_device_free(ctx, e->data);
    fxi_device_free(ctx, e->work);
    memset(e, 0, sizeof *e);
}

void fxi_gpu_fft_engine_drop(fx_context *ctx, fxi_gpu_fft *f, int index)
{
    for (int k = 0; k < FXI_FFT_SHAPES; k++)
        engine_free(ctx, &f->shape[k].engine[index]);
}

static fx_status engine_make(fx_context *ctx, const fxi_gpu_fft_geometry *g, fxi_fft_engine *e,
                             int64_t tiles)
{
    const int batch = (int)(tiles * g->planes);
    FX_CUFFT(cufftCreate(&e->forward));
    cufftResult r = cufftCreate(&e->inverse);
    if (r != CUFFT_SUCCESS) {
        (void)cufftDestroy(e->forward);
        return cufft_error(ctx, r, "cufftCreate (inverse)");
    }
    e->made = true;
    e->batch_tiles = tiles;
    size_t work_f = 0, work_i = 0;
    FXI_TRY(make_plan(ctx, g, batch, true, &e->forward, &work_f));
    FXI_TRY(make_plan(ctx, g, batch, false, &e->inverse, &work_i));
    const size_t data = g->plane_floats * sizeof(float) * (size_t)batch;
    FXI_TRY(fxi_device_alloc(ctx, data, (void **)&e->data));
    FXI_TRY(fxi_device_alloc(ctx, work_f > work_i ? work_f : work_i, &e->work));
    /* planes of a short last batch are transformed but never packed: give them zeros */
    FXI_TRY(fxi_device_memset(ctx, e->data, 0, data));
    if (e->work) { /* none needed: cuFFT wants no area set */
        FX_CUFFT(cufftSetWorkArea(e->forward, e->work));
        FX_CUFFT(cufftSetWorkArea(e->inverse, e->work));
    }
    /* allocated on the context's stream, used on others too */
    return fxi_stream_sync(ctx);
}

/* Engine `index` of shape k for passes of pass_rows rows (gpu_fft.h). */
static fx_status shape_engine_ready(fx_context *ctx, fxi_gpu_fft *f, int k, int index,
                                    int64_t width, int64_t pass_rows)
{
    fxi_fft_engine *e = &f->shape[k].engine[index];
    if (e->made) return FX_OK;
    fxi_gpu_fft_geometry g = f->plan.geom[k];
    fxi_fft_region r[FXI_FFT_SHAPES];
    fxi_gpu_fft_regions(&f->plan, width, pass_rows, r);
    int64_t tiles = fxi_gpu_fft_region_tiles(&g, &r[k]);
    if (tiles < 1) { /* a band with no bottom strip of its own: the last band's */
        fxi_gpu_fft_regions(&f->plan, width, f->height, r);
        tiles = fxi_gpu_fft_region_tiles(&g, &r[k]);
    }
    fxi_gpu_fft_balance(&g, tiles);
    for (tiles = g.batch_tiles;; tiles = (tiles + 1) / 2) {
        fx_status st = engine_make(ctx, &g, e, tiles);
        if (st == FX_OK) return FX_OK;
        engine_free(ctx, e);
        if (st != FX_ENOMEM) return st;
        if (tiles == 1)
            return fxi_error(ctx, FX_ENOMEM,
                             "filter --strategy fft on the GPU: out of GPU memory for cuFFT "
                             "even with one %dx%d tile per batch (%s)",
                             g.n_cols, g.n_rows, fx_context_error(ctx));
        fxi_log(ctx, FX_LOG_INFO,
                "filter fft on the GPU: out of memory with %lld tiles per batch, trying %lld",
                (long long)tiles, (long long)((tiles + 1) / 2));
    }
}

fx_status fxi_gpu_fft_engine_ready(fx_context *ctx, fxi_gpu_fft *f, int index, int64_t width,
                                   int64_t pass_rows)
{
    for (int k = 0; k < FXI_FFT_SHAPES; k++)
        if (f->plan.used[k]) FXI_TRY(shape_engine_ready(ctx, f, k, index, width, pass_rows));
    return FX_OK;
}

/* conj(FFT(kernel at the origin)) / (N M) for shape g, with a one-plane plan of its size. */
static fx_status make_spectrum(fx_context *ctx, const fxi_taps *t, const fxi_gpu_fft_geometry *g,
                               float **spectrum, double *weight_sum)
{
    const size_t bytes = g->plane_floats * sizeof(float);
    float *host;
    FXI_TRY(fxi_malloc(ctx, bytes, (void **)&host));
    *weight_sum = fxi_gpu_fft_kernel_plane(t->w, t->kw, t->kh, g, host);
    fx_status st = fxi_device_alloc(ctx, bytes, (void **)spectrum);
    if (st == FX_OK) st = fxi_copy_h2d(ctx, *spectrum, host, bytes);
    if (st == FX_OK) st = fxi_stream_sync(ctx); /* host is freed below */
    free(host);
    FXI_TRY(st);

    cufftHandle h;
    FX_CUFFT(cufftCreate(&h));
    size_t work = 0;
    void *area = NULL;
    st = make_plan(ctx, g, 1, true, &h, &work);
    if (st == FX_OK) st = fxi_device_alloc(ctx, work, &area);
    if (st == FX_OK) {
        cufftResult r = area ? cufftSetWorkArea(h, area) : CUFFT_SUCCESS;
        if (r == CUFFT_SUCCESS) r = cufftSetStream(h, ctx->cuda->stream);
        if (r == CUFFT_SUCCESS)
            r = cufftExecR2C(h, (cufftReal *)*spectrum, (cufftComplex *)*spectrum);
        if (r != CUFFT_SUCCESS) st = cufft_error(ctx, r, "cufftExecR2C (kernel spectrum)");
    }
    if (st == FX_OK)
        st = fxi_fft_conjugate_scale_launch(ctx, *spectrum, (int64_t)(g->plane_floats / 2),
                                            (float)(1.0 / ((double)g->n_rows * g->n_cols)),
                                            ctx->cuda->stream);
    if (st == FX_OK) st = fxi_stream_sync(ctx); /* before the plan and its area go */
    (void)cufftDestroy(h);
    fxi_device_free(ctx, area);
    return st;
}

fx_status fxi_gpu_fft_prepare(fx_context *ctx, const fxi_taps *taps, int64_t width, int64_t height,
                              int filter_channels, size_t engine_budget, fxi_gpu_fft *f)
{
    memset(f, 0, sizeof *f);
    FXI_RETURN_IF(!taps->w, FX_EINVAL, "the fft strategy needs float taps");
    const char *why;
    FXI_RETURN_IF(!fxi_gpu_fft_plan_shapes(width, height, taps->kw, taps->kh, filter_channels,
                                          engine_budget, &f->plan, &why),
                 FX_ENOMEM,
                 "filter --strategy fft on the GPU: %s (%.1f MiB per fft engine; see "
                 "--gpu-memory)",
                 why, (double)engine_budget / MIB);
    f->height = height;
    static const char *const names[FXI_FFT_SHAPES] = {"", ", right strip", ", bottom strip"};
    for (int k = 0; k < FXI_FFT_SHAPES; k++) {
        if (!f->plan.used[k]) continue;
        const fxi_gpu_fft_geometry *g = &f->plan.geom[k];
        fxi_log(ctx, FX_LOG_INFO,
                "filter fft on the GPU%s: %dx%d tiles (%dx%d outputs), %lld per batch", names[k],
                g->n_cols, g->n_rows, g->out_cols, g->out_rows, (long long)g->batch_tiles);
        FXI_TRY(make_spectrum(ctx, taps, g, &f->shape[k].spectrum, &f->weight_sum));
    }
    return fxi_gpu_fft_engine_ready(ctx, f, FXI_FFT_DEVICE_ENGINE, width, height);
}

void fxi_gpu_fft_release(fx_context *ctx, fxi_gpu_fft *f)
{
    /* the plans' kernels may still be queued on the context's stream */
    (void)cudaStreamSynchronize(ctx->cuda->stream);
    for (int i = 0; i < FXI_FFT_ENGINES; i++)
        fxi_gpu_fft_engine_drop(ctx, f, i);
    for (int k = 0; k < FXI_FFT_SHAPES; k++) {
        fxi_device_free(ctx, f->shape[k].spectrum);
        f->shape[k].spectrum = NULL;
    }
}

/* The tiles of one region with shape k's engine `index`, batch by batch. */
static fx_status region_pass(fx_context *ctx, fxi_gpu_fft *f, int k, int index,
                             const fxi_filter_args *a, const fxi_fft_region *region,
                             cudaStream_t stream)
{
    fxi_fft_engine *e = &f->shape[k].engine[index];
    const fxi_gpu_fft_geometry *g = &f->plan.geom[k];
    FXI_RETURN_IF(!e->made, FX_EBADSTATE, "filter fft on the GPU: engine %d not made", index);
    fxi_fft_batch b;
    memset(&b, 0, sizeof b);
    b.a = *a;
    b.region = *region;
    b.n_rows = g->n_rows;
    b.n_cols = g->n_cols;
    b.out_rows = g->out_rows;
    b.out_cols = g->out_cols;
    b.planes = g->planes;
    b.row_floats = (int64_t)g->row_floats;
    b.plane_floats = (int64_t)g->plane_floats;
    b.tiles_x = fxi_gpu_fft_tiles_x(g, region->width);
    b.data = e->data;
    b.spectrum = f->shape[k].spectrum;
    b.weight_sum = f->weight_sum;
    FX_CUFFT(cufftSetStream(e->forward, stream));
    FX_CUFFT(cufftSetStream(e->inverse, stream));
    const int64_t total = fxi_gpu_fft_region_tiles(g, region);
    for (b.first_tile = 0; b.first_tile < total; b.first_tile += e->batch_tiles) {
        b.tiles = total - b.first_tile < e->batch_tiles ? total - b.first_tile : e->batch_tiles;
        FXI_TRY(fxi_fft_pack_launch(ctx, &b, stream));
        FX_CUFFT(cufftExecR2C(e->forward, (cufftReal *)e->data, (cufftComplex *)e->data));
        FXI_TRY(fxi_fft_multiply_launch(ctx, &b, stream));
        FX_CUFFT(cufftExecC2R(e->inverse, (cufftComplex *)e->data, (cufftReal *)e->data));
        FXI_TRY(fxi_fft_extract_launch(ctx, &b, stream));
    }
    return FX_OK;
}

fx_status fxi_gpu_fft_pass(fx_context *ctx, fxi_gpu_fft *f, int index, const fxi_filter_args *a,
                           cudaStream_t stream)
{
    fxi_fft_region r[FXI_FFT_SHAPES];
    fxi_gpu_fft_regions(&f->plan, a->width, a->rows, r);
    for (int k = 0; k < FXI_FFT_SHAPES; k++)
        if (f->plan.used[k] && r[k].rows > 0 && r[k].width > 0)
            FXI_TRY(region_pass(ctx, f, k, index, a, &r[k], stream));
    return FX_OK;
}
