/* fxkit bench: what the image jobs (filter, equalize) share. The GPU row: the input
 * uploaded once into a device image (timed apart), the job run on device images (kernel
 * only, the stream synchronised inside each timing), the result downloaded (timed apart)
 * and compared with the CPU's bytes. And the peers of an image case: the input written
 * once as .npy, the peers' outputs read back and compared with fxkit's. */
#include <string.h>

#include "bench_run.h"

void bench_gpu_image(bench_runner *r, const bench_case *c, bench_image_job *job,
                     const fx_image *in, const fx_image *cpu_out, bool cpu_ok, bench_row *row)
{
    fx_image din = {0}, dout = {0}, back = {0};
    const int out_ch = cpu_out->channels;
    if (fx_image_alloc_device(r->gpu, &din, in->width, in->height, in->channels, FX_U8) ||
        fx_image_alloc_device(r->gpu, &dout, in->width, in->height, out_ch, FX_U8) ||
        fx_image_alloc(r->gpu, &back, in->width, in->height, out_ch, FX_U8)) {
        bench_row_error(row, r->gpu, "device memory");
    } else {
        uint64_t t0 = fx_time_ns();
        fx_status st = fx_image_upload(r->gpu, in, &din);
        if (st == FX_OK) st = fx_context_synchronize(r->gpu);
        double up = fx_elapsed_ms(t0, fx_time_ns());
        job->in = &din;
        job->out = &dout;
        bench_timed t;
        if (st == FX_OK) st = bench_time(job->run, job, bench_repeat(r, c), r->gpu, &t);
        t0 = fx_time_ns();
        if (st == FX_OK) st = fx_image_download(r->gpu, &dout, &back);
        double down = fx_elapsed_ms(t0, fx_time_ns());
        if (st != FX_OK) {
            bench_row_error(row, r->gpu, bench_job_name(c->job));
        } else {
            bench_row_timed(row, &t);
            row->upload_ms = up;
            row->download_ms = down;
            snprintf(row->verify, sizeof row->verify, "CPU result, byte for byte");
            double diff = bench_max_diff_images(&back, cpu_out);
            row->verified = cpu_ok && diff == 0;
            if (diff) bench_row_wrong(row, "differs from the CPU by up to %g", diff);
            if (!cpu_ok) bench_row_note(row, "the CPU reference itself failed");
        }
    }
    fx_image_free(&din);
    fx_image_free(&dout);
    fx_image_free(&back);
}

typedef struct image_cmp {
    bench_runner *r;
    const fx_image *expect;
} image_cmp;

/* The peer's .npy output against fxkit's image. */
static double compare_npy(void *arg, const char *path)
{
    image_cmp *p = arg;
    return bench_npy_diff_u8(p->r->cpu, path, p->expect);
}

bool bench_image_peers(bench_runner *r, const bench_case *c, bool gpu, bench_rows *rows,
                       const fx_image *in, const fx_image *expect, bool *wrote)
{
    if (!r->cfg.peers) return true;
    char in_path[PATH_MAX];
    bench_tmp_path(r, "in.npy", in_path, sizeof in_path);
    if (!*wrote) {
        int err = bench_npy_write_image(in_path, in);
        if (err) {
            bench_row_note(&rows->rows[rows->count - 1], "peers skipped: %s: %s", in_path,
                           strerror(err));
            return true;
        }
        *wrote = true;
    }
    image_cmp cmp = {r, expect};
    return bench_run_peers(r, c, gpu, rows, in_path, compare_npy, &cmp);
}
