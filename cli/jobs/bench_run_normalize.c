/* fxkit bench: one normalize case. A run is a whole stream, open to close (push the
 * signal, flush, pull it all), with the library's four stage times (the ones the
 * published GPU variant logs: analyze, minimum filter, Gaussian, gain). The CPU result is
 * checked against a second stream on one thread fed in odd chunks, which must give the
 * same bits (the output does not depend on chunk sizes or threads); ffmpeg's dynaudnorm
 * is the bit-exact check with --peers. The GPU's output must have the CPU's bits; its
 * transfers are inside the analyze and gain stages. */
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"

/* Chunk sizes of the reference stream: odd and unrelated to any frame length. */
#define REF_PUSH_CHUNK 4099
#define REF_PULL_CHUNK 997

typedef struct nm_job {
    fx_context *ctx;
    fx_normalize_options opts;
    const fx_audio *in;
    double *out;
    int runs;
    double stage[4][BENCH_MAX_REPEAT];
} nm_job;

static fx_status stream(fx_context *ctx, const fx_normalize_options *o, const fx_audio *in,
                        double *out, size_t push_chunk, size_t pull_chunk,
                        fx_normalize_stage_times *stages)
{
    fx_normalize *n = NULL;
    fx_status st = fx_normalize_open(ctx, o, in->channels, in->rate, &n);
    if (st != FX_OK) return st;
    if (stages) fx_normalize_set_timing(n, 1);
    const size_t ch = (size_t)in->channels;
    size_t pushed = 0, pulled = 0, got = 0;
    while (st == FX_OK && pushed < in->frames) {
        size_t k = in->frames - pushed < push_chunk ? in->frames - pushed : push_chunk;
        st = fx_normalize_push(n, in->data + pushed * ch, k);
        pushed += k;
        while (st == FX_OK && fx_normalize_ready(n) && pulled < in->frames) {
            st = fx_normalize_pull(n, out + pulled * ch, pull_chunk, &got);
            pulled += got;
        }
    }
    if (st == FX_OK) st = fx_normalize_flush(n);
    while (st == FX_OK && pulled < in->frames) {
        size_t want = in->frames - pulled < pull_chunk ? in->frames - pulled : pull_chunk;
        st = fx_normalize_pull(n, out + pulled * ch, want, &got);
        if (!got) break;
        pulled += got;
    }
    if (st == FX_OK && pulled != in->frames) st = FX_EBADSTATE;
    if (stages) fx_normalize_stage_times_get(n, stages);
    fx_normalize_close(n);
    return st;
}

static fx_status run_normalize(void *arg, fx_timings *t)
{
    nm_job *j = arg;
    fx_normalize_stage_times s = {0};
    fx_status st = stream(j->ctx, &j->opts, j->in, j->out, j->in->frames, j->in->frames, &s);
    if (st == FX_OK && t && j->runs < BENCH_MAX_REPEAT) {
        j->stage[0][j->runs] = s.analyze_ms;
        j->stage[1][j->runs] = s.min_filter_ms;
        j->stage[2][j->runs] = s.gauss_ms;
        j->stage[3][j->runs] = s.gain_ms;
        j->runs++;
        t->compute_ms = s.analyze_ms + s.min_filter_ms + s.gauss_ms + s.gain_ms;
    }
    return st;
}

static void options_of(const bench_case *c, fx_normalize_options *o)
{
    fx_normalize_options_init(o);
    if (c->danpi) o->preset = FX_NORMALIZE_PRESET_DANPI;
    if (c->frame_samples) o->frame_samples = c->frame_samples;
    if (c->window) o->window = c->window;
}

/* One device's run, timed into row (NULL: once, untimed); `out` receives its output.
 * 1: it ran, 0: it failed (reported), -1: out of memory. */
