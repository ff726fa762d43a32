/* The batch driver: runs a work list on N workers, each with its own fx_context,
 * writes every output through a temporary file, and reports errors, timings and
 * progress. It knows nothing about what a job does: it only calls run_item. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "core/internal.h"

/* Permission bits of st_mode that an in-place result keeps from its input. */
#define PERMISSION_BITS 07777
#define MIB_SHIFT 20
#define MIB ((uint64_t)1 << MIB_SHIFT)
/* Room for "gpu:NNNN". */
#define DEVICE_TEXT_MAX 16

typedef struct batch batch;

typedef struct worker {
    int id; /* also its slot in the temp-file registry */
    batch *owner;
    fx_context *ctx;
    const fxcli_item *current; /* named in the library's warnings */
    char device_text[DEVICE_TEXT_MAX];
    char create_error[FXCLI_MESSAGE_MAX]; /* detail of a failed fx_context_create */
    pthread_t thread;
    bool started;
} worker;

struct batch {
    const fxcli_run *run;
    fxcli_worklist *list;
    atomic_size_t next;  /* next item to take */
    size_t done, failed; /* under the console lock */
    FILE *csv;
    fxcli_budget budget;
    uint64_t *estimates;         /* per item, bytes; NULL: no budget */
    bool memory_bound;           /* the budget cut the workers below the CPUs */
    fxcli_item_record *records;  /* per item, with --report; NULL otherwise */
    atomic_bool device_failed;   /* a worker's GPU did not start (gpu_failed): stop */
    fx_status device_status;     /* that start's status (set with device_failed) */
};

void fxcli_result_device(fxcli_result *res, const char *explained)
{
    size_t n = explained ? strcspn(explained, " ;") : 0;
    if (n >= sizeof res->device) n = sizeof res->device - 1;
    memcpy(res->device, explained, n);
    res->device[n] = 0;
}

fx_status fxcli_fail(fxcli_result *res, fx_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->message, sizeof res->message, fmt, ap);
    va_end(ap);
    return status;
}

static const char *item_name(const fxcli_item *item)
{
    return item->input ? item->input : item->output;
}

/* The library's messages. Errors are not printed here: the driver prints each
 * failure once, prefixed with the input's name. */
static void on_library_log(void *user, fx_log_level level, const char *message)
{
    worker *w = user;
    if (level == FX_LOG_ERROR) {
        if (!w->ctx) snprintf(w->create_error, sizeof w->create_error, "%s", message);
        return;
    }
    if (fxcli_console_quiet()) return;
    const char *kind = level == FX_LOG_WARNING ? "warning"
                       : level == FX_LOG_INFO  ? "info"
                                               : "debug";
    if (w->current)
        fxcli_error("%s: %s: %s", item_name(w->current), kind, message);
    else
        fxcli_error("%s: %s", kind, message);
}

/* The command line's image limits (zeros keep the library's defaults). */
static void set_limits(fx_context_options *o, const fxcli_common *c)
{
    o->limits.max_pixels = (uint64_t)c->max_pixels;
    o->limits.max_dimension = c->max_dimension;
    o->limits.max_channels = c->max_channels;
}

/* The input files' bytes of the items to run, for FX_DEVICE_AUTO's share of the GPU's
 * one-time costs (fx_context_options.batch_bytes); files that do not stat add nothing. */
static uint64_t batch_input_bytes(const fxcli_worklist *list)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < list->count; i++) {
        const fxcli_item *item = &list->items[i];
        struct stat st;
        if (!item->skip && item->input && stat(item->input, &st) == 0 && S_ISREG(st.st_mode))
            bytes += (uint64_t)st.st_size;
    }
    return bytes;
}

/* --device gpu with every worker on the same GPU: CUDA's start (~0.3 s on the H200
 * machine) overlaps the first item's own start (opening its files, reserving the
 * output's pages, reading its first rows) instead of coming before it. A GPU that
 * cannot start then fails the first item that needs it, and the batch stops there as
 * it does when a context cannot be made (gpu_failed). Several GPUs start before any
 * item, so that one of them failing stops the batch before the others have done any. */
