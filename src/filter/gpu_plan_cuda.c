/* The filter plan on the context's GPU: taps uploaded once, device images filtered
 * where they are, host images streamed through the GPU in row bands.
 *
 * Streaming: each band of output rows needs kh - 1 rows of halo; the band's input rows
 * (borders applied: a row outside the image is the row the border rule names, or a
 * constant row) are packed on the CPU's threads into a pinned staging buffer, copied to
 * the device, filtered, copied back into pinned memory and unpacked into the output
 * rows. Up to FXI_GPU_MAX_STREAMS bands are in flight, each on its own stream with its
 * own staging and device buffers, so the upload of one band, the kernel of another and
 * the download of a third overlap while the CPU packs the next. Band heights come from
 * gpu_geometry.c under the memory cap (--gpu-memory, default a share of what is free);
 * when an allocation still fails the cap is halved and the bands replanned, and only
 * then is out of memory reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_gpu.h"
#include "filter/gpu_fft.h"
#include "filter/gpu_kernels.h"
#include "filter/gpu_u8.h"

#define MIB ((size_t)1 << 20)

typedef struct slot {
    cudaStream_t stream;
    void *dev_in, *dev_out, *dev_work;
    void *pin_in, *pin_out;           /* the band's staging, from the context's pinned pool */
    size_t pin_in_size, pin_out_size; /* their blocks' sizes, for giving them back */
    cudaEvent_t ev[4]; /* before upload, after upload, after compute, after download */
    int64_t band;      /* the band in flight, -1 for none */
} slot;

typedef struct gpu_state {
    fx_context *ctx;
    fx_image_desc desc;
    fx_filter_strategy strategy;
    fxi_filter_args base; /* everything but buffers and rows */
    fxi_gpu_shape shape;
    fxi_gpu_limits lim;
    int kernel, block;
    size_t work_row; /* box: column sums per output row, bytes */
    void *taps, *taps_row, *taps_col;
    fxi_gpu_fft *fft;            /* the fft strategy (filter_fft.h), else NULL */
    char fft_words[192];         /* --explain's words on its tiles */
    size_t fft_budget;           /* bytes of the memory budget set aside for fft engines */
    bool src_pinned, dst_pinned; /* this host run's images are page-locked (run_host) */
    /* device images, 8-bit: the fast path's layout (FXI_U8_NONE: the kernels above) and
     * its taps (gpu_u8.h) */
    int u8_layout;
    fxi_gpu_u8_taps *u8_taps;
    int64_t u8_resident; /* box slide: its blocks the device runs at once (0: unknown) */
    /* a whole device image's one-launch walk (run_device), launched as a graph; made by
     * the first such run, not by the plan: a plan may see only host images (bands, which
     * launch directly), and a graph made for them would be wasted */
    fxi_kernel_graph u8_graph;
    /* batches of device images through the fast path (run_device_batch): the table of
     * their rows, pinned and on the device, room for batch_capacity images; the event
     * marks the last upload from the pinned table, which is rewritten only after it */
    fxi_gpu_u8_image *batch_host, *batch_dev;
    size_t batch_host_size;
    int batch_capacity;
    cudaEvent_t batch_uploaded;
    bool have_bands;
    fxi_gpu_bands bands;
    slot slots[FXI_GPU_MAX_STREAMS];
} gpu_state;

static int kernel_of(fx_filter_strategy s)
{
    switch (s) {
    case FX_STRATEGY_GPU_GLOBAL: return FXI_GK_GLOBAL;
    case FX_STRATEGY_GPU_CONSTANT: return FXI_GK_CONSTANT;
    case FX_STRATEGY_GPU_SHARED: return FXI_GK_SHARED;
    case FX_STRATEGY_GPU_TEXTURE: return FXI_GK_TEXTURE;
    case FX_STRATEGY_SEPARABLE: return FXI_GK_SEPARABLE;
    case FX_STRATEGY_BOX: return FXI_GK_BOX;
    default: return FXI_GK_DIRECT; /* direct; fft has its own pass (filter_fft.h) */
    }
}

static size_t acc_bytes(fxi_acc acc)
{
    return acc == FXI_ACC_I64 ? 8 : 4;
}

/* A weight array in the accumulator's type, uploaded. */
static fx_status upload_weights(fx_context *ctx, fxi_acc acc, const int64_t *num, const float *w,
                                size_t count, void **out)
{
    size_t bytes = count * acc_bytes(acc);
    void *host;
    FXI_TRY(fxi_malloc(ctx, bytes, &host));
    for (size_t i = 0; i < count; i++) {
        if (acc == FXI_ACC_I32)
            ((int32_t *)host)[i] = (int32_t)num[i];
        else if (acc == FXI_ACC_I64)
            ((int64_t *)host)[i] = num[i];
        else
            ((float *)host)[i] = w[i];
    }
    fx_status st = fxi_device_alloc(ctx, bytes, out);
    if (st == FX_OK) st = fxi_copy_h2d(ctx, *out, host, bytes);
    if (st == FX_OK) st = fxi_stream_sync(ctx); /* host is freed below */
    free(host);
    return st;
}

