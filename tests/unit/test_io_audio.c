/* Audio files: bit-exact round trips for every integer and float format, lossy
 * Vorbis within a tolerance, the exact integer mapping against a hand-made WAV,
 * the samples against a peer's checksums, streaming equals whole-file reading,
 * and broken inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxtest.h"

#define CHECKSUM_PERIOD 65521

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

/* Random samples that are exact in a `bits`-bit integer format (0: any double in [-1, 1)). */
static void fill(fx_audio *a, int bits, uint64_t seed)
{
    for (size_t i = 0; i < a->frames * (size_t)a->channels; i++) {
        uint64_t r = fxt_rand(&seed);
        if (bits)
            a->data[i] = (double)((int64_t)(r >> (64 - bits)) - ((int64_t)1 << (bits - 1))) /
                         ldexp(1, bits - 1);
        else
            a->data[i] = (double)(r >> 11) / 4503599627370496.0 - 1.0;
    }
    a->data[0] = -1.0; /* full scale both ways */
    if (a->frames * (size_t)a->channels > 1) a->data[1] = bits ? 1.0 - ldexp(1, 1 - bits) : 0.999;
}

static double audio_max_diff(const fx_audio *a, const fx_audio *b)
{
    if (a->frames != b->frames || a->channels != b->channels || a->rate != b->rate) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a->frames * (size_t)a->channels; i++)
        worst = fmax(worst, fabs(a->data[i] - b->data[i]));
    return worst;
}

static void round_trip(const char *file, fx_sample_format fmt, int bits, int channels, double tol,
                       fx_sample_format want_format)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_audio"), file);
    static const size_t FRAMES[] = {1, 1000, 10007};
    for (size_t k = 0; k < sizeof FRAMES / sizeof *FRAMES; k++) {
        fx_audio a, b;
        FXT_CHECK_OK(fx_audio_alloc(ctx, &a, FRAMES[k], channels, 44100), ctx);
        fill(&a, bits, k * 31 + (uint64_t)channels);
        if (!FXT_CHECK_OK(fx_audio_write_file(ctx, path, &a, FX_AUDIO_AUTO, fmt), ctx)) {
            fx_audio_free(&a);
            break;
        }
        if (FXT_CHECK_OK(fx_audio_read_file(ctx, path, &b), ctx)) {
            double d = audio_max_diff(&a, &b);
            if (!FXT_CHECK(d <= tol))
                fprintf(stderr, "  %s %zu frames %d ch: max diff %g\n", file, a.frames, channels,
                        d);
            FXT_CHECK_EQ(b.format, want_format);
        }
        fx_audio_free(&a);
        fx_audio_free(&b);
    }
    fx_context_destroy(ctx);
}

FXT_TEST(container_from_path)
{
    FXT_CHECK_EQ(fx_audio_container_from_path("a.WAV"), FX_AUDIO_WAV);
    FXT_CHECK_EQ(fx_audio_container_from_path("a.flac"), FX_AUDIO_FLAC);
    FXT_CHECK_EQ(fx_audio_container_from_path("a.aif"), FX_AUDIO_AIFF);
    FXT_CHECK_EQ(fx_audio_container_from_path("a.aiff"), FX_AUDIO_AIFF);
    FXT_CHECK_EQ(fx_audio_container_from_path("a.ogg"), FX_AUDIO_OGG);
    FXT_CHECK_EQ(fx_audio_container_from_path("a.mp3"), FX_AUDIO_AUTO);
    FXT_CHECK_EQ(fx_audio_container_from_path("x.wav/a"), FX_AUDIO_AUTO);
}

FXT_TEST(wav_round_trips_bit_exact)
{
    static const int CHANNELS[] = {1, 2, 6};
    for (size_t c = 0; c < 3; c++) {
        int ch = CHANNELS[c];
        round_trip("rt16.wav", FX_SF_S16, 16, ch, 0, FX_SF_S16);
        round_trip("rt24.wav", FX_SF_S24, 24, ch, 0, FX_SF_S24);
        round_trip("rt32.wav", FX_SF_S32, 32, ch, 0, FX_SF_S32);
        round_trip("rtf32.wav", FX_SF_F32, 24, ch, 0,
                   FX_SF_F32); /* 24-bit values are exact floats */
        round_trip("rtf64.wav", FX_SF_F64, 0, ch, 0, FX_SF_F64);
    }
}

