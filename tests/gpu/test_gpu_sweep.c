/* The GPU filter swept over the space where launch geometry breaks: kernel sizes 1…255
 * (odd and even, square and not), images from 1x1, 1xN and Nx1 through odd sizes (and,
 * in the full mode, up to 10000x6000), 1-4 channels, u8/u16/f32, every border, every GPU
 * strategy and block size, whole and in forced bands, on host and device images. Each
 * case must give the CPU's bytes (fft: within its documented rounding) or be refused
 * with FX_EUNSUPPORTED (taps beyond constant or shared memory); a launch failure, a
 * crash or a difference is reported with the whole case, so it can be replayed.
 *
 * Modes: the default is a quick sample (tests/gpu/check.sh runs it with the other GPU
 * tests); FXKIT_SWEEP=full takes every case of the grid below and the large images
 * (minutes on the H200); FXKIT_SWEEP=smoke a quarter of the quick sample (the CPU-only
 * check in make test, which also runs under the sanitizers). FXKIT_SWEEP_SELF=1 runs both sides on the CPU (GPU-only
 * strategies as direct): a check of the sweep itself on a machine without a GPU.
 * FXKIT_SWEEP_CASE=N runs case N alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"

/* The quick mode takes every QUICK_STRIDE-th case of the grid (and the pinned cases);
 * smoke every SMOKE_STRIDE-th. */
#define QUICK_STRIDE 37
#define SMOKE_STRIDE (4 * QUICK_STRIDE)
/* Dense (not separable) kernels run direct on the CPU reference: at most this many taps
 * times output samples, so that the reference stays within seconds. */
#define DENSE_WORK_MAX 4e8
/* fft results: floats within this times L1(weights), integers within 1. */
#define FFT_FLOAT_REL_TOL 1e-5

typedef enum family { GAUSSIAN, BOX, DENSE, FAMILY_COUNT } family;

typedef struct sweep_case {
    family fam;
    int kw, kh;
    int w, h, channels;
    fx_sample_type type;
    fx_border border;
    fx_filter_strategy strategy;
    int block;      /* gpu-* variants: 8, 16, 32 */
    int memory_mib; /* 0, or a small cap that forces bands */
} sweep_case;

static const int kernel_sizes[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 61, 64, 121, 127, 255};
#define KERNEL_SIZE_COUNT (int)(sizeof kernel_sizes / sizeof *kernel_sizes)
typedef struct shape {
    int w, h;
} shape;
static const shape small_shapes[] = {{1, 1},   {1, 77},   {77, 1},   {2, 3},    {3, 2},
                                     {63, 65}, {257, 129}, {451, 300}, {1000, 7}, {7, 1000}};
#define SMALL_SHAPE_COUNT (int)(sizeof small_shapes / sizeof *small_shapes)
static const shape large_shapes[] = {{4096, 2304}, {10000, 6000}};
static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};
static const fx_filter_strategy strategies[] = {
    FX_STRATEGY_AUTO,       FX_STRATEGY_DIRECT,       FX_STRATEGY_SEPARABLE,
    FX_STRATEGY_BOX,        FX_STRATEGY_FFT,          FX_STRATEGY_GPU_GLOBAL,
    FX_STRATEGY_GPU_CONSTANT, FX_STRATEGY_GPU_SHARED, FX_STRATEGY_GPU_TEXTURE};
#define STRATEGY_COUNT (int)(sizeof strategies / sizeof *strategies)
static const int blocks[] = {8, 16, 32};

static bool self_mode(void)
{
    const char *s = getenv("FXKIT_SWEEP_SELF");
    return s && !strcmp(s, "1");
}

static bool is_variant(fx_filter_strategy s)
{
    return s >= FX_STRATEGY_GPU_GLOBAL;
}

/* The n-th case of the grid, mixed so that neighbouring n differ in every dimension.
 * False when the case does not apply (a strategy the kernel cannot take, or a CPU
 * reference too slow to be worth it). */
