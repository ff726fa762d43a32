/* Filtering in bands through the library (fx_filter_file, fx_filter_stream) against
 * fx_filter on the whole image in memory: the same bytes for every band size (bands
 * asked smaller than the kernel included), border, anchor and exact strategy, with the
 * image widened or narrowed on the way; the progress callback; a truncated input. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fxtest.h"

typedef struct image_case {
    int w, h, channels;
    fx_sample_type file_type, out_type;
    const char *in_name, *out_name;
} image_case;

static const image_case images[] = {
    {29, 31, 3, FX_U8, FX_U8, "rgb8.ppm", "rgb8_out.ppm"},
    {17, 26, 1, FX_U16, FX_U8, "gray16.pgm", "gray16_to_8.pgm"}, /* narrowed after */
    {23, 19, 1, FX_U8, FX_F32, "gray8.pgm", "gray8_to_f.pfm"},   /* widened before */
    {11, 20, 4, FX_U16, FX_U16, "rgba16.png", "rgba16_out.png"}, /* PNG rows */
};

typedef struct kernel_case {
    const char *text, *anchor;
    fx_filter_strategy strategy;
} kernel_case;

static const kernel_case kernels[] = {
    {"gaussian:5", NULL, FX_STRATEGY_AUTO},
    {"1;2;3;4;5;6;7 / 28", "0,1", FX_STRATEGY_DIRECT}, /* 7 tall, anchored near the top */
    {"box:3x5", NULL, FX_STRATEGY_BOX},
    {"sharpen", "2,2", FX_STRATEGY_DIRECT},
    {"1 2 1; 2 4 2; 1 2 1 / 16", "1,0", FX_STRATEGY_SEPARABLE},
};

static const int asked_rows[] = {1, 2, 3, 5, 8, 0};

#define COUNT(a) (int)(sizeof(a) / sizeof *(a))

/* Entries in a folder, "." and ".." aside (hidden temporaries count). */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static fx_image random_image(fx_context *ctx, const image_case *c, uint64_t seed)
{
    fx_image img;
    fx_image_alloc(ctx, &img, c->w, c->h, c->channels, c->file_type);
    for (int y = 0; y < c->h; y++) {
        uint8_t *row = fx_image_row(&img, y);
        for (int i = 0; i < c->w * c->channels; i++) {
            const uint64_t r = fxt_rand(&seed);
            if (c->file_type == FX_U8)
                row[i] = (uint8_t)(r >> 56);
            else
                ((uint16_t *)(void *)row)[i] = (uint16_t)(r >> 48);
        }
    }
    return img;
}

/* Convert img to type t in place. */
static fx_status convert_to(fx_context *ctx, fx_image *img, fx_sample_type t)
{
    if (img->type == t) return FX_OK;
    fx_image c;
    fx_status st = fx_image_alloc(ctx, &c, img->width, img->height, img->channels, t);
    if (st == FX_OK) st = fx_image_convert(ctx, img, &c, NULL);
    fx_image_free(img);
    *img = c;
    return st;
}

/* The reference: the whole image, filtered at the more precise type, then narrowed. */
static fx_status whole_image(fx_context *ctx, const fx_kernel *k, const fx_filter_options *o,
                             const fx_image *in, fx_sample_type out_type, fx_image *out)
{
    fx_image src = {0};
    const fx_sample_type work = out_type > in->type ? out_type : in->type;
    fx_status st = fx_image_alloc(ctx, &src, in->width, in->height, in->channels, in->type);
    for (int y = 0; st == FX_OK && y < in->height; y++)
        memcpy(fx_image_row(&src, y), fx_image_row(in, y),
               (size_t)in->width * in->channels * fx_sample_size(in->type));
    if (st == FX_OK) st = convert_to(ctx, &src, work);
    if (st == FX_OK) st = fx_filter(ctx, k, o, &src, out);
    if (st == FX_OK) st = convert_to(ctx, out, out_type);
    fx_image_free(&src);
    return st;
}

static int expected_rows(int asked, int kh, int height, fx_border border)
{
    if (border == FX_BORDER_WRAP || asked == 0) return height; /* wrap; small: one band */
    const int rows = asked < kh ? kh : asked;
    return rows >= height ? height : rows;
}

