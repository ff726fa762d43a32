/* Fuzz target: the PNG writer. The first bytes choose the layout (channels, depth,
 * width, compression, filter, rows per band, threads), the rest are the pixels;
 * the file the writer makes must decode (libspng, through fxi_png_decode) to the
 * same pixels. With the top bit of the first byte set, the bytes instead go
 * straight through the deflate coder as two bands and must inflate (zlib) to
 * themselves. Any mismatch aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_context.h"
#include "io/io_internal.h"
#include "io/png_deflate.h"

enum { HEADER_BYTES = 5, MAX_WIDTH = 256, LEVELS = FX_PNG_COMPRESSION_MAX + 2, FILTERS = 6 };
#define CODER_MODE 0x80u

static fx_context *threaded_context(void)
{
    static fx_context *ctx;
    if (!ctx) {
        fx_context_options opts;
        fx_context_options_init(&opts);
        opts.device = FX_DEVICE_CPU;
        opts.threads = 3;
        if (fx_context_create(&opts, &ctx) != FX_OK) abort();
    }
    return ctx;
}

static void fuzz_coder(const uint8_t *data, size_t size)
{
    size_t half = size / 2;
    uint8_t *out = malloc(fxi_deflate_band_bound(half) + fxi_deflate_band_bound(size - half));
    uint8_t *back = malloc(size + 1);
    if (!out || !back) abort();
    size_t a = fxi_deflate_band(data, half, false, out);
    size_t b = fxi_deflate_band(data + half, size - half, true, out + a);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) abort();
    z.next_in = out;
    z.avail_in = (uInt)(a + b);
    z.next_out = back;
    z.avail_out = (uInt)(size + 1);
    if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.avail_in || z.total_out != size ||
        (size && memcmp(back, data, size)))
        abort();
    inflateEnd(&z);
    free(out);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER_BYTES) return 0;
    if (data[0] & CODER_MODE) {
        fuzz_coder(data + 1, size - 1);
        return 0;
    }
    int channels = 1 + (data[0] & 3);
    fx_sample_type type = data[0] & 4 ? FX_U16 : FX_U8;
    bool threaded = data[0] & 8;
    int width = 1 + data[1] % MAX_WIDTH;
    fxi_png_params p = {data[2] % LEVELS - 1, data[3] % FILTERS, data[4] % 9};
    data += HEADER_BYTES;
    size -= HEADER_BYTES;
    size_t row = (size_t)width * (size_t)channels * fx_sample_size(type);
    int height = size / row ? (int)(size / row) : 1;
    fx_context *ctx = threaded ? threaded_context() : fuzz_context(0, 0);
    fx_image img, back;
    if (fx_image_alloc(ctx, &img, width, height, channels, type) != FX_OK) abort();
    size_t total = row * (size_t)height;
    memset(img.data, 0, total);
    memcpy(img.data, data, size < total ? size : total); /* tight rows: stride == row */
    fxi_buffer file = {0};
    if (fxi_png_encode(ctx, &img, &p, &file) != FX_OK) abort();
    if (fxi_png_decode(ctx, file.data, file.size, &back) != FX_OK) abort();
    if (back.width != width || back.height != height || back.channels != channels ||
        back.type != type || memcmp(back.data, img.data, total))
        abort();
    fx_image_free(&back);
    fx_image_free(&img);
    fxi_buffer_release(&file);
    return 0;
}
