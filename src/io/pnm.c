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
#define PFM_SCALE_TOKEN_MAX 64

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
    FXI_RETURN_IF(c->p == c->end, FX_EFORMAT, "truncated: the data ends before the %s", what);
    FXI_RETURN_IF(!is_digit(*c->p), FX_EFORMAT, "%s: expected a number, found '%c'", what,
                 is_space(*c->p) || (*c->p >= 0x20 && *c->p < 0x7f) ? *c->p : '?');
    uint64_t v = 0;
    for (; c->p < c->end && is_digit(*c->p); c->p++) {
        unsigned d = (unsigned)(*c->p - '0');
        FXI_RETURN_IF(v > (max - d) / 10, FX_EFORMAT, "%s: number too large (more than %llu)", what,
                     (unsigned long long)max);
        v = v * 10 + d;
    }
    FXI_RETURN_IF(c->p < c->end && !is_space(*c->p), FX_EFORMAT, "%s: junk after the number", what);
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
    FXI_RETURN_IF(len == 0, FX_EFORMAT, "truncated: the data ends before the PFM scale");
    FXI_RETURN_IF(len >= PFM_SCALE_TOKEN_MAX, FX_EFORMAT, "PFM scale: %zu characters is too long",
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
        FXI_RETURN_IF(s == end || !is_digit(*s), FX_EFORMAT, "PFM scale: bad exponent");
        while (s < end && is_digit(*s))
            s++;
    }
    FXI_RETURN_IF(!digits || s != end, FX_EFORMAT, "PFM scale: \"%.*s\" is not a number", (int)len,
                 (const char *)start);
    FXI_RETURN_IF(!nonzero, FX_EFORMAT, "PFM scale is zero (its sign gives the byte order)");
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
    FXI_TRY(read_number(ctx, c, "width", UINT64_MAX, &h->width));
    FXI_TRY(read_number(ctx, c, "height", UINT64_MAX, &h->height));
    if (h->kind == PNM_FLOAT) {
        h->maxval = 0;
        FXI_TRY(read_pfm_scale(ctx, c, &h->little_endian));
    } else {
        h->little_endian = false; /* 16-bit PNM samples are big-endian */
        uint64_t maxval;
        FXI_TRY(read_number(ctx, c, "maxval", PNM_MAX_MAXVAL, &maxval));
        FXI_RETURN_IF(maxval == 0, FX_EFORMAT, "maxval 0 (must be 1 to %u)", PNM_MAX_MAXVAL);
        h->maxval = (unsigned)maxval;
    }
    /* Exactly one whitespace byte separates the header from binary pixels. */
    FXI_RETURN_IF(c->p == c->end, FX_EFORMAT, "truncated: the data ends after the header");
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
    FXI_RETURN_IF(v > maxval, FX_EFORMAT, "sample value %u exceeds maxval %u", v, maxval);
    unsigned full = full_scale(maxval);
    if (maxval != full) v = (unsigned)(((uint64_t)v * full + maxval / 2) / maxval);
    if (img->type == FX_U8)
        img->data[index] = (uint8_t)v;
    else
        ((uint16_t *)(void *)img->data)[index] = (uint16_t)v;
    return FX_OK;
}

static fxi_pnm_layout layout_of(const pnm_header *h)
{
    fxi_pnm_layout lay = {
        .width = (int)h->width,
        .height = (int)h->height,
        .channels = h->channels,
        .type = h->kind == PNM_FLOAT       ? FX_F32
                : h->maxval > U8_MAX_VALUE ? FX_U16
                                           : FX_U8,
        .maxval = h->maxval,
        .pfm = h->kind == PNM_FLOAT,
        .little_endian = h->little_endian,
        .ascii = h->kind == PNM_ASCII,
    };
    /* The header passed the limits, so a row's bytes fit. */
    lay.file_row_bytes = (size_t)lay.width * (size_t)lay.channels * fx_sample_size(lay.type);
    return lay;
}

static fx_status alloc_for(fx_context *ctx, const pnm_header *h, fx_image *img)
{
    fxi_pnm_layout lay = layout_of(h);
    return fx_image_alloc(ctx, img, lay.width, lay.height, lay.channels, lay.type);
}