static bool case_of(uint64_t n, bool large, sweep_case *c)
{
    uint64_t seed = n * 0x9E3779B97F4A7C15ull + 1;
    memset(c, 0, sizeof *c);
    c->fam = (family)(fxt_rand(&seed) % FAMILY_COUNT);
    c->kw = kernel_sizes[fxt_rand(&seed) % KERNEL_SIZE_COUNT];
    c->kh = fxt_rand(&seed) % 3 ? c->kw : kernel_sizes[fxt_rand(&seed) % KERNEL_SIZE_COUNT];
    if (c->fam == GAUSSIAN) { /* presets are odd and square */
        c->kw |= 1;
        c->kh = c->kw;
    }
    const shape s = large ? large_shapes[fxt_rand(&seed) % 2]
                          : small_shapes[fxt_rand(&seed) % SMALL_SHAPE_COUNT];
    c->w = s.w;
    c->h = s.h;
    c->channels = 1 + (int)(fxt_rand(&seed) % 4);
    c->type = types[fxt_rand(&seed) % 3];
    c->border = (fx_border)(fxt_rand(&seed) % 5);
    c->strategy = strategies[fxt_rand(&seed) % STRATEGY_COUNT];
    c->block = blocks[fxt_rand(&seed) % 3];
    c->memory_mib = fxt_rand(&seed) % 4 == 0 ? 1 : 0;
    if (c->strategy == FX_STRATEGY_BOX && c->fam != BOX) return false;
    if (c->strategy == FX_STRATEGY_SEPARABLE && c->fam == DENSE) return false;
    const double taps = (double)c->kw * c->kh;
    const double samples = (double)c->w * c->h * c->channels;
    /* The CPU side of a direct plan or of a GPU variant runs direct (dense kernels under
     * auto too, below the fft's 400 taps). */
    const bool direct_ref = is_variant(c->strategy) || c->strategy == FX_STRATEGY_DIRECT ||
                            (c->fam == DENSE && c->strategy == FX_STRATEGY_AUTO && taps < 400);
    if (direct_ref && taps * samples > DENSE_WORK_MAX) return false;
    /* Large images: kernels whose CPU reference stays within seconds. */
    if (large && c->fam != BOX && c->kw + c->kh > 2 * 31) return false;
    return true;
}

static void case_text(const sweep_case *c, char *buf, size_t size)
{
    static const char *const families[] = {"gaussian", "box", "dense"};
    static const char *const borders[] = {"reflect101", "replicate", "reflect", "constant",
                                          "wrap"};
    snprintf(buf, size, "%s %dx%d on %dx%dx%d %s, border %s, strategy %s, block %d, memory %d MiB",
             families[c->fam], c->kw, c->kh, c->w, c->h, c->channels, fx_sample_type_name(c->type),
             borders[c->border], fx_filter_strategy_name(c->strategy), c->block, c->memory_mib);
}

static fx_status make_kernel(fx_context *ctx, const sweep_case *c, fx_kernel **out)
{
    char spec[64];
    if (c->fam == GAUSSIAN) {
        snprintf(spec, sizeof spec, "gaussian:%d", c->kw);
        return fx_kernel_preset(ctx, spec, out);
    }
    if (c->fam == BOX) {
        snprintf(spec, sizeof spec, "box:%dx%d", c->kw, c->kh);
        return fx_kernel_preset(ctx, spec, out);
    }
    /* Dense: small integers (some negative) over their sum, seeded by the size. */
    const size_t n = (size_t)c->kw * (size_t)c->kh;
    double *w = malloc(n * sizeof *w), sum = 0;
    if (!w) return FX_ENOMEM;
    uint64_t seed = (uint64_t)c->kw * 1000003u + (uint64_t)c->kh;
    for (size_t i = 0; i < n; i++) {
        w[i] = (double)(fxt_rand(&seed) % 9) - 2;
        sum += w[i];
    }
    if (sum <= 0) {
        w[n / 2] += 1 - sum;
        sum = 1;
    }
    for (size_t i = 0; i < n; i++)
        w[i] /= sum;
    fx_status st = fx_kernel_create(ctx, c->kw, c->kh, w, out);
    free(w);
    return st;
}

/* 0 when equal within the tolerance (exact, or fft's rounding); else the largest
 * difference (> 0). */
static double difference(bool fft, const fx_image *want, const fx_image *got, double l1)
{
    const size_t n = (size_t)want->width * (size_t)want->channels;
    double worst = 0;
    for (int y = 0; y < want->height; y++)
        for (size_t i = 0; i < n; i++) {
            const double a = fxt_value_at(want, y, (int64_t)i),
                         b = fxt_value_at(got, y, (int64_t)i), d = fabs(a - b);
            if (d > worst) worst = d;
        }
    if (!fft) return worst;
    if (want->type == FX_F32) return worst <= FFT_FLOAT_REL_TOL * l1 ? 0 : worst;
    /* integers: within 1 (docs/ALGORITHMS.md). Not "almost all exact": kernels whose
     * exact sums land on rounding ties (box 2x2, gaussian 3x3: a quarter of the samples)
     * round either way on float noise, and cuFFT's noise is not FFTW's. */
    return worst <= 1 ? 0 : worst;
}

