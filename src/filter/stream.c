/* Filtering images larger than memory: rows from a reader to a writer in bands
 * (fx_filter_stream, fx_filter_file; include/fxkit/filter.h).
 *
 * Output rows [y0, y1) depend on input rows [y0 - (kh - 1), y1 + (kh - 1)) at most,
 * whatever the anchor (fxi_band_at with kh - 1 rows either side, clipped to the
 * image). Each band's input is filtered as an image of its own: inside the image its
 * halo holds every row the kept outputs read, and at the image's top and bottom its
 * edges are the image's, where the border rules apply as they would to the whole
 * image (a band holds at least the kernel's height, so a reflection stays inside it).
 * The input rows stay in one buffer of band + 2 halo rows, slid down band after band.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "filter/band.h"
#include "filter/filter_internal.h"
#include "io/writer_thread.h"

/* The bytes of an image of this shape, at its type. */
static uint64_t desc_bytes(const fx_image_desc *d)
{
    return (uint64_t)d->width * (uint64_t)d->channels * (uint64_t)d->height *
           fx_sample_size(d->type);
}

/* Above either device's threshold: an image the library may choose to stream. */
static bool may_stream(uint64_t bytes)
{
    return bytes > FX_FILTER_STREAM_CPU_ABOVE_BYTES || bytes > FX_FILTER_STREAM_GPU_ABOVE_BYTES;
}

/* The library's own choice: small bands on the CPU, where they only save memory
 * traffic and page faults and give the same bytes; small ones on a GPU too, whose bands
 * are pinned (no packing) and overlap the file (include/fxkit/filter.h gives the runs),
 * but large ones above FX_FILTER_STREAM_ABOVE_BYTES (a GPU pays a launch and a wait per
 * band); fft plans whole (its tiles differ in bands, within its rounding). */
static void auto_band(fx_context *ctx, const fx_kernel *kernel, const fx_filter_options *options,
                      const fx_image_desc *desc, uint64_t *above, uint64_t *band)
{
    *above = FX_FILTER_STREAM_ABOVE_BYTES;
    *band = FX_FILTER_STREAM_BAND_BYTES;
    const uint64_t bytes = desc_bytes(desc);
    /* Smaller images are filtered whole either way: no need to resolve the plan's taps. */
    if (!may_stream(bytes)) return;
    if (!ctx || fxi_filter_strategy_for(ctx, kernel, options, desc) == FX_STRATEGY_FFT) return;
    /* FX_DEVICE_AUTO: where the image would go, streamed: its bands then take that
     * choice (stream_image). */
    if (fxi_filter_device_for(ctx, kernel, options, desc, NULL) == FX_DEVICE_CPU) {
        *above = FX_FILTER_STREAM_CPU_ABOVE_BYTES;
        *band = FX_FILTER_STREAM_CPU_BAND_BYTES;
    } else if (bytes <= FX_FILTER_STREAM_ABOVE_BYTES) {
        *above = FX_FILTER_STREAM_GPU_ABOVE_BYTES;
        *band = FX_FILTER_STREAM_GPU_BAND_BYTES;
    }
}

int fx_filter_band_rows(fx_context *ctx, const fx_kernel *kernel, const fx_filter_options *options,
                        const fx_image_desc *desc, int rows)
{
    fx_filter_options defaults;
    if (!options) {
        fx_filter_options_init(&defaults);
        options = &defaults;
    }
    if (!kernel || !desc || desc->height < 1 || options->border == FX_BORDER_WRAP) return 0;
    const uint64_t row_bytes =
        (uint64_t)desc->width * (uint64_t)desc->channels * fx_sample_size(desc->type);
    if (rows <= 0) {
        uint64_t above, band;
        auto_band(ctx, kernel, options, desc, &above, &band);
        if (row_bytes * (uint64_t)desc->height <= above) return 0;
        const uint64_t fit = band / (row_bytes ? row_bytes : 1);
        rows = fit > (uint64_t)desc->height ? desc->height : (int)(fit ? fit : 1);
    }
    /* A band must hold the kernel, so that the border rules at the image's top and
     * bottom see the rows they would see in the whole image. */
    if (rows < kernel->height) rows = kernel->height;
    return rows >= desc->height ? 0 : rows;
}

void fx_filter_stream_options_init(fx_filter_stream_options *o)
{
    memset(o, 0, sizeof *o);
}

/* Rows [first, first + count) of img, as an image of their own (not to be freed). */
static fx_image rows_of(const fx_image *img, int first, int count)
{
    fx_image v = *img;
    v.data = img->data + (size_t)first * img->stride;
    v.height = count;
    return v;
}

