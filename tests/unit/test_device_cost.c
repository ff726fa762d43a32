/* FX_DEVICE_AUTO's cost model (core/device_cost.h and the jobs' *_cost.c) with fixed
 * rates: a table of items and the device each must get, the explanation's words, and
 * the choice on contexts of this machine (no GPU: the CPU, and a reason). */
#include <string.h>

#include "core/device_cost.h"
#include "core/internal.h"
#include "equalize/equalize_cost.h"
#include "equalize/equalize_internal.h"
#include "filter/filter_cost.h"
#include "fxtest.h"
#include "normalize/normalize_cost.h"

/* An H200 as DESIGN.md measured it: 54 / 55 GB/s pinned, 132 multiprocessors. */
static const fx_gpu_rates h200 = {54e9, 55e9, 4.2e12, 132, 1.0};
enum { HOST_THREADS = 16 };

typedef struct filter_case {
    const char *name;
    fx_filter_strategy strategy;
    int kw, kh, nonzero, width, height, channels;
    fx_sample_type type;
    bool on_device, gpu_present;
    fx_device_kind want;
} filter_case;

static const filter_case filter_cases[] = {
    {"thumbnail gaussian:5", FX_STRATEGY_SEPARABLE, 5, 5, 25, 160, 120, 3, FX_U8, false, true,
     FX_DEVICE_CPU},
    {"thumbnail 25x25 direct", FX_STRATEGY_DIRECT, 25, 25, 625, 160, 120, 3, FX_U8, false, true,
     FX_DEVICE_CPU},
    {"10000x6000 box:3 (PCIe dominates)", FX_STRATEGY_BOX, 3, 3, 9, 10000, 6000, 3, FX_U8, false,
     true, FX_DEVICE_CPU},
    {"10000x6000 gaussian:5", FX_STRATEGY_SEPARABLE, 5, 5, 25, 10000, 6000, 3, FX_U8, false, true,
     FX_DEVICE_CPU},
    {"10000x6000 25x25 direct", FX_STRATEGY_DIRECT, 25, 25, 625, 10000, 6000, 3, FX_U8, false,
     true, FX_DEVICE_GPU},
    {"10000x6000 61x61 fft", FX_STRATEGY_FFT, 61, 61, 3721, 10000, 6000, 3, FX_U8, false, true,
     FX_DEVICE_GPU},
    {"10000x6000 float 15x15 direct", FX_STRATEGY_DIRECT, 15, 15, 225, 10000, 6000, 3, FX_F32,
     false, true, FX_DEVICE_GPU},
    {"thumbnail in device memory", FX_STRATEGY_BOX, 3, 3, 9, 64, 64, 1, FX_U8, true, true,
     FX_DEVICE_GPU},
    {"10000x6000 25x25 direct, no GPU", FX_STRATEGY_DIRECT, 25, 25, 625, 10000, 6000, 3, FX_U8,
     false, false, FX_DEVICE_CPU},
};

FXT_TEST(filter_items_go_where_the_model_says)
{
    for (size_t i = 0; i < sizeof filter_cases / sizeof *filter_cases; i++) {
        const filter_case *c = &filter_cases[i];
        fxi_filter_work w = {c->strategy, c->kw, c->kh, c->nonzero,
                             {c->width, c->height, c->channels, c->type},
                             c->channels, c->on_device};
        fxi_item_cost cost;
        fxi_filter_cost(&w, &cost);
        fxi_device_estimate e;
        fxi_device_estimate_make(&cost, HOST_THREADS, c->gpu_present ? &h200 : NULL, &e);
        char why[200];
        fxi_device_estimate_text(&e, 0, why, sizeof why);
        printf("  %-36s %s\n", c->name, why);
        FXT_CHECK_EQ(e.device, c->want);
        /* The shortcut without rates never sends to the CPU what the rates would not. */
        if (!c->on_device && fxi_cpu_estimate_s(&cost, HOST_THREADS) < fxi_gpu_best_case_s(&cost))
            FXT_CHECK_EQ(e.device, FX_DEVICE_CPU);
        FXT_CHECK(e.cpu_s > 0);
    }
}

FXT_TEST(equalize_and_normalize_items)
{
    fxi_item_cost cost;
    fxi_device_estimate e;
    /* equalize hsv 10000x6000 8-bit: 8.9 ms on 16 cores against 12.3 ms through the GPU
     * (issue 25): the CPU. */
    fxi_equalize_work hsv = {FXI_EQ_MODE_HSV, false, 10000, 6000, 3, 3, FX_U8, false};
    fxi_equalize_cost(&hsv, &cost);
    fxi_device_estimate_make(&cost, HOST_THREADS, &h200, &e);
    char why[200];
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    printf("  equalize hsv 10000x6000: %s\n", why);
    FXT_CHECK_EQ(e.device, FX_DEVICE_CPU);
    /* CLAHE on 16-bit 10000x6000: far more arithmetic per byte: the GPU. */
    fxi_equalize_work clahe = {FXI_EQ_MODE_HSV, true, 10000, 6000, 3, 3, FX_U16, false};
    fxi_equalize_cost(&clahe, &cost);
    fxi_device_estimate_make(&cost, HOST_THREADS, &h200, &e);
    FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
    /* The same in device memory, small: the GPU. */
    fxi_equalize_work tiny = {FXI_EQ_MODE_GRAY, false, 32, 32, 1, 1, FX_U8, true};
    fxi_equalize_cost(&tiny, &cost);
    fxi_device_estimate_make(&cost, HOST_THREADS, &h200, &e);
    FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
    FXT_CHECK_EQ(e.reason, FXI_REASON_ON_DEVICE);
    /* normalize, 6-minute stereo: 322 ms on the CPU against 328 ms through the GPU. */
    fxi_normalize_cost(2, 44100, 6 * 60 * 44100, &cost);
    fxi_device_estimate_make(&cost, HOST_THREADS, &h200, &e);
    FXT_CHECK_EQ(e.device, FX_DEVICE_CPU);
    /* One thread whatever the context has: a stream is serial. */
    FXT_CHECK(fxi_cpu_estimate_s(&cost, 1) == fxi_cpu_estimate_s(&cost, HOST_THREADS));
}