FXT_TEST(flac_and_aiff_round_trips_bit_exact)
{
    round_trip("rt16.flac", FX_SF_S16, 16, 1, 0, FX_SF_S16);
    round_trip("rt24.flac", FX_SF_S24, 24, 6, 0, FX_SF_S24);
    round_trip("rt16.aiff", FX_SF_S16, 16, 2, 0, FX_SF_S16);
    round_trip("rt24.aif", FX_SF_S24, 24, 1, 0, FX_SF_S24);
    round_trip("rt32.aiff", FX_SF_S32, 32, 6, 0, FX_SF_S32);
}

/* Vorbis is lossy: a quiet 440 Hz tone comes back close, reported as no PCM format. */
FXT_TEST(ogg_vorbis_round_trip)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_audio"), "tone.ogg");
    fx_audio a, b;
    FXT_CHECK_OK(fx_audio_alloc(ctx, &a, 44100, 2, 44100), ctx);
    for (size_t i = 0; i < a.frames; i++)
        a.data[2 * i] = a.data[2 * i + 1] = 0.5 * sin(2 * M_PI * 440.0 * (double)i / 44100.0);
    FXT_CHECK_OK(fx_audio_write_file(ctx, path, &a, FX_AUDIO_AUTO, FX_SF_S24), ctx);
    if (FXT_CHECK_OK(fx_audio_read_file(ctx, path, &b), ctx)) {
        FXT_CHECK_EQ(b.frames, a.frames);
        FXT_CHECK_EQ(b.channels, 2);
        FXT_CHECK_EQ(b.format, FX_SF_SAME);
        double err = 0;
        for (size_t i = 0; i < a.frames * 2 && b.frames == a.frames; i++)
            err += (a.data[i] - b.data[i]) * (a.data[i] - b.data[i]);
        err = sqrt(err / (double)(a.frames * 2));
        if (!FXT_CHECK(err < 0.02)) fprintf(stderr, "  rms error %g\n", err);
    }
    fx_audio_free(&a);
    fx_audio_free(&b);
    fx_context_destroy(ctx);
}

/* Writing rounds half to even and saturates: 0.5/32768 -> 0, 1.5/32768 -> 2, 2 -> 32767. */
FXT_TEST(write_rounds_half_even_and_saturates)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_audio"), "round.wav");
    fx_audio a, b;
    FXT_CHECK_OK(fx_audio_alloc(ctx, &a, 6, 1, 8000), ctx);
    const double in[6] = {0.5 / 32768, 1.5 / 32768, -2.5 / 32768, 2.0, -7.0, NAN};
    const double want[6] = {0, 2.0 / 32768, -2.0 / 32768, 32767.0 / 32768, -1.0, 0};
    memcpy(a.data, in, sizeof in);
    FXT_CHECK_OK(fx_audio_write_file(ctx, path, &a, FX_AUDIO_WAV, FX_SF_S16), ctx);
    if (FXT_CHECK_OK(fx_audio_read_file(ctx, path, &b), ctx))
        for (int i = 0; i < 6; i++)
            if (!FXT_CHECK(b.data[i] == want[i]))
                fprintf(stderr, "  sample %d: %.17g\n", i, b.data[i]);
    fx_audio_free(&a);
    fx_audio_free(&b);
    fx_context_destroy(ctx);
}

/* A WAV written byte by byte: samples read back as v / 32768 exactly. */
static const uint8_t
    HAND_WAV[] =
        {
            'R',  'I',  'F',  'F', 44,   0,    0, 0, 'W',  'A',  'V',  'E',  'f',
            'm',  't',  ' ',  16,  0,    0,    0, 1, 0,    1,    0,       /* PCM, 1 channel */
            0x40, 0x1f, 0,    0,   0x80, 0x3e, 0, 0, 2,    0,    16,   0, /* 8000 Hz, 16000 B/s,
                                                                             align 2, 16 bits */
            'd',  'a',  't',  'a', 8,    0,    0, 0, 0x00, 0x80, 0xff, 0x7f, 0x01,
            0x00, 0xff, 0xff, /* -32768, 32767, 1, -1 */
};

