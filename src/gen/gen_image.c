/* Synthetic images: noise, gradient and checker (exact formulas), and the
 * dispatch to the photo-like generator. Rows are filled in parallel; every
 * sample depends only on (x, y, c, seed, params).
 *
 * Exact formulas (MAX = 255 for u8, 65535 for u16, 1 for f32):
 *
 *   noise     h = hash(key(seed), y, x * channels + c)
 *             u8: h >> 56, u16: h >> 48, f32: (h >> 40) / 2^24, in [0, 1)
 *   gradient  a ramp num/den per channel, den = 0 giving 0:
 *               c0: x / (w - 1)   c1: y / (h - 1)   c2: (x + y) / (w + h - 2)
 *               c3: (w - 1 - x) / (w - 1)
 *             integers: floor((2 * num * MAX + den) / (2 * den)) (nearest, halves up)
 *             f32: (float)((double)num / den)
 *   checker   MAX where (x / cell + y / cell) is odd, else 0, in every channel
 *             (the top-left cell is 0)
 */
#include <string.h>

#include "gen_internal.h"


/* Rows per parallel chunk: at least this many samples, so that small images are
 * not split into chunks smaller than the cost of handing them out. */
#define GEN_MIN_SAMPLES_PER_CHUNK 16384

/* Stream numbers of fxi_gen_key for the image kinds (photo has its own). */
#define GEN_STREAM_NOISE 1

#define U8_MAX_VALUE 255u
#define U16_MAX_VALUE 65535u

void fx_gen_image_params_init(fx_gen_image_params *p)
{
    memset(p, 0, sizeof *p);
    p->kind = FX_GEN_PHOTO;
    p->width = FX_DEFAULT_GEN_IMAGE_WIDTH;
    p->height = FX_DEFAULT_GEN_IMAGE_HEIGHT;
    p->channels = FX_DEFAULT_GEN_IMAGE_CHANNELS;
    p->type = FX_U8;
    p->seed = FX_DEFAULT_GEN_SEED;
    p->cell = FX_DEFAULT_GEN_CELL;
}

void fxi_gen_store_unit(uint8_t *row, size_t i, fx_sample_type type, float v)
{
    if (!(v > 0.0f)) v = 0.0f;
    if (v > 1.0f) v = 1.0f;
    switch (type) {
    case FX_U8: row[i] = (uint8_t)(v * (float)U8_MAX_VALUE + 0.5f); break;
    case FX_U16: ((uint16_t *)(void *)row)[i] = (uint16_t)(v * (float)U16_MAX_VALUE + 0.5f); break;
    default: ((float *)(void *)row)[i] = v; break;
    }
}

/* Sample i of a row set to num/den of full scale (see the formula above). */
static void store_ratio(uint8_t *row, size_t i, fx_sample_type type, uint64_t num, uint64_t den)
{
    if (den == 0) num = 0, den = 1;
    switch (type) {
    case FX_U8: row[i] = (uint8_t)((2 * num * U8_MAX_VALUE + den) / (2 * den)); break;
    case FX_U16:
        ((uint16_t *)(void *)row)[i] = (uint16_t)((2 * num * U16_MAX_VALUE + den) / (2 * den));
        break;
    default: ((float *)(void *)row)[i] = (float)((double)num / (double)den); break;
    }
}

/* Sample i of a row from the top bits of a hash: uniform over the type's range. */
static void store_bits(uint8_t *row, size_t i, fx_sample_type type, uint64_t h)
{
    switch (type) {
    case FX_U8: row[i] = (uint8_t)(h >> 56); break;
    case FX_U16: ((uint16_t *)(void *)row)[i] = (uint16_t)(h >> 48); break;
    default: ((float *)(void *)row)[i] = fxi_gen_unit_f(h); break;
    }
}

typedef struct image_job {
    const fx_gen_image_params *p;
    fx_image *img;
    uint64_t noise_key;
} image_job;

