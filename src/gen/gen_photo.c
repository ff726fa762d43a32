/* Photo-like synthetic images.
 *
 * Real photographs have most of their energy at low spatial frequencies, a few
 * hard edges between objects, fine texture and a little sensor noise; filters
 * and equalizers behave on them quite differently than on white noise. This
 * generator layers exactly those, all deterministic from the seed:
 *
 *   1. background: smooth value noise (a coarse and a medium octave of luminance,
 *      plus a coarse octave per colour channel for chroma);
 *   2. PHOTO_MIN_SHAPES..PHOTO_MAX_SHAPES filled ellipses and rectangles with
 *      hard edges and a vertical shading ramp, painted in order;
 *   3. fine texture: value noise with a cell of a few pixels;
 *   4. per-sample noise.
 *
 * Cost: value noise is evaluated separably. The horizontal lattice position of
 * every column is computed once per image; per row, each field's lattice row is
 * interpolated vertically once; per pixel only a horizontal lerp remains.
 * Shapes are painted as spans computed analytically per row. Alpha channels
 * (2 and 4 channels) are opaque.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"

enum {
    FIELD_LUM_COARSE,
    FIELD_LUM_MEDIUM,
    FIELD_CHROMA_0, /* FIELD_CHROMA_0 + k for colour channel k */
    FIELD_CHROMA_1,
    FIELD_CHROMA_2,
    FIELD_TEXTURE,
    FIELD_COUNT
};

#define PHOTO_MAX_COLOURS 3
/* Lattice cell of each field: a fraction of the image's longer side, or pixels
 * for the texture. */
#define PHOTO_COARSE_DIVISOR 3.0f
#define PHOTO_MEDIUM_DIVISOR 11.0f
#define PHOTO_CHROMA_DIVISOR 4.0f
#define PHOTO_TEXTURE_CELL 3.0f
/* Mix of the background: luminance octaves, then luminance vs chroma, mapped into
 * [PHOTO_FLOOR, PHOTO_FLOOR + PHOTO_RANGE] so that there is headroom both ways. */
#define PHOTO_COARSE_WEIGHT 0.6f
#define PHOTO_LUM_WEIGHT 0.7f
#define PHOTO_FLOOR 0.1f
#define PHOTO_RANGE 0.8f
/* Shapes: count, radius as a fraction of the image side, shading slope. */
#define PHOTO_MIN_SHAPES 6
#define PHOTO_MAX_SHAPES 14
#define PHOTO_ELLIPSE_SHARE 0.6f /* the rest are rectangles */
#define PHOTO_MIN_RADIUS 0.03f
#define PHOTO_RADIUS_SPREAD 0.2f
#define PHOTO_MAX_SHADE 0.3f
/* Peak-to-peak amplitude of the texture and of the per-sample noise. */
#define PHOTO_TEXTURE_AMPLITUDE 0.08f
#define PHOTO_NOISE_AMPLITUDE 0.03f
#define PHOTO_NOISE_BITS 16

/* Stream numbers for fxi_gen_key. */
#define STREAM_FIELD 100 /* + field index */
#define STREAM_SHAPES 200
#define STREAM_NOISE 201
/* Index of the shape-count draw in the shapes' stream, apart from the shapes' own. */
#define SHAPE_COUNT_INDEX UINT64_MAX

typedef struct noise_field {
    uint64_t key;
    float inv_cell;
    uint32_t *gx;  /* per column x: lattice column left of x */
    float *tx;     /* per column x: smoothed position between gx and gx + 1 */
    size_t cols;   /* lattice columns needed: gx[w - 1] + 2 */
    size_t offset; /* of this field's interpolated lattice row in a worker's workspace */
} noise_field;

typedef struct shape {
    int is_ellipse;
    float cx, cy, rx, ry; /* centre and half-sizes in pixels */
    float shade;          /* brightness change from centre to top/bottom edge */
    float colour[PHOTO_MAX_COLOURS];
} shape;

typedef struct photo_job {
    fx_image *img;
    int colours; /* 1 (gray) or 3 (RGB); further channels are alpha */
    noise_field fields[FIELD_COUNT];
    shape shapes[PHOTO_MAX_SHAPES];
    int shape_count;
    uint64_t noise_key;
    float *workspace; /* per worker: lattice rows, then one row of colours */
    size_t workspace_floats;
} photo_job;

static float smooth(float t)
{
    return t * t * (3.0f - 2.0f * t);
}

static float lerp(float a, float b, float t)
{
    return a + (b - a) * t;
}

static void field_setup(noise_field *f, uint64_t seed, int index, float cell, int width)
{
    if (cell < 1.0f) cell = 1.0f;
    f->key = fxi_gen_key(seed, STREAM_FIELD + (uint64_t)index);
    f->inv_cell = 1.0f / cell;
    for (int x = 0; x < width; x++) {
        float fx = (float)x * f->inv_cell;
        float g = floorf(fx);
        f->gx[x] = (uint32_t)g;
        f->tx[x] = smooth(fx - g);
    }
    f->cols = (size_t)f->gx[width - 1] + 2;
}

