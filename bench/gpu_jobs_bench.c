/* GPU benchmarks of the equalize and normalize jobs (the filter has its own), against
 * the same calls on a CPU context with every core, in one run. Prints RESULT lines.
 *
 *   gpu_jobs_bench [WIDTH HEIGHT] [REPEAT] [CASES]
 *
 * CASES, a comma-separated list, runs those cases alone (their names as in the RESULT
 * lines: gray, hsv, luma, rgb, hsv-float, gray1, clahe, clahe16_hsv, clahe16_gray,
 * clahe16_gray_bins65536, gray1_pinned, hsv_pinned, sweep, 20s_mono, 6min_stereo), e.g.
 * `gpu_jobs_bench 10000 6000 30 gray1,hsv` for two kernels' variants side by side.
 *
 * Equalize: a WIDTHxHEIGHT RGB 8-bit image (10000x6000 by default), resident on the
 * device (the compute of fx_equalize_run on device images) and from host memory (host
 * images on a GPU context: upload, compute, download), each --space, CLAHE on the
 * gray image, a --gpu-block sweep, and hsv and gray1 host to host with the host images
 * in page-locked memory (the bands cross straight from and to their rows), and CLAHE on
 * 16-bit RGB (hsv) and gray images of the same size (eq_clahe16_*). Normalize: the published
 * GPU variant's preset on a 20 s mono 44.1 kHz signal and a 6 min stereo one, one call, GPU against
 * CPU. Build: `make` builds it into build/bench/gpu_jobs_bench when CUDA is on
 * (bench/CMakeLists.txt); by hand: cc -O2 bench/gpu_jobs_bench.c -Iinclude -Lbuild/src -lfxkit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_context.h"
#include "bench_median.h"
#include "fxkit/fxkit.h"
#include "gpu/gpu_internal.h" /* fxi_pinned_alloc: page-locked host images */

#define EQ_BLOCKS 6
static const int eq_blocks[EQ_BLOCKS] = {64, 128, 256, 512, 1024, 0};

/* A smooth gradient with texture, so histograms are not trivial. 16-bit images: the
 * same gradient times 257 plus a fine texture of 0..255, so a 4096-bin histogram
 * has about 2900 bins in use, not 181. */
static void fill_image(fx_image *img)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                const size_t i = (size_t)x * img->channels + c;
                const uint32_t v = (uint32_t)((x * 7 + y * 3 + c * 50 + ((x * y) >> 9)) % 181 + 30);
                if (img->type == FX_U16)
                    ((uint16_t *)(void *)row)[i] =
                        (uint16_t)(v * 257u + (uint32_t)((x * 13 + y * 5 + c * 71) & 0xFF));
                else
                    row[i] = (uint8_t)v;
            }
    }
}

/* Median ms of REPEAT runs of fx_equalize_run(plan, in, out): wall time, or with `stage`
 * the compute stage the library measures (it waits for the GPU's stream), which is what
 * a run on device images costs (the call itself returns once the work is queued). */
static double time_equalize(fx_equalize_plan *plan, const fx_image *in, fx_image *out, int repeat,
                            fx_timings *last, int stage)
{
    double ms[64];
    if (repeat > 64) repeat = 64;
    fx_equalize_run(plan, in, out, NULL); /* warm-up */
    for (int r = 0; r < repeat; r++) {
        fx_timings t = {0};
        uint64_t t0 = fx_time_ns();
        if (fx_equalize_run(plan, in, out, &t) != FX_OK) return -1;
        ms[r] = stage ? t.compute_ms : fx_elapsed_ms(t0, fx_time_ns());
        if (last) *last = t;
    }
    return bench_median(ms, repeat);
}

/* The CASES argument (NULL: every case). */
static const char *only_cases;

static int wanted(const char *name)
{
    if (!only_cases) return 1;
    const size_t n = strlen(name);
    for (const char *p = only_cases; *p;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p += len + (end != NULL);
    }
    return 0;
}

static const char *const space_names[] = {"gray", "hsv", "luma", "rgb", "hsv-float"};

