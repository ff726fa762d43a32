/* Large positioned reads and writes on the context's threads (src/io/file_parallel.c):
 * the bytes that land are the bytes asked for, wherever the pieces fall, in any order of
 * bands, with and without the reserving thread; a read past the end says how much it
 * got; a write the file system refuses is an error, not a signal, and leaves nothing. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fxtest.h"
#include "io/io_internal.h"

/* Byte i of every test file: no run of it repeats at a short period. */
static uint8_t pattern(uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15u;
    return (uint8_t)(x >> 56 ^ x >> 29);
}

static void fill(uint8_t *p, uint64_t first, size_t n)
{
    for (size_t k = 0; k < n; k++)
        p[k] = pattern(first + k);
}

/* How many bytes of [0, n) of the file at path differ from the pattern (n + 1 when it
 * cannot be read or its size is not n). */
static size_t differing(const char *path, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return n + 1;
    uint8_t *buf = malloc(n + 1);
    size_t got = buf ? fread(buf, 1, n + 1, f) : 0;
    fclose(f);
    size_t bad = got == n ? 0 : n + 1;
    for (size_t k = 0; k < n && got == n; k++)
        bad += buf[k] != pattern(k);
    free(buf);
    return bad;
}

static bool spill_pattern(const char *path, size_t n)
{
    uint8_t *buf = malloc(n);
    FILE *f = fopen(path, "wb");
    bool ok = buf && f;
    if (ok) {
        fill(buf, 0, n);
        ok = fwrite(buf, 1, n, f) == n;
    }
    if (f) ok = fclose(f) == 0 && ok;
    free(buf);
    return ok;
}

/* Files in dir (0 when it cannot be read). */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Free space a tmpfs must have for these tests: their largest file is 72 MiB. */
#define SHM_ROOM_NEEDED ((uint64_t)256 << 20)

/* A fresh folder for `name` on tmpfs (/dev/shm), where writes are mapped, or NULL when
 * the machine has none; remove_shm_dir takes it away. */
static const char *shm_dir(const char *name)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "/dev/shm/fxtest-%d-%s", (int)getpid(), name);
    if (mkdir(p, 0700) != 0) return NULL;
    const int fd = open(p, O_RDONLY | O_DIRECTORY);
    /* room for the largest file with some to spare (a container's /dev/shm may be 64 MiB) */
    struct statvfs room;
    const bool tmpfs = fd >= 0 && fxi_out_maps_well(fd) && fstatvfs(fd, &room) == 0 &&
                       (uint64_t)room.f_bavail * room.f_frsize >= SHM_ROOM_NEEDED;
    if (fd >= 0) close(fd);
    if (!tmpfs) rmdir(p);
    return tmpfs ? p : NULL;
}

static void remove_shm_dir(const char *dir)
{
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(fxt_path(dir, e->d_name));
    closedir(d);
    rmdir(dir);
}

/* The folders a write test runs in: the test folder (plain writes unless it is on
 * tmpfs) and one on tmpfs when there is one (mapped writes). */
static int write_dirs(const char *name, const char *dirs[2], bool mapping[2])
{
    dirs[0] = fxt_tmpdir(name);
    const int fd = open(dirs[0], O_RDONLY | O_DIRECTORY);
    mapping[0] = fd >= 0 && fxi_out_maps_well(fd);
    if (fd >= 0) close(fd);
    dirs[1] = shm_dir(name);
    mapping[1] = true;
    if (!dirs[1]) printf("  (no roomy tmpfs at /dev/shm: mapped writes not exercised)\n");
    return dirs[1] ? 2 : 1;
}

/* Rows of `row` bytes into one buffer through an iovec each, at `offset` of the file. */
static void read_rows(fx_context *ctx, const fxi_in_file *in, uint64_t offset, size_t row, int rows,
                      size_t want)
{
    uint8_t *buf = calloc((size_t)rows, row);
    struct iovec *iov = calloc((size_t)rows, sizeof *iov);
    if (!FXT_CHECK(buf && iov)) goto out;
    for (int k = 0; k < rows; k++)
        iov[k] = (struct iovec){buf + (size_t)k * row, row};
    size_t got = 0;
    FXT_CHECK_OK(fxi_in_readv_at(ctx, in, offset, iov, rows, &got), ctx);
    FXT_CHECK_EQ(got, want);
    size_t bad = 0;
    for (size_t k = 0; k < got; k++)
        bad += buf[k] != pattern(offset + k);
    FXT_CHECK_EQ(bad, 0);
out:
    free(buf);
    free(iov);
}