/* Pixel bytes of an image: width * height * channels * bytes per sample. */
static fx_status data_bytes(fx_context *ctx, const pnm_header *h, size_t sample_bytes, size_t *out)
{
    size_t samples;
    FXI_RETURN_IF(
        !fxi_mul3_size((size_t)h->width, (size_t)h->height, (size_t)h->channels, &samples) ||
            !fxi_mul_size(samples, sample_bytes, out),
        FX_EOVERFLOW, "image %llux%llu: size overflows", (unsigned long long)h->width,
        (unsigned long long)h->height);
    return FX_OK;
}

/* ---- binary pixels: placed by one copy or read, then finished in place ---- */

/* A plain loop over a whole run of samples, which compilers turn into vector code. */
static void swap32(uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = __builtin_bswap32(v[i]);
}

/* The largest sample is checked against maxval first, then every sample becomes
 * v * full / maxval rounded to nearest (see full_scale). */
#define DEFINE_RESCALE(name, type, wide)                                                           \
    static fx_status name(fx_context *ctx, type *v, size_t n, unsigned maxval)                     \
    {                                                                                              \
        type largest = 0;                                                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            largest = v[i] > largest ? v[i] : largest;                                             \
        FXI_RETURN_IF(largest > maxval, FX_EFORMAT, "sample value %u exceeds maxval %u",            \
                     (unsigned)largest, maxval);                                                   \
        wide full = full_scale(maxval);                                                            \
        for (size_t i = 0; i < n; i++)                                                             \
            v[i] = (type)(((wide)v[i] * full + maxval / 2) / maxval);                              \
        return FX_OK;                                                                              \
    }
DEFINE_RESCALE(rescale8, uint8_t, uint32_t)
DEFINE_RESCALE(rescale16, uint16_t, uint64_t)

/* One run of n samples of file bytes at p, turned into samples. */
static fx_status finish_run(fx_context *ctx, const fxi_pnm_layout *lay, void *p, size_t n)
{
    bool little = fxi_host_little_endian();
    switch (lay->type) {
    case FX_F32:
        if (lay->little_endian != little) swap32(p, n);
        return FX_OK;
    case FX_U16:
        if (little) fxi_swap16(p, n); /* 16-bit samples are big-endian in the file */
        return lay->maxval == U16_MAX_VALUE ? FX_OK : rescale16(ctx, p, n, lay->maxval);
    default: return lay->maxval == U8_MAX_VALUE ? FX_OK : rescale8(ctx, p, n, lay->maxval);
    }
}

fx_status fxi_pnm_finish_band(fx_context *ctx, const fxi_pnm_layout *lay, fx_image *band, int rows)
{
    size_t row_samples = (size_t)lay->width * (size_t)lay->channels;
    if (band->stride == lay->file_row_bytes) /* tight rows: one run */
        return finish_run(ctx, lay, band->data, row_samples * (size_t)rows);
    for (int y = 0; y < rows; y++)
        FXI_TRY(finish_run(ctx, lay, fx_image_row(band, y), row_samples));
    return FX_OK;
}

fx_status fxi_pnm_read_rows(fx_context *ctx, const fxi_in_file *f, const fxi_pnm_layout *lay,
                            size_t header_len, int first, fx_image *band, int rows)
{
    struct iovec *iov;
    FXI_TRY(fxi_malloc(ctx, (size_t)rows * sizeof *iov, (void **)&iov));
    fxi_pnm_band_iovecs(lay, band, rows, iov);
    size_t got = 0, need = (size_t)rows * lay->file_row_bytes;
    fx_status st = fxi_in_readv_at(ctx, f, header_len + fxi_pnm_band_offset(lay, first, rows), iov,
                                   rows, &got);
    free(iov);
    FXI_TRY(st);
    FXI_RETURN_IF(got < need, FX_EIO, "file shrank while reading: %zu of %zu bytes", got, need);
    st = fxi_pnm_finish_band(ctx, lay, band, rows);
    if (st == FX_EFORMAT) fxi_error_prefix(ctx, "%s: ", lay->pfm ? "PFM" : "PNM");
    return st;
}

void fxi_pnm_band_iovecs(const fxi_pnm_layout *lay, const fx_image *band, int rows,
                         struct iovec *iov)
{
    for (int k = 0; k < rows; k++) {
        int y = lay->pfm ? rows - 1 - k : k; /* PFM: the file's next row is the one above */
        iov[k].iov_base = fx_image_row(band, y);
        iov[k].iov_len = lay->file_row_bytes;
    }
}

uint64_t fxi_pnm_band_offset(const fxi_pnm_layout *lay, int image_row, int rows)
{
    int file_row = lay->pfm ? lay->height - image_row - rows : image_row;
    return (uint64_t)file_row * lay->file_row_bytes;
}

