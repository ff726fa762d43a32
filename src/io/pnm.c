/* PGM/PPM and PFM: a small, strict reader and writer.
 *
 * Read: P5/P6 (binary) and P2/P3 (ASCII) with maxval 1..65535, comments in the
 * header; PFM "Pf" (gray) and "PF" (RGB) float. Written: P5/P6 with maxval 255
 * or 65535, and little-endian PFM. Every header number is parsed with overflow
 * checks, the shape is checked against the limits and the pixel data's length
 * before anything is allocated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"

#define PNM_MAX_MAXVAL 65535u
#define U8_MAX_VALUE 255u
#define U16_MAX_VALUE 65535u
#define PFM_SAMPLE_BYTES 4
#define PFM_SCALE_TOKEN_MAX 64
/* Header text written before the pixels, e.g. "P6\n2147483647 2147483647\n65535\n". */
#define PNM_HEADER_MAX 64

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

typedef enum pnm_kind { PNM_BINARY, PNM_ASCII, PNM_FLOAT } pnm_kind;

typedef struct pnm_header {
    pnm_kind kind;
    int channels;
    uint64_t width, height;
    unsigned maxval;    /* integer kinds */
    bool little_endian; /* PFM */
} pnm_header;

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

static void skip_space_and_comments(cursor *c)
{
    while (c->p < c->end) {
        if (is_space(*c->p)) {
            c->p++;
        } else if (*c->p == '#') {
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r')
                c->p++;
        } else {
            break;
        }
    }
}

/* An unsigned decimal number after optional whitespace/comments, ending at
 * whitespace or the end of data; at most `max`. */
static fx_status read_number(fx_context *ctx, cursor *c, const char *what, uint64_t max,
                             uint64_t *out)
{
    skip_space_and_comments(c);
    FX_RETURN_IF(c->p == c->end, FX_EFORMAT, "truncated: the data ends before the %s", what);
    FX_RETURN_IF(!is_digit(*c->p), FX_EFORMAT, "%s: expected a number, found '%c'", what,
                 is_space(*c->p) || (*c->p >= 0x20 && *c->p < 0x7f) ? *c->p : '?');
    uint64_t v = 0;
    for (; c->p < c->end && is_digit(*c->p); c->p++) {
        unsigned d = (unsigned)(*c->p - '0');
        FX_RETURN_IF(v > (max - d) / 10, FX_EFORMAT, "%s: number too large (more than %llu)", what,
                     (unsigned long long)max);
        v = v * 10 + d;
    }
    FX_RETURN_IF(c->p < c->end && !is_space(*c->p), FX_EFORMAT, "%s: junk after the number", what);
    *out = v;
    return FX_OK;
}

/* The PFM scale: a decimal number whose sign gives the byte order (negative:
 * little-endian). Its magnitude is a brightness hint that readers ignore, and so
 * do we. Parsed by hand because strtod depends on the locale's decimal point. */
static fx_status read_pfm_scale(fx_context *ctx, cursor *c, bool *little_endian)
{
    skip_space_and_comments(c);
    const uint8_t *start = c->p;
    while (c->p < c->end && !is_space(*c->p))
        c->p++;
    size_t len = (size_t)(c->p - start);
    FX_RETURN_IF(len == 0, FX_EFORMAT, "truncated: the data ends before the PFM scale");
    FX_RETURN_IF(len >= PFM_SCALE_TOKEN_MAX, FX_EFORMAT, "PFM scale: %zu characters is too long",
                 len);
    const uint8_t *s = start, *end = c->p;
    bool negative = *s == '-';
    if (*s == '-' || *s == '+') s++;
    bool digits = false, nonzero = false;
    for (; s < end && is_digit(*s); s++)
        digits = true, nonzero |= *s != '0';
    if (s < end && *s == '.')
        for (s++; s < end && is_digit(*s); s++)
            digits = true, nonzero |= *s != '0';
    if (digits && s < end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < end && (*s == '-' || *s == '+')) s++;
        FX_RETURN_IF(s == end || !is_digit(*s), FX_EFORMAT, "PFM scale: bad exponent");
        while (s < end && is_digit(*s))
            s++;
    }
    FX_RETURN_IF(!digits || s != end, FX_EFORMAT, "PFM scale: \"%.*s\" is not a number", (int)len,
                 (const char *)start);
    FX_RETURN_IF(!nonzero, FX_EFORMAT, "PFM scale is zero (its sign gives the byte order)");
    *little_endian = negative;
    return FX_OK;
}

