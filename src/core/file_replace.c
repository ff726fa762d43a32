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
#include <stdio.h>
#include <sys/stat.h>
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
