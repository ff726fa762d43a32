/* fxkit filter on images too large to hold: rows from file to file in bands.
 *
 * Output rows [y0, y1) depend on input rows [y0 - (kh - 1), y1 + (kh - 1)) at most,
 * whatever the anchor. Each band's input (those rows, clipped to the image) is
 * filtered as an image of its own: inside the image its halo holds every row the
 * kept outputs read, and at the image's top and bottom its edges are the image's,
 * where the border rules apply as they would to the whole image. So every kept row
 * has the whole image's bytes, for every border but wrap (which reads the far edge;
 * such images are filtered whole); the fft strategy, whose tiles then differ, stays
 * within its usual rounding of the whole image's result. The input rows stay in one buffer of band + 2 halo
 * rows, slid down band after band; memory is bounded by the bands, not the image.
 */
#include <string.h>

#include "filter_stream.h"

/* Streamed automatically: images of more bytes (at the working type) than this... */
#define STREAM_ABOVE_BYTES ((uint64_t)1 << 30)
/* ... in bands of about this many bytes of input. */
#define STREAM_BAND_BYTES ((uint64_t)64 << 20)

int fxcli_stream_band_rows(int rows_option, int width, int height, int channels,
                           fx_sample_type type, int kernel_height, int border)
{
    if (border == FX_BORDER_WRAP) return 0;
    const uint64_t row_bytes = (uint64_t)width * (uint64_t)channels * fx_sample_size(type);
    int rows = rows_option;
    if (rows == 0) {
        if (row_bytes * (uint64_t)height <= STREAM_ABOVE_BYTES) return 0;
        const uint64_t fit = STREAM_BAND_BYTES / (row_bytes ? row_bytes : 1);
        rows = fit > (uint64_t)height ? height : (int)(fit ? fit : 1);
    }
    /* A band must hold the kernel, so that the border rules at the image's top and
     * bottom see the rows they would see in the whole image. */
    if (rows < kernel_height) rows = kernel_height;
    return rows >= height ? 0 : rows;
}

