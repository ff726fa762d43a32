/* Per-file stage times: a line on stderr (--timings) and CSV rows (--timings-csv). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "cli.h"

void fxcli_timings_print(FILE *out, const char *name, const fxcli_result *res, double total_ms)
{
    const fx_timings *t = &res->timings;
    fprintf(out,
            "%s: %s: decode %.2f ms, upload %.2f ms, compute %.2f ms, download %.2f ms, "
            "encode %.2f ms, total %.2f ms\n",
            FXCLI_PROGRAM, name, t->decode_ms, t->upload_ms, t->compute_ms, t->download_ms,
            t->encode_ms, total_ms);
}

FILE *fxcli_timings_csv_open(const char *path)
{
    FILE *f = fopen(path, "a");
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        int err = errno;
        fclose(f);
        errno = err;
        return NULL;
    }
    /* Appending to an existing table keeps its header; a new one gets one. */
    if (st.st_size == 0) {
        fputs(FXCLI_TIMINGS_CSV_HEADER "\n", f);
        fflush(f);
    }
    return f;
}

void fxcli_csv_field(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, out);
        return;
    }
    /* RFC 4180: enclose in quotes, double every quote inside. */
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void fxcli_timings_csv_row(FILE *csv, const char *file, const char *job, const char *device,
                           const fxcli_result *res, double total_ms)
{
    const fx_timings *t = &res->timings;
    fxcli_csv_field(csv, file);
    fputc(',', csv);
    fxcli_csv_field(csv, job);
    fputc(',', csv);
    fxcli_csv_field(csv, device);
    fputc(',', csv);
    fxcli_csv_field(csv, res->strategy ? res->strategy : "");
    fprintf(csv, ",%" PRId64 ",%" PRId64 ",%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", res->width,
            res->height, res->channels, t->decode_ms, t->upload_ms, t->compute_ms, t->download_ms,
            t->encode_ms, total_ms);
    /* A row per file survives an interrupted batch. */
    fflush(csv);
}

int64_t fxcli_unix_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
