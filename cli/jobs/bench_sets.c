/* fxkit bench: the grids of cases. --quick (small cases of every job, under 90 s on a
 * 2-core machine), the jobs' default grids, and the named sets that repeat the published
 * experiments with their parameters (kernel-size, image-size, block-size, resolutions,
 * hsv-grid, danpi) plus `smoke`, the tiny set the CLI test runs.
 *
 * GPU-only parameters (the gpu-* filter strategies, --gpu-block, equalize's GPU block)
 * make GPU-only cases; each (kernel, image) or (space, image) also gets one case that runs
 * on both devices with the library's own choice, so the CPU row stands beside them. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Repeats: enough for a stable median on small cases, fewer where one run takes seconds. */
#define REPEAT_SMALL 7
#define REPEAT_DEFAULT 5
#define REPEAT_LARGE 3
#define REPEAT_HUGE 1
/* Samples (width x height x channels) above which a case counts as large / huge. */
#define LARGE_SAMPLES (64.0 * 1024 * 1024)
#define HUGE_SAMPLES (1024.0 * 1024 * 1024)
/* --quick's images: full HD, big enough to measure, small enough for 90 s with peers. */
#define QUICK_WIDTH 1920
#define QUICK_HEIGHT 1080
/* Audio sample rate of every normalize case (the published experiment's). */
#define BENCH_RATE 44100
/* The smoke set's audio: a rate low enough to be instant, long enough for ffmpeg's window
 * (31 frames of 500 ms: shorter inputs are passed through by ffmpeg 5.1). */
#define SMOKE_RATE 8000
#define SMOKE_SECONDS 16.0
/* DANPI frames above this count take seconds on either device and say nothing new. */
#define DANPI_MAX_FRAMES 2000000.0
/* CLAHE's grid and clip in every case: OpenCV's usual 8x8, clip 40. */
#define CLAHE_TILES "8x8"
#define CLAHE_CLIP 40.0

const char *const bench_set_names[] = {"kernel-size", "image-size", "block-size", "resolutions",
                                       "hsv-grid",    "danpi",      "smoke",      NULL};
const char *const bench_set_help[] = {
    "1000x1000 RGB, box and gaussian k = 3, 9, 17, 33, 63, 121; CPU and every GPU "
    "strategy (global, constant, shared, texture)",
    "box:11 over 100x100, 100x1000, 1000x1000, 1000x10000, 10000x10000, 10000x100000 RGB "
    "(the last holds about 6 GB)",
    "box:3, gaussian:3, edge, emboss, sharpen over 100x100 … 10000x6000 RGB; GPU blocks "
    "8x8, 16x16, 32x32 (gpu-global)",
    "gaussian:3 and sharpen over VGA … 10K (10240x4320) RGB; GPU global, shared, texture",
    "HSV equalization (the published hsv-float, mms) 512x512 … 10000x6000 RGB; GPU block "
    "64 … 1024",
    "normalize, the published GPU variant's preset: 10 s … 6 min mono, frames of 2, 32, "
    "1024 samples, widths 31 and 101; per-stage columns",
    "a few tiny cases of every job (seconds; the CLI test's)",
};

static const char *const job_names[BENCH_JOB_COUNT] = {"filter", "equalize", "normalize", "io"};

const char *bench_job_name(bench_job job)
{
    return job < BENCH_JOB_COUNT ? job_names[job] : "?";
}

static bench_case *add(bench_case_list *list, bench_job job, const char *set)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 64;
        bench_case *grown = realloc(list->cases, cap * sizeof *grown);
        if (!grown) return NULL;
        list->cases = grown;
        list->capacity = cap;
    }
    bench_case *c = &list->cases[list->count++];
    memset(c, 0, sizeof *c);
    c->job = job;
    c->set = set;
    c->devices = BENCH_ON_CPU | BENCH_ON_GPU;
    c->repeat = REPEAT_DEFAULT;
    c->channels = 3;
    c->height = 1;
    return c;
}

/* Fewer repeats for big images. */
static int repeat_for(int w, int h, int ch, int small)
{
    double samples = (double)w * h * ch;
    if (samples > HUGE_SAMPLES) return REPEAT_HUGE;
    if (samples > LARGE_SAMPLES) return REPEAT_LARGE;
    return small;
}

static const char *short_strategy(fx_filter_strategy s)
{
    const char *name = fx_filter_strategy_name(s);
    return strncmp(name, "gpu-", 4) ? name : name + 4;
}