FXT_TEST(parallel_reads_are_the_file_and_stop_at_its_end)
{
    const char *dir = fxt_tmpdir("io_parallel_read");
    const char *path = fxt_path(dir, "in.bin");
    const size_t size = ((size_t)9 << 20) + 4321;
    if (!FXT_CHECK(spill_pattern(path, size))) return;
    const int threads[] = {1, 3, 8};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        fx_context *ctx = fxt_context(FX_DEVICE_CPU, threads[t]);
        fxi_in_file in;
        if (!FXT_CHECK_OK(fxi_in_open(ctx, path, &in), ctx)) return;
        /* rows of odd sizes, at an odd offset: pieces start mid-page */
        read_rows(ctx, &in, 777, 123457, 70, (size_t)70 * 123457);
        /* one row larger than the parallel threshold, then many small ones */
        read_rows(ctx, &in, 0, (size_t)5 << 20, 1, (size_t)5 << 20);
        read_rows(ctx, &in, 13, 4099, 2000, (size_t)2000 * 4099);
        /* past the end: every byte there is, and how many */
        read_rows(ctx, &in, 1000, 65536, 160, size - 1000);
        fxi_in_close(&in);
        fx_context_destroy(ctx);
    }
}

/* The file's bytes [0, size) written as a header (appended) and bands of `band` bytes
 * (positioned) in rows of `row` bytes, last band first when `backwards`. */
static fx_status write_bands(fx_context *ctx, const char *path, size_t size, size_t header,
                             size_t band, size_t row, bool backwards, bool expect, bool *mapped)
{
    uint8_t *src = malloc(size);
    size_t rows_max = band / row + 2;
    struct iovec *iov = calloc(rows_max, sizeof *iov);
    fxi_out_file out;
    fx_status st = src && iov ? fxi_out_open(ctx, path, true, &out) : FX_ENOMEM;
    if (st != FX_OK) goto out;
    fill(src, 0, size);
    st = fxi_out_write(&out, src, header);
    if (expect) fxi_out_expect_size(&out, size);
    const size_t bands = (size - header + band - 1) / band;
    for (size_t i = 0; i < bands && st == FX_OK; i++) {
        const size_t b = backwards ? bands - 1 - i : i;
        const size_t first = header + b * band;
        const size_t end = first + band < size ? first + band : size;
        int count = 0;
        for (size_t at = first; at < end; at += row)
            iov[count++] = (struct iovec){src + at, end - at < row ? end - at : row};
        st = fxi_out_pwritev(&out, iov, count, first);
        *mapped = *mapped || out.window;
    }
    if (st == FX_OK)
        st = fxi_out_close(&out);
    else
        fxi_out_abort(&out);
out:
    free(src);
    free(iov);
    return st;
}

FXT_TEST(mapped_writes_land_every_byte_in_any_band_order)
{
    const char *dirs[2];
    bool mapping[2];
    const int places = write_dirs("io_parallel_write", dirs, mapping);
    struct {
        size_t size, band, row;
        bool backwards, expect;
        int threads;
    } cases[] = {
        /* below the reserving thread's size: each write reserves its own range */
        {((size_t)13 << 20) + 17, (size_t)5 << 20, 120003, false, false, 4},
        {((size_t)13 << 20) + 17, (size_t)5 << 20, 120003, true, false, 4},
        /* bands smaller than the threshold: plain writes, interleaved with mapped ones */
        {((size_t)13 << 20) + 17, (size_t)3 << 20, 99991, false, false, 4},
        /* the reserving thread ahead of the writes, forwards and backwards (PFM) */
        {((size_t)72 << 20) + 5, (size_t)16 << 20, 160000, false, true, 8},
        {((size_t)72 << 20) + 5, (size_t)9 << 20, 160000, true, true, 8},
        /* one thread: never mapped */
        {((size_t)13 << 20) + 17, (size_t)5 << 20, 120003, false, true, 1},
    };
    for (int place = 0; place < places; place++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            fx_context *ctx = fxt_context(FX_DEVICE_CPU, cases[c].threads);
            const char *path = fxt_path(dirs[place], "out.bin");
            bool mapped = false;
            FXT_CHECK_OK(write_bands(ctx, path, cases[c].size, 61, cases[c].band, cases[c].row,
                                     cases[c].backwards, cases[c].expect, &mapped),
                         ctx);
            FXT_CHECK_EQ(differing(path, cases[c].size), 0);
            /* the case took the path it is for */
            FXT_CHECK_EQ(mapped, mapping[place] && cases[c].threads > 1 &&
                                     cases[c].band >= ((size_t)4 << 20));
            FXT_CHECK_EQ(files_in(dirs[place]), 1); /* the temporary went */
            fx_context_destroy(ctx);
        }
    remove_shm_dir(dirs[1]);
}

