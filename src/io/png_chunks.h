/* The PNG container the writer produces itself (libspng cannot take a compressed
 * stream): signature, IHDR, IDAT chunks around zlib data, IEND. */
#ifndef FXKIT_PNG_CHUNKS_H
#define FXKIT_PNG_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

/* A chunk's length and type before its data, its CRC-32 after. */
#define FXI_PNG_CHUNK_HEAD_BYTES 8
#define FXI_PNG_CHUNK_CRC_BYTES 4
/* Signature and the complete IHDR chunk. */
#define FXI_PNG_HEAD_BYTES (8 + FXI_PNG_CHUNK_HEAD_BYTES + 13 + FXI_PNG_CHUNK_CRC_BYTES)
#define FXI_PNG_IEND_BYTES (FXI_PNG_CHUNK_HEAD_BYTES + FXI_PNG_CHUNK_CRC_BYTES)
/* The largest chunk data length the format allows (2^31 - 1). */
#define FXI_PNG_CHUNK_MAX ((uint32_t)0x7fffffff)

/* Signature and IHDR for a non-interlaced image of the given bit depth (8, 16)
 * and color type (0 gray, 2 RGB, 4 gray+alpha, 6 RGBA). */
void fxi_png_write_head(uint8_t out[FXI_PNG_HEAD_BYTES], uint32_t width, uint32_t height,
                        int bit_depth, int color_type);

/* The chunk head (big-endian length, type) into out[0..8). */
void fxi_png_chunk_head(uint8_t out[FXI_PNG_CHUNK_HEAD_BYTES], uint32_t length, const char type[4]);

/* CRC-32 of the type and data, for a chunk whose data is prefix, then a part whose
 * CRC-32 (computed elsewhere, e.g. on another thread) is part_crc over part_len
 * bytes, then suffix. */
uint32_t fxi_png_chunk_crc(const char type[4], const uint8_t *prefix, size_t prefix_len,
                           uint32_t part_crc, size_t part_len, const uint8_t *suffix,
                           size_t suffix_len);

void fxi_png_put_u32(uint8_t *out, uint32_t v); /* big-endian, as every PNG number */

/* The complete IEND chunk. */
void fxi_png_write_iend(uint8_t out[FXI_PNG_IEND_BYTES]);

#endif
