/* fxkit bench: one filter case. The CPU runs the library's own choice of strategy; its
 * bytes are checked against a reference that takes another road: the `direct` strategy
 * (every tap at every pixel), or, where the plan itself is direct, a plain integer
 * correlation (bench_reference.c). Big images are checked in three bands of rows (top,
 * middle, bottom) with their halo, filtered as images of their own: every row whose
 * window lies inside its band has the bytes the whole image gives (the border rules
 * apply at the image's own top and bottom, which the outer bands keep). The GPU runs on
 * device images (kernel only; the transfers timed apart) and must give the CPU's bytes. */
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"

/* Images up to this many samples are checked whole; larger ones in bands. */
#define REF_WHOLE_SAMPLES (4.0 * 1024 * 1024)
/* Rows checked in each of the three bands. */
#define REF_BAND_ROWS 16

static fx_status run_filter(void *arg, fx_timings *t)
{
    bench_image_job *j = arg;
    return fx_filter_run(j->plan, j->in, j->out, t);
}

/* A view of rows [y0, y1) of img (no copy). */
static fx_image rows_of(const fx_image *img, int y0, int y1)
{
    fx_image v = *img;
    v.data = img->data + (size_t)y0 * img->stride;
    v.height = y1 - y0;
    return v;
}

typedef enum ref_kind { REF_DIRECT, REF_PLAIN } ref_kind;

/* The reference's output for `src` (a whole image or a band) into `dst`. */
static bool reference(fx_context *ctx, const fx_kernel *k, ref_kind kind, const fx_image *src,
                      fx_image *dst)
{
    if (kind == REF_PLAIN) {
        int kw = fx_kernel_width(k), kh = fx_kernel_height(k);
        double *taps = malloc((size_t)kw * (size_t)kh * sizeof *taps), offset = 0;
        bool ok = taps && fx_kernel_weights(ctx, k, FX_U8, taps, &offset) == FX_OK &&
                  bench_ref_filter_int(src, taps, kw, kh, offset, dst);
        free(taps);
        return ok;
    }
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_DIRECT;
    fx_image_desc d = fx_image_desc_of(src);
    fx_filter_plan *plan = NULL;
    bool ok = fx_filter_plan_create(ctx, k, &o, &d, &plan) == FX_OK &&
              fx_filter_run(plan, src, dst, NULL) == FX_OK;
    fx_filter_plan_free(plan);
    return ok;
}

/* Compare `out` with the reference, whole or in bands. Returns the largest difference,
 * or -1 when the reference could not be made. */
static double check_cpu(fx_context *ctx, const fx_kernel *k, ref_kind kind, const fx_image *src,
                        const fx_image *out)
{
    const int h = src->height, kh = fx_kernel_height(k);
    if ((double)src->width * h * src->channels <= REF_WHOLE_SAMPLES) {
        fx_image ref;
        if (fx_image_alloc(ctx, &ref, src->width, h, src->channels, src->type) != FX_OK) return -1;
        double diff = reference(ctx, k, kind, src, &ref) ? bench_max_diff_images(out, &ref) : -1;
        fx_image_free(&ref);
        return diff;
    }
    const int starts[3] = {0, h / 2, h - REF_BAND_ROWS};
    double worst = 0;
    for (int b = 0; b < 3 && worst >= 0; b++) {
        int y0 = starts[b], y1 = y0 + REF_BAND_ROWS;
        int top = y0 - kh / 2 < 0 ? 0 : y0 - kh / 2, bottom = y1 + kh / 2 > h ? h : y1 + kh / 2;
        fx_image band = rows_of(src, top, bottom), ref;
        if (fx_image_alloc(ctx, &ref, src->width, bottom - top, src->channels, src->type) != FX_OK)
            return -1;
        if (reference(ctx, k, kind, &band, &ref)) {
            fx_image mine = rows_of(out, y0, y1), theirs = rows_of(&ref, y0 - top, y1 - top);
            double d = bench_max_diff_images(&mine, &theirs);
            if (d > worst) worst = d;
        } else {
            worst = -1;
        }
        fx_image_free(&ref);
    }
    return worst;
}

