/* Atomic replacement (fxi_file_replace, src/core/file_replace.c) and the output file's
 * opening without O_TRUNC (src/io/file_io.c): names end up holding exactly the new
 * bytes, the old file goes, and what rename refuses is still refused. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "fxtest.h"

static void spill(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The file's whole text (up to 255 bytes), or "" when it cannot be read. */
static const char *text_of(const char *path)
{
    static char buf[256];
    buf[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

FXT_TEST(replace_onto_a_new_name_and_over_an_old_file)
{
    const char *dir = fxt_tmpdir("io_replace");
    char temp[512], final[512], other[512];
    snprintf(temp, sizeof temp, "%s", fxt_path(dir, ".temp"));
    snprintf(final, sizeof final, "%s", fxt_path(dir, "final"));
    snprintf(other, sizeof other, "%s", fxt_path(dir, "other-name"));
    remove(final);
    remove(other);
    spill(temp, "first");
    FXT_CHECK_EQ(fxi_file_replace(temp, final), 0);
    FXT_CHECK(!strcmp(text_of(final), "first"));
    FXT_CHECK(!exists(temp));
    /* Over an existing file that has a second name: the name gets the new file, the
     * other name keeps the old one (a rename's semantics), and no temporary is left. */
    FXT_CHECK_EQ(link(final, other) == 0 ? 0 : errno, 0);
    spill(temp, "second, longer");
    FXT_CHECK_EQ(fxi_file_replace(temp, final), 0);
    FXT_CHECK(!strcmp(text_of(final), "second, longer"));
    FXT_CHECK(!strcmp(text_of(other), "first"));
    FXT_CHECK(!exists(temp));
    /* A shorter file over a longer one: exactly its bytes. */
    spill(temp, "3rd");
    FXT_CHECK_EQ(fxi_file_replace(temp, final), 0);
    FXT_CHECK(!strcmp(text_of(final), "3rd"));
    remove(final);
    remove(other);
}

FXT_TEST(replace_refuses_what_rename_refuses)
{
    const char *dir = fxt_tmpdir("io_replace_refused");
    char temp[512], sub[512], inner[600];
    snprintf(temp, sizeof temp, "%s", fxt_path(dir, ".temp"));
    snprintf(sub, sizeof sub, "%s", fxt_path(dir, "a-folder"));
    snprintf(inner, sizeof inner, "%s/kept", sub);
    mkdir(sub, 0755);
    spill(inner, "inside");
    spill(temp, "new");
    /* A folder is not replaced by a file: an error, both left as they were. */
    FXT_CHECK(fxi_file_replace(temp, sub) != 0);
    FXT_CHECK(!strcmp(text_of(temp), "new"));
    FXT_CHECK(!strcmp(text_of(inner), "inside"));
    /* A missing temporary: ENOENT, nothing created. */
    char final[512];
    snprintf(final, sizeof final, "%s", fxt_path(dir, "final"));
    remove(final);
    remove(temp);
    FXT_CHECK_EQ(fxi_file_replace(temp, final), ENOENT);
    FXT_CHECK(!exists(final));
    remove(inner);
    rmdir(sub);
}

/* Written straight to an existing path (in_place: no temporary): emptied first when it
 * holds bytes, so a smaller image leaves no tail of the old file. */
FXT_TEST(direct_write_over_a_longer_file)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_replace_direct"), "x.pgm");
    fx_image big, small, back = {0};
    FXT_CHECK_OK(fx_image_alloc(ctx, &big, 40, 30, 1, FX_U8), ctx);
    FXT_CHECK_OK(fx_image_alloc(ctx, &small, 3, 2, 1, FX_U8), ctx);
    memset(big.data, 9, big.stride * (size_t)big.height);
    memset(small.data, 7, small.stride * (size_t)small.height);
    fx_image_write_options direct;
    fx_image_write_options_init(&direct);
    direct.in_place = 1;
    FXT_CHECK_OK(fx_image_write_file(ctx, path, &big, &direct), ctx);
    FXT_CHECK_OK(fx_image_write_file(ctx, path, &small, &direct), ctx);
    struct stat st;
    FXT_CHECK(stat(path, &st) == 0 && st.st_size == (off_t)strlen("P5\n3 2\n255\n") + 6);
    if (FXT_CHECK_OK(fx_image_read_file(ctx, path, &back), ctx))
        FXT_CHECK(fxt_images_equal(&small, &back));
    remove(path);
    fx_image_free(&back);
    fx_image_free(&big);
    fx_image_free(&small);
    fx_context_destroy(ctx);
}

static int entries_in(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

/* fx_image_write_file replaces a file whole, in every format: a second name of the old
 * file keeps the old bytes, and a write that fails (past a file-size limit) leaves the
 * old file as it was and no temporary beside it. */
FXT_TEST(whole_file_writes_replace_atomically)
{
    static const char *const names[] = {"x.pgm", "x.png", "x.jpg", "x.pfm"};
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_replace_whole");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const fx_sample_type type = strstr(names[i], ".pfm") ? FX_F32 : FX_U8;
        char path[512], other[512];
        snprintf(path, sizeof path, "%s", fxt_path(dir, names[i]));
        snprintf(other, sizeof other, "%s", fxt_path(dir, "second-name"));
        remove(path);
        remove(other);
        fx_image small, big, back = {0}, back2 = {0};
        FXT_CHECK_OK(fx_image_alloc(ctx, &small, 3, 2, 1, type), ctx);
        FXT_CHECK_OK(fx_image_alloc(ctx, &big, 700, 500, 1, type), ctx);
        memset(small.data, 7, small.stride * (size_t)small.height);
        for (size_t b = 0; b < big.stride * (size_t)big.height; b++) /* noise: PNG stays big */
            ((uint8_t *)big.data)[b] = (uint8_t)(b * 2654435761u >> 13);
        if (type == FX_F32)
            for (int y = 0; y < big.height; y++)
                for (int x = 0; x < big.width; x++)
                    ((float *)fx_image_row(&big, y))[x] = (float)((x * 31 + y) % 97) / 97.0f;
        FXT_CHECK_OK(fx_image_write_file(ctx, path, &small, NULL), ctx);
        FXT_CHECK_EQ(link(path, other) == 0 ? 0 : errno, 0);
        FXT_CHECK_OK(fx_image_write_file(ctx, path, &big, NULL), ctx);
        FXT_CHECK_OK(fx_image_read_file(ctx, other, &back), ctx);
        FXT_CHECK_EQ(back.width, 3);
        FXT_CHECK_EQ(entries_in(dir), 2);
        remove(other);
        /* Back to the small image, then a big write that cannot finish. */
        FXT_CHECK_OK(fx_image_write_file(ctx, path, &small, NULL), ctx);
        struct rlimit old;
        if (FXT_CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0)) {
            void (*was)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
            const struct rlimit cap = {(rlim_t)4096, old.rlim_max};
            if (FXT_CHECK(setrlimit(RLIMIT_FSIZE, &cap) == 0)) {
                const fx_status st = fx_image_write_file(ctx, path, &big, NULL);
                setrlimit(RLIMIT_FSIZE, &old);
                FXT_CHECK_STATUS(st, FX_EIO, ctx);
            }
            signal(SIGXFSZ, was);
        }
        FXT_CHECK_OK(fx_image_read_file(ctx, path, &back2), ctx);
        FXT_CHECK_EQ(back2.width, 3);
        FXT_CHECK_EQ(entries_in(dir), 1);
        remove(path);
        fx_image_free(&back);
        fx_image_free(&back2);
        fx_image_free(&small);
        fx_image_free(&big);
    }
    fx_context_destroy(ctx);
}

