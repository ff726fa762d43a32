/* fxtest — the project's small C test framework.
 *
 * A test file defines functions with FXT_TEST and lists them in main through
 * FXT_MAIN. Each check that fails prints file:line and the expression and marks
 * the test failed; the run ends with "N passed, N failed" (the line CI reads) and
 * exits non-zero on any failure. fxt_skip() ends the whole program with code 77,
 * which CTest reports as skipped.
 */
#ifndef FXTEST_H
#define FXTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fxkit/fxkit.h"

typedef void (*fxt_fn)(void);
typedef struct fxt_case {
    const char *name;
    fxt_fn fn;
} fxt_case;

#define FXT_TEST(name) static void name(void)
#define FXT_CASE(name)                                                                             \
    {                                                                                              \
#name, name                                                                                \
    }
#define FXT_MAIN(...)                                                                              \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        static const fxt_case cases[] = {__VA_ARGS__};                                             \
        return fxt_run(argc, argv, cases, sizeof cases / sizeof *cases);                           \
    }

int fxt_run(int argc, char **argv, const fxt_case *cases, size_t count);

/* Returns cond, so a test can stop early: if (!FXT_CHECK(p)) return; */
int fxt_check(int cond, const char *expr, const char *file, int line);
int fxt_check_int(long long a, long long b, const char *ea, const char *eb, const char *file,
                  int line);
int fxt_check_status(fx_status got, fx_status want, const char *expr, fx_context *ctx,
                     const char *file, int line);
int fxt_check_contains(const char *haystack, const char *needle, const char *file, int line);

#define FXT_CHECK(cond) fxt_check(!!(cond), #cond, __FILE__, __LINE__)
#define FXT_CHECK_EQ(a, b) fxt_check_int((long long)(a), (long long)(b), #a, #b, __FILE__, __LINE__)
/* Expect a status; on a mismatch print the context's error detail. ctx may be NULL. */
#define FXT_CHECK_STATUS(expr, want, ctx)                                                          \
    fxt_check_status((expr), (want), #expr, (ctx), __FILE__, __LINE__)
#define FXT_CHECK_OK(expr, ctx) FXT_CHECK_STATUS(expr, FX_OK, ctx)
#define FXT_CHECK_CONTAINS(text, needle) fxt_check_contains((text), (needle), __FILE__, __LINE__)

/* End the program as skipped (exit 77) with "skipped: <why>". */
void fxt_skip(const char *why);

/* A context for tests: CPU unless device is given, `threads` threads (0 = all). */
fx_context *fxt_context(fx_device_kind device, int threads);

/* Same shape, type and pixels (row padding ignored). */
bool fxt_images_equal(const fx_image *a, const fx_image *b);

/* Element i of row y of a u8, u16 or f32 image, as a double. */
double fxt_value_at(const fx_image *img, int64_t y, int64_t i);

/* Deterministic pseudo-random numbers (splitmix64) for test inputs. */
uint64_t fxt_rand(uint64_t *state);

/* A fresh folder for this test's files: $FXKIT_TMP/<name> or /tmp/fxtest-<pid>/<name>. */
const char *fxt_tmpdir(const char *name);
/* path = dir + "/" + file in a static rotating buffer. */
const char *fxt_path(const char *dir, const char *file);
/* $FXKIT_SAMPLES/<file>, or NULL when unset. */
const char *fxt_sample(const char *file);

#endif
