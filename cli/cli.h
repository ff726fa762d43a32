/* fxkit CLI — declarations shared by the program's files (prefix fxcli_).
 *
 * Flow: app.c finds the job and parses argv (args.c) against the common option
 * tables (common_options.c) and the job's own table; the job checks and derives
 * what it needs (setup); a plan turns inputs into a list of work items
 * (worklist.c, output_path.c); the batch driver (batch.c) runs the list on
 * workers, each with its own fx_context, writing every output through a temporary
 * file (tempfile.c) and reporting errors, progress and timings (console.c,
 * progress.c, timings.c). The list is kept apart from the workers so that the
 * same list can later be shared out over several GPUs or processes.
 */
#ifndef FXCLI_H
#define FXCLI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxkit/fxkit.h"

#define FXCLI_PROGRAM "fxkit"

/* Exit status of the program. A signal ends it with FXCLI_EXIT_SIGNAL_BASE + signal. */
enum {
    FXCLI_EXIT_OK = 0,     /* every input done */
    FXCLI_EXIT_FAILED = 1, /* at least one input failed; the others were done */
    FXCLI_EXIT_USAGE = 2,  /* bad command line: nothing was done */
    FXCLI_EXIT_SIGNAL_BASE = 128,
    FXCLI_EXIT_DONE = -1 /* from a job's setup: it did everything (--list-kernels); exit 0 */
};

/* Most GPUs one --device list names (gpu:0,1,…); gpu:all takes up to this many. */
#define FXCLI_MAX_GPUS 64
/* Room for one message line (an error detail, a usage error). */
#define FXCLI_MESSAGE_MAX 1024
/* Most workers (--jobs) one process runs; also the size of the temp-file registry. */
#define FXCLI_MAX_JOBS 256

#if defined(__GNUC__)
#define FXCLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FXCLI_PRINTF(a, b)
#endif

/* ---- common options: one struct, tables in groups that a job picks ---- */

typedef enum fxcli_common_group {
    FXCLI_COMMON_OUTPUT = 1u << 0, /* -o */
    FXCLI_COMMON_NAMING = 1u << 1, /* --suffix, --in-place: outputs named after inputs */
    FXCLI_COMMON_BATCH = 1u << 2,  /* --jobs, --timings, --timings-csv */
    FXCLI_COMMON_DEVICE = 1u << 3, /* --device, --threads */
    FXCLI_COMMON_LIMITS = 1u << 4, /* --max-pixels, --max-dimension */
    FXCLI_COMMON_GENERAL = 1u << 5 /* -q, -v, --log-level, -h: every job has these */
} fxcli_common_group;

#define FXCLI_COMMON_FILE_JOB                                                                      \
    (FXCLI_COMMON_OUTPUT | FXCLI_COMMON_NAMING | FXCLI_COMMON_BATCH | FXCLI_COMMON_DEVICE |        \
     FXCLI_COMMON_LIMITS | FXCLI_COMMON_GENERAL)

typedef struct fxcli_common {
    const char *output;      /* -o: a file, or a folder (trailing '/' or existing) */
    const char *suffix;      /* added to output names before the extension */
    int in_place;            /* replace each input with its output */
    const char *jobs_text;   /* --jobs as given: a number or "auto" */
    int jobs;                /* files processed at once; 0 = auto (from jobs_text) */
    int memory_mib;          /* budget of the files processed at once; 0 = default */
    int timings;             /* per-file stage times on stderr */
    const char *timings_csv; /* append per-file rows to this CSV file */
    const char *shard_text;  /* --shard: K/N, auto/N, auto (the launcher's) or all */
    int skip_existing;       /* leave items whose output exists alone */
    const char *report;      /* write a JSON report of the items here */
    const char *device;      /* auto, cpu, gpu, gpu:N, gpu:N,M,…, gpu:all */
    int threads;             /* CPU threads in all (0 = one per CPU) */
    double max_pixels;       /* 0 = library default; a double so it can exceed 2^31 */
    int max_dimension;       /* 0 = library default */
    int max_channels;        /* 0 = library default */
    int quiet;
    int verbose;
    int log_level; /* index into fxcli_log_level_names */
    int help;
} fxcli_common;

