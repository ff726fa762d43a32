/* FX_DEVICE_AUTO starts its GPU lazily (issue 25): making an auto context and running
 * small filter, equalize, normalize and convert items on it asks the CUDA runtime
 * nothing (fxi_gpu_runtime_asks does not move); the first item that could use a GPU
 * asks once, whatever it finds, and the context keeps the answer. Runs on any machine:
 * the counter counts asks, so "no GPU found" (it moved) and "never asked" (it did not)
 * differ here too. Deltas, not absolute values: other calls in the process may ask. */
#include <pthread.h>
#include <string.h>

#include "core/device_cost.h"
#include "core/internal.h"
#include "filter/filter_cost.h"
#include "fxtest.h"

enum { SMALL_W = 64, SMALL_H = 48, CLIP_RATE = 44100, WORKERS = 4 };

static fx_context *auto_context(int threads)
{
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = FX_DEVICE_AUTO;
    o.threads = threads;
    fx_context *ctx = NULL;
    FXT_CHECK_OK(fx_context_create(&o, &ctx), NULL);
    return ctx;
}

/* An item no CPU is quick at: 10000x6000 RGB under a dense 25x25 kernel, direct. */
static void big_item(fxi_item_cost *cost)
{
    fxi_filter_work w = {FX_STRATEGY_DIRECT, 25, 25, 625, {10000, 6000, 3, FX_U8}, 3, false, false};
    fxi_filter_cost(&w, cost);
}

/* Every job's small items on ctx, run through (host images and buffers), each on the
 * CPU and explained with `why` ("cpu (auto: cpu ~" before any GPU was looked for). */
static void run_small_items(fx_context *ctx, const char *why)
{
    fx_image img = {0}, out = {0};
    if (!FXT_CHECK_OK(fx_image_alloc(ctx, &img, SMALL_W, SMALL_H, 3, FX_U8), ctx)) return;
    FXT_CHECK_OK(fx_image_alloc(ctx, &out, SMALL_W, SMALL_H, 3, FX_U8), ctx);
    for (size_t i = 0; i < img.stride * (size_t)img.height; i++)
        img.data[i] = (uint8_t)(i * 37);
    const fx_image_desc d = fx_image_desc_of(&img);

    fx_kernel *k = NULL;
    FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:5", &k), ctx);
    fx_filter_plan *fp = NULL;
    if (FXT_CHECK_OK(fx_filter_plan_create(ctx, k, NULL, &d, &fp), ctx)) {
        FXT_CHECK_CONTAINS(fx_filter_plan_explain(fp), why);
        FXT_CHECK_OK(fx_filter_run(fp, &img, &out, NULL), ctx);
        fx_filter_plan_free(fp);
    }
    fx_kernel_free(k);

    fx_equalize_options eo;
    fx_equalize_options_init(&eo);
    fx_equalize_plan *ep = NULL;
    if (FXT_CHECK_OK(fx_equalize_plan_create(ctx, &eo, &d, &ep), ctx)) {
        FXT_CHECK_CONTAINS(fx_equalize_plan_explain(ep), why);
        FXT_CHECK_OK(fx_equalize_run(ep, &img, &out, NULL), ctx);
        fx_equalize_plan_free(ep);
    }

    fx_image wide = {0};
    if (FXT_CHECK_OK(fx_image_alloc(ctx, &wide, SMALL_W, SMALL_H, 3, FX_U16), ctx))
        FXT_CHECK_OK(fx_image_convert(ctx, &img, &wide, NULL), ctx);
    fx_image_free(&wide);

    /* A 1 s stereo clip whole (fx_normalize_audio weighs the whole-buffer GPU path, then
     * the stream), and a stream opened without its length (a nominal minute). */
    fx_audio clip = {0}, done = {0};
    if (FXT_CHECK_OK(fx_audio_alloc(ctx, &clip, CLIP_RATE, 2, CLIP_RATE), ctx)) {
        for (size_t i = 0; i < clip.frames * 2; i++)
            clip.data[i] = (double)(i % 200) / 400.0 - 0.25;
        FXT_CHECK_OK(fx_normalize_audio(ctx, NULL, &clip, &done), ctx);
    }
    fx_audio_free(&done);
    fx_audio_free(&clip);
    fx_normalize *n = NULL;
    if (FXT_CHECK_OK(fx_normalize_open(ctx, NULL, 2, CLIP_RATE, &n), ctx)) {
        FXT_CHECK_CONTAINS(fx_normalize_explain(n), why);
        fx_normalize_close(n);
    }
    fx_image_free(&out);
    fx_image_free(&img);
}

