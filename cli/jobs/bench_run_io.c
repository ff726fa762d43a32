/* fxkit bench: one image I/O case, a file written (encode) or read (decode) by the
 * library, on the CPU (files are the CPU's work in every job). Lossless formats (PNG,
 * PPM) must give back the input's bytes; JPEG is lossy, so its round trip must stay
 * within JPEG_MIN_PSNR_DB of the input (a quality-90 photo is near 40 dB). Peers read
 * fxkit's file, or write the input in the format for fxkit to read back. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_run.h"

/* A JPEG round trip at the library's default quality counts as right above this. */
#define JPEG_MIN_PSNR_DB 30.0
#define U8_PEAK 255.0

typedef struct io_job {
    fx_context *ctx;
    const char *path;
    const fx_image *img;
} io_job;

static fx_status run_write(void *arg, fx_timings *t)
{
    io_job *j = arg;
    fx_status st = fx_image_write_file(j->ctx, j->path, j->img, NULL);
    (void)t;
    return st;
}

static fx_status run_read(void *arg, fx_timings *t)
{
    io_job *j = arg;
    fx_image img;
    fx_status st = fx_image_read_file(j->ctx, j->path, &img);
    if (st == FX_OK) fx_image_free(&img);
    (void)t;
    return st;
}

static const char *extension(fx_image_format f)
{
    return f == FX_IMAGE_PNM ? "ppm" : fx_image_format_name(f);
}

/* PSNR of b against a in dB (infinity when identical). */
static double psnr(const fx_image *a, const fx_image *b)
{
    double sum = 0;
    const size_t n = (size_t)a->width * (size_t)a->channels;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *p = fx_image_row(a, y), *q = fx_image_row(b, y);
        for (size_t i = 0; i < n; i++)
            sum += ((double)p[i] - q[i]) * ((double)p[i] - q[i]);
    }
    double mse = sum / ((double)n * a->height);
    return mse > 0 ? 10 * log10(U8_PEAK * U8_PEAK / mse) : INFINITY;
}

/* Read `path` with fxkit and compare with `expect`: the max difference, or -1. For JPEG,
 * *db receives the PSNR. */
static double check_file(fx_context *ctx, const char *path, const fx_image *expect, double *db)
{
    fx_image got;
    if (fx_image_read_file(ctx, path, &got) != FX_OK) return -1;
    double diff = -1;
    if (got.width == expect->width && got.height == expect->height &&
        got.channels == expect->channels && got.type == expect->type) {
        diff = bench_max_diff_images(&got, expect);
        *db = psnr(expect, &got);
    }
    fx_image_free(&got);
    return diff;
}

typedef struct io_cmp {
    bench_runner *r;
    const bench_case *c;
    const fx_image *input;
} io_cmp;

/* A peer's output: its file (write) or its decoded .npy (read), against the input. */
static double compare_peer(void *arg, const char *path)
{
    io_cmp *p = arg;
    double db = 0;
    if (p->c->io_op == BENCH_IO_WRITE) return check_file(p->r->cpu, path, p->input, &db);
    return bench_npy_diff_u8(p->r->cpu, path, p->input);
}

bool bench_run_io(bench_runner *r, const bench_case *c, bench_rows *rows)
{
    if (!bench_on_cpu(r, c)) return true;
    bench_row *row = bench_row_add(rows, c, false);
    if (!row) return false;
    const fx_image *img = NULL;
    char path[PATH_MAX], name[32];
    snprintf(name, sizeof name, "io.%s", extension(c->format));
    bench_tmp_path(r, name, path, sizeof path);
    if (bench_input_image(r->cpu, c, &img) != FX_OK) {
        bench_row_error(row, r->cpu, "input");
        return true;
    }
    io_job j = {r->cpu, path, img};
    const bool write = c->io_op == BENCH_IO_WRITE;
    if (!write && run_write(&j, NULL) != FX_OK) {
        bench_row_error(row, r->cpu, "write");
        return true;
    }
    bench_timed t;
    if (bench_time(write ? run_write : run_read, &j, bench_repeat(r, c), NULL, &t) != FX_OK) {
        bench_row_error(row, r->cpu, write ? "write" : "read");
        return true;
    }
    bench_row_timed(row, &t);
    if (write)
        row->encode_ms = t.wall.median;
    else
        row->decode_ms = t.wall.median;
    snprintf(row->strategy, sizeof row->strategy, "%s", fx_image_format_name(c->format));
    struct stat st;
    if (stat(path, &st) == 0) row->file_bytes = (long long)st.st_size;
    double db = 0, diff = check_file(r->cpu, path, img, &db);
    if (diff >= 0 && r->cfg.inject_wrong && !r->injected) diff = 1, r->injected = true;
    if (c->format == FX_IMAGE_JPEG) {
        snprintf(row->verify, sizeof row->verify, "round trip >= %g dB PSNR", JPEG_MIN_PSNR_DB);
        row->verified = diff >= 0 && db >= JPEG_MIN_PSNR_DB;
        if (diff >= 0) bench_row_note(row, "round trip %.1f dB PSNR", db);
        if (diff >= 0 && !row->verified) bench_row_wrong(row, "round trip only %.1f dB", db);
    } else {
        snprintf(row->verify, sizeof row->verify, "round trip, byte for byte");
        row->verified = diff == 0;
        if (diff > 0) bench_row_wrong(row, "round trip differs by up to %g", diff);
    }
    if (diff < 0) bench_row_wrong(row, "cannot read the file back: %s", fx_context_error(r->cpu));
    if (!r->cfg.peers) return true;
    char in_path[PATH_MAX];
    bench_tmp_path(r, "in.npy", in_path, sizeof in_path);
    if (write && bench_npy_write_image(in_path, img)) return true;
    io_cmp cmp = {r, c, img};
    return bench_run_peers(r, c, false, rows, write ? in_path : path, compare_peer, &cmp);
}
