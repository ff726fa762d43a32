/* The PNG writer: its deflate coder checked by zlib's inflate, and whole files
 * decoded by libspng (through fxi_png_decode) at every depth, channel count,
 * filter, compression and band count; the streaming form against the whole-image
 * form; 1 against 16 threads. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fxtest.h"
#include "io/io_internal.h"
#include "io/png_deflate.h"
#include "io/png_filter.h"

/* ---- the deflate coder against zlib's inflate ---- */

/* Inflate a raw deflate stream and check that it ends exactly and gives `want`. */
static void check_inflates_to(const uint8_t *stream, size_t size, const uint8_t *want, size_t n)
{
    uint8_t *got = malloc(n + 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!FXT_CHECK(got && inflateInit2(&z, -15) == Z_OK)) {
        free(got);
        return;
    }
    z.next_in = (Bytef *)(uintptr_t)stream;
    z.avail_in = (uInt)size;
    z.next_out = got;
    z.avail_out = (uInt)(n + 1);
    int err = inflate(&z, Z_FINISH);
    FXT_CHECK_EQ(err, Z_STREAM_END);
    FXT_CHECK_EQ(z.avail_in, 0); /* no bytes left over after the final block */
    FXT_CHECK_EQ(n + 1 - z.avail_out, n);
    FXT_CHECK(memcmp(got, want, n) == 0);
    inflateEnd(&z);
    free(got);
}

/* Two bands, the first not final, concatenated: what the writer joins. */
static void check_band_pair(const uint8_t *data, size_t n)
{
    size_t half = n / 2;
    uint8_t *out = malloc(fxi_deflate_band_bound(half) + fxi_deflate_band_bound(n - half));
    if (!FXT_CHECK(out)) return;
    size_t a = fxi_deflate_band(data, half, false, out);
    size_t b = fxi_deflate_band(data + half, n - half, true, out + a);
    check_inflates_to(out, a + b, data, n);
    free(out);
}

enum { CODER_BYTES = 300000 };

FXT_TEST(coder_inflates_on_any_distribution)
{
    uint8_t *data = malloc(CODER_BYTES);
    if (!FXT_CHECK(data)) return;
    uint64_t seed = 7;
    /* uniform random: every literal, too random to gain (stored blocks) */
    for (size_t i = 0; i < CODER_BYTES; i++)
        data[i] = (uint8_t)fxt_rand(&seed);
    check_band_pair(data, CODER_BYTES);
    /* all one byte: nothing but runs */
    memset(data, 0x5a, CODER_BYTES);
    check_band_pair(data, CODER_BYTES);
    /* all 256 symbols, skewed like residuals, with runs of every length around 258 */
    size_t i = 0;
    while (i < CODER_BYTES) {
        uint64_t r = fxt_rand(&seed);
        if (r % 97 == 0) {
            size_t run = 1 + (size_t)(r >> 8) % 700;
            for (size_t k = 0; k < run && i < CODER_BYTES; k++)
                data[i++] = (uint8_t)(r >> 32);
        } else {
            int v = (int)((r >> 8) % 9) - 4 + (int)((r >> 20) % 3 == 0 ? (r >> 24) % 256 : 0);
            data[i++] = (uint8_t)v;
        }
    }
    check_band_pair(data, CODER_BYTES);
    /* tiny inputs: empty-ish bands, one byte, shorter than a run probe */
    for (size_t n = 1; n < 20; n++)
        check_band_pair(data, n);
    free(data);
}

