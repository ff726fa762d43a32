/* Named kernels: identity, box, gaussian, sharpen, edge, edge4, emboss, sobel.
 *
 * Gaussian weights follow OpenCV 4.6 to the bit: getGaussianKernel's float weights for
 * float images (its fixed tables for K <= 7 when no sigma is given), and
 * cv2.GaussianBlur's fixed-point weights for integer images (getGaussianKernelBitExact
 * quantised by error diffusion to 8 fraction bits for u8, 16 for u16, the centre tap
 * taking the remainder so the weights sum to exactly one).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_internal.h"

/* Sigma from the size when none is given: 0.3 * ((n - 1) * 0.5 - 1) + 0.8, written as
 * OpenCV evaluates it (n * 0.15 + 0.35). */
#define GAUSS_SIGMA_PER_TAP 0.15
#define GAUSS_SIGMA_BASE 0.35
/* getGaussianKernel's fixed tables cover sizes up to this; the fixed-point path's up to 9. */
#define GAUSS_FLOAT_TABLE_MAX 7
#define GAUSS_FIXED_TABLE_MAX 9

static const double gauss_table_3[] = {0.25, 0.5, 0.25};
static const double gauss_table_5[] = {0.0625, 0.25, 0.375, 0.25, 0.0625};
static const double gauss_table_7[] = {0.03125, 0.109375, 0.21875, 0.28125,
                                       0.21875, 0.109375, 0.03125};
static const double gauss_table_9[] = {4.0 / 256,  13.0 / 256, 30.0 / 256, 51.0 / 256, 60.0 / 256,
                                       51.0 / 256, 30.0 / 256, 13.0 / 256, 4.0 / 256};

static const double *gauss_table(int n, int max_n)
{
    if (n > max_n) return NULL;
    switch (n) {
    case 3: return gauss_table_3;
    case 5: return gauss_table_5;
    case 7: return gauss_table_7;
    case 9: return gauss_table_9;
    default: return NULL;
    }
}

/* exp(-x^2 / (2 sigma^2)) for the taps, x = i - (n - 1) / 2, normalised to sum 1, in the
 * order OpenCV sums them. `half` computes only the first (n + 1) / 2 taps and sums the
 * mirrored half twice (getGaussianKernelBitExact), else every tap in order. */
static void gauss_values(int n, double sigma, int half, double *w)
{
    double s = sigma > 0 ? sigma : n * GAUSS_SIGMA_PER_TAP + GAUSS_SIGMA_BASE;
    double scale2 = -0.125 / (s * s); /* x runs over odd numbers 1 - n … n - 1: twice i - c */
    if (!half) {
        double sum = 0;
        for (int i = 0, x = 1 - n; i < n; i++, x += 2) {
            w[i] = exp((double)(x * x) * scale2);
            sum += w[i];
        }
        double inv = 1.0 / sum;
        for (int i = 0; i < n; i++)
            w[i] *= inv;
        return;
    }
    int n2 = (n - 1) / 2;
    double sum = 0;
    for (int i = 0, x = 1 - n; i < n2; i++, x += 2) {
        w[i] = exp((double)(x * x) * scale2);
        sum += w[i];
    }
    sum = sum * 2 + 1; /* the centre tap is exp(0) = 1 */
    double inv = 1.0 / sum;
    for (int i = 0; i < n2; i++) {
        w[i] *= inv;
        w[n - 1 - i] = w[i];
    }
    w[n2] = inv;
}

void fxi_gaussian_float(int n, double sigma, double *w)
{
    const double *table = sigma > 0 ? NULL : gauss_table(n, GAUSS_FLOAT_TABLE_MAX);
    if (n == 1)
        w[0] = 1;
    else if (table)
        memcpy(w, table, (size_t)n * sizeof *w);
    else
        gauss_values(n, sigma, 0, w);
    for (int i = 0; i < n; i++)
        w[i] = (float)w[i]; /* OpenCV hands float images a CV_32F kernel */
}

