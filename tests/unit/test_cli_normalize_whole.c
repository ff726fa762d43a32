/* The CLI's whole-file form of normalize (fxcli_normalize_whole, used on a GPU) writes
 * the same file as the streamed form, on the CPU here (fx_normalize_audio streams
 * there): 16-bit, 24-bit and float files, 1, 2 and 5 channels, an empty file, and
 * the same --verbose levels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fxtest.h"
#include "jobs/normalize_pipeline.h"

static bool same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        same = x == y;
        if (x == EOF || y == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* input -> output through the whole form or the stream; the levels into *lv. */
static fx_status normalize_file(fx_context *ctx, const char *input, const char *output, bool whole,
                                fxcli_stream_levels *lv)
{
    fx_audio_reader *r = NULL;
    fx_audio_writer *w = NULL;
    fx_status st = fx_audio_reader_open(ctx, input, &r);
    if (st != FX_OK) return st;
    fx_audio_info info;
    fx_audio_reader_info(r, &info);
    fx_normalize_options o;
    fx_normalize_options_init(&o);
    o.frame_ms = 50;
    fx_normalize *n = NULL;
    fxcli_result res;
    memset(&res, 0, sizeof res);
    st = fx_audio_writer_open(ctx, output, FX_AUDIO_WAV, info.channels, info.rate, info.format, &w);
    if (st == FX_OK && !whole) st = fx_normalize_open(ctx, &o, info.channels, info.rate, &n);
    if (st == FX_OK)
        st = whole ? fxcli_normalize_whole(ctx, &o, r, w, &info, lv, &res)
                   : fxcli_normalize_stream(n, r, w, &info, false, lv, &res);
    fx_status closed = w ? fx_audio_writer_close(w) : FX_OK;
    fx_normalize_close(n);
    fx_audio_reader_close(r);
    return st != FX_OK ? st : closed;
}

FXT_TEST(whole_file_writes_the_streams_bytes)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    if (!FXT_CHECK(ctx)) return;
    const char *dir = fxt_tmpdir("cli_normalize_whole");
    static const fx_sample_format formats[] = {FX_SF_S16, FX_SF_S24, FX_SF_F32};
    static const int channel_counts[] = {1, 2, 5};
    static const uint64_t lengths[] = {0, 1, 4410, 123457};
    char in_path[512], whole_path[512], stream_path[512];
    snprintf(in_path, sizeof in_path, "%s/in.wav", dir);
    snprintf(whole_path, sizeof whole_path, "%s/whole.wav", dir);
    snprintf(stream_path, sizeof stream_path, "%s/stream.wav", dir);
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++)
        for (size_t c = 0; c < sizeof channel_counts / sizeof *channel_counts; c++)
            for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
                fx_gen_audio_params p;
                fx_gen_audio_params_init(&p);
                p.kind = FX_GEN_SPEECH;
                p.frames = lengths[l];
                p.channels = channel_counts[c];
                p.seed = 3 + l;
                fx_audio a = {0};
                if (!FXT_CHECK_OK(fx_gen_audio(ctx, &p, &a), ctx)) continue;
                FXT_CHECK_OK(fx_audio_write_file(ctx, in_path, &a, FX_AUDIO_WAV, formats[f]), ctx);
                fx_audio_free(&a);
                fxcli_stream_levels lw = {.wanted = true}, ls = {.wanted = true};
                FXT_CHECK_OK(normalize_file(ctx, in_path, whole_path, true, &lw), ctx);
                FXT_CHECK_OK(normalize_file(ctx, in_path, stream_path, false, &ls), ctx);
                if (!FXT_CHECK(same_file(whole_path, stream_path)))
                    printf("%s, %d channels, %llu frames: the files differ\n",
                           fx_sample_format_name(formats[f]), channel_counts[c],
                           (unsigned long long)lengths[l]);
                FXT_CHECK(memcmp(&lw.in, &ls.in, sizeof lw.in) == 0);
                FXT_CHECK(memcmp(&lw.out, &ls.out, sizeof lw.out) == 0);
            }
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(whole_file_writes_the_streams_bytes))