/* The field's lattice row interpolated vertically at image row y. */
static void field_row(const noise_field *f, size_t y, float *out)
{
    float fy = (float)y * f->inv_cell;
    float g = floorf(fy);
    float t = smooth(fy - g);
    uint64_t gy = (uint64_t)g;
    for (size_t gx = 0; gx < f->cols; gx++) {
        float top = fxi_gen_unit_f(fxi_gen_hash2(f->key, gx, gy));
        float bottom = fxi_gen_unit_f(fxi_gen_hash2(f->key, gx, gy + 1));
        out[gx] = lerp(top, bottom, t);
    }
}

static float field_at(const noise_field *f, const float *row, size_t x)
{
    uint32_t g = f->gx[x];
    return lerp(row[g], row[g + 1], f->tx[x]);
}

/* Draw number *draw of shape s, in [0, 1): hash(s, draw), so adding a property
 * never shifts the others. */
static float shape_draw(uint64_t key, int s, int *draw)
{
    return fxi_gen_unit_f(fxi_gen_hash2(key, (uint64_t)s, (uint64_t)(*draw)++));
}

static void shapes_setup(photo_job *job, uint64_t seed)
{
    const float w = (float)job->img->width, h = (float)job->img->height;
    uint64_t key = fxi_gen_key(seed, STREAM_SHAPES);
    job->shape_count = PHOTO_MIN_SHAPES + (int)(fxi_gen_hash1(key, SHAPE_COUNT_INDEX) %
                                                (PHOTO_MAX_SHAPES - PHOTO_MIN_SHAPES + 1));
    for (int s = 0; s < job->shape_count; s++) {
        shape *sh = &job->shapes[s];
        int draw = 0;
        sh->is_ellipse = shape_draw(key, s, &draw) < PHOTO_ELLIPSE_SHARE;
        sh->cx = shape_draw(key, s, &draw) * w;
        sh->cy = shape_draw(key, s, &draw) * h;
        sh->rx = (PHOTO_MIN_RADIUS + PHOTO_RADIUS_SPREAD * shape_draw(key, s, &draw)) * w;
        sh->ry = (PHOTO_MIN_RADIUS + PHOTO_RADIUS_SPREAD * shape_draw(key, s, &draw)) * h;
        sh->shade = (2.0f * shape_draw(key, s, &draw) - 1.0f) * PHOTO_MAX_SHADE;
        for (int k = 0; k < PHOTO_MAX_COLOURS; k++)
            sh->colour[k] = PHOTO_FLOOR + PHOTO_RANGE * shape_draw(key, s, &draw);
    }
}

/* Columns [*x0, *x1) that a shape covers on row y (pixel centres inside); 0 if none. */
static int shape_span(const shape *sh, size_t y, int width, int *x0, int *x1, float *dy)
{
    *dy = ((float)y + 0.5f - sh->cy) / sh->ry;
    if (!(fabsf(*dy) < 1.0f)) return 0;
    float half = sh->is_ellipse ? sh->rx * sqrtf(1.0f - *dy * *dy) : sh->rx;
    float left = ceilf(sh->cx - half - 0.5f), right = floorf(sh->cx + half - 0.5f) + 1.0f;
    if (left < 0.0f) left = 0.0f;
    if (right > (float)width) right = (float)width;
    if (!(left < right)) return 0;
    *x0 = (int)left;
    *x1 = (int)right;
    return 1;
}

