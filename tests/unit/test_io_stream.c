/* Row streams (fxkit/image_stream.h) and the fast PNM/PFM paths: bands of every
 * size through the writer and the reader at every layout each format holds,
 * checked against a plain reference (the Netpbm bytes built here by hand, and the
 * source pixels); truncated and corrupt files give the whole-image reader's error;
 * failed and abandoned writers leave nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxtest.h"

/* Heights with one row, fewer rows than a band, and an odd count. */
static const int heights[] = {1, 2, 7};
static const int band_rows[] = {1, 2, 3, 64};
#define TEST_WIDTH 5
/* Room for a copied error detail. */
#define DETAIL_MAX 1024
/* Bytes of data in a full-size JPEG APPn segment (its length field counts 2 more). */
#define APP_SEGMENT_DATA 65533

static void fill_random(fx_image *img, uint64_t seed)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (int i = 0; i < img->width * img->channels; i++) {
            uint64_t r = fxt_rand(&seed);
            if (img->type == FX_U8)
                row[i] = (uint8_t)r;
            else if (img->type == FX_U16)
                ((uint16_t *)(void *)row)[i] = (uint16_t)r;
            else
                ((float *)(void *)row)[i] = (float)(r >> 40) / 65536.0f - 100.0f;
        }
    }
}

/* A view of rows [y, y + n) of img. */
static fx_image band_of(const fx_image *img, int y, int n)
{
    fx_image band = *img;
    band.data = fx_image_row(img, y);
    band.height = n;
    return band;
}

static fx_status write_in_bands(fx_context *ctx, const char *path, const fx_image *img, int rows)
{
    fx_image_writer *w;
    fx_status st = fx_image_writer_open(ctx, path, img->width, img->height, img->channels,
                                        img->type, NULL, &w);
    if (st != FX_OK) return st;
    for (int y = 0; y < img->height && st == FX_OK; y += rows) {
        int n = img->height - y < rows ? img->height - y : rows;
        fx_image band = band_of(img, y, n);
        st = fx_image_writer_write_rows(w, &band);
    }
    if (st != FX_OK) {
        fx_image_writer_discard(w);
        return st;
    }
    return fx_image_writer_close(w);
}

/* Read a file in bands into a newly allocated image (padded stride, so strides are
 * honoured). */
static fx_status read_in_bands(fx_context *ctx, const char *path, int rows, fx_image *out)
{
    fx_image_reader *r;
    memset(out, 0, sizeof *out);
    fx_status st = fx_image_reader_open(ctx, path, &r);
    if (st != FX_OK) return st;
    fx_image_info info;
    fx_image_reader_info(r, &info);
    fx_image band = {0};
    st = fx_image_alloc(ctx, out, info.width, info.height, info.channels, info.type);
    if (st == FX_OK)
        st = fx_image_alloc(ctx, &band, info.width + 3, rows, info.channels, info.type);
    band.width = info.width; /* stride of a wider image: padding after each row */
    int y = 0, got = 0;
    while (st == FX_OK && (st = fx_image_reader_read_rows(r, &band, rows, &got)) == FX_OK && got) {
        size_t row = (size_t)info.width * (size_t)info.channels * fx_sample_size(info.type);
        for (int i = 0; i < got; i++)
            memcpy(fx_image_row(out, y + i), fx_image_row(&band, i), row);
        y += got;
    }
    if (st == FX_OK && y != info.height) st = FX_EFORMAT;
    fx_image_free(&band);
    fx_image_reader_close(r);
    if (st != FX_OK) fx_image_free(out);
    return st;
}

/* The Netpbm file a plain writer makes: header, then big-endian 16-bit samples, or
 * little-endian floats bottom row first. */