static fx_status query_limits(fx_context *ctx, const fxi_filter_gpu_desc *d, fxi_gpu_limits *l)
{
    const int dev = ctx->cuda->device;
    int shared = 0, gx = 0, gy = 0, tex = 0;
    FX_CUDA(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    FX_CUDA(cudaDeviceGetAttribute(&gx, cudaDevAttrMaxGridDimX, dev));
    FX_CUDA(cudaDeviceGetAttribute(&gy, cudaDevAttrMaxGridDimY, dev));
    FX_CUDA(cudaDeviceGetAttribute(&tex, cudaDevAttrMaxTexture1DLinearWidth, dev));
    size_t free_bytes = 0, total_bytes = 0;
    FX_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    l->shared_bytes = (size_t)shared;
    l->constant_bytes = FXI_GPU_CONSTANT_BYTES;
    /* less the alignment slack a texture may start with (filter.cu) */
    l->texture_elements = (tex > 0 ? tex : ((int64_t)1 << 27)) - FXI_GPU_TEXTURE_ALIGN;
    l->max_grid_x = gx;
    l->max_grid_y = gy;
    l->memory_budget = d->gpu_memory_mib > 0
                           ? (size_t)d->gpu_memory_mib * MIB
                           : (size_t)((double)free_bytes * FXI_GPU_FREE_MEMORY_SHARE);
    l->max_streams = FXI_GPU_MAX_STREAMS;
    return FX_OK;
}

/* The 8-bit fast path's layout for this plan (gpu_u8_geometry.h), and its taps. It
 * serves the separable and box strategies on 8-bit images with exact sums (an alpha kept
 * is copied); the rest runs the general kernels. Device images take every layout; bands
 * of host images the fused one and the box slide (two-pass needs an intermediate the
 * bands do not plan). */
static fx_status prepare_u8(gpu_state *s, const fxi_filter_gpu_desc *d)
{
    const fxi_taps *t = d->taps;
    s->u8_layout = FXI_U8_NONE;
    if (!FXI_GPU_U8_FAST_PATH || d->desc.type != FX_U8 || !t->integer_image ||
        (t->acc != FXI_ACC_I32 && t->acc != FXI_ACC_I64) || t->kw > FXI_GPU_U8_MAX_TAPS ||
        t->kh > FXI_GPU_U8_MAX_TAPS)
        return FX_OK;
    fxi_gpu_u8_kernel k = {t->kw, t->kh, false, true, 0, 0};
    if (s->kernel == FXI_GK_BOX && t->box) {
        k.box = true;
    } else if (s->kernel == FXI_GK_SEPARABLE && t->rank1 && t->num_row && t->num_col) {
        for (int j = 0; j < t->kw; j++) {
            k.nonnegative = k.nonnegative && t->num_row[j] >= 0;
            k.row_sum += (double)t->num_row[j];
        }
        for (int i = 0; i < t->kh; i++) {
            k.nonnegative = k.nonnegative && t->num_col[i] >= 0;
            k.col_sum += (double)t->num_col[i];
        }
    } else {
        return FX_OK;
    }
    const int layout = fxi_gpu_u8_layout_for(&k, FXI_GPU_U8_FUSED_MAX_TAPS);
    if (layout == FXI_U8_NONE) return FX_OK;
    /* device images have the plan's shape: when its geometry does not fit this device,
     * the general kernels run (and --explain does not name the fast path) */
    fxi_gpu_u8_launch g;
    const char *why;
    if (!fxi_gpu_u8_geometry(layout, k.box, d->desc.width, d->desc.channels, d->desc.height,
                             t->kw, t->kh, s->lim.shared_bytes, s->lim.max_grid_x,
                             s->lim.max_grid_y, &g, &why))
        return FX_OK;
    FXI_TRY(fxi_calloc(s->ctx, 1, sizeof *s->u8_taps, (void **)&s->u8_taps));
    fxi_gpu_u8_taps *u = s->u8_taps;
    u->row_bytes = 1;
    for (int j = 0; j < t->kw; j++) {
        u->row[j] = k.box ? 1.0f : (float)t->num_row[j];
        u->row_bytes = u->row_bytes && u->row[j] >= 0.0f && u->row[j] <= 255.0f &&
                       u->row[j] == floorf(u->row[j]);
    }
    for (int i = 0; i < t->kh; i++)
        u->col[i] = k.box ? 1.0f : (float)t->num_col[i];
    u->scale = k.box ? (double)t->num[0] : 1.0;
    const fxi_finish *f = &t->finish;
    u->int_finish = f->mode == FXI_ROUND_MULSHIFT && f->u32_product && u->scale == 1.0;
    if (u->int_finish) {
        u->add = (uint32_t)f->add;
        u->mul = (uint32_t)f->mul;
        u->shift = -ilogb(f->unit);
    }
    u->pair_row_sums = 255.0 * (k.box ? (double)t->kw : k.row_sum) <= 65535.0;
    if (!k.box) fxi_gpu_u8_taps_binomial3(u, t->kw, t->kh);
    if (layout == FXI_U8_BOX_SLIDE)
        s->u8_resident = fxi_filter_u8_box_resident_blocks(d->desc.channels, g.tile_w,
                                                           g.shared_bytes);
    s->u8_layout = layout;
    return FX_OK;
}

/* The fft's tiles in words: "cuFFT on 512x1024 tiles (rows x columns); the right strip's
 * 512x64; the bottom strip's 256x1024". */
static void fft_words(const fxi_gpu_fft_shapes *p, char *out, size_t size)
{
    static const char *const names[FXI_FFT_SHAPES] = {"", "the right strip's",
                                                      "the bottom strip's"};
    const fxi_gpu_fft_geometry *m = &p->geom[FXI_FFT_MAIN];
    int used =
        snprintf(out, size, "GPU: cuFFT on %dx%d tiles (rows x columns)", m->n_rows, m->n_cols);
    for (int k = FXI_FFT_RIGHT; k < FXI_FFT_SHAPES; k++)
        if (p->used[k] && used > 0 && (size_t)used < size)
            used += snprintf(out + used, size - (size_t)used, "; %s %dx%d", names[k],
                             p->geom[k].n_rows, p->geom[k].n_cols);
}

const char *fxi_filter_gpu_kernel_words(const void *state)
{
    const gpu_state *s = state;
    if (!s) return "";
    if (s->fft) return s->fft_words;
    switch (s->u8_layout) {
    case FXI_U8_FUSED:
        return "GPU: 8-bit fused kernel, kw + kh multiply-adds an output (a box's too), exact "
               "FP32 sums";
    case FXI_U8_BOX_SLIDE:
        return "GPU: 8-bit one-pass box, column sums sliding down in registers and each row "
               "window a difference of prefix sums, exact integers";
    case FXI_U8_TWO_PASS:
        return "GPU: 8-bit two-pass multiply-adds, exact FP32 sums (device images; host "
               "images stream in bands through the general kernels)";
    default: return "";
    }
}

static fx_status prepare(gpu_state *s, const fxi_filter_gpu_desc *d)
{
    fx_context *ctx = s->ctx;
    const fxi_taps *t = d->taps;
    FXI_RETURN_IF(!fxi_gpu_block_valid(d->gpu_block), FX_ERANGE,
                 "--gpu-block %d: the GPU variants take 8, 16 or 32", d->gpu_block);
    s->desc = d->desc;
    s->strategy = d->strategy;
    s->kernel = kernel_of(d->strategy);
    s->block = d->gpu_block;
    const size_t sample = fx_sample_size(d->desc.type);
    fxi_gpu_shape *sh = &s->shape;
    sh->width = d->desc.width;
    sh->height = d->desc.height;
    sh->channels = d->desc.channels;
    sh->in_sample = sh->out_sample = (int)sample;
    sh->acc_size = (int)acc_bytes(t->acc);
    sh->kw = t->kw;
    sh->kh = t->kh;
    sh->ax = t->ax;
    sh->ay = t->ay;
    s->work_row = s->kernel == FXI_GK_BOX
                      ? (size_t)(d->desc.width + t->kw - 1) * (size_t)d->desc.channels *
                            (t->acc == FXI_ACC_I32 ? 4u : 8u)
                      : 0;
    FXI_TRY(query_limits(ctx, d, &s->lim));
    const bool fft = d->strategy == FX_STRATEGY_FFT;
    fxi_gpu_launch g;
    const char *why;
    FXI_RETURN_IF(
        !fft && !fxi_gpu_launch_geometry(s->kernel, s->block, sh, sh->height, &s->lim, &g, &why),
        FX_EUNSUPPORTED, "filter --strategy %s on the GPU: %s",
        fx_filter_strategy_name(d->strategy), why);
    if (!fft && g.ring) s->work_row = 0; /* the ring kernels keep their sums in shared memory */
    FXI_RETURN_IF(s->kernel == FXI_GK_BOX && !t->box, FX_EINVAL, "filter: box needs a box kernel");
    FXI_RETURN_IF(s->kernel == FXI_GK_SEPARABLE && !t->rank1, FX_EINVAL,
                 "filter: separable needs a rank-1 kernel");

    const size_t n = (size_t)t->kw * (size_t)t->kh;
    if (!fft) FXI_TRY(upload_weights(ctx, t->acc, t->num, t->w, n, &s->taps));
    if (s->kernel == FXI_GK_SEPARABLE) {
        FXI_TRY(upload_weights(ctx, t->acc, t->num_row, t->w_row, (size_t)t->kw, &s->taps_row));
        FXI_TRY(upload_weights(ctx, t->acc, t->num_col, t->w_col, (size_t)t->kh, &s->taps_col));
    }

    fxi_filter_args *a = &s->base;
    a->src_type = d->desc.type;
    a->width = d->desc.width;
    a->height = d->desc.height;
    a->channels = d->desc.channels;
    a->filter_channels = d->filter_channels;
    a->border = d->border;
    for (int c = 0; c < d->desc.channels; c++)
        a->border_value[c] = d->border_value[c];
    a->kw = t->kw;
    a->kh = t->kh;
    a->ax = t->ax;
    a->ay = t->ay;
    a->acc = t->acc;
    a->taps = s->taps;
    a->taps_row = s->taps_row;
    a->taps_col = s->taps_col;
    a->offset = t->offset;
    a->finish = t->finish;
    a->integer_image = t->integer_image;
    a->maxval = t->maxval;
    a->box_num = t->num[0];
    a->box_w = (double)t->w[0];
    for (int i = 0; i < FXI_GPU_MAX_STREAMS; i++)
        s->slots[i].band = -1;
    if (!fft) FXI_TRY(prepare_u8(s, d));
    if (fft) {
        s->fft_budget = (size_t)((double)s->lim.memory_budget * FXI_GPU_FFT_MEMORY_SHARE);
        FXI_TRY(fxi_calloc(ctx, 1, sizeof *s->fft, (void **)&s->fft));
        FXI_TRY(fxi_gpu_fft_prepare(ctx, t, d->desc.width, d->desc.height, d->filter_channels,
                                   s->fft_budget / FXI_FFT_ENGINES, s->fft));
        fft_words(&s->fft->plan, s->fft_words, sizeof s->fft_words);
    }
    return FX_OK;
}

static void free_slots(gpu_state *s)
{
    fx_context *ctx = s->ctx;
    for (int i = 0; i < FXI_GPU_MAX_STREAMS; i++) {
        slot *sl = &s->slots[i];
        if (sl->stream) (void)cudaStreamSynchronize(sl->stream);
        fxi_device_free(ctx, sl->dev_in);
        fxi_device_free(ctx, sl->dev_out);
        fxi_device_free(ctx, sl->dev_work);
        fxi_pinned_give(ctx, sl->pin_in, sl->pin_in_size);
        fxi_pinned_give(ctx, sl->pin_out, sl->pin_out_size);
        for (int e = 0; e < 4; e++)
            if (sl->ev[e]) (void)cudaEventDestroy(sl->ev[e]);
        if (sl->stream) (void)cudaStreamDestroy(sl->stream);
        memset(sl, 0, sizeof *sl);
        sl->band = -1;
        if (s->fft) fxi_gpu_fft_engine_drop(ctx, s->fft, 1 + i);
    }
    (void)cudaGetLastError();
    s->have_bands = false;
}

fx_status fxi_filter_gpu_prepare(fx_context *ctx, const fxi_filter_gpu_desc *d, void **state)
{
    *state = NULL;
    FXI_TRY(fxi_cuda_require(ctx, "the GPU filter"));
    gpu_state *s;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *s, (void **)&s));
    s->ctx = ctx;
    fxi_device_guard guard;
    fx_status st = fxi_device_enter(ctx, &guard);
    if (st != FX_OK) {
        free(s);
        return st;
    }
    st = prepare(s, d);
    fxi_device_leave(&guard);
    if (st != FX_OK) {
        fxi_filter_gpu_release(s);
        return st;
    }
    *state = s;
    return FX_OK;
}

