/* fxkit bench: NumPy's .npy files, the peers' input and output. The format is a magic
 * string, a version, a Python dict literal naming the type and shape, then the raw
 * samples (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html);
 * images go out as u8 HxWxC (channel order as fxkit holds them: RGB), audio as f64
 * frames x channels. Reading checks the type and the element count only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
/* Version 1.0 has a 2-byte header length, 2.0 and 3.0 a 4-byte one. */
#define NPY_V1_PREFIX 10
#define NPY_V2_PREFIX 12
/* The header is padded so that the data starts on this alignment. */
#define NPY_ALIGN 64
#define NPY_HEADER_MAX 4096

static int write_npy(const char *path, const char *descr, const char *shape, const void *data,
                     size_t row_bytes, size_t rows, size_t stride)
{
    char dict[NPY_HEADER_MAX];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    if (n < 0 || (size_t)n + NPY_ALIGN >= sizeof dict) return EINVAL;
    size_t len = (size_t)n;
    while ((NPY_V1_PREFIX + len + 1) % NPY_ALIGN)
        dict[len++] = ' ';
    dict[len++] = '\n';
    FILE *f = fopen(path, "wb");
    if (!f) return errno;
    unsigned char prefix[NPY_V1_PREFIX] = {0};
    memcpy(prefix, NPY_MAGIC, NPY_MAGIC_LEN);
    prefix[6] = 1; /* version 1.0 */
    prefix[8] = (unsigned char)(len & 0xff);
    prefix[9] = (unsigned char)(len >> 8);
    int err = 0;
    if (fwrite(prefix, 1, sizeof prefix, f) != sizeof prefix || fwrite(dict, 1, len, f) != len)
        err = EIO;
    const uint8_t *p = data;
    for (size_t r = 0; !err && r < rows; r++)
        if (fwrite(p + r * stride, 1, row_bytes, f) != row_bytes) err = EIO;
    if (fclose(f) && !err) err = EIO;
    return err;
}

int bench_npy_write_image(const char *path, const fx_image *img)
{
    char shape[96];
    snprintf(shape, sizeof shape, "(%d, %d, %d)", img->height, img->width, img->channels);
    return write_npy(path, "|u1", shape, img->data, (size_t)img->width * (size_t)img->channels,
                     (size_t)img->height, img->stride);
}

int bench_npy_write_audio(const char *path, const fx_audio *audio)
{
    char shape[96];
    snprintf(shape, sizeof shape, "(%zu, %d)", audio->frames, audio->channels);
    size_t bytes = audio->frames * (size_t)audio->channels * sizeof(double);
    return write_npy(path, "<f8", shape, audio->data, bytes, 1, bytes);
}

/* Product of the numbers in "(a, b, c)". */
static size_t shape_count(const char *header)
{
    const char *s = strstr(header, "'shape'");
    if (!s || !(s = strchr(s, '('))) return 0;
    size_t count = 1;
    for (s++; *s && *s != ')';) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s) {
            s++;
            continue;
        }
        count *= (size_t)v;
        s = end;
    }
    return count;
}

static int read_npy(const char *path, const char *descr, void *dst, size_t count, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return errno;
    unsigned char prefix[NPY_V2_PREFIX];
    int err = 0;
    size_t len = 0;
    if (fread(prefix, 1, NPY_V1_PREFIX, f) != NPY_V1_PREFIX ||
        memcmp(prefix, NPY_MAGIC, NPY_MAGIC_LEN)) {
        err = EINVAL;
    } else if (prefix[6] == 1) {
        len = (size_t)prefix[8] | (size_t)prefix[9] << 8;
    } else if (fread(prefix + NPY_V1_PREFIX, 1, 2, f) == 2) {
        len = (size_t)prefix[8] | (size_t)prefix[9] << 8 | (size_t)prefix[10] << 16 |
              (size_t)prefix[11] << 24;
    } else {
        err = EINVAL;
    }
    char header[NPY_HEADER_MAX];
    if (!err && (len >= sizeof header || fread(header, 1, len, f) != len)) err = EINVAL;
    if (!err) {
        header[len] = '\0';
        if (!strstr(header, descr) || !strstr(header, "'fortran_order': False") ||
            shape_count(header) != count)
            err = EINVAL;
    }
    if (!err && fread(dst, size, count, f) != count) err = EIO;
    fclose(f);
    return err;
}

int bench_npy_read_u8(const char *path, uint8_t *dst, size_t count)
{
    return read_npy(path, "u1'", dst, count, 1);
}

int bench_npy_read_f64(const char *path, double *dst, size_t count)
{
    return read_npy(path, "<f8'", dst, count, sizeof(double));
}

double bench_npy_diff_u8(fx_context *ctx, const char *path, const fx_image *expect)
{
    fx_image got;
    if (fx_image_alloc(ctx, &got, expect->width, expect->height, expect->channels, FX_U8) != FX_OK)
        return -1;
    double diff = bench_npy_read_u8(path, got.data, got.stride * (size_t)got.height)
                      ? -1
                      : bench_max_diff_images(&got, expect);
    fx_image_free(&got);
    return diff;
}