static uint8_t *reference_netpbm(const fx_image *img, size_t *size)
{
    char header[64];
    bool pfm = img->type == FX_F32;
    int n =
        pfm ? snprintf(header, sizeof header, "P%c\n%d %d\n-1.0\n", img->channels == 3 ? 'F' : 'f',
                       img->width, img->height)
            : snprintf(header, sizeof header, "P%c\n%d %d\n%d\n", img->channels == 3 ? '6' : '5',
                       img->width, img->height, img->type == FX_U16 ? 65535 : 255);
    size_t samples = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    size_t bytes = fx_sample_size(img->type);
    uint8_t *out = malloc((size_t)n + samples * bytes), *p = out + n;
    memcpy(out, header, (size_t)n);
    for (int k = 0; k < img->height; k++) {
        int y = pfm ? img->height - 1 - k : k;
        const uint8_t *row = fx_image_row(img, y);
        for (int i = 0; i < img->width * img->channels; i++) {
            if (img->type == FX_U8) {
                *p++ = row[i];
            } else if (img->type == FX_U16) {
                uint16_t v = ((const uint16_t *)(const void *)row)[i];
                *p++ = (uint8_t)(v >> 8);
                *p++ = (uint8_t)v;
            } else {
                uint32_t v;
                memcpy(&v, row + 4 * (size_t)i, 4);
                for (int b = 0; b < 4; b++)
                    *p++ = (uint8_t)(v >> (8 * b));
            }
        }
    }
    *size = (size_t)n + samples * bytes;
    return out;
}

static uint8_t *slurp(const char *path, size_t *size)
{
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    *size = 0;
    *size = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static void spill(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, size, f);
    fclose(f);
}

typedef struct layout {
    const char *ext;
    int channels;
    fx_sample_type type;
} layout;

static const layout layouts[] = {
    {"png", 1, FX_U8},  {"png", 2, FX_U8},  {"png", 3, FX_U8},  {"png", 4, FX_U8},
    {"png", 1, FX_U16}, {"png", 2, FX_U16}, {"png", 3, FX_U16}, {"png", 4, FX_U16},
    {"pgm", 1, FX_U8},  {"ppm", 3, FX_U8},  {"pgm", 1, FX_U16}, {"ppm", 3, FX_U16},
    {"pfm", 1, FX_F32}, {"pfm", 3, FX_F32},
};

FXT_TEST(bands_round_trip_every_layout)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    const char *dir = fxt_tmpdir("io_stream");
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++)
        for (size_t h = 0; h < sizeof heights / sizeof *heights; h++)
            for (size_t b = 0; b < sizeof band_rows / sizeof *band_rows; b++) {
                const layout *lay = &layouts[l];
                char name[64];
                snprintf(name, sizeof name, "rt_%zu_%zu_%zu.%s", l, h, b, lay->ext);
                const char *path = fxt_path(dir, name);
                fx_image src, back, whole;
                FXT_CHECK_OK(
                    fx_image_alloc(ctx, &src, TEST_WIDTH, heights[h], lay->channels, lay->type),
                    ctx);
                fill_random(&src, l * 100 + h * 10 + b + 1);
                FXT_CHECK_OK(write_in_bands(ctx, path, &src, band_rows[b]), ctx);
                /* The whole-image reader (another path) and the band reader agree with
                 * the source. */
                FXT_CHECK_OK(fx_image_read_file(ctx, path, &whole), ctx);
                FXT_CHECK_OK(read_in_bands(ctx, path, band_rows[b], &back), ctx);
                if (!FXT_CHECK(fxt_images_equal(&src, &whole) && fxt_images_equal(&src, &back)))
                    fprintf(stderr, "  %s\n", name);
                if (strcmp(lay->ext, "png")) { /* Netpbm: byte for byte the plain writer's */
                    size_t want_size, got_size;
                    uint8_t *want = reference_netpbm(&src, &want_size);
                    uint8_t *got = slurp(path, &got_size);
                    FXT_CHECK(got && got_size == want_size && !memcmp(got, want, want_size));
                    /* And the whole-image writer makes the same bytes. */
                    FXT_CHECK_OK(fx_image_write_file(ctx, path, &src, NULL), ctx);
                    free(got);
                    got = slurp(path, &got_size);
                    FXT_CHECK(got && got_size == want_size && !memcmp(got, want, want_size));
                    free(got);
                    free(want);
                }
                fx_image_free(&src);
                fx_image_free(&back);
                fx_image_free(&whole);
            }
    fx_context_destroy(ctx);
}

/* Cut a file at many lengths: the band reader fails with the whole reader's status
 * and detail (at open or at a band), and never succeeds where it fails. */