typedef struct fxcli_option_group {
    fxcli_common_group flag;
    const char *title; /* heading in --help */
    const fx_option *table;
} fxcli_option_group;

extern const fxcli_option_group fxcli_common_groups[];
extern const size_t fxcli_common_group_count;
extern const char *const fxcli_log_level_names[];

/* ---- work items ---- */

typedef enum fxcli_media { FXCLI_MEDIA_IMAGE = 1u << 0, FXCLI_MEDIA_AUDIO = 1u << 1 } fxcli_media;

/* Why an item is not run (skip set). */
typedef enum fxcli_skip_reason {
    FXCLI_SKIP_NONE,
    FXCLI_SKIP_REFUSED,  /* refused while planning (already reported; note says why) */
    FXCLI_SKIP_ELSEWHERE, /* another shard's item: not reported, not counted */
    FXCLI_SKIP_EXISTING  /* --skip-existing: its output is already there */
} fxcli_skip_reason;

typedef struct fxcli_item {
    const char *input; /* NULL for generated outputs */
    char *output;      /* final path (owned) */
    uint64_t index;    /* position in the list: numbering and seeds */
    bool skip;         /* not to be run; why in `reason` */
    fxcli_skip_reason reason;
    char *note;        /* a refusal's message, for --report (owned; NULL: none) */
} fxcli_item;

/* ---- shard.c ---- */

/* This process's part of the work: the items whose rank in the sorted list is
 * index modulo count. */
typedef struct fxcli_shard {
    uint64_t index, count; /* count 1: everything */
    char source[256];      /* where K and N came from, for messages and fxkit info */
} fxcli_shard;

typedef char *(*fxcli_getenv_fn)(const char *name);

/* From --shard's text (NULL = auto) and the launcher's environment (env NULL = getenv).
 * 0, or -1 with the message in err. */
int fxcli_shard_resolve(const char *text, fxcli_getenv_fn env, fxcli_shard *shard, char *err,
                        size_t size);
/* The process's rank among those on its node (MPI, Slurm), which picks its GPU. */
bool fxcli_local_rank(fxcli_getenv_fn env, int *rank, const char **variable);

typedef struct fxcli_worklist {
    fxcli_item *items;
    size_t count, capacity;
    size_t refused;   /* items refused while planning */
    size_t elsewhere; /* items of other shards */
    size_t existing;  /* items skipped because their output exists */
    const fxcli_shard *shard; /* set before planning; NULL: everything */
    bool skip_existing;       /* set before planning: --skip-existing */
} fxcli_worklist;

/* What one item measured; filled by the job's run_item. */
typedef struct fxcli_result {
    fx_timings timings;
    int64_t width, height; /* audio: width = frames, height = 1 */
    int channels;
    const char *strategy;            /* static text for the CSV; "" when the job has none */
    char message[FXCLI_MESSAGE_MAX]; /* the job's own error detail; "" = the context's */
    int slot;                        /* the worker's number, for fxcli_progress_item */
    char device[16]; /* where the item ran ("cpu", "gpu:0"): --device auto chooses per
                      * item; "" = the worker's context's device */
} fxcli_result;

/* Copy the device word ("cpu", "gpu:0") that starts `explained` (a library explain's
 * device part) into res->device. */
void fxcli_result_device(fxcli_result *res, const char *explained);

/* ---- jobs ---- */

typedef struct fxcli_run fxcli_run;