fx_status fxi_pnm_data_bytes(fx_context *ctx, const fxi_pnm_layout *lay, size_t *bytes)
{
    FXI_RETURN_IF(!fxi_mul_size(lay->file_row_bytes, (size_t)lay->height, bytes), FX_EOVERFLOW,
                 "image %dx%d: size overflows", lay->width, lay->height);
    return FX_OK;
}

fx_status fxi_pnm_truncated(fx_context *ctx, const fxi_pnm_layout *lay, uint64_t have)
{
    size_t need = 0;
    FXI_TRY(fxi_pnm_data_bytes(ctx, lay, &need));
    return fxi_error(ctx, FX_EFORMAT, "%s: truncated: expected %zu bytes of pixel data, found %llu",
                     lay->pfm ? "PFM" : "PNM", need, (unsigned long long)have);
}

/* Binary pixels from memory: copied row by row into place, then finished. */
static fx_status decode_binary(fx_context *ctx, cursor *c, const pnm_header *h, fx_image *img)
{
    fxi_pnm_layout lay = layout_of(h);
    size_t need = 0;
    FXI_TRY(fxi_pnm_data_bytes(ctx, &lay, &need));
    size_t have = (size_t)(c->end - c->p);
    FXI_RETURN_IF(have < need, FX_EFORMAT, "truncated: expected %zu bytes of pixel data, found %zu",
                 need, have);
    FXI_TRY(fx_image_alloc(ctx, img, lay.width, lay.height, lay.channels, lay.type));
    for (int y = 0; y < img->height; y++) {
        int file_row = lay.pfm ? img->height - 1 - y : y;
        memcpy(fx_image_row(img, y), c->p + (size_t)file_row * lay.file_row_bytes,
               lay.file_row_bytes);
    }
    return fxi_pnm_finish_band(ctx, &lay, img, img->height);
}

static fx_status decode_ascii(fx_context *ctx, cursor *c, const pnm_header *h, fx_image *img)
{
    size_t count = 0, min_bytes;
    FXI_TRY(data_bytes(ctx, h, 1, &count));
    /* Each sample takes at least a digit and a separator: reject a cut file before
     * allocating for it. */
    FXI_RETURN_IF(!fxi_mul_size(count, 2, &min_bytes) || (size_t)(c->end - c->p) < min_bytes - 1,
                 FX_EFORMAT, "truncated: %zu ASCII samples cannot fit in %zu bytes", count,
                 (size_t)(c->end - c->p));
    FXI_TRY(alloc_for(ctx, h, img));
    for (size_t i = 0; i < count; i++) {
        uint64_t v;
        FXI_TRY(read_number(ctx, c, "sample", PNM_MAX_MAXVAL, &v));
        FXI_TRY(store_sample(ctx, img, i, (unsigned)v, h->maxval));
    }
    return FX_OK;
}

/* read_header, with the failure's message prefixed "PNM header: " or "PFM header: ". */
static fx_status read_header_named(fx_context *ctx, cursor *c, pnm_header *h)
{
    fx_status status = read_header(ctx, c, h);
    if (status != FX_OK) fxi_error_prefix(ctx, "%s header: ", h->kind == PNM_FLOAT ? "PFM" : "PNM");
    return status;
}

fx_status fxi_pnm_decode(fx_context *ctx, const uint8_t *data, size_t size, fx_image *img)
{
    memset(img, 0, sizeof *img);
    cursor c = {data, data + size};
    pnm_header h = {0};
    fx_status status = read_header_named(ctx, &c, &h);
    if (status != FX_OK) return status;
    status = h.kind == PNM_ASCII ? decode_ascii(ctx, &c, &h, img) : decode_binary(ctx, &c, &h, img);
    if (status != FX_OK) {
        fx_image_free(img);
        fxi_error_prefix(ctx, "%s: ", h.kind == PNM_FLOAT ? "PFM" : "PNM");
    }
    return status;
}

/* Parse the header at the start of data[0..size). *header_len: where the pixels
 * start. Errors are prefixed "PNM header: " / "PFM header: " as in the decoder,
 * and the shape is checked against the context's limits. */
static fx_status parse_header(fx_context *ctx, const uint8_t *data, size_t size,
                              fxi_pnm_layout *lay, size_t *header_len)
{
    cursor c = {data, data + size};
    pnm_header h = {0};
    fx_status status = read_header_named(ctx, &c, &h);
    if (status != FX_OK) return status;
    *lay = layout_of(&h);
    *header_len = (size_t)(c.p - data);
    return FX_OK;
}