FXT_TEST(bands_match_the_whole_image)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    const char *dir = fxt_tmpdir("filter_stream");
    int checked = 0;
    for (int ic = 0; ic < COUNT(images); ic++) {
        const image_case *c = &images[ic];
        fx_image in = random_image(ctx, c, 17 + (uint64_t)ic);
        char in_path[512], out_path[512]; /* fxt_path's buffers rotate */
        snprintf(in_path, sizeof in_path, "%s", fxt_path(dir, c->in_name));
        snprintf(out_path, sizeof out_path, "%s", fxt_path(dir, c->out_name));
        if (!FXT_CHECK_OK(fx_image_write_file(ctx, in_path, &in, NULL), ctx)) return;
        for (int kc = 0; kc < COUNT(kernels); kc++) {
            fx_kernel *k;
            if (!FXT_CHECK_OK(fx_kernel_parse(ctx, kernels[kc].text, &k), ctx)) return;
            for (int b = 0; b <= FX_BORDER_WRAP; b++)
                for (int r = 0; r < COUNT(asked_rows); r++) {
                    fx_filter_options o;
                    fx_filter_options_init(&o);
                    o.border = (fx_border)b;
                    o.border_value = "7";
                    o.anchor = kernels[kc].anchor;
                    o.strategy = kernels[kc].strategy;
                    fx_filter_stream_options so;
                    fx_filter_stream_options_init(&so);
                    so.band_rows = asked_rows[r];
                    so.out_type = c->out_type;
                    fx_filter_stream_result res = {0};
                    fx_image want = {0}, got = {0};
                    bool ok = FXT_CHECK_OK(whole_image(ctx, k, &o, &in, c->out_type, &want), ctx) &&
                              FXT_CHECK_OK(fx_filter_file(ctx, k, &o, &so, in_path, out_path, NULL,
                                                          &res, NULL),
                                           ctx) &&
                              FXT_CHECK_OK(fx_image_read_file(ctx, out_path, &got), ctx);
                    ok = ok && FXT_CHECK(fxt_images_equal(&want, &got));
                    ok = ok && FXT_CHECK_EQ(res.band_rows,
                                            expected_rows(asked_rows[r], fx_kernel_height(k), c->h,
                                                          (fx_border)b));
                    fx_image_free(&want);
                    fx_image_free(&got);
                    if (!ok) {
                        printf("  %s, kernel %s, border %s, %d rows asked\n", c->in_name,
                               kernels[kc].text, fx_border_name((fx_border)b), asked_rows[r]);
                        fx_kernel_free(k);
                        fx_image_free(&in);
                        fx_context_destroy(ctx);
                        return;
                    }
                    checked++;
                }
            fx_kernel_free(k);
        }
        fx_image_free(&in);
    }
    FXT_CHECK_EQ(checked,
                 COUNT(images) * COUNT(kernels) * (FX_BORDER_WRAP + 1) * COUNT(asked_rows));
    fx_context_destroy(ctx);
}

/* fx_filter_band_rows: the automatic choice streams only large images; on a CPU
 * context (not fft) from FX_FILTER_STREAM_CPU_ABOVE_BYTES on, elsewhere from
 * FX_FILTER_STREAM_ABOVE_BYTES. */