void fxi_gaussian_fixed(int n, double sigma, int bits, double *w, int64_t *num)
{
    const double *table = sigma > 0 ? NULL : gauss_table(n, GAUSS_FIXED_TABLE_MAX);
    if (n == 1)
        w[0] = 1;
    else if (table)
        memcpy(w, table, (size_t)n * sizeof *w);
    else
        gauss_values(n, sigma, 1, w);
    /* Error diffusion from the outside in, ties to even (cvRound); the centre takes what
     * is left so that the taps sum to exactly 2^bits. */
    const double one = (double)((int64_t)1 << bits);
    double err = 0;
    int64_t sum = 0;
    int n2 = n / 2;
    for (int i = 0; i < n2; i++) {
        double adj = w[i] * one + err;
        int64_t v = (int64_t)nearbyint(adj);
        err = adj - (double)v;
        num[i] = num[n - 1 - i] = v;
        sum += v;
    }
    num[n2] = ((int64_t)1 << bits) - 2 * sum;
}

/* ---- the table ---- */

typedef struct preset_args {
    int n;        /* numbers after the name */
    double v[2];  /* gaussian:K:SIGMA */
    int kw, kh;   /* box:KWxKH */
    char variant; /* emboss:h|v|d */
} preset_args;

typedef struct preset preset;
typedef fx_status (*preset_build)(fx_context *ctx, const char *spec, const preset *p,
                                  const preset_args *a, fx_kernel **out);

/* A small integer kernel, exact. */
static fx_status build_fixed(fx_context *ctx, const char *spec, int size, const int *taps, int den,
                             fx_kernel **out)
{
    FXI_TRY(fxi_kernel_new(ctx, size, size, true, spec, out));
    fx_kernel *k = *out;
    for (int i = 0; i < size * size; i++) {
        k->exact.num[i] = taps[i];
        k->weights[i] = (double)taps[i] / den;
    }
    k->exact.den = den;
    return FX_OK;
}

static const int identity_taps[] = {1};
static const int sharpen_taps[] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
static const int edge_taps[] = {-1, -1, -1, -1, 8, -1, -1, -1, -1};
static const int edge4_taps[] = {0, -1, 0, -1, 4, -1, 0, -1, 0};
static const int sobel_x_taps[] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
static const int sobel_y_taps[] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
static const int emboss_d_taps[] = {-1, -1, 0, -1, 0, 1, 0, 1, 1};
static const int emboss_h_taps[] = {-1, -1, -1, 0, 0, 0, 1, 1, 1};
static const int emboss_v_taps[] = {-1, 0, 1, -1, 0, 1, -1, 0, 1};

/* A preset with fixed taps: its table row names them. */
static fx_status build_taps(fx_context *ctx, const char *spec, const preset *p,
                            const preset_args *a, fx_kernel **out);

static fx_status build_emboss(fx_context *ctx, const char *spec, const preset *p,
                              const preset_args *a, fx_kernel **out)
{
    (void)p;
    const int *taps = a->variant == 'h'   ? emboss_h_taps
                      : a->variant == 'v' ? emboss_v_taps
                                          : emboss_d_taps;
    FXI_TRY(build_fixed(ctx, spec, 3, taps, 1, out));
    (*out)->mid_offset = true;
    return FX_OK;
}

static fx_status build_box(fx_context *ctx, const char *spec, const preset *p, const preset_args *a,
                           fx_kernel **out)
{
    (void)p;
    FXI_TRY(fxi_kernel_new(ctx, a->kw, a->kh, true, spec, out));
    fx_kernel *k = *out;
    int64_t area = (int64_t)a->kw * a->kh;
    for (int64_t i = 0; i < area; i++) {
        k->exact.num[i] = 1;
        k->weights[i] = 1.0 / (double)area;
    }
    k->exact.den = area;
    k->box = true;
    return FX_OK;
}

