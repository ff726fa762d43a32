/* The GPU fft strategy's own kernels (src/filter/gpu_fft.cu) one at a time, against a
 * plain reference written here from the shared rules (filter/gpu_fft_tiles.h, the border
 * formulas of filter_math.h): every float of every packed plane, every byte of every
 * extracted output and every multiplied bin must be the same. The end-to-end tests
 * (test_gpu_filter.c) can only hold the fft within 1 unit of the exact result, because
 * cuFFT rounds its own way; here nothing of cuFFT runs, so a wrong index, bias, border,
 * rounding or channel in pack or extract fails a case.
 *
 * Cases: 8/16-bit and float, 1-4 channels with alpha filtered or kept, every border
 * (constant with values per channel), anchors off the centre, kernels wider than the
 * image, 1xN and Nx1, whole-image passes (device images) and band passes (rows already
 * resolved), tiles from several budgets, batches of a few tiles starting anywhere (the
 * last one short), planes first filled with NaN so a point pack leaves unwritten shows. */
#include <math.h>

#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA
#include "filter/gpu_fft.h"

typedef struct kernel_case {
    int w, h, ch, alpha; /* alpha: the last channel is kept, not filtered */
    fx_sample_type type;
    int kw, kh, ax, ay; /* ax < 0: the centre */
    int border;
    int band;     /* 0: whole image (device image); else a band pass of this many rows */
    float offset; /* the kernel's offset */
} kernel_case;

static const kernel_case kernel_cases[] = {
    {200, 150, 3, 0, FX_U8, 31, 31, -1, -1, FX_BORDER_REFLECT101, 0, 0},
    {130, 70, 4, 1, FX_U16, 9, 7, 0, 6, FX_BORDER_CONSTANT, 0, 3.5f},
    {40, 30, 1, 0, FX_F32, 61, 61, -1, -1, FX_BORDER_WRAP, 0, 0},          /* kernel > image */
    {257, 33, 2, 0, FX_U8, 101, 1, -1, -1, FX_BORDER_REPLICATE, 0, 0},     /* 1xN */
    {33, 257, 1, 0, FX_F32, 1, 101, -1, -1, FX_BORDER_REFLECT, 0, -0.25f}, /* Nx1 */
    {61, 29, 4, 1, FX_U8, 21, 25, 3, 20, FX_BORDER_CONSTANT, 0, 0},
    {300, 200, 3, 0, FX_U8, 25, 25, -1, -1, FX_BORDER_REFLECT101, 77, 0}, /* a band */
    {97, 130, 2, 1, FX_U16, 33, 29, 30, 2, FX_BORDER_WRAP, 40, 0},
    {1, 1, 3, 0, FX_U8, 21, 21, -1, -1, FX_BORDER_REFLECT, 0, 0},
    {150, 90, 4, 0, FX_F32, 15, 17, -1, -1, FX_BORDER_REFLECT101, 0, 1.0f}, /* four planes */
};
#define CASES (int)(sizeof kernel_cases / sizeof *kernel_cases)

/* tile sizes: the smallest a tight budget allows, and the cost model's choice */
static const size_t budgets[] = {(size_t)1 << 17, (size_t)1 << 30};
/* tiles per launch: batches start at every multiple, the last one short */
#define BATCH_TILES 3

static void store(fx_image *img, int64_t y, int64_t i, double v)
{
    uint8_t *row = fx_image_row(img, (int)y);
    switch (img->type) {
    case FX_U8: row[i] = (uint8_t)v; break;
    case FX_U16: ((uint16_t *)(void *)row)[i] = (uint16_t)v; break;
    default: ((float *)(void *)row)[i] = (float)v; break;
    }
}

/* The reference's reading of the pass's source (host copy `src` of a.src): virtual row
 * v, column x, channel c, borders applied, as a float. */
static int64_t ref_src_row(const fxi_filter_args *a, int64_t v)
{
    return a->resolved ? v : fxi_border_index(a->v0 + v, a->height, a->border);
}

static float ref_fetch(const fxi_filter_args *a, const fx_image *src, int64_t v, int64_t x, int c)
{
    const int64_t row = ref_src_row(a, v);
    if (row < 0) return (float)a->border_value[c];
    const int64_t xx = fxi_border_index(x, a->width, a->border);
    if (xx < 0) return (float)a->border_value[c];
    return (float)fxt_value_at(src, row, xx * a->channels + c);
}

