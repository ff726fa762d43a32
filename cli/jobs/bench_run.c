/* fxkit bench: the runner. Contexts for the devices, the timing loop (a warm-up, then
 * repeats; medians with min and max), the rows' bookkeeping and the peers' rows. The jobs'
 * own cases are in bench_run_filter.c, bench_run_equalize.c, bench_run_normalize.c and
 * bench_run_io.c. */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_run.h"

/* Peers get no input larger than this: writing it for another process costs more than
 * the measurement says (and the huge cases would need twice their memory). */
#define PEER_MAX_INPUT_BYTES ((uint64_t)1 << 30)
/* Room for the peers' names applicable to one case. */
#define PEERS_PER_CASE 8

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bench_stats bench_stats_of(double *v, int n)
{
    bench_stats s = {0, 0, 0};
    if (n <= 0) return s;
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    s.median = v[n / 2];
    s.min = v[0];
    s.max = v[n - 1];
    return s;
}

static double median_of(double *v, int n)
{
    return bench_stats_of(v, n).median;
}

fx_status bench_time(bench_run_fn fn, void *arg, int repeat, fx_context *sync, bench_timed *out)
{
    double wall[BENCH_MAX_REPEAT], comp[BENCH_MAX_REPEAT], up[BENCH_MAX_REPEAT],
        down[BENCH_MAX_REPEAT], dec[BENCH_MAX_REPEAT], enc[BENCH_MAX_REPEAT];
    if (repeat < 1) repeat = 1;
    if (repeat > BENCH_MAX_REPEAT) repeat = BENCH_MAX_REPEAT;
    fx_status st = fn(arg, NULL); /* warm-up: first touch of every page, caches, plans */
    if (st == FX_OK && sync) st = fx_context_synchronize(sync);
    for (int i = 0; st == FX_OK && i < repeat; i++) {
        fx_timings t = {0};
        uint64_t t0 = fx_time_ns();
        st = fn(arg, &t);
        if (st == FX_OK && sync) st = fx_context_synchronize(sync);
        wall[i] = fx_elapsed_ms(t0, fx_time_ns());
        comp[i] = t.compute_ms;
        up[i] = t.upload_ms;
        down[i] = t.download_ms;
        dec[i] = t.decode_ms;
        enc[i] = t.encode_ms;
    }
    if (st != FX_OK) return st;
    out->wall = bench_stats_of(wall, repeat);
    out->compute_ms = median_of(comp, repeat);
    out->upload_ms = median_of(up, repeat);
    out->download_ms = median_of(down, repeat);
    out->decode_ms = median_of(dec, repeat);
    out->encode_ms = median_of(enc, repeat);
    return FX_OK;
}

int bench_repeat(const bench_runner *r, const bench_case *c)
{
    return r->cfg.repeat > 0 ? r->cfg.repeat : c->repeat;
}

bool bench_on_cpu(const bench_runner *r, const bench_case *c)
{
    return (r->cfg.devices & BENCH_ON_CPU) && (c->devices & BENCH_ON_CPU);
}

bool bench_on_gpu(const bench_runner *r, const bench_case *c)
{
    return r->gpu && (r->cfg.devices & BENCH_ON_GPU) && (c->devices & BENCH_ON_GPU);
}

bench_row *bench_row_add(bench_rows *rows, const bench_case *c, bool gpu)
{
    if (rows->count == rows->capacity) {
        size_t cap = rows->capacity ? rows->capacity * 2 : 64;
        bench_row *grown = realloc(rows->rows, cap * sizeof *grown);
        if (!grown) return NULL;
        rows->rows = grown;
        rows->capacity = cap;
    }
    bench_row *row = &rows->rows[rows->count++];
    memset(row, 0, sizeof *row);
    row->c = c;
    row->gpu = gpu;
    row->max_diff = -1;
    return row;
}

static void vnote(bench_row *row, const char *fmt, va_list ap)
{
    size_t used = strlen(row->note);
    if (used && used + 2 < sizeof row->note) {
        memcpy(row->note + used, "; ", 3);
        used += 2;
    }
    if (used < sizeof row->note) vsnprintf(row->note + used, sizeof row->note - used, fmt, ap);
}

void bench_row_note(bench_row *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(row, fmt, ap);
    va_end(ap);
}

void bench_row_error(bench_row *row, fx_context *ctx, const char *what)
{
    const char *detail = ctx ? fx_context_error(ctx) : "";
    bench_row_note(row, "%s failed: %s", what, *detail ? detail : "error");
    row->verified = false;
    row->ran = false;
    fxcli_error("bench: %s %s on the %s: %s failed: %s", bench_job_name(row->c->job), row->c->name,
                row->gpu ? "GPU" : "CPU", what, *detail ? detail : "error");
}