FXT_TEST(estimates_scale_and_read_well)
{
    fxi_filter_work w = {FX_STRATEGY_SEPARABLE, 5, 5, 25, {10000, 6000, 3, FX_U8}, 3, false};
    fxi_item_cost cost;
    fxi_filter_cost(&w, &cost);
    FXT_CHECK_EQ(cost.upload_bytes, 180000000);
    FXT_CHECK_EQ(cost.download_bytes, 180000000);
    /* More threads, less time, down to the memory floor. */
    FXT_CHECK(fxi_cpu_estimate_s(&cost, 2) < fxi_cpu_estimate_s(&cost, 1));
    FXT_CHECK(fxi_cpu_estimate_s(&cost, 1024) >= cost.cpu_bytes / FXI_CPU_MEMORY_BYTES_PER_S);
    fxi_device_estimate e;
    fxi_device_estimate_make(&cost, HOST_THREADS, &h200, &e);
    FXT_CHECK(e.gpu_s > e.pcie_s && e.pcie_s > 0);
    char why[200];
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    FXT_CHECK_CONTAINS(why, "cpu (auto: cpu ~");
    FXT_CHECK_CONTAINS(why, "incl. PCIe 2 x 180 MB at 27 GB/s)");
    /* The image in device memory: no PCIe in the estimate. */
    w.on_device = true;
    fxi_filter_cost(&w, &cost);
    fxi_device_estimate_make(&cost, HOST_THREADS, &h200, &e);
    FXT_CHECK(e.pcie_s == 0);
    fxi_device_estimate_text(&e, 1, why, sizeof why);
    FXT_CHECK_CONTAINS(why, "gpu:1 (auto: the image is in device memory)");
}

/* This machine's contexts: an auto one without a usable GPU says so; a CPU one is
 * what it was made. (A GPU machine runs the auto choice in tests/gpu.) */
FXT_TEST(contexts_without_a_gpu_choose_the_cpu)
{
    int gpus = 0;
    if (fx_gpu_count(NULL, &gpus) == FX_OK && gpus > 0) {
        printf("  (a GPU is present: the no-GPU reason is not checked here)\n");
        return;
    }
    fxi_filter_work w = {FX_STRATEGY_DIRECT, 25, 25, 625, {10000, 6000, 3, FX_U8}, 3, false};
    fxi_item_cost cost;
    fxi_filter_cost(&w, &cost);
    static const fx_device_kind kinds[] = {FX_DEVICE_AUTO, FX_DEVICE_CPU};
    static const char *const reasons[] = {"cpu (auto: no usable GPU)",
                                          "cpu (as the context was created)"};
    for (int i = 0; i < 2; i++) {
        fx_context_options o;
        fx_context_options_init(&o);
        o.device = kinds[i];
        o.threads = 1;
        fx_context *ctx;
        FXT_CHECK_OK(fx_context_create(&o, &ctx), NULL);
        char why[200];
        FXT_CHECK_EQ(fxi_device_choose(ctx, &cost, false, NULL, why, sizeof why), FX_DEVICE_CPU);
        FXT_CHECK_CONTAINS(why, reasons[i]);
        FXT_CHECK(!fxi_device_auto(ctx));
        /* The plans say it too. */
        fx_kernel *k;
        FXT_CHECK_OK(fx_kernel_parse(ctx, "gaussian:5", &k), ctx);
        fx_image_desc d = {64, 48, 3, FX_U8};
        fx_filter_plan *p;
        FXT_CHECK_OK(fx_filter_plan_create(ctx, k, NULL, &d, &p), ctx);
        FXT_CHECK_CONTAINS(fx_filter_plan_explain(p), reasons[i]);
        fx_filter_plan_free(p);
        fx_kernel_free(k);
        fx_equalize_options eo;
        fx_equalize_options_init(&eo);
        fx_equalize_plan *ep;
        FXT_CHECK_OK(fx_equalize_plan_create(ctx, &eo, &d, &ep), ctx);
        FXT_CHECK_CONTAINS(fx_equalize_plan_explain(ep), reasons[i]);
        fx_equalize_plan_free(ep);
        fx_normalize *n;
        FXT_CHECK_OK(fx_normalize_open(ctx, NULL, 2, 44100, &n), ctx);
        FXT_CHECK_CONTAINS(fx_normalize_explain(n), reasons[i]);
        fx_normalize_close(n);
        fx_context_destroy(ctx);
    }
}

FXT_TEST(rates_need_a_gpu)
{
    int gpus = 0;
    if (fx_gpu_count(NULL, &gpus) == FX_OK && gpus > 0) return;
    fx_context *ctx;
    FXT_CHECK_OK(fx_context_create(NULL, &ctx), NULL);
    fx_gpu_rates r;
    FXT_CHECK_STATUS(fx_gpu_rates_get(ctx, &r), FX_ENODEVICE, ctx);
    FXT_CHECK(r.upload_bytes_per_s == 0);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(filter_items_go_where_the_model_says), FXT_CASE(equalize_and_normalize_items),
         FXT_CASE(estimates_scale_and_read_well), FXT_CASE(contexts_without_a_gpu_choose_the_cpu),
         FXT_CASE(rates_need_a_gpu))