static float ref_bias(const fxi_fft_batch *b, const fx_image *src, const fxi_fft_tile *box, int c)
{
    int64_t v, x;
    fxi_fft_bias_point(box, b->a.kw, b->a.kh, b->a.ax, &v, &x);
    return fxi_fft_bias(ref_fetch(&b->a, src, v, x, c));
}

static fxi_fft_tile ref_tile(const fxi_fft_batch *b, int64_t local)
{
    return fxi_fft_region_tile(&b->region, b->first_tile + local, b->tiles_x, b->out_rows,
                               b->out_cols);
}

/* One case's pass: the host source (a copy of what a.src holds), the device images, the
 * arguments and the geometry. */
typedef struct pass {
    fx_image src, dsrc; /* host and device source: the image, or the band's rows */
    fx_image want, dst; /* reference output (host) and the kernels' (device) */
    fx_image got;       /* dst downloaded */
    fxi_filter_args a;
    fxi_gpu_fft_geometry g;
    fxi_fft_batch b;
    float *host_planes, *dev_planes;
    size_t planes_bytes;
} pass;

static void pass_free(pass *p)
{
    free(p->src.data);
    free(p->want.data);
    free(p->got.data);
    fx_image_free(&p->dsrc);
    fx_image_free(&p->dst);
    free(p->host_planes);
}

static int pass_make(fx_context *gpu, const kernel_case *kc, size_t budget, uint64_t seed, pass *p)
{
    memset(p, 0, sizeof *p);
    const int C = kc->ch, F = kc->alpha ? C - 1 : C;
    const int rows = kc->band ? kc->band : kc->h;
    /* a band pass reads rows + kh - 1 staged rows; a whole pass the image */
    const int src_rows = kc->band ? rows + kc->kh - 1 : kc->h;
    const char *why;
    if (!fxi_gpu_fft_plan(kc->w, rows, kc->kw, kc->kh, F, budget, &p->g, &why)) return -1;
    p->src = gpu_padded_image(kc->w, src_rows, C, kc->type, 4);
    p->want = gpu_padded_image(kc->w, rows, C, kc->type, 0);
    p->got = gpu_padded_image(kc->w, rows, C, kc->type, 0);
    int ok = FXT_CHECK(p->src.data && p->want.data && p->got.data);
    if (!ok) return 0;
    gpu_fill_random(&p->src, seed);
    /* outputs no tile wrote keep this */
    memset(p->want.data, 0x5A, p->want.stride * (size_t)rows);
    ok = FXT_CHECK_OK(fx_image_alloc_device(gpu, &p->dsrc, kc->w, src_rows, C, kc->type), gpu) &&
         FXT_CHECK_OK(fx_image_alloc_device(gpu, &p->dst, kc->w, rows, C, kc->type), gpu) &&
         FXT_CHECK_OK(fx_image_upload(gpu, &p->src, &p->dsrc), gpu) &&
         FXT_CHECK_OK(fx_image_upload(gpu, &p->want, &p->dst), gpu);
    if (!ok) return 0;

    fxi_filter_args *a = &p->a;
    a->src = p->dsrc.data;
    a->src_stride = p->dsrc.stride;
    a->src_type = kc->type;
    a->resolved = kc->band != 0;
    a->v0 = kc->band ? 0 : -(int64_t)(kc->ax < 0 ? kc->kh / 2 : kc->ay);
    a->width = kc->w;
    a->height = kc->h;
    a->channels = C;
    a->filter_channels = F;
    a->border = kc->border;
    for (int c = 0; c < C; c++)
        a->border_value[c] = kc->type == FX_F32 ? 0.25 * (c + 1) : 7.0 * (c + 1) + 0.5;
    a->dst = p->dst.data;
    a->dst_stride = p->dst.stride;
    a->rows = rows;
    a->kw = kc->kw;
    a->kh = kc->kh;
    a->ax = kc->ax < 0 ? kc->kw / 2 : kc->ax;
    a->ay = kc->ax < 0 ? kc->kh / 2 : kc->ay;
    a->offset = kc->offset;
    a->integer_image = kc->type != FX_F32;
    a->maxval = kc->type == FX_U8 ? 255.0f : 65535.0f;

    fxi_fft_batch *b = &p->b;
    b->a = *a;
    b->n_rows = p->g.n_rows;
    b->n_cols = p->g.n_cols;
    b->out_rows = p->g.out_rows;
    b->out_cols = p->g.out_cols;
    b->planes = F;
    b->row_floats = (int64_t)p->g.row_floats;
    b->plane_floats = (int64_t)p->g.plane_floats;
    b->region = (fxi_fft_region){0, 0, rows, kc->w};
    b->tiles_x = fxi_gpu_fft_tiles_x(&p->g, kc->w);
    p->planes_bytes = p->g.plane_floats * sizeof(float) * (size_t)F * BATCH_TILES;
    p->host_planes = malloc(p->planes_bytes);
    ok = FXT_CHECK(p->host_planes != NULL) &&
         FXT_CHECK_OK(fxi_device_alloc(gpu, p->planes_bytes, (void **)&p->dev_planes), gpu);
    b->data = p->dev_planes;
    return ok;
}