static fx_status read_header(fx_context *ctx, cursor *c, pnm_header *h)
{
    char type = (char)c->p[1]; /* the caller matched 'P', type, whitespace */
    c->p += 2;
    h->kind = type == '5' || type == '6'   ? PNM_BINARY
              : type == 'f' || type == 'F' ? PNM_FLOAT
                                           : PNM_ASCII;
    h->channels = type == '3' || type == '6' || type == 'F' ? 3 : 1;
    FX_TRY(read_number(ctx, c, "width", UINT64_MAX, &h->width));
    FX_TRY(read_number(ctx, c, "height", UINT64_MAX, &h->height));
    if (h->kind == PNM_FLOAT) {
        h->maxval = 0;
        FX_TRY(read_pfm_scale(ctx, c, &h->little_endian));
    } else {
        uint64_t maxval;
        FX_TRY(read_number(ctx, c, "maxval", PNM_MAX_MAXVAL, &maxval));
        FX_RETURN_IF(maxval == 0, FX_EFORMAT, "maxval 0 (must be 1 to %u)", PNM_MAX_MAXVAL);
        h->maxval = (unsigned)maxval;
    }
    /* Exactly one whitespace byte separates the header from binary pixels. */
    FX_RETURN_IF(c->p == c->end, FX_EFORMAT, "truncated: the data ends after the header");
    if (h->kind != PNM_ASCII) c->p++;
    return fx_image_check_limits(ctx, h->width, h->height, (uint64_t)h->channels);
}

/* ---- samples ---- */

/* maxval 255 and 65535 are used as they are; any other maxval is rescaled to
 * the full range of the output type (u8 up to 255, u16 above), rounding to
 * nearest, so that white stays white (maxval 1023 -> 65535). */
static unsigned full_scale(unsigned maxval)
{
    return maxval <= U8_MAX_VALUE ? U8_MAX_VALUE : U16_MAX_VALUE;
}

static fx_status store_sample(fx_context *ctx, fx_image *img, size_t index, unsigned v,
                              unsigned maxval)
{
    FX_RETURN_IF(v > maxval, FX_EFORMAT, "sample value %u exceeds maxval %u", v, maxval);
    unsigned full = full_scale(maxval);
    if (maxval != full) v = (unsigned)(((uint64_t)v * full + maxval / 2) / maxval);
    if (img->type == FX_U8)
        img->data[index] = (uint8_t)v;
    else
        ((uint16_t *)(void *)img->data)[index] = (uint16_t)v;
    return FX_OK;
}

static fx_status check_data_length(fx_context *ctx, const cursor *c, size_t need)
{
    size_t have = (size_t)(c->end - c->p);
    FX_RETURN_IF(have < need, FX_EFORMAT, "truncated: expected %zu bytes of pixel data, found %zu",
                 need, have);
    return FX_OK;
}

static fx_status alloc_for(fx_context *ctx, const pnm_header *h, fx_image *img)
{
    fx_sample_type type = h->kind == PNM_FLOAT ? FX_F32 : h->maxval > U8_MAX_VALUE ? FX_U16 : FX_U8;
    return fx_image_alloc(ctx, img, (int)h->width, (int)h->height, h->channels, type);
}

