/* FX_DEVICE_AUTO's cost model (core/device_cost.h and the jobs' *_cost.c) with fixed
 * rates: a table of items and the device each must get, the explanation's words, and
 * the choice on contexts of this machine (no GPU: the CPU, and a reason). */
#include <math.h>
#include <string.h>

#include "core/device_cost.h"
#include "core/internal.h"
#include "equalize/equalize_cost.h"
#include "equalize/equalize_internal.h"
#include "filter/filter_cost.h"
#include "fxtest.h"
#include "normalize/normalize_cost.h"

/* The H200 as bench/device_auto.py measured it (2026-11-26 03:23): 53.6 / 54.3 GB/s
 * pinned, 2675 GB/s on the device, 132 multiprocessors. */
static const fx_gpu_rates h200 = {53.6e9, 54.3e9, 2675e9, 132, 11.0};
enum { HOST_THREADS = 16 };
/* One command on one file: a 16-thread context, alone on the GPU, cold. */
static const fxi_device_setting one_file = {HOST_THREADS, 1, false, 132, 0};
/* A batch of 16 one-thread workers starting together, each cold. */
static const fxi_device_setting batch_worker = {1, HOST_THREADS, false, 132, 0};
/* A library context that already ran a GPU item. */
static const fxi_device_setting warm_context = {HOST_THREADS, 1, true, 132, 0};

typedef struct filter_case {
    const char *name;
    fx_filter_strategy strategy;
    int kw, kh, nonzero, width, height, channels;
    fx_sample_type type;
    bool on_device, streamed, gpu_present;
    const fxi_device_setting *setting;
    fx_device_kind want;
} filter_case;

/* A worker of a batch of 200 equal files (fx_context_options.batch_bytes): each item
 * carries 1/200 of CUDA's start and 16/200 of its worker's first use. */
static const fxi_device_setting batch_of_200 = {1, HOST_THREADS, false, 132, 1.0 / 200};

/* The measured cases (bench/device_auto.py on the H200, per item through files: cpu /
 * gpu ms, the GPU's file in its 3 MiB pinned bands: docs/BENCHMARKS.md, r19) first, then
 * cases the model must keep. The items of one file alone: CUDA's start is not in them
 * (the pending context's choice weighs it: unit_test_device_lazy). */