fxcli_band_rows fxcli_stream_band_at(int y0, int band_rows, int height, int kernel_height)
{
    const int halo = kernel_height - 1;
    fxcli_band_rows b;
    b.out_begin = y0;
    b.out_end = y0 + band_rows < height ? y0 + band_rows : height;
    b.in_begin = y0 - halo > 0 ? y0 - halo : 0;
    b.in_end = b.out_end + halo < height ? b.out_end + halo : height;
    return b;
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
typedef struct shape_plans {
    int height[BAND_SHAPES];
    fx_filter_plan *plan[BAND_SHAPES];
    int made; /* plans made so far; the next goes to made % BAND_SHAPES */
} shape_plans;

static fx_status plan_for(fx_context *ctx, const fxcli_stream_job *job, shape_plans *plans,
                          const fx_image *band, fx_filter_plan **out)
{
    for (int i = 0; i < BAND_SHAPES; i++)
        if (plans->plan[i] && plans->height[i] == band->height) {
            *out = plans->plan[i];
            return FX_OK;
        }
    const int slot = plans->made % BAND_SHAPES;
    fx_filter_plan_free(plans->plan[slot]);
    plans->plan[slot] = NULL;
    fx_image_desc d = {band->width, band->height, band->channels, band->type};
    fx_status st = fx_filter_plan_create(ctx, job->kernel, job->options, &d, &plans->plan[slot]);
    if (st != FX_OK) return st;
    plans->height[slot] = band->height;
    plans->made++;
    *out = plans->plan[slot];
    return FX_OK;
}

/* Decode rows until buf holds the image's rows up to `end` (it holds [first, first + *have)). */
static fx_status read_until(fx_image_reader *reader, fx_image *buf, int first, int *have, int end,
                            fxcli_result *res)
{
    while (first + *have < end) {
        fx_image at = rows_of(buf, *have, end - first - *have);
        int got = 0;
        fx_status st = fx_image_reader_read_rows(reader, &at, at.height, &got);
        if (st != FX_OK) return st;
        if (got == 0) /* the reader ended before its own height */
            return fxcli_fail(res, FX_EFORMAT, "the image ends after %d rows", first + *have);
        *have += got;
    }
    return FX_OK;
}

static fx_status stream_bands(fx_context *ctx, const fxcli_stream_job *job, fx_image_reader *reader,
                              fx_image_writer *writer, fx_image *in, fx_image *work, fx_image *out,
                              fx_image *narrow, fxcli_result *res)
{
    shape_plans plans = {{0}, {NULL}, 0};
    const int height = job->height, kh = job->kernel_height;
    int first = 0, have = 0; /* in holds image rows [first, first + have) */
    fx_status st = FX_OK;
    for (int y0 = 0; st == FX_OK && y0 < height; y0 += job->band_rows) {
        const fxcli_band_rows b = fxcli_stream_band_at(y0, job->band_rows, height, kh);
        /* Slide: drop the rows no band needs any more. */
        const int drop = b.in_begin - first;
        if (drop > 0) {
            memmove(in->data, in->data + (size_t)drop * in->stride, (size_t)(have - drop) * in->stride);
            first += drop;
            have -= drop;
        }
        uint64_t t0 = fx_time_ns();
        st = read_until(reader, in, first, &have, b.in_end, res);
        res->timings.decode_ms += fx_elapsed_ms(t0, fx_time_ns());
        if (st != FX_OK) break;
        const int rows = b.in_end - b.in_begin;
        fx_image src = rows_of(in, 0, rows), dst = rows_of(out, 0, rows);
        if (work->data) { /* filtered at a wider type than the file's */
            fx_image wide = rows_of(work, 0, rows);
            if ((st = fx_image_convert(ctx, &src, &wide, &res->timings)) != FX_OK) break;
            src = wide;
        }
        fx_filter_plan *plan;
        if ((st = plan_for(ctx, job, &plans, &src, &plan)) != FX_OK) break;
        res->strategy = fx_filter_strategy_name(fx_filter_plan_strategy(plan));
        if ((st = fx_filter_run(plan, &src, &dst, &res->timings)) != FX_OK) break;
        fx_image kept = rows_of(&dst, b.out_begin - b.in_begin, b.out_end - b.out_begin);
        if (narrow->data) {
            fx_image n = rows_of(narrow, 0, kept.height);
            if ((st = fx_image_convert(ctx, &kept, &n, &res->timings)) != FX_OK) break;
            kept = n;
        }
        t0 = fx_time_ns();
        st = fx_image_writer_write_rows(writer, &kept);
        res->timings.encode_ms += fx_elapsed_ms(t0, fx_time_ns());
    }
    for (int i = 0; i < BAND_SHAPES; i++)
        fx_filter_plan_free(plans.plan[i]);
    return st;
}

fx_status fxcli_filter_streamed(fx_context *ctx, const fxcli_stream_job *job,
                                fx_image_reader *reader, const char *out_path,
                                const fx_image_write_options *wo, fxcli_result *res)
{
    const int rows = job->band_rows + 2 * (job->kernel_height - 1);
    const int max_rows = rows < job->height ? rows : job->height;
    fx_image in = {0}, work = {0}, out = {0}, narrow = {0};
    fx_image_writer *writer = NULL;
    fx_status st = fx_image_alloc(ctx, &in, job->width, max_rows, job->channels, job->file_type);
    if (st == FX_OK && job->work_type != job->file_type)
        st = fx_image_alloc(ctx, &work, job->width, max_rows, job->channels, job->work_type);
    if (st == FX_OK)
        st = fx_image_alloc(ctx, &out, job->width, max_rows, job->channels, job->work_type);
    if (st == FX_OK && job->out_type != job->work_type)
        st = fx_image_alloc(ctx, &narrow, job->width, job->band_rows, job->channels, job->out_type);
    if (st == FX_OK)
        st = fx_image_writer_open(ctx, out_path, job->width, job->height, job->channels,
                                  job->out_type, wo, &writer);
    if (st == FX_OK) st = stream_bands(ctx, job, reader, writer, &in, &work, &out, &narrow, res);
    if (st == FX_OK) {
        st = fx_image_writer_close(writer);
    } else {
        fx_image_writer_discard(writer);
    }
    fx_image_free(&in);
    fx_image_free(&work);
    fx_image_free(&out);
    fx_image_free(&narrow);
    return st;
}