/* Symbol k occurs fib(k) times: an unlimited Huffman code would be ~24 bits deep. */
FXT_TEST(coder_limits_codes_to_15_bits)
{
    enum { SYMBOLS = 26 };
    uint32_t counts[256] = {0};
    uint32_t a = 1, b = 1;
    size_t total = 0;
    for (int k = 0; k < SYMBOLS; k++) {
        counts[k] = a;
        total += a;
        uint32_t next = a + b;
        a = b;
        b = next;
    }
    uint8_t lens[256];
    fxi_huffman_lengths(counts, 256, FXI_DEFLATE_MAX_BITS, lens);
    double kraft = 0;
    int longest = 0;
    for (int s = 0; s < 256; s++) {
        if (counts[s]) FXT_CHECK(lens[s] >= 1);
        if (!counts[s]) FXT_CHECK_EQ(lens[s], 0);
        if (lens[s]) kraft += 1.0 / (double)(1u << lens[s]);
        if (lens[s] > longest) longest = lens[s];
    }
    FXT_CHECK_EQ(longest, FXI_DEFLATE_MAX_BITS);
    FXT_CHECK(kraft == 1.0);
    /* The same distribution through the coder, in an order without runs. */
    uint8_t *data = malloc(total);
    if (!FXT_CHECK(data)) return;
    size_t i = 0;
    uint64_t seed = 3;
    for (int k = 0; k < SYMBOLS; k++)
        for (uint32_t c = 0; c < counts[k]; c++)
            data[i++] = (uint8_t)k;
    for (size_t j = total - 1; j > 0; j--) { /* shuffle */
        size_t r = (size_t)(fxt_rand(&seed) % (j + 1));
        uint8_t t = data[j];
        data[j] = data[r];
        data[r] = t;
    }
    uint8_t *out = malloc(fxi_deflate_band_bound(total));
    if (FXT_CHECK(out)) {
        size_t size = fxi_deflate_band(data, total, true, out);
        FXT_CHECK(size < total / 2); /* Huffman, not stored */
        check_inflates_to(out, size, data, total);
    }
    free(out);
    free(data);
}

/* The writer's Adler-32 against zlib's: random bytes and all 0xff (the largest
 * sums), lengths around the block size, continued from a previous value. */
FXT_TEST(adler32_matches_zlib)
{
    enum { N = 20000 };
    uint8_t *data = malloc(N);
    if (!FXT_CHECK(data)) return;
    uint64_t seed = 8;
    static const size_t lengths[] = {0, 1, 15, 4095, 4096, 4097, 8193, N};
    for (int fill_kind = 0; fill_kind < 2; fill_kind++) {
        for (size_t i = 0; i < N; i++)
            data[i] = fill_kind ? 0xff : (uint8_t)fxt_rand(&seed);
        for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
            size_t n = lengths[k];
            FXT_CHECK_EQ(fxi_png_adler32(1, data, n), adler32(1L, data, (uInt)n));
            uint32_t start = (uint32_t)adler32(1L, data + n / 2, 77);
            FXT_CHECK_EQ(fxi_png_adler32(start, data, n), adler32(start, data, (uInt)n));
        }
    }
    free(data);
}

/* ---- whole files ---- */

typedef enum pattern { PATTERN_NOISE, PATTERN_SMOOTH, PATTERN_FLAT, PATTERN_COUNT } pattern;

static void fill(fx_image *img, pattern p, uint64_t seed)
{
    size_t per_row = (size_t)img->width * (size_t)img->channels;
    unsigned max = img->type == FX_U16 ? 65535u : 255u;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (size_t i = 0; i < per_row; i++) {
            unsigned v = p == PATTERN_NOISE ? (unsigned)fxt_rand(&seed)
                         : p == PATTERN_SMOOTH
                             ? (unsigned)(i * 3 + (size_t)y * 5 + fxt_rand(&seed) % 4)
                             : 77u + (unsigned)(i % (size_t)img->channels);
            v %= max + 1;
            if (img->type == FX_U8)
                row[i] = (uint8_t)v;
            else
                ((uint16_t *)(void *)row)[i] = (uint16_t)v;
        }
    }
}

/* Encode, decode with libspng, compare; returns the encoded file (caller releases). */
static bool round_trip(fx_context *ctx, const fx_image *img, const fxi_png_params *p,
                       fxi_buffer *file)
{
    fx_image back = {0};
    bool ok = FXT_CHECK_OK(fxi_png_encode(ctx, img, p, file), ctx) &&
              FXT_CHECK_OK(fxi_png_decode(ctx, file->data, file->size, &back), ctx) &&
              FXT_CHECK(fxt_images_equal(img, &back));
    if (!ok)
        fprintf(stderr, "  %dx%d c%d %s compression %d filter %d band_rows %d\n", img->width,
                img->height, img->channels, fx_sample_type_name(img->type), p->compression,
                p->filter, p->band_rows);
    fx_image_free(&back);
    return ok;
}

static const int compressions[] = {FX_PNG_COMPRESSION_FAST, 0, 1, 6, 9};
#define COUNT(a) ((int)(sizeof(a) / sizeof *(a)))