/* Pixel bytes of a binary image: width * height * channels * bytes per sample. */
static fx_status data_bytes(fx_context *ctx, const pnm_header *h, size_t sample_bytes, size_t *out)
{
    size_t samples;
    FX_RETURN_IF(
        !fxi_mul3_size((size_t)h->width, (size_t)h->height, (size_t)h->channels, &samples) ||
            !fxi_mul_size(samples, sample_bytes, out),
        FX_EOVERFLOW, "image %llux%llu: size overflows", (unsigned long long)h->width,
        (unsigned long long)h->height);
    return FX_OK;
}

static fx_status decode_binary(fx_context *ctx, cursor *c, const pnm_header *h, fx_image *img)
{
    size_t sample_bytes = h->maxval > U8_MAX_VALUE ? 2 : 1, need = 0;
    FX_TRY(data_bytes(ctx, h, sample_bytes, &need));
    FX_TRY(check_data_length(ctx, c, need));
    FX_TRY(alloc_for(ctx, h, img));
    size_t count = need / sample_bytes;
    const uint8_t *p = c->p;
    if (h->maxval == U8_MAX_VALUE) {
        memcpy(img->data, p, need); /* tight rows on both sides */
        return FX_OK;
    }
    for (size_t i = 0; i < count; i++) {
        /* 16-bit samples are big-endian in the file. */
        unsigned v = sample_bytes == 2 ? (unsigned)p[2 * i] << 8 | p[2 * i + 1] : p[i];
        FX_TRY(store_sample(ctx, img, i, v, h->maxval));
    }
    return FX_OK;
}

static fx_status decode_ascii(fx_context *ctx, cursor *c, const pnm_header *h, fx_image *img)
{
    size_t count = 0, min_bytes;
    FX_TRY(data_bytes(ctx, h, 1, &count));
    /* Each sample takes at least a digit and a separator: reject a cut file before
     * allocating for it. */
    FX_RETURN_IF(!fxi_mul_size(count, 2, &min_bytes) || (size_t)(c->end - c->p) < min_bytes - 1,
                 FX_EFORMAT, "truncated: %zu ASCII samples cannot fit in %zu bytes", count,
                 (size_t)(c->end - c->p));
    FX_TRY(alloc_for(ctx, h, img));
    for (size_t i = 0; i < count; i++) {
        uint64_t v;
        FX_TRY(read_number(ctx, c, "sample", PNM_MAX_MAXVAL, &v));
        FX_TRY(store_sample(ctx, img, i, (unsigned)v, h->maxval));
    }
    return FX_OK;
}

