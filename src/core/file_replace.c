/* Atomic replacement of a file by a finished temporary one (fxi_file_replace).
 *
 * Why not rename alone: on ext4 (default auto_da_alloc), a rename over an existing
 * file starts writeback of the whole renamed file inside the rename, so that a crash
 * cannot leave the new name with zero-length data. For a 183 MiB output on the 2-core
 * dev machine that rename took 135 ms (median of 7, bench/write_commit) against 0 ms
 * onto a new name. RENAME_EXCHANGE is just as atomic for the name and starts no
 * writeback; the old file then goes with an unlink (which frees its pages and blocks,
 * 40-70 ms for 183 MiB, the same work a truncating `cp` over it does). The data of the
 * new file reaches the disk with the ordinary writeback, as it does for any new file:
 * fxkit never promised durability (no fsync), only that the name never shows a
 * half-written file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/internal.h"

#ifdef RENAME_EXCHANGE
/* errno values that mean "this file system (or kernel) cannot exchange": rename. */
static int cannot_exchange(int err)
{
    return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP || err == ENOTSUP;
}
#endif

int fxi_file_replace(const char *temp, const char *final)
{
#ifdef RENAME_EXCHANGE /* glibc 2.28 on Linux 3.15; elsewhere a plain rename */
    struct stat st;
    /* Only a regular file is exchanged: rename's own rules (a directory is refused, a
     * link is replaced, not followed) stay as they are for everything else. */
    if (lstat(final, &st) == 0 && S_ISREG(st.st_mode)) {
        if (renameat2(AT_FDCWD, temp, AT_FDCWD, final, RENAME_EXCHANGE) == 0) {
            if (unlink(temp) == 0) return 0;
            /* The old file could not go (it became something unlink refuses between
             * the lstat and the exchange): swap back, so that nothing moved. */
            int err = errno;
            renameat2(AT_FDCWD, temp, AT_FDCWD, final, RENAME_EXCHANGE);
            return err;
        }
        if (!cannot_exchange(errno) && errno != ENOENT) return errno;
    }
#endif
    return rename(temp, final) == 0 ? 0 : errno;
}

/* ---- the old file's cache (fxi_file_release_cache) ----
 *
 * Why: a new output needs as many fresh page-cache pages as it has bytes, while the file
 * it replaces holds as many until the very end. On the dev machine (a Firecracker VM with
 * free page reporting, page_reporting_order=11) memory that has been free for a couple of
 * seconds is handed back to the host, and the next write into it runs at the host's
 * first-touch rate: dd of 184 MiB into the page cache took 720-830 ms that way against
 * 96-103 ms into memory freed a moment before. Over an existing 183 MiB PPM the filter's
 * time was bimodal, 206-233 ms or 724-765 ms; with the old file's clean pages dropped
 * first, 237-298 ms in every round (including a Python start of ~40 ms; 2026-11-26).
 * Only clean pages are dropped: POSIX_FADV_DONTNEED starts writeback of dirty ones,
 * which for a file about to be deleted would be work thrown away. cachestat (Linux 6.5)
 * tells which; without it nothing is dropped. */
/* Files smaller than this are not worth the system calls (not measured: a page-cache
 * effect needs megabytes). */
#define RELEASE_CACHE_MIN_BYTES ((off_t)1 << 20)

#if defined(__linux__) && !defined(__NR_cachestat)
#define __NR_cachestat 451 /* the same number on every architecture's table */
#endif

#ifdef __NR_cachestat
struct fxi_cachestat_range {
    uint64_t off, len; /* len 0: to the end of the file */
};
struct fxi_cachestat {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};
#endif

void fxi_file_release_cache(const char *final)
{
#if defined(__NR_cachestat) && defined(POSIX_FADV_DONTNEED)
    int fd = open(final, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return;
    struct stat st;
    struct fxi_cachestat_range range = {0, 0};
    struct fxi_cachestat cs;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= RELEASE_CACHE_MIN_BYTES &&
        syscall(__NR_cachestat, fd, &range, &cs, 0) == 0 && cs.nr_cache > 0 && cs.nr_dirty == 0 &&
        cs.nr_writeback == 0)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
#else
    (void)final;
#endif
}