static bool filter_case(bench_case_list *l, const char *set, const char *kernel, int w, int h,
                        fx_filter_strategy strategy, int block)
{
    bench_case *c = add(l, BENCH_FILTER, set);
    if (!c) return false;
    c->width = w;
    c->height = h;
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel);
    c->strategy = strategy;
    c->gpu_block = block;
    c->repeat = repeat_for(w, h, 3, REPEAT_DEFAULT);
    if (strategy != FX_STRATEGY_AUTO || block) c->devices = BENCH_ON_GPU;
    if (strategy == FX_STRATEGY_AUTO && !block)
        snprintf(c->name, sizeof c->name, "%s %dx%d", kernel, w, h);
    else if (!block)
        snprintf(c->name, sizeof c->name, "%s %dx%d %s", kernel, w, h, short_strategy(strategy));
    else
        snprintf(c->name, sizeof c->name, "%s %dx%d %s %dx%d", kernel, w, h,
                 short_strategy(strategy), block, block);
    return true;
}

static const char *const space_names[] = {"gray", "hsv", "luma", "rgb", "hsv-float"};

static bool equalize_case(bench_case_list *l, const char *set, int w, int h, int ch,
                          fx_equalize_space space, int adaptive, int block)
{
    bench_case *c = add(l, BENCH_EQUALIZE, set);
    if (!c) return false;
    c->width = w;
    c->height = h;
    c->channels = ch;
    c->space = space;
    c->adaptive = adaptive;
    c->eq_block = block;
    c->repeat = repeat_for(w, h, ch, REPEAT_SMALL);
    if (block) c->devices = BENCH_ON_GPU;
    const char *what = adaptive ? "clahe" : ch == 1 ? "gray" : space_names[space];
    if (block)
        snprintf(c->name, sizeof c->name, "%s %dx%d block %d", what, w, h, block);
    else
        snprintf(c->name, sizeof c->name, "%s %dx%d", what, w, h);
    return true;
}

static bool normalize_case(bench_case_list *l, const char *set, double seconds, int channels,
                           int rate, bool danpi, int frame, int window)
{
    bench_case *c = add(l, BENCH_NORMALIZE, set);
    if (!c) return false;
    c->seconds = seconds;
    c->rate = rate;
    c->channels = channels;
    c->width = (int)(seconds * rate);
    c->danpi = danpi;
    c->frame_samples = frame;
    c->window = window;
    c->repeat = seconds > 60 ? REPEAT_LARGE : REPEAT_DEFAULT;
    if (danpi)
        snprintf(c->name, sizeof c->name, "danpi %gs frame %d width %d", seconds, frame, window);
    else
        snprintf(c->name, sizeof c->name, "%gs %s", seconds, channels == 1 ? "mono" : "stereo");
    return true;
}

static bool io_cases(bench_case_list *l, const char *set, int w, int h)
{
    static const fx_image_format formats[] = {FX_IMAGE_PNG, FX_IMAGE_JPEG, FX_IMAGE_PNM};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++)
        for (int op = BENCH_IO_WRITE; op <= BENCH_IO_READ; op++) {
            bench_case *c = add(l, BENCH_IO, set);
            if (!c) return false;
            c->width = w;
            c->height = h;
            c->format = formats[f];
            c->io_op = (bench_io_op)op;
            c->repeat = repeat_for(w, h, 3, REPEAT_DEFAULT);
            c->devices = BENCH_ON_CPU; /* files are read and written by the CPU */
            snprintf(c->name, sizeof c->name, "%s %s %dx%d", op ? "read" : "write",
                     formats[f] == FX_IMAGE_PNM ? "ppm" : fx_image_format_name(formats[f]), w, h);
        }
    return true;
}

static const fx_filter_strategy gpu_strategies[] = {FX_STRATEGY_GPU_GLOBAL, FX_STRATEGY_GPU_CONSTANT,
                                                    FX_STRATEGY_GPU_SHARED, FX_STRATEGY_GPU_TEXTURE};
#define GPU_STRATEGY_COUNT 4

/* One kernel on one image: the auto case (both devices) and each GPU strategy given. */
static bool filter_group(bench_case_list *l, const char *set, const char *kernel, int w, int h,
                         const fx_filter_strategy *strategies, size_t n)
{
    if (!filter_case(l, set, kernel, w, h, FX_STRATEGY_AUTO, 0)) return false;
    for (size_t s = 0; s < n; s++)
        if (!filter_case(l, set, kernel, w, h, strategies[s], 0)) return false;
    return true;
}

