/* fxkit bench: the job. Measures the library's jobs in process, through the public C
 * API, on generated inputs, checks every result while it times it, optionally beside
 * other tools (--peers), and prints a table last; --csv and --plot keep the numbers and
 * draw them. The parts are in bench_*.c (see bench.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_run.h"

/* --repeat's upper end: medians of at most BENCH_MAX_REPEAT runs. */
#define MAX_REPEAT BENCH_MAX_REPEAT
#define MAX_THREADS 4096

enum { DEVICE_AUTO, DEVICE_CPU, DEVICE_GPU, DEVICE_BOTH };
static const char *const device_choices[] = {"auto", "cpu", "gpu", "both", NULL};

typedef struct bench_options {
    int quick;
    const char *set;
    int device;
    int peers;
    const char *csv;
    const char *plot;
    int threads;
    int repeat;
} bench_options;

#define OPT(field) offsetof(bench_options, field)

static const fx_option bench_table[] = {
    {"quick", 0, FX_OPT_BOOL, OPT(quick), 0, 0, 1, NULL, NULL, NULL,
     "small cases of each job asked (under 90 s for `all` on 2 cores)"},
    {"set", 0, FX_OPT_STRING, OPT(set), 0, 0, 0, NULL, NULL, "NAME",
     "a named set instead of the job's grid (see below)"},
    {"device", 0, FX_OPT_ENUM, OPT(device), DEVICE_AUTO, 0, 0, NULL, device_choices, "DEV",
     "where to measure (auto: both when a GPU is present, else cpu)"},
    {"peers", 0, FX_OPT_BOOL, OPT(peers), 0, 0, 1, NULL, NULL, NULL,
     "also time OpenCV, scikit-image, PyTorch, CuPy, vips, ImageMagick and ffmpeg on the "
     "same inputs (those installed)"},
    {"csv", 0, FX_OPT_STRING, OPT(csv), 0, 0, 0, NULL, NULL, "FILE",
     "write one row per case, device and peer to FILE"},
    {"plot", 0, FX_OPT_STRING, OPT(plot), 0, 0, 0, NULL, NULL, "FILE",
     "draw the medians into FILE.svg or FILE.png with gnuplot"},
    {"threads", 't', FX_OPT_INT, OPT(threads), 0, 0, MAX_THREADS, NULL, NULL, "N",
     "CPU threads (0 = one per CPU)"},
    {"repeat", 0, FX_OPT_INT, OPT(repeat), 0, 0, MAX_REPEAT, NULL, NULL, "N",
     "timed runs per case after one warm-up (0 = the set's: 7 small, 5, 3 large, 1 huge)"},
    FX_OPTION_END};

static const char *const job_words[] = {"filter", "equalize", "normalize", "io", "all", NULL};

/* Options into the config; usage errors (exit 2) in run->error. */
static int configure(fxcli_run *run, bench_config *cfg)
{
    const bench_options *o = run->options;
    memset(cfg, 0, sizeof *cfg);
    if (run->input_count > 1)
        return fxcli_usage(run, "one job at a time: filter, equalize, normalize, io or all");
    const char *word = run->input_count ? run->inputs[0] : NULL;
    if (!word && !o->set)
        return fxcli_usage(run, "which job? filter, equalize, normalize, io or all (or --set NAME)");
    cfg->jobs = (1u << BENCH_JOB_COUNT) - 1;
    if (word) {
        int j = 0;
        while (job_words[j] && strcmp(job_words[j], word))
            j++;
        if (!job_words[j])
            return fxcli_usage(run, "unknown job '%s': filter, equalize, normalize, io or all",
                               word);
        if (j < BENCH_JOB_COUNT) cfg->jobs = 1u << j;
    }
    if (o->quick && o->set) return fxcli_usage(run, "--quick and --set exclude each other");
    if (o->plot) {
        const char *ext = fxcli_path_extension(o->plot);
        if (strcmp(ext, "svg") && strcmp(ext, "png"))
            return fxcli_usage(run, "--plot: '%s' must end in .svg or .png", o->plot);
    }
    cfg->quick = o->quick;
    cfg->set = o->set;
    cfg->peers = o->peers;
    cfg->threads = o->threads;
    cfg->repeat = o->repeat;
    const char *inject = getenv("FXKIT_BENCH_INJECT_WRONG");
    cfg->inject_wrong = inject && *inject && strcmp(inject, "0");
    char no_gpu[FXCLI_MESSAGE_MAX];
    const bool have_gpu = fxcli_gpu_count(no_gpu, sizeof no_gpu) > 0;
    switch (o->device) {
    case DEVICE_CPU: cfg->devices = BENCH_ON_CPU; break;
    case DEVICE_GPU: cfg->devices = BENCH_ON_GPU; break;
    case DEVICE_BOTH: cfg->devices = BENCH_ON_CPU | BENCH_ON_GPU; break;
    default: cfg->devices = have_gpu ? BENCH_ON_CPU | BENCH_ON_GPU : BENCH_ON_CPU; break;
    }
    if ((cfg->devices & BENCH_ON_GPU) && !have_gpu)
        return fxcli_usage(run, "--device %s: no GPU to measure (%s); use --device cpu",
                           device_choices[o->device], no_gpu);
    return FXCLI_EXIT_OK;
}