FXT_TEST(small_auto_items_never_ask_for_a_gpu)
{
    const int before = fxi_gpu_runtime_asks();
    fx_context *ctx = auto_context(2);
    if (!ctx) return;
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before); /* made without asking */
    run_small_items(ctx, fx_gpu_built() ? "cpu (auto: cpu ~" : "cpu (auto: no usable GPU)");
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before);
    /* Still free to choose: nothing has looked. */
    FXT_CHECK(fxi_device_auto(ctx) == (fx_gpu_built() != 0));
    fx_context_destroy(ctx);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before); /* nor did its end */
}

FXT_TEST(a_big_item_asks_once)
{
    if (!fx_gpu_built()) {
        printf("  (no CUDA in this build: auto contexts are the CPU's from the start)\n");
        return;
    }
    const int before = fxi_gpu_runtime_asks();
    fx_context *ctx = auto_context(1);
    if (!ctx) return;
    fxi_item_cost cost;
    big_item(&cost);
    char why[320];
    const fx_device_kind first = fxi_device_choose(ctx, &cost, false, NULL, why, sizeof why);
    printf("  big item: %s\n", why);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before + 1);
    int gpus = 0;
    /* (fx_gpu_count asks too: counted, then the expectation moves with it) */
    FXT_CHECK_OK(fx_gpu_count(NULL, &gpus), NULL);
    const int after = fxi_gpu_runtime_asks();
    FXT_CHECK_EQ(after, before + 2);
    if (gpus == 0)
        FXT_CHECK_CONTAINS(why, "cpu (auto: no usable GPU)");
    else
        FXT_CHECK(strstr(why, "no usable GPU") == NULL);
    /* The answer stays: later items, the device query and small items ask nothing. */
    FXT_CHECK_EQ(fxi_device_choose(ctx, &cost, false, NULL, NULL, 0), first);
    FXT_CHECK_EQ(fx_context_device(ctx, NULL), gpus > 0 ? FX_DEVICE_GPU : FX_DEVICE_CPU);
    run_small_items(ctx, gpus > 0 ? "cpu (auto: cpu ~" : "cpu (auto: no usable GPU)");
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), after);
    fx_context_destroy(ctx);
}

/* An item above the bound that a GPU would still lose at the assumed rates (50 GB/s, no
 * faster GPU than the H200 the model was fitted to) stays on the CPU without a start;
 * one it would win starts it. A serial CPU item (cpu_s) moving 2 x 400 MB: with a GPU
 * fixed cost of 71 ms its bound is 94.7 ms (PCIe at 128 GB/s, first use 17.4 ms: one
 * worker) and its assumed estimate 104.4 ms (PCIe at 50 GB/s); with 40 ms, 73.4 ms; while
 * no context of the process has started a GPU, CUDA's start (FXI_GPU_PROCESS_START_S)
 * comes on top. */
static void near_tie(double cpu_s, double gpu_fixed_s, fxi_item_cost *c)
{
    memset(c, 0, sizeof *c);
    c->cpu_thread_s = cpu_s;
    c->cpu_serial = true;
    c->gpu_fixed_s = gpu_fixed_s;
    c->upload_bytes = c->download_bytes = 400000000;
}