static int64_t pass_tiles(const pass *p)
{
    return fxi_gpu_fft_region_tiles(&p->g, &p->b.region);
}

/* Every point of every plane of batch [first, first + tiles): pack's, then the
 * reference's; the padding floats after each row's n_cols are not pack's (the transform
 * writes them). */
static int check_pack(fx_context *gpu, pass *p, const kernel_case *kc)
{
    fxi_fft_batch *b = &p->b;
    memset(p->host_planes, 0xFF, p->planes_bytes); /* NaN: a point left unwritten shows */
    int ok = FXT_CHECK_OK(fxi_copy_h2d(gpu, p->dev_planes, p->host_planes, p->planes_bytes), gpu) &&
             FXT_CHECK_OK(fxi_fft_pack_launch(gpu, b, gpu->cuda->stream), gpu) &&
             FXT_CHECK_OK(fxi_copy_d2h(gpu, p->host_planes, p->dev_planes, p->planes_bytes), gpu) &&
             FXT_CHECK_OK(fxi_stream_sync(gpu), gpu);
    int bad = 0;
    for (int64_t t = 0; t < b->tiles && ok; t++) {
        const fxi_fft_tile box = ref_tile(b, t);
        for (int c = 0; c < b->planes; c++) {
            const float bias = ref_bias(b, &p->src, &box, c);
            const float *plane = p->host_planes + (t * b->planes + c) * b->plane_floats;
            for (int i = 0; i < b->n_rows; i++)
                for (int j = 0; j < b->n_cols; j++) {
                    int64_t v, x;
                    const float want =
                        fxi_fft_block_point(&box, b->a.kw, b->a.kh, b->a.ax, i, j, &v, &x)
                            ? ref_fetch(&b->a, &p->src, v, x, c) - bias
                            : 0.0f;
                    const float got = plane[i * b->row_floats + j];
                    if (memcmp(&want, &got, sizeof want) && bad++ < 3)
                        fprintf(stderr,
                                "  pack: %dx%dx%d type %d k%dx%d border %d tile %lld (%dx%d) "
                                "channel %d point (%d, %d): %.9g, want %.9g\n",
                                kc->w, kc->h, kc->ch, kc->type, kc->kw, kc->kh, kc->border,
                                (long long)(b->first_tile + t), b->n_cols, b->n_rows, c, j, i,
                                (double)got, (double)want);
                }
        }
    }
    return ok && FXT_CHECK_EQ(bad, 0);
}

/* Random correlations (ties, negatives and values beyond the range among them) through
 * extract, then the reference's outputs of the batch's tiles; the whole output compared,
 * so a write outside the batch's tiles shows too. */