FXT_TEST(a_refused_mapped_write_is_an_error_and_leaves_nothing)
{
    const char *dirs[2];
    bool mapping[2];
    const int places = write_dirs("io_parallel_refused", dirs, mapping);
    struct rlimit old;
    if (!FXT_CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0)) return;
    /* Past this size the kernel refuses to grow a file: EFBIG (and SIGXFSZ, ignored
     * here as a program that sets such a limit would) */
    struct rlimit small = {(rlim_t)8 << 20, old.rlim_max};
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    if (!FXT_CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0)) return;
    for (int place = 0; place < places; place++)
        for (int expect = 0; expect < 2; expect++) {
            fx_context *ctx = fxt_context(FX_DEVICE_CPU, 4);
            bool mapped = false;
            const fx_status st =
                write_bands(ctx, fxt_path(dirs[place], "out.bin"), ((size_t)72 << 20) + 5, 61,
                            (size_t)6 << 20, 100000, false, expect, &mapped);
            FXT_CHECK_EQ(st, FX_EIO);
            FXT_CHECK_CONTAINS(fx_context_error(ctx), "write error");
            FXT_CHECK_EQ(files_in(dirs[place]), 0);
            fx_context_destroy(ctx);
        }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, was);
    remove_shm_dir(dirs[1]);
}

/* The public stream writer and reader over a PPM and a PFM (rows bottom-up) large
 * enough for the parallel paths, against the image itself. */
FXT_TEST(netpbm_streams_round_trip_through_the_parallel_paths)
{
    const char *dirs[2];
    bool mapping[2];
    const int places = write_dirs("io_parallel_netpbm", dirs, mapping);
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 4);
    for (int place = 0; place < places; place++) {
        const char *dir = dirs[place];
        const struct {
            const char *name;
            int width, height, channels, band;
            fx_sample_type type;
        } cases[] = {{"a.ppm", 1501, 2003, 3, 1400, FX_U8},
                     {"a.pgm", 3001, 1700, 1, 1699, FX_U16},
                     {"a.pfm", 1111, 1301, 3, 500, FX_F32}};
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            fx_image img = {0}, back = {0};
            if (!FXT_CHECK_OK(fx_image_alloc(ctx, &img, cases[c].width, cases[c].height,
                                             cases[c].channels, cases[c].type),
                              ctx))
                break;
            uint64_t seed = c + 1;
            for (int y = 0; y < img.height; y++) {
                uint8_t *row = fx_image_row(&img, y);
                const size_t n = (size_t)img.width * (size_t)img.channels;
                for (size_t i = 0; i < n; i++) {
                    const uint64_t r = fxt_rand(&seed);
                    if (img.type == FX_U8)
                        row[i] = (uint8_t)r;
                    else if (img.type == FX_U16)
                        ((uint16_t *)(void *)row)[i] = (uint16_t)r;
                    else
                        ((float *)(void *)row)[i] = (float)(r % 100000) / 7.0f;
                }
            }
            const char *path = fxt_path(dir, cases[c].name);
            fx_image_writer *w = NULL;
            FXT_CHECK_OK(fx_image_writer_open(ctx, path, img.width, img.height, img.channels,
                                              img.type, NULL, &w),
                         ctx);
            for (int y = 0; w && y < img.height; y += cases[c].band) {
                fx_image band = img;
                band.data = fx_image_row(&img, y);
                band.height = img.height - y < cases[c].band ? img.height - y : cases[c].band;
                FXT_CHECK_OK(fx_image_writer_write_rows(w, &band), ctx);
            }
            if (w) FXT_CHECK_OK(fx_image_writer_close(w), ctx);
            if (FXT_CHECK_OK(fx_image_read_file(ctx, path, &back), ctx))
                FXT_CHECK(fxt_images_equal(&img, &back));
            fx_image_free(&img);
            fx_image_free(&back);
        }
    }
    fx_context_destroy(ctx);
    remove_shm_dir(dirs[1]);
}

FXT_MAIN(FXT_CASE(parallel_reads_are_the_file_and_stop_at_its_end),
         FXT_CASE(mapped_writes_land_every_byte_in_any_band_order),
         FXT_CASE(a_refused_mapped_write_is_an_error_and_leaves_nothing),
         FXT_CASE(netpbm_streams_round_trip_through_the_parallel_paths))
