/* Image codecs: round trips at every depth and channel count each format holds,
 * peer-decoded goldens (PIL/numpy), the real samples, hostile and broken inputs,
 * limits and write errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fxtest.h"

/* ---- helpers ---- */

/* The checksum the peer (numpy) computed over the decoded samples in memory order:
 * sum of v[i] * (i % 65521 + 1), modulo 2^64, and the plain sum. */
#define CHECKSUM_PERIOD 65521
typedef struct checksum {
    uint64_t weighted, sum;
} checksum;

static double sample_at(const fx_image *img, size_t i)
{
    size_t per_row = (size_t)img->width * (size_t)img->channels;
    const uint8_t *row = fx_image_row(img, (int)(i / per_row));
    size_t x = i % per_row;
    switch (img->type) {
    case FX_U8: return row[x];
    case FX_U16: return ((const uint16_t *)(const void *)row)[x];
    default: return ((const float *)(const void *)row)[x];
    }
}

static size_t sample_count(const fx_image *img)
{
    return (size_t)img->width * (size_t)img->height * (size_t)img->channels;
}

static checksum image_checksum(const fx_image *img)
{
    checksum c = {0, 0};
    for (size_t i = 0, n = sample_count(img); i < n; i++) {
        uint64_t v = (uint64_t)sample_at(img, i);
        c.weighted += v * (i % CHECKSUM_PERIOD + 1);
        c.sum += v;
    }
    return c;
}

static void fill_random(fx_image *img, uint64_t seed)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        size_t n = (size_t)img->width * (size_t)img->channels;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = fxt_rand(&seed);
            if (img->type == FX_U8)
                row[i] = (uint8_t)r;
            else if (img->type == FX_U16)
                ((uint16_t *)(void *)row)[i] = (uint16_t)r;
            else
                ((float *)(void *)row)[i] =
                    (float)((double)(r >> 11) / 9007199254740992.0 * 4.0 - 1.5);
        }
    }
}

/* Largest absolute sample difference; -1 when the shapes differ. */
static double max_diff(const fx_image *a, const fx_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->type != b->type)
        return -1;
    double worst = 0;
    for (size_t i = 0, n = sample_count(a); i < n; i++) {
        double d = sample_at(a, i) - sample_at(b, i);
        if (d < 0) d = -d;
        if (d > worst) worst = d;
    }
    return worst;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static uint8_t *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static fx_context *limited_context(uint64_t max_pixels, int max_dimension)
{
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = FX_DEVICE_CPU;
    opts.threads = 1;
    opts.limits.max_pixels = max_pixels;
    opts.limits.max_dimension = max_dimension;
    fx_context *ctx = NULL;
    if (fx_context_create(&opts, &ctx) != FX_OK) exit(1);
    return ctx;
}

/* ---- goldens: tiny files made with PIL 13, decoded checksums from PIL/numpy ---- */