static int check_extract(fx_context *gpu, pass *p, const kernel_case *kc, uint64_t *seed)
{
    fxi_fft_batch *b = &p->b;
    const size_t floats = p->planes_bytes / sizeof(float);
    const double range = kc->type == FX_F32 ? 4.0 : (double)p->a.maxval + 40.0;
    for (size_t k = 0; k < floats; k++) {
        const uint64_t r = fxt_rand(seed);
        /* halves and quarters (ties once the integer response is added) and any fraction */
        const double whole =
            (double)(r % 1000003) / 1000003.0 * range - (kc->type == FX_F32 ? 2 : 20);
        p->host_planes[k] = (float)(r >> 62 == 0 ? floor(whole) + 0.5 * (double)((r >> 20) % 2) +
                                                       0.25 * (double)((r >> 21) % 2)
                                                 : whole);
    }
    int ok = FXT_CHECK_OK(fxi_copy_h2d(gpu, p->dev_planes, p->host_planes, p->planes_bytes), gpu) &&
             FXT_CHECK_OK(fxi_fft_extract_launch(gpu, b, gpu->cuda->stream), gpu) &&
             FXT_CHECK_OK(fx_image_download(gpu, &p->dst, &p->got), gpu) &&
             FXT_CHECK_OK(fxi_stream_sync(gpu), gpu);
    for (int64_t t = 0; t < b->tiles && ok; t++) {
        const fxi_fft_tile box = ref_tile(b, t);
        for (int c = 0; c < p->a.channels; c++) {
            const float response =
                c < b->planes ? fxi_fft_bias_response(p->a.offset, ref_bias(b, &p->src, &box, c),
                                                      b->weight_sum)
                              : 0;
            const float *plane = p->host_planes + (t * b->planes + c) * b->plane_floats;
            for (int r = 0; r < box.oh; r++)
                for (int xl = 0; xl < box.ow; xl++) {
                    const int64_t y = box.y0 + r, e = (box.x0 + xl) * p->a.channels + c;
                    if (c >= b->planes) { /* alpha: the input's row of this output */
                        store(&p->want, y, e,
                              fxt_value_at(&p->src, ref_src_row(&p->a, y + p->a.ay), e));
                        continue;
                    }
                    const float acc = fxi_fft_accumulator(plane[r * b->row_floats + xl], response);
                    store(&p->want, y, e,
                          p->a.integer_image ? fxi_finish_float(acc, p->a.maxval) : acc);
                }
        }
    }
    int bad = 0;
    const size_t row_bytes = (size_t)kc->w * (size_t)kc->ch *
                             (kc->type == FX_U8    ? 1
                              : kc->type == FX_U16 ? 2
                                                   : 4);
    for (int64_t y = 0; y < p->a.rows && ok; y++)
        if (memcmp(fx_image_row(&p->want, (int)y), fx_image_row(&p->got, (int)y), row_bytes)) {
            for (int64_t i = 0; i < (int64_t)kc->w * kc->ch; i++) {
                const double want = fxt_value_at(&p->want, y, i), got = fxt_value_at(&p->got, y, i);
                if (memcmp(&want, &got, sizeof want) && bad++ < 3)
                    fprintf(stderr,
                            "  extract: %dx%dx%d type %d k%dx%d tiles from %lld: row %lld "
                            "element %lld: %.9g, want %.9g\n",
                            kc->w, kc->h, kc->ch, kc->type, kc->kw, kc->kh,
                            (long long)b->first_tile, (long long)y, (long long)i, got, want);
            }
            if (!bad) bad++; /* padding or NaN bits differ */
        }
    return ok && FXT_CHECK_EQ(bad, 0);
}

static void run_cases(int extract)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2);
    fxi_device_guard guard;
    if (!FXT_CHECK_OK(fxi_device_enter(gpu, &guard), gpu)) return;
    static const double weight_sums[] = {1.0, 0.37, -2.5}; /* 1: integer responses, ties */
    int passes = 0;
    for (int i = 0; i < CASES; i++)
        for (int bi = 0; bi < 2; bi++) {
            pass p;
            uint64_t seed = (uint64_t)i * 7919 + (uint64_t)bi * 13 + 1;
            const int made = pass_make(gpu, &kernel_cases[i], budgets[bi], seed, &p);
            if (made < 0) continue; /* no tile fits this budget */
            p.b.weight_sum = weight_sums[(i + bi) % 3];
            int ok = made;
            /* the whole pass, then a region of it away from its origin (a strip's tiles,
             * gpu_fft_geometry.h): the kernels write only inside it */
            const fxi_fft_region whole = p.b.region;
            const fxi_fft_region part = {whole.rows / 3, whole.width / 3,
                                         whole.rows - whole.rows / 3,
                                         whole.width - whole.width / 3};
            for (int region = 0; region < 2 && ok; region++) {
                p.b.region = region ? part : whole;
                p.b.tiles_x = fxi_gpu_fft_tiles_x(&p.g, p.b.region.width);
                const int64_t total = made ? pass_tiles(&p) : 0;
                for (p.b.first_tile = 0; p.b.first_tile < total && ok;
                     p.b.first_tile += BATCH_TILES) {
                    p.b.tiles =
                        total - p.b.first_tile < BATCH_TILES ? total - p.b.first_tile : BATCH_TILES;
                    ok = extract ? check_extract(gpu, &p, &kernel_cases[i], &seed)
                                 : check_pack(gpu, &p, &kernel_cases[i]);
                }
            }
            if (!ok)
                fprintf(stderr, "  case %d (budget %zu, %dx%d tiles) differs\n", i, budgets[bi],
                        p.g.n_cols, p.g.n_rows);
            passes += ok;
            fxi_device_free(gpu, p.dev_planes);
            pass_free(&p);
        }
    FXT_CHECK(passes >= CASES); /* every case ran at least with the large budget */
    fxi_device_leave(&guard);
    fx_context_destroy(gpu);
}

