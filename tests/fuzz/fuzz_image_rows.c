/* Fuzz target: any bytes through the row reader (fx_image_reader_open, then
 * fx_image_reader_read_rows in bands of 3 rows, and the header probe), from an
 * in-memory file. The contract: every band delivered lies inside the band image
 * (ASan), the rows add up to the height on success, and a failure has a detail. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_context.h"

/* Small limits keep every accepted image cheap to allocate. */
#define FUZZ_MAX_PIXELS (1u << 18)
#define FUZZ_MAX_DIMENSION 8192
#define FUZZ_BAND_ROWS 3
#define FD_PATH_MAX 64

static void read_all_rows(fx_context *ctx, const char *path)
{
    fx_image_reader *r;
    if (fx_image_reader_open(ctx, path, &r) != FX_OK) {
        if (!fx_context_error(ctx)[0]) abort();
        return;
    }
    fx_image_info info;
    fx_image_reader_info(r, &info);
    fx_image band;
    if (fx_image_alloc(ctx, &band, info.width, FUZZ_BAND_ROWS, info.channels, info.type) != FX_OK)
        abort();
    int rows = 0, got = 0;
    fx_status st;
    while ((st = fx_image_reader_read_rows(r, &band, FUZZ_BAND_ROWS, &got)) == FX_OK && got)
        rows += got;
    if (st == FX_OK ? rows != info.height : !fx_context_error(ctx)[0]) abort();
    fx_image_free(&band);
    fx_image_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fx_context *ctx = fuzz_context(FUZZ_MAX_PIXELS, FUZZ_MAX_DIMENSION);
    int fd = memfd_create("fuzz_image_rows", 0);
    if (fd < 0) abort();
    if (size && write(fd, data, size) != (ssize_t)size) abort();
    char path[FD_PATH_MAX];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fx_context_clear_error(ctx);
    read_all_rows(ctx, path);
    fx_image_info info;
    fx_context_clear_error(ctx);
    if (fx_image_probe_file(ctx, path, &info) != FX_OK && !fx_context_error(ctx)[0]) abort();
    close(fd);
    return 0;
}
