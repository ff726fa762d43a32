/* FX_DEVICE_AUTO on a GPU machine: the copy rates measured once per process, small host
 * images on the CPU, device images on the GPU, a heavy kernel on a large image explained
 * with both estimates; whatever the choice, the bytes are the CPU's. The GPU is started
 * lazily (issue 25): small items leave it unasked (fxi_gpu_runtime_asks does not move),
 * the first item that could use it starts it once. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA
#define GB 1e9

static void fill(fx_image *img, uint64_t seed)
{
    for (int y = 0; y < img->height; y++)
        for (size_t x = 0; x < (size_t)img->width * (size_t)img->channels; x++)
            img->data[(size_t)y * img->stride + x] = (uint8_t)(fxt_rand(&seed) >> 56);
}

/* A dense 15x15 integer kernel: not rank 1, below fft's 400 taps: direct. */
static fx_kernel *dense_kernel(fx_context *ctx)
{
    char text[15 * 15 * 3 + 16];
    size_t n = 0;
    uint64_t seed = 7;
    for (int i = 0; i < 15 * 15; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d%s", (int)(fxt_rand(&seed) % 9) + 1,
                              i % 15 == 14 ? ";" : " ");
    fx_kernel *k = NULL;
    FXT_CHECK_OK(fx_kernel_parse(ctx, text, &k), ctx);
    return k;
}

FXT_TEST(rates_are_measured_once)
{
    fx_context *ctx = fxt_context(FX_DEVICE_GPU, 2);
    fx_gpu_rates r, again;
    if (!FXT_CHECK_OK(fx_gpu_rates_get(ctx, &r), ctx)) return;
    printf("  upload %.1f GB/s, download %.1f GB/s, on the device %.0f GB/s, %d SMs, %.1f ms\n",
           r.upload_bytes_per_s / GB, r.download_bytes_per_s / GB, r.device_bytes_per_s / GB,
           r.multiprocessors, r.measured_ms);
    /* compute-sanitizer slows the copies (instrumented): the device copy to ~17 GB/s, and
     * with 8 tools at a time on one GPU, initcheck's PCIe copies to 0.9 GB/s (r61, check.sh
     * with FXKIT_CHECK_JOBS=8), so the comparisons measure the tool there and the floor is
     * only a sanity bound (check.sh sets FXKIT_UNDER_SANITIZER). */
    const bool tool = getenv("FXKIT_UNDER_SANITIZER") != NULL;
    const double least = tool ? 0.01 * GB : 1 * GB;
    FXT_CHECK(r.upload_bytes_per_s > least && r.upload_bytes_per_s < 1000 * GB);
    FXT_CHECK(r.download_bytes_per_s > least && r.download_bytes_per_s < 1000 * GB);
    if (!tool) FXT_CHECK(r.device_bytes_per_s > r.upload_bytes_per_s);
    FXT_CHECK(r.multiprocessors > 0 && r.measured_ms > 0);
    /* Another context of the process: the cached rates (asking for them starts the auto
     * context's GPU). */
    fx_context *other = fxt_context(FX_DEVICE_AUTO, 1);
    FXT_CHECK(other->gpu_pending);
    FXT_CHECK_OK(fx_gpu_rates_get(other, &again), other);
    FXT_CHECK(!other->gpu_pending && other->device == FX_DEVICE_GPU);
    FXT_CHECK(again.measured_ms == r.measured_ms);
    fx_context_destroy(other);
    fx_context_destroy(ctx);
}

/* Filter `img` with k on ctx (host images) into a new image. */
static fx_status filter_host(fx_context *ctx, const fx_kernel *k, const fx_image *img,
                             fx_image *out, char *explain, size_t size)
{
    fx_image_desc d = fx_image_desc_of(img);
    fx_filter_plan *p;
    fx_status made = fx_filter_plan_create(ctx, k, NULL, &d, &p);
    if (made != FX_OK) return made;
    fx_status st = fx_image_alloc(ctx, out, img->width, img->height, img->channels, img->type);
    if (st == FX_OK) st = fx_filter_run(p, img, out, NULL);
    snprintf(explain, size, "%s", fx_filter_plan_explain(p));
    fx_filter_plan_free(p);
    return st;
}

