/* fxkit bench: one equalize case. The CPU result of global equalization (gray, and V of
 * HSV) is checked against the plain formulas (bench_reference.c); the spaces and CLAHE
 * that have no plain reference here are rerun on one thread with a fresh plan, which
 * must give the same bytes (OpenCV's bytes are the check with --peers). The GPU runs on
 * device images and must give the CPU's bytes. */
#include <string.h>

#include "bench_run.h"

/* CLAHE's grid and clip in every case: OpenCV's usual 8x8, clip 40 (peers get the same). */
#define CLAHE_TILES "8x8"
#define CLAHE_CLIP 40.0

static fx_status run_equalize(void *arg, fx_timings *t)
{
    bench_image_job *j = arg;
    return fx_equalize_run(j->plan, j->in, j->out, t);
}

static void options_of(const bench_case *c, fx_equalize_options *o)
{
    fx_equalize_options_init(o);
    o->space = c->space;
    if (c->space == FX_EQ_SPACE_HSV_FLOAT) o->scale = FX_EQ_SCALE_MMS; /* the published pair */
    o->adaptive = c->adaptive;
    if (c->adaptive) {
        o->tiles = CLAHE_TILES;
        o->clip = CLAHE_CLIP;
    }
    o->gpu_block = c->eq_block;
}

/* Whole-image equalization on ctx into out (allocated here). */
static fx_status equalize_once(fx_context *ctx, const fx_equalize_options *o, const fx_image *in,
                               fx_image *out)
{
    memset(out, 0, sizeof *out);
    return fx_equalize(ctx, o, in, out, NULL);
}

/* Check the CPU result; returns the largest difference, or -1 without a reference. */
static double check_cpu(bench_runner *r, const bench_case *c, const fx_image *in,
                        const fx_image *out, bench_row *row)
{
    fx_image ref = {0};
    double diff = -1;
    const bool gray = in->channels == 1 && !c->adaptive;
    const bool hsv = in->channels == 3 && c->space == FX_EQ_SPACE_HSV && !c->adaptive;
    if (gray || hsv) {
        snprintf(row->verify, sizeof row->verify, "plain C equalization");
        if (fx_image_alloc(r->cpu, &ref, in->width, in->height, in->channels, FX_U8) == FX_OK &&
            bench_ref_equalize(in, hsv, &ref))
            diff = bench_max_diff_images(out, &ref);
    } else {
        snprintf(row->verify, sizeof row->verify, "1-thread rerun");
        fx_equalize_options o;
        options_of(c, &o);
        if (equalize_once(r->cpu1, &o, in, &ref) == FX_OK) diff = bench_max_diff_images(out, &ref);
    }
    fx_image_free(&ref);
    return diff;
}

static bool cpu_part(bench_runner *r, const bench_case *c, const fx_image *in, fx_image *out,
                     bench_rows *rows, bool *ok)
{
    const bool timed = bench_on_cpu(r, c);
    bench_row scratch, *row = &scratch;
    if (timed && !(row = bench_row_add(rows, c, false))) return false;
    if (!timed) memset(row, 0, sizeof *row), row->c = c;
    fx_equalize_options o;
    options_of(c, &o);
    fx_image_desc d = fx_image_desc_of(in);
    fx_equalize_plan *plan = NULL;
    *ok = false;
    if (fx_equalize_plan_create(r->cpu, &o, &d, &plan) != FX_OK) {
        bench_row_error(row, r->cpu, "plan");
        return true;
    }
    bench_image_job j = {run_equalize, plan, in, out};
    bench_timed t;
    fx_status st = bench_time(run_equalize, &j, timed ? bench_repeat(r, c) : 1, NULL, &t);
    fx_equalize_plan_free(plan);
    if (st != FX_OK) {
        bench_row_error(row, r->cpu, "equalize");
        return true;
    }
    bench_row_timed(row, &t);
    bench_maybe_inject(r, out->data, out->stride * (size_t)out->height);
    double diff = check_cpu(r, c, in, out, row);
    row->verified = diff == 0;
    if (diff < 0)
        bench_row_note(row, "no reference: %s", fx_context_error(r->cpu));
    else if (diff > 0)
        bench_row_wrong(row, "differs from the %s by up to %g", row->verify, diff);
    *ok = row->verified;
    return true;
}

static bool gpu_part(bench_runner *r, const bench_case *c, const fx_image *in,
                     const fx_image *cpu_out, bool cpu_ok, bench_rows *rows)
{
    bench_row *row = bench_row_add(rows, c, true);
    if (!row) return false;
    fx_equalize_options o;
    options_of(c, &o);
    fx_image_desc d = fx_image_desc_of(in);
    fx_equalize_plan *plan = NULL;
    if (fx_equalize_plan_create(r->gpu, &o, &d, &plan) != FX_OK) {
        bench_row_error(row, r->gpu, "plan");
        return true;
    }
    bench_image_job j = {run_equalize, plan, NULL, NULL};
    bench_gpu_image(r, c, &j, in, cpu_out, cpu_ok, row);
    fx_equalize_plan_free(plan);
    return true;
}

bool bench_run_equalize(bench_runner *r, const bench_case *c, bench_rows *rows)
{
    const fx_image *in = NULL;
    fx_image out = {0};
    fx_equalize_options o;
    options_of(c, &o);
    const int out_ch = fx_equalize_output_channels(&o, c->channels);
    if (bench_input_image(r->cpu, c, &in) != FX_OK ||
        fx_image_alloc(r->cpu, &out, c->width, c->height, out_ch, FX_U8) != FX_OK) {
        bench_row *row = bench_row_add(rows, c, !bench_on_cpu(r, c));
        if (!row) return false;
        bench_row_error(row, r->cpu, "input");
        return true;
    }
    bool cpu_ok = false, wrote = false;
    bool ok = cpu_part(r, c, in, &out, rows, &cpu_ok);
    if (ok && bench_on_cpu(r, c)) ok = bench_image_peers(r, c, false, rows, in, &out, &wrote);
    if (ok && bench_on_gpu(r, c))
        ok = gpu_part(r, c, in, &out, cpu_ok, rows) &&
             bench_image_peers(r, c, true, rows, in, &out, &wrote);
    fx_image_free(&out);
    return ok;
}
