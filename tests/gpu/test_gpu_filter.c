/* GPU filter against the CPU's bytes: every GPU strategy and block size, awkward
 * sizes, every border, 1-4 channels, 8/16-bit and float, host images (streamed in
 * bands) and device images; banding forced by a tiny --gpu-memory gives the bytes of one
 * pass; device-image round trips; errors and out of memory reported, not crashed. */
#include <math.h>

#include "filter/gpu_fft_geometry.h"
#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA

typedef struct shape {
    int w, h;
} shape;
static const shape shapes[] = {{1, 1}, {1, 37}, {37, 1}, {61, 29}, {130, 70}, {7, 300}};
#define SHAPE_COUNT 6
static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};

/* fft (float transforms): float outputs within this times L1(weights) times the largest
 * sample (1 here) of the exact result, as the CPU fft's tests (test_filter_fft.c). */
#define FFT_FLOAT_REL_TOL 1e-5

/* Same samples; with `tol`, integer samples within 1 and float within 1e-5 (relative),
 * or, with tol = TOL_FFT, within float_abs. */
enum { TOL_EXACT = 0, TOL_ONE = 1, TOL_FFT = 2 };

/* fft on integer images: most samples equal the exact rounding (a bias or tile error that
 * stays within 1 unit still shows here), as the CPU fft's tests require. */
#define FFT_MIN_IDENTICAL_U8 0.999
#define FFT_MIN_IDENTICAL_U16 0.99
static long long fft_samples[2], fft_identical[2]; /* [u16?] over TOL_FFT comparisons */

static int fft_mostly_identical(void)
{
    fprintf(stderr,
            "  fft identical to the exact result: 8-bit %lld of %lld, 16-bit %lld of %lld\n",
            fft_identical[0], fft_samples[0], fft_identical[1], fft_samples[1]);
    int ok = fft_identical[0] >= FFT_MIN_IDENTICAL_U8 * (double)fft_samples[0] &&
             fft_identical[1] >= FFT_MIN_IDENTICAL_U16 * (double)fft_samples[1];
    memset(fft_samples, 0, sizeof fft_samples);
    memset(fft_identical, 0, sizeof fft_identical);
    return ok;
}
static int images_close(const fx_image *a, const fx_image *b, int tol, double float_abs)
{
    if (!tol) return fxt_images_equal(a, b);
    size_t n = (size_t)a->width * (size_t)a->channels;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *ra = fx_image_row(a, y), *rb = fx_image_row(b, y);
        for (size_t i = 0; i < n; i++) {
            double va, vb;
            switch (a->type) {
            case FX_U8: va = ra[i], vb = rb[i]; break;
            case FX_U16:
                va = ((const uint16_t *)(const void *)ra)[i];
                vb = ((const uint16_t *)(const void *)rb)[i];
                break;
            default:
                va = ((const float *)(const void *)ra)[i];
                vb = ((const float *)(const void *)rb)[i];
                break;
            }
            double lim = a->type != FX_F32 ? 1
                         : tol == TOL_FFT  ? float_abs
                                           : 1e-5 * (fabs(va) > 1 ? fabs(va) : 1);
            if (tol == TOL_FFT && a->type != FX_F32) {
                fft_samples[a->type == FX_U16]++;
                fft_identical[a->type == FX_U16] += va == vb;
            }
            if (!(fabs(va - vb) <= lim)) return 0;
        }
    }
    return 1;
}

typedef struct kspec {
    const char *text;
    double scale;
    const char *anchor;
} kspec;

/* Sum of |weights| of a kernel as applied (scale included): fft tolerances. */
static double kernel_l1(fx_context *ctx, const kspec *k, fx_sample_type type)
{
    fx_kernel *kernel = NULL;
    double l1 = 0, offset;
    if (fx_kernel_parse(ctx, k->text, &kernel) != FX_OK) return 0;
    const size_t n = (size_t)fx_kernel_width(kernel) * (size_t)fx_kernel_height(kernel);
    double *w = malloc(n * sizeof *w);
    if (w && fx_kernel_weights(ctx, kernel, type, w, &offset) == FX_OK)
        for (size_t i = 0; i < n; i++)
            l1 += fabs(w[i]);
    free(w);
    fx_kernel_free(kernel);
    return l1 * fabs(k->scale);
}

/* Non-separable, exact and float, with zeros, anchors, offsets, larger than images. */
static const kspec generic_kernels[] = {
    {"sharpen", 1, NULL},
    {"0.11 -0.3 0.7 0; 0.2 0.5 0.01 -0.02", 1, "3,0"},
    {"1000000 1; 1 1 / 1000003", 1, NULL}, /* int64 sums on 16-bit images */
    {"emboss", 1, NULL},
    {"box:45x3", 0.37, NULL}, /* float weights, wider than most images */
    {"1 0 2 0 1; 0 0 0 0 0; 3 0 -1 0 2; 1 1 1 1 1; 0 0 0 0 9 / 21", 1, "1,4"},
    {"box:20x15", 1, NULL}, /* cv2.blur's float rule, double in each row's last W % 8 */
};
static const kspec separable_kernels[] = {
    {"gaussian:5", 1, NULL},  {"gaussian:9:2.0", 1, NULL}, {"0.1 0.3 0.2 0 0.25", 1, "4,0"},
    {"gaussian:41", 1, NULL}, {"box:3x7", 1, NULL},        {"box:26x14", 1, NULL},
};
/* box:4x5 scaled: float weights, double sums; box:17x16: cv2.blur's float rule and its
 * row tail's double rule (by element index); box:182x181: on 16-bit, its double sums. */
static const kspec box_kernels[] = {
    {"box:5", 1, NULL},     {"box:3x7", 1, "0,6"},  {"box:45", 1, NULL},
    {"box:4x5", 0.3, NULL}, {"box:17x16", 1, NULL}, {"box:182x181", 1, NULL},
};

/* fft: non-separable, float and exact, anchors, offsets (emboss), larger than most
 * images (45x3), 1xN and Nx1; compared with the CPU's exact direct result. */