void fxi_filter_gpu_release(void *state)
{
    gpu_state *s = state;
    if (!s) return;
    fxi_device_guard guard;
    if (fxi_device_enter(s->ctx, &guard) == FX_OK) {
        free_slots(s);
        fxi_device_free(s->ctx, s->taps);
        fxi_device_free(s->ctx, s->taps_row);
        fxi_device_free(s->ctx, s->taps_col);
        if (s->fft) fxi_gpu_fft_release(s->ctx, s->fft);
        fxi_kernel_graph_release(&s->u8_graph);
        if (s->batch_uploaded) (void)cudaEventSynchronize(s->batch_uploaded);
        fxi_pinned_give(s->ctx, s->batch_host, s->batch_host_size);
        fxi_device_free(s->ctx, s->batch_dev);
        if (s->batch_uploaded) (void)cudaEventDestroy(s->batch_uploaded);
        fxi_device_leave(&guard);
    }
    free(s->fft);
    free(s->u8_taps);
    free(s);
}

/* ---- runs ---- */

/* The 8-bit fast path's launch of `layout` over a's rows (false: it does not fit this
 * device). */
static bool u8_launch_for(const gpu_state *s, int layout, const fxi_filter_args *a,
                          fxi_gpu_u8_launch *g)
{
    const char *why;
    if (!fxi_gpu_u8_geometry(layout, s->kernel == FXI_GK_BOX, a->width, a->channels, a->rows,
                             a->kw, a->kh, s->lim.shared_bytes, s->lim.max_grid_x,
                             s->lim.max_grid_y, g, &why))
        return false;
    fxi_gpu_u8_slide_strips(g, a->rows, s->u8_resident, s->lim.max_grid_y);
    fxi_gpu_u8_slide_side(g, a->width, a->channels, a->kw, a->ax);
    return true;
}