/* The milliseconds after the first "~" that follows `from` in text ("~22 ms", "~1.4 s"),
 * or -1. */
static double estimate_ms(const char *text, const char *from)
{
    const char *at = strstr(text, from);
    at = at ? strchr(at + strlen(from), '~') : NULL;
    double v;
    char unit[3] = "";
    if (!at || sscanf(at + 1, "%lf %2s", &v, unit) != 2) return -1;
    return unit[0] == 's' ? v * 1000 : v; /* "s" or "s," */
}

/* The explain line of an auto plan that weighed both devices names the one its estimates
 * make cheaper ("device: cpu (auto: cpu ~A ms, gpu [at least|at most] ~B ms ..."). Which
 * one that is depends on the machine (its CPU threads, its GPU's rates): a 4000x3000
 * dense 15x15 went to the GPU on the 16-core H200 machine and to the CPU on the 32-core
 * two-H200 one. */
static bool chose_the_cheaper(const char *explain)
{
    const double cpu = estimate_ms(explain, "(auto: cpu"), gpu = estimate_ms(explain, ", gpu");
    if (cpu < 0 || gpu < 0) {
        printf("  no estimates in: %s\n", explain);
        return false;
    }
    const bool on_gpu = strstr(explain, "device: gpu") != NULL;
    return on_gpu ? gpu <= cpu : cpu <= gpu;
}

/* Small items of every job on an auto context: the CPU, and no CUDA call at all for them
 * (the context stays pending); then a heavy item on the same context starts the GPU,
 * once, and its bytes are the CPU's wherever it ran. */
FXT_TEST(the_gpu_starts_only_for_an_item_that_could_use_it)
{
    const int before = fxi_gpu_runtime_asks();
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0);
    /* One thread: the heavy item below is then far slower on the CPU than on any GPU. */
    fx_context *aut = fxt_context(FX_DEVICE_AUTO, 1);
    FXT_CHECK(aut->gpu_pending);
    fx_image small, big, want = {0}, got = {0};
    FXT_CHECK_OK(fx_image_alloc(cpu, &small, 64, 48, 3, FX_U8), cpu);
    fill(&small, 11);
    fx_kernel *k = dense_kernel(cpu);
    char explain[640];
    FXT_CHECK_OK(filter_host(aut, k, &small, &got, explain, sizeof explain), aut);
    printf("  small filter: %s\n", explain);
    FXT_CHECK_CONTAINS(explain, "device: cpu (auto: cpu ~");
    fx_image_free(&got);
    fx_image_desc d = fx_image_desc_of(&small);
    fx_equalize_options eo;
    fx_equalize_options_init(&eo);
    fx_equalize_plan *ep;
    if (FXT_CHECK_OK(fx_equalize_plan_create(aut, &eo, &d, &ep), aut)) {
        FXT_CHECK_CONTAINS(fx_equalize_plan_explain(ep), "device: cpu (auto: cpu ~");
        fx_equalize_plan_free(ep);
    }
    fx_normalize *n;
    if (FXT_CHECK_OK(fx_normalize_open(aut, NULL, 2, 44100, &n), aut)) {
        printf("  normalize: %s\n", fx_normalize_explain(n));
        FXT_CHECK_CONTAINS(fx_normalize_explain(n), "cpu (auto: cpu ~");
        fx_normalize_close(n);
    }
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before);
    FXT_CHECK(aut->gpu_pending && aut->cuda == NULL);

    FXT_CHECK_OK(fx_image_alloc(cpu, &big, 4000, 3000, 3, FX_U8), cpu);
    fill(&big, 12);
    FXT_CHECK_OK(filter_host(cpu, k, &big, &want, explain, sizeof explain), cpu);
    FXT_CHECK_OK(filter_host(aut, k, &big, &got, explain, sizeof explain), aut);
    printf("  big filter, 1 thread: %s\n", explain);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before + 1);
    FXT_CHECK(!aut->gpu_pending && aut->device == FX_DEVICE_GPU && aut->cuda != NULL);
    FXT_CHECK(chose_the_cheaper(explain));
    FXT_CHECK(fxt_images_equal(&want, &got));
    fx_image_free(&got);
    /* Started once: the next heavy item asks nothing. */
    FXT_CHECK_OK(filter_host(aut, k, &big, &got, explain, sizeof explain), aut);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before + 1);
    FXT_CHECK(fxt_images_equal(&want, &got));
    fx_kernel_free(k);
    fx_image_free(&got);
    fx_image_free(&want);
    fx_image_free(&big);
    fx_image_free(&small);
    fx_context_destroy(aut);
    fx_context_destroy(cpu);
}

