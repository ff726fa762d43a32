/* The one-call form: a whole buffer through one stream, or on a GPU context, when the
 * options allow it, through the whole-buffer path (normalize_whole.h: every frame's
 * levels and the ramp in a few launches, the samples up in their file's width). Both
 * give the same bytes. The options are checked (the stream's open, or the parameters
 * the whole-buffer path resolves) before the output is allocated. */
#include <stdio.h>
#include <string.h>

#include "normalize_internal.h"
#include "normalize_pcm.h"
#include "normalize_whole.h"
#include "normalize/normalize_cost.h"

bool fx_normalize_whole_on_gpu(fx_context *ctx, const fx_normalize_options *opts, int channels,
                               int rate, uint64_t frames, fx_sample_format format, char *why,
                               size_t size)
{
    if (why && size) why[0] = '\0';
    /* (fxi_gpu_possible: a pending auto context's GPU is started only if the cost model
     * below finds this buffer could use it.) */
    if (!ctx || !fxi_gpu_possible(ctx) || frames == 0 || channels < 1) return false;
    fxi_nm_params p;
    memset(&p, 0, sizeof p);
    if (fxi_nm_params_resolve(ctx, opts, channels, rate, &p) != FX_OK) {
        fx_context_clear_error(ctx); /* the stream's open reports the options' problem */
        fxi_nm_params_free(&p);
        return false;
    }
    bool whole = fxi_nm_whole_eligible(&p, (size_t)frames);
    fxi_nm_params_free(&p);
    char text[160];
    whole = whole && fxi_normalize_whole_device(ctx, channels, frames, (int)fxi_nm_pcm_bytes(fxi_nm_pcm_of(format)), text,
                                                sizeof text) == FX_DEVICE_GPU;
    if (whole && why && size) snprintf(why, size, "%s, the whole buffer at once", text);
    return whole;
}

/* in through the open stream n into out (closed here). */
static fx_status through_stream(fx_context *ctx, fx_normalize *n, const fx_audio *in, fx_audio *out)
{
    fx_status st = fx_normalize_push(n, in->data, in->frames);
    if (st == FX_OK) st = fx_normalize_flush(n);
    size_t got = 0;
    if (st == FX_OK) st = fx_normalize_pull(n, out->data, out->frames, &got);
    if (st == FX_OK && got != out->frames)
        st = fxi_error(ctx, FX_EBADSTATE, "normalize: %zu frames in, %zu out", in->frames, got);
    fx_normalize_close(n);
    return st;
}

fx_status fx_normalize_audio(fx_context *ctx, const fx_normalize_options *opts, const fx_audio *in,
                             fx_audio *out)
{
    memset(out, 0, sizeof *out);
    FXI_RETURN_IF(!in || (!in->data && in->frames), FX_EINVAL, "normalize: audio has no samples");
    fxi_nm_params p;
    memset(&p, 0, sizeof p); /* (freeing a zeroed one is safe) */
    const bool whole = fx_normalize_whole_on_gpu(ctx, opts, in->channels, in->rate, in->frames,
                                                 in->format, NULL, 0);
    if (whole) FXI_TRY(fxi_nm_params_resolve(ctx, opts, in->channels, in->rate, &p));
    fx_normalize *n = NULL;
    fx_status st = whole ? FX_OK : fx_normalize_open(ctx, opts, in->channels, in->rate, &n);
    if (st == FX_OK) st = fx_audio_alloc(ctx, out, in->frames, in->channels, in->rate);
    if (st == FX_OK) out->format = in->format;
    if (st == FX_OK && whole) {
        st = fxi_normalize_gpu_whole(ctx, &p, in, out->data);
        /* A buffer the device cannot hold twice still streams through it. */
        if (st == FX_ENOMEM) st = fx_normalize_open(ctx, opts, in->channels, in->rate, &n);
    }
    if (n && st == FX_OK)
        st = through_stream(ctx, n, in, out); /* (closes n) */
    else
        fx_normalize_close(n);
    fxi_nm_params_free(&p);
    if (st != FX_OK) fx_audio_free(out);
    return st;
}