void bench_row_wrong(bench_row *row, const char *fmt, ...)
{
    char text[FXCLI_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    bench_row_note(row, "WRONG: %s", text);
    row->verified = false;
    fxcli_error("bench: %s %s on the %s: WRONG: %s", bench_job_name(row->c->job), row->c->name,
                row->gpu ? "GPU" : "CPU", text);
}

void bench_row_timed(bench_row *row, const bench_timed *t)
{
    row->ran = true;
    row->fx = t->wall;
    row->kernel_ms = t->compute_ms;
    row->upload_ms = t->upload_ms;
    row->download_ms = t->download_ms;
    row->decode_ms = t->decode_ms;
    row->encode_ms = t->encode_ms;
}

void bench_maybe_inject(bench_runner *r, void *data, size_t bytes)
{
    if (!r->cfg.inject_wrong || r->injected || !bytes) return;
    ((uint8_t *)data)[bytes / 2] ^= 1; /* one bit of one sample: the smallest wrong answer */
    r->injected = true;
}

void bench_tmp_path(bench_runner *r, const char *name, char *buf, size_t size)
{
    if (!r->tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(r->tmpdir, sizeof r->tmpdir, "%s/fxkit-bench-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(r->tmpdir)) snprintf(r->tmpdir, sizeof r->tmpdir, "/tmp");
    }
    size_t dir = strlen(r->tmpdir), len = strlen(name);
    if (dir + 1 + len >= size) { /* too long: no path rather than another */
        buf[0] = '\0';
        return;
    }
    memcpy(buf, r->tmpdir, dir);
    buf[dir] = '/';
    memcpy(buf + dir + 1, name, len + 1);
}

const char *bench_runner_tmpdir(bench_runner *r)
{
    char unused[PATH_MAX];
    bench_tmp_path(r, "", unused, sizeof unused);
    return r->tmpdir;
}

bool bench_run_peers(bench_runner *r, const bench_case *c, bool gpu, bench_rows *rows,
                     const char *in_path, bench_compare_fn compare, void *arg)
{
    if (!r->cfg.peers) return true;
    if (!r->peers_opened) {
        r->peers = bench_peers_open(bench_runner_tmpdir(r), r->gpu != NULL);
        r->peers_opened = true;
    }
    size_t base = rows->count - 1;
    if (!r->peers) return true;
    const char *names[PEERS_PER_CASE];
    size_t n = bench_peers_for(r->peers, c, gpu, names, PEERS_PER_CASE);
    if (!n) return true;
    if (bench_case_bytes(c) / 3 > PEER_MAX_INPUT_BYTES) {
        bench_row_note(&rows->rows[base], "peers skipped: input over %llu MiB",
                       (unsigned long long)(PEER_MAX_INPUT_BYTES >> 20));
        return true;
    }
    bool used_base = false;
    for (size_t i = 0; i < n; i++) {
        bench_row *row = &rows->rows[base];
        if (used_base) {
            bench_row copy = rows->rows[base];
            if (!(row = bench_row_add(rows, c, gpu))) return false;
            *row = copy;
            row->note[0] = '\0';
            row->max_diff = -1;
        }
        char out_path[PATH_MAX], name[64];
        const char *ext = c->job == BENCH_IO && c->io_op == BENCH_IO_WRITE
                              ? (c->format == FX_IMAGE_PNM ? "ppm" : fx_image_format_name(c->format))
                              : "npy";
        snprintf(name, sizeof name, "peer_out.%s", ext);
        bench_tmp_path(r, name, out_path, sizeof out_path);
        unlink(out_path);
        if (!bench_peer_run(r->peers, names[i], c, bench_repeat(r, c), in_path, out_path, row)) {
            if (!used_base) continue; /* a skipped peer leaves the base row as it was */
            rows->count--;
            continue;
        }
        used_base = true;
        double diff = compare(arg, out_path);
        row->max_diff = diff;
        if (diff < 0) {
            bench_row_note(row, "the peer's output could not be read");
        } else if (bench_peer_exact(names[i], c)) {
            if (diff != 0) bench_row_wrong(row, "differs from %s by up to %g", names[i], diff);
        } else {
            bench_row_note(row, "%s is not exact here: timing only (max diff %g)", names[i], diff);
        }
    }
    return true;
}

fx_status bench_runner_create(const bench_config *cfg, bench_runner **out, char *err, size_t size)
{
    *out = NULL;
    bench_runner *r = calloc(1, sizeof *r);
    if (!r) return FX_ENOMEM;
    r->cfg = *cfg;
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = FX_DEVICE_CPU;
    o.threads = cfg->threads;
    fx_status st = fx_context_create(&o, &r->cpu);
    o.threads = 1;
    if (st == FX_OK) st = fx_context_create(&o, &r->cpu1);
    if (st != FX_OK) {
        snprintf(err, size, "cannot create a CPU context: %s", fx_strerror(st));
        bench_runner_free(r);
        return st;
    }
    if (cfg->devices & BENCH_ON_GPU) {
        o.device = FX_DEVICE_GPU;
        o.threads = cfg->threads;
        st = fx_context_create(&o, &r->gpu);
        if (st != FX_OK) {
            snprintf(err, size, "cannot use the GPU: %s", fx_strerror(st));
            bench_runner_free(r);
            return st;
        }
    }
    *out = r;
    return FX_OK;
}

void bench_runner_free(bench_runner *r)
{
    if (!r) return;
    bench_peers_free(r->peers);
    if (r->tmpdir[0] && strcmp(r->tmpdir, "/tmp")) {
        /* the folder is the bench's own (mkdtemp): everything in it goes */
        DIR *d = opendir(r->tmpdir);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            char path[PATH_MAX];
            bench_tmp_path(r, e->d_name, path, sizeof path);
            unlink(path);
        }
        if (d) closedir(d);
        rmdir(r->tmpdir);
    }
    fx_context_destroy(r->gpu);
    fx_context_destroy(r->cpu1);
    fx_context_destroy(r->cpu);
    bench_inputs_free();
    free(r);
}

bool bench_run_case(bench_runner *r, const bench_case *c, bench_rows *rows)
{
    switch (c->job) {
    case BENCH_FILTER: return bench_run_filter(r, c, rows);
    case BENCH_EQUALIZE: return bench_run_equalize(r, c, rows);
    case BENCH_NORMALIZE: return bench_run_normalize(r, c, rows);
    case BENCH_IO: return bench_run_io(r, c, rows);
    default: return true;
    }
}