static const uint8_t PEER_JPEG_RGB[678] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
    0x00, 0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x05, 0x03, 0x04, 0x04, 0x04, 0x03, 0x05,
    0x04, 0x04, 0x04, 0x05, 0x05, 0x05, 0x06, 0x07, 0x0c, 0x08, 0x07, 0x07, 0x07, 0x07, 0x0f, 0x0b,
    0x0b, 0x09, 0x0c, 0x11, 0x0f, 0x12, 0x12, 0x11, 0x0f, 0x11, 0x11, 0x13, 0x16, 0x1c, 0x17, 0x13,
    0x14, 0x1a, 0x15, 0x11, 0x11, 0x18, 0x21, 0x18, 0x1a, 0x1d, 0x1d, 0x1f, 0x1f, 0x1f, 0x13, 0x17,
    0x22, 0x24, 0x22, 0x1e, 0x24, 0x1c, 0x1e, 0x1f, 0x1e, 0xff, 0xdb, 0x00, 0x43, 0x01, 0x05, 0x05,
    0x05, 0x07, 0x06, 0x07, 0x0e, 0x08, 0x08, 0x0e, 0x1e, 0x14, 0x11, 0x14, 0x1e, 0x1e, 0x1e, 0x1e,
    0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e,
    0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e,
    0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0xff, 0xc0,
    0x00, 0x11, 0x08, 0x00, 0x0b, 0x00, 0x0d, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11,
    0x01, 0xff, 0xc4, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
    0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03, 0x03, 0x02, 0x04, 0x03, 0x05,
    0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7d, 0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21,
    0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23,
    0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17,
    0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
    0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a,
    0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
    0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99,
    0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
    0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5,
    0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1,
    0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xff, 0xc4, 0x00, 0x1f, 0x01, 0x00, 0x03,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x11, 0x00,
    0x02, 0x01, 0x02, 0x04, 0x04, 0x03, 0x04, 0x07, 0x05, 0x04, 0x04, 0x00, 0x01, 0x02, 0x77, 0x00,
    0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13,
    0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15,
    0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27,
    0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
    0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6,
    0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4,
    0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2,
    0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9,
    0xfa, 0xff, 0xda, 0x00, 0x0c, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3f, 0x00, 0xf2,
    0xcf, 0x0a, 0xfc, 0x3c, 0xfb, 0x9f, 0xb8, 0xfd, 0x2b, 0xd4, 0x34, 0x6f, 0x87, 0x9f, 0xe8, 0xbf,
    0xea, 0x3f, 0x4a, 0xf4, 0x0f, 0x0a, 0xd8, 0xda, 0x7c, 0x9f, 0xe8, 0xe9, 0x5e, 0xa3, 0xa3, 0x58,
    0x59, 0xfd, 0x97, 0xfe, 0x3d, 0xd2, 0xb4, 0xc0, 0x62, 0xe5, 0x63, 0x8f, 0x81, 0xf8, 0xe7, 0x15,
    0xec, 0xd6, 0xfb, 0x1f, 0xff, 0xd9,
};
// (11, 13, 3) (12887147, 50141)
static const uint8_t PEER_JPEG_GRAY[368] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
    0x00, 0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x05, 0x03, 0x04, 0x04, 0x04, 0x03, 0x05,
    0x04, 0x04, 0x04, 0x05, 0x05, 0x05, 0x06, 0x07, 0x0c, 0x08, 0x07, 0x07, 0x07, 0x07, 0x0f, 0x0b,
    0x0b, 0x09, 0x0c, 0x11, 0x0f, 0x12, 0x12, 0x11, 0x0f, 0x11, 0x11, 0x13, 0x16, 0x1c, 0x17, 0x13,
    0x14, 0x1a, 0x15, 0x11, 0x11, 0x18, 0x21, 0x18, 0x1a, 0x1d, 0x1d, 0x1f, 0x1f, 0x1f, 0x13, 0x17,
    0x22, 0x24, 0x22, 0x1e, 0x24, 0x1c, 0x1e, 0x1f, 0x1e, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x0b,
    0x00, 0x0d, 0x01, 0x01, 0x11, 0x00, 0xff, 0xc4, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
    0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03,
    0x03, 0x02, 0x04, 0x03, 0x05, 0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7d, 0x01, 0x02, 0x03, 0x00,
    0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32,
    0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
    0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35,
    0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55,
    0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
    0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94,
    0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2,
    0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
    0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6,
    0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xff, 0xda,
    0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0xf2, 0x2f, 0x0a, 0x78, 0x13, 0xee, 0x7e, 0xe7,
    0xf4, 0xaf, 0x51, 0xd1, 0x7c, 0x09, 0xfe, 0x8b, 0xfe, 0xa7, 0xf4, 0xae, 0xbf, 0xc2, 0x96, 0x56,
    0xbf, 0x27, 0xee, 0x12, 0xbd, 0x47, 0x45, 0xb2, 0xb5, 0xfb, 0x2f, 0xfa, 0x84, 0xaf, 0xff, 0xd9,
};
// (11, 13) L (1355140, 15272)
static const uint8_t PEER_PNG_GRAY16[108] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x0b, 0x10, 0x00, 0x00, 0x00, 0x00, 0xd1, 0x49, 0x84,
    0xfe, 0x00, 0x00, 0x00, 0x33, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x64, 0x60, 0x10, 0x60,
    0xc6, 0x0e, 0x19, 0xe5, 0xe5, 0x71, 0x49, 0xb1, 0x50, 0x53, 0x4a, 0x1e, 0xbb, 0x94, 0x3c, 0x76,
    0x5d, 0xf2, 0xd8, 0x0d, 0x94, 0x47, 0xd3, 0xcd, 0xf8, 0xe3, 0x87, 0x00, 0xb3, 0x00, 0xb3, 0x20,
    0x36, 0x7f, 0x49, 0x88, 0x93, 0xe1, 0x78, 0x00, 0xc4, 0x68, 0x0e, 0x39, 0x89, 0x92, 0xf0, 0xa0,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
// I;16 uint16 (11, 13) (345455216, 4756899) first [    0  4099  8198 12297] (345455216, 4756899)
static const uint8_t PEER_PNG_PALETTE_TRNS[128] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x03, 0x00, 0x00, 0x00, 0xd9, 0xdc, 0xef,
    0xf2, 0x00, 0x00, 0x00, 0x0c, 0x50, 0x4c, 0x54, 0x45, 0xff, 0x00, 0x00, 0x00, 0xff, 0x00, 0x00,
    0x00, 0xff, 0x0a, 0x14, 0x1e, 0x22, 0x88, 0x29, 0x04, 0x00, 0x00, 0x00, 0x04, 0x74, 0x52, 0x4e,
    0x53, 0xff, 0x80, 0x00, 0xff, 0xa1, 0xa1, 0x94, 0x66, 0x00, 0x00, 0x00, 0x1f, 0x49, 0x44, 0x41,
    0x54, 0x78, 0x9c, 0x63, 0x94, 0x66, 0x60, 0x78, 0xca, 0x12, 0xc8, 0xc0, 0x70, 0x85, 0xc5, 0x95,
    0x81, 0x41, 0x84, 0xf1, 0x18, 0x03, 0xc3, 0x2f, 0x46, 0xc2, 0x62, 0x00, 0x35, 0x89, 0x0b, 0x18,
    0x42, 0x01, 0x12, 0x5d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
// (11, 13, 4) (14982364, 52353)
static const uint8_t PEER_PNG_GRAY1[74] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x0b, 0x01, 0x00, 0x00, 0x00, 0x00, 0x8c,
    0xc9, 0x3a, 0xcc, 0x00, 0x00, 0x00, 0x11, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x0c,
    0xfd, 0xcd, 0x12, 0xfa, 0x8f, 0x11, 0x37, 0x09, 0x00, 0xed, 0x8c, 0x0e, 0x9a, 0xf4, 0x46,
    0x78, 0x88, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
// (11, 13) (1303560, 18105)

/* ---- names and options ---- */