bool fxi_pnm_try_header(fx_context *ctx, const uint8_t *data, size_t size, fxi_pnm_layout *lay,
                        size_t *header_len)
{
    char saved[FXI_ERROR_MAX];
    snprintf(saved, sizeof saved, "%s", ctx->error);
    fx_status saved_status = ctx->last_status;
    if (parse_header(ctx, data, size, lay, header_len) == FX_OK) return true;
    snprintf(ctx->error, sizeof ctx->error, "%s", saved);
    ctx->last_status = saved_status;
    return false;
}

/* ---- writing ---- */

/* Rows are converted in bounces of about this many bytes (whole rows, at least one). */
#define WRITE_BOUNCE_BYTES ((size_t)1 << 20)

fxi_pnm_layout fxi_pnm_layout_for(int width, int height, int channels, fx_sample_type type)
{
    fxi_pnm_layout lay = {
        .width = width,
        .height = height,
        .channels = channels,
        .type = type,
        .maxval = type == FX_U16 ? U16_MAX_VALUE : U8_MAX_VALUE,
        .pfm = type == FX_F32,
        .little_endian = true, /* PFM scale -1.0 */
    };
    lay.file_row_bytes = (size_t)width * (size_t)channels * fx_sample_size(type);
    return lay;
}

size_t fxi_pnm_header_text(const fxi_pnm_layout *lay, char *buf, size_t size)
{
    int n = lay->pfm ? snprintf(buf, size, "P%c\n%d %d\n-1.0\n", lay->channels == 3 ? 'F' : 'f',
                                lay->width, lay->height)
                     : snprintf(buf, size, "P%c\n%d %d\n%u\n", lay->channels == 3 ? '6' : '5',
                                lay->width, lay->height, lay->maxval);
    return n < 0 ? 0 : (size_t)n;
}

/* Copy the samples of band row y into dst with their bytes swapped. */
static void swapped_row(const fxi_pnm_layout *lay, const fx_image *band, int y, uint8_t *dst)
{
    size_t n = (size_t)lay->width * (size_t)lay->channels;
    memcpy(dst, fx_image_row(band, y), lay->file_row_bytes);
    if (lay->type == FX_U16)
        fxi_swap16((uint16_t *)(void *)dst, n);
    else
        swap32((uint32_t *)(void *)dst, n);
}

fx_status fxi_pnm_write_band(fx_context *ctx, fxi_out_file *out, const fxi_pnm_layout *lay,
                             const fx_image *band, int image_row, size_t header_len)
{
    int rows = band->height;
    uint64_t offset = header_len + fxi_pnm_band_offset(lay, image_row, rows);
    bool little = fxi_host_little_endian();
    /* The file holds the memory's bytes unless 16-bit on a little-endian host (PNM
     * is big-endian) or float on a big-endian one (we write little-endian PFM). */
    bool as_is = lay->type == FX_U8 || (lay->type == FX_U16) != little;
    if (as_is) {
        struct iovec *iov;
        FXI_TRY(fxi_malloc(ctx, (size_t)rows * sizeof *iov, (void **)&iov));
        fxi_pnm_band_iovecs(lay, band, rows, iov);
        fx_status st = fxi_out_pwritev(out, iov, rows, offset);
        free(iov);
        return st;
    }
    size_t per_bounce = WRITE_BOUNCE_BYTES / lay->file_row_bytes;
    if (per_bounce < 1) per_bounce = 1;
    if (per_bounce > (size_t)rows) per_bounce = (size_t)rows;
    uint8_t *bounce;
    FXI_TRY(fxi_malloc(ctx, per_bounce * lay->file_row_bytes, (void **)&bounce));
    fx_status st = FX_OK;
    for (int k = 0; k < rows && st == FX_OK;) { /* k: rows done, in file order */
        int n = rows - k < (int)per_bounce ? rows - k : (int)per_bounce;
        for (int i = 0; i < n; i++) {
            int y = lay->pfm ? rows - 1 - (k + i) : k + i;
            swapped_row(lay, band, y, bounce + (size_t)i * lay->file_row_bytes);
        }
        struct iovec one = {bounce, (size_t)n * lay->file_row_bytes};
        st = fxi_out_pwritev(out, &one, 1, offset + (uint64_t)k * lay->file_row_bytes);
        k += n;
    }
    free(bounce);
    return st;
}