static const kspec fft_kernels[] = {
    {"sharpen", 1, NULL},
    {"0.11 -0.3 0.7 0; 0.2 0.5 0.01 -0.02", 1, "3,0"},
    {"emboss", 1, NULL},
    {"box:45x3", 0.37, NULL},
    {"1 0 2 0 1; 0 0 0 0 0; 3 0 -1 0 2; 1 1 1 1 1; 0 0 0 0 9 / 21", 1, "1,4"},
    {"1 -2 3 4 5 -6 7 8 9 / 21", 1, "2,0"},
    {"1; 2; -3; 4; 5 / 9", 1, "0,3"},
};

typedef struct config {
    fx_filter_strategy gpu, cpu;
    int block;
    const kspec *kernels;
    int nkernels;
} config;

static fx_status plan_for(fx_context *ctx, const kspec *k, fx_filter_strategy s, int block,
                          int border, int alpha, const fx_image *img, int memory_mib,
                          fx_filter_plan **plan)
{
    fx_kernel *kernel = NULL;
    fx_status st = fx_kernel_parse(ctx, k->text, &kernel);
    if (st != FX_OK) return st;
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = s;
    o.border = border;
    o.border_value = img->type == FX_F32 ? "0.25" : "7";
    o.scale = k->scale;
    o.anchor = k->anchor;
    o.alpha = alpha;
    o.gpu_block = block;
    o.gpu_memory_mib = memory_mib;
    fx_image_desc d = fx_image_desc_of(img);
    st = fx_filter_plan_create(ctx, kernel, &o, &d, plan);
    fx_kernel_free(kernel);
    return st;
}

/* The CPU's answer; the GPU's from host images and from device images. */
static int compare_one(fx_context *cpu, fx_context *gpu, const config *c, const kspec *k,
                       const fx_image *in, int border, int alpha, int memory_mib, int tol,
                       int *skipped)
{
    fx_filter_plan *cp = NULL, *gp = NULL;
    if (plan_for(cpu, k, c->cpu, 0, border, alpha, in, 0, &cp) != FX_OK) {
        fprintf(stderr, "  CPU plan %s: %s\n", k->text, fx_context_error(cpu));
        return 0;
    }
    fx_status st = plan_for(gpu, k, c->gpu, c->block, border, alpha, in, memory_mib, &gp);
    if (st == FX_EUNSUPPORTED) { /* e.g. taps beyond constant or shared memory */
        fx_filter_plan_free(cp);
        (*skipped)++;
        return 1;
    }
    int ok = FXT_CHECK_OK(st, gpu);
    fx_image want = gpu_padded_image(in->width, in->height, in->channels, in->type, 0);
    fx_image got = gpu_padded_image(in->width, in->height, in->channels, in->type, 5);
    ok = ok && FXT_CHECK_OK(fx_filter_run(cp, in, &want, NULL), cpu);
    fx_timings t = {0};
    ok = ok && FXT_CHECK_OK(fx_filter_run(gp, in, &got, &t), gpu);
    const double float_abs = FFT_FLOAT_REL_TOL * kernel_l1(cpu, k, in->type);
    int host_ok = ok && images_close(&want, &got, tol, float_abs);
    /* device images: no transfer inside the run */
    fx_image din = {0}, dout = {0};
    int dev_ok =
        ok &&
        FXT_CHECK_OK(
            fx_image_alloc_device(gpu, &din, in->width, in->height, in->channels, in->type), gpu) &&
        FXT_CHECK_OK(
            fx_image_alloc_device(gpu, &dout, in->width, in->height, in->channels, in->type),
            gpu) &&
        FXT_CHECK_OK(fx_image_upload(gpu, in, &din), gpu);
    st = dev_ok ? fx_filter_run(gp, &din, &dout, NULL) : FX_OK;
    if (dev_ok && st == FX_EUNSUPPORTED) { /* gpu-texture beyond one texture: documented */
        dev_ok = 1;
    } else if (dev_ok) {
        memset(got.data, 0, got.stride * (size_t)got.height);
        dev_ok = FXT_CHECK_OK(st, gpu) && FXT_CHECK_OK(fx_image_download(gpu, &dout, &got), gpu) &&
                 images_close(&want, &got, tol, float_abs);
    }
    if (ok && (!host_ok || !dev_ok))
        fprintf(stderr, "  %s block %d kernel '%s' %dx%dx%d %s border %d alpha %d: %s differs\n",
                fx_filter_strategy_name(c->gpu), c->block, k->text, in->width, in->height,
                in->channels, fx_sample_type_name(in->type), border, alpha,
                !host_ok ? "host run" : "device run");
    fx_image_free(&din);
    fx_image_free(&dout);
    free(want.data);
    free(got.data);
    fx_filter_plan_free(cp);
    fx_filter_plan_free(gp);
    return ok && host_ok && dev_ok;
}

static int last_skipped; /* run_configs: cases not applicable in the last call */

static int run_configs(const config *configs, int count)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    int cases = 0, bad = 0, skipped = 0;
    for (int ci = 0; ci < count; ci++) {
        const config *c = &configs[ci];
        for (int k = 0; k < c->nkernels; k++)
            for (int t = 0; t < 3; t++)
                for (int ch = 1; ch <= 4; ch++) {
                    const int v = ci + k * 3 + t * 5 + ch;
                    const shape s = shapes[v % SHAPE_COUNT];
                    const int border = (v + ch) % 5, alpha = (v / 5) % 2;
                    fx_image in = gpu_padded_image(s.w, s.h, ch, types[t], (size_t)(v % 3) * 4);
                    gpu_fill_random(&in, (uint64_t)v * 7919 + (uint64_t)k);
                    /* box on float weights sums in double in another order than the CPU */
                    int tol = c->gpu == FX_STRATEGY_FFT                               ? TOL_FFT
                              : c->gpu == FX_STRATEGY_BOX && c->kernels[k].scale != 1 ? TOL_ONE
                                                                                      : TOL_EXACT;
                    cases++;
                    if (!compare_one(cpu, gpu, c, &c->kernels[k], &in, border, alpha, 0, tol,
                                     &skipped))
                        bad++;
                    free(in.data);
                }
    }
    fprintf(stderr, "  %d cases, %d differ, %d not applicable (EUNSUPPORTED)\n", cases, bad,
            skipped);
    last_skipped = skipped;
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
    return bad == 0;
}

