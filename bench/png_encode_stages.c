/* CPU time of the PNG writer's stages on one thread (thread CPU time, so a busy
 * machine inflates it far less than wall time): the auto row filter, each single
 * filter, Adler-32, the fast deflate coder over 512 KiB bands, CRC-32, and the
 * whole fxi_png_encode. Medians of REPEAT runs.
 *
 *   png_encode_stages IMAGE [REPEAT]
 *
 * Build: `make` builds it into build/bench/png_encode_stages (bench/CMakeLists.txt); by
 * hand (uses internal headers; from the repository root after a Release build):
 *   cc -O2 -Iinclude -Isrc bench/png_encode_stages.c build/src/libfxkit.a \
 *      -lspng -lturbojpeg -lsndfile -lz -lfftw3f -lm -lpthread -o png_encode_stages
 * (drop -lfftw3f for a build without FFTW).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "fxkit/fxkit.h"
#include "io/io_internal.h"
#include "io/png_deflate.h"
#include "io/png_filter.h"
#include "bench_median.h"

#define MAX_REPEAT 64

static double thread_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef struct frame {
    const fx_image *img;
    size_t row_bytes, bpp, filtered_size;
    uint8_t *filtered, *scratch, *zero, *deflated;
} frame;

static void filter_all(frame *f, fxi_png_filter_type type)
{
    for (int y = 0; y < f->img->height; y++)
        fxi_png_filter_row(type, fx_image_row(f->img, y),
                           y ? fx_image_row(f->img, y - 1) : f->zero, f->row_bytes, f->bpp,
                           f->filtered + (size_t)y * (f->row_bytes + 1), f->scratch);
}

static size_t deflate_bands(frame *f)
{
    size_t band = FXI_PNG_BAND_BYTES / (f->row_bytes + 1) * (f->row_bytes + 1);
    if (!band) band = f->row_bytes + 1;
    size_t total = 0;
    for (size_t off = 0; off < f->filtered_size; off += band) {
        size_t len = f->filtered_size - off < band ? f->filtered_size - off : band;
        total += fxi_deflate_band(f->filtered + off, len, off + len == f->filtered_size,
                                  f->deflated + total);
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s IMAGE [REPEAT]\n", argv[0]);
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    if (repeat < 1 || repeat > MAX_REPEAT) repeat = 5;
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.threads = 1;
    opts.device = FX_DEVICE_CPU;
    fx_context *ctx;
    fx_image img;
    if (fx_context_create(&opts, &ctx) != FX_OK) return 1;
    if (fx_image_read_file(ctx, argv[1], &img) != FX_OK ||
        (img.type != FX_U8 && img.type != FX_U16)) {
        fprintf(stderr, "%s: %s\n", argv[1], fx_context_error(ctx));
        return 1;
    }
    frame f = {&img, 0, 0, 0, NULL, NULL, NULL, NULL};
    f.bpp = (size_t)img.channels * fx_sample_size(img.type);
    f.row_bytes = (size_t)img.width * f.bpp;
    f.filtered_size = (f.row_bytes + 1) * (size_t)img.height;
    f.filtered = malloc(f.filtered_size);
    f.scratch = malloc((FXI_PNG_FILTER_TYPES + 2) * f.row_bytes);
    f.zero = calloc(1, f.row_bytes);
    f.deflated = malloc(2 * f.filtered_size + (1 << 20)); /* bands' bounds, generously */
    if (!f.filtered || !f.scratch || !f.zero || !f.deflated) return 1;

    enum { AUTO, SINGLE0, ADLER = SINGLE0 + FXI_PNG_FILTER_TYPES, DEFLATE, CRC, WHOLE, STAGES };
    static const char *names[STAGES] = {"filter auto", "filter none", "filter sub",
                                        "filter up",   "filter avg",  "filter paeth",
                                        "adler32",     "deflate (fast coder)", "crc32",
                                        "whole fxi_png_encode (fast)"};
    double ms[STAGES][MAX_REPEAT];
    size_t deflated = 0, file = 0;
    for (int r = 0; r < repeat; r++) {
        for (int t = 0; t < FXI_PNG_FILTER_TYPES; t++) {
            double t0 = thread_ms();
            filter_all(&f, (fxi_png_filter_type)t);
            ms[SINGLE0 + t][r] = thread_ms() - t0;
        }
        double t0 = thread_ms();
        filter_all(&f, FXI_PNG_FILTER_AUTO);
        double t1 = thread_ms();
        volatile uint32_t sink = fxi_png_adler32(1, f.filtered, f.filtered_size);
        double t2 = thread_ms();
        deflated = deflate_bands(&f);
        double t3 = thread_ms();
        sink = (uint32_t)crc32(0L, f.deflated, (uInt)deflated);
        (void)sink;
        double t4 = thread_ms();
        fxi_png_params p = {FX_PNG_COMPRESSION_FAST, FX_PNG_FILTER_AUTO, 0};
        fxi_buffer buf = {0};
        if (fxi_png_encode(ctx, &img, &p, &buf) != FX_OK) return 1;
        double t5 = thread_ms();
        file = buf.size;
        fxi_buffer_release(&buf);
        ms[AUTO][r] = t1 - t0;
        ms[ADLER][r] = t2 - t1;
        ms[DEFLATE][r] = t3 - t2;
        ms[CRC][r] = t4 - t3;
        ms[WHOLE][r] = t5 - t4;
    }
    printf("%s: %dx%d, %d channel(s) of %s, %zu filtered bytes -> %zu deflated, file %zu\n",
           argv[1], img.width, img.height, img.channels, fx_sample_type_name(img.type),
           f.filtered_size, deflated, file);
    for (int s = 0; s < STAGES; s++)
        printf("  %-28s %8.1f ms CPU (median of %d)\n", names[s], bench_median(ms[s], repeat), repeat);
    free(f.filtered);
    free(f.scratch);
    free(f.zero);
    free(f.deflated);
    fx_image_free(&img);
    fx_context_destroy(ctx);
    return 0;
}