FXT_TEST(band_rows_policy)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_kernel *k;
    if (!FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:9", &k), ctx)) return;
    const fx_image_desc small = {100, 100, 3, FX_U8};
    for (int with_ctx = 0; with_ctx < 2; with_ctx++) {
        fx_context *c = with_ctx ? ctx : NULL;
        FXT_CHECK_EQ(fx_filter_band_rows(c, k, NULL, &small, 0), 0); /* small: whole */
        FXT_CHECK_EQ(fx_filter_band_rows(c, k, NULL, &small, 4), 9); /* raised to the kernel */
        FXT_CHECK_EQ(fx_filter_band_rows(c, k, NULL, &small, 40), 40);
        FXT_CHECK_EQ(fx_filter_band_rows(c, k, NULL, &small, 100), 0); /* one band: whole */
    }
    /* 40000 x 10000 RGB at 8 bits: 1.2 GB, above both thresholds; rows of 120000 bytes */
    const fx_image_desc big = {40000, 10000, 3, FX_U8};
    const uint64_t row = 40000 * 3;
    FXT_CHECK_EQ(fx_filter_band_rows(NULL, k, NULL, &big, 0), (int)(FX_FILTER_STREAM_BAND_BYTES / row));
    FXT_CHECK_EQ(fx_filter_band_rows(ctx, k, NULL, &big, 0),
                 (int)(FX_FILTER_STREAM_CPU_BAND_BYTES / row));
    /* 5000 x 5000 RGB: 75 MB, streamed on the CPU only */
    const fx_image_desc mid = {5000, 5000, 3, FX_U8};
    FXT_CHECK_EQ(fx_filter_band_rows(NULL, k, NULL, &mid, 0), 0);
    FXT_CHECK_EQ(fx_filter_band_rows(ctx, k, NULL, &mid, 0),
                 (int)(FX_FILTER_STREAM_CPU_BAND_BYTES / (5000 * 3)));
    /* ... but not with fft, whose tiles would differ in bands (within its rounding). */
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_FFT;
    FXT_CHECK_EQ(fx_filter_band_rows(ctx, k, &o, &mid, 0), 0);
    fx_filter_options_init(&o);
    o.border = FX_BORDER_WRAP;
    FXT_CHECK_EQ(fx_filter_band_rows(ctx, k, &o, &big, 0), 0);
    FXT_CHECK_EQ(fx_filter_band_rows(ctx, k, &o, &small, 40), 0);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

typedef struct progress_log {
    int calls, last, total;
    bool increasing;
} progress_log;

static void log_progress(void *user, int done, int total)
{
    progress_log *p = user;
    if (done <= p->last) p->increasing = false;
    p->calls++;
    p->last = done;
    p->total = total;
}

/* Reader to writer, with progress after every band. */
FXT_TEST(stream_reports_progress)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    const char *dir = fxt_tmpdir("filter_stream_progress");
    const image_case *c = &images[0];
    fx_image in = random_image(ctx, c, 5);
    const char *in_path = fxt_path(dir, "in.ppm"), *out_path = fxt_path(dir, "out.ppm");
    fx_kernel *k = NULL;
    fx_image_reader *reader = NULL;
    fx_image_writer *writer = NULL;
    fx_image want = {0}, got = {0};
    progress_log log = {0, 0, 0, true};
    fx_filter_stream_options so;
    fx_filter_stream_options_init(&so);
    so.band_rows = 4;
    so.progress = log_progress;
    so.progress_user = &log;
    if (FXT_CHECK_OK(fx_image_write_file(ctx, in_path, &in, NULL), ctx) &&
        FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:3", &k), ctx) &&
        FXT_CHECK_OK(fx_image_reader_open(ctx, in_path, &reader), ctx) &&
        FXT_CHECK_OK(fx_image_writer_open(ctx, out_path, c->w, c->h, c->channels, c->file_type,
                                          NULL, &writer),
                     ctx)) {
        fx_timings t = {0};
        fx_status st = fx_filter_stream(ctx, k, NULL, &so, reader, writer, NULL, &t);
        FXT_CHECK_OK(st, ctx);
        if (st == FX_OK) {
            st = fx_image_writer_close(writer);
            FXT_CHECK_OK(st, ctx);
        } else {
            fx_image_writer_discard(writer);
        }
        FXT_CHECK_EQ(log.calls, (c->h + 3) / 4);
        FXT_CHECK_EQ(log.last, c->h);
        FXT_CHECK_EQ(log.total, c->h);
        FXT_CHECK(log.increasing);
        FXT_CHECK(t.compute_ms > 0);
        if (st == FX_OK && FXT_CHECK_OK(fx_filter(ctx, k, NULL, &in, &want), ctx) &&
            FXT_CHECK_OK(fx_image_read_file(ctx, out_path, &got), ctx))
            FXT_CHECK(fxt_images_equal(&want, &got));
    }
    fx_image_reader_close(reader);
    fx_image_free(&want);
    fx_image_free(&got);
    fx_image_free(&in);
    fx_kernel_free(k);
    fx_context_destroy(ctx);
}