FXT_TEST(format_names_and_extensions)
{
    FXT_CHECK_EQ(fx_image_format_from_path("a/b.PNG"), FX_IMAGE_PNG);
    FXT_CHECK_EQ(fx_image_format_from_path("x.jpeg"), FX_IMAGE_JPEG);
    FXT_CHECK_EQ(fx_image_format_from_path("x.JPG"), FX_IMAGE_JPEG);
    FXT_CHECK_EQ(fx_image_format_from_path("x.pgm"), FX_IMAGE_PNM);
    FXT_CHECK_EQ(fx_image_format_from_path("x.ppm"), FX_IMAGE_PNM);
    FXT_CHECK_EQ(fx_image_format_from_path("x.pnm"), FX_IMAGE_PNM);
    FXT_CHECK_EQ(fx_image_format_from_path("x.pfm"), FX_IMAGE_PFM);
    FXT_CHECK_EQ(fx_image_format_from_path("x.bmp"), FX_IMAGE_AUTO);
    FXT_CHECK_EQ(fx_image_format_from_path("dir.png/file"), FX_IMAGE_AUTO);
    FXT_CHECK_EQ(fx_image_format_from_path("noext"), FX_IMAGE_AUTO);
    FXT_CHECK(!strcmp(fx_image_format_name(FX_IMAGE_PNG), "png"));
    FXT_CHECK(!strcmp(fx_image_format_name(FX_IMAGE_JPEG), "jpeg"));
    FXT_CHECK(!strcmp(fx_image_format_name(FX_IMAGE_PNM), "pnm"));
    FXT_CHECK(!strcmp(fx_image_format_name(FX_IMAGE_PFM), "pfm"));
    fx_image_write_options o;
    fx_image_write_options_init(&o);
    FXT_CHECK_EQ(o.format, FX_IMAGE_AUTO);
    FXT_CHECK_EQ(o.jpeg_quality, 90);
    FXT_CHECK_EQ(o.png_compression, FX_PNG_COMPRESSION_FAST);
    FXT_CHECK_EQ(o.png_filter, FX_PNG_FILTER_AUTO);
}

/* ---- lossless round trips ---- */

static const int SIZES[][2] = {{1, 1}, {1, 9}, {9, 1}, {37, 53}, {64, 3}};
#define NSIZES (sizeof SIZES / sizeof *SIZES)

/* Write a random image of each size, read it back and expect it exactly. */
static void round_trip_exact(const char *file, int channels, fx_sample_type type, int png_level)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_image"), file);
    fx_image_write_options opts;
    fx_image_write_options_init(&opts);
    opts.png_compression = png_level;
    for (size_t s = 0; s < NSIZES; s++) {
        fx_image img, back;
        if (!FXT_CHECK_OK(fx_image_alloc(ctx, &img, SIZES[s][0], SIZES[s][1], channels, type), ctx))
            break;
        fill_random(&img, (uint64_t)s * 1000 + (uint64_t)channels * 10 + (uint64_t)type);
        FXT_CHECK_OK(fx_image_write_file(ctx, path, &img, &opts), ctx);
        if (FXT_CHECK_OK(fx_image_read_file(ctx, path, &back), ctx)) {
            if (!FXT_CHECK(max_diff(&img, &back) == 0))
                fprintf(stderr, "  %s %dx%d %d ch %s differs\n", file, img.width, img.height,
                        channels, fx_sample_type_name(type));
        }
        fx_image_free(&img);
        fx_image_free(&back);
    }
    fx_context_destroy(ctx);
}

FXT_TEST(png_round_trip_all_layouts)
{
    for (int ch = 1; ch <= 4; ch++) {
        round_trip_exact("rt.png", ch, FX_U8, FX_PNG_COMPRESSION_FAST);
        round_trip_exact("rt16.png", ch, FX_U16, ch == 4 ? 0 : 9);
    }
}

FXT_TEST(pnm_round_trip_all_layouts)
{
    round_trip_exact("rt.pgm", 1, FX_U8, 6);
    round_trip_exact("rt16.pgm", 1, FX_U16, 6);
    round_trip_exact("rt.ppm", 3, FX_U8, 6);
    round_trip_exact("rt16.ppm", 3, FX_U16, 6);
}

FXT_TEST(pfm_round_trip_all_layouts)
{
    round_trip_exact("rt1.pfm", 1, FX_F32, 6);
    round_trip_exact("rt3.pfm", 3, FX_F32, 6);
}

/* A padded stride is written as the pixels, not the padding. */
FXT_TEST(padded_stride_is_written_correctly)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_image");
    static const char *const files[] = {"pad.png", "pad.ppm", "pad.jpg"};
    enum { W = 5, H = 4, PAD = 7 };
    uint8_t pixels[H][W * 3 + PAD];
    memset(pixels, 0xAB, sizeof pixels);
    for (int y = 0; y < H; y++)
        for (int i = 0; i < W * 3; i++)
            pixels[y][i] = (uint8_t)(y * 40 + i * 3);
    fx_image img = {&pixels[0][0], W, H, 3, FX_U8, W * 3 + PAD, FX_MEMORY_HOST};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        fx_image back;
        const char *path = fxt_path(dir, files[f]);
        FXT_CHECK_OK(fx_image_write_file(ctx, path, &img, NULL), ctx);
        if (!FXT_CHECK_OK(fx_image_read_file(ctx, path, &back), ctx)) continue;
        double tol = f == 2 ? 6 : 0; /* JPEG at the default quality 90 */
        if (!FXT_CHECK(max_diff(&img, &back) >= 0 && max_diff(&img, &back) <= tol))
            fprintf(stderr, "  %s: max diff %g\n", files[f], max_diff(&img, &back));
        fx_image_free(&back);
    }
    fx_context_destroy(ctx);
}