#define GENERIC generic_kernels, (int)(sizeof generic_kernels / sizeof *generic_kernels)

FXT_TEST(published_variants_match_cpu)
{
    config configs[12];
    int n = 0;
    static const fx_filter_strategy variants[] = {FX_STRATEGY_GPU_GLOBAL, FX_STRATEGY_GPU_CONSTANT,
                                                  FX_STRATEGY_GPU_SHARED, FX_STRATEGY_GPU_TEXTURE};
    static const int blocks[] = {8, 16, 32};
    for (int v = 0; v < 4; v++)
        for (int b = 0; b < 3; b++)
            configs[n++] = (config){variants[v], FX_STRATEGY_DIRECT, blocks[b], GENERIC};
    FXT_CHECK(run_configs(configs, n));
}

FXT_TEST(direct_separable_box_match_cpu)
{
    const config configs[] = {
        {FX_STRATEGY_DIRECT, FX_STRATEGY_DIRECT, 0, GENERIC},
        {FX_STRATEGY_SEPARABLE, FX_STRATEGY_SEPARABLE, 0, separable_kernels,
         (int)(sizeof separable_kernels / sizeof *separable_kernels)},
        {FX_STRATEGY_BOX, FX_STRATEGY_BOX, 0, box_kernels,
         (int)(sizeof box_kernels / sizeof *box_kernels)},
        {FX_STRATEGY_AUTO, FX_STRATEGY_AUTO, 0, separable_kernels,
         (int)(sizeof separable_kernels / sizeof *separable_kernels)},
    };
    FXT_CHECK(run_configs(configs, 4));
}