/* The plans of the band heights met, kept in a ring. There are four heights at
 * most: the first band's, the inner bands', and those of the last two bands, whose
 * halo below is cut by the image's end (a band holds more rows than its halo). */
enum { BAND_SHAPES = 4 };

/* The output rows of a band: out at the type filtered at, narrow (only when the image
 * is written narrower) at the file's. A band written from another thread
 * (fx_filter_file's writer thread) holds its slot while the next band fills the other. */
typedef struct out_slot {
    fx_image out, narrow;
} out_slot;
enum { OUT_SLOTS = 2 };

/* One streamed image: what is asked, and the buffers (work only when the image is
 * filtered at a wider type than the file's). */
typedef struct streamer {
    fx_context *ctx;
    const fx_kernel *kernel;
    const fx_filter_options *options;
    const fx_filter_stream_options *stream;
    fx_timings *timings;
    int width, height, channels, band_rows;
    fx_sample_type file_type, work_type, out_type;
    fx_image in, work;
    /* Bands on the GPU: in, work and the slots' out are blocks of the context's
     * pinned pool (given back at the end), which go up and come down by DMA as they
     * are, without a copy through staging (gpu_plan_cuda.c). */
    bool pinned;
    void *pinned_block[2 + OUT_SLOTS]; /* in, work and the slots' out */
    size_t pinned_size[2 + OUT_SLOTS];
    int pinned_blocks;
    out_slot slot[OUT_SLOTS];
    int slots;                  /* 1, or OUT_SLOTS with a writer thread */
    fxi_writer_thread *writing; /* NULL: bands are written here, in turn */
    int plan_height[BAND_SHAPES];
    fx_filter_plan *plan[BAND_SHAPES];
    int plans_made; /* the next plan goes to plans_made % BAND_SHAPES */
    char device[FX_FILTER_DEVICE_TEXT]; /* the last band's device and why */
    fxi_device_estimate decided; /* FX_DEVICE_AUTO: the image's device, for every band */
    bool has_decided;
} streamer;

static fx_status plan_for(streamer *s, const fx_image *band, fx_filter_plan **out)
{
    for (int i = 0; i < BAND_SHAPES; i++)
        if (s->plan[i] && s->plan_height[i] == band->height) {
            *out = s->plan[i];
            return FX_OK;
        }
    const int slot = s->plans_made % BAND_SHAPES;
    fx_filter_plan_free(s->plan[slot]);
    s->plan[slot] = NULL;
    const fx_image_desc d = fx_image_desc_of(band);
    FXI_TRY(fxi_filter_plan_create_decided(s->ctx, s->kernel, s->options, &d,
                                           s->has_decided ? &s->decided : NULL, &s->plan[slot]));
    s->plan_height[slot] = band->height;
    s->plans_made++;
    *out = s->plan[slot];
    return FX_OK;
}

/* Decode rows until s->in holds the image's rows up to `end` (it holds
 * [first, first + *have)). */
static fx_status read_until(streamer *s, fx_image_reader *reader, int first, int *have, int end)
{
    fx_context *ctx = s->ctx;
    while (first + *have < end) {
        fx_image at = rows_of(&s->in, *have, end - first - *have);
        int got = 0;
        FXI_TRY(fx_image_reader_read_rows(reader, &at, at.height, &got));
        FXI_RETURN_IF(got == 0, FX_EFORMAT, "the image ends after %d rows", first + *have);
        *have += got;
    }
    return FX_OK;
}

/* Filter one band (its input rows are rows [0, b->in_end - b->in_begin) of s->in) into
 * `slot` and write the rows it keeps, or hand them to the writer thread. */
static fx_status filter_band(streamer *s, const fxi_band *b, out_slot *slot,
                             fx_image_writer *writer, fx_filter_strategy *strategy)
{
    const int rows = (int)(b->in_end - b->in_begin);
    fx_image src = rows_of(&s->in, 0, rows), dst = rows_of(&slot->out, 0, rows);
    if (s->work.data) { /* filtered at a wider type than the file's */
        fx_image wide = rows_of(&s->work, 0, rows);
        FXI_TRY(fx_image_convert(s->ctx, &src, &wide, s->timings));
        src = wide;
    }
    fx_filter_plan *plan;
    FXI_TRY(plan_for(s, &src, &plan));
    *strategy = fx_filter_plan_strategy(plan);
    FXI_TRY(fx_filter_run(plan, &src, &dst, s->timings));
    const char *device = strstr(fx_filter_plan_explain(plan), "; device: ");
    snprintf(s->device, sizeof s->device, "%s", device ? device + strlen("; device: ") : "");
    fx_image kept =
        rows_of(&dst, (int)(b->out_begin - b->in_begin), (int)(b->out_end - b->out_begin));
    if (slot->narrow.data) {
        fx_image n = rows_of(&slot->narrow, 0, kept.height);
        FXI_TRY(fx_image_convert(s->ctx, &kept, &n, s->timings));
        kept = n;
    }
    if (s->writing) return fxi_writer_thread_put(s->writing, &kept);
    const uint64_t t0 = fx_time_ns();
    fx_status st = fx_image_writer_write_rows(writer, &kept);
    if (s->timings) s->timings->encode_ms += fx_elapsed_ms(t0, fx_time_ns());
    return st;
}