static double weights_l1(fx_context *ctx, const fx_kernel *k, fx_sample_type type)
{
    const size_t n = (size_t)fx_kernel_width(k) * (size_t)fx_kernel_height(k);
    double *w = malloc(n * sizeof *w), offset, l1 = 0;
    if (w && fx_kernel_weights(ctx, k, type, w, &offset) == FX_OK)
        for (size_t i = 0; i < n; i++)
            l1 += fabs(w[i]);
    free(w);
    return l1;
}

static fx_status plan(fx_context *ctx, const fx_kernel *k, const sweep_case *c,
                      fx_filter_strategy s, fx_filter_plan **out)
{
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = s;
    o.border = c->border;
    o.border_value = c->type == FX_F32 ? "0.25" : "7";
    o.gpu_block = c->block;
    o.gpu_memory_mib = c->memory_mib;
    const fx_image_desc d = {c->w, c->h, c->channels, c->type};
    return fx_filter_plan_create(ctx, k, &o, &d, out);
}

typedef enum outcome { SAME, REFUSED, WRONG } outcome;

/* One case: the CPU's bytes against the other side's, from host and device images. */
static outcome run_case(fx_context *cpu, fx_context *gpu, uint64_t n, const sweep_case *c)
{
    char text[256];
    case_text(c, text, sizeof text);
    fx_kernel *k = NULL;
    fx_filter_plan *cp = NULL, *gp = NULL;
    fx_image in = {0}, want = {0}, got = {0}, din = {0}, dout = {0};
    outcome result = WRONG;
    const bool self = self_mode();
    const fx_filter_strategy ref = is_variant(c->strategy) ? FX_STRATEGY_DIRECT : c->strategy;
    const fx_filter_strategy other = self && is_variant(c->strategy) ? FX_STRATEGY_DIRECT
                                                                      : c->strategy;
    const char *stage = "kernel";
    if (make_kernel(cpu, c, &k) != FX_OK) goto report;
    stage = "CPU plan";
    fx_status st = plan(cpu, k, c, ref, &cp);
    if (st == FX_EUNSUPPORTED || st == FX_ERANGE) { /* e.g. fft without FFTW, a huge sum */
        result = REFUSED;
        goto done;
    }
    if (st != FX_OK) goto report;
    stage = "GPU plan";
    st = plan(gpu, k, c, other, &gp);
    /* documented limits: taps beyond constant memory …, and a --gpu-memory cap smaller
     * than one fft tile (auto too: falling back to direct would give other bytes than
     * the CPU's fft) */
    if (st == FX_EUNSUPPORTED || (st == FX_ENOMEM && c->memory_mib > 0)) {
        result = REFUSED;
        goto done;
    }
    if (st != FX_OK) goto report;
    stage = "images";
    in = gpu_padded_image(c->w, c->h, c->channels, c->type, (size_t)(n % 3) * 4);
    want = gpu_padded_image(c->w, c->h, c->channels, c->type, 0);
    got = gpu_padded_image(c->w, c->h, c->channels, c->type, 8);
    if (!in.data || !want.data || !got.data) goto report;
    gpu_fill_random(&in, n + 17);
    stage = "CPU run";
    if (fx_filter_run(cp, &in, &want, NULL) != FX_OK) goto report;
    stage = "GPU run (host images)";
    st = fx_filter_run(gp, &in, &got, NULL);
    if (st == FX_ENOMEM && c->memory_mib > 0) { /* the cap holds not one band: documented */
        result = REFUSED;
        goto done;
    }
    if (st != FX_OK) goto report;
    const double l1 = weights_l1(cpu, k, c->type);
    /* auto may plan fft (dense kernels of 400 taps and more) on both sides */
    const bool fft = fx_filter_plan_strategy(cp) == FX_STRATEGY_FFT;
    double d = difference(fft, &want, &got, l1);
    if (d != 0) {
        fprintf(stderr, "  case %llu: %s: host run differs by %g\n", (unsigned long long)n, text, d);
        goto done;
    }
    if (!self) {
        stage = "device images";
        if (fx_image_alloc_device(gpu, &din, c->w, c->h, c->channels, c->type) != FX_OK ||
            fx_image_alloc_device(gpu, &dout, c->w, c->h, c->channels, c->type) != FX_OK ||
            fx_image_upload(gpu, &in, &din) != FX_OK)
            goto report;
        stage = "GPU run (device images)";
        st = fx_filter_run(gp, &din, &dout, NULL);
        if (st != FX_EUNSUPPORTED) { /* gpu-texture beyond one texture: documented */
            if (st != FX_OK || fx_image_download(gpu, &dout, &got) != FX_OK) goto report;
            d = difference(fft, &want, &got, l1);
            if (d != 0) {
                fprintf(stderr, "  case %llu: %s: device run differs by %g\n",
                        (unsigned long long)n, text, d);
                goto done;
            }
        }
    }
    result = SAME;
    goto done;
report:
    fprintf(stderr, "  case %llu: %s: %s failed: %s\n", (unsigned long long)n, text, stage,
            fx_context_error(stage[0] == 'C' || stage[0] == 'k' ? cpu : gpu));
done:
    fx_image_free(&din);
    fx_image_free(&dout);
    free(in.data);
    free(want.data);
    free(got.data);
    fx_filter_plan_free(cp);
    fx_filter_plan_free(gp);
    fx_kernel_free(k);
    fx_context_clear_error(cpu);
    fx_context_clear_error(gpu);
    return result;
}