static bool start_gpu_early(const fxcli_run *run)
{
    if (run->device != FX_DEVICE_GPU) return false;
    for (int i = 1; i < run->gpu_count; i++)
        if (run->gpus[i] != run->gpus[0]) return false;
    return true;
}

/* False when the context cannot be made; *usage set when that is the command line's
 * fault (--device gpu where no GPU is: exit 2, nothing done). */
static bool create_context(worker *w, const fxcli_run *run, uint64_t batch_bytes, int threads,
                           bool *usage)
{
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = run->device;
    o.batch_bytes = batch_bytes;
    o.gpu_index = fxcli_worker_gpu(run, w->id);
    o.threads = threads;
    o.log = on_library_log;
    o.log_user = w;
    o.log_level = run->log_level;
    o.start_gpu_in_background = start_gpu_early(run);
    set_limits(&o, &run->common);
    fx_status st = fx_context_create(&o, &w->ctx);
    *usage = st == FX_ENODEVICE;
    if (st != FX_OK) {
        fxcli_error("--device %s: %s", run->common.device,
                    w->create_error[0] ? w->create_error : fx_strerror(st));
        return false;
    }
    /* The device an item ran on when its job does not say (fx_image_convert's items):
     * an auto context runs those on the CPU. Not asked of an auto context, whose GPU
     * starts only when an item could use it (fx_context_device would start it now). */
    int gpu = -1;
    if (run->device != FX_DEVICE_AUTO && fx_context_device(w->ctx, &gpu) == FX_DEVICE_GPU)
        snprintf(w->device_text, sizeof w->device_text, "gpu:%d", gpu);
    else
        snprintf(w->device_text, sizeof w->device_text, "cpu");
    return true;
}

/* "dir" of "dir/name", "." of "name", into buf. */
static const char *folder_of(const char *path, char *buf, size_t size)
{
    const char *base = fxcli_path_basename(path);
    if (base == path) return ".";
    size_t len = (size_t)(base - path);
    /* "dir/" → "dir", but "/" stays "/". */
    if (len > 1) len--;
    snprintf(buf, size, "%.*s", (int)len, path);
    return buf;
}

/* Keep what became of the item for --report. */
static void record(worker *w, const fxcli_item *item, const char *error, const fxcli_result *res,
                   double total_ms)
{
    batch *b = w->owner;
    if (!b->records) return;
    fxcli_item_record *r = &b->records[item - b->list->items];
    r->outcome = error ? FXCLI_FAILED : FXCLI_DONE;
    r->error = error ? strdup(error) : NULL;
    r->timings = res->timings;
    r->width = res->width;
    r->height = res->height;
    r->channels = res->channels;
    r->total_ms = total_ms;
    snprintf(r->device, sizeof r->device, "%s", res->device[0] ? res->device : w->device_text);
}

static void report(worker *w, const fxcli_item *item, fx_status st, const fxcli_result *res,
                   double total_ms)
{
    batch *b = w->owner;
    const char *name = item_name(item);
    fxcli_console_lock();
    if (st != FX_OK) {
        const char *detail = res->message[0] ? res->message : fx_context_error(w->ctx);
        if (!detail[0]) detail = fx_strerror(st);
        fxcli_error_locked("%s: %s", name, detail);
        record(w, item, detail, res, total_ms);
        b->failed++;
    } else {
        record(w, item, NULL, res, total_ms);
        if (b->run->common.timings) {
            fxcli_progress_clear();
            fxcli_timings_print(stderr, name, res, total_ms);
        }
        if (b->csv)
            fxcli_timings_csv_row(b->csv, name, b->run->job->name,
                                  res->device[0] ? res->device : w->device_text, res, total_ms);
    }
    b->done++;
    fxcli_progress_item(w->id, 0, 0); /* now counted in `done` */
    fxcli_progress_update(b->done, b->failed);
    fxcli_console_unlock();
}

/* After an item, before its output is kept: whether the worker's GPU, started in the
 * background (start_gpu_early), failed to start (an item that never needed the GPU, a
 * plain conversion, waits here for the start), or another worker's did. The first worker
 * to find its own failed says so, as create_context would have (--device gpu:N: why), and
 * the batch stops; the item is neither kept nor counted as failed: the batch did not have
 * its devices. */
