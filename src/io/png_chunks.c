/* The PNG container (png_chunks.h); CRC-32 from zlib, combined across parts so
 * that the data of an IDAT chunk can be checksummed where it was compressed. */
#include "io/png_chunks.h"

#include <string.h>
#include <zlib.h>

static const uint8_t PNG_SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
#define IHDR_BYTES 13
#define CHUNK_TYPE_BYTES 4

void fxi_png_put_u32(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}

void fxi_png_chunk_head(uint8_t out[FXI_PNG_CHUNK_HEAD_BYTES], uint32_t length, const char type[4])
{
    fxi_png_put_u32(out, length);
    memcpy(out + 4, type, CHUNK_TYPE_BYTES);
}

uint32_t fxi_png_chunk_crc(const char type[4], const uint8_t *prefix, size_t prefix_len,
                           uint32_t part_crc, size_t part_len, const uint8_t *suffix,
                           size_t suffix_len)
{
    uLong crc = crc32(0L, (const Bytef *)type, CHUNK_TYPE_BYTES);
    if (prefix_len) crc = crc32(crc, prefix, (uInt)prefix_len);
    if (part_len) crc = crc32_combine(crc, part_crc, (z_off_t)part_len);
    if (suffix_len) crc = crc32(crc, suffix, (uInt)suffix_len);
    return (uint32_t)crc;
}

/* A whole small chunk at out: head, data, CRC. */
static void write_chunk(uint8_t *out, const char type[4], const uint8_t *data, uint32_t len)
{
    fxi_png_chunk_head(out, len, type);
    if (len) memcpy(out + FXI_PNG_CHUNK_HEAD_BYTES, data, len);
    fxi_png_put_u32(out + FXI_PNG_CHUNK_HEAD_BYTES + len,
                    fxi_png_chunk_crc(type, data, len, 0, 0, NULL, 0));
}

void fxi_png_write_head(uint8_t out[FXI_PNG_HEAD_BYTES], uint32_t width, uint32_t height,
                        int bit_depth, int color_type)
{
    uint8_t ihdr[IHDR_BYTES];
    fxi_png_put_u32(ihdr, width);
    fxi_png_put_u32(ihdr + 4, height);
    ihdr[8] = (uint8_t)bit_depth;
    ihdr[9] = (uint8_t)color_type;
    ihdr[10] = 0; /* compression method: deflate */
    ihdr[11] = 0; /* filter method: the five adaptive filters */
    ihdr[12] = 0; /* no interlace */
    memcpy(out, PNG_SIGNATURE, sizeof PNG_SIGNATURE);
    write_chunk(out + sizeof PNG_SIGNATURE, "IHDR", ihdr, IHDR_BYTES);
}

void fxi_png_write_iend(uint8_t out[FXI_PNG_IEND_BYTES])
{
    write_chunk(out, "IEND", NULL, 0);
}
