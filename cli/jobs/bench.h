/* fxkit bench — declarations shared by the bench job's files (prefix bench_).
 *
 * The job measures the library's jobs in process, through the public C API, and
 * checks every result while it times it:
 *   bench.c         the job: options, --help, the run from start to table;
 *   bench_sets.c    the grids of cases: --quick, the default grids, the named sets;
 *   bench_inputs.c  deterministic inputs (fx_gen photo images, speech audio), cached;
 *   bench_run.c     one case on the CPU and the GPU: warm-up, repeats, medians, checks;
 *   bench_reference.c  plain references the fxkit results are compared with;
 *   bench_peers.c   other tools on the same inputs through bench/peers.py;
 *   bench_npy.c     the .npy files the peers read and write;
 *   bench_output.c  the table, the CSV and the gnuplot figure.
 */
#ifndef FXCLI_BENCH_H
#define FXCLI_BENCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* Room for a case's name ("box:33 gpu-shared 16x16") and a row's note. */
#define BENCH_NAME_MAX 64
#define BENCH_NOTE_MAX 256
#define BENCH_PEER_MAX 24
/* The most repeats a case takes (medians of at most this many runs). */
#define BENCH_MAX_REPEAT 31

typedef enum bench_job {
    BENCH_FILTER = 0,
    BENCH_EQUALIZE,
    BENCH_NORMALIZE,
    BENCH_IO,
    BENCH_JOB_COUNT
} bench_job;

/* Where a case runs. */
enum { BENCH_ON_CPU = 1u << 0, BENCH_ON_GPU = 1u << 1 };

/* What the io job's case does with its format. */
typedef enum bench_io_op { BENCH_IO_WRITE = 0, BENCH_IO_READ = 1 } bench_io_op;

typedef struct bench_case {
    bench_job job;
    const char *set; /* the set's name ("quick", "kernel-size", …) */
    char name[BENCH_NAME_MAX];
    int width, height, channels; /* image; audio: width = frames, height = 1 */
    unsigned devices;            /* BENCH_ON_CPU | BENCH_ON_GPU: where it runs at all */
    int repeat;                  /* timed runs after one warm-up */
    /* filter */
    char kernel[32];
    fx_filter_strategy strategy; /* auto, or a GPU variant (GPU-only case) */
    int gpu_block;               /* 0: the library's default */
    /* equalize */
    fx_equalize_space space;
    int adaptive;
    int eq_block; /* GPU threads per block, 0: tuned default */
    /* normalize */
    double seconds;
    int rate;
    int frame_samples; /* 0: the options' default frame length */
    int window;        /* 0: the default */
    bool danpi;        /* --preset danpi: the published GPU variant's parameters */
    /* io */
    fx_image_format format;
    bench_io_op io_op;
} bench_case;

typedef struct bench_case_list {
    bench_case *cases;
    size_t count, capacity;
} bench_case_list;

/* A median with its range, in ms. */
typedef struct bench_stats {
    double median, min, max;
} bench_stats;

/* One line of the table and the CSV: a case on a device, with at most one peer. */
typedef struct bench_row {
    const bench_case *c;
    bool gpu;
    bool ran;      /* false: skipped (the note says why) */
    bool verified; /* the fxkit result passed its check (and matched an exact peer) */
    bench_stats fx;
    double kernel_ms, upload_ms, download_ms, decode_ms, encode_ms; /* medians; 0: none */
    char strategy[24];
    char verify[48]; /* how the fxkit result was checked ("direct strategy", …) */
    char peer[BENCH_PEER_MAX];
    bool has_peer;
    bench_stats peer_t;
    double max_diff; /* peer vs fxkit, in sample units; < 0: not compared */
    fx_normalize_stage_times stages;
    bool has_stages;
    double floor_ms;   /* the physical floor (bench_floor.c); 0: none */
    long long file_bytes; /* io: the file's size, for its floor */
    char note[BENCH_NOTE_MAX];
} bench_row;

typedef struct bench_rows {
    bench_row *rows;
    size_t count, capacity;
} bench_rows;

/* What the job was asked. */
typedef struct bench_config {
    unsigned jobs;    /* bit per bench_job */
    unsigned devices; /* BENCH_ON_CPU | BENCH_ON_GPU */
    bool quick;
    const char *set; /* NULL: the jobs' default grids */
    bool peers;
    int threads;      /* CPU threads (0: all) */
    int repeat;       /* 0: the set's own */
    bool inject_wrong; /* test hook: corrupt one result (FXKIT_BENCH_INJECT_WRONG) */
} bench_config;

/* ---- bench_sets.c ---- */
/* Names of the named sets, NULL-terminated; "smoke" is the tiny one the tests run. */
extern const char *const bench_set_names[];
/* One line of --help per set, in the same order. */
extern const char *const bench_set_help[];
/* Fill list with the cases asked for. False on ENOMEM or an unknown set (message in err). */
bool bench_sets_build(const bench_config *cfg, bench_case_list *list, char *err, size_t size);
void bench_case_list_free(bench_case_list *list);
/* The job's name in the CSV: "filter", "equalize", "normalize", "io". */
const char *bench_job_name(bench_job job);
/* Bytes a case holds at once on the host (input, output, reference), for the huge-case note. */
uint64_t bench_case_bytes(const bench_case *c);

