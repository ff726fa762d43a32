/* Large positioned reads and writes on the context's threads (io_internal.h says why).
 *
 * Reads: the iovec array is cut into pieces of whole entries, FXI_IO_PIECE_BYTES at
 * least, and each thread reads its pieces with preadv at their own offsets.
 *
 * Writes: the bytes are copied by the context's threads into a window of the file's
 * pages, mapped shared. A page that is written through a mapping must already be backed
 * (a fault that finds no space is a SIGBUS), so its range is reserved first with
 * fallocate, which fails with ENOSPC like a write would. fallocate of a range runs under
 * the file's lock and, on tmpfs, allocates every page: 0.52-0.56 s for 3 GB on the H200
 * machine (ext4: 2 ms). A Netpbm stream tells its final size up front
 * (fxi_out_expect_size), and a thread of the file's own then reserves ahead of the
 * writes, so that cost overlaps the reading and filtering of the bands.
 *
 * Measured on the H200 machine (16 cores, 3 GB, 2026-11-26, docs/BENCHMARKS.md r56-r58):
 *   tmpfs: write() on one thread 1.18-1.45 s, pwrite() on 4-16 threads 1.17-1.39 s (one
 *   lock); mapped pages written by 16 threads 0.69-0.73 s unreserved, 0.25-0.33 s in
 *   windows after fallocate (0.29-0.63 s itself); preadv 0.88-0.97 s on one thread,
 *   0.085 s on 16.
 *   ext4: write() 0.75 s, but fallocate then 16 threads through windows 1.36-1.53 s: only
 *   tmpfs maps its outputs (fxi_out_maps_well); preadv 0.58 s on one thread, 0.078 s on
 *   16, so reads are split on every file system. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

#include "io/io_internal.h"

/* Smaller transfers go as one system call: splitting them gains less than the wake-up
 * of the threads costs. */
#ifndef FXI_IO_PARALLEL_MIN_BYTES
#define FXI_IO_PARALLEL_MIN_BYTES ((size_t)4 << 20)
#endif
/* A piece of a transfer, at least (a thread takes several in turn). On the H200 machine,
 * reading the 1 GP PPM from tmpfs in 16 MiB bands while the output's pages were written
 * (r59): pieces of 256 KiB 277-330 ms in all, 1 MiB 352-445 ms, 4 MiB 345-392 ms. */
#ifndef FXI_IO_PIECE_BYTES
#define FXI_IO_PIECE_BYTES ((size_t)256 << 10)
#endif
/* The file's pages mapped at once: a new mapping (and its unmapping, which interrupts
 * every core that touched it) per window rather than per band. On the H200 machine,
 * 3 GB through windows of 16 MiB took 0.87 s, of 64 MiB 0.79-0.80 s, as one mapping
 * 0.69-0.73 s (unreserved tmpfs). Mapped pages count in the process's RSS. */
#ifndef FXI_OUT_WINDOW_BYTES
#define FXI_OUT_WINDOW_BYTES ((size_t)128 << 20)
#endif
/* The reserving thread's steps, and the outputs worth one. */
#ifndef FXI_OUT_RESERVE_STEP_BYTES
#define FXI_OUT_RESERVE_STEP_BYTES ((uint64_t)32 << 20)
#endif
#ifndef FXI_OUT_RESERVE_MIN_BYTES
#define FXI_OUT_RESERVE_MIN_BYTES ((uint64_t)64 << 20)
#endif

/* ---- shared ---- */

static bool worth_splitting(fx_context *ctx, const struct iovec *iov, int count, size_t *total)
{
    size_t sum = 0;
    for (int k = 0; k < count; k++) {
        if (iov[k].iov_len > SIZE_MAX - sum) return false;
        sum += iov[k].iov_len;
    }
    *total = sum;
    return count > 0 && sum >= FXI_IO_PARALLEL_MIN_BYTES && ctx && fx_context_threads(ctx) > 1;
}

/* at[k]: where entry k starts in the transfer (at[count]: its length); NULL when out
 * of memory (the caller then transfers serially). */
static uint64_t *entry_starts(const struct iovec *iov, int count)
{
    uint64_t *at = malloc(((size_t)count + 1) * sizeof *at);
    if (!at) return NULL;
    at[0] = 0;
    for (int k = 0; k < count; k++)
        at[k + 1] = at[k] + iov[k].iov_len;
    return at;
}