/* The hint before a replacement changes no file's bytes, whatever the path names. */
FXT_TEST(release_cache_is_only_a_hint)
{
    const char *dir = fxt_tmpdir("io_replace_cache");
    char path[512];
    snprintf(path, sizeof path, "%s", fxt_path(dir, "big"));
    const size_t size = (size_t)3 << 20; /* above the size that is worth a hint */
    char *data = malloc(size);
    if (!FXT_CHECK(data != NULL)) return;
    for (size_t i = 0; i < size; i++)
        data[i] = (char)(i * 131 >> 7);
    FILE *f = fopen(path, "wb");
    FXT_CHECK(f && fwrite(data, 1, size, f) == size);
    if (f) fclose(f);
    fxi_file_release_cache(path); /* dirty: left alone */
    sync();
    fxi_file_release_cache(path); /* clean: dropped from the cache */
    char *back = malloc(size);
    f = fopen(path, "rb");
    FXT_CHECK(f && back && fread(back, 1, size, f) == size && !memcmp(back, data, size));
    if (f) fclose(f);
    fxi_file_release_cache(fxt_path(dir, "missing"));
    fxi_file_release_cache(dir);
    fxi_file_release_cache("/dev/null");
    remove(path);
    free(back);
    free(data);
}

FXT_MAIN(FXT_CASE(replace_onto_a_new_name_and_over_an_old_file),
         FXT_CASE(replace_refuses_what_rename_refuses), FXT_CASE(direct_write_over_a_longer_file),
         FXT_CASE(whole_file_writes_replace_atomically), FXT_CASE(release_cache_is_only_a_hint))