static const filter_case filter_cases[] = {
    {"file 10000x6000 gaussian:31 (105 / 133)", FX_STRATEGY_SEPARABLE, 31, 31, 961, 10000, 6000, 3,
     FX_U8, false, true, true, &one_file, FX_DEVICE_CPU},
    {"file 10000x6000 box:3 (66 / 112)", FX_STRATEGY_BOX, 3, 3, 9, 10000, 6000, 3, FX_U8, false,
     true, true, &one_file, FX_DEVICE_CPU},
    {"file 10000x6000 dense 15x15 (246 / 143)", FX_STRATEGY_DIRECT, 15, 15, 225, 10000, 6000, 3,
     FX_U8, false, true, true, &one_file, FX_DEVICE_GPU},
    {"file 16-bit 10000x6000 dense 15x15 (498 / 277)", FX_STRATEGY_DIRECT, 15, 15, 225, 10000, 6000,
     3, FX_U16, false, true, true, &one_file, FX_DEVICE_GPU},
    /* fft filters the whole image on either device: nothing streams. */
    {"file 10000x6000 dense 25x25 fft (251 / 226)", FX_STRATEGY_FFT, 25, 25, 625, 10000, 6000, 3,
     FX_U8, false, false, true, &one_file, FX_DEVICE_GPU},
    /* 200 RGB 4096x2304 PPMs on 16 one-thread workers, whole batch cpu / gpu s (r19) */
    {"batch of 200 4096x2304 gaussian:31 (1.67-1.81 / 1.12-1.37 s)", FX_STRATEGY_SEPARABLE, 31,
     31, 961, 4096, 2304, 3, FX_U8, false, true, true, &batch_of_200, FX_DEVICE_GPU},
    {"batch of 200 4096x2304 box:3 (0.62-0.64 / 0.98-1.03 s)", FX_STRATEGY_BOX, 3, 3, 9, 4096,
     2304, 3, FX_U8, false, true, true, &batch_of_200, FX_DEVICE_CPU},
    {"batch of 200 4096x2304 gaussian:5 (0.49-0.53 / 0.97-1.00 s)", FX_STRATEGY_SEPARABLE, 5, 5,
     25, 4096, 2304, 3, FX_U8, false, true, true, &batch_of_200, FX_DEVICE_CPU},
    {"the gaussian:31 file as if alone", FX_STRATEGY_SEPARABLE, 31, 31, 961, 4096, 2304, 3, FX_U8,
     false, true, true, &batch_worker, FX_DEVICE_CPU},
    {"batch 320x240 dense 15x15 (6.4 / 6.5 each)", FX_STRATEGY_DIRECT, 15, 15, 225, 320, 240, 3,
     FX_U8, false, false, true, &batch_worker, FX_DEVICE_CPU},
    {"thumbnail gaussian:5", FX_STRATEGY_SEPARABLE, 5, 5, 25, 160, 120, 3, FX_U8, false, false,
     true, &one_file, FX_DEVICE_CPU},
    {"10000x6000 gaussian:5 in memory", FX_STRATEGY_SEPARABLE, 5, 5, 25, 10000, 6000, 3, FX_U8,
     false, false, true, &one_file, FX_DEVICE_CPU},
    {"10000x6000 61x61 fft in memory", FX_STRATEGY_FFT, 61, 61, 3721, 10000, 6000, 3, FX_U8, false,
     false, true, &one_file, FX_DEVICE_GPU},
    {"warm 10000x6000 25x25 direct in memory", FX_STRATEGY_DIRECT, 25, 25, 625, 10000, 6000, 3,
     FX_U8, false, false, true, &warm_context, FX_DEVICE_GPU},
    {"thumbnail in device memory", FX_STRATEGY_BOX, 3, 3, 9, 64, 64, 1, FX_U8, true, false, true,
     &batch_worker, FX_DEVICE_GPU},
    {"10000x6000 61x61 fft, no GPU", FX_STRATEGY_FFT, 61, 61, 3721, 10000, 6000, 3, FX_U8, false,
     false, false, &one_file, FX_DEVICE_CPU},
};

FXT_TEST(filter_items_go_where_the_model_says)
{
    for (size_t i = 0; i < sizeof filter_cases / sizeof *filter_cases; i++) {
        const filter_case *c = &filter_cases[i];
        fxi_filter_work w = {c->strategy,
                             c->kw,
                             c->kh,
                             c->nonzero,
                             {c->width, c->height, c->channels, c->type},
                             c->channels,
                             c->on_device,
                             c->streamed};
        fxi_item_cost cost;
        fxi_filter_cost(&w, &cost);
        fxi_device_estimate e;
        fxi_device_estimate_make(&cost, c->setting, c->gpu_present ? &h200 : NULL, &e);
        char why[300];
        fxi_device_estimate_text(&e, 0, why, sizeof why);
        printf("  %-48s %s\n", c->name, why);
        FXT_CHECK_EQ(e.device, c->want);
        /* The shortcuts without rates never send to the CPU what the rates would not. */
        fxi_device_estimate bound;
        memset(&bound, 0, sizeof bound);
        if (!c->on_device && fxi_cpu_estimate_s(&cost, c->setting->threads) <
                                 fxi_gpu_least_on_s(&cost, c->setting, &bound))
            FXT_CHECK_EQ(e.device, FX_DEVICE_CPU);
        if (!c->on_device && c->gpu_present) FXT_CHECK(bound.gpu_s <= e.gpu_s);
        /* Nor to the GPU: the GPU sure at the slowest copies is the GPU with the rates. */
        const fx_gpu_rates slowest = {FXI_GPU_MIN_COPY_BYTES_PER_S, FXI_GPU_MIN_COPY_BYTES_PER_S, 0,
                                      132, 0};
        fxi_device_estimate sure;
        fxi_device_estimate_make(&cost, c->setting, &slowest, &sure);
        if (c->gpu_present && sure.device == FX_DEVICE_GPU) FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
        FXT_CHECK(e.cpu_s > 0);
    }
}