typedef struct fxcli_job {
    const char *name;         /* "convert", or two words for a group: "gen image" */
    const char *summary;      /* one line in the job list */
    const char *usage;        /* what follows the name in "Usage:" */
    const char *description;  /* a paragraph in --help (NULL: none) */
    const fx_option *options; /* the job's own table (NULL: none) */
    size_t options_size;      /* sizeof the struct that table points into */
    unsigned common;          /* fxcli_common_group flags that apply */
    unsigned media;           /* fxcli_media it reads or writes, for --help */
    bool takes_inputs;        /* positional INPUT arguments */
    /* Check option combinations and derive state (run->state). Returns an exit
     * code; for FXCLI_EXIT_USAGE the text is in run->error. NULL: nothing to do. */
    int (*setup)(fxcli_run *run);
    /* Extension (no dot) for outputs named after inputs, NULL to keep the input's. */
    const char *(*output_extension)(const fxcli_run *run);
    /* Build the work list; NULL: one item per input (fxcli_plan_inputs). */
    int (*plan)(fxcli_run *run, fxcli_worklist *list);
    /* Do one item, writing to out_path (a temporary file beside item->output). */
    fx_status (*run_item)(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                          const char *out_path, fxcli_result *res);
    /* For jobs that are not batches (info): does everything, returns the exit code. */
    int (*main)(fxcli_run *run);
    /* The most memory one item holds at once, from its header, for the --jobs auto and
     * --memory budget. NULL: fxcli_item_estimate (whole images). */
    uint64_t (*estimate)(const fxcli_run *run, fx_context *ctx, const fxcli_item *item);
    /* Release what run_item kept for this worker's context (a plan made on it), just
     * before the batch destroys the context. NULL: nothing kept. */
    void (*worker_done)(const fxcli_run *run, fx_context *ctx);
    /* Release what setup made. */
    void (*finish)(fxcli_run *run);
} fxcli_job;

/* A job's option table: the library's rows, then the program's own, into dst (room for
 * `rows` rows including the end row). The library's rows point into the first member of
 * the job's options struct, so they work unchanged there. False when dst is too small. */
bool fxcli_join_tables(fx_option *dst, size_t rows, const fx_option *library,
                       const fx_option *program);

/* Every job, NULL-terminated (jobs.c). */
extern const fxcli_job *const fxcli_jobs[];

/* Find the job named by the first words of argv. *used = words consumed. Returns
 * NULL when none; *group_prefix is set when argv[0] names a group ("gen") but the
 * next word is not one of its jobs. */
const fxcli_job *fxcli_find_job(int argc, char **argv, int *used, bool *group_prefix);
/* argv[0] == "gen" etc.: true when some job's name starts with that word and a space. */
bool fxcli_is_group(const char *word);

struct fxcli_run {
    const fxcli_job *job;
    fxcli_common common;
    void *options; /* the job's options struct (options_size bytes) */
    char **inputs; /* positional arguments, pointing into argv */
    size_t input_count;
    void *state;           /* the job's derived state (setup/finish) */
    fx_device_kind device; /* from --device */
    int gpu_index;         /* the GPU of a single-GPU run */
    /* --device gpu:N,M,… or gpu:all (filled at the batch's start): the workers take
     * these in turn. 0: gpu_index alone. */
    int gpus[FXCLI_MAX_GPUS];
    int gpu_count;
    bool gpu_all;     /* gpu:all, not yet counted */
    bool gpu_by_rank; /* gpu or auto without a number: the local rank may pick */
    char gpu_note[128]; /* how the local rank picked the GPU ("" when it did not) */
    fxcli_shard shard;  /* from --shard or the launcher */
    fx_log_level log_level;        /* from --log-level / -v */
    char error[FXCLI_MESSAGE_MAX]; /* usage error text */
};

/* Allocate the job's options struct and write every default. false on ENOMEM. */
bool fxcli_run_init(fxcli_run *run, const fxcli_job *job);
void fxcli_run_free(fxcli_run *run);
/* printf into run->error; returns FXCLI_EXIT_USAGE. */
int fxcli_usage(fxcli_run *run, const char *fmt, ...) FXCLI_PRINTF(2, 3);

/* ---- app.c ---- */
int fxcli_main(int argc, char **argv);

/* ---- args.c ---- */
typedef enum fxcli_parse_result {
    FXCLI_PARSE_OK,
    FXCLI_PARSE_HELP, /* -h/--help was given */
    FXCLI_PARSE_ERROR /* run->error holds the message */
} fxcli_parse_result;