static void equalize_case(fx_context *gpu, fx_context *cpu, const fx_image *host, const char *name,
                          fx_equalize_options *o, int repeat)
{
    if (!wanted(name)) return;
    fx_image dev_in, dev_out, host_out, cpu_out;
    int out_ch = fx_equalize_output_channels(o, host->channels);
    const fx_image_desc desc = fx_image_desc_of(host);
    fx_equalize_plan *pg = NULL, *pc = NULL;
    if (fx_image_alloc_device(gpu, &dev_in, host->width, host->height, host->channels,
                              host->type) ||
        fx_image_alloc_device(gpu, &dev_out, host->width, host->height, out_ch, host->type) ||
        fx_image_upload(gpu, host, &dev_in) || fx_equalize_plan_create(gpu, o, &desc, &pg) ||
        fx_equalize_plan_create(cpu, o, &desc, &pc)) {
        printf("RESULT eq_%s_error %s\n", name, fx_context_error(gpu));
        return;
    }
    fx_image_alloc(gpu, &host_out, host->width, host->height, out_ch, host->type);
    fx_image_alloc(cpu, &cpu_out, host->width, host->height, out_ch, host->type);
    fx_timings t = {0};
    double device_ms = time_equalize(pg, &dev_in, &dev_out, repeat, NULL, 1);
    double host_ms = time_equalize(pg, host, &host_out, repeat, &t, 0);
    double cpu_ms = time_equalize(pc, host, &cpu_out, repeat > 5 ? 5 : repeat, NULL, 0);
    const size_t bytes = host_out.stride * (size_t)host_out.height;
    int same = memcmp(host_out.data, cpu_out.data, bytes) == 0;
    /* The device run's bytes too (host_out is overwritten: its times are taken). */
    same = same && fx_image_download(gpu, &dev_out, &host_out) == FX_OK &&
           memcmp(host_out.data, cpu_out.data, bytes) == 0;
    printf("RESULT eq_%s_device_ms %.3f\nRESULT eq_%s_host_ms %.3f (upload %.2f compute %.3f "
           "download %.2f)\nRESULT eq_%s_cpu_ms %.2f\nRESULT eq_%s_identical %s\n",
           name, device_ms, name, host_ms, t.upload_ms, t.compute_ms, t.download_ms, name, cpu_ms,
           name, same ? "yes" : "NO");
    fx_image_free(&dev_in);
    fx_image_free(&dev_out);
    fx_image_free(&host_out);
    fx_image_free(&cpu_out);
    fx_equalize_plan_free(pg);
    fx_equalize_plan_free(pc);
}

/* Host to host with both host images in page-locked memory (the context's
 * cudaHostAlloc): the equalization's bands cross PCIe straight from and to their rows,
 * with no packing into its staging slots; the bytes checked against the CPU's. */
static void pinned_case(fx_context *gpu, fx_context *cpu, const fx_image *host, const char *name,
                        fx_equalize_options *o, int repeat)
{
    char case_name[64];
    snprintf(case_name, sizeof case_name, "%s_pinned", name);
    if (!wanted(case_name)) return;
    const int out_ch = fx_equalize_output_channels(o, host->channels);
    const fx_image_desc desc = fx_image_desc_of(host);
    fx_equalize_plan *pg = NULL;
    fx_image want, in = *host, out;
    void *in_data = NULL, *out_data = NULL;
    const size_t in_bytes = host->stride * (size_t)host->height;
    if (fx_image_alloc(cpu, &want, host->width, host->height, out_ch, FX_U8) != FX_OK) return;
    out = want;
    const size_t out_bytes = want.stride * (size_t)want.height;
    if (fxi_pinned_alloc(gpu, in_bytes, &in_data) != FX_OK ||
        fxi_pinned_alloc(gpu, out_bytes, &out_data) != FX_OK ||
        fx_equalize_plan_create(gpu, o, &desc, &pg) != FX_OK ||
        fx_equalize(cpu, o, host, &want, NULL) != FX_OK) {
        printf("RESULT eq_%s_pinned_error %s\n", name, fx_context_error(gpu));
    } else {
        memcpy(in_data, host->data, in_bytes);
        in.data = in_data;
        out.data = out_data;
        fx_timings t = {0};
        const double ms = time_equalize(pg, &in, &out, repeat, &t, 0);
        const int same = memcmp(out_data, want.data, out_bytes) == 0;
        printf("RESULT eq_%s_pinned_host_ms %.3f (upload %.2f compute %.3f download %.2f)\n"
               "RESULT eq_%s_pinned_identical %s\n",
               name, ms, t.upload_ms, t.compute_ms, t.download_ms, name, same ? "yes" : "NO");
    }
    fx_equalize_plan_free(pg);
    fxi_pinned_free(gpu, in_data);
    fxi_pinned_free(gpu, out_data);
    fx_image_free(&want);
}