/* ---- JPEG: lossy round trip ---- */

/* A smooth image (JPEG's home ground) survives quality 100 within a few levels. */
static void jpeg_round_trip(int channels, double tolerance)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_image"), channels == 1 ? "q100g.jpg" : "q100.jpg");
    fx_image_write_options opts;
    fx_image_write_options_init(&opts);
    opts.jpeg_quality = 100;
    for (size_t s = 0; s < NSIZES; s++) {
        fx_image img, back;
        FXT_CHECK_OK(fx_image_alloc(ctx, &img, SIZES[s][0], SIZES[s][1], channels, FX_U8), ctx);
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < img.width; x++)
                for (int c = 0; c < channels; c++)
                    ((uint8_t *)fx_image_row(&img, y))[x * channels + c] =
                        (uint8_t)(40 + 2 * x + 3 * y + 30 * c);
        FXT_CHECK_OK(fx_image_write_file(ctx, path, &img, &opts), ctx);
        if (FXT_CHECK_OK(fx_image_read_file(ctx, path, &back), ctx)) {
            double d = max_diff(&img, &back);
            if (!FXT_CHECK(d >= 0 && d <= tolerance))
                fprintf(stderr, "  %dx%d %d ch: max diff %g\n", img.width, img.height, channels, d);
        }
        fx_image_free(&img);
        fx_image_free(&back);
    }
    fx_context_destroy(ctx);
}

FXT_TEST(jpeg_q100_gray_round_trip)
{
    jpeg_round_trip(1, 2);
}
FXT_TEST(jpeg_q100_rgb_round_trip)
{
    jpeg_round_trip(3, 3);
}

/* Lower quality uses 4:2:0 and is smaller than 4:4:4 at quality 90. */
FXT_TEST(jpeg_quality_changes_size)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_image");
    fx_image img;
    FXT_CHECK_OK(fx_image_alloc(ctx, &img, 64, 48, 3, FX_U8), ctx);
    fill_random(&img, 5);
    fx_image_write_options opts;
    fx_image_write_options_init(&opts);
    size_t sizes[2];
    for (int i = 0; i < 2; i++) {
        opts.jpeg_quality = i ? 30 : 95;
        const char *path = fxt_path(dir, "q.jpg");
        FXT_CHECK_OK(fx_image_write_file(ctx, path, &img, &opts), ctx);
        free(read_bytes(path, &sizes[i]));
    }
    FXT_CHECK(sizes[1] < sizes[0]);
    fx_image_free(&img);
    fx_context_destroy(ctx);
}

/* ---- peer goldens ---- */

static void check_decode(const void *data, size_t size, int w, int h, int ch, fx_sample_type type,
                         uint64_t weighted, uint64_t sum)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_image img;
    if (FXT_CHECK_OK(fx_image_read_memory(ctx, data, size, &img), ctx)) {
        FXT_CHECK_EQ(img.width, w);
        FXT_CHECK_EQ(img.height, h);
        FXT_CHECK_EQ(img.channels, ch);
        FXT_CHECK_EQ(img.type, type);
        checksum c = image_checksum(&img);
        FXT_CHECK_EQ(c.weighted, weighted);
        FXT_CHECK_EQ(c.sum, sum);
    }
    fx_image_free(&img);
    fx_context_destroy(ctx);
}

FXT_TEST(peer_jpeg_rgb_420)
{
    check_decode(PEER_JPEG_RGB, sizeof PEER_JPEG_RGB, 13, 11, 3, FX_U8, 12887147, 50141);
}
FXT_TEST(peer_jpeg_gray)
{
    check_decode(PEER_JPEG_GRAY, sizeof PEER_JPEG_GRAY, 13, 11, 1, FX_U8, 1355140, 15272);
}
FXT_TEST(peer_png_gray16_values_preserved)
{
    check_decode(PEER_PNG_GRAY16, sizeof PEER_PNG_GRAY16, 13, 11, 1, FX_U16, 345455216, 4756899);
    /* And the first values, which pin the byte order: 0, 4099, 8198, 12297. */
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_image img;
    if (FXT_CHECK_OK(fx_image_read_memory(ctx, PEER_PNG_GRAY16, sizeof PEER_PNG_GRAY16, &img),
                     ctx)) {
        const uint16_t *p = (const uint16_t *)(const void *)img.data;
        FXT_CHECK_EQ(p[1], 4099);
        FXT_CHECK_EQ(p[3], 12297);
    }
    fx_image_free(&img);
    fx_context_destroy(ctx);
}
FXT_TEST(peer_png_palette_with_trns_is_rgba)
{
    check_decode(PEER_PNG_PALETTE_TRNS, sizeof PEER_PNG_PALETTE_TRNS, 13, 11, 4, FX_U8, 14982364,
                 52353);
}
FXT_TEST(peer_png_1bit_gray_expands_to_8bit)
{
    check_decode(PEER_PNG_GRAY1, sizeof PEER_PNG_GRAY1, 13, 11, 1, FX_U8, 1303560, 18105);
}

/* 16-bit PNG written by us and read by the peer's rules: big-endian in the file. */
FXT_TEST(png16_written_big_endian)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_image"), "be16.png");
    fx_image img;
    FXT_CHECK_OK(fx_image_alloc(ctx, &img, 2, 1, 1, FX_U16), ctx);
    ((uint16_t *)(void *)img.data)[0] = 0x1234;
    ((uint16_t *)(void *)img.data)[1] = 0xABCD;
    FXT_CHECK_OK(fx_image_write_file(ctx, path, &img, NULL), ctx);
    fx_image_free(&img);
    size_t n;
    uint8_t *bytes = read_bytes(path, &n);
    /* IHDR: width 2, height 1 at offset 16, bit depth 16, color type 0. */
    if (FXT_CHECK(bytes && n > 33)) {
        FXT_CHECK_EQ(bytes[19], 2);
        FXT_CHECK_EQ(bytes[24], 16);
        FXT_CHECK_EQ(bytes[25], 0);
    }
    free(bytes);
    fx_context_destroy(ctx);
}