static void check_cuts_match(fx_context *ctx, const char *dir, const char *src_path,
                             const char *ext)
{
    size_t size;
    uint8_t *data = slurp(src_path, &size);
    if (!FXT_CHECK(data != NULL)) return;
    char name[32];
    snprintf(name, sizeof name, "cut.%s", ext);
    const char *path = fxt_path(dir, name);
    size_t step = size / 97 + 1;
    for (size_t cut = 1; cut < size; cut += cut < 64 ? 1 : step) {
        spill(path, data, cut);
        fx_image whole, back;
        fx_status want = fx_image_read_file(ctx, path, &whole);
        char want_detail[DETAIL_MAX];
        snprintf(want_detail, sizeof want_detail, "%s", fx_context_error(ctx));
        fx_context_clear_error(ctx);
        fx_status got = read_in_bands(ctx, path, 3, &back);
        if (!FXT_CHECK_EQ(got, want) ||
            (want != FX_OK && !FXT_CHECK(!strcmp(fx_context_error(ctx), want_detail))))
            fprintf(stderr, "  %s cut at %zu: whole '%s', bands '%s'\n", ext, cut, want_detail,
                    fx_context_error(ctx));
        fx_image_free(&whole);
        fx_image_free(&back);
    }
    /* A flipped byte in the pixel data of a PNG is caught by its CRC, in both. */
    free(data);
}

FXT_TEST(truncated_files_same_errors_as_whole_reader)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_stream_cuts");
    static const layout cut_layouts[] = {
        {"png", 3, FX_U8},  {"png", 1, FX_U16}, {"ppm", 3, FX_U8},
        {"pgm", 1, FX_U16}, {"pfm", 3, FX_F32},
    };
    for (size_t l = 0; l < sizeof cut_layouts / sizeof *cut_layouts; l++) {
        fx_image src;
        FXT_CHECK_OK(
            fx_image_alloc(ctx, &src, 40, 30, cut_layouts[l].channels, cut_layouts[l].type), ctx);
        fill_random(&src, l + 7);
        char name[32];
        snprintf(name, sizeof name, "full.%s", cut_layouts[l].ext);
        const char *full = fxt_path(dir, name);
        FXT_CHECK_OK(fx_image_write_file(ctx, full, &src, NULL), ctx);
        check_cuts_match(ctx, dir, full, cut_layouts[l].ext);
        fx_image_free(&src);
    }
    check_cuts_match(ctx, dir, fxt_sample("hubble_deep_field.jpg"), "jpg");
    fx_context_destroy(ctx);
}