/* Entries a piece holds so that it carries FXI_IO_PIECE_BYTES at least. */
static size_t piece_entries(size_t total, int count)
{
    const size_t mean = total / (size_t)count;
    const size_t n = mean ? FXI_IO_PIECE_BYTES / mean : (size_t)count;
    return n ? n : 1;
}

/* ---- reads ---- */

typedef struct read_job {
    int fd;
    uint64_t offset;
    struct iovec *iov;
    const uint64_t *at;
    _Atomic uint64_t missing_from; /* the first byte not read: UINT64_MAX when none */
    atomic_int err;                /* the first read error's errno */
} read_job;

static void note_missing(read_job *j, uint64_t from)
{
    uint64_t seen = atomic_load(&j->missing_from);
    while (from < seen && !atomic_compare_exchange_weak(&j->missing_from, &seen, from)) {}
}

static void read_pieces(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    read_job *j = arg;
    struct iovec *iov = j->iov + begin;
    int count = (int)(end - begin);
    uint64_t done = j->at[begin];
    while (count > 0) {
        const int batch = count < FXI_IOV_BATCH ? count : FXI_IOV_BATCH;
        const ssize_t n = preadv(j->fd, iov, batch, (off_t)(j->offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n < 0) {
                int none = 0;
                atomic_compare_exchange_strong(&j->err, &none, errno);
            }
            note_missing(j, done); /* n == 0: the file ends here */
            return;
        }
        done += (uint64_t)n;
        fxi_iov_advance(&iov, &count, (size_t)n);
    }
}

fx_status fxi_in_readv_parallel(fx_context *ctx, const fxi_in_file *f, uint64_t offset,
                                struct iovec *iov, int count, size_t *got, bool *taken)
{
    size_t total;
    *taken = false;
    if (!worth_splitting(ctx, iov, count, &total)) return FX_OK;
    read_job j = {.fd = f->fd, .offset = offset, .iov = iov, .at = entry_starts(iov, count)};
    if (!j.at) return FX_OK;
    *taken = true;
    atomic_init(&j.missing_from, UINT64_MAX);
    atomic_init(&j.err, 0);
    fxi_parallel_for(ctx, (size_t)count, piece_entries(total, count), read_pieces, &j);
    free((void *)j.at);
    const uint64_t missing = atomic_load(&j.missing_from);
    *got = missing < total ? (size_t)missing : total;
    const int err = atomic_load(&j.err);
    FXI_RETURN_IF(err, FX_EIO, "read error: %s", strerror(err));
    return FX_OK;
}

/* ---- writes: where ---- */

/* tmpfs's magic number (linux/magic.h), named here so that no kernel header is needed */
#define FXI_TMPFS_MAGIC 0x01021994

bool fxi_out_maps_well(int fd)
{
#ifdef __linux__
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && fs.f_type == FXI_TMPFS_MAGIC;
#else
    (void)fd;
    return false;
#endif
}

/* ---- the reserving thread ---- */

struct fxi_out_reserve {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t moved;
    int fd;
    uint64_t size;     /* the file's final size */
    uint64_t reserved; /* [0, reserved) is backed */
    int err;           /* fallocate's errno: the thread stopped there */
    bool finished;     /* the thread returned */
    bool stop;
};

static int reserve_range(int fd, uint64_t offset, uint64_t len)
{
    for (;;) {
        if (fallocate(fd, 0, (off_t)offset, (off_t)len) == 0) return 0;
        if (errno != EINTR) return errno;
    }
}

static void *reserve_main(void *arg)
{
    fxi_out_reserve *r = arg;
    uint64_t at = 0;
    int err = 0;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        const bool stop = r->stop || at >= r->size;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;
        const uint64_t n =
            r->size - at < FXI_OUT_RESERVE_STEP_BYTES ? r->size - at : FXI_OUT_RESERVE_STEP_BYTES;
        err = reserve_range(r->fd, at, n);
        pthread_mutex_lock(&r->lock);
        if (!err) r->reserved = at += n;
        r->err = err;
        pthread_cond_broadcast(&r->moved);
        pthread_mutex_unlock(&r->lock);
        if (err) break;
    }
    pthread_mutex_lock(&r->lock);
    r->finished = true;
    pthread_cond_broadcast(&r->moved);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