FXT_TEST(filter_small_and_large_host_images)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0);
    fx_context *aut = fxt_context(FX_DEVICE_AUTO, 0);
    static const int sizes[][2] = {{64, 48}, {4000, 3000}};
    for (int i = 0; i < 2; i++) {
        fx_image img, want = {0}, got = {0};
        FXT_CHECK_OK(fx_image_alloc(cpu, &img, sizes[i][0], sizes[i][1], 3, FX_U8), cpu);
        fill(&img, (uint64_t)i + 1);
        fx_kernel *k = dense_kernel(cpu);
        char explain[640];
        FXT_CHECK_OK(filter_host(cpu, k, &img, &want, explain, sizeof explain), cpu);
        FXT_CHECK_OK(filter_host(aut, k, &img, &got, explain, sizeof explain), aut);
        printf("  %dx%d: %s\n", sizes[i][0], sizes[i][1], explain);
        if (i == 0) FXT_CHECK_CONTAINS(explain, "device: cpu (auto: cpu ~");
        else FXT_CHECK(chose_the_cheaper(explain));
        FXT_CHECK(fxt_images_equal(&want, &got));
        fx_kernel_free(k);
        fx_image_free(&want);
        fx_image_free(&got);
        fx_image_free(&img);
    }
    fx_context_destroy(aut);
    fx_context_destroy(cpu);
}

FXT_TEST(device_images_take_an_auto_plan_to_the_gpu)
{
    fx_context *aut = fxt_context(FX_DEVICE_AUTO, 0);
    fx_image img, dev_in = {0}, dev_out = {0}, got = {0}, want = {0};
    FXT_CHECK_OK(fx_image_alloc(aut, &img, 64, 48, 3, FX_U8), aut);
    fill(&img, 3);
    fx_kernel *k;
    FXT_CHECK_OK(fx_kernel_parse(aut, "gaussian:5", &k), aut);
    fx_image_desc d = fx_image_desc_of(&img);
    fx_filter_plan *p;
    if (!FXT_CHECK_OK(fx_filter_plan_create(aut, k, NULL, &d, &p), aut)) return;
    FXT_CHECK_CONTAINS(fx_filter_plan_explain(p), "device: cpu (auto:");
    /* The host image first (the CPU), then device images: the same plan moves. */
    FXT_CHECK_OK(fx_image_alloc(aut, &want, 64, 48, 3, FX_U8), aut);
    FXT_CHECK_OK(fx_filter_run(p, &img, &want, NULL), aut);
    FXT_CHECK_OK(fx_image_alloc_device(aut, &dev_in, 64, 48, 3, FX_U8), aut);
    FXT_CHECK_OK(fx_image_alloc_device(aut, &dev_out, 64, 48, 3, FX_U8), aut);
    FXT_CHECK_OK(fx_image_upload(aut, &img, &dev_in), aut);
    FXT_CHECK_OK(fx_filter_run(p, &dev_in, &dev_out, NULL), aut);
    FXT_CHECK_CONTAINS(fx_filter_plan_explain(p), "device: gpu:0 (auto: the image is in device memory)");
    FXT_CHECK_OK(fx_image_alloc(aut, &got, 64, 48, 3, FX_U8), aut);
    FXT_CHECK_OK(fx_image_download(aut, &dev_out, &got), aut);
    FXT_CHECK(fxt_images_equal(&want, &got));
    /* Host images again: the plan stays on the GPU, same bytes. */
    fx_image again = {0};
    FXT_CHECK_OK(fx_image_alloc(aut, &again, 64, 48, 3, FX_U8), aut);
    FXT_CHECK_OK(fx_filter_run(p, &img, &again, NULL), aut);
    FXT_CHECK(fxt_images_equal(&want, &again));
    fx_filter_plan_free(p);
    fx_kernel_free(k);

    /* equalize the same way. */
    fx_equalize_options eo;
    fx_equalize_options_init(&eo);
    fx_equalize_plan *ep;
    if (FXT_CHECK_OK(fx_equalize_plan_create(aut, &eo, &d, &ep), aut)) {
        FXT_CHECK_CONTAINS(fx_equalize_plan_explain(ep), "device: cpu (auto:");
        FXT_CHECK_OK(fx_equalize_run(ep, &img, &want, NULL), aut);
        FXT_CHECK_OK(fx_equalize_run(ep, &dev_in, &dev_out, NULL), aut);
        FXT_CHECK_CONTAINS(fx_equalize_plan_explain(ep), "gpu:0 (auto: the image is in device memory)");
        FXT_CHECK_OK(fx_image_download(aut, &dev_out, &got), aut);
        FXT_CHECK(fxt_images_equal(&want, &got));
        fx_equalize_plan_free(ep);
    }
    /* normalize: explained with both estimates. */
    fx_normalize *n;
    if (FXT_CHECK_OK(fx_normalize_open(aut, NULL, 2, 44100, &n), aut)) {
        printf("  normalize: %s\n", fx_normalize_explain(n));
        FXT_CHECK_CONTAINS(fx_normalize_explain(n), "(auto: cpu ~");
        fx_normalize_close(n);
    }
    fx_image_free(&again);
    fx_image_free(&dev_in);
    fx_image_free(&dev_out);
    fx_image_free(&got);
    fx_image_free(&want);
    fx_image_free(&img);
    fx_context_destroy(aut);
}