/* ---- bench_inputs.c ---- */
/* The case's input, generated once and kept until a case of another shape asks
 * (borrowed: valid until the next call or bench_inputs_free). */
fx_status bench_input_image(fx_context *ctx, const bench_case *c, const fx_image **img);
fx_status bench_input_audio(fx_context *ctx, const bench_case *c, const fx_audio **audio);
void bench_inputs_free(void);

/* ---- bench_run.c ---- */
typedef struct bench_runner bench_runner;
/* Contexts for the devices asked (the GPU one fails cleanly: FX_ENODEVICE). */
fx_status bench_runner_create(const bench_config *cfg, bench_runner **out, char *err, size_t size);
void bench_runner_free(bench_runner *r);
/* Fill each CPU row's floor_ms from this machine's memory-copy and page-cache rates,
 * measured once here (bench_floor.c). */
void bench_floors(bench_runner *r, bench_rows *rows);
/* Run one case on every device asked and the peers; append its rows. False on ENOMEM. */
bool bench_run_case(bench_runner *r, const bench_case *c, bench_rows *rows);
/* Scratch folder for the peers' files (created on first use). */
const char *bench_runner_tmpdir(bench_runner *r);

/* ---- bench_stats (bench_run.c) ---- */
/* Median (upper of an even count), min and max of v[0..n); sorts v. */
bench_stats bench_stats_of(double *v, int n);

/* ---- bench_reference.c ---- */
/* Correlation of an 8-bit image with integer taps (reflect101 border), computed plainly
 * in 64-bit integers: exact for integer kernels, the reference of the `direct` strategy. */
bool bench_ref_filter_int(const fx_image *src, const double *taps, int kw, int kh, double offset,
                          fx_image *dst);
/* Global equalization (minmax scale, one bin per level) of an 8-bit gray image, or of V
 * of an RGB image (--space hsv), from the formulas of docs/ALGORITHMS.md. */
bool bench_ref_equalize(const fx_image *src, bool hsv, fx_image *dst);
/* Largest absolute difference between two images of one shape (sample units). */
double bench_max_diff_images(const fx_image *a, const fx_image *b);
double bench_max_diff_samples(const double *a, const double *b, size_t n);

/* ---- bench_npy.c ---- */
/* Write an image (u8 HxWxC) or audio (f64 frames x channels) as .npy. 0 or an errno. */
int bench_npy_write_image(const char *path, const fx_image *img);
int bench_npy_write_audio(const char *path, const fx_audio *audio);
/* Read a .npy of u8 samples with this many elements into dst (tight). 0 or an errno
 * (EINVAL: not the expected type or size). */
int bench_npy_read_u8(const char *path, uint8_t *dst, size_t count);
/* The largest difference between an 8-bit .npy file (a peer's output) and `expect`,
 * or -1 when it cannot be read or has another size. */
double bench_npy_diff_u8(fx_context *ctx, const char *path, const fx_image *expect);
int bench_npy_read_f64(const char *path, double *dst, size_t count);

/* ---- bench_peers.c ---- */
typedef struct bench_peers bench_peers;
/* Find the driver script and the Python interpreters; probe which peers exist. The
 * notes for missing peers go to stderr (one line each). NULL: no driver (noted). */
bench_peers *bench_peers_open(const char *tmpdir, bool want_gpu);
void bench_peers_free(bench_peers *p);
/* Peers that apply to a case on a device, by name, NULL-terminated (static storage). */
size_t bench_peers_for(const bench_peers *p, const bench_case *c, bool gpu, const char **names,
                       size_t max);
/* Run one peer on the case's input file (written by the runner) and fill the row's peer
 * columns; out_path receives its output. False when it could not run (row->note says). */
bool bench_peer_run(bench_peers *p, const char *peer, const bench_case *c, int repeat,
                    const char *in_path, const char *out_path, bench_row *row);
/* True when the peer's output should be byte-identical with fxkit's for this case. */
bool bench_peer_exact(const char *peer, const bench_case *c);

/* Run argv (PATH searched) with stdout and stderr into out (NUL-terminated, cut at
 * size). Returns the exit status, 127 when it could not be run, -1 on a signal. */
int bench_spawn(char *const argv[], char *out, size_t size);

/* ---- bench_output.c ---- */
#define BENCH_CSV_HEADER                                                                           \
    "job,set,case,device,width,height,channels,type,fxkit_ms,fxkit_min_ms,fxkit_max_ms,peer,"      \
    "peer_ms,ratio,verified"
void bench_print_table(FILE *out, const bench_rows *rows);
/* 0 or an errno. */
int bench_write_csv(const char *path, const bench_rows *rows);
/* Write a gnuplot script beside `plot_path` and run gnuplot. Returns 0, or 1 with a
 * message written into err (gnuplot missing: how to install it). */
int bench_plot(const char *plot_path, const char *csv_path, const bench_rows *rows, char *err,
               size_t size);

#endif