static bool gpu_failed(worker *w)
{
    batch *b = w->owner;
    const fx_status st = fx_context_gpu_ready(w->ctx);
    if (st == FX_OK) return atomic_load(&b->device_failed); /* another worker's: nothing kept */
    fxcli_console_lock();
    if (!atomic_load(&b->device_failed)) {
        b->device_status = st;
        fxcli_error_locked("--device %s: %s", b->run->common.device, fx_context_error(w->ctx));
        atomic_store(&b->device_failed, true);
    }
    fxcli_console_unlock();
    return true;
}

/* Write the item's output to a temp file, then rename it into place. */
static void run_one(worker *w, const fxcli_item *item)
{
    const fxcli_run *run = w->owner->run;
    fxcli_result res;
    memset(&res, 0, sizeof res);
    res.strategy = "";
    res.slot = w->id;
    uint64_t start = fx_time_ns();
    w->current = item;
    fx_context_clear_error(w->ctx);

    fxcli_temp temp;
    fx_status st = FX_OK;
    int err = fxcli_temp_create(&temp, item->output, w->id);
    if (!err) {
        /* The old output's clean pages go before the new one's are written (not an
         * input's, which the item is about to read). */
        if (!run->common.in_place) fxi_file_release_cache(item->output);
        st = run->job->run_item(run, w->ctx, item, temp.path, &res);
    }
    if (gpu_failed(w)) {
        if (!err) fxcli_temp_discard(&temp);
        w->current = NULL;
        return;
    }
    if (err) {
        char buf[FXCLI_MESSAGE_MAX];
        st = fxcli_fail(&res, FX_EIO, "cannot create a file in '%s': %s",
                        folder_of(item->output, buf, sizeof buf), strerror(err));
    } else if (st == FX_OK) {
        int mode = -1;
        struct stat in;
        /* A replaced input keeps its permissions. */
        if (run->common.in_place && item->input && stat(item->input, &in) == 0)
            mode = (int)(in.st_mode & PERMISSION_BITS);
        err = fxcli_temp_commit(&temp, item->output, mode);
        if (err)
            st = fxcli_fail(&res, FX_EIO, "cannot move the result to '%s': %s", item->output,
                            strerror(err));
    } else {
        fxcli_temp_discard(&temp);
    }
    double total_ms = fx_elapsed_ms(start, fx_time_ns());
    w->current = NULL;
    report(w, item, st, &res, total_ms);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    batch *b = w->owner;
    for (;;) {
        if (atomic_load(&b->device_failed)) break;
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->list->count) break;
        if (b->list->items[i].skip) continue;
        uint64_t need = b->estimates ? b->estimates[i] : 0;
        if (b->estimates) fxcli_budget_acquire(&b->budget, need);
        run_one(w, &b->list->items[i]);
        if (b->estimates) fxcli_budget_release(&b->budget, need);
    }
    return NULL;
}

/* Run the items on `count` workers: worker 0 on this thread, the rest on new ones. */
static void run_workers(worker *workers, int count)
{
    for (int i = 1; i < count; i++)
        workers[i].started =
            pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) == 0;
    worker_main(&workers[0]);
    for (int i = 1; i < count; i++)
        if (workers[i].started) pthread_join(workers[i].thread, NULL);
}

/* With --jobs auto or --memory: each item's estimate from its header, the budget,
 * and (*count) as many workers as the CPUs allow and the largest item leaves room
 * for. Without either, no budget (b->estimates stays NULL). False on ENOMEM. */