static void noise_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const image_job *job = arg;
    const fx_image *img = job->img;
    size_t n = (size_t)img->width * (size_t)img->channels;
    for (size_t y = begin; y < end; y++) {
        uint8_t *row = fx_image_row(img, (int)y);
        uint64_t row_key = fxi_gen_hash1(job->noise_key, y);
        for (size_t i = 0; i < n; i++)
            store_bits(row, i, img->type, fxi_gen_hash1(row_key, i));
    }
}

static void gradient_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const image_job *job = arg;
    const fx_image *img = job->img;
    const uint64_t w1 = (uint64_t)img->width - 1, h1 = (uint64_t)img->height - 1;
    const int ch = img->channels;
    for (size_t y = begin; y < end; y++) {
        uint8_t *row = fx_image_row(img, (int)y);
        for (uint64_t x = 0; x <= w1; x++) {
            /* Numerator and denominator of each channel's ramp, in channel order. */
            const uint64_t num[FX_MAX_IMAGE_CHANNELS] = {x, y, x + y, w1 - x};
            const uint64_t den[FX_MAX_IMAGE_CHANNELS] = {w1, h1, w1 + h1, w1};
            for (int c = 0; c < ch; c++)
                store_ratio(row, (size_t)x * (size_t)ch + (size_t)c, img->type, num[c], den[c]);
        }
    }
}

static void checker_rows(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const image_job *job = arg;
    const fx_image *img = job->img;
    const size_t cell = (size_t)job->p->cell;
    const int ch = img->channels;
    for (size_t y = begin; y < end; y++) {
        uint8_t *row = fx_image_row(img, (int)y);
        for (size_t x = 0; x < (size_t)img->width; x++) {
            uint64_t on = (x / cell + y / cell) & 1;
            for (int c = 0; c < ch; c++)
                store_ratio(row, x * (size_t)ch + (size_t)c, img->type, on, 1);
        }
    }
}

static fx_status validate_image_params(fx_context *ctx, const fx_gen_image_params *p)
{
    FXI_RETURN_IF(p->kind < FX_GEN_NOISE || p->kind > FX_GEN_PHOTO, FX_EINVAL,
                 "image generator: unknown kind %d", (int)p->kind);
    FXI_RETURN_IF(p->kind == FX_GEN_CHECKER && p->cell < 1, FX_ERANGE,
                 "image generator: checker cell size %d must be at least 1 pixel", p->cell);
    FXI_RETURN_IF(p->channels < 1 || p->channels > FX_MAX_IMAGE_CHANNELS, FX_EINVAL,
                 "image generator: %d channels (allowed: 1 to %d)", p->channels,
                 FX_MAX_IMAGE_CHANNELS);
    return FX_OK;
}

fx_status fx_gen_image(fx_context *ctx, const fx_gen_image_params *p, fx_image *img)
{
    if (!ctx || !p || !img) return fxi_error(ctx, FX_EINVAL, "image generator: NULL argument");
    memset(img, 0, sizeof *img);
    FXI_TRY(validate_image_params(ctx, p));
    FXI_TRY(fx_image_alloc(ctx, img, p->width, p->height, p->channels, p->type));

    if (p->kind == FX_GEN_PHOTO) {
        fx_status st = fxi_gen_photo(ctx, p, img);
        if (st != FX_OK) fx_image_free(img);
        return st;
    }
    static const fxi_range_fn row_fns[] = {[FX_GEN_NOISE] = noise_rows,
                                           [FX_GEN_GRADIENT] = gradient_rows,
                                           [FX_GEN_CHECKER] = checker_rows};
    image_job job = {p, img, fxi_gen_key(p->seed, GEN_STREAM_NOISE)};
    size_t row_samples = (size_t)p->width * (size_t)p->channels;
    size_t grain = GEN_MIN_SAMPLES_PER_CHUNK / row_samples + 1;
    fxi_parallel_for(ctx, (size_t)p->height, grain, row_fns[p->kind], &job);
    return FX_OK;
}