/* ---- the jobs' grids: --quick and the defaults ---- */

static bool filter_grid(bench_case_list *l, const char *set, bool quick)
{
    static const char *const kernels[] = {"box:3", "box:33", "gaussian:9", "gaussian:33",
                                          "sharpen", "edge", "emboss"};
    int w = quick ? QUICK_WIDTH : 4096, h = quick ? QUICK_HEIGHT : 2304;
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
        if (!filter_group(l, set, kernels[k], w, h, NULL, 0)) return false;
    /* every GPU strategy once, on a mid-sized kernel (GPU-only cases) */
    for (size_t s = 0; s < GPU_STRATEGY_COUNT; s++)
        if (!filter_case(l, set, "gaussian:9", w, h, gpu_strategies[s], 0)) return false;
    return true;
}

static bool equalize_grid(bench_case_list *l, const char *set, bool quick)
{
    int w = quick ? QUICK_WIDTH : 4096, h = quick ? QUICK_HEIGHT : 2304;
    return equalize_case(l, set, w, h, 1, FX_EQ_SPACE_GRAY, 0, 0) &&
           equalize_case(l, set, w, h, 3, FX_EQ_SPACE_HSV, 0, 0) &&
           equalize_case(l, set, w, h, 3, FX_EQ_SPACE_LUMA, 0, 0) &&
           equalize_case(l, set, w, h, 1, FX_EQ_SPACE_GRAY, 1, 0);
}

static bool normalize_grid(bench_case_list *l, const char *set, bool quick)
{
    if (quick)
        return normalize_case(l, set, 60, 2, BENCH_RATE, false, 0, 0) &&
               normalize_case(l, set, 20, 1, BENCH_RATE, true, 1024, 31);
    return normalize_case(l, set, 60, 2, BENCH_RATE, false, 0, 0) &&
           normalize_case(l, set, 360, 2, BENCH_RATE, false, 0, 0) &&
           normalize_case(l, set, 20, 1, BENCH_RATE, true, 1024, 31);
}

static bool io_grid(bench_case_list *l, const char *set, bool quick)
{
    return io_cases(l, set, quick ? QUICK_WIDTH : 4096, quick ? QUICK_HEIGHT : 2304);
}

/* ---- the named sets ---- */

static bool set_kernel_size(bench_case_list *l, const char *set)
{
    static const int sizes[] = {3, 9, 17, 33, 63, 121};
    static const char *const kinds[] = {"box", "gaussian"};
    for (size_t k = 0; k < 2; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            char kernel[32];
            snprintf(kernel, sizeof kernel, "%s:%d", kinds[k], sizes[s]);
            if (!filter_group(l, set, kernel, 1000, 1000, gpu_strategies, GPU_STRATEGY_COUNT))
                return false;
        }
    return true;
}

static bool set_image_size(bench_case_list *l, const char *set)
{
    static const int dims[][2] = {{100, 100},     {100, 1000},     {1000, 1000},
                                  {1000, 10000}, {10000, 10000}, {10000, 100000}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
        if (!filter_group(l, set, "box:11", dims[i][0], dims[i][1], NULL, 0)) return false;
    return true;
}

static bool set_block_size(bench_case_list *l, const char *set)
{
    static const char *const kernels[] = {"box:3", "gaussian:3", "edge", "emboss", "sharpen"};
    static const int dims[][2] = {
        {100, 100}, {512, 512}, {1280, 720}, {4096, 2304}, {10000, 6000}};
    static const int blocks[] = {8, 16, 32};
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
        for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
            if (!filter_case(l, set, kernels[k], dims[d][0], dims[d][1], FX_STRATEGY_AUTO, 0))
                return false;
            for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
                if (!filter_case(l, set, kernels[k], dims[d][0], dims[d][1],
                                 FX_STRATEGY_GPU_GLOBAL, blocks[b]))
                    return false;
        }
    return true;
}

static bool set_resolutions(bench_case_list *l, const char *set)
{
    static const int dims[][2] = {{640, 480},   {800, 600},   {1024, 768},  {1920, 1080},
                                  {2560, 1440}, {3840, 2160}, {7680, 4320}, {10240, 4320}};
    static const char *const kernels[] = {"gaussian:3", "sharpen"};
    static const fx_filter_strategy strategies[] = {FX_STRATEGY_GPU_GLOBAL, FX_STRATEGY_GPU_SHARED,
                                                    FX_STRATEGY_GPU_TEXTURE};
    for (size_t k = 0; k < 2; k++)
        for (size_t d = 0; d < sizeof dims / sizeof *dims; d++)
            if (!filter_group(l, set, kernels[k], dims[d][0], dims[d][1], strategies, 3))
                return false;
    return true;
}