/* ---- the real samples (checksums from PIL 13 / numpy) ---- */

static void check_sample(const char *file, int w, int h, uint64_t weighted, uint64_t sum)
{
    const char *path = fxt_sample(file);
    if (!path) fxt_skip("FXKIT_SAMPLES is not set");
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_image img;
    if (FXT_CHECK_OK(fx_image_read_file(ctx, path, &img), ctx)) {
        FXT_CHECK_EQ(img.width, w);
        FXT_CHECK_EQ(img.height, h);
        FXT_CHECK_EQ(img.channels, 3);
        FXT_CHECK_EQ(img.type, FX_U8);
        checksum c = image_checksum(&img);
        FXT_CHECK_EQ(c.weighted, weighted);
        FXT_CHECK_EQ(c.sum, sum);
    }
    fx_image_free(&img);
    fx_context_destroy(ctx);
}

FXT_TEST(sample_astronaut_png)
{
    check_sample("astronaut.png", 512, 512, UINT64_C(2881600104414), 90124324);
}
FXT_TEST(sample_coffee_png)
{
    check_sample("coffee.png", 600, 400, UINT64_C(2315056949254), 71003487);
}
FXT_TEST(sample_hubble_jpeg)
{
    check_sample("hubble_deep_field.jpg", 1000, 872, UINT64_C(1643014301108), 50108051);
}

/* ---- PNM details ---- */

static fx_status decode_text(fx_context *ctx, const char *text, size_t size, fx_image *img)
{
    return fx_image_read_memory(ctx, text, size, img);
}

FXT_TEST(pnm_comments_ascii_and_maxval_rescale)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_image img;
    /* P2 with comments, maxval 15: 15 -> 255, 7 -> 119 (7 * 255 / 15), 0 -> 0. */
    static const char p2[] = "P2 # gray\n# a comment line\n3 1\n15\n0 7\n15\n";
    if (FXT_CHECK_OK(decode_text(ctx, p2, sizeof p2 - 1, &img), ctx)) {
        FXT_CHECK_EQ(img.type, FX_U8);
        FXT_CHECK_EQ(img.data[0], 0);
        FXT_CHECK_EQ(img.data[1], 119);
        FXT_CHECK_EQ(img.data[2], 255);
    }
    fx_image_free(&img);
    /* P3 maxval 1023 -> u16: 1023 -> 65535, 512 -> 32800 (512 * 65535 / 1023 = 32799.53). */
    static const char p3[] = "P3\n1 1\n1023\n1023 512 0\n";
    if (FXT_CHECK_OK(decode_text(ctx, p3, sizeof p3 - 1, &img), ctx)) {
        const uint16_t *p = (const uint16_t *)(const void *)img.data;
        FXT_CHECK_EQ(img.type, FX_U16);
        FXT_CHECK_EQ(img.channels, 3);
        FXT_CHECK_EQ(p[0], 65535);
        FXT_CHECK_EQ(p[1], 32800);
        FXT_CHECK_EQ(p[2], 0);
    }
    fx_image_free(&img);
    /* P5 16-bit is big-endian. */
    static const char p5[] = "P5\n2 1\n65535\n\x12\x34\xab\xcd";
    if (FXT_CHECK_OK(decode_text(ctx, p5, sizeof p5 - 1, &img), ctx)) {
        const uint16_t *p = (const uint16_t *)(const void *)img.data;
        FXT_CHECK_EQ(p[0], 0x1234);
        FXT_CHECK_EQ(p[1], 0xabcd);
    }
    fx_image_free(&img);
    /* A sample above maxval is corrupt. */
    static const char over[] = "P2 1 1 10 11\n";
    FXT_CHECK_STATUS(decode_text(ctx, over, sizeof over - 1, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "exceeds maxval");
    fx_context_destroy(ctx);
}

/* Big-endian PFM (positive scale), rows stored bottom to top. */
FXT_TEST(pfm_big_endian_bottom_up)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    /* 1x2 gray: the file's first row (0.5) is the image's bottom row. */
    static const char pfm[] = "Pf\n1 2\n1.0\n\x3f\x00\x00\x00\x3f\x80\x00\x00";
    fx_image img;
    if (FXT_CHECK_OK(decode_text(ctx, pfm, sizeof pfm - 1, &img), ctx)) {
        FXT_CHECK_EQ(img.type, FX_F32);
        FXT_CHECK(*(float *)fx_image_row(&img, 0) == 1.0f);
        FXT_CHECK(*(float *)fx_image_row(&img, 1) == 0.5f);
    }
    fx_image_free(&img);
    static const char zero_scale[] = "Pf\n1 1\n0.0\n\0\0\0\0";
    FXT_CHECK_STATUS(decode_text(ctx, zero_scale, sizeof zero_scale - 1, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "scale");
    static const char bad_scale[] = "PF\n1 1\n-1.0x\n\0\0\0\0\0\0\0\0\0\0\0\0";
    FXT_CHECK_STATUS(decode_text(ctx, bad_scale, sizeof bad_scale - 1, &img), FX_EFORMAT, ctx);
    fx_context_destroy(ctx);
}

