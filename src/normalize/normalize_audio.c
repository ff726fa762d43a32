/* The one-call form: a whole buffer through one stream. */
#include <string.h>

#include "normalize_internal.h"

fx_status fx_normalize_audio(fx_context *ctx, const fx_normalize_options *opts, const fx_audio *in,
                             fx_audio *out)
{
    memset(out, 0, sizeof *out);
    FXI_RETURN_IF(!in || (!in->data && in->frames), FX_EINVAL, "normalize: audio has no samples");
    fx_normalize *n;
    FXI_TRY(fx_normalize_open(ctx, opts, in->channels, in->rate, &n));
    fx_status st = fx_audio_alloc(ctx, out, in->frames, in->channels, in->rate);
    if (st == FX_OK) {
        out->format = in->format;
        st = fx_normalize_push(n, in->data, in->frames);
    }
    if (st == FX_OK) st = fx_normalize_flush(n);
    size_t got = 0;
    if (st == FX_OK) st = fx_normalize_pull(n, out->data, out->frames, &got);
    if (st == FX_OK && got != out->frames)
        st = fxi_error(ctx, FX_EBADSTATE, "normalize: %zu frames in, %zu out", in->frames, got);
    fx_normalize_close(n);
    if (st != FX_OK) fx_audio_free(out);
    return st;
}