FXT_TEST(corrupt_png_and_bad_maxval_same_errors)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_stream_corrupt");
    const char *path = fxt_path(dir, "bad.pgm");
    static const char over[] = "P5\n2 2\n100\n\x01\x02\x65\x03";
    spill(path, (const uint8_t *)over, sizeof over - 1);
    fx_image img;
    FXT_CHECK_STATUS(fx_image_read_file(ctx, path, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "PNM: sample value 101 exceeds maxval 100");
    FXT_CHECK_STATUS(read_in_bands(ctx, path, 1, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "PNM: sample value 101 exceeds maxval 100");
    /* A flipped bit inside a PNG's image data: the CRC check fails in both readers. */
    fx_image src;
    FXT_CHECK_OK(fx_image_alloc(ctx, &src, 64, 64, 3, FX_U8), ctx);
    fill_random(&src, 3);
    const char *png = fxt_path(dir, "bad.png");
    FXT_CHECK_OK(fx_image_write_file(ctx, png, &src, NULL), ctx);
    size_t size;
    uint8_t *data = slurp(png, &size);
    data[size / 2] ^= 0x10;
    spill(png, data, size);
    free(data);
    FXT_CHECK_STATUS(fx_image_read_file(ctx, png, &img), FX_EFORMAT, ctx);
    char want[DETAIL_MAX];
    snprintf(want, sizeof want, "%s", fx_context_error(ctx));
    FXT_CHECK_CONTAINS(want, "PNG data: ");
    /* The row reader (libspng) inflates a chunk's data before its CRC is checked: on the
     * fast writer's layout (one IDAT per band) it may meet the damage as a stream error
     * first. Same status, the same part of the file named. */
    FXT_CHECK_STATUS(read_in_bands(ctx, png, 5, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "PNG data: ");
    fx_image_free(&src);
    fx_context_destroy(ctx);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static size_t files_in(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    if (p) {
        if (fscanf(p, "%zu", &n) != 1) n = 0;
        pclose(p);
    }
    return n;
}

FXT_TEST(writer_leaves_nothing_on_failure)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_stream_fail");
    fx_image src;
    FXT_CHECK_OK(fx_image_alloc(ctx, &src, 8, 6, 3, FX_U8), ctx);
    const char *exts[] = {"png", "ppm", "pfm", "jpg"};
    remove(fxt_path(dir, "keep.ppm")); /* left by an earlier, failed run */
    for (size_t e = 0; e < sizeof exts / sizeof *exts; e++) {
        char name[32];
        snprintf(name, sizeof name, "x.%s", exts[e]);
        const char *path = fxt_path(dir, name);
        fx_sample_type type = !strcmp(exts[e], "pfm") ? FX_F32 : FX_U8;
        fx_image_writer *w;
        /* Closed early: an error, and no file (nor a temporary). */
        FXT_CHECK_OK(fx_image_writer_open(ctx, path, 8, 6, 3, type, NULL, &w), ctx);
        fx_image wide;
        FXT_CHECK_OK(fx_image_alloc(ctx, &wide, 8, 2, 3, type), ctx);
        FXT_CHECK_OK(fx_image_writer_write_rows(w, &wide), ctx);
        FXT_CHECK_STATUS(fx_image_writer_close(w), FX_EINVAL, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "closed after 2 of 6 rows");
        FXT_CHECK(!exists(path));
        /* Discarded: nothing. */
        FXT_CHECK_OK(fx_image_writer_open(ctx, path, 8, 6, 3, type, NULL, &w), ctx);
        FXT_CHECK_OK(fx_image_writer_write_rows(w, &wide), ctx);
        fx_image_writer_discard(w);
        FXT_CHECK(!exists(path));
        /* A band of the wrong shape or too many rows is refused. */
        FXT_CHECK_OK(fx_image_writer_open(ctx, path, 8, 6, 3, type, NULL, &w), ctx);
        fx_image tall;
        FXT_CHECK_OK(fx_image_alloc(ctx, &tall, 8, 7, 3, type), ctx);
        FXT_CHECK_STATUS(fx_image_writer_write_rows(w, &tall), FX_EINVAL, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "a band of 7 rows after 0 of the image's 6");
        fx_image_writer_discard(w);
        fx_image_free(&tall);
        fx_image_free(&wide);
        FXT_CHECK_EQ(files_in(dir), 0);
    }
    fx_image_writer *w = NULL;
    FXT_CHECK_STATUS(fx_image_writer_open(ctx, fxt_path(dir, "x.jpg"), 8, 6, 4, FX_U8, NULL, &w),
                     FX_EUNSUPPORTED, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "jpeg cannot hold 4 channel(s)");
    FXT_CHECK_STATUS(fx_image_writer_open(ctx, "/nonexistent-dir/x.png", 8, 6, 3, FX_U8, NULL, &w),
                     FX_EIO, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "cannot create");
    FXT_CHECK(w == NULL);
    /* An existing file is replaced only at close. */
    const char *keep = fxt_path(dir, "keep.ppm");
    spill(keep, (const uint8_t *)"old", 3);
    FXT_CHECK_OK(fx_image_writer_open(ctx, keep, 8, 6, 3, FX_U8, NULL, &w), ctx);
    size_t size;
    uint8_t *old = slurp(keep, &size);
    FXT_CHECK(size == 3 && !memcmp(old, "old", 3));
    free(old);
    fx_image_writer_discard(w);
    old = slurp(keep, &size);
    FXT_CHECK(size == 3 && !memcmp(old, "old", 3));
    free(old);
    /* In place (a caller's own temporary file): written at the path from the start, no
     * hidden file beside it, and a discard removes it. */
    const size_t before = files_in(dir);
    fx_image_write_options in_place;
    fx_image_write_options_init(&in_place);
    in_place.in_place = 1;
    FXT_CHECK_OK(fx_image_writer_open(ctx, keep, 8, 6, 3, FX_U8, &in_place, &w), ctx);
    FXT_CHECK_EQ(files_in(dir), before);
    old = slurp(keep, &size);
    FXT_CHECK(old && (size != 3 || memcmp(old, "old", 3))); /* the writer owns the path now */
    free(old);
    fx_image_writer_discard(w);
    FXT_CHECK(access(keep, F_OK) != 0);
    FXT_CHECK_EQ(files_in(dir), before - 1);
    remove(keep);
    fx_image_free(&src);
    fx_context_destroy(ctx);
}

FXT_TEST(probe_reads_headers)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const struct {
        const char *file;
        int w, h, c;
        fx_image_format fmt;
        bool streamed;
    } samples[] = {
        {"astronaut.png", 512, 512, 3, FX_IMAGE_PNG, true},
        {"coffee.png", 600, 400, 3, FX_IMAGE_PNG, true},
        {"hubble_deep_field.jpg", 1000, 872, 3, FX_IMAGE_JPEG, false},
    };
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        fx_image_info info;
        FXT_CHECK_OK(fx_image_probe_file(ctx, fxt_sample(samples[i].file), &info), ctx);
        FXT_CHECK_EQ(info.width, samples[i].w);
        FXT_CHECK_EQ(info.height, samples[i].h);
        FXT_CHECK_EQ(info.channels, samples[i].c);
        FXT_CHECK_EQ(info.format, samples[i].fmt);
        FXT_CHECK_EQ(info.type, FX_U8);
        /* The sample PNGs decode to the same pixels in bands as whole. */
        fx_image whole, bands;
        FXT_CHECK_OK(fx_image_read_file(ctx, fxt_sample(samples[i].file), &whole), ctx);
        FXT_CHECK_OK(read_in_bands(ctx, fxt_sample(samples[i].file), 17, &bands), ctx);
        FXT_CHECK(fxt_images_equal(&whole, &bands));
        fx_image_free(&whole);
        fx_image_free(&bands);
    }
    fx_image_info info;
    FXT_CHECK_STATUS(fx_image_probe_file(ctx, fxt_sample("speech_mono_44k.wav"), &info), FX_EFORMAT,
                     ctx);
    /* A JPEG whose frame header comes after 192 KiB of metadata (three full APP1
     * segments): the probe reads on until it finds it. */
    size_t size;
    uint8_t *jpeg = slurp(fxt_sample("hubble_deep_field.jpg"), &size);
    const size_t segment = 4 + APP_SEGMENT_DATA, segments = 3;
    uint8_t *big = calloc(1, size + segments * segment);
    memcpy(big, jpeg, 2); /* SOI */
    for (size_t i = 0; i < segments; i++) {
        uint8_t *seg = big + 2 + i * segment;
        seg[0] = 0xff;
        seg[1] = 0xe1; /* APP1 */
        seg[2] = (uint8_t)((APP_SEGMENT_DATA + 2) >> 8);
        seg[3] = (uint8_t)(APP_SEGMENT_DATA + 2);
    }
    memcpy(big + 2 + segments * segment, jpeg + 2, size - 2);
    const char *path = fxt_path(fxt_tmpdir("io_stream_probe"), "exif.jpg");
    spill(path, big, size + segments * segment);
    FXT_CHECK_OK(fx_image_probe_file(ctx, path, &info), ctx);
    FXT_CHECK_EQ(info.width, 1000);
    FXT_CHECK_EQ(info.height, 872);
    free(big);
    free(jpeg);
    /* ASCII PGM/PPM: the probe takes the shape from the header (the pixels are not
     * decoded: even a file cut short probes), the reader decodes it whole. */
    static const char ascii[] = "P3\n# two by one\n2 1\n65535\n1 2 3 4 5 6\n";
    const char *ppm = fxt_path(fxt_tmpdir("io_stream_probe"), "ascii.ppm");
    spill(ppm, (const uint8_t *)ascii, sizeof ascii - 1);
    FXT_CHECK_OK(fx_image_probe_file(ctx, ppm, &info), ctx);
    FXT_CHECK(info.width == 2 && info.height == 1 && info.channels == 3 && info.type == FX_U16 &&
              info.format == FX_IMAGE_PNM && !info.rows_streamed);
    fx_image rows;
    if (FXT_CHECK_OK(read_in_bands(ctx, ppm, 1, &rows), ctx)) {
        const uint16_t *px = (const uint16_t *)fx_image_row(&rows, 0);
        FXT_CHECK(px[0] == 1 && px[5] == 6);
        fx_image_free(&rows);
    }
    spill(ppm, (const uint8_t *)ascii, sizeof ascii - 5); /* "5 6" cut */
    FXT_CHECK_OK(fx_image_probe_file(ctx, ppm, &info), ctx);
    FXT_CHECK_EQ(info.width, 2);
    FXT_CHECK(read_in_bands(ctx, ppm, 1, &rows) != FX_OK);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(bands_round_trip_every_layout),
         FXT_CASE(truncated_files_same_errors_as_whole_reader),
         FXT_CASE(corrupt_png_and_bad_maxval_same_errors),
         FXT_CASE(writer_leaves_nothing_on_failure), FXT_CASE(probe_reads_headers))