/* Our PFM is little-endian with scale -1 and the bottom row first. */
FXT_TEST(pfm_written_little_endian_bottom_up)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_image"), "le.pfm");
    fx_image img;
    FXT_CHECK_OK(fx_image_alloc(ctx, &img, 1, 2, 1, FX_F32), ctx);
    *(float *)fx_image_row(&img, 0) = 1.0f;  /* 0x3f800000 */
    *(float *)fx_image_row(&img, 1) = -2.0f; /* 0xc0000000 */
    FXT_CHECK_OK(fx_image_write_file(ctx, path, &img, NULL), ctx);
    fx_image_free(&img);
    size_t n;
    uint8_t *bytes = read_bytes(path, &n);
    static const char want[] = "Pf\n1 2\n-1.0\n\x00\x00\x00\xc0\x00\x00\x80\x3f";
    FXT_CHECK(bytes && n == sizeof want - 1 && !memcmp(bytes, want, n));
    free(bytes);
    fx_context_destroy(ctx);
}

/* ---- broken and hostile inputs ---- */

/* Every proper prefix of a valid file fails cleanly with FX_EFORMAT. */
static void check_all_cuts(const uint8_t *data, size_t size, const char *what)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    for (size_t cut = 1; cut < size; cut++) {
        fx_image img;
        /* An exact copy, so ASan sees any read past the cut. */
        uint8_t *copy = malloc(cut);
        memcpy(copy, data, cut);
        fx_status st = fx_image_read_memory(ctx, copy, cut, &img);
        if (!FXT_CHECK_STATUS(st, FX_EFORMAT, ctx)) fprintf(stderr, "  %s cut at %zu\n", what, cut);
        FXT_CHECK(img.data == NULL);
        fx_image_free(&img);
        free(copy);
    }
    fx_context_destroy(ctx);
}

FXT_TEST(truncated_png_jpeg_at_every_length)
{
    check_all_cuts(PEER_PNG_GRAY16, sizeof PEER_PNG_GRAY16, "png16");
    check_all_cuts(PEER_PNG_PALETTE_TRNS, sizeof PEER_PNG_PALETTE_TRNS, "png palette");
    check_all_cuts(PEER_JPEG_RGB, sizeof PEER_JPEG_RGB, "jpeg rgb");
    check_all_cuts(PEER_JPEG_GRAY, sizeof PEER_JPEG_GRAY, "jpeg gray");
}

/* Stray bytes between segments (left by many writers) damage no pixel: libjpeg
 * warns "N extraneous bytes before marker", and the file decodes to the peer's
 * pixels, as it does in OpenCV, libvips and ImageMagick. */
FXT_TEST(jpeg_with_stray_bytes_decodes)
{
    static const uint8_t stray[] = {0x00, 0x11, 0x22};
    size_t n = sizeof PEER_JPEG_RGB, sos = 0;
    for (size_t i = 2; i + 1 < n && !sos; i++)
        if (PEER_JPEG_RGB[i] == 0xff && PEER_JPEG_RGB[i + 1] == 0xda) sos = i;
    if (!FXT_CHECK(sos > 0)) return;
    /* Insert the stray bytes in front of the start-of-scan marker. */
    uint8_t *copy = malloc(n + sizeof stray);
    memcpy(copy, PEER_JPEG_RGB, sos);
    memcpy(copy + sos, stray, sizeof stray);
    memcpy(copy + sos + sizeof stray, PEER_JPEG_RGB + sos, n - sos);
    check_decode(copy, n + sizeof stray, 13, 11, 3, FX_U8, 12887147, 50141);
    free(copy);
}

FXT_TEST(truncated_pnm_and_pfm)
{
    static const char p6[] = "P6\n2 2\n255\n0123456789ab";
    static const char p5w[] = "P5\n# c\n2 1\n1000\n\x01\x02\x03\x04";
    static const char p3[] = "P3 1 2 255\n1 2 3 4 5 6\n";
    static const char pfm[] = "PF 1 1 -1\n\0\0\x80\x3f\0\0\0\0\0\0\0\0";
    check_all_cuts((const uint8_t *)p6, sizeof p6 - 1, "p6");
    check_all_cuts((const uint8_t *)p5w, sizeof p5w - 1, "p5 16-bit");
    check_all_cuts((const uint8_t *)p3, sizeof p3 - 2, "p3"); /* the last newline is optional */
    check_all_cuts((const uint8_t *)pfm, sizeof pfm - 1, "pfm");
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_image img;
    FXT_CHECK_STATUS(decode_text(ctx, p6, sizeof p6 - 3, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx),
                       "truncated: expected 12 bytes of pixel data, found 10");
    fx_context_destroy(ctx);
}

/* Flipped bytes anywhere never crash and give OK or FX_EFORMAT; a flip in the
 * PNG's IDAT is caught by its CRC. */