static fx_status stream_bands(streamer *s, fx_image_reader *reader, fx_image_writer *writer,
                              fx_filter_strategy *strategy)
{
    const int halo = fx_kernel_height(s->kernel) - 1;
    int first = 0, have = 0; /* s->in holds image rows [first, first + have) */
    for (int64_t i = 0; i * s->band_rows < s->height; i++) {
        const fxi_band b = fxi_band_at(i, s->band_rows, s->height, halo, halo, true);
        /* Slide: drop the rows no band needs any more. */
        const int drop = (int)b.in_begin - first;
        if (drop > 0) {
            memmove(s->in.data, s->in.data + (size_t)drop * s->in.stride,
                    (size_t)(have - drop) * s->in.stride);
            first += drop;
            have -= drop;
        }
        const uint64_t t0 = fx_time_ns();
        fx_status st = read_until(s, reader, first, &have, (int)b.in_end);
        if (s->timings) s->timings->decode_ms += fx_elapsed_ms(t0, fx_time_ns());
        FXI_TRY(st);
        FXI_TRY(filter_band(s, &b, &s->slot[i % s->slots], writer, strategy));
        if (s->stream && s->stream->progress)
            s->stream->progress(s->stream->progress_user, (int)b.out_end, s->height);
    }
    return FX_OK;
}

/* img: `rows` rows of the image's width at `type`, pinned when the bands run on the GPU. */
static fx_status alloc_rows(streamer *s, fx_image *img, int rows, fx_sample_type type)
{
    fx_context *ctx = s->ctx;
    if (!s->pinned) return fx_image_alloc(ctx, img, s->width, rows, s->channels, type);
    const size_t stride = (size_t)s->width * (size_t)s->channels * fx_sample_size(type);
    FXI_RETURN_IF(stride == 0 || (size_t)rows > SIZE_MAX / stride, FX_EOVERFLOW,
                 "filter: %d rows of %zu bytes overflow", rows, stride);
    const int k = s->pinned_blocks;
    FXI_TRY(fxi_gpu_pinned_take(ctx, stride * (size_t)rows, &s->pinned_block[k],
                                &s->pinned_size[k]));
    s->pinned_blocks++;
    *img = (fx_image){.data = s->pinned_block[k],
                      .width = s->width,
                      .height = rows,
                      .channels = s->channels,
                      .type = type,
                      .stride = stride,
                      .memory = FX_MEMORY_HOST};
    return FX_OK;
}

static fx_status alloc_buffers(streamer *s)
{
    const int kh = fx_kernel_height(s->kernel);
    const int64_t rows = (int64_t)s->band_rows + 2 * (int64_t)(kh - 1);
    const int max_rows = rows < s->height ? (int)rows : s->height;
    fx_context *ctx = s->ctx;
    FXI_TRY(alloc_rows(s, &s->in, max_rows, s->file_type));
    if (s->work_type != s->file_type) FXI_TRY(alloc_rows(s, &s->work, max_rows, s->work_type));
    for (int k = 0; k < s->slots; k++) {
        out_slot *o = &s->slot[k];
        FXI_TRY(alloc_rows(s, &o->out, max_rows, s->work_type));
        if (s->out_type != s->work_type)
            FXI_TRY(
                fx_image_alloc(ctx, &o->narrow, s->width, s->band_rows, s->channels, s->out_type));
    }
    return FX_OK;
}

static void streamer_free(streamer *s)
{
    for (int i = 0; i < BAND_SHAPES; i++)
        fx_filter_plan_free(s->plan[i]); /* (waits for its copies) */
    if (s->pinned) {
        for (int k = 0; k < s->pinned_blocks; k++)
            fxi_gpu_pinned_give(s->ctx, s->pinned_block[k], s->pinned_size[k]);
    } else {
        fx_image_free(&s->in);
        fx_image_free(&s->work);
        for (int k = 0; k < OUT_SLOTS; k++)
            fx_image_free(&s->slot[k].out);
    }
    for (int k = 0; k < OUT_SLOTS; k++)
        fx_image_free(&s->slot[k].narrow);
}

