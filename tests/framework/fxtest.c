/* fxtest — runner and checks. */
#include "fxtest.h"

#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FXT_SKIP_CODE 77
#define FXT_PATHS 8
#define FXT_PATH_MAX 4096

static int current_failed;

int fxt_check(int cond, const char *expr, const char *file, int line)
{
    if (!cond) {
        fprintf(stderr, "  %s:%d: check failed: %s\n", file, line, expr);
        current_failed = 1;
    }
    return cond;
}

int fxt_check_int(long long a, long long b, const char *ea, const char *eb, const char *file,
                  int line)
{
    if (a != b) {
        fprintf(stderr, "  %s:%d: %s == %s failed: %lld != %lld\n", file, line, ea, eb, a, b);
        current_failed = 1;
    }
    return a == b;
}

int fxt_check_status(fx_status got, fx_status want, const char *expr, fx_context *ctx,
                     const char *file, int line)
{
    if (got != want) {
        fprintf(stderr, "  %s:%d: %s returned %d (%s), expected %d (%s); detail: %s\n", file, line,
                expr, got, fx_strerror(got), want, fx_strerror(want),
                ctx ? fx_context_error(ctx) : "-");
        current_failed = 1;
    }
    return got == want;
}

int fxt_check_contains(const char *haystack, const char *needle, const char *file, int line)
{
    int ok = haystack && needle && strstr(haystack, needle) != NULL;
    if (!ok) {
        fprintf(stderr, "  %s:%d: \"%s\" does not contain \"%s\"\n", file, line,
                haystack ? haystack : "(null)", needle ? needle : "(null)");
        current_failed = 1;
    }
    return ok;
}

void fxt_skip(const char *why)
{
    printf("skipped: %s\n", why);
    fflush(stdout);
    exit(FXT_SKIP_CODE);
}

int fxt_run(int argc, char **argv, const fxt_case *cases, size_t count)
{
    /* arguments: the cases to run (all without any) */
    int passed = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        bool named = argc <= 1;
        for (int a = 1; a < argc && !named; a++)
            named = strcmp(argv[a], cases[i].name) == 0;
        if (!named) continue;
        current_failed = 0;
        cases[i].fn();
        printf("%s %s\n", current_failed ? "FAIL" : "ok  ", cases[i].name);
        fflush(stdout);
        if (current_failed)
            failed++;
        else
            passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

fx_context *fxt_context(fx_device_kind device, int threads)
{
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = device;
    opts.threads = threads;
    fx_context *ctx = NULL;
    fx_status st = fx_context_create(&opts, &ctx);
    if (st != FX_OK) {
        fprintf(stderr, "cannot create a test context: %s\n", fx_strerror(st));
        exit(1);
    }
    return ctx;
}

uint64_t fxt_rand(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int make_dirs(const char *path)
{
    char buf[FXT_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

const char *fxt_tmpdir(const char *name)
{
    static char dirs[FXT_PATHS][FXT_PATH_MAX];
    static int next;
    char *dir = dirs[next++ % FXT_PATHS];
    const char *base = getenv("FXKIT_TMP");
    if (base && *base)
        snprintf(dir, FXT_PATH_MAX, "%s/%s", base, name);
    else
        snprintf(dir, FXT_PATH_MAX, "/tmp/fxtest-%d/%s", (int)getpid(), name);
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "cannot create %s\n", dir);
        exit(1);
    }
    return dir;
}

const char *fxt_path(const char *dir, const char *file)
{
    static char paths[FXT_PATHS][FXT_PATH_MAX];
    static int next;
    char *p = paths[next++ % FXT_PATHS];
    snprintf(p, FXT_PATH_MAX, "%s/%s", dir, file);
    return p;
}

const char *fxt_sample(const char *file)
{
    const char *dir = getenv("FXKIT_SAMPLES");
    return dir && *dir ? fxt_path(dir, file) : NULL;
}

double fxt_value_at(const fx_image *img, int64_t y, int64_t i)
{
    const uint8_t *row = fx_image_row(img, (int)y);
    switch (img->type) {
    case FX_U8: return row[i];
    case FX_U16: return ((const uint16_t *)(const void *)row)[i];
    default: return ((const float *)(const void *)row)[i];
    }
}

bool fxt_images_equal(const fx_image *a, const fx_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->type != b->type)
        return false;
    size_t row = (size_t)a->width * (size_t)a->channels * fx_sample_size(a->type);
    for (int y = 0; y < a->height; y++)
        if (memcmp(fx_image_row(a, y), fx_image_row(b, y), row) != 0) return false;
    return true;
}