static void photo_rows(void *arg, size_t begin, size_t end, int worker)
{
    const photo_job *job = arg;
    const fx_image *img = job->img;
    const int width = img->width, ch = img->channels, colours = job->colours;
    float *lattice = job->workspace + (size_t)worker * job->workspace_floats;
    float *colour_row =
        lattice + job->fields[FIELD_COUNT - 1].offset + job->fields[FIELD_COUNT - 1].cols;
    const float noise_scale = PHOTO_NOISE_AMPLITUDE / (float)(1u << PHOTO_NOISE_BITS);
    const uint64_t noise_mask = (UINT64_C(1) << PHOTO_NOISE_BITS) - 1;

    for (size_t y = begin; y < end; y++) {
        for (int f = 0; f < FIELD_COUNT; f++)
            field_row(&job->fields[f], y, lattice + job->fields[f].offset);
        const float *coarse = lattice + job->fields[FIELD_LUM_COARSE].offset;
        const float *medium = lattice + job->fields[FIELD_LUM_MEDIUM].offset;

        /* 1. background */
        for (int x = 0; x < width; x++) {
            float lum = lerp(field_at(&job->fields[FIELD_LUM_MEDIUM], medium, (size_t)x),
                             field_at(&job->fields[FIELD_LUM_COARSE], coarse, (size_t)x),
                             PHOTO_COARSE_WEIGHT);
            for (int k = 0; k < colours; k++) {
                float v = lum;
                if (colours > 1) {
                    const noise_field *f = &job->fields[FIELD_CHROMA_0 + k];
                    v = lerp(field_at(f, lattice + f->offset, (size_t)x), lum, PHOTO_LUM_WEIGHT);
                }
                colour_row[(size_t)x * (size_t)colours + (size_t)k] = PHOTO_FLOOR + PHOTO_RANGE * v;
            }
        }
        /* 2. shapes, in order, so later ones cover earlier ones */
        for (int s = 0; s < job->shape_count; s++) {
            const shape *sh = &job->shapes[s];
            int x0, x1;
            float dy;
            if (!shape_span(sh, y, width, &x0, &x1, &dy)) continue;
            float gain = 1.0f + sh->shade * dy;
            for (int x = x0; x < x1; x++)
                for (int k = 0; k < colours; k++)
                    colour_row[(size_t)x * (size_t)colours + (size_t)k] = sh->colour[k] * gain;
        }
        /* 3. texture and 4. noise, then store */
        const noise_field *tex = &job->fields[FIELD_TEXTURE];
        const float *tex_row = lattice + tex->offset;
        uint64_t row_key = fxi_gen_hash1(job->noise_key, y);
        uint8_t *out = fx_image_row(img, (int)y);
        for (int x = 0; x < width; x++) {
            float texture = (field_at(tex, tex_row, (size_t)x) - 0.5f) * PHOTO_TEXTURE_AMPLITUDE;
            uint64_t bits = fxi_gen_hash1(row_key, (uint64_t)x);
            size_t i = (size_t)x * (size_t)ch;
            for (int k = 0; k < colours; k++) {
                float noise = (float)((bits >> (PHOTO_NOISE_BITS * k)) & noise_mask) * noise_scale -
                              0.5f * PHOTO_NOISE_AMPLITUDE;
                float v = colour_row[(size_t)x * (size_t)colours + (size_t)k] + texture + noise;
                fxi_gen_store_unit(out, i + (size_t)k, img->type, v);
            }
            for (int k = colours; k < ch; k++)
                fxi_gen_store_unit(out, i + (size_t)k, img->type, 1.0f);
        }
    }
}

fx_status fxi_gen_photo(fx_context *ctx, const fx_gen_image_params *p, fx_image *img)
{
    photo_job job;
    memset(&job, 0, sizeof job);
    job.img = img;
    job.colours = img->channels >= PHOTO_MAX_COLOURS ? PHOTO_MAX_COLOURS : 1;
    job.noise_key = fxi_gen_key(p->seed, STREAM_NOISE);

    const size_t width = (size_t)img->width;
    const float side = (float)(img->width > img->height ? img->width : img->height);
    const float cells[FIELD_COUNT] = {[FIELD_LUM_COARSE] = side / PHOTO_COARSE_DIVISOR,
                                      [FIELD_LUM_MEDIUM] = side / PHOTO_MEDIUM_DIVISOR,
                                      [FIELD_CHROMA_0] = side / PHOTO_CHROMA_DIVISOR,
                                      [FIELD_CHROMA_1] = side / PHOTO_CHROMA_DIVISOR,
                                      [FIELD_CHROMA_2] = side / PHOTO_CHROMA_DIVISOR,
                                      [FIELD_TEXTURE] = PHOTO_TEXTURE_CELL};

    /* Per-column tables of every field: gx (uint32) and tx (float), one block. */
    void *tables;
    FXI_TRY(fxi_calloc(ctx, (size_t)FIELD_COUNT * width, sizeof(uint32_t) + sizeof(float), &tables));
    size_t lattice_floats = 0;
    for (int f = 0; f < FIELD_COUNT; f++) {
        noise_field *nf = &job.fields[f];
        nf->gx = (uint32_t *)tables + (size_t)f * width;
        nf->tx = (float *)((uint32_t *)tables + (size_t)FIELD_COUNT * width) + (size_t)f * width;
        field_setup(nf, p->seed, f, cells[f], img->width);
        nf->offset = lattice_floats;
        lattice_floats += nf->cols;
    }
    shapes_setup(&job, p->seed);

    job.workspace_floats = lattice_floats + width * (size_t)job.colours;
    void *workspace;
    fx_status st =
        fxi_calloc(ctx, (size_t)ctx->threads, job.workspace_floats * sizeof(float), &workspace);
    if (st != FX_OK) {
        free(tables);
        return st;
    }
    job.workspace = workspace;
    /* A row costs about as much as a few thousand hashes: small grains balance well. */
    fxi_parallel_for(ctx, (size_t)img->height, 1, photo_rows, &job);
    free(workspace);
    free(tables);
    return FX_OK;
}