FXT_TEST(exact_mapping_hand_made_wav)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *path = fxt_path(fxt_tmpdir("io_audio"), "hand.wav");
    write_bytes(path, HAND_WAV, sizeof HAND_WAV);
    fx_audio a;
    if (FXT_CHECK_OK(fx_audio_read_file(ctx, path, &a), ctx)) {
        FXT_CHECK_EQ(a.frames, 4);
        FXT_CHECK_EQ(a.rate, 8000);
        FXT_CHECK_EQ(a.format, FX_SF_S16);
        FXT_CHECK(a.data[0] == -1.0);
        FXT_CHECK(a.data[1] == 32767.0 / 32768.0);
        FXT_CHECK(a.data[2] == 1.0 / 32768.0);
        FXT_CHECK(a.data[3] == -1.0 / 32768.0);
    }
    fx_audio_free(&a);
    fx_context_destroy(ctx);
}

/* Checksum of the decoded integers, as the peer (numpy on the raw data chunk) computed it. */
static void check_sample(const char *file, int channels, int bits, fx_sample_format fmt,
                         size_t frames, int64_t weighted, int64_t sum)
{
    const char *path = fxt_sample(file);
    if (!path) fxt_skip("FXKIT_SAMPLES is not set");
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_audio a;
    if (FXT_CHECK_OK(fx_audio_read_file(ctx, path, &a), ctx)) {
        FXT_CHECK_EQ(a.frames, frames);
        FXT_CHECK_EQ(a.channels, channels);
        FXT_CHECK_EQ(a.rate, 44100);
        FXT_CHECK_EQ(a.format, fmt);
        int64_t w = 0, s = 0;
        double scale = ldexp(1, bits - 1);
        for (size_t i = 0; i < a.frames * (size_t)a.channels; i++) {
            double v = a.data[i] * scale;
            FXT_CHECK(v == floor(v));
            w += (int64_t)v * (int64_t)(i % CHECKSUM_PERIOD + 1);
            s += (int64_t)v;
        }
        FXT_CHECK_EQ(w, weighted);
        FXT_CHECK_EQ(s, sum);
    }
    fx_audio_free(&a);
    fx_context_destroy(ctx);
}

FXT_TEST(sample_speech_mono_16bit)
{
    check_sample("speech_mono_44k.wav", 1, 16, FX_SF_S16, 1777720, INT64_C(604784209371), 18328594);
}

FXT_TEST(sample_speech_stereo_24bit)
{
    check_sample("speech_stereo_44k_24bit.wav", 2, 24, FX_SF_S24, 1777720, INT64_C(296918194658433),
                 INT64_C(7976604519));
}

/* Streaming in odd small chunks gives the same samples as the whole-file read. */
FXT_TEST(streaming_equals_whole_file)
{
    const char *path = fxt_sample("speech_stereo_44k_24bit.wav");
    if (!path) fxt_skip("FXKIT_SAMPLES is not set");
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_audio whole;
    FXT_CHECK_OK(fx_audio_read_file(ctx, path, &whole), ctx);
    fx_audio_reader *r;
    if (FXT_CHECK_OK(fx_audio_reader_open(ctx, path, &r), ctx)) {
        fx_audio_info info;
        fx_audio_reader_info(r, &info);
        FXT_CHECK_EQ(info.frames, whole.frames);
        FXT_CHECK_EQ(info.format, FX_SF_S24);
        double buf[2 * 4099];
        size_t pos = 0, got, chunk = 1;
        int mismatches = 0;
        while (FXT_CHECK_OK(fx_audio_reader_read(r, buf, chunk, &got), ctx) && got) {
            if (pos + got > whole.frames ||
                memcmp(buf, whole.data + 2 * pos, got * 2 * sizeof(double)))
                mismatches++;
            pos += got;
            chunk = chunk * 3 % 4099 + 1;
        }
        FXT_CHECK_EQ(pos, whole.frames);
        FXT_CHECK_EQ(mismatches, 0);
        fx_audio_reader_close(r);
    }
    fx_audio_free(&whole);
    fx_context_destroy(ctx);
}

