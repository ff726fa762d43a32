/* What an atomic output costs on this file system: one image's bytes (from memory)
 * written to a temporary file beside the target and put in place, in each of the
 * ways an atomic writer could do it, alternating, medians with the rounds. It split
 * the 64-megapixel PPM's file-to-file time on ext4 (docs/BENCHMARKS.md, "filter file
 * to file against cp and OpenCV"): ext4's auto_da_alloc starts writeback of the whole
 * file on the close after a truncate to zero and on a rename over an existing file,
 * both on the caller's clock.
 *
 *   trunc-close   the temp created empty, reopened with O_TRUNC (the 0.x CLI), rename
 *   create        the temp created and written on one descriptor, rename
 *   over-rename   as create, renamed over an existing target
 *   over-exchange as create, renameat2(RENAME_EXCHANGE) with the target, old unlinked
 *   over-unlink   as create, the target unlinked, then rename (not atomic: a moment
 *                 without a file; measured for comparison only)
 *
 * usage: build/bench/write_commit DIR [MIB] [ROUNDS] [CHUNK_KIB]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MIB 183 /* 8000 x 8000 x 3 bytes */
#define DEFAULT_ROUNDS 7
#define DEFAULT_CHUNK_KIB 8192
#define MAX_ROUNDS 64
#define PATH_BYTES 4096

enum { TRUNC_CLOSE, CREATE, OVER_RENAME, OVER_EXCHANGE, OVER_UNLINK, WAYS };
static const char *const names[WAYS] = {"trunc-close", "create", "over-rename", "over-exchange",
                                        "over-unlink"};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int write_all(int fd, const char *data, size_t size, size_t chunk)
{
    for (size_t done = 0; done < size;) {
        size_t n = size - done < chunk ? size - done : chunk;
        ssize_t w = write(fd, data + done, n);
        if (w <= 0) return -1;
        done += (size_t)w;
    }
    return 0;
}

/* One way, timed from the temp's creation to the target in place; *close_ms and
 * *commit_ms: the close and the rename (or exchange + unlink) alone. */
static double one(int way, const char *dir, const char *data, size_t size, size_t chunk,
                  double *close_ms, double *commit_ms)
{
    char temp[PATH_BYTES], target[PATH_BYTES];
    snprintf(temp, sizeof temp, "%s/.wc-temp", dir);
    snprintf(target, sizeof target, "%s/wc-%s", dir, names[way]);
    bool over = way >= OVER_RENAME;
    if (!over) unlink(target);
    if (over && access(target, F_OK) != 0) { /* an old output to replace */
        int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write_all(fd, data, size, chunk) != 0) return -1;
        close(fd);
    }
    sync(); /* every way starts with nothing dirty */
    double t0 = now_ms();
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    if (way == TRUNC_CLOSE) {
        close(fd);
        fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
    }
    if (write_all(fd, data, size, chunk) != 0) return -1;
    double t1 = now_ms();
    close(fd);
    double t2 = now_ms();
    int rc = 0;
    if (way == OVER_EXCHANGE) {
        rc = renameat2(AT_FDCWD, temp, AT_FDCWD, target, RENAME_EXCHANGE);
        if (rc == 0) rc = unlink(temp);
    } else {
        if (way == OVER_UNLINK) unlink(target);
        rc = rename(temp, target);
    }
    double t3 = now_ms();
    if (rc != 0) return -1;
    *close_ms = t2 - t1;
    *commit_ms = t3 - t2;
    return t3 - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [MIB] [ROUNDS] [CHUNK_KIB]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    size_t size = (argc > 2 ? strtoul(argv[2], NULL, 10) : DEFAULT_MIB) << 20;
    int rounds = argc > 3 ? atoi(argv[3]) : DEFAULT_ROUNDS;
    size_t chunk = (argc > 4 ? strtoul(argv[4], NULL, 10) : DEFAULT_CHUNK_KIB) << 10;
    if (rounds < 1 || rounds > MAX_ROUNDS || chunk == 0) return 2;
    char *data = malloc(size);
    if (!data) return 1;
    for (size_t i = 0; i < size; i++)
        data[i] = (char)(i * 2654435761u >> 13);
    double total[WAYS][MAX_ROUNDS], closing[WAYS][MAX_ROUNDS], commit[WAYS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int w = 0; w < WAYS; w++)
            if ((total[w][r] = one(w, dir, data, size, chunk, &closing[w][r], &commit[w][r])) < 0) {
                perror(names[w]);
                return 1;
            }
    printf("%zu MiB in chunks of %zu KiB, %d rounds (ms: median, then the rounds)\n", size >> 20,
           chunk >> 10, rounds);
    for (int w = 0; w < WAYS; w++) {
        printf("%-14s total %6.1f  close %6.1f  commit %6.1f  [", names[w],
               median(total[w], rounds), median(closing[w], rounds), median(commit[w], rounds));
        for (int r = 0; r < rounds; r++)
            printf("%s%.0f", r ? " " : "", total[w][r]);
        printf("]\n");
    }
    for (int w = OVER_RENAME; w < WAYS; w++) {
        char target[PATH_BYTES];
        snprintf(target, sizeof target, "%s/wc-%s", dir, names[w]);
        unlink(target);
    }
    for (int w = TRUNC_CLOSE; w < OVER_RENAME; w++) {
        char target[PATH_BYTES];
        snprintf(target, sizeof target, "%s/wc-%s", dir, names[w]);
        unlink(target);
    }
    free(data);
    return 0;
}
