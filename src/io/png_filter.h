/* PNG row filters (PNG specification, section 9) for the writer. */
#ifndef FXKIT_PNG_FILTER_H
#define FXKIT_PNG_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* The filter type bytes of the format, and AUTO: per row, the filter whose
 * residuals have the least sum of absolute values (as signed bytes). */
typedef enum fxi_png_filter_type {
    FXI_PNG_FILTER_NONE = 0,
    FXI_PNG_FILTER_SUB = 1,
    FXI_PNG_FILTER_UP = 2,
    FXI_PNG_FILTER_AVG = 3,
    FXI_PNG_FILTER_PAETH = 4,
    FXI_PNG_FILTER_AUTO = 5,
} fxi_png_filter_type;

#define FXI_PNG_FILTER_TYPES 5

/* Filter one row of n bytes: out[0] gets the filter type, out[1..n] the residuals.
 * prev is the unfiltered row above (all zeros for the first row); bpp the bytes per
 * pixel (at least 1). AUTO needs scratch of FXI_PNG_FILTER_TYPES * n bytes. The
 * loops run with AVX2 where the CPU has it. */
void fxi_png_filter_row(fxi_png_filter_type type, const uint8_t *cur, const uint8_t *prev,
                        size_t n, size_t bpp, uint8_t *out, uint8_t *scratch);

/* Adler-32 of data continued from adler (1 to start), as zlib's adler32 gives. */
uint32_t fxi_png_adler32(uint32_t adler, const uint8_t *data, size_t n);

#endif