static bool set_hsv_grid(bench_case_list *l, const char *set)
{
    static const int dims[][2] = {{512, 512}, {1920, 1080}, {4096, 2304}, {10000, 6000}};
    static const int blocks[] = {64, 128, 256, 512, 1024};
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
        if (!equalize_case(l, set, dims[d][0], dims[d][1], 3, FX_EQ_SPACE_HSV_FLOAT, 0, 0))
            return false;
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
            if (!equalize_case(l, set, dims[d][0], dims[d][1], 3, FX_EQ_SPACE_HSV_FLOAT, 0,
                               blocks[b]))
                return false;
    }
    return true;
}

static bool set_danpi(bench_case_list *l, const char *set)
{
    static const double seconds[] = {10, 20, 60, 360};
    static const int frames[] = {2, 32, 1024};
    static const int widths[] = {31, 101}; /* the preset's half-width 15, and 50 */
    for (size_t s = 0; s < sizeof seconds / sizeof *seconds; s++)
        for (size_t f = 0; f < sizeof frames / sizeof *frames; f++) {
            if (seconds[s] * BENCH_RATE / frames[f] > DANPI_MAX_FRAMES) continue;
            for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
                if (!normalize_case(l, set, seconds[s], 1, BENCH_RATE, true, frames[f], widths[w]))
                    return false;
        }
    return true;
}

static bool set_smoke(bench_case_list *l, const char *set)
{
    return filter_case(l, set, "box:3", 64, 48, FX_STRATEGY_AUTO, 0) &&
           filter_case(l, set, "gaussian:5", 64, 48, FX_STRATEGY_AUTO, 0) &&
           filter_case(l, set, "sharpen", 64, 48, FX_STRATEGY_AUTO, 0) &&
           filter_case(l, set, "box:3", 64, 48, FX_STRATEGY_GPU_SHARED, 0) &&
           equalize_case(l, set, 64, 48, 1, FX_EQ_SPACE_GRAY, 0, 0) &&
           equalize_case(l, set, 64, 48, 3, FX_EQ_SPACE_HSV, 0, 0) &&
           normalize_case(l, set, SMOKE_SECONDS, 1, SMOKE_RATE, false, 0, 0) &&
           io_cases(l, set, 64, 48);
}

typedef bool (*set_builder)(bench_case_list *l, const char *set);
static const set_builder set_builders[] = {set_kernel_size, set_image_size, set_block_size,
                                           set_resolutions, set_hsv_grid,   set_danpi,
                                           set_smoke};

typedef bool (*grid_builder)(bench_case_list *l, const char *set, bool quick);
static const grid_builder grid_builders[BENCH_JOB_COUNT] = {filter_grid, equalize_grid,
                                                            normalize_grid, io_grid};

bool bench_sets_build(const bench_config *cfg, bench_case_list *list, char *err, size_t size)
{
    if (cfg->set) {
        for (size_t s = 0; bench_set_names[s]; s++)
            if (!strcmp(cfg->set, bench_set_names[s])) {
                if (set_builders[s](list, bench_set_names[s])) return true;
                snprintf(err, size, "out of memory");
                return false;
            }
        snprintf(err, size, "unknown set '%s'", cfg->set);
        return false;
    }
    const char *set = cfg->quick ? "quick" : "default";
    for (int j = 0; j < BENCH_JOB_COUNT; j++)
        if ((cfg->jobs & (1u << j)) && !grid_builders[j](list, set, cfg->quick)) {
            snprintf(err, size, "out of memory");
            return false;
        }
    return true;
}

void bench_case_list_free(bench_case_list *list)
{
    free(list->cases);
    memset(list, 0, sizeof *list);
}

uint64_t bench_case_bytes(const bench_case *c)
{
    if (c->job == BENCH_NORMALIZE)
        return (uint64_t)c->width * (uint64_t)c->channels * sizeof(double) * 3;
    /* input, output and the CPU result kept for the GPU's comparison */
    return (uint64_t)c->width * (uint64_t)c->height * (uint64_t)c->channels * 3;
}