/* Calls after the first, for the warm medians. */
#define NM_WARM_CALLS 5

static void normalize_case(fx_context *gpu, fx_context *cpu, const char *name, double seconds,
                           int channels)
{
    if (!wanted(name)) return;
    fx_audio in;
    size_t frames = (size_t)(seconds * 44100);
    if (fx_audio_alloc(cpu, &in, frames, channels, 44100) != FX_OK) return;
    for (size_t i = 0; i < frames; i++)
        for (int c = 0; c < channels; c++) /* speech-like: a tone under a slow envelope */
            in.data[i * channels + c] =
                0.5 * sin(i * 0.031 + c) * (0.05 + 0.9 * fabs(sin(i * 3e-5)));
    fx_normalize_options o;
    fx_normalize_options_init(&o);
    o.preset = FX_NORMALIZE_PRESET_DANPI;
    fx_audio out_g, out_c;
    uint64_t t0 = fx_time_ns();
    fx_status sg = fx_normalize_audio(gpu, &o, &in, &out_g);
    double gpu_ms = fx_elapsed_ms(t0, fx_time_ns());
    t0 = fx_time_ns();
    fx_status sc = fx_normalize_audio(cpu, &o, &in, &out_c);
    double cpu_ms = fx_elapsed_ms(t0, fx_time_ns());
    int same = sg == FX_OK && sc == FX_OK && out_g.frames == out_c.frames &&
               !memcmp(out_g.data, out_c.data, out_g.frames * channels * sizeof(double));
    printf("RESULT nm_%s_gpu_ms %.2f\nRESULT nm_%s_cpu_ms %.2f\nRESULT nm_%s_identical %s\n", name,
           gpu_ms, name, cpu_ms, name, same ? "yes" : "NO");
    if (sg == FX_OK) fx_audio_free(&out_g);
    if (sc == FX_OK) fx_audio_free(&out_c);
    /* The same calls again on the warm contexts (pinned staging and device buffers
     * kept from the first): medians of NM_WARM_CALLS each. */
    double gw[NM_WARM_CALLS], cw[NM_WARM_CALLS];
    int ok = 1;
    for (int k = 0; ok && k < NM_WARM_CALLS; k++) {
        t0 = fx_time_ns();
        ok = fx_normalize_audio(gpu, &o, &in, &out_g) == FX_OK;
        gw[k] = fx_elapsed_ms(t0, fx_time_ns());
        if (ok) fx_audio_free(&out_g);
        t0 = fx_time_ns();
        ok = ok && fx_normalize_audio(cpu, &o, &in, &out_c) == FX_OK;
        cw[k] = fx_elapsed_ms(t0, fx_time_ns());
        if (ok) fx_audio_free(&out_c);
    }
    if (ok)
        printf("RESULT nm_%s_warm gpu_ms %.2f cpu_ms %.2f cpu_over_gpu %.2f\n", name,
               bench_median(gw, NM_WARM_CALLS), bench_median(cw, NM_WARM_CALLS),
               bench_median(cw, NM_WARM_CALLS) / bench_median(gw, NM_WARM_CALLS));
    fx_audio_free(&in);
}