void fxi_out_expect_size(fxi_out_file *f, uint64_t size)
{
    if (f->reserve || !f->regular || !f->writable_map || size < FXI_OUT_RESERVE_MIN_BYTES ||
        size > INT64_MAX || !f->ctx || fx_context_threads(f->ctx) < 2)
        return;
    fxi_out_reserve *r = calloc(1, sizeof *r);
    if (!r) return; /* the writes reserve their own ranges */
    r->fd = f->fd;
    r->size = size;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->moved, NULL);
    if (pthread_create(&r->thread, NULL, reserve_main, r) != 0) {
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->moved);
        free(r);
        return;
    }
    f->reserve = r;
}

/* Wait until [0, end) is reserved; 0, or the errno that stopped the thread there (-1: it
 * stopped short without one, and the caller reserves the range itself). */
static int reserved_through(fxi_out_reserve *r, uint64_t end)
{
    pthread_mutex_lock(&r->lock);
    while (r->reserved < end && !r->err && !r->finished)
        pthread_cond_wait(&r->moved, &r->lock);
    const int result = r->reserved >= end ? 0 : r->err ? r->err : -1;
    pthread_mutex_unlock(&r->lock);
    return result;
}

/* ---- writes ---- */

/* errno values of fallocate that mean "not on this file" (the file system cannot, or
 * the file refuses): plain writes, which report their own failure if any. Others (no
 * space, too large, an I/O error) are the write's failure. */
static bool cannot_reserve(int err)
{
    return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL || err == ENODEV || err == EACCES ||
           err == EPERM;
}

/* Back [offset, offset + len): 0, or fallocate's errno. */
static int reserve_for(fxi_out_file *f, uint64_t offset, uint64_t len)
{
    const int err = f->reserve ? reserved_through(f->reserve, offset + len) : -1;
    return err == -1 ? reserve_range(f->fd, offset, len) : err;
}

/* Map the window that holds [offset, offset + len): 0 or mmap's errno. */
static int map_window(fxi_out_file *f, uint64_t offset, size_t len)
{
    if (f->window && offset >= f->window_offset &&
        offset + len <= f->window_offset + f->window_bytes)
        return 0;
    if (f->window) munmap(f->window, f->window_bytes);
    f->window = NULL;
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    const uint64_t start = offset / page * page;
    uint64_t bytes = offset + len - start;
    if (bytes < FXI_OUT_WINDOW_BYTES) bytes = FXI_OUT_WINDOW_BYTES;
    if (bytes > SIZE_MAX) return EOVERFLOW;
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, (off_t)start);
    if (p == MAP_FAILED) return errno;
    f->window = p;
    f->window_offset = start;
    f->window_bytes = (size_t)bytes;
    return 0;
}

typedef struct write_job {
    uint8_t *dst; /* the transfer's first byte in the window */
    const struct iovec *iov;
    const uint64_t *at;
} write_job;

static void copy_pieces(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const write_job *j = arg;
    for (size_t k = begin; k < end; k++)
        memcpy(j->dst + j->at[k], j->iov[k].iov_base, j->iov[k].iov_len);
}

fx_status fxi_out_pwritev_mapped(fxi_out_file *f, const struct iovec *iov, int count,
                                 uint64_t offset, bool *taken)
{
    fx_context *ctx = f->ctx;
    size_t total;
    *taken = false;
    if (!f->regular || !f->writable_map || !worth_splitting(ctx, iov, count, &total) ||
        offset > (uint64_t)INT64_MAX - total)
        return FX_OK;
    const int err = reserve_for(f, offset, total);
    if (err && !cannot_reserve(err)) { /* no space, too large: the write's own failure */
        *taken = true;
        f->failed = true;
        return fxi_error(ctx, FX_EIO, "write error: %s", strerror(err));
    }
    /* A file system that cannot reserve, or any failure to map (no mmap there, no address
     * space): plain writes from now on. */
    if (err || map_window(f, offset, total) != 0) {
        f->writable_map = false;
        return FX_OK;
    }
    write_job j = {.iov = iov, .at = entry_starts(iov, count)};
    if (!j.at) return FX_OK; /* out of memory for the offsets: plain writes */
    *taken = true;
    j.dst = f->window + (offset - f->window_offset);
    fxi_parallel_for(ctx, (size_t)count, piece_entries(total, count), copy_pieces, &j);
    free((void *)j.at);
    return FX_OK;
}

void fxi_out_parallel_end(fxi_out_file *f)
{
    if (f->window) munmap(f->window, f->window_bytes);
    f->window = NULL;
    fxi_out_reserve *r = f->reserve;
    f->reserve = NULL;
    if (!r) return;
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->moved);
    free(r);
}
