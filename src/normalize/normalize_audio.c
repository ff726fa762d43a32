/* The one-call form: a whole buffer through one stream, or on a GPU context, when the
 * options allow it, through the whole-buffer path (normalize_whole.h: every frame's
 * levels and the ramp in a few launches, the samples up in their file's width). Both
 * give the same bytes. The options are checked (the stream's open, or the parameters
 * the whole-buffer path resolves) before the output is allocated. */
#include <string.h>

#include "normalize_internal.h"
#include "normalize_whole.h"

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
    bool whole = false;
    if (fx_context_device(ctx, NULL) == FX_DEVICE_GPU) {
        FXI_TRY(fxi_nm_params_resolve(ctx, opts, in->channels, in->rate, &p));
        whole = fxi_nm_whole_eligible(&p, in->frames);
    }
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