/* The plan's arguments for a whole device image src -> dst: one band of virtual rows from
 * -ay (the kernels resolve the border). */
static fxi_filter_args whole_image_args(const gpu_state *s, const fx_image *src,
                                        const fx_image *dst)
{
    fxi_filter_args a = s->base;
    a.src = src->data;
    a.src_stride = src->stride;
    a.resolved = 0;
    a.v0 = -(int64_t)a.ay;
    a.dst = dst->data;
    a.dst_stride = dst->stride;
    a.rows = src->height;
    return a;
}

/* fft_engine: the fft engine of this stream (FXI_FFT_DEVICE_ENGINE, or 1 + the slot). */
static fx_status launch_pass(gpu_state *s, fxi_filter_args *a, cudaStream_t stream, int fft_engine)
{
    fx_context *ctx = s->ctx;
    if (s->fft) return fxi_gpu_fft_pass(ctx, s->fft, fft_engine, a, stream);
    const char *why;
    /* no intermediate: bands of host images too */
    if (s->u8_layout == FXI_U8_FUSED || s->u8_layout == FXI_U8_BOX_SLIDE) {
        fxi_gpu_u8_launch g;
        if (u8_launch_for(s, s->u8_layout, a, &g))
            return fxi_filter_launch_u8(ctx, a, &g, s->u8_taps, NULL, NULL, NULL, stream);
    }
    FXI_RETURN_IF(!fxi_gpu_launch_geometry(s->kernel, s->block, &s->shape, a->rows, &s->lim,
                                          &a->launch, &why),
                 FX_EUNSUPPORTED, "filter --strategy %s on the GPU: %s",
                 fx_filter_strategy_name(s->strategy), why);
    return fxi_filter_launch(ctx, a, stream);
}