/* The bands of one image through the streamer; the caller frees it. */
static fx_status stream_image(streamer *s, fx_image_reader *reader, fx_image_writer *writer,
                              fx_filter_strategy *strategy)
{
    fx_context *ctx = s->ctx;
    FXI_RETURN_IF(!fx_sample_type_name(s->out_type), FX_EINVAL, "filter: output sample type %d",
                  (int)s->out_type);
    const int asked = s->stream ? s->stream->band_rows : 0;
    FXI_RETURN_IF(asked < 0, FX_ERANGE, "filter: %d rows per band", asked);
    const fx_image_desc work = {s->width, s->height, s->channels, s->work_type};
    s->band_rows = fx_filter_band_rows(ctx, s->kernel, s->options, &work, asked);
    if (s->band_rows == 0) s->band_rows = s->height; /* the whole image as one band */
    /* FX_DEVICE_AUTO chose the bands for the image as a whole (auto_band: the CPU's, the
     * GPU's, or the whole image): its bands take that choice rather than each deciding as
     * an image in memory. Bands the caller sized still decide band by band. */
    if (asked <= 0 && fxi_device_auto(ctx) && may_stream(desc_bytes(&work)) &&
        s->options->border != FX_BORDER_WRAP) {
        (void)fxi_filter_device_for(ctx, s->kernel, s->options, &work, &s->decided);
        s->has_decided = true;
    }
    /* One band has nothing to overlap its write with: no second set of rows for it. */
    if (s->band_rows >= s->height) s->slots = 1;
    /* Pinned buffers when the bands go to the GPU: no packing into staging and no
     * unpacking out of it (on the H200, 1 GP RGB PPM gaussian:5, the download stage fell
     * from 150 to 58 ms; the wall time, bound by decode and encode, did not move:
     * docs/BENCHMARKS.md, 2026-11-26). */
    const int halo = fx_kernel_height(s->kernel) - 1;
    const int64_t band_in = (int64_t)s->band_rows + 2 * (int64_t)halo;
    const fx_image_desc band = {s->width, band_in < s->height ? (int)band_in : s->height,
                                s->channels, s->work_type};
    const fx_device_kind band_device =
        s->has_decided ? s->decided.device
                       : fxi_filter_device_for(ctx, s->kernel, s->options, &band, NULL);
    s->pinned = s->band_rows < s->height && band_device == FX_DEVICE_GPU;
    FXI_TRY(alloc_buffers(s));
    return stream_bands(s, reader, writer, strategy);
}

/* fx_filter_stream, with the kept rows handed to `writing` (a writer thread on
 * `writer`, finished here whatever happens) when it is not NULL. */
static fx_status run_stream(fx_context *ctx, const fx_kernel *kernel,
                            const fx_filter_options *options,
                            const fx_filter_stream_options *stream, fx_image_reader *reader,
                            fx_image_writer *writer,
                            fxi_writer_thread *writing, fx_filter_stream_result *result,
                            fx_timings *timings)
{
    fx_image_info info;
    fx_image_reader_info(reader, &info);
    const fx_sample_type out_type = stream && stream->out_type ? stream->out_type : info.type;
    streamer s = {.ctx = ctx,
                  .kernel = kernel,
                  .options = options,
                  .stream = stream,
                  .timings = timings,
                  .width = info.width,
                  .height = info.height,
                  .channels = info.channels,
                  .file_type = info.type,
                  .out_type = out_type,
                  .work_type = out_type > info.type ? out_type : info.type,
                  .slots = writing ? OUT_SLOTS : 1,
                  .writing = writing};
    fx_filter_strategy strategy = FX_STRATEGY_AUTO;
    fx_status st = stream_image(&s, reader, writer, &strategy);
    /* Every band handed over is written before its buffers go. */
    const fx_status written = fxi_writer_thread_finish(writing, st == FX_OK, timings);
    if (st == FX_OK) st = written;
    streamer_free(&s);
    if (st == FX_OK && result) {
        result->band_rows = s.band_rows;
        result->strategy = strategy;
        memcpy(result->device, s.device, sizeof result->device);
    }
    return st;
}

