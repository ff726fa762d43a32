/* JPEG through the TurboJPEG API: decode from memory, encode to memory. */
#include <limits.h>
#include <string.h>

#include <turbojpeg.h>

#include "io/io_internal.h"

/* From this quality up, chroma is kept at full resolution (4:4:4); below it is
 * halved both ways (4:2:0). This is ImageMagick's rule: at high quality the
 * chroma loss of 4:2:0 would dominate the error. */
#define JPEG_FULL_CHROMA_QUALITY 90

static fx_status tj_failure(fx_context *ctx, tjhandle tj, const char *what)
{
    return fxi_error(ctx, FX_EFORMAT, "JPEG %s: %s", what, tjGetErrorStr2(tj));
}

/* JPEG markers that matter for finding the frame header. */
#define JPEG_MARKER 0xff
#define JPEG_SOF_FIRST 0xc0
#define JPEG_SOF_LAST 0xcf
#define JPEG_DHT 0xc4
#define JPEG_JPG 0xc8
#define JPEG_DAC 0xcc
#define JPEG_RST_FIRST 0xd0
#define JPEG_RST_LAST 0xd7
#define JPEG_SOI 0xd8
#define JPEG_EOI 0xd9
#define JPEG_SOS 0xda
#define JPEG_TEM 0x01

static bool is_sof(uint8_t m)
{
    return m >= JPEG_SOF_FIRST && m <= JPEG_SOF_LAST && m != JPEG_DHT && m != JPEG_JPG &&
           m != JPEG_DAC;
}

/* Whether a complete frame header (SOFn segment) comes before the first scan.
 * tjDecompressHeader3 cannot tell: on a file cut before the SOF, libjpeg only
 * warns and TurboJPEG returns whatever size it has, so we look for it first. */
static bool has_frame_header(const uint8_t *d, size_t n)
{
    size_t p = 2; /* after SOI */
    while (p + 4 <= n) {
        if (d[p] != JPEG_MARKER) return false;
        uint8_t m = d[p + 1];
        if (m == JPEG_MARKER) { /* fill byte */
            p++;
            continue;
        }
        if (m == JPEG_SOI || m == JPEG_TEM || (m >= JPEG_RST_FIRST && m <= JPEG_RST_LAST)) {
            p += 2; /* markers without a segment */
            continue;
        }
        if (m == JPEG_SOS || m == JPEG_EOI) return false;
        size_t len = (size_t)d[p + 2] << 8 | d[p + 3];
        if (len < 2) return false;
        if (is_sof(m)) return len <= n - p - 2;
        p += 2 + len;
    }
    return false;
}

/* libjpeg reports a cut or damaged file only as a warning ("Premature end of JPEG
 * file", "Corrupt JPEG data: bad Huffman code") and fills the rest with gray, so a
 * warning fails the decode. The one exception is stray bytes between segments,
 * which many writers leave and which damage no pixel: OpenCV, libvips and
 * ImageMagick all decode those files, and so do we. */
#define JPEG_HARMLESS_WARNING "extraneous bytes before marker"

static bool is_harmless_warning(const char *message)
{
    return message && strstr(message, JPEG_HARMLESS_WARNING) != NULL;
}

/* After a TurboJPEG call failed: FX_OK for a harmless warning (logged), else the error. */
static fx_status tj_outcome(fx_context *ctx, tjhandle tj, const char *what)
{
    if (tjGetErrorCode(tj) == TJERR_WARNING && is_harmless_warning(tjGetErrorStr2(tj))) {
        fxi_log(ctx, FX_LOG_WARNING, "JPEG %s: %s (decoded anyway)", what, tjGetErrorStr2(tj));
        return FX_OK;
    }
    return tj_failure(ctx, tj, what);
}