FXT_TEST(a_near_tie_does_not_start_the_gpu)
{
    if (!fx_gpu_built()) return;
    const int before = fxi_gpu_runtime_asks();
    fx_context *ctx = auto_context(0); /* all CPUs: one worker, one first use */
    if (!ctx) return;
    fxi_item_cost c;
    near_tie(0.100, 0.071, &c);
    fxi_device_estimate e;
    char why[320];
    FXT_CHECK_EQ(fxi_device_choose(ctx, &c, false, &e, why, sizeof why), FX_DEVICE_CPU);
    printf("  near tie: %s\n", why);
    FXT_CHECK_EQ(e.reason, FXI_REASON_ASSUMED);
    FXT_CHECK_CONTAINS(why, fxi_gpu_started_in_process()
                                ? "cpu (auto: cpu ~100 ms, gpu ~104 ms at assumed rates incl. PCIe"
                                : "cpu (auto: cpu ~100 ms, gpu ~404 ms at assumed rates incl. PCIe");
    FXT_CHECK_CONTAINS(why, "GPU not started");
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before);
    FXT_CHECK(ctx->gpu_pending);
    /* A GPU win smaller than CUDA's start, before any context started one: the CPU. */
    near_tie(0.200, 0.040, &c);
    const bool started = fxi_gpu_started_in_process();
    const fx_device_kind small_win = fxi_device_choose(ctx, &c, false, &e, why, sizeof why);
    printf("  a win smaller than the start: %s\n", why);
    if (!started) {
        FXT_CHECK_EQ(small_win, FX_DEVICE_CPU);
        FXT_CHECK_CONTAINS(why, "CUDA start 300 ms; GPU not started");
        FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before);
    }
    /* A clear win, start included: the GPU is looked for. */
    near_tie(0.600, 0.040, &c);
    const int asked = fxi_gpu_runtime_asks();
    const bool was_pending = ctx->gpu_pending;
    (void)fxi_device_choose(ctx, &c, false, &e, why, sizeof why);
    printf("  a clear GPU win: %s\n", why);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), asked + (was_pending ? 1 : 0));
    FXT_CHECK(!ctx->gpu_pending);
    fx_context_destroy(ctx);
}

/* The device query of the public API is a GPU question: it starts a pending context. */
FXT_TEST(the_device_query_starts_the_gpu)
{
    if (!fx_gpu_built()) return;
    const int before = fxi_gpu_runtime_asks();
    fx_context *ctx = auto_context(1);
    if (!ctx) return;
    int gpu = -2;
    const fx_device_kind k = fx_context_device(ctx, &gpu);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before + 1);
    FXT_CHECK(k == FX_DEVICE_CPU ? gpu == -1 : gpu == 0);
    FXT_CHECK_EQ(fx_context_device(ctx, NULL), k);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before + 1);
    fx_context_destroy(ctx);
}

/* A batch's workers: each its own context on its own thread, starting at once. */
typedef struct worker_run {
    fx_context *ctx;
    fx_device_kind chose;
} worker_run;

static void *worker_main(void *arg)
{
    worker_run *w = arg;
    fxi_item_cost cost;
    big_item(&cost);
    w->chose = fxi_device_choose(w->ctx, &cost, false, NULL, NULL, 0);
    /* asked again: the context's answer */
    (void)fxi_device_choose(w->ctx, &cost, false, NULL, NULL, 0);
    return NULL;
}

FXT_TEST(workers_start_their_contexts_once_each)
{
    if (!fx_gpu_built()) return;
    worker_run w[WORKERS];
    pthread_t threads[WORKERS];
    const int before = fxi_gpu_runtime_asks();
    for (int i = 0; i < WORKERS; i++) {
        w[i].ctx = auto_context(1);
        if (!w[i].ctx) return;
    }
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before);
    for (int i = 0; i < WORKERS; i++)
        FXT_CHECK_EQ(pthread_create(&threads[i], NULL, worker_main, &w[i]), 0);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    FXT_CHECK_EQ(fxi_gpu_runtime_asks(), before + WORKERS);
    for (int i = 0; i < WORKERS; i++) {
        FXT_CHECK_EQ(w[i].chose, w[0].chose);
        FXT_CHECK(!w[i].ctx->gpu_pending);
        fx_context_destroy(w[i].ctx);
    }
}

FXT_MAIN(FXT_CASE(small_auto_items_never_ask_for_a_gpu), FXT_CASE(a_big_item_asks_once),
         FXT_CASE(a_near_tie_does_not_start_the_gpu),
         FXT_CASE(the_device_query_starts_the_gpu),
         FXT_CASE(workers_start_their_contexts_once_each))
