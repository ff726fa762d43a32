/* The PNG writer's own deflate coder for one band of filtered rows: one block with
 * a dynamic Huffman code built from the band's histogram, literals plus
 * distance-1 runs (the zeros of flat areas), or stored blocks where those are
 * smaller. The band ends on a byte boundary, so bands compressed on separate
 * threads join into one stream by concatenation (RFC 1951 sections 3.2.3-3.2.7).
 */
#ifndef FXKIT_PNG_DEFLATE_H
#define FXKIT_PNG_DEFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest Huffman code deflate allows for literals/lengths and distances. */
#define FXI_DEFLATE_MAX_BITS 15

/* Bytes fxi_deflate_band may write for n input bytes. */
size_t fxi_deflate_band_bound(size_t n);

/* Compress in[0..n) into out (at least fxi_deflate_band_bound(n) bytes) and
 * return the bytes written. A final band sets BFINAL on its last block and pads
 * with zero bits; any other band ends with an empty stored block (a sync flush). */
size_t fxi_deflate_band(const uint8_t *in, size_t n, bool final, uint8_t *out);

/* Code lengths (at most max_bits, 0 for unused symbols) of a length-limited
 * Huffman code for the counts; a single used symbol gets length 1. Exposed for
 * the tests of the 15-bit limit. */
void fxi_huffman_lengths(const uint32_t *counts, int n, int max_bits, uint8_t *lengths);

#endif