static fx_status run_device(gpu_state *s, const fx_image *src, fx_image *dst, fx_timings *t)
{
    fx_context *ctx = s->ctx;
    uint64_t t0 = fx_time_ns();
    fxi_filter_args a = whole_image_args(s, src, dst);
    if (s->kernel == FXI_GK_TEXTURE) {
        const size_t sample = fx_sample_size(src->type);
        FXI_RETURN_IF(src->stride % sample != 0 ||
                         (int64_t)(src->stride / sample) * src->height > s->lim.texture_elements,
                     FX_EUNSUPPORTED,
                     "filter --strategy gpu-texture: this device image is larger than a 1-D "
                     "texture (%lld elements); filter it from host memory (bands) or use "
                     "gpu-global",
                     (long long)s->lim.texture_elements);
    }
    if (s->u8_layout != FXI_U8_NONE) {
        fxi_gpu_u8_launch g;
        if (u8_launch_for(s, s->u8_layout, &a, &g)) {
            void *work = NULL;
            fx_status st = FX_OK;
            if (g.work_bytes) {
                st = fxi_device_buffer(ctx, FXI_BUFFER_IN, g.work_bytes, &work);
                /* the padding rows the columns pass reads and never uses: defined bytes
                 * (compute-sanitizer's initcheck) */
                if (st == FX_OK)
                    st = fxi_device_memset(ctx, (uint8_t *)work + (size_t)g.vrows * g.work_stride,
                                           0, (size_t)(g.work_rows - g.vrows) * g.work_stride);
            }
            if (st == FX_ENOMEM && g.layout == FXI_U8_BOX_SLIDE) {
                /* no room for the slide's edge rows: its edge threads take the border rule */
                fx_context_clear_error(ctx);
                g.work_bytes = 0;
                work = NULL;
                st = FX_OK;
            }
            if (st == FX_OK) {
                /* the graph's key is the images' (fxi_filter_launch_u8): the plan fixes
                 * every other argument (whole_image_args, u8_launch_for, the taps) */
                FXI_TRY(fxi_filter_launch_u8(ctx, &a, &g, s->u8_taps, work, NULL, &s->u8_graph,
                                             ctx->cuda->stream));
                if (t) {
                    FXI_TRY(fxi_stream_sync(ctx));
                    t->compute_ms += fx_elapsed_ms(t0, fx_time_ns());
                }
                return FX_OK;
            }
            if (st != FX_ENOMEM) return st;
            /* no room for the intermediate (twice the image): the general kernels, which
             * need none or less */
            fx_context_clear_error(ctx);
        }
        /* the layout does not fit this device: the general kernels below */
    }
    if (s->work_row) {
        a.work_stride = s->work_row;
        FXI_TRY(fxi_device_buffer(ctx, FXI_BUFFER_IN, s->work_row * (size_t)src->height, &a.work));
    }
    FXI_TRY(launch_pass(s, &a, ctx->cuda->stream, FXI_FFT_DEVICE_ENGINE));
    if (t) {
        FXI_TRY(fxi_stream_sync(ctx));
        t->compute_ms += fx_elapsed_ms(t0, fx_time_ns());
    }
    return FX_OK;
}

static fx_status alloc_slots(gpu_state *s)
{
    fx_context *ctx = s->ctx;
    const fxi_gpu_bands *b = &s->bands;
    for (int i = 0; i < b->streams; i++) {
        slot *sl = &s->slots[i];
        FX_CUDA(cudaStreamCreateWithFlags(&sl->stream, cudaStreamNonBlocking));
        for (int e = 0; e < 4; e++)
            FX_CUDA(cudaEventCreate(&sl->ev[e]));
        FXI_TRY(fxi_device_alloc(ctx, b->in_bytes, &sl->dev_in));
        FXI_TRY(fxi_device_alloc(ctx, b->out_bytes, &sl->dev_out));
        FXI_TRY(fxi_device_alloc(ctx, b->work_bytes, &sl->dev_work));
        FXI_TRY(fxi_pinned_take(ctx, b->in_bytes, &sl->pin_in, &sl->pin_in_size));
        FXI_TRY(fxi_pinned_take(ctx, b->out_bytes, &sl->pin_out, &sl->pin_out_size));
        if (s->fft) FXI_TRY(fxi_gpu_fft_engine_ready(ctx, s->fft, 1 + i, s->shape.width, b->band_h));
    }
    /* The allocations were ordered on the context's stream; the bands use others. */
    return fxi_stream_sync(ctx);
}

/* Plan the bands and allocate their buffers, halving the memory allowed while the
 * device has less than planned. */