FXT_TEST(corrupt_bytes)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const struct {
        const uint8_t *data;
        size_t size;
    } files[] = {
        {PEER_PNG_GRAY16, sizeof PEER_PNG_GRAY16},
        {PEER_PNG_GRAY1, sizeof PEER_PNG_GRAY1},
        {PEER_JPEG_RGB, sizeof PEER_JPEG_RGB},
        {PEER_JPEG_GRAY, sizeof PEER_JPEG_GRAY},
    };
    uint64_t seed = 99;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        uint8_t *copy = malloc(files[f].size);
        for (int round = 0; round < 300; round++) {
            memcpy(copy, files[f].data, files[f].size);
            for (int k = 0; k < 3; k++)
                copy[fxt_rand(&seed) % files[f].size] ^= (uint8_t)(1 + fxt_rand(&seed) % 255);
            fx_image img;
            fx_status st = fx_image_read_memory(ctx, copy, files[f].size, &img);
            FXT_CHECK(st == FX_OK || st == FX_EFORMAT || st == FX_EUNSUPPORTED || st == FX_ELIMIT);
            fx_image_free(&img);
        }
        free(copy);
    }
    uint8_t png[sizeof PEER_PNG_GRAY16];
    memcpy(png, PEER_PNG_GRAY16, sizeof png);
    png[sizeof png - 20] ^= 0x55; /* inside the IDAT data */
    fx_image img;
    FXT_CHECK_STATUS(fx_image_read_memory(ctx, png, sizeof png, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "PNG");
    fx_context_destroy(ctx);
}

FXT_TEST(not_an_image_and_missing_files)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_image");
    fx_image img;
    const char *text = fxt_path(dir, "text.png");
    write_bytes(text, "hello, I am not a picture\n", 26);
    FXT_CHECK_STATUS(fx_image_read_file(ctx, text, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "not a PNG, JPEG, PNM or PFM image");
    const char *empty = fxt_path(dir, "empty.jpg");
    write_bytes(empty, "", 0);
    FXT_CHECK_STATUS(fx_image_read_file(ctx, empty, &img), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "empty file");
    FXT_CHECK_STATUS(fx_image_read_file(ctx, fxt_path(dir, "missing.png"), &img), FX_EIO, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "No such file");
    FXT_CHECK_STATUS(fx_image_read_file(ctx, dir, &img), FX_EIO, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "not a regular file");
    FXT_CHECK_STATUS(fx_image_read_memory(ctx, "P4\n1 1\n\0", 8, &img), FX_EUNSUPPORTED, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "P4");
    FXT_CHECK(img.data == NULL);
    fx_context_destroy(ctx);
}

/* CRC-32 as PNG uses it (reflected, polynomial 0xEDB88320). */
static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}

/* Signature + IHDR with a correct CRC, 8-bit RGB, and nothing after it. */
static fx_status decode_png_header(fx_context *ctx, uint32_t width, uint32_t height)
{
    uint8_t png[8 + 25] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                           0,    0,   0,   13,  'I',  'H',  'D',  'R'};
    put_be32(png + 16, width);
    put_be32(png + 20, height);
    png[24] = 8; /* bit depth */
    png[25] = 2; /* truecolor */
    put_be32(png + 29, crc32_png(png + 12, 17));
    fx_image img;
    fx_status st = fx_image_read_memory(ctx, png, sizeof png, &img);
    fx_image_free(&img);
    return st;
}

FXT_TEST(hostile_headers)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    FXT_CHECK_STATUS(decode_png_header(ctx, 0, 0), FX_EFORMAT, ctx);
    FXT_CHECK_STATUS(decode_png_header(ctx, 0x7fffffffu, 1), FX_ELIMIT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "limit");
    FXT_CHECK_STATUS(decode_png_header(ctx, 0x80000000u, 1), FX_EFORMAT, ctx);
    FXT_CHECK_STATUS(decode_png_header(ctx, 3, 2), FX_EFORMAT, ctx); /* valid header, no data */
    fx_image img;
    static const struct {
        const char *text;
        fx_status want;
        const char *detail;
    } cases[] = {
        {"P5 2147483648 1 255\n", FX_ELIMIT, "exceeds the limit"},
        {"P5 0 0 255\n", FX_EFORMAT, "empty"},
        {"P6 99999999999999999999999 1 255\n", FX_EFORMAT, "too large"},
        {"P5 1 1 0\n\0", FX_EFORMAT, "maxval 0"},
        {"P5 1 1 65536\n\0\0", FX_EFORMAT, "maxval"},
        {"P5 1 -1 255\n\0", FX_EFORMAT, "expected a number"},
        {"P5 1x 1 255\n\0", FX_EFORMAT, "junk"},
        {"P6 40000 40000 255\n", FX_EFORMAT, "truncated"},
        {"P3 1000 1000 255\n1 2 3\n", FX_EFORMAT, "truncated"},
        {"Pf 4 4 -1.0\n", FX_EFORMAT, "truncated"},
        {"P5", FX_EFORMAT, "not a PNG"},
        {"P5 1", FX_EFORMAT, "height"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!FXT_CHECK_STATUS(decode_text(ctx, cases[i].text, strlen(cases[i].text), &img),
                              cases[i].want, ctx))
            fprintf(stderr, "  case \"%s\"\n", cases[i].text);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), cases[i].detail);
        fx_image_free(&img);
    }
    fx_context_destroy(ctx);
}

FXT_TEST(limits_reject_big_images)
{
    fx_context *big = fxt_context(FX_DEVICE_CPU, 1);
    fx_context *small = limited_context(100, 1 << 20);
    fx_context *narrow = limited_context(1 << 20, 20);
    const char *dir = fxt_tmpdir("io_image");
    static const char *const files[] = {"lim.png", "lim.jpg", "lim.ppm", "lim.pfm"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        fx_image img, back;
        FXT_CHECK_OK(fx_image_alloc(big, &img, 37, 53, 3, f == 3 ? FX_F32 : FX_U8), big);
        const char *path = fxt_path(dir, files[f]);
        FXT_CHECK_OK(fx_image_write_file(big, path, &img, NULL), big);
        FXT_CHECK_STATUS(fx_image_read_file(small, path, &back), FX_ELIMIT, small);
        FXT_CHECK_CONTAINS(fx_context_error(small), "100 pixels");
        FXT_CHECK_STATUS(fx_image_read_file(narrow, path, &back), FX_ELIMIT, narrow);
        FXT_CHECK_CONTAINS(fx_context_error(narrow), "20 pixels a side");
        fx_image_free(&img);
    }
    fx_context_destroy(big);
    fx_context_destroy(small);
    fx_context_destroy(narrow);
}