/* The cases named in issues, run in every mode before the grid. */
static const sweep_case pinned[] = {
    /* "launch of kernel filter separable (ring) failed" on a 451x300 RGB photo */
    {GAUSSIAN, 61, 61, 451, 300, 3, FX_U8, FX_BORDER_CONSTANT, FX_STRATEGY_AUTO, 16, 0},
    {GAUSSIAN, 61, 61, 451, 300, 3, FX_U8, FX_BORDER_CONSTANT, FX_STRATEGY_SEPARABLE, 16, 1},
    {GAUSSIAN, 255, 255, 300, 451, 4, FX_U16, FX_BORDER_CONSTANT, FX_STRATEGY_AUTO, 16, 0},
    {BOX, 255, 1, 1, 77, 1, FX_F32, FX_BORDER_WRAP, FX_STRATEGY_AUTO, 16, 0},
};
#define PINNED_COUNT (int)(sizeof pinned / sizeof *pinned)

FXT_TEST(gpu_matches_cpu_over_the_sweep)
{
    const char *mode = getenv("FXKIT_SWEEP");
    const bool full = mode && !strcmp(mode, "full");
    const bool smoke = mode && !strcmp(mode, "smoke");
    const uint64_t stride = smoke ? SMOKE_STRIDE : QUICK_STRIDE;
    const char *only = getenv("FXKIT_SWEEP_CASE");
    const bool self = self_mode();
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0);
    fx_context *gpu = self ? fxt_context(FX_DEVICE_CPU, 0) : fxt_context(FX_DEVICE_GPU, 0);
    /* The grid: every combination is reached by some n below GRID_CASES. */
    const uint64_t grid = full ? 20000 : 20000 / stride;
    int same = 0, refused = 0, wrong = 0, skipped = 0;
    for (int i = 0; i < PINNED_COUNT && !only; i++) {
        outcome o = run_case(cpu, gpu, 1000000 + (uint64_t)i, &pinned[i]);
        same += o == SAME, refused += o == REFUSED, wrong += o == WRONG;
    }
    for (uint64_t i = 0; i < grid; i++) {
        const uint64_t n = only ? strtoull(only, NULL, 10) : full ? i : i * stride;
        sweep_case c;
        if (!case_of(n, false, &c)) {
            skipped++;
        } else {
            outcome o = run_case(cpu, gpu, n, &c);
            same += o == SAME, refused += o == REFUSED, wrong += o == WRONG;
        }
        if (only) break;
    }
    /* The large images: fast strategies only (case_of leaves out slow references). */
    const uint64_t large = full ? 200 : 0;
    for (uint64_t i = 0; i < large && !only; i++) {
        sweep_case c;
        if (!case_of(500000 + i, true, &c)) {
            skipped++;
            continue;
        }
        outcome o = run_case(cpu, gpu, 500000 + i, &c);
        same += o == SAME, refused += o == REFUSED, wrong += o == WRONG;
    }
    fprintf(stderr, "  sweep (%s%s): %d same, %d refused (documented limits), %d wrong, %d not applicable\n",
            full ? "full" : smoke ? "smoke" : "quick", self ? ", both sides on the CPU" : "", same, refused, wrong,
            skipped);
    FXT_CHECK_EQ(wrong, 0);
    FXT_CHECK(same > 0);
    fx_context_destroy(cpu);
    fx_context_destroy(gpu);
}