/* The CPU row (or, when only the GPU is measured, an untimed run for its reference). */
static bool cpu_part(bench_runner *r, const bench_case *c, const fx_kernel *k, const fx_image *src,
                     fx_image *out, bench_rows *rows, bool *ok)
{
    const bool timed = bench_on_cpu(r, c);
    bench_row scratch, *row = &scratch;
    if (timed && !(row = bench_row_add(rows, c, false))) return false;
    if (!timed) memset(row, 0, sizeof *row), row->c = c;
    fx_filter_plan *plan = NULL;
    fx_image_desc d = fx_image_desc_of(src);
    *ok = false;
    if (fx_filter_plan_create(r->cpu, k, NULL, &d, &plan) != FX_OK) {
        bench_row_error(row, r->cpu, "plan");
        return true;
    }
    bench_image_job j = {run_filter, plan, src, out};
    bench_timed t;
    if (bench_time(run_filter, &j, timed ? bench_repeat(r, c) : 1, NULL, &t) != FX_OK) {
        bench_row_error(row, r->cpu, "filter");
        fx_filter_plan_free(plan);
        return true;
    }
    bench_row_timed(row, &t);
    fx_filter_strategy s = fx_filter_plan_strategy(plan);
    snprintf(row->strategy, sizeof row->strategy, "%s", fx_filter_strategy_name(s));
    fx_filter_plan_free(plan);
    bench_maybe_inject(r, out->data, out->stride * (size_t)out->height);
    ref_kind kind = s == FX_STRATEGY_DIRECT ? REF_PLAIN : REF_DIRECT;
    snprintf(row->verify, sizeof row->verify, "%s",
             kind == REF_PLAIN ? "plain C correlation" : "direct strategy");
    double diff = check_cpu(r->cpu, k, kind, src, out);
    row->verified = diff == 0;
    if (diff < 0)
        bench_row_note(row, "no reference: %s", fx_context_error(r->cpu));
    else if (diff > 0)
        bench_row_wrong(row, "differs from the %s by up to %g", row->verify, diff);
    *ok = row->verified;
    if (!timed && !*ok)
        fxcli_error("bench: filter %s: the CPU result, the GPU's reference, is wrong", c->name);
    return true;
}

static bool gpu_part(bench_runner *r, const bench_case *c, const fx_kernel *k, const fx_image *src,
                     const fx_image *cpu_out, bool cpu_ok, bench_rows *rows)
{
    bench_row *row = bench_row_add(rows, c, true);
    if (!row) return false;
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = c->strategy;
    o.gpu_block = c->gpu_block;
    fx_image_desc d = fx_image_desc_of(src);
    fx_filter_plan *plan = NULL;
    if (fx_filter_plan_create(r->gpu, k, &o, &d, &plan) != FX_OK) {
        bench_row_error(row, r->gpu, "plan");
        return true;
    }
    snprintf(row->strategy, sizeof row->strategy, "%s",
             fx_filter_strategy_name(fx_filter_plan_strategy(plan)));
    bench_image_job j = {run_filter, plan, NULL, NULL};
    bench_gpu_image(r, c, &j, src, cpu_out, cpu_ok, row);
    fx_filter_plan_free(plan);
    return true;
}

bool bench_run_filter(bench_runner *r, const bench_case *c, bench_rows *rows)
{
    const fx_image *src = NULL;
    fx_kernel *k = NULL;
    fx_image out = {0};
    bench_row *row;
    if (bench_input_image(r->cpu, c, &src) != FX_OK || fx_kernel_parse(r->cpu, c->kernel, &k) ||
        fx_image_alloc(r->cpu, &out, c->width, c->height, c->channels, FX_U8)) {
        if (!(row = bench_row_add(rows, c, !bench_on_cpu(r, c)))) return false;
        bench_row_error(row, r->cpu, "input");
        fx_kernel_free(k);
        return true;
    }
    bool cpu_ok = false, wrote = false;
    bool ok = cpu_part(r, c, k, src, &out, rows, &cpu_ok);
    if (ok && bench_on_cpu(r, c)) ok = bench_image_peers(r, c, false, rows, src, &out, &wrote);
    if (ok && bench_on_gpu(r, c))
        ok = gpu_part(r, c, k, src, &out, cpu_ok, rows) &&
             bench_image_peers(r, c, true, rows, src, &out, &wrote);
    fx_image_free(&out);
    fx_kernel_free(k);
    return ok;
}
