/* The GPU fft strategy's per-element rules (filter/gpu_fft_tiles.h: tile positions, plane
 * points, bias, output accumulator) and its plan's layout (gpu_fft_geometry.c: tile sides,
 * in-place real-to-complex rows of 2 (M/2+1) floats, the kernel's plane) replayed on the
 * CPU: FFTW single precision with the advanced layout the cuFFT plans are made with
 * (gpu_fft_plan_cuda.c), tile by tile, region by region (the main tiles' and the strips'
 * own, gpu_fft_geometry.h), against the library's exact direct result on the CPU. Without a GPU
 * this runs every index and rounding rule that the CUDA kernels run; the GPU tests
 * (tests/gpu/test_gpu_filter.c) check the kernels themselves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter/gpu_fft_geometry.h"
#include "filter/gpu_fft_tiles.h"
#include "fxtest.h"

#ifdef FXKIT_HAVE_FFTW
#include <fftw3.h>

#define FLOAT_REL_TOL 1e-5 /* as the CPU fft's tests: times L1(weights) times max sample */

typedef struct replay_case {
    int w, h, ch, alpha; /* alpha: the last channel passes through */
    fx_sample_type type;
    int kw, kh, ax, ay; /* ax < 0: the centre */
    int border;
    size_t budget; /* bytes per engine: small budgets give small tiles */
} replay_case;

/* The device kernels' fetch (filter_fft.cu) for a whole image (device images): virtual
 * row v is image row v - ay, borders by the shared formulas. */
static float fetch(const fx_image *img, int border, const double *border_value, int ay, int64_t v,
                   int64_t x, int c)
{
    const int64_t row = fxi_border_index(v - ay, img->height, border);
    if (row < 0) return (float)border_value[c];
    const int64_t xx = fxi_border_index(x, img->width, border);
    if (xx < 0) return (float)border_value[c];
    return (float)fxt_value_at(img, row, xx * img->channels + c);
}

static void store(fx_image *img, int64_t y, int64_t i, double v)
{
    uint8_t *row = fx_image_row(img, (int)y);
    switch (img->type) {
    case FX_U8: row[i] = (uint8_t)v; break;
    case FX_U16: ((uint16_t *)(void *)row)[i] = (uint16_t)v; break;
    default: ((float *)(void *)row)[i] = (float)v; break;
    }
}

/* One in-place 2-D plan with cuFFT's layout (gpu_fft_plan_cuda.c make_plan). */
static fftwf_plan layout_plan(const fxi_gpu_fft_geometry *g, float *plane, int forward)
{
    int n[2] = {g->n_rows, g->n_cols};
    int real_embed[2] = {g->n_rows, (int)g->row_floats};
    int complex_embed[2] = {g->n_rows, (int)(g->row_floats / 2)};
    const int real_dist = (int)g->plane_floats, complex_dist = (int)(g->plane_floats / 2);
    fftwf_complex *freq = (fftwf_complex *)(void *)plane;
    if (forward)
        return fftwf_plan_many_dft_r2c(2, n, 1, plane, real_embed, 1, real_dist, freq,
                                       complex_embed, 1, complex_dist, FFTW_ESTIMATE);
    return fftwf_plan_many_dft_c2r(2, n, 1, freq, complex_embed, 1, complex_dist, plane, real_embed,
                                   1, real_dist, FFTW_ESTIMATE);
}

static void fill(fx_image *img, uint64_t seed)
{
    const size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++)
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = fxt_rand(&seed);
            store(img, y, (int64_t)i,
                  img->type == FX_U8    ? (double)(r >> 56)
                  : img->type == FX_U16 ? (double)(r >> 48)
                                        : (double)((r >> 40) % 1000001) / 1e6);
        }
}

/* What the replay of a region needs of its case. */
typedef struct tile_job {
    const fx_image *src;
    fx_image *got;
    const float *w;
    int kw, kh, ax, ay, border;
    const double *border_value;
    int filtered; /* channels; the rest (alpha) pass through */
} tile_job;