/* The 8-bit fast path (src/filter/gpu_u8.cu) under auto: every border against every
 * fused and two-pass kernel size (gaussian and box, square and not, even and odd, up to
 * 255), 1-4 channels (2 and 4 keep their alpha), the small shapes, and the bench's
 * workloads on a 4096x2304 RGB image. Quick: one shape and channel count per kernel and
 * border (rotating); full: every one. */
typedef struct fast_kernel {
    family fam;
    int kw, kh;
} fast_kernel;
static const fast_kernel fast_kernels[] = {
    {GAUSSIAN, 1, 1},   {GAUSSIAN, 3, 3},   {GAUSSIAN, 5, 5},     {GAUSSIAN, 7, 7},
    {GAUSSIAN, 15, 15}, {GAUSSIAN, 17, 17}, {GAUSSIAN, 31, 31},   {GAUSSIAN, 61, 61},
    {GAUSSIAN, 121, 121}, {GAUSSIAN, 255, 255}, {BOX, 2, 2},      {BOX, 3, 3},
    {BOX, 5, 5},
    {BOX, 4, 1},        {BOX, 1, 5},        {BOX, 8, 8},          {BOX, 15, 15},
    {BOX, 16, 16},      {BOX, 17, 3},       {BOX, 3, 17},         {BOX, 31, 31},
    {BOX, 32, 32},      {BOX, 33, 7},       {BOX, 64, 5},         {BOX, 61, 61},
    {BOX, 121, 121},    {BOX, 255, 1},      {BOX, 1, 255},        {BOX, 255, 255}};
#define FAST_KERNEL_COUNT (int)(sizeof fast_kernels / sizeof *fast_kernels)

FXT_TEST(gpu_u8_fast_path_matches_cpu)
{
    const char *mode = getenv("FXKIT_SWEEP");
    const bool full = mode && !strcmp(mode, "full");
    const bool smoke = mode && !strcmp(mode, "smoke");
    const bool self = self_mode();
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0);
    fx_context *gpu = self ? fxt_context(FX_DEVICE_CPU, 0) : fxt_context(FX_DEVICE_GPU, 0);
    int same = 0, refused = 0, wrong = 0;
    uint64_t n = 2000000;
    for (int k = 0; k < FAST_KERNEL_COUNT; k++)
        for (int b = 0; b < 5; b++) {
            if (smoke && (k + b) % 4) continue;
            const int shapes = full ? SMALL_SHAPE_COUNT : 1, channel_counts = full ? 4 : 1;
            for (int si = 0; si < shapes; si++)
                for (int ci = 0; ci < channel_counts; ci++) {
                    const shape sh = small_shapes[full ? si : (k * 5 + b) % SMALL_SHAPE_COUNT];
                    sweep_case c = {fast_kernels[k].fam, fast_kernels[k].kw, fast_kernels[k].kh,
                                    sh.w, sh.h, full ? 1 + ci : 1 + (k + b) % 4, FX_U8,
                                    (fx_border)b, FX_STRATEGY_AUTO, 16, 0};
                    outcome o = run_case(cpu, gpu, n++, &c);
                    same += o == SAME, refused += o == REFUSED, wrong += o == WRONG;
                }
        }
    /* the bench's workloads, smaller (the CPU reference stays within seconds) */
    static const fast_kernel bench[] = {
        {GAUSSIAN, 3, 3}, {BOX, 3, 3}, {GAUSSIAN, 121, 121}, {BOX, 121, 121}};
    for (int k = 0; k < 4 && !smoke; k++)
        for (int b = 0; b < 5; b += full ? 1 : 3) {
            sweep_case c = {bench[k].fam, bench[k].kw, bench[k].kh, 4096, 2304, 3, FX_U8,
                            (fx_border)b, FX_STRATEGY_AUTO, 16, 0};
            outcome o = run_case(cpu, gpu, n++, &c);
            same += o == SAME, refused += o == REFUSED, wrong += o == WRONG;
        }
    fprintf(stderr, "  8-bit fast path: %d same, %d refused, %d wrong\n", same, refused, wrong);
    FXT_CHECK_EQ(wrong, 0);
    FXT_CHECK_EQ(refused, 0);
    fx_context_destroy(cpu);
    fx_context_destroy(gpu);
}

int main(int argc, char **argv)
{
    if (!self_mode()) gpu_require();
    static const fxt_case cases[] = {FXT_CASE(gpu_matches_cpu_over_the_sweep),
                                     FXT_CASE(gpu_u8_fast_path_matches_cpu)};
    return fxt_run(argc, argv, cases, sizeof cases / sizeof *cases);
}