int main(int argc, char **argv)
{
    int w = argc > 2 ? atoi(argv[1]) : 10000, h = argc > 2 ? atoi(argv[2]) : 6000;
    int repeat = argc > 3 ? atoi(argv[3]) : 10;
    only_cases = argc > 4 ? argv[4] : NULL;
    fx_context *gpu = bench_context(FX_DEVICE_GPU), *cpu = bench_context(FX_DEVICE_CPU);
    if (!gpu || !cpu) {
        fprintf(stderr, "gpu_jobs_bench: needs a GPU\n");
        return 1;
    }
    fx_gpu_info info;
    fx_gpu_info_get(gpu, 0, &info);
    printf("RESULT gpu_name %s\nRESULT cpu_threads %d\n", info.name, fx_context_threads(cpu));
    fx_image rgb, gray;
    fx_image_alloc(cpu, &rgb, w, h, 3, FX_U8);
    fx_image_alloc(cpu, &gray, w, h, 1, FX_U8);
    fill_image(&rgb);
    fill_image(&gray);
    for (int s = 0; s < 5; s++) {
        fx_equalize_options o;
        fx_equalize_options_init(&o);
        o.space = s;
        equalize_case(gpu, cpu, &rgb, space_names[s], &o, repeat);
    }
    fx_equalize_options o;
    fx_equalize_options_init(&o);
    equalize_case(gpu, cpu, &gray, "gray1", &o, repeat);
    o.adaptive = 1;
    o.clip = 40;
    o.tiles = "8x8";
    equalize_case(gpu, cpu, &gray, "clahe", &o, repeat);
    /* CLAHE on 16-bit images (4096 bins by default; the general kernels, as no 16-bit
     * image takes the 8-bit fast ones): RGB in hsv (the CLI's default space), gray, and
     * gray with 65536 bins (its 256 KiB histogram a tile is counted in global memory,
     * not shared: FXI_EQ_GPU_SHARED_HISTOGRAM_BYTES). equalize_cost.c's 16-bit and
     * per-bin CLAHE rates are to be read from these rows. */
    if (wanted("clahe16_hsv") || wanted("clahe16_gray") || wanted("clahe16_gray_bins65536")) {
        fx_image rgb16 = {0}, gray16 = {0};
        if (fx_image_alloc(cpu, &rgb16, w, h, 3, FX_U16) == FX_OK &&
            fx_image_alloc(cpu, &gray16, w, h, 1, FX_U16) == FX_OK) {
            fill_image(&rgb16);
            fill_image(&gray16);
            fx_equalize_options_init(&o);
            o.adaptive = 1;
            o.clip = 40;
            o.tiles = "8x8";
            equalize_case(gpu, cpu, &rgb16, "clahe16_hsv", &o, repeat);
            equalize_case(gpu, cpu, &gray16, "clahe16_gray", &o, repeat);
            o.bins = 65536;
            equalize_case(gpu, cpu, &gray16, "clahe16_gray_bins65536", &o, repeat);
        } else {
            printf("RESULT eq_clahe16_error %s\n", fx_context_error(cpu));
        }
        fx_image_free(&rgb16);
        fx_image_free(&gray16);
    }
    fx_equalize_options_init(&o);
    pinned_case(gpu, cpu, &gray, "gray1", &o, repeat);
    o.space = FX_EQ_SPACE_HSV;
    pinned_case(gpu, cpu, &rgb, "hsv", &o, repeat);
    /* Block sweeps: the published pipeline (hsv-float, mms) and fxkit's hsv. */
    for (int sweep = 0; sweep < 2 && wanted("sweep"); sweep++)
        for (int b = 0; b < EQ_BLOCKS; b++) {
            fx_equalize_options_init(&o);
            o.space = sweep ? FX_EQ_SPACE_HSV : FX_EQ_SPACE_HSV_FLOAT;
            o.scale = sweep ? FX_EQ_SCALE_MINMAX : FX_EQ_SCALE_MMS;
            o.gpu_block = eq_blocks[b];
            char name[32];
            snprintf(name, sizeof name, "%s_block%d", sweep ? "hsv" : "hsvfloat", eq_blocks[b]);
            equalize_case(gpu, cpu, &rgb, name, &o, repeat);
        }
    normalize_case(gpu, cpu, "20s_mono", 20, 1);
    normalize_case(gpu, cpu, "6min_stereo", 360, 2);
    fx_image_free(&rgb);
    fx_image_free(&gray);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
    return 0;
}