static fx_status bands_ready(gpu_state *s)
{
    fx_context *ctx = s->ctx;
    if (s->have_bands) return FX_OK;
    fxi_gpu_limits lim = s->lim;
    lim.memory_budget -= s->fft_budget; /* the fft engines' share (0 without fft) */
    const int64_t n = s->shape.width * s->shape.channels;
    const int64_t max_vrows = s->kernel == FXI_GK_TEXTURE ? lim.texture_elements / n : 0;
    const int64_t tile_rows =
        s->fft ? s->fft->plan.geom[FXI_FFT_MAIN].out_rows : 0; /* fft: whole tile rows */
    const size_t first_budget = lim.memory_budget;
    for (int attempt = 0;; attempt++) {
        const char *why;
        FXI_RETURN_IF(!fxi_gpu_plan_bands(&s->shape, s->work_row, max_vrows, tile_rows, &lim,
                                         &s->bands, &why),
                     FX_ENOMEM, "filter on the GPU: %s (%.1f MiB allowed%s)", why,
                     (double)lim.memory_budget / (double)MIB,
                     lim.memory_budget < first_budget ? ", after out-of-memory retries"
                                                      : "; see --gpu-memory");
        fx_status st = alloc_slots(s);
        if (st == FX_OK) break;
        free_slots(s);
        if (st != FX_ENOMEM || attempt == FXI_GPU_MAX_SHRINKS) return st;
        lim.memory_budget /= 2;
        fxi_log(ctx, FX_LOG_INFO, "filter on the GPU: out of memory, retrying with %.1f MiB",
                (double)lim.memory_budget / (double)MIB);
    }
    fxi_log(ctx, FX_LOG_INFO, "filter on the GPU: %lld bands of %lld rows on %d streams",
            (long long)s->bands.count, (long long)s->bands.band_h, s->bands.streams);
    s->have_bands = true;
    return FX_OK;
}

typedef struct pack_job {
    const gpu_state *s;
    const fx_image *img;
    uint8_t *staging;
    size_t row_bytes;
    int64_t v0; /* pack: first virtual row; unpack: first output row */
    bool unpack;
} pack_job;

/* Rows go with non-temporal stores (fxi_copy_streaming): a band's staging (up to
 * FXI_GPU_BAND_TARGET_BYTES in and out, on FXI_GPU_MAX_STREAMS streams) is larger than
 * the host's last-level cache, so a cached copy's reads of each destination line are
 * pure cost. Measured on the H200 machine (docs/BENCHMARKS.md r47): box:5 to box:255
 * 10000x6000 host to host 7.0-8.7 ms against 7.9-9.9 ms with memcpy. Equalize's
 * smaller bands measured the other way and stay with memcpy (equalize_tuning.h). */
static void pack_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const pack_job *p = arg;
    const fxi_filter_args *a = &p->s->base;
    for (size_t q = begin; q < end; q++) {
        uint8_t *stage = p->staging + q * p->row_bytes;
        if (p->unpack) {
            fxi_copy_streaming(fx_image_row(p->img, (int)(p->v0 + (int64_t)q)), stage,
                               p->row_bytes);
            continue;
        }
        int64_t yy = fxi_border_index(p->v0 + (int64_t)q, a->height, a->border);
        if (yy >= 0) {
            fxi_copy_streaming(stage, fx_image_row(p->img, (int)yy), p->row_bytes);
            continue;
        }
        const int64_t n = a->width * a->channels;
        for (int64_t i = 0; i < n; i++) { /* a constant row */
            double v = a->border_value[i % a->channels];
            switch (a->src_type) {
            case FX_U8: stage[i] = (uint8_t)v; break;
            case FX_U16: ((uint16_t *)(void *)stage)[i] = (uint16_t)v; break;
            default: ((float *)(void *)stage)[i] = (float)v; break;
            }
        }
    }
}

static void copy_rows(gpu_state *s, const fx_image *img, uint8_t *staging, size_t row_bytes,
                      int64_t first, int64_t rows, bool unpack)
{
    pack_job p = {s, img, staging, row_bytes, first, unpack};
    fxi_parallel_for(s->ctx, (size_t)rows, fxi_copy_grain(row_bytes), pack_rows, &p);
}

/* A band's input rows straight from a pinned image (no staging copy): its virtual rows
 * are all rows of the image, in order. */
static bool direct_in(const gpu_state *s, const fx_image *src, const fxi_gpu_band *b)
{
    return s->src_pinned && b->v0 >= 0 && b->v0 + b->vrows <= src->height;
}

static fx_status finish_band(gpu_state *s, slot *sl, fx_image *dst, fx_timings *t)
{
    fx_context *ctx = s->ctx;
    FX_CUDA(cudaStreamSynchronize(sl->stream));
    fxi_gpu_band b = fxi_gpu_band_at(&s->bands, &s->shape, sl->band);
    sl->band = -1;
    uint64_t t0 = t ? fx_time_ns() : 0;
    if (!s->dst_pinned) /* else the rows came down into dst itself */
        copy_rows(s, dst, sl->pin_out, fxi_gpu_out_row_bytes(&s->shape), b.y0, b.y1 - b.y0,
                  true);
    if (t) {
        float up = 0, compute = 0, down = 0;
        FX_CUDA(cudaEventElapsedTime(&up, sl->ev[0], sl->ev[1]));
        FX_CUDA(cudaEventElapsedTime(&compute, sl->ev[1], sl->ev[2]));
        FX_CUDA(cudaEventElapsedTime(&down, sl->ev[2], sl->ev[3]));
        t->upload_ms += up;
        t->compute_ms += compute;
        t->download_ms += down + fx_elapsed_ms(t0, fx_time_ns());
    }
    return FX_OK;
}