/* Parse the words after the job name. ctx receives the library's option errors. */
fxcli_parse_result fxcli_parse_args(fxcli_run *run, fx_context *ctx, int argc, char **argv);
/* Turn the parsed common options into device, log level; checks combinations. */
int fxcli_resolve_common(fxcli_run *run);

/* ---- devices.c ---- */
/* Parse --device (syntax only; no GPU is touched). An exit code. */
int fxcli_devices_parse(fxcli_run *run);
/* At the batch's start: count the GPUs of gpu:all, and let the local rank pick the GPU of
 * gpu/auto. An exit code (usage when gpu:all finds no GPU). */
int fxcli_devices_expand(fxcli_run *run);
/* The GPU worker `worker` uses. */
int fxcli_worker_gpu(const fxcli_run *run, int worker);
/* How many GPUs this process sees; 0 with the reason in why. */
int fxcli_gpu_count(char *why, size_t size);
/* Why there is no GPU: no CUDA in this build, the failure left on ctx (st != FX_OK), or
 * no device or driver. ctx may be NULL. */
const char *fxcli_no_gpu_reason(fx_status st, fx_context *ctx);

/* ---- help.c ---- */
void fxcli_print_main_help(FILE *out);
void fxcli_print_job_help(FILE *out, const fxcli_job *job);
/* The jobs of a group ("gen"): their usage lines and summaries. */
void fxcli_print_group_help(FILE *out, const char *group);
void fxcli_print_version(FILE *out);

/* ---- suggest.c ---- */
/* Edit distance between two strings, capped (for "did you mean"). */
size_t fxcli_edit_distance(const char *a, const char *b);
/* True when `candidate` is close enough to `typed` to be suggested. */
bool fxcli_is_close(const char *typed, const char *candidate);

/* ---- console.c: everything written to stderr goes through here ---- */
void fxcli_console_set_quiet(bool quiet);
bool fxcli_console_quiet(void);
/* "fxkit: " + message, on stderr, clearing a progress bar first. */
void fxcli_error(const char *fmt, ...) FXCLI_PRINTF(1, 2);
/* Non-error chatter, silenced by --quiet. */
void fxcli_note(const char *fmt, ...) FXCLI_PRINTF(1, 2);
/* Hold the console for several lines (the batch reporter). */
void fxcli_console_lock(void);
void fxcli_console_unlock(void);
/* Like fxcli_error but the caller holds the lock. */
void fxcli_error_locked(const char *fmt, ...) FXCLI_PRINTF(1, 2);

/* ---- progress.c ---- */
/* Start and end take the console lock themselves (end waits for the ticker). */
void fxcli_progress_start(size_t total, bool enabled);
void fxcli_progress_end(void);
/* What the bar counts, plural ("files" by default; the bench counts "cases"). Call
 * before fxcli_progress_start. */
void fxcli_progress_unit(const char *plural);
/* With the console lock held: a file finished. */
void fxcli_progress_update(size_t done, size_t failed);
/* With the console lock held: erase the bar so that a message can be printed. */
void fxcli_progress_clear(void);
/* From any thread, no lock: the item on worker `slot` is done/total of the way. */
void fxcli_progress_item(int slot, uint64_t done, uint64_t total);
/* True while a bar is on screen (read by the signal handler). */
bool fxcli_progress_visible(void);

/* ---- timings.c ---- */
#define FXCLI_TIMINGS_CSV_HEADER                                                                   \
    "file,job,device,strategy,width,height,channels,decode_ms,upload_ms,compute_ms,"               \
    "download_ms,encode_ms,total_ms"
/* Print one file's stage times (console lock held). */
void fxcli_timings_print(FILE *out, const char *name, const fxcli_result *res, double total_ms);
/* Open for appending; writes the header when the file is new or empty. NULL with errno. */
FILE *fxcli_timings_csv_open(const char *path);
void fxcli_timings_csv_row(FILE *csv, const char *file, const char *job, const char *device,
                           const fxcli_result *res, double total_ms);