/* Keep the cases of the jobs asked (a set may hold several jobs). */
static void keep_jobs(bench_case_list *list, unsigned jobs)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++)
        if (jobs & (1u << list->cases[i].job)) list->cases[kept++] = list->cases[i];
    list->count = kept;
}

/* Cases that run on none of the devices asked (GPU-only cases on the CPU). */
static size_t skipped_cases(const bench_case_list *list, unsigned devices)
{
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++)
        n += !(list->cases[i].devices & devices);
    return n;
}

/* Note the cases that hold many GB at once (they run: the machine may swap or refuse). */
static void note_memory(const bench_case_list *list)
{
    const uint64_t big = (uint64_t)4 << 30;
    for (size_t i = 0; i < list->count; i++) {
        uint64_t bytes = bench_case_bytes(&list->cases[i]);
        if (bytes >= big)
            fxcli_note("bench: %s %s holds about %.1f GB at once", bench_job_name(list->cases[i].job),
                       list->cases[i].name, (double)bytes / 1e9);
    }
}

static int run_all(const bench_config *cfg, const bench_case_list *list, bench_rows *rows)
{
    char err[FXCLI_MESSAGE_MAX] = "";
    bench_runner *r = NULL;
    if (bench_runner_create(cfg, &r, err, sizeof err) != FX_OK) {
        fxcli_error("bench: %s", err);
        return FXCLI_EXIT_FAILED;
    }
    fxcli_progress_unit("cases");
    fxcli_progress_start(list->count, isatty(STDERR_FILENO) && !fxcli_console_quiet());
    size_t failed = 0;
    int code = FXCLI_EXIT_OK;
    for (size_t i = 0; i < list->count; i++) {
        size_t before = rows->count;
        /* A case for none of the devices at hand (GPU-only without a GPU): not even
         * its CPU reference, which only a GPU row would use. */
        const bool runs = bench_on_cpu(r, &list->cases[i]) || bench_on_gpu(r, &list->cases[i]);
        if (runs && !bench_run_case(r, &list->cases[i], rows)) {
            fxcli_error("bench: out of memory");
            code = FXCLI_EXIT_FAILED;
            break;
        }
        for (size_t k = before; k < rows->count; k++)
            if (!rows->rows[k].verified) {
                failed++;
                break;
            }
        fxcli_console_lock();
        fxcli_progress_update(i + 1, failed);
        fxcli_console_unlock();
    }
    fxcli_progress_end();
    if (code == FXCLI_EXIT_OK) bench_floors(r, rows);
    bench_runner_free(r);
    return code;
}

static int bench_main(fxcli_run *run)
{
    const bench_options *o = run->options;
    bench_config cfg;
    int code = configure(run, &cfg);
    if (code != FXCLI_EXIT_OK) {
        fxcli_error("bench: %s", run->error);
        return code;
    }
    bench_case_list list = {0};
    char err[FXCLI_MESSAGE_MAX] = "";
    if (!bench_sets_build(&cfg, &list, err, sizeof err)) {
        fxcli_error("bench: %s (sets: see '%s bench --help')", err, FXCLI_PROGRAM);
        bench_case_list_free(&list);
        return FXCLI_EXIT_USAGE;
    }
    keep_jobs(&list, cfg.jobs);
    if (!list.count) {
        fxcli_error("bench: the set '%s' has no case of that job", cfg.set ? cfg.set : "");
        bench_case_list_free(&list);
        return FXCLI_EXIT_USAGE;
    }
    size_t skipped = skipped_cases(&list, cfg.devices);
    if (skipped)
        fxcli_note("bench: %zu GPU-only case%s (GPU strategies, blocks) skipped on the CPU", skipped,
                   skipped == 1 ? "" : "s");
    note_memory(&list);
    bench_rows rows = {0};
    code = run_all(&cfg, &list, &rows);
    size_t wrong = 0;
    for (size_t i = 0; i < rows.count; i++)
        wrong += !rows.rows[i].verified;
    if (rows.count) bench_print_table(stdout, &rows);
    fflush(stdout);
    if (o->csv) {
        int e = bench_write_csv(o->csv, &rows);
        if (e) {
            fxcli_error("bench: --csv %s: %s", o->csv, strerror(e));
            code = FXCLI_EXIT_FAILED;
        }
    }
    if (o->plot && rows.count && bench_plot(o->plot, o->csv, &rows, err, sizeof err)) {
        fxcli_error("bench: %s", err);
        code = FXCLI_EXIT_FAILED;
    }
    if (wrong) {
        fxcli_error("bench: %zu of %zu rows not verified (see the notes above and the CSV)", wrong,
                    rows.count);
        code = FXCLI_EXIT_FAILED;
    }
    free(rows.rows);
    bench_case_list_free(&list);
    return code;
}

