/* Files as the image codecs use them: plain descriptors, one system call per
 * large transfer (pread/preadv into the image's own rows, writev/pwritev from
 * them), loops for the partial transfers POSIX allows, and outputs that are
 * removed (or never renamed into place) when anything fails. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io/io_internal.h"

/* Permissions of a new file before the umask, as fopen(…, "w") gives. */
#define NEW_FILE_MODE 0666
/* The part of a temporary name that mkstemp replaces. */
#define TEMP_PATTERN "XXXXXX"

/* ---- input ---- */

fx_status fxi_in_open(fx_context *ctx, const char *path, fxi_in_file *f)
{
    f->fd = -1;
    f->size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    FXI_RETURN_IF(fd < 0, FX_EIO, "cannot open: %s", strerror(errno));
    struct stat st;
    fx_status status = FX_OK;
    if (fstat(fd, &st) != 0)
        status = fxi_error(ctx, FX_EIO, "cannot stat: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        status = fxi_error(ctx, FX_EIO, "not a regular file");
    else if (st.st_size == 0)
        status = fxi_error(ctx, FX_EFORMAT, "empty file");
    else if ((uint64_t)st.st_size > SIZE_MAX)
        status = fxi_error(ctx, FX_EOVERFLOW, "file of %lld bytes does not fit in memory",
                           (long long)st.st_size);
    if (status != FX_OK) {
        close(fd);
        return status;
    }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    return FX_OK;
}

void fxi_iov_advance(struct iovec **iov, int *count, size_t done)
{
    while (*count > 0 && done >= (*iov)->iov_len) {
        done -= (*iov)->iov_len;
        (*iov)++;
        (*count)--;
    }
    if (*count > 0) {
        (*iov)->iov_base = (uint8_t *)(*iov)->iov_base + done;
        (*iov)->iov_len -= done;
    }
}

fx_status fxi_in_readv_at(fx_context *ctx, const fxi_in_file *f, uint64_t offset,
                          struct iovec *iov, int count, size_t *got)
{
    *got = 0;
    bool taken;
    fx_status st = fxi_in_readv_parallel(ctx, f, offset, iov, count, got, &taken);
    if (taken) return st;
    while (count > 0) {
        int batch = count < FXI_IOV_BATCH ? count : FXI_IOV_BATCH;
        ssize_t n = preadv(f->fd, iov, batch, (off_t)(offset + *got));
        if (n < 0 && errno == EINTR) continue;
        FXI_RETURN_IF(n < 0, FX_EIO, "read error: %s", strerror(errno));
        if (n == 0) return FX_OK; /* end of file: the caller names what is missing */
        *got += (size_t)n;
        fxi_iov_advance(&iov, &count, (size_t)n);
    }
    return FX_OK;
}

fx_status fxi_in_read_at(fx_context *ctx, const fxi_in_file *f, uint64_t offset, void *dst,
                         size_t size, size_t *got)
{
    struct iovec one = {dst, size};
    return fxi_in_readv_at(ctx, f, offset, &one, 1, got);
}

void fxi_in_close(fxi_in_file *f)
{
    if (f->fd >= 0) close(f->fd); /* read-only: nothing to lose on close */
    f->fd = -1;
}

/* ---- output ---- */

/* "dir/name.ext" → "dir/.name.ext.XXXXXX": hidden, beside the target, so that the
 * rename stays on one file system. */
static char *temp_name_for(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    size_t len = strlen(path) + sizeof "." + sizeof TEMP_PATTERN;
    char *name = malloc(len);
    if (name)
        snprintf(name, len, "%.*s.%s.%s", (int)dir_len, path, path + dir_len, TEMP_PATTERN);
    return name;
}

fx_status fxi_out_open(fx_context *ctx, const char *path, bool via_temp, fxi_out_file *f)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->ctx = ctx;
    struct stat st;
    /* Only a regular file (or a new name) is written beside and renamed; a device
     * (/dev/null, /dev/full) is written directly and never removed. */
    bool existing_special = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (via_temp && !existing_special) {
        f->temp_path = temp_name_for(path);
        f->final_path = strdup(path);
        FXI_RETURN_IF(!f->temp_path || !f->final_path, FX_ENOMEM, "out of memory for a file name");
        f->fd = mkstemp(f->temp_path);
        if (f->fd < 0) {
            fx_status st2 = fxi_error(ctx, FX_EIO, "cannot create: %s", strerror(errno));
            fxi_out_abort(f);
            return st2;
        }
        /* mkstemp makes 0600; a finished image gets what a plain create would. */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(f->fd, NEW_FILE_MODE & ~mask);
        f->regular = true;
        f->writable_map = fxi_out_maps_well(f->fd); /* mkstemp opens read-write */
        return FX_OK;
    }
    f->final_path = strdup(path);
    FXI_RETURN_IF(!f->final_path, FX_ENOMEM, "out of memory for a file name");
    /* No O_TRUNC: on ext4 (auto_da_alloc) any truncate to zero, even of an empty file
     * such as the CLI's own new temporary, makes the close start writeback of the whole
     * file on our clock (close took 9-100 ms after 183 MiB, bench/write_commit). Only
     * a file that holds bytes is emptied. */
    /* Read-write when the file allows it: only then may its pages be mapped for large
     * writes (file_parallel.c). */
    f->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, NEW_FILE_MODE);
    f->writable_map = f->fd >= 0 && fxi_out_maps_well(f->fd);
    if (f->fd < 0 && errno == EACCES)
        f->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, NEW_FILE_MODE);
    int err = f->fd < 0 ? errno : 0;
    if (!err) {
        f->regular = fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode);
        if (f->regular && st.st_size > 0 && ftruncate(f->fd, 0) != 0) err = errno;
    }
    if (err) {
        fx_status st2 = fxi_error(ctx, FX_EIO, "cannot create: %s", strerror(err));
        if (f->fd >= 0) close(f->fd);
        f->fd = -1;
        free(f->final_path);
        f->final_path = NULL;
        return st2;
    }
    return FX_OK;
}