/* A one-thread auto context (a batch worker's) counts its first GPU use until an item has
 * gone to the GPU; then no more. The bytes stay the CPU's whatever the choice. */
FXT_TEST(first_gpu_use_counts_until_the_context_is_warm)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 1);
    fx_context *aut = fxt_context(FX_DEVICE_AUTO, 1);
    fx_image img, want = {0}, got = {0}, dev_in = {0}, dev_out = {0};
    FXT_CHECK_OK(fx_image_alloc(cpu, &img, 320, 240, 3, FX_U8), cpu);
    fill(&img, 5);
    fx_kernel *k = dense_kernel(cpu);
    char explain[640];
    FXT_CHECK_OK(filter_host(cpu, k, &img, &want, explain, sizeof explain), cpu);
    FXT_CHECK_OK(filter_host(aut, k, &img, &got, explain, sizeof explain), aut);
    printf("  cold: %s\n", explain);
    FXT_CHECK_CONTAINS(explain, "first GPU use");
    FXT_CHECK(fxt_images_equal(&want, &got));
    fx_image_free(&got);
    /* A device image takes a plan to the GPU: the context is set up. */
    fx_image_desc d = fx_image_desc_of(&img);
    fx_filter_plan *p;
    if (FXT_CHECK_OK(fx_filter_plan_create(aut, k, NULL, &d, &p), aut)) {
        FXT_CHECK_OK(fx_image_alloc_device(aut, &dev_in, 320, 240, 3, FX_U8), aut);
        FXT_CHECK_OK(fx_image_alloc_device(aut, &dev_out, 320, 240, 3, FX_U8), aut);
        FXT_CHECK_OK(fx_image_upload(aut, &img, &dev_in), aut);
        FXT_CHECK_OK(fx_filter_run(p, &dev_in, &dev_out, NULL), aut);
        fx_filter_plan_free(p);
    }
    FXT_CHECK_OK(filter_host(aut, k, &img, &got, explain, sizeof explain), aut);
    printf("  warm: %s\n", explain);
    FXT_CHECK(!strstr(explain, "first GPU use"));
    FXT_CHECK(fxt_images_equal(&want, &got));
    fx_kernel_free(k);
    fx_image_free(&dev_in);
    fx_image_free(&dev_out);
    fx_image_free(&got);
    fx_image_free(&want);
    fx_image_free(&img);
    fx_context_destroy(aut);
    fx_context_destroy(cpu);
}