/* ---- write errors ---- */

FXT_TEST(write_errors)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_image");
    fx_image rgb8, ga8, rgb16, gray32, rgba8;
    FXT_CHECK_OK(fx_image_alloc(ctx, &rgb8, 4, 4, 3, FX_U8), ctx);
    FXT_CHECK_OK(fx_image_alloc(ctx, &ga8, 4, 4, 2, FX_U8), ctx);
    FXT_CHECK_OK(fx_image_alloc(ctx, &rgb16, 4, 4, 3, FX_U16), ctx);
    FXT_CHECK_OK(fx_image_alloc(ctx, &gray32, 4, 4, 1, FX_F32), ctx);
    FXT_CHECK_OK(fx_image_alloc(ctx, &rgba8, 4, 4, 4, FX_U8), ctx);

    FXT_CHECK_STATUS(fx_image_write_file(ctx, "/nonexistent-dir/x.png", &rgb8, NULL), FX_EIO, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "No such file or directory");
    FXT_CHECK_STATUS(fx_image_write_file(ctx, fxt_path(dir, "x.bmp"), &rgb8, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "unknown image extension");

    const struct {
        const char *file;
        const fx_image *img;
        const char *detail;
    } bad[] = {
        {"u.jpg", &ga8, "jpeg cannot hold 2 channel(s) of u8 (it takes 1 or 3 channels of u8)"},
        {"u.jpg", &rgb16, "jpeg cannot hold 3 channel(s) of u16"},
        {"u.jpg", &rgba8, "4 channel(s)"},
        {"u.ppm", &rgba8, "pnm cannot hold 4 channel(s) of u8"},
        {"u.pgm", &gray32, "of f32"},
        {"u.pfm", &rgb8, "pfm cannot hold 3 channel(s) of u8 (it takes 1 or 3 channels of f32)"},
        {"u.png", &gray32, "png cannot hold 1 channel(s) of f32"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *path = fxt_path(dir, bad[i].file);
        remove(path);
        FXT_CHECK_STATUS(fx_image_write_file(ctx, path, bad[i].img, NULL), FX_EUNSUPPORTED, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), bad[i].detail);
        struct stat st;
        FXT_CHECK(stat(path, &st) != 0); /* nothing was created */
    }
    /* The format option wins over the extension. */
    fx_image_write_options opts;
    fx_image_write_options_init(&opts);
    opts.format = FX_IMAGE_PNG;
    FXT_CHECK_OK(fx_image_write_file(ctx, fxt_path(dir, "png.dat"), &ga8, &opts), ctx);
    opts.jpeg_quality = 0;
    FXT_CHECK_STATUS(fx_image_write_file(ctx, fxt_path(dir, "q.jpg"), &rgb8, &opts), FX_EINVAL,
                     ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "quality 0");

    /* A full disk shows up as FX_EIO, and the device is left alone. */
    struct stat st;
    if (stat("/dev/full", &st) == 0) {
        fx_image big;
        FXT_CHECK_OK(fx_image_alloc(ctx, &big, 300, 300, 3, FX_U8), ctx);
        opts.format = FX_IMAGE_PNM;
        opts.jpeg_quality = 90;
        FXT_CHECK_STATUS(fx_image_write_file(ctx, "/dev/full", &big, &opts), FX_EIO, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "No space left");
        FXT_CHECK(stat("/dev/full", &st) == 0);
        fx_image_free(&big);
    }
    fx_image_free(&rgb8);
    fx_image_free(&ga8);
    fx_image_free(&rgb16);
    fx_image_free(&gray32);
    fx_image_free(&rgba8);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(format_names_and_extensions), FXT_CASE(png_round_trip_all_layouts),
         FXT_CASE(pnm_round_trip_all_layouts), FXT_CASE(pfm_round_trip_all_layouts),
         FXT_CASE(padded_stride_is_written_correctly), FXT_CASE(jpeg_q100_gray_round_trip),
         FXT_CASE(jpeg_q100_rgb_round_trip), FXT_CASE(jpeg_quality_changes_size),
         FXT_CASE(peer_jpeg_rgb_420), FXT_CASE(peer_jpeg_gray),
         FXT_CASE(peer_png_gray16_values_preserved), FXT_CASE(peer_png_palette_with_trns_is_rgba),
         FXT_CASE(peer_png_1bit_gray_expands_to_8bit), FXT_CASE(png16_written_big_endian),
         FXT_CASE(sample_astronaut_png), FXT_CASE(sample_coffee_png), FXT_CASE(sample_hubble_jpeg),
         FXT_CASE(pnm_comments_ascii_and_maxval_rescale), FXT_CASE(pfm_big_endian_bottom_up),
         FXT_CASE(pfm_written_little_endian_bottom_up),
         FXT_CASE(truncated_png_jpeg_at_every_length), FXT_CASE(jpeg_with_stray_bytes_decodes),
         FXT_CASE(truncated_pnm_and_pfm), FXT_CASE(corrupt_bytes),
         FXT_CASE(not_an_image_and_missing_files), FXT_CASE(hostile_headers),
         FXT_CASE(limits_reject_big_images), FXT_CASE(write_errors))