#define BENCH_DESCRIPTION \
    "JOB is filter, equalize, normalize, io or all. Inputs are generated (fx_gen's\n" \
    "photo images, speech audio; the same bytes on every machine) and run in this\n" \
    "process through the C API: one warm-up, then --repeat timed runs; the table\n" \
    "gives medians with min-max. GPU rows time the kernel on device images; the CSV\n" \
    "has the host<->device transfers (upload_ms, download_ms), the io job's\n" \
    "decode_ms/encode_ms and normalize's four stages.\n" \
    "\n" \
    "verified = yes means the fxkit result was checked while it was timed: filter\n" \
    "against the direct strategy (or, where the plan is direct, a plain C\n" \
    "correlation; big images in three bands of rows), equalize gray/hsv against the\n" \
    "plain formulas (other spaces and CLAHE: a 1-thread rerun), normalize against a\n" \
    "1-thread stream fed in odd chunks, io by reading the file back (JPEG: >= 30 dB\n" \
    "PSNR); every GPU result against the CPU's, byte for byte. With --peers, an\n" \
    "exact peer must match byte for byte too (OpenCV for filter,\n" \
    "equalizeHist/YCrCb/CLAHE and PNG/PPM; ffmpeg's dynaudnorm); the others (scikit-\n" \
    "image, PyTorch, CuPy, vips, ImageMagick, OpenCV's HSV) are timing only, with\n" \
    "their max difference in the CSV. A wrong result is reported and the exit status\n" \
    "is 1.\n" \
    "\n" \
    "Sets (--set NAME; GPU-only cases are skipped with --device cpu):\n" \
    "  kernel-size  1000x1000 RGB, box, gaussian k = 3 ... 121; CPU, GPU strategies\n" \
    "  image-size   box:11 over 100x100 ... 10000x100000 RGB (the last: ~6 GB)\n" \
    "  block-size   5 kernels over 100x100 ... 10000x6000, GPU blocks 8, 16, 32\n" \
    "  resolutions  gaussian:3, sharpen, VGA ... 10K; GPU global, shared, texture\n" \
    "  hsv-grid     hsv-float equalization 512x512 ... 10000x6000, GPU blocks\n" \
    "               64 ... 1024\n" \
    "  danpi        normalize with the published GPU variant's preset: 10 s to\n" \
    "               6 min, frames of 2 ... 1024 samples, widths 31 and 101;\n" \
    "               per-stage CSV columns\n" \
    "  smoke        a few tiny cases of every job (seconds)\n" \
    "\n" \
    "Peers run through bench/peers.py (FXKIT_BENCH_PEERS names another), with the\n" \
    "python3 that has each module (FXKIT_PYTHON picks one); a missing peer is\n" \
    "skipped with a note. --plot needs gnuplot (apt-get install gnuplot-nox;\n" \
    "FXKIT_GNUPLOT names it). Test hook: FXKIT_BENCH_INJECT_WRONG=1 corrupts the\n" \
    "first result, which must then fail. Examples:\n" \
    "  fxkit bench all --quick --csv out.csv --plot out.svg\n" \
    "  fxkit bench filter --set kernel-size --peers --device both --csv ks.csv"

const fxcli_job fxcli_job_bench = {
    .name = "bench",
    .summary = "Measure every job on generated inputs, checking each result, beside its peers",
    .usage = "JOB [--quick | --set NAME] [--device DEV] [--peers] [--csv F] [--plot F.svg]",
    .description = BENCH_DESCRIPTION,
    .options = bench_table,
    .options_size = sizeof(bench_options),
    .common = FXCLI_COMMON_GENERAL,
    .takes_inputs = true,
    .main = bench_main,
};