/* Cases whose plan used a strip's tiles (the replay must cover them). */
static int strip_cases;

/* The tiles of one region with shape g, as the kernels and cuFFT compute them. */
static int replay_region(const tile_job *j, const fxi_gpu_fft_geometry *g, const fxi_fft_region *rg)
{
    const int C = j->src->channels;
    float *plane = fftwf_malloc(g->plane_floats * sizeof(float));
    float *spectrum = fftwf_malloc(g->plane_floats * sizeof(float));
    fftwf_plan forward = NULL, inverse = NULL;
    int ok = FXT_CHECK(plane && spectrum);
    if (ok) {
        forward = layout_plan(g, plane, 1);
        inverse = layout_plan(g, plane, 0);
        ok = FXT_CHECK(forward && inverse);
    }
    double weight_sum = 0;
    if (ok) { /* the shape's spectrum: conj(R2C(kernel plane)) / (N M) */
        weight_sum = fxi_gpu_fft_kernel_plane(j->w, j->kw, j->kh, g, spectrum);
        fftwf_execute_dft_r2c(forward, spectrum, (fftwf_complex *)(void *)spectrum);
        const float scale = (float)(1.0 / ((double)g->n_rows * g->n_cols));
        for (size_t k = 0; k < g->plane_floats; k += 2)
            fxi_fft_conj_scale(&spectrum[k], &spectrum[k + 1], scale);
    }
    const int64_t tiles_x = ok ? fxi_gpu_fft_tiles_x(g, rg->width) : 0;
    const int64_t tiles = ok ? fxi_gpu_fft_region_tiles(g, rg) : 0;
    const int integer_image = j->src->type != FX_F32;
    const float maxval = j->src->type == FX_U8 ? 255.0f : 65535.0f;
    for (int64_t t = 0; t < tiles && ok; t++) {
        const fxi_fft_tile box = fxi_fft_region_tile(rg, t, tiles_x, g->out_rows, g->out_cols);
        for (int c = 0; c < j->filtered; c++) {
            int64_t v, x;
            fxi_fft_bias_point(&box, j->kw, j->kh, j->ax, &v, &x);
            const float bias =
                fxi_fft_bias(fetch(j->src, j->border, j->border_value, j->ay, v, x, c));
            /* pack */
            for (int i = 0; i < g->n_rows; i++)
                for (int jj = 0; jj < g->n_cols; jj++)
                    plane[(size_t)i * g->row_floats + (size_t)jj] =
                        fxi_fft_block_point(&box, j->kw, j->kh, j->ax, i, jj, &v, &x)
                            ? fetch(j->src, j->border, j->border_value, j->ay, v, x, c) - bias
                            : 0.0f;
            /* transform, multiply (as k_multiply), transform back */
            fftwf_execute_dft_r2c(forward, plane, (fftwf_complex *)(void *)plane);
            for (size_t k = 0; k < g->plane_floats; k += 2)
                fxi_fft_modulate(&plane[k], &plane[k + 1], spectrum[k], spectrum[k + 1]);
            fftwf_execute_dft_c2r(inverse, (fftwf_complex *)(void *)plane, plane);
            /* extract */
            for (int r = 0; r < box.oh; r++)
                for (int xl = 0; xl < box.ow; xl++) {
                    const float acc =
                        fxi_fft_accumulator(plane[(size_t)r * g->row_floats + (size_t)xl],
                                            fxi_fft_bias_response(0.0f, bias, weight_sum));
                    store(j->got, box.y0 + r, (box.x0 + xl) * C + c,
                          integer_image ? fxi_finish_float(acc, maxval) : acc);
                }
        }
        for (int c = j->filtered; c < C; c++) /* the alpha passes through */
            for (int r = 0; r < box.oh; r++)
                for (int xl = 0; xl < box.ow; xl++) {
                    const int64_t i = (box.x0 + xl) * C + c;
                    store(j->got, box.y0 + r, i, fxt_value_at(j->src, box.y0 + r, i));
                }
    }
    if (forward) fftwf_destroy_plan(forward);
    if (inverse) fftwf_destroy_plan(inverse);
    fftwf_free(plane);
    fftwf_free(spectrum);
    return ok;
}