FXT_TEST(broken_inputs)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    const char *dir = fxt_tmpdir("io_audio");
    fx_audio a;
    /* Truncated: the data chunk promises 4 frames, the file holds 2 and a half. */
    const char *cut = fxt_path(dir, "cut.wav");
    write_bytes(cut, HAND_WAV, sizeof HAND_WAV - 3);
    FXT_CHECK_STATUS(fx_audio_read_file(ctx, cut, &a), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "truncated: header promises 4 frames, file holds 2");
    FXT_CHECK(a.data == NULL);
    /* A big truncated sample. */
    const char *sample = fxt_sample("speech_mono_44k.wav");
    if (sample) {
        FILE *in = fopen(sample, "rb");
        static uint8_t head[100000];
        size_t n = in ? fread(head, 1, sizeof head, in) : 0;
        if (in) fclose(in);
        write_bytes(cut, head, n);
        FXT_CHECK_STATUS(fx_audio_read_file(ctx, cut, &a), FX_EFORMAT, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "truncated: header promises 1777720 frames");
    }
    const char *text = fxt_path(dir, "text.wav");
    write_bytes(text, "this is not audio at all, just words\n", 37);
    FXT_CHECK_STATUS(fx_audio_read_file(ctx, text, &a), FX_EFORMAT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "cannot open audio");
    FXT_CHECK_STATUS(fx_audio_read_file(ctx, fxt_path(dir, "missing.wav"), &a), FX_EIO, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "No such file");

    fx_audio s;
    FXT_CHECK_OK(fx_audio_alloc(ctx, &s, 10, 1, 8000), ctx);
    FXT_CHECK_STATUS(
        fx_audio_write_file(ctx, fxt_path(dir, "f.flac"), &s, FX_AUDIO_AUTO, FX_SF_F32),
        FX_EUNSUPPORTED, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "FLAC holds 8/16/24-bit integer samples");
    FXT_CHECK_STATUS(
        fx_audio_write_file(ctx, fxt_path(dir, "f.flac"), &s, FX_AUDIO_AUTO, FX_SF_S32),
        FX_EUNSUPPORTED, ctx);
    FXT_CHECK_STATUS(
        fx_audio_write_file(ctx, "/nonexistent-dir/x.wav", &s, FX_AUDIO_AUTO, FX_SF_S16), FX_EIO,
        ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "cannot create audio");
    FXT_CHECK_STATUS(fx_audio_write_file(ctx, fxt_path(dir, "x.mp3"), &s, FX_AUDIO_AUTO, FX_SF_S16),
                     FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "unknown audio extension");
    FXT_CHECK_STATUS(fx_audio_write_file(ctx, fxt_path(dir, "u8.wav"), &s, FX_AUDIO_AUTO, FX_SF_U8),
                     FX_EUNSUPPORTED, ctx);
    fx_audio_free(&s);
    fx_context_destroy(ctx);
}

FXT_TEST(limits_on_read)
{
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = FX_DEVICE_CPU;
    opts.threads = 1;
    opts.limits.max_audio_frames = 3;
    fx_context *ctx = NULL;
    FXT_CHECK_OK(fx_context_create(&opts, &ctx), NULL);
    const char *path = fxt_path(fxt_tmpdir("io_audio"), "lim.wav");
    write_bytes(path, HAND_WAV, sizeof HAND_WAV);
    fx_audio a;
    FXT_CHECK_STATUS(fx_audio_read_file(ctx, path, &a), FX_ELIMIT, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "4 audio frames exceed the limit of 3");
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(container_from_path), FXT_CASE(wav_round_trips_bit_exact),
         FXT_CASE(flac_and_aiff_round_trips_bit_exact), FXT_CASE(ogg_vorbis_round_trip),
         FXT_CASE(write_rounds_half_even_and_saturates), FXT_CASE(exact_mapping_hand_made_wav),
         FXT_CASE(sample_speech_mono_16bit), FXT_CASE(sample_speech_stereo_24bit),
         FXT_CASE(streaming_equals_whole_file), FXT_CASE(broken_inputs), FXT_CASE(limits_on_read))
