/* The whole-buffer GPU path's host half on the CPU: frame levels as the levels kernel
 * measures them (fxi_nm_frame_levels, per frame and gain channel), the gain rows from
 * fxi_nm_whole_gains, and every sample through fxi_nm_batch_element (what each ramp
 * thread computes) give the streaming CPU path's bytes: options that qualify, 1 to 8
 * channels, coupled or not, lengths from one sample to many frames, shorter than a
 * frame, than the window, and with a partial last frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fxtest.h"
#include "normalize/normalize_gpu_plan.h"
#include "normalize/normalize_whole.h"

#define RATE 8000

static void set_options(fx_context *ctx, fx_normalize_options *o, const char *text)
{
    fx_normalize_options_init(o);
    static char buf[256]; /* (string options point into it) */
    snprintf(buf, sizeof buf, "%s", text);
    for (char *word = strtok(buf, " "); word; word = strtok(NULL, " ")) {
        char *eq = strchr(word, '=');
        *eq = '\0';
        FXT_CHECK_OK(
            fx_option_set(ctx, fx_option_find(fx_normalize_options_table(), word), o, eq + 1), ctx);
    }
}

/* What the device computes, here on the host, into out. */
static bool whole_on_the_host(fx_context *ctx, const fx_normalize_options *o, const fx_audio *in,
                              double *out)
{
    fxi_nm_params p;
    if (fxi_nm_params_resolve(ctx, o, in->channels, in->rate, &p) != FX_OK) return false;
    bool ok = fxi_nm_whole_eligible(&p, in->frames);
    const int gains = p.coupled ? 1 : p.channels;
    size_t count, last_length;
    fxi_nm_whole_shape(&p, in->frames, &count, &last_length);
    double *levels = calloc(2 * count * (size_t)gains, sizeof *levels);
    double *params = calloc(fxi_nm_ramp_param_count(count, p.channels, gains), sizeof *params);
    const size_t frame_samples = p.advance * (size_t)p.channels;
    for (size_t k = 0; ok && k < count; k++)
        for (int g = 0; g < gains; g++) {
            double *level = levels + 2 * (k * (size_t)gains + (size_t)g);
            fxi_nm_frame_levels(
                in->data + k * frame_samples, (uint32_t)(k + 1 == count ? last_length : p.advance),
                p.channels, gains == 1 ? -1 : g, p.target_rms > DBL_EPSILON, &level[0], &level[1]);
        }
    if (ok) ok = fxi_nm_whole_gains(ctx, &p, levels, count, last_length, params) == FX_OK;
    if (ok) {
        fxi_nm_batch_pack_process(p.process, p.channels, gains, count, params);
        fxi_nm_ramp_batch b;
        fxi_nm_batch_describe(&b, count, p.advance, last_length, p.channels, gains, p.ramp);
        for (uint32_t e = 0; e < b.samples; e++)
            out[e] = fxi_nm_batch_element(in->data, params, e, &b);
    }
    free(levels);
    free(params);
    fxi_nm_params_free(&p);
    return ok;
}

FXT_TEST(whole_gains_give_the_stream_bits)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    if (!FXT_CHECK(ctx)) return;
    static const char *const option_sets[] = {
        "frame-ms=20",
        "frame-ms=20 window=5 coupling=0",
        "frame-samples=64 window=31 target-rms=0.06 min-gain=0.1 ramp=0",
        "frame-ms=10 window=3 alt-boundary=1 threshold=0.05",
        "frame-ms=25 channels=0 coupling=0",
        "frame-samples=2 window=7 target-rms=0.1",
        "frame-samples=160 min-window=5 gauss-window=11 max-gain=20",
        "frame-samples=2 window=101 threshold=0.2 coupling=0",
        "frame-samples=4 min-window=31 gauss-window=3 alt-boundary=1 target-rms=0.2",
        "frame-samples=3 min-window=3 gauss-window=301 threshold=0.1",
    };
    static const int channel_counts[] = {1, 2, 3, 8};
    static const size_t lengths[] = {1, 17, 159, 161, 1601, 20011};
    uint64_t seed = 5;
    int checked = 0;
    for (size_t s = 0; s < sizeof option_sets / sizeof *option_sets; s++)
        for (size_t k = 0; k < sizeof channel_counts / sizeof *channel_counts; k++)
            for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
                const int ch = channel_counts[k];
                fx_audio in = {0}, want = {0};
                FXT_CHECK_OK(fx_audio_alloc(ctx, &in, lengths[l], ch, RATE), ctx);
                for (size_t i = 0; i < in.frames * (size_t)ch; i++) {
                    const double level = 0.01 + 0.6 * fabs(sin((double)i / 3000.0));
                    in.data[i] =
                        level * ((double)(fxt_rand(&seed) >> 11) / 9007199254740992.0 - 0.5);
                }
                fx_normalize_options o;
                set_options(ctx, &o, option_sets[s]);
                FXT_CHECK_OK(fx_normalize_audio(ctx, &o, &in, &want), ctx);
                double *got = calloc(in.frames * (size_t)ch, sizeof *got);
                if (FXT_CHECK(whole_on_the_host(ctx, &o, &in, got))) {
                    checked++;
                    if (!FXT_CHECK(memcmp(got, want.data, in.frames * (size_t)ch * sizeof *got) ==
                                   0))
                        printf("'%s', %d channels, %zu frames: differs\n", option_sets[s], ch,
                               lengths[l]);
                }
                free(got);
                fx_audio_free(&in);
                fx_audio_free(&want);
            }
    FXT_CHECK(checked > 0);
    fx_context_destroy(ctx);
}

FXT_TEST(stateful_analysis_is_not_eligible)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    if (!FXT_CHECK(ctx)) return;
    static const char *const refused[] = {"correct-dc=1", "compress=3", "overlap=0.5",
                                          "compat=ffmpeg5.1"};
    for (size_t s = 0; s < sizeof refused / sizeof *refused; s++) {
        fx_normalize_options o;
        set_options(ctx, &o, refused[s]);
        fxi_nm_params p;
        FXT_CHECK_OK(fxi_nm_params_resolve(ctx, &o, 2, RATE, &p), ctx);
        FXT_CHECK(!fxi_nm_whole_eligible(&p, 100000));
        fxi_nm_params_free(&p);
    }
    fx_normalize_options o;
    fx_normalize_options_init(&o);
    fxi_nm_params p;
    FXT_CHECK_OK(fxi_nm_params_resolve(ctx, &o, 2, RATE, &p), ctx);
    FXT_CHECK(fxi_nm_whole_eligible(&p, 100000));
    FXT_CHECK(!fxi_nm_whole_eligible(&p, 0));
    size_t count, last;
    fxi_nm_whole_shape(&p, 1, &count, &last);
    FXT_CHECK(count == 1 && last == 1);
    fxi_nm_whole_shape(&p, p.advance * 3, &count, &last);
    FXT_CHECK(count == 3 && last == p.advance);
    fxi_nm_whole_shape(&p, p.advance * 3 + 1, &count, &last);
    FXT_CHECK(count == 4 && last == 1);
    fxi_nm_params_free(&p);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(whole_gains_give_the_stream_bits), FXT_CASE(stateful_analysis_is_not_eligible))
