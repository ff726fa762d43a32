/* Kernels: storage, the C-array constructor, accessors, and the weights as applied
 * to images of a given sample type. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_internal.h"

fx_status fxi_kernel_new(fx_context *ctx, int width, int height, bool rational, const char *name,
                         fx_kernel **out)
{
    *out = NULL;
    FXI_RETURN_IF(width < 1 || height < 1 || width > FX_KERNEL_MAX_SIDE ||
                     height > FX_KERNEL_MAX_SIDE,
                 FX_ERANGE, "kernel size %dx%d is outside 1x1 … %dx%d", width, height,
                 FX_KERNEL_MAX_SIDE, FX_KERNEL_MAX_SIDE);
    size_t taps = (size_t)width * (size_t)height;
    fx_kernel *k;
    FXI_TRY(fxi_calloc(ctx, 1, sizeof *k, (void **)&k));
    k->width = width;
    k->height = height;
    snprintf(k->name, sizeof k->name, "%s", name);
    fx_status st = fxi_calloc(ctx, taps, sizeof *k->weights, (void **)&k->weights);
    if (st == FX_OK && rational) {
        st = fxi_calloc(ctx, taps, sizeof *k->exact.num, (void **)&k->exact.num);
        k->exact.den = 1;
        k->rational = true;
    }
    if (st != FX_OK) {
        fx_kernel_free(k);
        return st;
    }
    *out = k;
    return FX_OK;
}

fx_status fx_kernel_create(fx_context *ctx, int width, int height, const double *weights,
                           fx_kernel **out)
{
    char name[32];
    snprintf(name, sizeof name, "custom %dx%d", width, height);
    FXI_TRY(fxi_kernel_new(ctx, width, height, false, name, out));
    fx_kernel *k = *out;
    size_t taps = (size_t)width * (size_t)height;
    for (size_t i = 0; i < taps; i++) {
        if (!isfinite(weights[i])) {
            fx_kernel_free(k);
            *out = NULL;
            return fxi_error(ctx, FX_EINVAL, "kernel weight %zu (row %zu, column %zu) is %g", i + 1,
                             i / (size_t)width + 1, i % (size_t)width + 1, weights[i]);
        }
        k->weights[i] = weights[i];
    }
    return FX_OK;
}

void fx_kernel_free(fx_kernel *k)
{
    if (!k) return;
    free(k->weights);
    free(k->exact.num);
    free(k);
}

int fx_kernel_width(const fx_kernel *k)
{
    return k->width;
}

int fx_kernel_height(const fx_kernel *k)
{
    return k->height;
}

const char *fx_kernel_name(const fx_kernel *k)
{
    return k->name;
}

fx_status fx_kernel_weights(fx_context *ctx, const fx_kernel *k, fx_sample_type type,
                            double *weights, double *offset)
{
    fx_filter_options o;
    fx_filter_options_init(&o);
    fxi_taps t;
    FXI_TRY(fxi_taps_resolve(ctx, k, &o, type, 0, &t)); /* weights only: no image */
    size_t taps = (size_t)t.kw * (size_t)t.kh;
    for (size_t i = 0; i < taps; i++)
        weights[i] = t.acc == FXI_ACC_F32 ? t.w[i] : (double)t.num[i] / t.finish.den;
    if (offset) *offset = t.acc == FXI_ACC_F32 ? t.offset : t.finish.bias / t.finish.den;
    fxi_taps_free(&t);
    return FX_OK;
}