static float load_float(const uint8_t *b, bool little_endian)
{
    uint32_t bits =
        little_endian
            ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
            : (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static fx_status decode_pfm(fx_context *ctx, cursor *c, const pnm_header *h, fx_image *img)
{
    size_t need = 0;
    FX_TRY(data_bytes(ctx, h, PFM_SAMPLE_BYTES, &need));
    FX_TRY(check_data_length(ctx, c, need));
    FX_TRY(alloc_for(ctx, h, img));
    size_t row_samples = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        /* PFM stores rows bottom to top. */
        const uint8_t *src = c->p + (size_t)(img->height - 1 - y) * row_samples * PFM_SAMPLE_BYTES;
        float *dst = fx_image_row(img, y);
        for (size_t i = 0; i < row_samples; i++)
            dst[i] = load_float(src + i * PFM_SAMPLE_BYTES, h->little_endian);
    }
    return FX_OK;
}

fx_status fxi_pnm_decode(fx_context *ctx, const uint8_t *data, size_t size, fx_image *img)
{
    memset(img, 0, sizeof *img);
    cursor c = {data, data + size};
    pnm_header h;
    fx_status status = read_header(ctx, &c, &h);
    if (status != FX_OK) {
        fxi_error_prefix(ctx, "%s header: ", h.kind == PNM_FLOAT ? "PFM" : "PNM");
        return status;
    }
    switch (h.kind) {
    case PNM_BINARY: status = decode_binary(ctx, &c, &h, img); break;
    case PNM_ASCII: status = decode_ascii(ctx, &c, &h, img); break;
    default: status = decode_pfm(ctx, &c, &h, img); break;
    }
    if (status != FX_OK) {
        fx_image_free(img);
        fxi_error_prefix(ctx, "%s: ", h.kind == PNM_FLOAT ? "PFM" : "PNM");
    }
    return status;
}

/* ---- writing ---- */

static fx_status alloc_output(fx_context *ctx, const char *header, size_t pixel_bytes,
                              fxi_buffer *out, uint8_t **pixels)
{
    size_t header_len = strlen(header), total;
    FX_RETURN_IF(!fxi_add_size(header_len, pixel_bytes, &total), FX_EOVERFLOW,
                 "image file size overflows");
    void *buf;
    FX_TRY(fxi_malloc(ctx, total, &buf));
    memcpy(buf, header, header_len);
    out->data = buf;
    out->size = total;
    out->release = free;
    *pixels = out->data + header_len;
    return FX_OK;
}

fx_status fxi_pnm_encode(fx_context *ctx, const fx_image *img, fxi_buffer *out)
{
    memset(out, 0, sizeof *out);
    bool wide = img->type == FX_U16;
    char header[PNM_HEADER_MAX];
    snprintf(header, sizeof header, "P%c\n%d %d\n%u\n", img->channels == 3 ? '6' : '5', img->width,
             img->height, wide ? U16_MAX_VALUE : U8_MAX_VALUE);
    size_t row_samples = (size_t)img->width * (size_t)img->channels;
    size_t row_bytes = row_samples * (wide ? 2 : 1), pixel_bytes;
    FX_RETURN_IF(!fxi_mul_size(row_bytes, (size_t)img->height, &pixel_bytes), FX_EOVERFLOW,
                 "image file size overflows");
    uint8_t *dst = NULL;
    FX_TRY(alloc_output(ctx, header, pixel_bytes, out, &dst));
    for (int y = 0; y < img->height; y++, dst += row_bytes) {
        const uint8_t *row = fx_image_row(img, y);
        if (!wide) {
            memcpy(dst, row, row_bytes);
            continue;
        }
        for (size_t i = 0; i < row_samples; i++) {
            uint16_t v;
            memcpy(&v, row + 2 * i, sizeof v);
            dst[2 * i] = (uint8_t)(v >> 8); /* big-endian */
            dst[2 * i + 1] = (uint8_t)v;
        }
    }
    return FX_OK;
}

fx_status fxi_pfm_encode(fx_context *ctx, const fx_image *img, fxi_buffer *out)
{
    memset(out, 0, sizeof *out);
    char header[PNM_HEADER_MAX];
    /* Scale -1.0: little-endian samples, no brightness scaling. */
    snprintf(header, sizeof header, "P%c\n%d %d\n-1.0\n", img->channels == 3 ? 'F' : 'f',
             img->width, img->height);
    size_t row_samples = (size_t)img->width * (size_t)img->channels;
    size_t row_bytes = row_samples * PFM_SAMPLE_BYTES, pixel_bytes;
    FX_RETURN_IF(!fxi_mul_size(row_bytes, (size_t)img->height, &pixel_bytes), FX_EOVERFLOW,
                 "image file size overflows");
    uint8_t *dst = NULL;
    FX_TRY(alloc_output(ctx, header, pixel_bytes, out, &dst));
    for (int y = img->height - 1; y >= 0; y--, dst += row_bytes) { /* bottom row first */
        const float *row = fx_image_row(img, y);
        for (size_t i = 0; i < row_samples; i++) {
            uint32_t bits;
            memcpy(&bits, &row[i], sizeof bits);
            for (int b = 0; b < PFM_SAMPLE_BYTES; b++)
                dst[PFM_SAMPLE_BYTES * i + (size_t)b] = (uint8_t)(bits >> (8 * b));
        }
    }
    return FX_OK;
}