fx_status fx_filter_stream(fx_context *ctx, const fx_kernel *kernel,
                           const fx_filter_options *options, const fx_filter_stream_options *stream,
                           fx_image_reader *reader, fx_image_writer *writer,
                           fx_filter_stream_result *result, fx_timings *timings)
{
    FXI_RETURN_IF(!ctx, FX_EINVAL, "filter: no context");
    FXI_RETURN_IF(!kernel || !reader || !writer, FX_EINVAL,
                  "filter: no kernel, image reader or image writer");
    fx_filter_options defaults;
    if (!options) {
        fx_filter_options_init(&defaults);
        options = &defaults;
    }
    return run_stream(ctx, kernel, options, stream, reader, writer, NULL, result, timings);
}

/* Whether fx_filter_file writes from a thread of its own: with more than one thread
 * asked for, into PGM/PPM/PFM, whose writes are copies into the page cache on the
 * caller's clock (on the dev machine ~60 ms of CPU for a 183 MiB PPM, as much as the
 * filtering: 8000x8000 gaussian:5 to a new name went from ~170 to 130-140 ms with the
 * thread; docs/BENCHMARKS.md, "filter file to file against cp and OpenCV"). A PNG's
 * encoder already works on the context's threads; a JPEG's is encoded at the close. */
static bool write_from_thread(fx_context *ctx, const char *out_path,
                              const fx_image_write_options *write_options)
{
    const fx_image_format fmt = write_options && write_options->format != FX_IMAGE_AUTO
                                    ? write_options->format
                                    : fx_image_format_from_path(out_path);
    return fx_context_threads(ctx) > 1 && (fmt == FX_IMAGE_PNM || fmt == FX_IMAGE_PFM);
}

/* A context for the writer thread: its errors, and threads of its own to copy a band
 * into the file's pages (io/file_parallel.c: one thread writes a 3 GB PPM into the page
 * cache in 1.2-1.5 s on the H200 machine, 16 in 0.2 s), as many as the caller's, which
 * are busy with the next band meanwhile; NULL when it cannot be made (the file is then
 * written on the caller's thread). */
static fx_context *writer_context(fx_context *ctx)
{
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = fx_context_threads(ctx);
    co.limits = *fx_context_limits(ctx);
    fx_context *wctx = NULL;
    return fx_context_create(&co, &wctx) == FX_OK ? wctx : NULL;
}

/* A failure on the writer's own context, told on the caller's. */
static fx_status relayed(fx_context *ctx, fx_context *wctx, fx_status st)
{
    if (st != FX_OK && wctx != ctx) fxi_error(ctx, st, "%s", fx_context_error(wctx));
    return st;
}

fx_status fx_filter_file(fx_context *ctx, const fx_kernel *kernel, const fx_filter_options *options,
                         const fx_filter_stream_options *stream, const char *in_path,
                         const char *out_path, const fx_image_write_options *write_options,
                         fx_filter_stream_result *result, fx_timings *timings)
{
    FXI_RETURN_IF(!ctx, FX_EINVAL, "filter: no context");
    FXI_RETURN_IF(!in_path || !out_path, FX_EINVAL, "filter: no input or output path");
    FXI_RETURN_IF(!kernel, FX_EINVAL, "filter: no kernel");
    fx_filter_options defaults;
    if (!options) {
        fx_filter_options_init(&defaults);
        options = &defaults;
    }
    fx_image_reader *reader;
    const uint64_t t0 = fx_time_ns();
    fx_status st = fx_image_reader_open(ctx, in_path, &reader);
    if (timings) timings->decode_ms += fx_elapsed_ms(t0, fx_time_ns());
    if (st != FX_OK) return st;
    fx_image_info info;
    fx_image_reader_info(reader, &info);
    const fx_sample_type out_type = stream && stream->out_type ? stream->out_type : info.type;
    /* The writer lives on wctx: ctx itself, or a context of its own for a writer thread. */
    fx_context *own = write_from_thread(ctx, out_path, write_options) ? writer_context(ctx) : NULL;
    fx_context *wctx = own ? own : ctx;
    fx_image_writer *writer = NULL;
    st = relayed(ctx, wctx,
                 fx_image_writer_open(wctx, out_path, info.width, info.height, info.channels,
                                      out_type, write_options, &writer));
    fxi_writer_thread *writing = NULL;
    if (st == FX_OK && own) st = fxi_writer_thread_start(ctx, writer, own, &writing);
    if (st == FX_OK)
        st = run_stream(ctx, kernel, options, stream, reader, writer, writing, result, timings);
    if (st == FX_OK)
        st = relayed(ctx, wctx, fx_image_writer_close(writer));
    else
        fx_image_writer_discard(writer);
    fx_image_reader_close(reader);
    fx_context_destroy(own);
    return st;
}