/* A 1 MiB cap on wide images: many bands (down to a few rows) on 1 to 3 streams. */
FXT_TEST(banding_gives_the_bytes_of_one_pass)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    /* 6000 columns: a 1 MiB cap still holds a 5-row halo of 3-channel float rows (72 KB) */
    static const shape big[] = {{600, 500}, {6000, 40}, {3001, 257}};
    const config configs[] = {
        {FX_STRATEGY_DIRECT, FX_STRATEGY_DIRECT, 0, GENERIC},
        {FX_STRATEGY_SEPARABLE, FX_STRATEGY_SEPARABLE, 0, separable_kernels, 2},
        {FX_STRATEGY_BOX, FX_STRATEGY_BOX, 0, box_kernels, 3},
        {FX_STRATEGY_GPU_TEXTURE, FX_STRATEGY_DIRECT, 16, GENERIC},
        {FX_STRATEGY_GPU_SHARED, FX_STRATEGY_DIRECT, 32, GENERIC},
    };
    int skipped = 0, bad = 0;
    for (int ci = 0; ci < 5; ci++)
        for (int i = 0; i < 3; i++) {
            const int ch = 1 + (ci + i) % 4, k = (ci + i) % configs[ci].nkernels;
            fx_image in = gpu_padded_image(big[i].w, big[i].h, ch, types[(ci + i) % 3], 3);
            gpu_fill_random(&in, (uint64_t)(ci * 10 + i));
            if (!compare_one(cpu, gpu, &configs[ci], &configs[ci].kernels[k], &in, (ci + i) % 5, 0,
                             1, 0, &skipped))
                bad++;
            free(in.data);
        }
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* A file filtered in bands on the GPU (fx_filter_file): the band buffers come from the
 * pinned pool and go up and come down by DMA where they are (interior GPU bands) or
 * through staging (the image's top and bottom, whose border rows are made on the host),
 * decoded ahead on a reader thread and written from a writer thread; the bytes are the
 * CPU's. A small --gpu-memory cuts each stream band into several GPU bands. */
FXT_TEST(streamed_file_on_pinned_bands_matches_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    const char *dir = fxt_tmpdir("gpu_filter_pinned_bands");
    static const struct {
        const char *kernel, *name;
        int w, h, channels;
        fx_sample_type type;
        int band_rows, gpu_memory_mib;
        fx_border border;
    } cases[] = {
        {"gaussian:5", "a.ppm", 1000, 333, 3, FX_U8, 64, 0, FX_BORDER_REFLECT101},
        {"gaussian:5", "b.ppm", 1000, 333, 3, FX_U8, 50, 1, FX_BORDER_CONSTANT},
        {"box:7", "c.pgm", 513, 301, 1, FX_U16, 40, 1, FX_BORDER_REPLICATE},
        {"sharpen", "d.pfm", 257, 190, 3, FX_F32, 33, 1, FX_BORDER_REFLECT},
        {"gaussian:31", "e.ppm", 700, 260, 3, FX_U8, 31, 0, FX_BORDER_WRAP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char in_path[512], gpu_path[600], cpu_path[600];
        snprintf(in_path, sizeof in_path, "%s", fxt_path(dir, cases[i].name));
        snprintf(gpu_path, sizeof gpu_path, "%s.gpu.%s", in_path, cases[i].name + 2);
        snprintf(cpu_path, sizeof cpu_path, "%s.cpu.%s", in_path, cases[i].name + 2);
        fx_image in = gpu_padded_image(cases[i].w, cases[i].h, cases[i].channels, cases[i].type, 0);
        gpu_fill_random(&in, 70 + i);
        fx_kernel *k = NULL;
        fx_filter_options o;
        fx_filter_options_init(&o);
        o.border = cases[i].border;
        o.gpu_memory_mib = cases[i].gpu_memory_mib;
        fx_filter_stream_options so;
        fx_filter_stream_options_init(&so);
        so.band_rows = cases[i].band_rows;
        fx_filter_stream_result rg = {0}, rc = {0};
        fx_image want = {0}, got = {0};
        const bool ok =
            FXT_CHECK_OK(fx_image_write_file(cpu, in_path, &in, NULL), cpu) &&
            FXT_CHECK_OK(fx_kernel_parse(cpu, cases[i].kernel, &k), cpu) &&
            FXT_CHECK_OK(fx_filter_file(gpu, k, &o, &so, in_path, gpu_path, NULL, &rg, NULL), gpu) &&
            FXT_CHECK_OK(fx_filter_file(cpu, k, &o, &so, in_path, cpu_path, NULL, &rc, NULL), cpu) &&
            FXT_CHECK_OK(fx_image_read_file(cpu, gpu_path, &got), cpu) &&
            FXT_CHECK_OK(fx_image_read_file(cpu, cpu_path, &want), cpu);
        if (ok && !FXT_CHECK(fxt_images_equal(&want, &got)))
            printf("  %s on %s, %d-row bands: the GPU's bytes differ\n", cases[i].kernel,
                   cases[i].name, cases[i].band_rows);
        /* wrap is never banded: one pass, the same bytes */
        if (ok && cases[i].border != FX_BORDER_WRAP) FXT_CHECK(rg.band_rows < cases[i].h);
        fx_image_free(&want);
        fx_image_free(&got);
        fx_kernel_free(k);
        free(in.data);
    }
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* The library's bands on a GPU context (fx_filter_band_rows with rows 0): images above
 * FX_FILTER_STREAM_GPU_ABOVE_BYTES in bands of about FX_FILTER_STREAM_GPU_BAND_BYTES, above
 * FX_FILTER_STREAM_ABOVE_BYTES of about FX_FILTER_STREAM_BAND_BYTES, fft whole; and a file
 * just above the threshold, filtered in those bands, has the CPU's bytes. */
FXT_TEST(library_bands_on_a_gpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    fx_kernel *k = NULL;
    if (!FXT_CHECK_OK(fx_kernel_parse(cpu, "gaussian:31", &k), cpu)) goto done;
    const fx_image_desc small = {2000, 2000, 3, FX_U8}; /* 12 MB: whole */
    const fx_image_desc mid = {5000, 5000, 3, FX_U8};   /* 75 MB */
    const fx_image_desc big = {40000, 10000, 3, FX_U8}; /* 1.2 GB */
    FXT_CHECK_EQ(fx_filter_band_rows(gpu, k, NULL, &small, 0), 0);
    FXT_CHECK_EQ(fx_filter_band_rows(gpu, k, NULL, &mid, 0),
                 (int)(FX_FILTER_STREAM_GPU_BAND_BYTES / (5000 * 3)));
    FXT_CHECK_EQ(fx_filter_band_rows(gpu, k, NULL, &big, 0),
                 (int)(FX_FILTER_STREAM_BAND_BYTES / (40000 * 3)));
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_FFT;
    FXT_CHECK_EQ(fx_filter_band_rows(gpu, k, &o, &mid, 0), 0);
    fx_filter_options_init(&o);

    /* 2400 x 2400 RGB: 17.3 MB, just above the threshold */
    const char *dir = fxt_tmpdir("gpu_filter_library_bands");
    char in_path[512], gpu_path[600], cpu_path[600];
    snprintf(in_path, sizeof in_path, "%s", fxt_path(dir, "in.ppm"));
    snprintf(gpu_path, sizeof gpu_path, "%s.gpu.ppm", in_path);
    snprintf(cpu_path, sizeof cpu_path, "%s.cpu.ppm", in_path);
    fx_image in = gpu_padded_image(2400, 2400, 3, FX_U8, 0);
    gpu_fill_random(&in, 91);
    fx_filter_stream_result rg = {0}, rc = {0};
    fx_image want = {0}, got = {0};
    if (FXT_CHECK_OK(fx_image_write_file(cpu, in_path, &in, NULL), cpu) &&
        FXT_CHECK_OK(fx_filter_file(gpu, k, &o, NULL, in_path, gpu_path, NULL, &rg, NULL), gpu) &&
        FXT_CHECK_OK(fx_filter_file(cpu, k, &o, NULL, in_path, cpu_path, NULL, &rc, NULL), cpu) &&
        FXT_CHECK_OK(fx_image_read_file(cpu, gpu_path, &got), cpu) &&
        FXT_CHECK_OK(fx_image_read_file(cpu, cpu_path, &want), cpu)) {
        FXT_CHECK(fxt_images_equal(&want, &got));
        FXT_CHECK_EQ(rg.band_rows, (int)(FX_FILTER_STREAM_GPU_BAND_BYTES / (2400 * 3)));
    }
    fx_image_free(&want);
    fx_image_free(&got);
    free(in.data);
done:
    fx_kernel_free(k);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* One case of the 8-bit fast path against the CPU, exactly: a w x h x ch u8 image of
 * random samples (seed) with rows padded by pad bytes, through the box strategy for a
 * box:... kernel and the separable one otherwise. */
static bool u8_case_matches(fx_context *cpu, fx_context *gpu, const kspec *k, int w, int h, int ch,
                            size_t pad, uint64_t seed, int border, int alpha, int *skipped)
{
    const fx_filter_strategy s = k->text[0] == 'b' ? FX_STRATEGY_BOX : FX_STRATEGY_SEPARABLE;
    const config c = {s, s, 0, k, 1};
    fx_image in = gpu_padded_image(w, h, ch, FX_U8, pad);
    gpu_fill_random(&in, seed);
    const bool same = compare_one(cpu, gpu, &c, k, &in, border, alpha, 0, TOL_EXACT, skipped);
    free(in.data);
    return same;
}

/* The 8-bit fast path (src/filter/gpu_u8.cu) in each of its kernels: fused 3x3 (box and
 * Gaussian: the integer finish), 5x5 and any size, two-pass multiply-adds and box running
 * sums (cv2.blur's fixed point and its float rule), on images of several tiles and row
 * blocks, every border, 1-4 channels, alpha kept and filtered; host images (bands: the
 * fused kernel) and device images. Small enough to run under compute-sanitizer
 * (tests/gpu/check.sh). */
FXT_TEST(u8_fast_path_kernels_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const kspec kernels[] = {
        {"gaussian:3", 1, NULL}, {"box:3", 1, NULL},   {"gaussian:5", 1, NULL},
        {"gaussian:7", 1, NULL}, {"box:3x21", 1, NULL}, {"gaussian:31", 1, NULL},
        {"box:45", 1, "40,3"},
    };
    static const shape sizes[] = {{1300, 41}, {97, 130}, {5, 3}};
    const int count = (int)(sizeof kernels / sizeof *kernels);
    int bad = 0, skipped = 0;
    for (int k = 0; k < count; k++)
        for (int border = 0; border < 5; border++) {
            const int v = k * 5 + border, ch = 1 + v % 4;
            const shape sz = sizes[v % 3];
            if (!u8_case_matches(cpu, gpu, &kernels[k], sz.w, sz.h, ch, (size_t)(v % 3) * 4,
                                 (uint64_t)v * 104729 + 11, border, (v / 2) % 2, &skipped))
                bad++;
        }
    FXT_CHECK_EQ(bad, 0);
    FXT_CHECK_EQ(skipped, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* The fused walk four elements a thread (k_u8_walk4, gpu_u8.cu; eight for 3x3 where
 * FXI_GPU_U8_WALK3_ELEMENTS says so): rows of width * channels a multiple of 4 (its
 * aligned 32-bit loads and stores), so interior threads take the word path and threads at
 * the left and right edges, constant rows and images smaller than the kernel the
 * per-element border path; partial blocks (not a multiple of 1024 elements), several row
 * tiles, 1xN and Nx1, anchors off the centre, 1-4 channels with alpha filtered (and kept:
 * the one-element walk), every border. Rows of 4 mod 8 elements (an 8-element thread's
 * second word past the row) and a row of 8-element threads over two blocks, the second of
 * one thread (2052 x 1 channel). Host images (bands) and device images. */
FXT_TEST(u8_walk_four_elements_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const kspec kernels[] = {
        {"gaussian:3", 1, NULL}, {"box:3", 1, NULL},   {"gaussian:5", 1, NULL},
        {"box:5", 1, "4,0"},     {"box:3", 1, "0,2"},
    };
    static const shape sizes[] = {{4, 1},    {1, 37},     {12, 5}, {2, 3},     {260, 70},
                                  {1028, 9}, {1300, 130}, {8, 2},  {2052, 11}, {36, 33}};
    const int nk = (int)(sizeof kernels / sizeof *kernels);
    const int ns = (int)(sizeof sizes / sizeof *sizes);
    int bad = 0, skipped = 0, v = 0;
    for (int k = 0; k < nk; k++)
        for (int si = 0; si < ns; si++)
            for (int border = 0; border < 5; border++, v++) {
                /* every channel count on every kernel and size; alpha kept on a quarter */
                const int ch = 1 + (v + si) % 4, alpha = v % 4 == 3 ? 0 : 1;
                if (!u8_case_matches(cpu, gpu, &kernels[k], sizes[si].w, sizes[si].h, ch, 0,
                                     (uint64_t)v * 7919 + 3, border, alpha, &skipped))
                    bad++;
            }
    FXT_CHECK_EQ(bad, 0);
    FXT_CHECK_EQ(skipped, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* k_u8_walk4's edge threads (their pixels resolved once, walk4_edge.h) on every K, channel
 * count and border together, anchors off the centre: narrow rows where every thread is
 * an edge thread or next to one (every phase of 3 channels), a row of several blocks, and
 * heights of 1-3 rows where the constant border's rows reach the middle. */
FXT_TEST(u8_walk_edges_every_border_and_channel_count_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const kspec kernels[] = {
        {"gaussian:3", 1, NULL},   {"box:3", 1, "2,0"}, {"gaussian:5", 1, NULL},
        {"gaussian:5", 1, "0,4"}, {"box:5", 1, "4,1"},
    };
    /* widths a multiple of 4: rows of whole 32-bit words for every channel count */
    static const shape sizes[] = {{4, 3}, {8, 1}, {12, 7}, {40, 2}, {1028, 5}};
    const int nk = (int)(sizeof kernels / sizeof *kernels);
    const int ns = (int)(sizeof sizes / sizeof *sizes);
    int bad = 0, skipped = 0, v = 0;
    for (int k = 0; k < nk; k++)
        for (int si = 0; si < ns; si++)
            for (int ch = 1; ch <= 4; ch++)
                for (int border = 0; border < 5; border++, v++) {
                    if (!u8_case_matches(cpu, gpu, &kernels[k], sizes[si].w, sizes[si].h, ch, 0,
                                         (uint64_t)v * 6007 + 5, border, 1, &skipped))
                        bad++;
                }
    FXT_CHECK_EQ(bad, 0);
    FXT_CHECK_EQ(skipped, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* A device view of `of`'s pixels from byte `offset` of each row on, w x h x 3 (its rows
 * keep of's stride): other pointers into the same memory, rows unaligned for odd offsets. */
static fx_image device_view(const fx_image *of, size_t offset, int w, int h)
{
    fx_image v = *of;
    v.data += offset;
    v.width = w;
    v.height = h;
    return v;
}

/* One plan's runs on device images one after another, each on other images than the last:
 * the walk's launch (a graph of its one node, gpu_plan_cuda.c's u8_graph) must take each
 * run's pointers and strides, and rows 1 byte off 4 (the one-element walk, launched
 * directly) between graph launches must not leave it stale. Each run's output against
 * the CPU's. */
FXT_TEST(one_plan_walks_device_image_after_device_image)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    enum { W = 260, H = 70, WIDE = 268, RUNS = 7 };
    static const char *const kernels[] = {"box:3", "gaussian:3", "gaussian:5"};
    fx_image host[2] = {gpu_padded_image(W, H, 3, FX_U8, 0), gpu_padded_image(W, H, 3, FX_U8, 0)};
    fx_image got = gpu_padded_image(W, H, 3, FX_U8, 0);
    gpu_fill_random(&host[0], 17);
    gpu_fill_random(&host[1], 18);
    /* inputs: two images and views 1 and 4 bytes into two wider ones; outputs the same */
    fx_image in[4] = {{0}}, out[4] = {{0}};
    for (int i = 0; i < 4; i++) {
        const int w = i < 2 ? W : WIDE;
        FXT_CHECK_OK(fx_image_alloc_device(gpu, &in[i], w, H, 3, FX_U8), gpu);
        FXT_CHECK_OK(fx_image_alloc_device(gpu, &out[i], w, H, 3, FX_U8), gpu);
    }
    fx_image ins[4] = {in[0], in[1], device_view(&in[2], 1, W, H), device_view(&in[3], 4, W, H)};
    fx_image outs[4] = {out[0], out[1], device_view(&out[2], 4, W, H),
                        device_view(&out[3], 1, W, H)};
    /* (input, output): new pointers each run, an unaligned input and output between */
    static const int runs[RUNS][2] = {{0, 0}, {1, 1}, {0, 1}, {2, 0}, {1, 2}, {3, 3}, {1, 0}};
    for (int i = 0; i < 4; i++)
        FXT_CHECK_OK(fx_image_upload(gpu, &host[i % 2], &ins[i]), gpu);
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        fx_kernel *kernel;
        fx_filter_plan *p;
        fx_image want[2] = {{0}};
        const fx_image_desc d = {W, H, 3, FX_U8};
        FXT_CHECK_OK(fx_kernel_parse(gpu, kernels[k], &kernel), gpu);
        FXT_CHECK_OK(fx_filter_plan_create(gpu, kernel, NULL, &d, &p), gpu);
        for (int i = 0; i < 2; i++)
            FXT_CHECK_OK(fx_filter(cpu, kernel, NULL, &host[i], &want[i]), cpu);
        for (int r = 0; r < RUNS; r++) {
            const fx_image *src = &ins[runs[r][0]];
            fx_image *dst = &outs[runs[r][1]];
            memset(got.data, 0, got.stride * (size_t)H);
            FXT_CHECK_OK(fx_filter_run(p, src, dst, NULL), gpu);
            FXT_CHECK_OK(fx_image_download(gpu, dst, &got), gpu);
            if (!fxt_images_equal(&want[runs[r][0] % 2], &got)) {
                fprintf(stderr, "  %s run %d (input %d, output %d) differs from the CPU\n",
                        kernels[k], r, runs[r][0], runs[r][1]);
                FXT_CHECK(0);
            }
        }
        fx_image_free(&want[0]);
        fx_image_free(&want[1]);
        fx_filter_plan_free(p);
        fx_kernel_free(kernel);
    }
    for (int i = 0; i < 4; i++) {
        fx_image_free(&in[i]);
        fx_image_free(&out[i]);
    }
    free(host[0].data);
    free(host[1].data);
    free(got.data);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* ---- fft (cuFFT): within 1 unit of the CPU's exact direct result ---- */

#define FFT_CONFIG(kernels)                                                                        \
    {                                                                                              \
        FX_STRATEGY_FFT, FX_STRATEGY_DIRECT, 0, kernels, (int)(sizeof kernels / sizeof *kernels)   \
    }

FXT_TEST(fft_matches_cpu_exact)
{
    const config configs[] = {FFT_CONFIG(fft_kernels)};
    FXT_CHECK(run_configs(configs, 1));
    FXT_CHECK_EQ(last_skipped, 0);
    FXT_CHECK(fft_mostly_identical());
}

/* A random non-separable kw x kh kernel (weights summing to about 0.2, some negative)
 * as text. */
static char *random_kernel(int kw, int kh, uint64_t seed)
{
    size_t size = (size_t)kw * (size_t)kh * 16 + 16;
    char *text = malloc(size), *p = text;
    for (int i = 0; i < kh; i++) {
        for (int j = 0; j < kw; j++) {
            double w = ((double)(fxt_rand(&seed) >> 44) / 1048576.0 - 0.4) / (kw * kh) * 1.5;
            p += sprintf(p, "%s%.6f", j ? " " : "", w);
        }
        p += sprintf(p, "%s", i + 1 < kh ? ";" : "");
    }
    return text;
}

typedef struct fft_case {
    int kw, kh;
    int w, h, ch;
    fx_sample_type type;
    int border, alpha, memory_mib;
} fft_case;

/* Large kernels (several tiles, kernels larger than the image, 1xN and Nx1), and banding
 * forced by a small --gpu-memory (host images in many bands, each tiled). */
FXT_TEST(fft_large_kernels_and_bands)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const fft_case cases[] = {
        {33, 29, 300, 200, 3, FX_U8, FX_BORDER_REFLECT101, 0, 0},
        {33, 29, 300, 200, 1, FX_F32, FX_BORDER_CONSTANT, 0, 0},
        {61, 61, 40, 30, 4, FX_U8, FX_BORDER_WRAP, 1, 0},         /* kernel > image */
        {61, 61, 40, 30, 2, FX_U16, FX_BORDER_REFLECT, 0, 0},     /* kernel > image */
        {101, 1, 257, 33, 3, FX_U8, FX_BORDER_REPLICATE, 0, 0},   /* 1xN */
        {1, 101, 33, 257, 1, FX_F32, FX_BORDER_REFLECT101, 0, 0}, /* Nx1 */
        {121, 121, 500, 380, 3, FX_U8, FX_BORDER_REFLECT101, 0, 0},
        {121, 121, 130, 1, 1, FX_U16, FX_BORDER_CONSTANT, 0, 0}, /* one row */
        /* banded: 8 MiB allowed (half to fft engines) */
        {25, 25, 600, 500, 3, FX_U8, FX_BORDER_REFLECT101, 0, 8},
        {25, 21, 20000, 40, 1, FX_U8, FX_BORDER_WRAP, 0, 8},
        {31, 31, 3001, 257, 4, FX_U16, FX_BORDER_CONSTANT, 1, 8},
        {21, 21, 1200, 900, 1, FX_F32, FX_BORDER_REPLICATE, 0, 8},
    };
    const config c = {FX_STRATEGY_FFT, FX_STRATEGY_DIRECT, 0, NULL, 0};
    int skipped = 0, bad = 0;
    /* every case twice: with the planner's strips as they are (none at these sizes), then
     * with strips wherever they save points (their own tiles for the right and bottom
     * strips, gpu_fft_geometry.h; bands included) */
    const double strip_cost = fxi_gpu_fft_set_strip_cost(0.0);
    fxi_gpu_fft_set_strip_cost(strip_cost);
    const size_t n_cases = sizeof cases / sizeof *cases;
    for (size_t run = 0; run < 2 * n_cases; run++) {
        const size_t i = run % n_cases;
        if (run == n_cases) fxi_gpu_fft_set_strip_cost(0.0);
        const fft_case *fc = &cases[i];
        char *text = random_kernel(fc->kw, fc->kh, (uint64_t)i + 11);
        const kspec k = {text, 1, NULL};
        fx_image in = gpu_padded_image(fc->w, fc->h, fc->ch, fc->type, (size_t)(i % 3) * 4);
        gpu_fill_random(&in, (uint64_t)i * 31 + 5);
        if (!compare_one(cpu, gpu, &c, &k, &in, fc->border, fc->alpha, fc->memory_mib, TOL_FFT,
                         &skipped)) {
            fprintf(stderr, "  fft case %zu (%dx%d kernel on %dx%dx%d%s) differs\n", i, fc->kw,
                    fc->kh, fc->w, fc->h, fc->ch, run >= n_cases ? ", strips" : "");
            bad++;
        }
        free(in.data);
        free(text);
    }
    { /* with strips at no cost the first case takes one: --explain names it */
        char *text = random_kernel(33, 29, 11);
        fx_kernel *k = NULL;
        fx_filter_plan *p = NULL;
        fx_filter_options o;
        fx_filter_options_init(&o);
        o.strategy = FX_STRATEGY_FFT;
        const fx_image_desc d = {300, 200, 3, FX_U8};
        if (FXT_CHECK_OK(fx_kernel_parse(gpu, text, &k), gpu) &&
            FXT_CHECK_OK(fx_filter_plan_create(gpu, k, &o, &d, &p), gpu) &&
            !FXT_CHECK(strstr(fx_filter_plan_explain(p), "strip's") != NULL))
            fprintf(stderr, "  no strips: %s\n", fx_filter_plan_explain(p));
        fx_filter_plan_free(p);
        fx_kernel_free(k);
        free(text);
    }
    fxi_gpu_fft_set_strip_cost(strip_cost);
    FXT_CHECK_EQ(bad, 0);
    FXT_CHECK_EQ(skipped, 0);
    FXT_CHECK(fft_mostly_identical());
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* auto picks fft on the GPU by the CPU planner's rule (>= 400 non-zero taps, not rank 1),
 * direct below it. */
FXT_TEST(fft_auto_rule)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2);
    static const struct {
        int k;
        fx_filter_strategy want;
    } rule[] = {{19, FX_STRATEGY_DIRECT}, {21, FX_STRATEGY_FFT}};
    fx_image_desc d = {200, 100, 3, FX_U8};
    for (int i = 0; i < 2; i++) {
        char *text = random_kernel(rule[i].k, rule[i].k, 3);
        fx_kernel *k;
        fx_filter_plan *p = NULL;
        FXT_CHECK_OK(fx_kernel_parse(gpu, text, &k), gpu);
        FXT_CHECK_OK(fx_filter_plan_create(gpu, k, NULL, &d, &p), gpu);
        if (p) FXT_CHECK_EQ(fx_filter_plan_strategy(p), rule[i].want);
        fx_filter_plan_free(p);
        fx_kernel_free(k);
        free(text);
    }
    fx_context_destroy(gpu);
}

/* Too little memory for one tile: a clear error at plan time; a full GPU: FX_ENOMEM from
 * cuFFT or the buffers, never a crash, and the context still works afterwards. */
FXT_TEST(fft_out_of_memory_is_reported)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2);
    char *text = random_kernel(121, 121, 9);
    fx_kernel *k;
    FXT_CHECK_OK(fx_kernel_parse(gpu, text, &k), gpu);
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.strategy = FX_STRATEGY_FFT;
    o.gpu_memory_mib = 1;
    fx_filter_plan *p = NULL;
    fx_image_desc d = {2000, 1000, 3, FX_U8};
    FXT_CHECK_STATUS(fx_filter_plan_create(gpu, k, &o, &d, &p), FX_ENOMEM, gpu);
    FXT_CHECK_CONTAINS(fx_context_error(gpu), "fft");
    FXT_CHECK(p == NULL);
    /* fill the GPU, then ask for more than is left */
    enum { MAX_FILL = 4096 };
    static fx_image fillers[MAX_FILL];
    int made = 0;
    for (int big = 1; big >= 0; big--)
        while (made < MAX_FILL &&
               fx_image_alloc_device(gpu, &fillers[made], big ? 16384 : 2048, 16384, 4, FX_F32) ==
                   FX_OK) /* 4 GiB, then 512 MiB */
            made++;
    o.gpu_memory_mib = 8192; /* more than is free: cuFFT or the buffers run out */
    fx_image_desc huge = {10000, 6000, 3, FX_U8};
    fx_status st = fx_filter_plan_create(gpu, k, &o, &huge, &p);
    FXT_CHECK(st == FX_OK || st == FX_ENOMEM);
    if (st == FX_ENOMEM) FXT_CHECK_CONTAINS(fx_context_error(gpu), "memory");
    fx_filter_plan_free(p);
    p = NULL;
    for (int i = 0; i < made; i++)
        fx_image_free(&fillers[i]);
    /* and the context still works */
    o.gpu_memory_mib = 0;
    fx_image_desc small = {300, 200, 3, FX_U8};
    FXT_CHECK_OK(fx_filter_plan_create(gpu, k, &o, &small, &p), gpu);
    fx_image in = gpu_padded_image(300, 200, 3, FX_U8, 0),
             out = gpu_padded_image(300, 200, 3, FX_U8, 0);
    gpu_fill_random(&in, 3);
    FXT_CHECK_OK(fx_filter_run(p, &in, &out, NULL), gpu);
    fx_filter_plan_free(p);
    free(in.data);
    free(out.data);
    fx_kernel_free(k);
    free(text);
    fx_context_destroy(gpu);
}

FXT_TEST(device_images_round_trip)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    fx_image in = gpu_padded_image(301, 199, 3, FX_U8, 7),
             back = gpu_padded_image(301, 199, 3, FX_U8, 0);
    gpu_fill_random(&in, 5);
    fx_image dev = {0}, out = {0}, want = {0};
    FXT_CHECK_OK(fx_image_alloc_device(gpu, &dev, 301, 199, 3, FX_U8), gpu);
    FXT_CHECK_OK(fx_image_upload(gpu, &in, &dev), gpu);
    FXT_CHECK_OK(fx_image_download(gpu, &dev, &back), gpu);
    FXT_CHECK(fxt_images_equal(&in, &back));
    /* one call: a device image in gives a device image out */
    fx_kernel *k;
    FXT_CHECK_OK(fx_kernel_parse(gpu, "gaussian:7", &k), gpu);
    FXT_CHECK_OK(fx_filter(gpu, k, NULL, &dev, &out), gpu);
    FXT_CHECK_EQ(out.memory, FX_MEMORY_DEVICE);
    FXT_CHECK_OK(fx_filter(cpu, k, NULL, &in, &want), cpu);
    FXT_CHECK_OK(fx_image_download(gpu, &out, &back), gpu);
    FXT_CHECK(fxt_images_equal(&want, &back));
    /* mixed host and device images are refused */
    fx_filter_plan *p;
    fx_image_desc d = {301, 199, 3, FX_U8};
    FXT_CHECK_OK(fx_filter_plan_create(gpu, k, NULL, &d, &p), gpu);
    FXT_CHECK_STATUS(fx_filter_run(p, &dev, &back, NULL), FX_EINVAL, gpu);
    FXT_CHECK_CONTAINS(fx_context_error(gpu), "device");
    fx_timings t = {0};
    FXT_CHECK_OK(fx_filter_run(p, &in, &back, &t), gpu);
    FXT_CHECK(t.upload_ms > 0 && t.compute_ms > 0 && t.download_ms > 0);
    fx_filter_plan_free(p);
    fx_kernel_free(k);
    fx_image_free(&dev);
    fx_image_free(&out);
    fx_image_free(&want);
    free(in.data);
    free(back.data);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

FXT_TEST(errors_and_out_of_memory_are_reported)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2);
    fx_kernel *k;
    FXT_CHECK_OK(fx_kernel_parse(gpu, "box:11", &k), gpu);
    fx_filter_options o;
    fx_filter_options_init(&o);
    fx_filter_plan *p = NULL;
    /* one row of a band does not fit in 1 MiB: a clear error at run time */
    fx_image_desc wide = {200000, 4, 4, FX_F32};
    o.gpu_memory_mib = 1;
    FXT_CHECK_OK(fx_filter_plan_create(gpu, k, &o, &wide, &p), gpu);
    fx_image in = gpu_padded_image(200000, 4, 4, FX_F32, 0),
             out = gpu_padded_image(200000, 4, 4, FX_F32, 0);
    FXT_CHECK_STATUS(fx_filter_run(p, &in, &out, NULL), FX_ENOMEM, gpu);
    FXT_CHECK_CONTAINS(fx_context_error(gpu), "GPU memory");
    fx_filter_plan_free(p);
    free(in.data);
    free(out.data);
    /* bad block size, wrong strategy for the kernel */
    o.gpu_memory_mib = 0;
    o.gpu_block = 12;
    fx_image_desc d = {64, 64, 1, FX_U8};
    FXT_CHECK(fx_filter_plan_create(gpu, k, &o, &d, &p) != FX_OK);
    o.gpu_block = 0;
    fx_kernel *sharp;
    FXT_CHECK_OK(fx_kernel_parse(gpu, "sharpen", &sharp), gpu);
    o.strategy = FX_STRATEGY_BOX;
    FXT_CHECK_STATUS(fx_filter_plan_create(gpu, sharp, &o, &d, &p), FX_EINVAL, gpu);
    fx_kernel_free(sharp);
    /* real device out of memory: device images until the GPU is full */
    fx_image imgs[8];
    memset(imgs, 0, sizeof imgs);
    fx_status st = FX_OK;
    int made = 0;
    for (; made < 8; made++) {
        st = fx_image_alloc_device(gpu, &imgs[made], 46000, 46000, 4, FX_F32); /* 33.9 GB */
        if (st != FX_OK) break;
    }
    if (made < 8) {
        FXT_CHECK_EQ(st, FX_ENOMEM);
        FXT_CHECK_CONTAINS(fx_context_error(gpu), "out of memory");
    }
    for (int i = 0; i < 8; i++)
        fx_image_free(&imgs[i]);
    /* and the context still works */
    fx_image small = gpu_padded_image(64, 64, 1, FX_U8, 0), res = {0};
    gpu_fill_random(&small, 1);
    FXT_CHECK_OK(fx_filter(gpu, k, NULL, &small, &res), gpu);
    fx_image_free(&res);
    free(small.data);
    fx_kernel_free(k);
    fx_context_destroy(gpu);
}

GPU_TEST_MAIN(FXT_CASE(published_variants_match_cpu), FXT_CASE(direct_separable_box_match_cpu),
              FXT_CASE(banding_gives_the_bytes_of_one_pass),
              FXT_CASE(streamed_file_on_pinned_bands_matches_cpu), FXT_CASE(library_bands_on_a_gpu),
              FXT_CASE(u8_fast_path_kernels_match_cpu), FXT_CASE(u8_walk_four_elements_match_cpu),
              FXT_CASE(u8_walk_edges_every_border_and_channel_count_match_cpu),
              FXT_CASE(one_plan_walks_device_image_after_device_image),
              FXT_CASE(device_images_round_trip), FXT_CASE(errors_and_out_of_memory_are_reported),
              FXT_CASE(fft_matches_cpu_exact), FXT_CASE(fft_large_kernels_and_bands),
              FXT_CASE(fft_auto_rule), FXT_CASE(fft_out_of_memory_is_reported))

#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