static int replay(fx_context *ctx, const replay_case *rc, uint64_t seed)
{
    const int C = rc->ch, F = rc->alpha ? C - 1 : C;
    const int ax = rc->ax < 0 ? rc->kw / 2 : rc->ax, ay = rc->ax < 0 ? rc->kh / 2 : rc->ay;
    /* a random non-separable kernel */
    const size_t taps = (size_t)rc->kw * (size_t)rc->kh;
    double *wd = malloc(taps * sizeof *wd);
    float *w = malloc(taps * sizeof *w);
    double l1 = 0;
    for (size_t k = 0; k < taps; k++) {
        wd[k] = ((double)(fxt_rand(&seed) >> 44) / 1048576.0 - 0.4) / (double)taps * 1.5;
        w[k] = (float)wd[k];
        l1 += fabs(w[k]);
    }
    double border_value[FX_MAX_IMAGE_CHANNELS];
    for (int c = 0; c < C; c++)
        border_value[c] = rc->type == FX_F32 ? 0.25 * (c + 1) : 7.0 * (c + 1);

    fx_image src = {0}, want = {0}, got = {0};
    int ok = FXT_CHECK_OK(fx_image_alloc(ctx, &src, rc->w, rc->h, C, rc->type), ctx) &&
             FXT_CHECK_OK(fx_image_alloc(ctx, &want, rc->w, rc->h, C, rc->type), ctx) &&
             FXT_CHECK_OK(fx_image_alloc(ctx, &got, rc->w, rc->h, C, rc->type), ctx);
    fx_kernel *kernel = NULL;
    fx_filter_plan *plan = NULL;
    ok = ok && FXT_CHECK_OK(fx_kernel_create(ctx, rc->kw, rc->kh, wd, &kernel), ctx);
    if (ok) { /* the reference: the CPU's exact direct strategy */
        fill(&src, seed);
        fx_filter_options o;
        fx_filter_options_init(&o);
        o.strategy = FX_STRATEGY_DIRECT;
        o.border = rc->border;
        char anchor[32], values[128] = "";
        snprintf(anchor, sizeof anchor, "%d,%d", ax, ay);
        o.anchor = anchor;
        for (int c = 0; c < C; c++) {
            size_t used = strlen(values);
            snprintf(values + used, sizeof values - used, "%s%g", c ? "," : "", border_value[c]);
        }
        o.border_value = values;
        o.alpha = rc->alpha ? FX_ALPHA_KEEP : FX_ALPHA_FILTER;
        fx_image_desc d = {rc->w, rc->h, C, rc->type};
        ok = FXT_CHECK_OK(fx_filter_plan_create(ctx, kernel, &o, &d, &plan), ctx) &&
             FXT_CHECK_OK(fx_filter_run(plan, &src, &want, NULL), ctx);
    }

    /* the plan's shapes and regions, each region replayed with its shape's tiles */
    fxi_gpu_fft_shapes shapes;
    const char *why;
    /* strips at no cost of their own: small images take them too */
    ok = ok && FXT_CHECK(fxi_gpu_fft_plan_shapes_with(rc->w, rc->h, rc->kw, rc->kh, F, rc->budget,
                                                      0.0, &shapes, &why));
    fxi_fft_region regions[FXI_FFT_SHAPES];
    if (ok) fxi_gpu_fft_regions(&shapes, rc->w, rc->h, regions);
    const tile_job job = {&src, &got, w, rc->kw, rc->kh, ax, ay, rc->border, border_value, F};
    for (int k = 0; k < FXI_FFT_SHAPES && ok; k++)
        if (shapes.used[k] && regions[k].rows > 0 && regions[k].width > 0)
            ok = replay_region(&job, &shapes.geom[k], &regions[k]);
    if (ok && (shapes.used[FXI_FFT_RIGHT] || shapes.used[FXI_FFT_BOTTOM])) strip_cases++;
    int bad = 0;
    for (int y = 0; y < rc->h && ok; y++)
        for (int64_t i = 0; i < (int64_t)rc->w * C; i++) {
            const double a = fxt_value_at(&want, y, i), b = fxt_value_at(&got, y, i);
            const double tol = rc->type == FX_F32 ? FLOAT_REL_TOL * l1 : 1;
            if (!(fabs(a - b) <= tol) && bad++ < 3)
                fprintf(stderr, "  %dx%dx%d k%dx%d border %d at (%lld, %d): fft %.9g direct %.9g\n",
                        rc->w, rc->h, C, rc->kw, rc->kh, rc->border, (long long)(i / C), y, b, a);
        }
    ok = ok && FXT_CHECK_EQ(bad, 0);
    fx_filter_plan_free(plan);
    fx_kernel_free(kernel);
    fx_image_free(&src);
    fx_image_free(&want);
    fx_image_free(&got);
    free(w);
    free(wd);
    return ok;
}