FXT_TEST(every_layout_filter_and_level_round_trips)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 4);
    static const int sizes[][2] = {{1, 1}, {7, 1}, {1, 9}, {33, 5}, {64, 37}};
    static const fx_sample_type types[] = {FX_U8, FX_U16};
    uint64_t seed = 11;
    for (int t = 0; t < 2; t++)
        for (int c = 1; c <= 4; c++)
            for (int z = 0; z < COUNT(sizes); z++)
                for (int pat = 0; pat < PATTERN_COUNT; pat++) {
                    fx_image img;
                    if (!FXT_CHECK_OK(
                            fx_image_alloc(ctx, &img, sizes[z][0], sizes[z][1], c, types[t]), ctx))
                        continue;
                    fill(&img, (pattern)pat, seed++);
                    for (int k = 0; k < COUNT(compressions); k++)
                        for (int f = FX_PNG_FILTER_AUTO; f <= FX_PNG_FILTER_PAETH; f++) {
                            fxi_png_params p = {compressions[k], f, 1 + (int)(seed % 3)};
                            fxi_buffer file = {0};
                            round_trip(ctx, &img, &p, &file);
                            fxi_buffer_release(&file);
                        }
                    fx_image_free(&img);
                }
    fx_context_destroy(ctx);
}

/* 1 to 64 bands, and heights of 1 row and of fewer rows than threads. */
FXT_TEST(every_band_count_round_trips)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 8);
    enum { HEIGHT = 64, WIDTH = 45 };
    fx_image img;
    if (!FXT_CHECK_OK(fx_image_alloc(ctx, &img, WIDTH, HEIGHT, 3, FX_U8), ctx)) return;
    fill(&img, PATTERN_SMOOTH, 5);
    for (int k = 0; k < COUNT(compressions); k++)
        for (int rows = 1; rows <= HEIGHT; rows++) {
            fxi_png_params p = {compressions[k], FX_PNG_FILTER_AUTO, rows};
            fxi_buffer file = {0};
            round_trip(ctx, &img, &p, &file);
            fxi_buffer_release(&file);
        }
    for (int h = 1; h < 8; h++) { /* fewer rows than the 8 threads */
        fx_image small = img;
        small.height = h;
        for (int k = 0; k < COUNT(compressions); k++) {
            fxi_png_params p = {compressions[k], FX_PNG_FILTER_AUTO, 1};
            fxi_buffer file = {0};
            round_trip(ctx, &small, &p, &file);
            fxi_buffer_release(&file);
        }
    }
    fx_image_free(&img);
    fx_context_destroy(ctx);
}

FXT_TEST(one_and_sixteen_threads_write_the_same_file)
{
    fx_context *one = fxt_context(FX_DEVICE_CPU, 1), *many = fxt_context(FX_DEVICE_CPU, 16);
    fx_image img;
    if (!FXT_CHECK_OK(fx_image_alloc(one, &img, 301, 203, 4, FX_U16), one)) return;
    fill(&img, PATTERN_SMOOTH, 9);
    for (int k = 0; k < COUNT(compressions); k++) {
        fxi_png_params p = {compressions[k], FX_PNG_FILTER_AUTO, 4};
        fxi_buffer a = {0}, b = {0};
        if (round_trip(one, &img, &p, &a) && round_trip(many, &img, &p, &b))
            FXT_CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
        fxi_buffer_release(&a);
        fxi_buffer_release(&b);
    }
    fx_image_free(&img);
    fx_context_destroy(one);
    fx_context_destroy(many);
}

/* ---- the streaming form ---- */

typedef struct growing {
    uint8_t *data;
    size_t size;
    int writes;
} growing;

static fx_status append(void *opaque, const void *data, size_t size)
{
    growing *g = opaque;
    uint8_t *more = realloc(g->data, g->size + size);
    if (!more) return FX_ENOMEM;
    memcpy(more + g->size, data, size);
    g->data = more;
    g->size += size;
    g->writes++;
    return FX_OK;
}