FXT_TEST(equalize_and_normalize_items)
{
    fxi_item_cost cost;
    fxi_device_estimate e;
    char why[300];
    /* equalize hsv 10000x6000 8-bit: 159 ms on the CPU against 202 ms on the GPU: the CPU. */
    fxi_equalize_work hsv = {FXI_EQ_MODE_HSV, false, 10000, 6000, 3, 3, FX_U8, false, 0, 0, false};
    fxi_equalize_cost(&hsv, &cost);
    fxi_device_estimate_make(&cost, &one_file, &h200, &e);
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    printf("  equalize hsv 10000x6000: %s\n", why);
    FXT_CHECK_EQ(e.device, FX_DEVICE_CPU);
    /* CLAHE on 16-bit 10000x6000, a context whose process has started CUDA: 530.6 ms on
     * the CPU against 438.8 ms on the GPU per item (device_auto in the H200 run r7 of
     * 2026-11-26 08:05, docs/BENCHMARKS.md). */
    fxi_equalize_work clahe = {FXI_EQ_MODE_HSV, true, 10000, 6000, 3, 3, FX_U16, false, 0, 0, false};
    fxi_equalize_cost(&clahe, &cost);
    fxi_device_estimate_make(&cost, &one_file, &h200, &e);
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    printf("  equalize 16-bit CLAHE 10000x6000: %s\n", why);
    FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
    /* Small, in device memory: the GPU. */
    fxi_equalize_work tiny = {FXI_EQ_MODE_GRAY, false, 32, 32, 1, 1, FX_U8, true, 0, 0, false};
    fxi_equalize_cost(&tiny, &cost);
    fxi_device_estimate_make(&cost, &batch_worker, &h200, &e);
    FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
    FXT_CHECK_EQ(e.reason, FXI_REASON_ON_DEVICE);
    /* normalize, a 20 s stereo clip whole (16-bit: packed in 2 bytes up, doubles down) on
     * a fresh one-thread worker of a batch of 16: 18 ms per clip on the CPU against 83 on
     * the GPU, its first use (pinned blocks, device pool) the cost: the CPU. */
    const uint64_t clip = 20 * 44100;
    fxi_normalize_whole_cost(2, clip, 2, &cost);
    fxi_device_estimate_make(&cost, &batch_worker, &h200, &e);
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    printf("  normalize 20 s clip, fresh batch worker: %s\n", why);
    FXT_CHECK_EQ(e.device, FX_DEVICE_CPU);
    FXT_CHECK(fxi_cpu_estimate_s(&cost, 1) <
              fxi_gpu_best_case_s(&cost) + fxi_gpu_first_use_s(&cost, &batch_worker));
    /* The same clip on a context whose GPU is set up: the GPU. */
    fxi_device_estimate_make(&cost, &warm_context, &h200, &e);
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    printf("  normalize 20 s clip, warm context: %s\n", why);
    FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
    FXT_CHECK(e.first_use_s == 0);
    /* A 6-minute stereo stream (the CLI's path for a file that size): the CPU. */
    fxi_normalize_cost(2, 44100, 6 * 60 * 44100, &cost);
    fxi_device_estimate_make(&cost, &one_file, &h200, &e);
    FXT_CHECK_EQ(e.device, FX_DEVICE_CPU);
    /* One thread whatever the context has: a stream is serial. */
    FXT_CHECK(fxi_cpu_estimate_s(&cost, 1) == fxi_cpu_estimate_s(&cost, HOST_THREADS));
}

/* The GPU estimate of c as a pending auto context weighs it before starting CUDA
 * (device_cost.c's cpu_at_assumed_rates): the assumed rates and CUDA's start. */
static double gpu_s_before_the_start(const fxi_item_cost *c, const fxi_device_setting *s)
{
    const fx_gpu_rates assumed = {0};
    fxi_device_estimate e;
    fxi_device_estimate_make(c, s, &assumed, &e);
    return e.gpu_s + FXI_GPU_PROCESS_START_S;
}