static fx_status decode_with(fx_context *ctx, tjhandle tj, const uint8_t *data, size_t size,
                             fx_image *img)
{
    FXI_RETURN_IF(size > ULONG_MAX, FX_EUNSUPPORTED, "JPEG of %zu bytes is too large", size);
    FXI_RETURN_IF(!has_frame_header(data, size), FX_EFORMAT,
                 "JPEG header: no complete frame header (truncated or corrupt)");
    int width = 0, height = 0, subsamp, colorspace;
    if (tjDecompressHeader3(tj, data, (unsigned long)size, &width, &height, &subsamp, &colorspace))
        FXI_TRY(tj_outcome(ctx, tj, "header"));
    FXI_RETURN_IF(colorspace == TJCS_CMYK || colorspace == TJCS_YCCK, FX_EUNSUPPORTED,
                 "CMYK JPEG is not supported (convert it to RGB first)");
    bool gray = colorspace == TJCS_GRAY;
    int channels = gray ? 1 : 3;
    FXI_TRY(fx_image_check_limits(ctx, (uint64_t)width, (uint64_t)height, (uint64_t)channels));
    FXI_TRY(fx_image_alloc(ctx, img, width, height, channels, FX_U8));
    if (tjDecompress2(tj, data, (unsigned long)size, img->data, width, (int)img->stride, height,
                      gray ? TJPF_GRAY : TJPF_RGB, 0)) {
        fx_status st = tj_outcome(ctx, tj, "data");
        if (st != FX_OK) fx_image_free(img);
        return st;
    }
    return FX_OK;
}

fx_status fxi_jpeg_decode(fx_context *ctx, const uint8_t *data, size_t size, fx_image *img)
{
    memset(img, 0, sizeof *img);
    tjhandle tj = tjInitDecompress();
    FXI_RETURN_IF(!tj, FX_ENOMEM, "JPEG: cannot create a decoder: %s", tjGetErrorStr2(NULL));
    fx_status status = decode_with(ctx, tj, data, size, img);
    tjDestroy(tj);
    return status;
}

bool fxi_jpeg_has_frame_header(const uint8_t *data, size_t size)
{
    return has_frame_header(data, size);
}

fx_status fxi_jpeg_probe(fx_context *ctx, const uint8_t *data, size_t size, int *width,
                         int *height, int *channels)
{
    FXI_RETURN_IF(size > ULONG_MAX, FX_EUNSUPPORTED, "JPEG of %zu bytes is too large", size);
    FXI_RETURN_IF(!has_frame_header(data, size), FX_EFORMAT,
                 "JPEG header: no complete frame header (truncated or corrupt)");
    tjhandle tj = tjInitDecompress();
    FXI_RETURN_IF(!tj, FX_ENOMEM, "JPEG: cannot create a decoder: %s", tjGetErrorStr2(NULL));
    int subsamp, colorspace;
    fx_status st = FX_OK;
    if (tjDecompressHeader3(tj, data, (unsigned long)size, width, height, &subsamp, &colorspace))
        st = tj_outcome(ctx, tj, "header");
    tjDestroy(tj);
    FXI_TRY(st);
    FXI_RETURN_IF(colorspace == TJCS_CMYK || colorspace == TJCS_YCCK, FX_EUNSUPPORTED,
                 "CMYK JPEG is not supported (convert it to RGB first)");
    *channels = colorspace == TJCS_GRAY ? 1 : 3;
    return FX_OK;
}

static void tj_release(void *data)
{
    tjFree(data);
}

fx_status fxi_jpeg_encode(fx_context *ctx, const fx_image *img, int quality, fxi_buffer *out)
{
    memset(out, 0, sizeof *out);
    FXI_RETURN_IF(img->stride > INT_MAX, FX_EUNSUPPORTED, "JPEG: row stride %zu is too large",
                 img->stride);
    tjhandle tj = tjInitCompress();
    FXI_RETURN_IF(!tj, FX_ENOMEM, "JPEG: cannot create an encoder: %s", tjGetErrorStr2(NULL));
    bool gray = img->channels == 1;
    int subsamp = gray                                  ? TJSAMP_GRAY
                  : quality >= JPEG_FULL_CHROMA_QUALITY ? TJSAMP_444
                                                        : TJSAMP_420;
    unsigned char *jpeg = NULL;
    unsigned long jpeg_size = 0;
    fx_status status = FX_OK;
    if (tjCompress2(tj, img->data, img->width, (int)img->stride, img->height,
                    gray ? TJPF_GRAY : TJPF_RGB, &jpeg, &jpeg_size, subsamp, quality, 0)) {
        status = fxi_error(ctx, FX_EUNSUPPORTED, "JPEG encoder: %s", tjGetErrorStr2(tj));
        tjFree(jpeg);
    } else {
        out->data = jpeg;
        out->size = jpeg_size;
        out->release = tj_release;
    }
    tjDestroy(tj);
    return status;
}