/* Rows handed over in uneven pieces give the same bytes as the whole image. */
FXT_TEST(streamed_rows_give_the_whole_image_file)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    enum { WIDTH = 50, HEIGHT = 97, BAND_ROWS = 8 };
    fx_image img;
    if (!FXT_CHECK_OK(fx_image_alloc(ctx, &img, WIDTH, HEIGHT, 3, FX_U8), ctx)) return;
    fill(&img, PATTERN_SMOOTH, 21);
    uint64_t seed = 4;
    for (int k = 0; k < COUNT(compressions); k++) {
        fxi_png_params p = {compressions[k], FX_PNG_FILTER_AUTO, BAND_ROWS};
        fxi_buffer whole = {0};
        if (!FXT_CHECK_OK(fxi_png_encode(ctx, &img, &p, &whole), ctx)) continue;
        growing g = {0};
        fxi_png_stream *s;
        if (FXT_CHECK_OK(fxi_png_stream_open_with(ctx, WIDTH, HEIGHT, 3, FX_U8, &p,
                                                  (fxi_byte_sink){append, &g}, &s),
                         ctx)) {
            fx_status st = FX_OK;
            for (int y = 0; st == FX_OK && y < HEIGHT;) {
                int n = 1 + (int)(fxt_rand(&seed) % 20);
                if (n > HEIGHT - y) n = HEIGHT - y;
                fx_image band = img;
                band.data = fx_image_row(&img, y);
                band.height = n;
                /* The caller may reuse its rows once the call returns. */
                fx_image copy;
                st = fx_image_alloc(ctx, &copy, WIDTH, n, 3, FX_U8);
                if (st != FX_OK) break;
                for (int r = 0; r < n; r++)
                    memcpy(fx_image_row(&copy, r), fx_image_row(&band, r), (size_t)WIDTH * 3);
                st = fxi_png_stream_write_rows(s, &copy);
                memset(copy.data, 0xee, copy.stride * (size_t)n);
                fx_image_free(&copy);
                y += n;
            }
            if (FXT_CHECK_OK(st, ctx))
                FXT_CHECK_OK(fxi_png_stream_close(s), ctx);
            else
                fxi_png_stream_discard(s);
            FXT_CHECK(g.writes > 2); /* bytes left as bands were done, not only at close */
            FXT_CHECK(g.size == whole.size && memcmp(g.data, whole.data, g.size) == 0);
        }
        free(g.data);
        fxi_buffer_release(&whole);
    }
    fx_image_free(&img);
    fx_context_destroy(ctx);
}

FXT_TEST(stream_misuse_is_reported)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    fx_image img;
    if (!FXT_CHECK_OK(fx_image_alloc(ctx, &img, 4, 6, 1, FX_U8), ctx)) return;
    fill(&img, PATTERN_NOISE, 1);
    growing g = {0};
    fxi_png_stream *s;
    fxi_png_params p = {FX_PNG_COMPRESSION_FAST, FX_PNG_FILTER_AUTO, 0};
    if (FXT_CHECK_OK(
            fxi_png_stream_open_with(ctx, 4, 5, 1, FX_U8, &p, (fxi_byte_sink){append, &g}, &s),
            ctx)) {
        FXT_CHECK_STATUS(fxi_png_stream_write_rows(s, &img), FX_EINVAL, ctx); /* 6 > 5 rows */
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "more rows");
        fx_image two = img;
        two.height = 2;
        FXT_CHECK_OK(fxi_png_stream_write_rows(s, &two), ctx);
        FXT_CHECK_STATUS(fxi_png_stream_close(s), FX_EINVAL, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "closed after 2 of 5 rows");
    }
    p.compression = 10;
    FXT_CHECK_STATUS(
        fxi_png_stream_open_with(ctx, 4, 5, 1, FX_U8, &p, (fxi_byte_sink){append, &g}, &s),
        FX_EINVAL, ctx);
    p.compression = FX_PNG_COMPRESSION_FAST;
    p.filter = FX_PNG_FILTER_PAETH + 1;
    FXT_CHECK_STATUS(
        fxi_png_stream_open_with(ctx, 4, 5, 1, FX_U8, &p, (fxi_byte_sink){append, &g}, &s),
        FX_EINVAL, ctx);
    free(g.data);
    fx_image_free(&img);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(coder_inflates_on_any_distribution), FXT_CASE(adler32_matches_zlib),
         FXT_CASE(coder_limits_codes_to_15_bits),
         FXT_CASE(every_layout_filter_and_level_round_trips),
         FXT_CASE(every_band_count_round_trips),
         FXT_CASE(one_and_sixteen_threads_write_the_same_file),
         FXT_CASE(streamed_rows_give_the_whole_image_file), FXT_CASE(stream_misuse_is_reported))