/* CLAHE's estimates grow with its tile LUTs (planes x tiles x bins) on both devices,
 * and weigh 16-bit CLAHE as measured on the H200 machine (bench/device_auto.py in the
 * H200 run r7 of 2026-11-26 08:05, docs/BENCHMARKS.md): 10000x6000 RGB hsv, 4096 bins,
 * 8x8, one file on 16 threads, per item 530.6 ms on the CPU, 438.8 on the GPU (the same
 * ~320 ms of file reading and writing in both), wall 539 against 787 ms (CUDA's start):
 * a process that has not started CUDA keeps it on the CPU, whatever the bins; one that
 * has, takes the GPU. */
FXT_TEST(clahe_estimates_grow_with_bins_and_tiles)
{
    static const uint32_t bins16[] = {256, 1000, 4096, 16384, 65536};
    static const int tiles[] = {1, 64, 256, 4096};
    static const struct {
        int mode, channels;
    } modes[] = {{FXI_EQ_MODE_HSV, 3}, {FXI_EQ_MODE_RGB, 3}, {FXI_EQ_MODE_GRAY, 1},
                 {FXI_EQ_MODE_LUMA, 3}, {FXI_EQ_MODE_HSV_FLOAT, 3}};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
        for (size_t t = 0; t < sizeof tiles / sizeof *tiles; t++) {
            fxi_item_cost last = {0};
            double last_cpu = 0, last_gpu = 0;
            for (size_t b = 0; b < sizeof bins16 / sizeof *bins16; b++) {
                fxi_equalize_work w = {modes[m].mode,     true,           10000,  6000,
                                       modes[m].channels, modes[m].channels, FX_U16, false,
                                       bins16[b],         tiles[t],       false};
                fxi_item_cost cost;
                fxi_equalize_cost(&w, &cost);
                fxi_device_estimate e;
                fxi_device_estimate_make(&cost, &one_file, &h200, &e);
                FXT_CHECK(cost.cpu_thread_s >= last.cpu_thread_s);
                FXT_CHECK(cost.gpu_sm_s >= last.gpu_sm_s);
                FXT_CHECK(e.cpu_s >= last_cpu && e.gpu_s >= last_gpu);
                if (b > 0) FXT_CHECK(fxi_equalize_lut_entries(&w) > 0);
                last = cost;
                last_cpu = e.cpu_s;
                last_gpu = e.gpu_s;
            }
        }
    /* More tiles at the same bins: more LUT entries, never less time. */
    fxi_item_cost fewer, more;
    fxi_equalize_work w = {FXI_EQ_MODE_HSV, true, 10000, 6000, 3, 3, FX_U16, false, 65536, 64,
                           false};
    fxi_equalize_cost(&w, &fewer);
    w.tiles = 256;
    fxi_equalize_cost(&w, &more);
    FXT_CHECK(more.cpu_thread_s > fewer.cpu_thread_s && more.gpu_sm_s > fewer.gpu_sm_s);
    /* 0 bins and tiles: the defaults (4096 for 16-bit, 8x8). */
    fxi_equalize_work dflt = {FXI_EQ_MODE_HSV, true, 10000, 6000, 3, 3, FX_U16, false, 0, 0, false};
    w.bins = 4096;
    w.tiles = 64;
    FXT_CHECK(fxi_equalize_lut_entries(&dflt) == fxi_equalize_lut_entries(&w));
    FXT_CHECK(fxi_equalize_lut_entries(&w) == 64.0 * 4096.0);

    /* The measured item, every bin count: on the CPU before CUDA's start, the GPU's
     * estimate then above the CPU's; on the GPU once the process has started it. */
    char why[300];
    for (size_t b = 0; b < sizeof bins16 / sizeof *bins16; b++) {
        fxi_equalize_work item = {FXI_EQ_MODE_HSV, true, 10000, 6000, 3,    3,
                                  FX_U16,          false, bins16[b], 64,  false};
        fxi_item_cost cost;
        fxi_equalize_cost(&item, &cost);
        const double cpu_s = fxi_cpu_estimate_s(&cost, HOST_THREADS);
        const double cold_gpu_s = gpu_s_before_the_start(&cost, &one_file);
        printf("  16-bit hsv CLAHE 10000x6000, %5u bins: cpu ~%.0f ms, gpu before CUDA's start "
               "~%.0f ms\n",
               bins16[b], cpu_s * 1e3, cold_gpu_s * 1e3);
        FXT_CHECK(cold_gpu_s > cpu_s);
        /* The CPU as measured, within a factor 1.5 (~210 ms of arithmetic at 4096 bins). */
        if (bins16[b] == 4096) FXT_CHECK(cpu_s > 0.140 && cpu_s < 0.315);
        fxi_device_estimate e;
        fxi_device_estimate_make(&cost, &one_file, &h200, &e);
        FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
    }
    /* 16-bit gray CLAHE the same way, and 8-bit gray CLAHE (the fast kernels: 15.3 ms on
     * the CPU against 3.5 ms host to host on the GPU, gpu_jobs_bench, r7) on a warm
     * context: the GPU; before CUDA's start: the CPU. */
    fxi_equalize_work gray16 = {FXI_EQ_MODE_GRAY, true, 10000, 6000, 1, 1, FX_U16, false, 0, 64,
                                false};
    fxi_equalize_work gray8 = {FXI_EQ_MODE_GRAY, true, 10000, 6000, 1, 1, FX_U8, false, 0, 64,
                               false};
    const fxi_equalize_work *grays[] = {&gray16, &gray8};
    for (int i = 0; i < 2; i++) {
        fxi_item_cost cost;
        fxi_equalize_cost(grays[i], &cost);
        fxi_device_estimate e;
        fxi_device_estimate_make(&cost, &warm_context, &h200, &e);
        fxi_device_estimate_text(&e, 0, why, sizeof why);
        printf("  %s gray CLAHE 10000x6000, warm: %s\n", i ? "8-bit" : "16-bit", why);
        FXT_CHECK_EQ(e.device, FX_DEVICE_GPU);
        FXT_CHECK(gpu_s_before_the_start(&cost, &one_file) > fxi_cpu_estimate_s(&cost, HOST_THREADS));
    }
    /* The 8-bit fast path is far cheaper than the general one on both devices. */
    fxi_item_cost fast, general;
    fxi_equalize_cost(&gray8, &fast);
    gray8.masked = true;
    fxi_equalize_cost(&gray8, &general);
    FXT_CHECK(fast.cpu_thread_s * 5 < general.cpu_thread_s);
    FXT_CHECK(fast.gpu_sm_s * 5 < general.gpu_sm_s);
}