static fx_status build_gaussian(fx_context *ctx, const char *spec, const preset *p,
                                const preset_args *a, fx_kernel **out)
{
    (void)p;
    int n = (int)a->v[0];
    double sigma = a->n > 1 ? a->v[1] : 0;
    FXI_TRY(fxi_kernel_new(ctx, n, n, false, spec, out));
    fx_kernel *k = *out;
    k->kind = FXI_KERNEL_GAUSSIAN;
    k->sigma_x = k->sigma_y = sigma;
    double *w1 = malloc((size_t)n * sizeof *w1);
    if (!w1) {
        fx_kernel_free(k);
        *out = NULL;
        return fxi_error(ctx, FX_ENOMEM, "out of memory for a %d-tap gaussian", n);
    }
    fxi_gaussian_float(n, sigma, w1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            k->weights[(size_t)i * n + j] = w1[i] * w1[j];
    free(w1);
    return FX_OK;
}

typedef enum preset_params {
    PARAMS_NONE,     /* "sharpen" */
    PARAMS_SIZE,     /* "box:K" or "box:KWxKH" */
    PARAMS_GAUSSIAN, /* "gaussian:K[:SIGMA]" */
    PARAMS_VARIANT   /* "emboss[:h|v|d]" */
} preset_params;

struct preset {
    const char *name;
    preset_params params;
    const char *syntax;
    const char *help;
    preset_build build;
    const int *taps; /* build_taps: size x size weights */
    int size;
};

static fx_status build_taps(fx_context *ctx, const char *spec, const preset *p,
                            const preset_args *a, fx_kernel **out)
{
    (void)a;
    return build_fixed(ctx, spec, p->size, p->taps, 1, out);
}

static const preset presets[] = {
    {"identity", PARAMS_NONE, "identity", "1x1 [1]: a copy (with --scale/--offset, a level map)",
     build_taps, identity_taps, 1},
    {"box", PARAMS_SIZE, "box:K | box:KWxKH", "mean of a KxK (or KWxKH) window", build_box, NULL,
     0},
    {"gaussian", PARAMS_GAUSSIAN, "gaussian:K[:SIGMA]",
     "OpenCV's Gaussian (K odd; SIGMA default 0.3*((K-1)/2-1)+0.8)", build_gaussian, NULL, 0},
    {"sharpen", PARAMS_NONE, "sharpen", "0 -1 0; -1 5 -1; 0 -1 0", build_taps, sharpen_taps, 3},
    {"edge", PARAMS_NONE, "edge", "-1 -1 -1; -1 8 -1; -1 -1 -1 (8-neighbour Laplacian)", build_taps,
     edge_taps, 3},
    {"edge4", PARAMS_NONE, "edge4", "0 -1 0; -1 4 -1; 0 -1 0 (4-neighbour Laplacian)", build_taps,
     edge4_taps, 3},
    {"emboss", PARAMS_VARIANT, "emboss[:d|h|v]",
     "d: -1 -1 0; -1 0 1; 0 1 1, h: rows -1/0/+1, v: columns -1/0/+1; plus mid-grey "
     "(128 on 8-bit)",
     build_emboss, NULL, 0},
    {"sobel-x", PARAMS_NONE, "sobel-x",
     "-1 0 1; -2 0 2; -1 0 1 (negative values clip on "
     "integer images)",
     build_taps, sobel_x_taps, 3},
    {"sobel-y", PARAMS_NONE, "sobel-y", "-1 -2 -1; 0 0 0; 1 2 1", build_taps, sobel_y_taps, 3},
};
#define PRESET_COUNT (int)(sizeof presets / sizeof *presets)

int fx_kernel_preset_list(int index, const char **syntax, const char **help)
{
    const preset *p = index >= 0 && index < PRESET_COUNT ? &presets[index] : NULL;
    if (syntax) *syntax = p ? p->syntax : NULL;
    if (help) *help = p ? p->help : NULL;
    return PRESET_COUNT;
}

/* A positive integer size from text, with a message naming the preset. */
static fx_status parse_size(fx_context *ctx, const char *spec, const char *text, char **end,
                            int *out)
{
    errno = 0;
    long v = strtol(text, end, 10);
    FXI_RETURN_IF(*end == text, FX_EINVAL, "kernel '%s': expected a size after ':'", spec);
    FXI_RETURN_IF(errno || v < 1 || v > FX_KERNEL_MAX_SIDE, FX_ERANGE,
                 "kernel '%s': size %.*s is outside 1 … %d", spec, (int)(*end - text), text,
                 FX_KERNEL_MAX_SIDE);
    *out = (int)v;
    return FX_OK;
}

static fx_status parse_args(fx_context *ctx, const char *spec, const preset *p, const char *rest,
                            preset_args *a)
{
    memset(a, 0, sizeof *a);
    char *end;
    switch (p->params) {
    case PARAMS_NONE:
        FXI_RETURN_IF(*rest, FX_EINVAL, "kernel '%s': %s takes no parameters", spec, p->name);
        return FX_OK;
    case PARAMS_VARIANT:
        a->variant = 'd';
        if (!*rest) return FX_OK;
        FXI_RETURN_IF(rest[0] != ':' || !strchr("dhv", rest[1]) || !rest[1] || rest[2], FX_EINVAL,
                     "kernel '%s': expected %s", spec, p->syntax);
        a->variant = rest[1];
        return FX_OK;
    case PARAMS_SIZE:
        FXI_RETURN_IF(rest[0] != ':', FX_EINVAL, "kernel '%s': expected %s", spec, p->syntax);
        FXI_TRY(parse_size(ctx, spec, rest + 1, &end, &a->kw));
        a->kh = a->kw;
        if (*end == 'x' || *end == 'X') FXI_TRY(parse_size(ctx, spec, end + 1, &end, &a->kh));
        FXI_RETURN_IF(*end, FX_EINVAL, "kernel '%s': unexpected '%s' (expected %s)", spec, end,
                     p->syntax);
        return FX_OK;
    case PARAMS_GAUSSIAN: {
        FXI_RETURN_IF(rest[0] != ':', FX_EINVAL, "kernel '%s': expected %s", spec, p->syntax);
        int n = 0;
        FXI_TRY(parse_size(ctx, spec, rest + 1, &end, &n));
        FXI_RETURN_IF(n % 2 == 0, FX_EINVAL, "kernel '%s': the gaussian size %d must be odd", spec,
                     n);
        a->v[0] = n;
        a->n = 1;
        if (*end == ':') {
            const char *s = end + 1;
            errno = 0;
            double sigma = strtod(s, &end);
            FXI_RETURN_IF(end == s || *end, FX_EINVAL, "kernel '%s': sigma '%s' is not a number",
                         spec, s);
            FXI_RETURN_IF(!(sigma > 0) || !isfinite(sigma), FX_ERANGE,
                         "kernel '%s': sigma %s must be > 0", spec, s);
            a->v[1] = sigma;
            a->n = 2;
        }
        FXI_RETURN_IF(*end, FX_EINVAL, "kernel '%s': unexpected '%s' (expected %s)", spec, end,
                     p->syntax);
        return FX_OK;
    }
    }
    return FX_OK;
}

/* The preset named by the start of spec (up to ':' or the end), or NULL. */
static const preset *find_preset(const char *spec, size_t *name_len)
{
    size_t n = strcspn(spec, ":");
    *name_len = n;
    for (int i = 0; i < PRESET_COUNT; i++)
        if (strlen(presets[i].name) == n && !strncmp(presets[i].name, spec, n)) return &presets[i];
    return NULL;
}

bool fxi_is_preset(const char *spec)
{
    size_t n;
    return find_preset(spec, &n) != NULL;
}

fx_status fx_kernel_preset(fx_context *ctx, const char *spec, fx_kernel **out)
{
    *out = NULL;
    size_t n;
    const preset *p = find_preset(spec, &n);
    FXI_RETURN_IF(!p, FX_EINVAL,
                 "unknown kernel '%s' (presets: identity, box, gaussian, sharpen, edge, edge4, "
                 "emboss, sobel-x, sobel-y; or weights such as \"1 2 1; 2 4 2; 1 2 1 / 16\")",
                 spec);
    preset_args a;
    FXI_TRY(parse_args(ctx, spec, p, spec + n, &a));
    return p->build(ctx, spec, p, &a, out);
}