static bool plan_budget(batch *b, const fxcli_run *run, int cpus, int *count)
{
    const fxcli_common *c = &run->common;
    *count = cpus < FXCLI_MAX_JOBS ? cpus : FXCLI_MAX_JOBS;
    if (c->jobs && !c->memory_mib) return true;
    fxcli_worklist *list = b->list;
    b->estimates = calloc(list->count ? list->count : 1, sizeof *b->estimates);
    if (!b->estimates) {
        fxcli_error("out of memory");
        return false;
    }
    uint64_t limit = c->memory_mib ? (uint64_t)c->memory_mib << MIB_SHIFT : fxcli_default_budget();
    fxcli_budget_init(&b->budget, limit);
    fx_context *probe = NULL;
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = FX_DEVICE_CPU;
    o.threads = 1;
    set_limits(&o, c);
    if (fx_context_create(&o, &probe) != FX_OK) return true; /* no estimates: all zero */
    uint64_t largest = 0;
    for (size_t i = 0; i < list->count; i++) {
        const fxcli_item *item = &list->items[i];
        b->estimates[i] = run->job->estimate && item->input && !item->skip
                              ? run->job->estimate(run, probe, item)
                              : fxcli_item_estimate(probe, item);
        if (b->estimates[i] > largest) largest = b->estimates[i];
    }
    fx_context_destroy(probe);
    /* No more workers than the largest items fit in the budget side by side. */
    if (largest && limit / largest < (uint64_t)*count) {
        *count = limit / largest > 1 ? (int)(limit / largest) : 1;
        b->memory_bound = true;
    }
    return true;
}

/* "shard 1/4: " when the process does one of several shards, else "". */
static const char *shard_prefix(const fxcli_run *run, char *buf, size_t size)
{
    if (run->shard.count <= 1) return "";
    snprintf(buf, size, "shard %llu/%llu: ", (unsigned long long)run->shard.index,
             (unsigned long long)run->shard.count);
    return buf;
}

/* The closing line: "shard 1/4: 10 files, 0 failed, 3 skipped (output exists), 1.20 s". */
static void print_summary(const fxcli_run *run, const fxcli_worklist *list, size_t failed,
                          double seconds)
{
    size_t owned = fxcli_worklist_owned(list);
    if (owned <= 1 && !list->existing && run->shard.count <= 1) return;
    char prefix[64], existing[64] = "";
    if (list->existing)
        snprintf(existing, sizeof existing, ", %zu skipped (output exists)", list->existing);
    fxcli_note("%s%zu file%s, %zu failed%s, %.2f s", shard_prefix(run, prefix, sizeof prefix),
               owned, owned == 1 ? "" : "s", failed, existing, seconds);
}

static void write_report(const fxcli_run *run, const fxcli_worklist *list, const batch *b,
                         const fxcli_run_summary *summary, int *code)
{
    int err = fxcli_report_write(run->common.report, run, list, b->records, summary);
    if (err) {
        fxcli_error("%s: cannot write the report: %s", run->common.report, strerror(err));
        *code = FXCLI_EXIT_FAILED;
    }
}