FXT_TEST(pack_matches_reference)
{
    run_cases(0);
}

FXT_TEST(extract_matches_reference)
{
    run_cases(1);
}

/* Spectra multiplied two bins a thread (planes with an even count of bins: every plane
 * the geometry makes) and one (an odd count, a batch made up here), against
 * fxi_fft_modulate on the host: bit for bit (no fused multiply-add on either side). */
FXT_TEST(multiply_matches_reference)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2);
    fxi_device_guard guard;
    if (!FXT_CHECK_OK(fxi_device_enter(gpu, &guard), gpu)) return;
    static const struct {
        int64_t bins; /* complex values a plane */
        int tiles, planes;
    } shapes[] = {{384 * 257, 5, 3}, {16 * 9, 7, 1}, {15 * 9, 3, 4}, {1, 2, 2}, {24 * 13, 1, 1}};
    uint64_t seed = 99;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int64_t planes = (int64_t)shapes[s].tiles * shapes[s].planes;
        const size_t n = (size_t)(shapes[s].bins * 2 * planes), spec_n = (size_t)shapes[s].bins * 2;
        float *data = malloc(n * sizeof *data), *want = malloc(n * sizeof *want);
        float *spec = malloc(spec_n * sizeof *spec), *dd = NULL, *ds = NULL;
        for (size_t k = 0; k < n; k++)
            data[k] = want[k] =
                (float)((double)(fxt_rand(&seed) >> 40) / 16777216.0 * 200.0 - 100.0);
        for (size_t k = 0; k < spec_n; k++)
            spec[k] = (float)((double)(fxt_rand(&seed) >> 40) / 16777216.0 * 2.0 - 1.0);
        for (int64_t pl = 0; pl < planes; pl++)
            for (int64_t k = 0; k < shapes[s].bins; k++) {
                float *x = want + (size_t)(pl * shapes[s].bins + k) * 2;
                fxi_fft_modulate(&x[0], &x[1], spec[2 * k], spec[2 * k + 1]);
            }
        fxi_fft_batch b;
        memset(&b, 0, sizeof b);
        b.plane_floats = shapes[s].bins * 2;
        b.tiles = shapes[s].tiles;
        b.planes = shapes[s].planes;
        int ok = FXT_CHECK_OK(fxi_device_alloc(gpu, n * sizeof *data, (void **)&dd), gpu) &&
                 FXT_CHECK_OK(fxi_device_alloc(gpu, spec_n * sizeof *spec, (void **)&ds), gpu) &&
                 FXT_CHECK_OK(fxi_copy_h2d(gpu, dd, data, n * sizeof *data), gpu) &&
                 FXT_CHECK_OK(fxi_copy_h2d(gpu, ds, spec, spec_n * sizeof *spec), gpu);
        b.data = dd;
        b.spectrum = ds;
        ok = ok && FXT_CHECK_OK(fxi_fft_multiply_launch(gpu, &b, gpu->cuda->stream), gpu) &&
             FXT_CHECK_OK(fxi_copy_d2h(gpu, data, dd, n * sizeof *data), gpu) &&
             FXT_CHECK_OK(fxi_stream_sync(gpu), gpu);
        if (ok && !FXT_CHECK(!memcmp(data, want, n * sizeof *data)))
            fprintf(stderr, "  multiply: %lld bins x %lld planes differ\n",
                    (long long)shapes[s].bins, (long long)planes);
        fxi_device_free(gpu, dd);
        fxi_device_free(gpu, ds);
        free(data);
        free(want);
        free(spec);
    }
    fxi_device_leave(&guard);
    fx_context_destroy(gpu);
}

GPU_TEST_MAIN(FXT_CASE(pack_matches_reference), FXT_CASE(extract_matches_reference),
              FXT_CASE(multiply_matches_reference))

#else

int main(void)
{
    printf("skipped: no GPU (built without CUDA)\n");
    return 77;
}

#endif
