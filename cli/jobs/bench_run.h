/* fxkit bench: what the runner's files share (bench_run*.c): the runner itself, the
 * timing loop and the helpers that fill a row. One file per job runs its cases:
 * bench_run_filter.c, bench_run_equalize.c, bench_run_normalize.c, bench_run_io.c. */
#ifndef FXCLI_BENCH_RUN_H
#define FXCLI_BENCH_RUN_H

#include <limits.h>

#include "bench.h"

struct bench_runner {
    bench_config cfg;
    fx_context *cpu;  /* the timed CPU context (--threads) */
    fx_context *cpu1; /* one thread: the reruns that check determinism */
    fx_context *gpu;  /* NULL unless the GPU is asked */
    bench_peers *peers;
    bool peers_opened;
    bool injected; /* the test hook has corrupted its one result */
    char tmpdir[PATH_MAX];
};

/* One timed run: fills t (the library's stages) when not NULL. */
typedef fx_status (*bench_run_fn)(void *arg, fx_timings *t);

/* What the timing loop measured: wall times and the library's stage medians. */
typedef struct bench_timed {
    bench_stats wall;
    double compute_ms, upload_ms, download_ms, decode_ms, encode_ms;
} bench_timed;

/* One warm-up, then `repeat` timed runs; with `sync`, each run is closed by
 * fx_context_synchronize(sync) inside the timing (GPU work queued on device images). */
fx_status bench_time(bench_run_fn fn, void *arg, int repeat, fx_context *sync, bench_timed *out);

/* The repeats a case gets (--repeat wins over the set's). */
int bench_repeat(const bench_runner *r, const bench_case *c);

/* A new row for the case on a device, appended to rows (NULL on ENOMEM). */
bench_row *bench_row_add(bench_rows *rows, const bench_case *c, bool gpu);
/* The row failed to run: a note, reported on stderr; not verified. */
void bench_row_error(bench_row *row, fx_context *ctx, const char *what);
/* The fxkit result did not match its reference: reported on stderr; not verified. */
void bench_row_wrong(bench_row *row, const char *fmt, ...) FXCLI_PRINTF(2, 3);
void bench_row_note(bench_row *row, const char *fmt, ...) FXCLI_PRINTF(2, 3);
void bench_row_timed(bench_row *row, const bench_timed *t);

/* The test hook (FXKIT_BENCH_INJECT_WRONG): flips a bit of the first result it is given. */
void bench_maybe_inject(bench_runner *r, void *data, size_t bytes);

/* The peers for a case: writes the input once, runs each peer applicable on the device,
 * and adds one row per peer as a copy of `base` with the peer's columns filled (base
 * keeps the first peer; it must be the last row of rows). compare() checks the peer's
 * output at out_path against fxkit's and returns the max difference (< 0: unreadable). */
typedef double (*bench_compare_fn)(void *arg, const char *out_path);
bool bench_run_peers(bench_runner *r, const bench_case *c, bool gpu, bench_rows *rows,
                     const char *in_path, bench_compare_fn compare, void *arg);

/* ---- bench_run_image.c: what filter and equalize share ---- */
/* A planned image job: run(job, t) runs it from job->in into job->out. */
typedef struct bench_image_job {
    bench_run_fn run; /* called with the bench_image_job itself */
    void *plan;
    const fx_image *in;
    fx_image *out;
} bench_image_job;
/* The GPU row of an image case, on device images; compared with cpu_out. */
void bench_gpu_image(bench_runner *r, const bench_case *c, bench_image_job *job,
                     const fx_image *in, const fx_image *cpu_out, bool cpu_ok, bench_row *row);
/* The peers of an image case on a device (the input written once: *wrote). */
bool bench_image_peers(bench_runner *r, const bench_case *c, bool gpu, bench_rows *rows,
                       const fx_image *in, const fx_image *expect, bool *wrote);

/* The jobs. Each appends its rows; false only on ENOMEM. */
bool bench_run_filter(bench_runner *r, const bench_case *c, bench_rows *rows);
bool bench_run_equalize(bench_runner *r, const bench_case *c, bench_rows *rows);
bool bench_run_normalize(bench_runner *r, const bench_case *c, bench_rows *rows);
bool bench_run_io(bench_runner *r, const bench_case *c, bench_rows *rows);

/* Whether the runner measures the device and the case runs there. */
bool bench_on_cpu(const bench_runner *r, const bench_case *c);
bool bench_on_gpu(const bench_runner *r, const bench_case *c);

/* tmpdir/NAME into buf. */
void bench_tmp_path(bench_runner *r, const char *name, char *buf, size_t size);

#endif