int fxcli_batch_run(fxcli_run *run, fxcli_worklist *list)
{
    const fxcli_common *c = &run->common;
    size_t runnable = fxcli_worklist_runnable(list);
    batch b = {.run = run, .list = list};
    atomic_init(&b.next, 0);
    atomic_init(&b.device_failed, false);
    int code = FXCLI_EXIT_OK;
    worker *workers = NULL;
    int count = 0;
    uint64_t start = fx_time_ns();
    fxcli_run_summary summary = {.started_unix_ms = fxcli_unix_ms()};

    if (c->report && !(b.records = calloc(list->count ? list->count : 1, sizeof *b.records))) {
        fxcli_error("out of memory");
        code = FXCLI_EXIT_FAILED;
        goto done;
    }
    if (runnable == 0) goto done;
    if ((code = fxcli_devices_expand(run)) != FXCLI_EXIT_OK) {
        fxcli_error("%s: %s", run->job->name, run->error);
        goto done;
    }
    if (c->verbose && run->gpu_note[0]) fxcli_note("%s", run->gpu_note);
    if (c->timings_csv && !(b.csv = fxcli_timings_csv_open(c->timings_csv))) {
        fxcli_error("%s: cannot open for appending: %s", c->timings_csv, strerror(errno));
        code = FXCLI_EXIT_FAILED;
        goto done;
    }
    int total_threads = c->threads ? c->threads : fx_cpu_count();
    if (!plan_budget(&b, run, total_threads, &count)) {
        code = FXCLI_EXIT_FAILED;
        goto done;
    }
    if (c->jobs) count = c->jobs;
    /* Every GPU of a list gets a worker at least, unless memory holds fewer files. */
    else if (count < run->gpu_count && !b.memory_bound) count = run->gpu_count;
    if ((size_t)count > runnable) count = (int)runnable;
    /* The CPU threads are shared out: N workers with total/N threads each, so the
     * threads of one large file and the files processed at once never add up to more
     * than the machine has. */
    int threads = total_threads / count > 1 ? total_threads / count : 1;
    summary.workers = count;
    summary.threads_per_worker = threads;
    summary.total_threads = total_threads;
    if (c->verbose && b.estimates)
        fxcli_note("%d file%s at once, %d thread%s each, memory budget %llu MiB", count,
                   count == 1 ? "" : "s", threads, threads == 1 ? "" : "s",
                   (unsigned long long)(b.budget.limit >> MIB_SHIFT));
    if (c->verbose && run->shard.count > 1)
        fxcli_note("shard %llu/%llu (%s): %zu of %zu items",
                   (unsigned long long)run->shard.index, (unsigned long long)run->shard.count,
                   run->shard.source, fxcli_worklist_owned(list), list->count);
    workers = calloc((size_t)count, sizeof *workers);
    if (!workers) {
        fxcli_error("out of memory");
        code = FXCLI_EXIT_FAILED;
        goto done;
    }
    const uint64_t batch_bytes = run->device == FX_DEVICE_AUTO ? batch_input_bytes(list) : 0;
    for (int i = 0; i < count; i++) {
        workers[i].id = i;
        workers[i].owner = &b;
        bool usage = false;
        if (!create_context(&workers[i], run, batch_bytes, threads, &usage)) {
            code = usage ? FXCLI_EXIT_USAGE : FXCLI_EXIT_FAILED;
            goto done;
        }
    }

    fxcli_progress_start(runnable, !c->quiet && isatty(STDERR_FILENO));
    fxcli_cleanup_install();
    run_workers(workers, count);
    fxcli_cleanup_remove();
    fxcli_progress_end();
    if (atomic_load(&b.device_failed)) {
        /* as create_context's failure: a GPU that is not there is the command line's
         * fault (exit 2), one that cannot start a failure (exit 1) */
        code = b.device_status == FX_ENODEVICE ? FXCLI_EXIT_USAGE : FXCLI_EXIT_FAILED;
        goto done;
    }

    if (c->verbose && b.estimates)
        fxcli_note("memory: at most %d file%s at once, %llu MiB estimated at the peak",
                   b.budget.peak_running, b.budget.peak_running == 1 ? "" : "s",
                   (unsigned long long)((b.budget.peak + MIB - 1) >> MIB_SHIFT));

done:
    if (b.estimates) fxcli_budget_destroy(&b.budget);
    free(b.estimates);
    if (workers)
        for (int i = 0; i < count; i++) {
            if (workers[i].ctx && run->job->worker_done) run->job->worker_done(run, workers[i].ctx);
            fx_context_destroy(workers[i].ctx);
        }
    free(workers);
    if (b.csv && fclose(b.csv) != 0) {
        fxcli_error("%s: %s", c->timings_csv, strerror(errno));
        code = FXCLI_EXIT_FAILED;
    }
    summary.wall_ms = fx_elapsed_ms(start, fx_time_ns());
    /* A report also when nothing ran (every output existed), but not after a usage error:
     * nothing was attempted then. */
    if (c->report && b.records && code != FXCLI_EXIT_USAGE) write_report(run, list, &b, &summary, &code);
    if (b.records)
        for (size_t i = 0; i < list->count; i++)
            free(b.records[i].error);
    free(b.records);
    size_t failed = b.failed + list->refused;
    if (code == FXCLI_EXIT_OK) print_summary(run, list, failed, summary.wall_ms / 1000.0);
    if (failed && code == FXCLI_EXIT_OK) code = FXCLI_EXIT_FAILED;
    return code;
}
