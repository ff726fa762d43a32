/* Temporary outputs: every output is written to a hidden file beside its target
 * and renamed into place only when complete, so a failure or a crash never leaves
 * a half-written file under the real name. A small registry, safe to read from a
 * signal handler, lets SIGINT/SIGTERM remove the files in flight. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "core/internal.h"

/* Long names are shortened in the temp name so that it stays under NAME_MAX. */
#define TEMP_STEM_MAX 64
/* Same permissions a codec's fopen would give (before the umask). */
#define TEMP_MODE 0666

static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define CAUGHT_COUNT (sizeof caught_signals / sizeof *caught_signals)

/* One slot per worker. `active` is set after the path is written and cleared
 * before the slot is reused, so the handler only ever reads a complete path. */
static struct {
    atomic_bool active;
    char path[sizeof((fxcli_temp *)0)->path];
} registry[FXCLI_MAX_JOBS];

static atomic_uint_fast64_t temp_counter;

int fxcli_temp_create(fxcli_temp *temp, const char *final, int slot)
{
    if (slot < 0 || slot >= FXCLI_MAX_JOBS) return EINVAL;
    const char *base = fxcli_path_basename(final);
    const char *ext = fxcli_path_extension(final);
    size_t stem_len = *ext ? (size_t)(ext - 1 - base) : strlen(base);
    if (stem_len > TEMP_STEM_MAX) stem_len = TEMP_STEM_MAX;
    unsigned long long number = (unsigned long long)atomic_fetch_add(&temp_counter, 1) + 1;
    /* .NAME.fxtmp-PID-N.EXT: hidden, unique, and with the real extension because
     * the codecs choose the format by it. */
    int n =
        snprintf(temp->path, sizeof temp->path, "%.*s.%.*s.fxtmp-%ld-%llu%s%s", (int)(base - final),
                 final, (int)stem_len, base, (long)getpid(), number, *ext ? "." : "", ext);
    if (n < 0 || (size_t)n >= sizeof temp->path) return ENAMETOOLONG;
    temp->slot = slot;

    memcpy(registry[slot].path, temp->path, (size_t)n + 1);
    atomic_store(&registry[slot].active, true);
    /* O_EXCL: never write through a file (or link) that someone else put there. */
    int fd = open(temp->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, TEMP_MODE);
    if (fd < 0) {
        int err = errno;
        atomic_store(&registry[slot].active, false);
        return err;
    }
    close(fd);
    return 0;
}

int fxcli_temp_commit(fxcli_temp *temp, const char *final, int mode)
{
    int err = 0;
    if (mode >= 0 && chmod(temp->path, (mode_t)mode) != 0) err = errno;
    if (!err) err = fxi_file_replace(temp->path, final);
    if (err) unlink(temp->path);
    atomic_store(&registry[temp->slot].active, false);
    return err;
}

void fxcli_temp_discard(fxcli_temp *temp)
{
    unlink(temp->path);
    atomic_store(&registry[temp->slot].active, false);
}

/* Only async-signal-safe calls here: unlink, write, _exit. */
static void on_signal(int sig)
{
    for (size_t i = 0; i < FXCLI_MAX_JOBS; i++)
        if (atomic_load(&registry[i].active)) unlink(registry[i].path);
    static const char newline[] = "\n";
    static const char message[] = FXCLI_PROGRAM ": interrupted; unfinished outputs removed\n";
    ssize_t ignored;
    if (fxcli_progress_visible()) ignored = write(STDERR_FILENO, newline, sizeof newline - 1);
    ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(FXCLI_EXIT_SIGNAL_BASE + sig);
}

void fxcli_cleanup_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* A second signal during the clean-up waits until the handler has exited. */
    for (size_t i = 0; i < CAUGHT_COUNT; i++)
        sigaddset(&sa.sa_mask, caught_signals[i]);
    for (size_t i = 0; i < CAUGHT_COUNT; i++) {
        struct sigaction old;
        /* A signal ignored by whoever started us (nohup) stays ignored. */
        if (sigaction(caught_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(caught_signals[i], &sa, NULL);
    }
}

void fxcli_cleanup_remove(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < CAUGHT_COUNT; i++) {
        struct sigaction old;
        if (sigaction(caught_signals[i], NULL, &old) == 0 && old.sa_handler == on_signal)
            sigaction(caught_signals[i], &sa, NULL);
    }
}