/* A file shorter than its header says: the reader's error, and nothing at the output,
 * with the file written on the caller's thread (1 thread) or a writer thread (2), cut in
 * its first band or in its middle (after bands were written). */
FXT_TEST(truncated_input_leaves_no_output)
{
    for (int threads = 1; threads <= 2; threads++)
        for (int middle = 0; middle <= 1; middle++) {
            fx_context *ctx = fxt_context(FX_DEVICE_CPU, threads);
            const char *dir = fxt_tmpdir("filter_stream_truncated");
            const image_case *c = &images[0];
            fx_image in = random_image(ctx, c, 9);
            const char *in_path = fxt_path(dir, "cut.ppm"), *out_path = fxt_path(dir, "out.ppm");
            const off_t cut = middle ? (off_t)(c->w * c->h * c->channels / 2) : 200;
            fx_kernel *k = NULL;
            if (FXT_CHECK_OK(fx_image_write_file(ctx, in_path, &in, NULL), ctx) &&
                FXT_CHECK(truncate(in_path, cut) == 0) &&
                FXT_CHECK_OK(fx_kernel_parse(ctx, "box:3", &k), ctx)) {
                fx_filter_stream_options so;
                fx_filter_stream_options_init(&so);
                so.band_rows = 3;
                FXT_CHECK_STATUS(
                    fx_filter_file(ctx, k, NULL, &so, in_path, out_path, NULL, NULL, NULL),
                    FX_EFORMAT, ctx);
                FXT_CHECK_CONTAINS(fx_context_error(ctx), "truncated");
                FXT_CHECK(access(out_path, F_OK) != 0);
                FXT_CHECK_EQ(files_in(dir), 1); /* the input alone */
            }
            fx_kernel_free(k);
            fx_image_free(&in);
            fx_context_destroy(ctx);
        }
}

/* A write that fails on the writer thread (past a file size limit, after some bands
 * were written): its error and detail on the caller's context, nothing at the output
 * and no temporary beside it. */
FXT_TEST(writer_thread_failure_is_told)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    const char *dir = fxt_tmpdir("filter_stream_write_fails");
    const image_case *c = &images[0];
    fx_image in = random_image(ctx, c, 11);
    char in_path[512], out_path[512];
    snprintf(in_path, sizeof in_path, "%s", fxt_path(dir, "in.ppm"));
    snprintf(out_path, sizeof out_path, "%s", fxt_path(dir, "out.ppm"));
    fx_kernel *k = NULL;
    struct rlimit old;
    if (FXT_CHECK_OK(fx_image_write_file(ctx, in_path, &in, NULL), ctx) &&
        FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:3", &k), ctx) &&
        FXT_CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0)) {
        void (*was)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
        /* A third of the file: the first bands fit, a later one does not. */
        const struct rlimit cap = {(rlim_t)(c->w * c->h * c->channels / 3), old.rlim_max};
        fx_filter_stream_options so;
        fx_filter_stream_options_init(&so);
        so.band_rows = 4;
        fx_timings t = {0};
        if (FXT_CHECK(setrlimit(RLIMIT_FSIZE, &cap) == 0)) {
            const fx_status st =
                fx_filter_file(ctx, k, NULL, &so, in_path, out_path, NULL, NULL, &t);
            setrlimit(RLIMIT_FSIZE, &old);
            FXT_CHECK_STATUS(st, FX_EIO, ctx);
            FXT_CHECK_CONTAINS(fx_context_error(ctx), "write error: File too large");
            FXT_CHECK(access(out_path, F_OK) != 0);
            FXT_CHECK_EQ(files_in(dir), 1); /* the input alone */
        }
        signal(SIGXFSZ, was);
    }
    fx_kernel_free(k);
    fx_image_free(&in);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(bands_match_the_whole_image), FXT_CASE(band_rows_policy),
         FXT_CASE(stream_reports_progress), FXT_CASE(truncated_input_leaves_no_output),
         FXT_CASE(writer_thread_failure_is_told))