static fx_status start_band(gpu_state *s, slot *sl, int64_t index, const fx_image *src,
                            fx_image *dst, fx_timings *t)
{
    fx_context *ctx = s->ctx;
    const fxi_gpu_band b = fxi_gpu_band_at(&s->bands, &s->shape, index);
    const size_t in_row = fxi_gpu_in_row_bytes(&s->shape),
                 out_row = fxi_gpu_out_row_bytes(&s->shape);
    const bool direct = direct_in(s, src, &b);
    uint64_t t0 = t ? fx_time_ns() : 0;
    if (!direct) copy_rows(s, src, sl->pin_in, in_row, b.v0, b.vrows, false);
    if (t) {
        t->upload_ms += fx_elapsed_ms(t0, fx_time_ns());
        FX_CUDA(cudaEventRecord(sl->ev[0], sl->stream));
    }
    if (direct)
        FX_CUDA(cudaMemcpy2DAsync(sl->dev_in, in_row, fx_image_row(src, (int)b.v0), src->stride,
                                  in_row, (size_t)b.vrows, cudaMemcpyHostToDevice, sl->stream));
    else
        FX_CUDA(cudaMemcpyAsync(sl->dev_in, sl->pin_in, (size_t)b.vrows * in_row,
                                cudaMemcpyHostToDevice, sl->stream));
    if (t) FX_CUDA(cudaEventRecord(sl->ev[1], sl->stream));
    fxi_filter_args a = s->base;
    a.src = sl->dev_in;
    a.src_stride = in_row;
    a.resolved = 1;
    a.v0 = b.v0;
    a.dst = sl->dev_out;
    a.dst_stride = out_row;
    a.rows = b.y1 - b.y0;
    a.work = sl->dev_work;
    a.work_stride = s->work_row;
    FXI_TRY(launch_pass(s, &a, sl->stream, 1 + (int)(sl - s->slots)));
    if (t) FX_CUDA(cudaEventRecord(sl->ev[2], sl->stream));
    if (s->dst_pinned)
        FX_CUDA(cudaMemcpy2DAsync(fx_image_row(dst, (int)b.y0), dst->stride, sl->dev_out, out_row,
                                  out_row, (size_t)a.rows, cudaMemcpyDeviceToHost, sl->stream));
    else
        FX_CUDA(cudaMemcpyAsync(sl->pin_out, sl->dev_out, (size_t)a.rows * out_row,
                                cudaMemcpyDeviceToHost, sl->stream));
    if (t) FX_CUDA(cudaEventRecord(sl->ev[3], sl->stream));
    sl->band = index;
    return FX_OK;
}

static fx_status run_host(gpu_state *s, const fx_image *src, fx_image *dst, fx_timings *t)
{
    FXI_TRY(bands_ready(s));
    const fxi_gpu_bands *b = &s->bands;
    /* Pinned images (the streamed filter's band buffers, a caller's page-locked memory)
     * skip the staging copies, two passes over host memory (equalize's same change:
     * hsv host to host 11.4 -> 6.9 ms on the H200). */
    s->src_pinned = fxi_page_locked(src->data);
    s->dst_pinned = fxi_page_locked(dst->data);
    fx_status st = FX_OK;
    for (int64_t i = 0; i < b->count && st == FX_OK; i++) {
        slot *sl = &s->slots[i % b->streams];
        if (sl->band >= 0) st = finish_band(s, sl, dst, t);
        if (st == FX_OK) st = start_band(s, sl, i, src, dst, t);
    }
    for (int64_t i = b->count - b->streams; i < b->count; i++) {
        if (i < 0) continue;
        slot *sl = &s->slots[i % b->streams];
        if (sl->band < 0) continue;
        if (st == FX_OK)
            st = finish_band(s, sl, dst, t);
        else { /* the pinned buffers must be idle before anyone reuses them */
            (void)cudaStreamSynchronize(sl->stream);
            sl->band = -1;
        }
    }
    return st;
}

fx_status fxi_filter_gpu_run(void *state, const fx_image *src, fx_image *dst, fx_timings *t)
{
    gpu_state *s = state;
    fx_context *ctx = s->ctx;
    FXI_TRY(fxi_filter_check_image(ctx, &s->desc, src, "input"));
    FXI_TRY(fxi_filter_check_image(ctx, &s->desc, dst, "output"));
    FXI_RETURN_IF(src->data == dst->data, FX_EINVAL,
                 "filter: input and output must be different buffers");
    FXI_RETURN_IF(src->memory != dst->memory, FX_EINVAL,
                 "filter: the input is in %s memory and the output in %s memory: give two "
                 "device images or two host images",
                 src->memory == FX_MEMORY_DEVICE ? "device" : "host",
                 dst->memory == FX_MEMORY_DEVICE ? "device" : "host");
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    fx_status st =
        src->memory == FX_MEMORY_DEVICE ? run_device(s, src, dst, t) : run_host(s, src, dst, t);
    fxi_device_leave(&guard);
    return st;
}

/* ---- batches (fx_filter_run_batch; the planner has checked every image) ---- */

/* Room for `count` rows in the batch table, on both sides. The pinned table is free to
 * rewrite once its last upload is done. */