static fx_status write_failed(fxi_out_file *f, int err)
{
    f->failed = true;
    return fxi_error(f->ctx, FX_EIO, "write error: %s", strerror(err));
}

/* Sequential (offset < 0) or positioned writes of a whole iovec array. */
static fx_status out_transfer(fxi_out_file *f, struct iovec *iov, int count, int64_t offset)
{
    if (f->failed) return fxi_error(f->ctx, FX_EBADSTATE, "the output already failed");
    while (count > 0) {
        int batch = count < FXI_IOV_BATCH ? count : FXI_IOV_BATCH;
        ssize_t n = offset < 0 ? writev(f->fd, iov, batch) : pwritev(f->fd, iov, batch, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return write_failed(f, errno);
        if (n == 0) return write_failed(f, EIO);
        if (offset >= 0) offset += n;
        fxi_iov_advance(&iov, &count, (size_t)n);
    }
    return FX_OK;
}

fx_status fxi_out_pwritev(fxi_out_file *f, struct iovec *iov, int count, uint64_t offset)
{
    fx_context *ctx = f->ctx;
    FXI_RETURN_IF(offset > INT64_MAX, FX_EOVERFLOW, "file offset overflows");
    if (f->failed) return fxi_error(ctx, FX_EBADSTATE, "the output already failed");
    bool taken;
    fx_status st = fxi_out_pwritev_mapped(f, iov, count, offset, &taken);
    if (taken) return st;
    return out_transfer(f, iov, count, (int64_t)offset);
}

fx_status fxi_out_write(fxi_out_file *f, const void *data, size_t size)
{
    struct iovec one = {(void *)(uintptr_t)data, size};
    return out_transfer(f, &one, 1, -1);
}

static fx_status sink_write(void *opaque, const void *data, size_t size)
{
    return fxi_out_write(opaque, data, size);
}

fxi_byte_sink fxi_out_sink(fxi_out_file *f)
{
    return (fxi_byte_sink){sink_write, f};
}

static void release_names(fxi_out_file *f)
{
    free(f->temp_path);
    free(f->final_path);
    f->temp_path = f->final_path = NULL;
}

fx_status fxi_out_close(fxi_out_file *f)
{
    fx_context *ctx = f->ctx;
    if (f->failed) {
        fxi_out_abort(f);
        return fxi_error(ctx, FX_EBADSTATE, "the output already failed");
    }
    fxi_out_parallel_end(f);
    /* close reports the errors of delayed writes (NFS, quotas). */
    int err = close(f->fd) != 0 ? errno : 0;
    f->fd = -1;
    if (!err && f->temp_path) err = fxi_file_replace(f->temp_path, f->final_path);
    if (err) {
        fx_status st = fxi_error(ctx, FX_EIO, "write error on close: %s", strerror(err));
        fxi_out_abort(f);
        return st;
    }
    release_names(f);
    return FX_OK;
}

void fxi_out_abort(fxi_out_file *f)
{
    fxi_out_parallel_end(f);
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->temp_path)
        unlink(f->temp_path);
    else if (f->regular && f->final_path)
        unlink(f->final_path);
    release_names(f);
}