static int device_row(bench_runner *r, const bench_case *c, fx_context *ctx, bool gpu,
                       const fx_audio *in, double *out, bench_row *row)
{
    nm_job *j = calloc(1, sizeof *j);
    if (!j) return -1;
    j->ctx = ctx;
    options_of(c, &j->opts);
    j->in = in;
    j->out = out;
    bench_timed t;
    if (bench_time(run_normalize, j, row ? bench_repeat(r, c) : 1, NULL, &t) != FX_OK) {
        if (row)
            bench_row_error(row, ctx, "normalize");
        else
            fxcli_error("bench: normalize %s: %s", c->name, fx_context_error(ctx));
        free(j);
        return 0;
    }
    if (row) {
        bench_row_timed(row, &t);
        row->stages.analyze_ms = bench_stats_of(j->stage[0], j->runs).median;
        row->stages.min_filter_ms = bench_stats_of(j->stage[1], j->runs).median;
        row->stages.gauss_ms = bench_stats_of(j->stage[2], j->runs).median;
        row->stages.gain_ms = bench_stats_of(j->stage[3], j->runs).median;
        row->has_stages = true;
        if (gpu) bench_row_note(row, "transfers inside the analyze and gain stages");
    }
    free(j);
    return 1;
}

typedef struct audio_cmp {
    const double *expect;
    size_t count;
} audio_cmp;

static double compare_npy(void *arg, const char *path)
{
    audio_cmp *a = arg;
    double *got = malloc(a->count * sizeof *got);
    double diff = -1;
    if (got && !bench_npy_read_f64(path, got, a->count))
        diff = bench_max_diff_samples(got, a->expect, a->count);
    free(got);
    return diff;
}

bool bench_run_normalize(bench_runner *r, const bench_case *c, bench_rows *rows)
{
    const fx_audio *in = NULL;
    if (bench_input_audio(r->cpu, c, &in) != FX_OK) {
        bench_row *row = bench_row_add(rows, c, !bench_on_cpu(r, c));
        if (!row) return false;
        bench_row_error(row, r->cpu, "input");
        return true;
    }
    const size_t count = in->frames * (size_t)in->channels;
    double *cpu_out = malloc(count * sizeof *cpu_out), *other = malloc(count * sizeof *other);
    if (!cpu_out || !other) {
        free(cpu_out);
        free(other);
        return false;
    }
    bool ok = true, cpu_ok = false;
    bench_row *row = NULL;
    if (bench_on_cpu(r, c) && !(row = bench_row_add(rows, c, false))) ok = false;
    int ran = ok ? device_row(r, c, r->cpu, false, in, cpu_out, row) : 0;
    if (ran < 0) ok = false;
    if (ran > 0) {
        bench_maybe_inject(r, cpu_out, count * sizeof *cpu_out);
        fx_normalize_options o;
        options_of(c, &o);
        fx_status st = stream(r->cpu1, &o, in, other, REF_PUSH_CHUNK, REF_PULL_CHUNK, NULL);
        double diff = st == FX_OK ? bench_max_diff_samples(cpu_out, other, count) : -1;
        cpu_ok = !memcmp(cpu_out, other, count * sizeof *other) && st == FX_OK;
        if (row) {
            snprintf(row->verify, sizeof row->verify, "1-thread stream in odd chunks");
            row->verified = cpu_ok;
            if (!cpu_ok) bench_row_wrong(row, "differs from the chunked stream by up to %g", diff);
        } else if (!cpu_ok) {
            fxcli_error("bench: normalize %s: the CPU result, the GPU's reference, is wrong",
                        c->name);
        }
    }
    audio_cmp cmp = {cpu_out, count};
    char in_path[PATH_MAX];
    bench_tmp_path(r, "in.npy", in_path, sizeof in_path);
    if (ok && row && r->cfg.peers && !bench_npy_write_audio(in_path, in))
        ok = bench_run_peers(r, c, false, rows, in_path, compare_npy, &cmp);
    if (ok && bench_on_gpu(r, c)) {
        row = bench_row_add(rows, c, true);
        ran = row ? device_row(r, c, r->gpu, true, in, other, row) : -1;
        ok = ran >= 0;
        if (ran > 0) {
            snprintf(row->verify, sizeof row->verify, "CPU result, bit for bit");
            row->verified = cpu_ok && !memcmp(cpu_out, other, count * sizeof *other);
            if (!row->verified && cpu_ok)
                bench_row_wrong(row, "differs from the CPU by up to %g",
                                bench_max_diff_samples(cpu_out, other, count));
        }
    }
    free(cpu_out);
    free(other);
    return ok;
}