/* An auto context of one thread, as a batch's worker gets, told the batch's bytes. */
static fx_context *batch_worker(uint64_t batch_bytes)
{
    fx_context_options o;
    fx_context_options_init(&o);
    o.threads = 1;
    o.batch_bytes = batch_bytes;
    fx_context *ctx = NULL;
    FXT_CHECK_EQ(fx_context_create(&o, &ctx), FX_OK);
    return ctx;
}

/* One RGB 4096x2304 PPM (28 MB), file to file on a worker that runs it alone, and on
 * one of a batch of 200 such files (fx_context_options.batch_bytes): alone, its first
 * GPU use (~150 ms among 16 workers) keeps gaussian:31 on the CPU (~80 ms); in the
 * batch it carries 1/200 of CUDA's start and 16/200 of the first use, and the GPU
 * (~27 ms) takes it, in its own 3 MiB bands, decided once for the image; box:3 (~16 ms
 * on the CPU) stays there even so. The bytes are the CPU's every time. */
FXT_TEST(a_batch_shares_the_gpu_start_among_its_items)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0);
    fx_image img;
    FXT_CHECK_OK(fx_image_alloc(cpu, &img, 4096, 2304, 3, FX_U8), cpu);
    fill(&img, 21);
    const char *dir = fxt_tmpdir("gpu_auto_batch_share");
    char in[512], out[600], ref[600];
    snprintf(in, sizeof in, "%s", fxt_path(dir, "in.ppm"));
    snprintf(out, sizeof out, "%s.out.ppm", in);
    snprintf(ref, sizeof ref, "%s.ref.ppm", in);
    FXT_CHECK_OK(fx_image_write_file(cpu, in, &img, NULL), cpu);
    const uint64_t file_bytes = (uint64_t)4096 * 2304 * 3 + 64;
    static const struct {
        const char *kernel;
        uint64_t batch_files;
        bool gpu;
    } cases[] = {{"gaussian:31", 0, false}, {"gaussian:31", 200, true}, {"box:3", 200, false}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fx_context *worker = batch_worker(cases[i].batch_files * file_bytes);
        fx_kernel *k = NULL;
        fx_filter_stream_result r = {0}, rc = {0};
        fx_image want = {0}, got = {0};
        if (worker && FXT_CHECK_OK(fx_kernel_parse(cpu, cases[i].kernel, &k), cpu) &&
            FXT_CHECK_OK(fx_filter_file(worker, k, NULL, NULL, in, out, NULL, &r, NULL), worker) &&
            FXT_CHECK_OK(fx_filter_file(cpu, k, NULL, NULL, in, ref, NULL, &rc, NULL), cpu) &&
            FXT_CHECK_OK(fx_image_read_file(cpu, out, &got), cpu) &&
            FXT_CHECK_OK(fx_image_read_file(cpu, ref, &want), cpu)) {
            printf("  %s, batch of %llu: %d-row bands, %s\n", cases[i].kernel,
                   (unsigned long long)cases[i].batch_files, r.band_rows, r.device);
            FXT_CHECK_CONTAINS(r.device, cases[i].gpu ? "gpu:" : "cpu (auto:");
            FXT_CHECK_EQ(r.band_rows, (int)((cases[i].gpu ? FX_FILTER_STREAM_GPU_BAND_BYTES
                                                          : FX_FILTER_STREAM_CPU_BAND_BYTES) /
                                            (4096 * 3)));
            FXT_CHECK(fxt_images_equal(&want, &got));
        }
        fx_image_free(&want);
        fx_image_free(&got);
        fx_kernel_free(k);
        fx_context_destroy(worker);
    }
    fx_image_free(&img);
    fx_context_destroy(cpu);
}

GPU_TEST_MAIN(FXT_CASE(rates_are_measured_once),
              FXT_CASE(the_gpu_starts_only_for_an_item_that_could_use_it),
              FXT_CASE(filter_small_and_large_host_images),
              FXT_CASE(device_images_take_an_auto_plan_to_the_gpu),
              FXT_CASE(first_gpu_use_counts_until_the_context_is_warm),
              FXT_CASE(a_batch_shares_the_gpu_start_among_its_items))
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