FXT_TEST(estimates_scale_and_read_well)
{
    fxi_filter_work w = {FX_STRATEGY_SEPARABLE, 5, 5, 25, {10000, 6000, 3, FX_U8}, 3, false, false};
    fxi_item_cost cost;
    fxi_filter_cost(&w, &cost);
    FXT_CHECK_EQ(cost.upload_bytes, 180000000);
    FXT_CHECK_EQ(cost.download_bytes, 180000000);
    /* More threads, less time, down to the memory floor. */
    FXT_CHECK(fxi_cpu_estimate_s(&cost, 2) < fxi_cpu_estimate_s(&cost, 1));
    FXT_CHECK(fxi_cpu_estimate_s(&cost, 1024) >= cost.cpu_bytes / FXI_CPU_MEMORY_BYTES_PER_S);
    fxi_device_estimate e;
    fxi_device_estimate_make(&cost, &one_file, &h200, &e);
    FXT_CHECK(e.gpu_s > e.pcie_s + e.staging_s + e.first_use_s && e.pcie_s > 0);
    char why[300];
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    FXT_CHECK_CONTAINS(why, "cpu (auto: cpu ~");
    FXT_CHECK_CONTAINS(why,
                       "incl. PCIe 2 x 180 MB at 54 GB/s, packing 18 ms, first GPU use 17 ms)");
    /* A first use shared out: later workers wait for the earlier ones. */
    FXT_CHECK(fxi_gpu_first_use_s(&cost, &batch_worker) > fxi_gpu_first_use_s(&cost, &one_file));
    FXT_CHECK(fxi_gpu_first_use_s(&cost, &warm_context) == 0);
    /* In a batch the one-time costs are shared by bytes: 1/200 of CUDA's start, and of the
     * worker's first use the share of the 200 / 16 items it runs; never more than all. */
    FXT_CHECK(fxi_gpu_process_start_s(&one_file) == FXI_GPU_PROCESS_START_S);
    FXT_CHECK(fabs(fxi_gpu_process_start_s(&batch_of_200) - FXI_GPU_PROCESS_START_S / 200) < 1e-12);
    FXT_CHECK(fabs(fxi_gpu_first_use_s(&cost, &batch_of_200) -
                   fxi_gpu_first_use_s(&cost, &batch_worker) * HOST_THREADS / 200) < 1e-12);
    const fxi_device_setting most_of_a_batch = {1, HOST_THREADS, false, 132, 0.5};
    FXT_CHECK(fxi_gpu_first_use_s(&cost, &most_of_a_batch) ==
              fxi_gpu_first_use_s(&cost, &batch_worker));
    /* Streamed from a file: the CPU's bands overlap the file; the GPU takes an image
     * above FX_FILTER_STREAM_GPU_ABOVE_BYTES (180 MB) in its own pinned bands: the file
     * at the CPU's banded rate, no packing. */
    w.streamed = true;
    fxi_item_cost streamed;
    fxi_filter_cost(&w, &streamed);
    FXT_CHECK(fxi_cpu_estimate_s(&streamed, HOST_THREADS) >
              fxi_cpu_estimate_s(&cost, HOST_THREADS));
    FXT_CHECK(streamed.gpu_banded);
    fxi_device_estimate_make(&streamed, &one_file, &h200, &e);
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    FXT_CHECK(e.staging_s == 0);
    FXT_CHECK_CONTAINS(why, "file read and write in bands 68 ms");
    /* A GPU path that takes the image whole reads the file first and writes it after. */
    streamed.gpu_banded = false;
    fxi_device_estimate whole;
    fxi_device_estimate_make(&streamed, &one_file, &h200, &whole);
    fxi_device_estimate_text(&whole, 0, why, sizeof why);
    FXT_CHECK_CONTAINS(why, "whole-file read and write 144 ms");
    FXT_CHECK(whole.staging_s > 0 && e.gpu_s < whole.gpu_s);
    /* A file no larger than the threshold goes to the GPU whole. */
    fxi_filter_work small = w;
    small.desc = (fx_image_desc){2000, 2000, 3, FX_U8};
    fxi_filter_cost(&small, &streamed);
    FXT_CHECK(!streamed.gpu_banded);
    /* The image in device memory: no PCIe, packing or file in the estimate. */
    w.on_device = true;
    w.streamed = false;
    fxi_filter_cost(&w, &cost);
    fxi_device_estimate_make(&cost, &one_file, &h200, &e);
    FXT_CHECK(e.pcie_s == 0 && e.staging_s == 0 && e.stream_s == 0);
    fxi_device_estimate_text(&e, 1, why, sizeof why);
    FXT_CHECK_CONTAINS(why, "gpu:1 (auto: the image is in device memory)");
    /* The bound without rates reads as such, and never exceeds the estimate with them. */
    fxi_normalize_whole_cost(2, 20 * 44100, 2, &cost);
    memset(&e, 0, sizeof e);
    e.device = FX_DEVICE_CPU;
    e.reason = FXI_REASON_BOUND;
    e.cpu_s = fxi_cpu_estimate_s(&cost, 1);
    const double least = fxi_gpu_least_on_s(&cost, &batch_worker, &e);
    fxi_device_estimate_text(&e, 0, why, sizeof why);
    printf("  the bound: %s\n", why);
    FXT_CHECK_CONTAINS(why, "cpu (auto: cpu ~4.9 ms, gpu at least ~");
    FXT_CHECK_CONTAINS(why, "incl. first GPU use 68 ms)");
    fxi_device_estimate full;
    fxi_device_estimate_make(&cost, &batch_worker, &h200, &full);
    FXT_CHECK(least <= full.gpu_s);
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
    fxi_filter_work w = {FX_STRATEGY_DIRECT, 25, 25, 625, {10000, 6000, 3, FX_U8}, 3, false, false};
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
         FXT_CASE(clahe_estimates_grow_with_bins_and_tiles),
         FXT_CASE(estimates_scale_and_read_well), FXT_CASE(contexts_without_a_gpu_choose_the_cpu),
         FXT_CASE(rates_need_a_gpu))