/* Wall-clock time, milliseconds since 1970 (for reports). */
int64_t fxcli_unix_ms(void);
/* One CSV field, quoted when it holds a comma, quote or line break. */
void fxcli_csv_field(FILE *out, const char *text);

/* ---- output_path.c ---- */
typedef enum fxcli_output_kind {
    FXCLI_OUTPUT_NONE, /* no -o */
    FXCLI_OUTPUT_FILE,
    FXCLI_OUTPUT_FOLDER
} fxcli_output_kind;

/* A folder when it ends with '/' or is an existing folder. */
fxcli_output_kind fxcli_output_kind_of(const char *output);
/* Create a folder and its parents (mkdir -p). 0 or an errno. */
int fxcli_make_folders(const char *path);
/* folder (NULL: the input's own folder) + input's base name with suffix inserted
 * before the extension and the extension replaced by `ext` (NULL: kept).
 * Newly allocated; NULL on ENOMEM. */
char *fxcli_output_name(const char *folder, const char *input, const char *suffix, const char *ext);
/* folder + name; newly allocated. */
char *fxcli_join_path(const char *folder, const char *name);
/* Pointer to the extension (after the last dot of the base name), or "" when none. */
const char *fxcli_path_extension(const char *path);
/* Pointer to the base name within path. */
const char *fxcli_path_basename(const char *path);

/* ---- worklist.c ---- */
fxcli_item *fxcli_worklist_add(fxcli_worklist *list, const char *input, char *output);
void fxcli_worklist_free(fxcli_worklist *list);
/* Mark an item refused and report "fxkit: NAME: message". */
void fxcli_worklist_refuse(fxcli_worklist *list, fxcli_item *item, const char *fmt, ...)
    FXCLI_PRINTF(3, 4);
/* One item per input, named from -o/--suffix/--in-place and the job's extension. */
int fxcli_plan_inputs(fxcli_run *run, fxcli_worklist *list);
/* `count` generated outputs: -o FILE for one, else -o FOLDER/prefix_NNNN.ext. */
int fxcli_plan_generated(fxcli_run *run, fxcli_worklist *list, uint64_t count, const char *prefix,
                         const char *ext);
/* Keep the shard's items (list->shard), refuse items whose input is missing, whose
 * output is an input (or a folder), and second items that would write the same output,
 * then skip those whose output exists (list->skip_existing). The checks see every
 * item, the shard's or not, so that all shards agree; only the shard's refusals are
 * reported. */
void fxcli_worklist_check(fxcli_worklist *list, bool in_place);
/* Items this process runs, and items it answers for (the shard's, run or not). */
size_t fxcli_worklist_runnable(const fxcli_worklist *list);
size_t fxcli_worklist_owned(const fxcli_worklist *list);

/* ---- tempfile.c ---- */
typedef struct fxcli_temp {
    char path[4096];
    int slot;
} fxcli_temp;

/* Create an empty, uniquely named hidden file beside `final` (same folder, same
 * extension) and register it in `slot` so a signal removes it. 0 or an errno. */
int fxcli_temp_create(fxcli_temp *temp, const char *final, int slot);
/* Rename over `final`; `mode` >= 0 sets the permissions first. 0 or an errno; the
 * temp file is gone either way. */
int fxcli_temp_commit(fxcli_temp *temp, const char *final, int mode);
void fxcli_temp_discard(fxcli_temp *temp);
/* Catch SIGINT/SIGTERM/SIGHUP: remove registered temp files, exit 128 + signal. */
void fxcli_cleanup_install(void);
void fxcli_cleanup_remove(void);

/* ---- json.c ---- */
/* A JSON string (null for NULL), escaped. */
void fxcli_json_string(FILE *out, const char *s);
/* A JSON number; null when not finite. */
void fxcli_json_number(FILE *out, double v);

/* ---- report.c: --report FILE.json ---- */
typedef enum fxcli_outcome { FXCLI_NOT_RUN, FXCLI_DONE, FXCLI_FAILED } fxcli_outcome;

