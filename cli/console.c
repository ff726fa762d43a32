/* Everything the program writes to stderr, behind one lock so that lines from
 * several workers never interleave and never land in the middle of the bar. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

static pthread_mutex_t console_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool console_quiet;

void fxcli_console_set_quiet(bool quiet)
{
    console_quiet = quiet;
}

bool fxcli_console_quiet(void)
{
    return console_quiet;
}

void fxcli_console_lock(void)
{
    pthread_mutex_lock(&console_mutex);
}

void fxcli_console_unlock(void)
{
    pthread_mutex_unlock(&console_mutex);
}

static void vprint_line(const char *fmt, va_list ap)
{
    fxcli_progress_clear();
    fprintf(stderr, "%s: ", FXCLI_PROGRAM);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void fxcli_error_locked(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_line(fmt, ap);
    va_end(ap);
}

void fxcli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fxcli_console_lock();
    vprint_line(fmt, ap);
    fxcli_console_unlock();
    va_end(ap);
}

void fxcli_note(const char *fmt, ...)
{
    if (console_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fxcli_console_lock();
    vprint_line(fmt, ap);
    fxcli_console_unlock();
    va_end(ap);
}
