/* fxkit bench: the physical floor of each CPU row, the time its bytes take to move at
 * this machine's own rates, measured once per run:
 *   - memory: a copy of FLOOR_COPY_BYTES between two warm buffers on all the run's
 *     threads (each copies its slice), best of FLOOR_ROUNDS. An image or audio job reads
 *     its input and writes its output at least once, so its floor is (in + out) / 2
 *     bytes at the copy's rate (a copy moves each byte in and out);
 *   - page cache: a new file of FLOOR_FILE_BYTES written (open, write, close) and read
 *     back, best of FLOOR_ROUNDS, for the io job's rows: the file's own size at that rate.
 *     The read maps the file and copies it out, the cheapest way to get cached bytes into
 *     a buffer (read() through the kernel's copy ran at 1.3 GB/s on the 2-core VM, where
 *     fxkit's own PPM reader moved 8 GB/s).
 * GPU rows get none: the bench does not measure the device's bandwidth (the H200's
 * 4.8 TB/s and PCIe rates are in docs/BENCHMARKS.md). */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_run.h"

/* Larger than the last-level caches of the machines measured (128 MiB), small enough
 * that the measurement takes well under a second. */
#define FLOOR_COPY_BYTES ((size_t)128 << 20)
#define FLOOR_FILE_BYTES ((size_t)32 << 20)
#define FLOOR_ROUNDS 3
#define FLOOR_MAX_THREADS 256

typedef struct copy_slice {
    char *dst;
    const char *src;
    size_t bytes;
} copy_slice;

static void *copy_main(void *arg)
{
    copy_slice *s = arg;
    memcpy(s->dst, s->src, s->bytes);
    return NULL;
}

/* Seconds of one parallel copy of `bytes` from src to dst on `threads` threads. */
static double parallel_copy(char *dst, const char *src, size_t bytes, int threads)
{
    pthread_t tid[FLOOR_MAX_THREADS];
    copy_slice slice[FLOOR_MAX_THREADS];
    bool started[FLOOR_MAX_THREADS] = {false};
    const size_t per = bytes / (size_t)threads;
    const uint64_t t0 = fx_time_ns();
    for (int i = 0; i < threads; i++) {
        slice[i] = (copy_slice){dst + per * (size_t)i, src + per * (size_t)i,
                                i == threads - 1 ? bytes - per * (size_t)i : per};
        started[i] = i > 0 && pthread_create(&tid[i], NULL, copy_main, &slice[i]) == 0;
        if (i > 0 && !started[i]) copy_main(&slice[i]);
    }
    copy_main(&slice[0]);
    for (int i = 1; i < threads; i++)
        if (started[i]) pthread_join(tid[i], NULL);
    return fx_elapsed_ms(t0, fx_time_ns()) / 1000.0;
}

/* Bytes per second of the memory copy; 0 when it cannot be measured. */
static double copy_rate(int threads)
{
    if (threads < 1) threads = fx_cpu_count();
    if (threads > FLOOR_MAX_THREADS) threads = FLOOR_MAX_THREADS;
    char *a = malloc(FLOOR_COPY_BYTES), *b = malloc(FLOOR_COPY_BYTES);
    double best = 0;
    if (a && b) {
        memset(a, 1, FLOOR_COPY_BYTES); /* both warm: no first-touch faults in the timing */
        memset(b, 2, FLOOR_COPY_BYTES);
        for (int i = 0; i < FLOOR_ROUNDS; i++) {
            double s = parallel_copy(b, a, FLOOR_COPY_BYTES, threads);
            if (s > 0 && (best == 0 || s < best)) best = s;
        }
    }
    free(a);
    free(b);
    return best > 0 ? (double)FLOOR_COPY_BYTES / best : 0;
}

/* Bytes per second writing a new file, and reading it back from the page cache. */
static void file_rates(bench_runner *r, double *write_rate, double *read_rate)
{
    *write_rate = *read_rate = 0;
    char path[PATH_MAX];
    bench_tmp_path(r, "floor.bin", path, sizeof path);
    char *buf = malloc(FLOOR_FILE_BYTES);
    if (!path[0] || !buf) {
        free(buf);
        return;
    }
    memset(buf, 3, FLOOR_FILE_BYTES);
    double best_w = 0, best_r = 0;
    for (int i = 0; i < FLOOR_ROUNDS; i++) {
        unlink(path);
        uint64_t t0 = fx_time_ns();
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        bool ok = fd >= 0 && write(fd, buf, FLOOR_FILE_BYTES) == (ssize_t)FLOOR_FILE_BYTES;
        if (fd >= 0 && close(fd) != 0) ok = false;
        double w = fx_elapsed_ms(t0, fx_time_ns()) / 1000.0;
        t0 = fx_time_ns();
        fd = ok ? open(path, O_RDONLY) : -1;
        void *map = fd >= 0 ? mmap(NULL, FLOOR_FILE_BYTES, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
        ok = map != MAP_FAILED;
        if (ok) {
            memcpy(buf, map, FLOOR_FILE_BYTES);
            munmap(map, FLOOR_FILE_BYTES);
        }
        if (fd >= 0) close(fd);
        double rd = fx_elapsed_ms(t0, fx_time_ns()) / 1000.0;
        if (!ok) break;
        if (best_w == 0 || w < best_w) best_w = w;
        if (best_r == 0 || rd < best_r) best_r = rd;
    }
    unlink(path);
    free(buf);
    if (best_w > 0) *write_rate = (double)FLOOR_FILE_BYTES / best_w;
    if (best_r > 0) *read_rate = (double)FLOOR_FILE_BYTES / best_r;
}

/* Bytes a row's job reads and writes in memory at least (in + out). */
static double moved_bytes(const bench_case *c)
{
    const double samples = (double)c->width * c->height * c->channels;
    switch (c->job) {
    case BENCH_FILTER: return 2 * samples;                   /* u8 in, u8 out */
    case BENCH_EQUALIZE: return 2 * samples;                 /* gray out counts as RGB: an upper bound */
    case BENCH_NORMALIZE: return 2 * samples * sizeof(double); /* f64 frames in and out */
    default: return 0;
    }
}

void bench_floors(bench_runner *r, bench_rows *rows)
{
    bool any = false;
    for (size_t i = 0; i < rows->count && !any; i++)
        any = rows->rows[i].ran && !rows->rows[i].gpu;
    if (!any) return;
    const double copy = copy_rate(r->cfg.threads);
    double write_rate = 0, read_rate = 0;
    file_rates(r, &write_rate, &read_rate);
    for (size_t i = 0; i < rows->count; i++) {
        bench_row *row = &rows->rows[i];
        if (!row->ran || row->gpu) continue;
        if (row->c->job == BENCH_IO) {
            const double rate = row->c->io_op == BENCH_IO_WRITE ? write_rate : read_rate;
            if (rate > 0 && row->file_bytes > 0) row->floor_ms = 1e3 * (double)row->file_bytes / rate;
        } else if (copy > 0) {
            row->floor_ms = 1e3 * moved_bytes(row->c) / 2 / copy;
        }
    }
}