FXT_TEST(replayed_tiles_match_exact_direct)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    const size_t small = (size_t)1 << 19, big = (size_t)1 << 30;
    static const replay_case cases[] = {
        {61, 29, 3, 0, FX_U8, 5, 5, -1, -1, FX_BORDER_REFLECT101, 0},
        {130, 70, 4, 1, FX_U16, 9, 7, 0, 6, FX_BORDER_CONSTANT, 0},
        {1, 1, 1, 0, FX_F32, 21, 21, -1, -1, FX_BORDER_REFLECT, 0},       /* kernel > image */
        {40, 30, 2, 1, FX_U8, 61, 61, -1, -1, FX_BORDER_WRAP, 0},         /* kernel > image */
        {257, 33, 3, 0, FX_U8, 101, 1, -1, -1, FX_BORDER_REPLICATE, 0},   /* 1xN */
        {33, 257, 1, 0, FX_F32, 1, 101, -1, -1, FX_BORDER_REFLECT101, 0}, /* Nx1 */
        {300, 200, 3, 0, FX_U8, 33, 29, 3, 20, FX_BORDER_CONSTANT, 0},
        {200, 150, 1, 0, FX_U16, 121, 121, -1, -1, FX_BORDER_REFLECT101, 0},
        {37, 1, 4, 0, FX_F32, 5, 3, -1, -1, FX_BORDER_WRAP, 0},
        /* tiles of their own for the right strip, the bottom strip, both */
        {300, 200, 3, 0, FX_U8, 33, 33, -1, -1, FX_BORDER_REFLECT101, 0},
        {1000, 800, 4, 1, FX_U16, 61, 61, 5, 50, FX_BORDER_CONSTANT, 0},
        {600, 400, 3, 0, FX_F32, 21, 21, -1, -1, FX_BORDER_WRAP, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        replay_case rc = cases[i];
        /* each case with big tiles and with the smallest that a tight budget allows */
        for (int b = 0; b < 2; b++) {
            rc.budget = b ? small : big;
            fxi_gpu_fft_geometry g;
            const char *why;
            if (b && !fxi_gpu_fft_plan(rc.w, rc.h, rc.kw, rc.kh, 1, rc.budget, &g, &why)) continue;
            if (!replay(ctx, &rc, (uint64_t)i * 17 + (uint64_t)b))
                fprintf(stderr, "  case %zu budget %zu differs\n", i, rc.budget);
        }
    }
    FXT_CHECK(strip_cases >= 3); /* the three cases above, with big tiles */
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(replayed_tiles_match_exact_direct))

#else

int main(void)
{
    printf("skipped: this build has no FFTW (the replay uses it)\n");
    return 77;
}

#endif