/* What became of one item the batch ran (kept only with --report). */
typedef struct fxcli_item_record {
    fxcli_outcome outcome;
    char *error; /* FXCLI_FAILED: the message printed (owned) */
    fx_timings timings;
    int64_t width, height;
    int channels;
    double total_ms;
    char device[16]; /* "cpu", "gpu:1" */
} fxcli_item_record;

/* The whole run of this process, for the report. */
typedef struct fxcli_run_summary {
    int64_t started_unix_ms; /* wall-clock start */
    double wall_ms;
    int workers, threads_per_worker, total_threads;
} fxcli_run_summary;

/* Write the report atomically (a temporary file renamed into place) to `path`, where
 * "{shard}" becomes the shard's K. 0 or an errno. */
int fxcli_report_write(const char *path, const fxcli_run *run, const fxcli_worklist *list,
                       const fxcli_item_record *records, const fxcli_run_summary *summary);

/* ---- batch.c ---- */
int fxcli_batch_run(fxcli_run *run, fxcli_worklist *list);
/* Set a job's own error detail; returns status. */
fx_status fxcli_fail(fxcli_result *res, fx_status status, const char *fmt, ...) FXCLI_PRINTF(3, 4);

/* ---- memory_budget.c ---- */
/* Reservations against a byte budget, shared by the batch's workers. */
typedef struct fxcli_budget {
    pthread_mutex_t lock;
    pthread_cond_t freed;
    uint64_t limit, used, peak; /* bytes */
    int running, peak_running;  /* items holding a reservation */
} fxcli_budget;

void fxcli_budget_init(fxcli_budget *b, uint64_t limit);
void fxcli_budget_destroy(fxcli_budget *b);
/* Wait until `bytes` fit beside the other reservations (an item larger than the
 * whole budget waits until it is alone), then reserve them. */
void fxcli_budget_acquire(fxcli_budget *b, uint64_t bytes);
void fxcli_budget_release(fxcli_budget *b, uint64_t bytes);
/* Half of physical memory (UINT64_MAX when unknown). */
uint64_t fxcli_default_budget(void);
/* Bytes an item is expected to hold at its peak, from its input's header (0 when
 * the header cannot be read: the job reports that itself). */
uint64_t fxcli_item_estimate(fx_context *ctx, const fxcli_item *item);

/* ---- media.c ---- */
/* Audio when the first bytes or the extension say so, else image. */
fxcli_media fxcli_media_of_input(const char *path);
bool fxcli_is_audio_path(const char *path);

/* What an image file format can hold, by output extension. */
typedef struct fxcli_image_target {
    const char *ext;
    const char *name; /* "PGM" */
    fx_image_format format;
    unsigned channel_mask; /* bit c set: c channels allowed */
    unsigned type_mask;    /* bit t set: fx_sample_type t allowed */
    const char *holds;     /* "gray 8/16-bit images" */
} fxcli_image_target;

/* NULL when the extension is not an image format. */
const fxcli_image_target *fxcli_image_target_of(const char *path);
/* The sample type to write: `want` when the format holds it, else the closest it holds. */
fx_sample_type fxcli_image_target_type(const fxcli_image_target *t, fx_sample_type want);
/* Check channels and type; false with a message naming the format's limits. */
bool fxcli_image_target_check(const fxcli_image_target *t, int channels, fx_sample_type type,
                              char *msg, size_t size);
/* An image job's input and output, timed into res (decode_ms, encode_ms); the read
 * also records the image's size in res. The write uses the target's format and the
 * library's default write options. */
fx_status fxcli_read_image(fx_context *ctx, const char *path, fx_image *img, fxcli_result *res);
fx_status fxcli_write_image(fx_context *ctx, const char *path, const fx_image *img,
                            const fxcli_image_target *target, fxcli_result *res);
/* "gray", "gray+alpha", "RGB", "RGBA". */
const char *fxcli_channel_names(int channels);
/* Comma-separated image extensions, for messages. */
const char *fxcli_image_extensions(void);

#endif