static fx_status batch_table_ready(gpu_state *s, int count)
{
    fx_context *ctx = s->ctx;
    if (!s->batch_uploaded)
        FX_CUDA(cudaEventCreateWithFlags(&s->batch_uploaded, cudaEventDisableTiming));
    else
        FX_CUDA(cudaEventSynchronize(s->batch_uploaded));
    if (count <= s->batch_capacity) return FX_OK;
    const int capacity = count > 2 * s->batch_capacity ? count : 2 * s->batch_capacity;
    const size_t bytes = (size_t)capacity * sizeof(fxi_gpu_u8_image);
    fxi_pinned_give(ctx, s->batch_host, s->batch_host_size);
    fxi_device_free(ctx, s->batch_dev); /* stream-ordered: after the launches that read it */
    s->batch_host = s->batch_dev = NULL;
    s->batch_host_size = 0;
    s->batch_capacity = 0;
    FXI_TRY(fxi_pinned_take(ctx, bytes, (void **)&s->batch_host, &s->batch_host_size));
    FXI_TRY(fxi_device_alloc(ctx, bytes, (void **)&s->batch_dev));
    s->batch_capacity = capacity;
    return FX_OK;
}

/* The fast path's batch: the table uploaded with one copy, then one launch a pass for the
 * whole batch (fused), or for each chunk of images whose intermediates fit in
 * FXI_GPU_U8_BATCH_WORK_BYTES (two-pass; the chunks share one buffer, in stream order).
 * false in *done when the layout does not fit this device or two-pass finds no memory
 * for even one image's intermediate: the caller then loops over the images. */
static fx_status run_device_batch_u8(gpu_state *s, const fx_image *src, fx_image *dst, int count,
                                     bool *done)
{
    fx_context *ctx = s->ctx;
    cudaStream_t stream = ctx->cuda->stream;
    *done = false;
    /* (image 0's rows stand in the args, unread: each block takes its image from the table) */
    const fxi_filter_args a = whole_image_args(s, &src[0], &dst[0]);
    fxi_gpu_u8_launch g;
    if (!u8_launch_for(s, s->u8_layout, &a, &g)) return FX_OK;
    int chunk = fxi_gpu_u8_batch_chunk(count, g.work_bytes, FXI_GPU_U8_BATCH_MAX_IMAGES,
                                       FXI_GPU_U8_BATCH_WORK_BYTES);
    void *work = NULL;
    if (g.work_bytes) {
        for (;;) { /* out of memory: halve the chunk, down to one image */
            fx_status st = fxi_device_buffer(ctx, FXI_BUFFER_IN, (size_t)chunk * g.work_bytes, &work);
            if (st == FX_OK) break;
            if (st != FX_ENOMEM) return st;
            fx_context_clear_error(ctx);
            if (chunk == 1) return FX_OK;
            chunk /= 2;
        }
        /* each intermediate's padding rows, which the columns pass reads and never uses:
         * defined bytes (compute-sanitizer's initcheck), one strided memset */
        const size_t pad = (size_t)(g.work_rows - g.vrows) * g.work_stride;
        if (pad)
            FX_CUDA(cudaMemset2DAsync((uint8_t *)work + (size_t)g.vrows * g.work_stride,
                                      g.work_bytes, 0, pad, (size_t)chunk, stream));
    }
    FXI_TRY(batch_table_ready(s, count));
    bool aligned = true;
    for (int i = 0; i < count; i++) {
        fxi_gpu_u8_image *im = &s->batch_host[i];
        im->src = src[i].data;
        im->dst = dst[i].data;
        im->src_stride = src[i].stride;
        im->dst_stride = dst[i].stride;
        aligned = aligned &&
                  (((uintptr_t)src[i].data | (uintptr_t)dst[i].data | src[i].stride | dst[i].stride) %
                   4) == 0;
    }
    FX_CUDA(cudaMemcpyAsync(s->batch_dev, s->batch_host, (size_t)count * sizeof *s->batch_host,
                            cudaMemcpyHostToDevice, stream));
    FX_CUDA(cudaEventRecord(s->batch_uploaded, stream));
    for (int first = 0; first < count; first += chunk) {
        const fxi_gpu_u8_batch b = {s->batch_dev + first,
                                    count - first < chunk ? count - first : chunk, aligned};
        FXI_TRY(fxi_filter_launch_u8(ctx, &a, &g, s->u8_taps, work, &b, NULL, stream));
    }
    *done = true;
    return FX_OK;
}

fx_status fxi_filter_gpu_run_batch(void *state, const fx_image *src, fx_image *dst, int count,
                                   fx_timings *t)
{
    gpu_state *s = state;
    fx_context *ctx = s->ctx;
    if (count < 1) return FX_OK;
    if (src[0].memory != FX_MEMORY_DEVICE) { /* host images: each streamed in bands */
        for (int i = 0; i < count; i++)
            FXI_TRY(fxi_filter_gpu_run(s, &src[i], &dst[i], t));
        return FX_OK;
    }
    fxi_device_guard guard;
    FXI_TRY(fxi_device_enter(ctx, &guard));
    const uint64_t t0 = fx_time_ns();
    bool done = false;
    fx_status st = FX_OK;
    if (s->u8_layout != FXI_U8_NONE) st = run_device_batch_u8(s, src, dst, count, &done);
    /* every other strategy and type: image after image on the context's stream (exact,
     * one launch or more an image: no batching) */
    for (int i = 0; st == FX_OK && !done && i < count; i++)
        st = run_device(s, &src[i], &dst[i], NULL);
    if (st == FX_OK && t) {
        st = fxi_stream_sync(ctx);
        if (st == FX_OK) t->compute_ms += fx_elapsed_ms(t0, fx_time_ns());
    }
    fxi_device_leave(&guard);
    return st;
}
