/* Dynamic audio normalization against ffmpeg 5.1: the published reference
 * checksums of its outputs (../shared/research/audio.md §6, measured on Debian
 * 12's ffmpeg 5.1.9), the per-sample arithmetic against plain formulas, the
 * parameters against ffmpeg's values, streaming in odd chunk sizes against one
 * call, and the options' checks. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fxtest.h"
#include "normalize/normalize_gpu_plan.h"
#include "normalize/normalize_internal.h"
#include "normalize/normalize_math.h"
#include "test_normalize_md5.h"

#define RATE 48000

/* ffmpeg's aevalsrc test signals: t = n / rate, sin(2*PI*1000*t). */
typedef enum signal_kind {
    STEP_UP,      /* if(lt(t,30),0.01,0.501187234)*sin(…) */
    QUIET_TONE,   /* 0.01*sin(…) */
    CLICK,        /* 0.0031623*sin(…)+if(eq(n,1440000),0.9,0) */
    LOUD_SECTION, /* if(between(t,20,40),0.3162,0.003162)*sin(…) */
    DC_TONE,      /* 0.5+0.01*sin(…) */
    FULL_SCALE    /* sin(…) */
} signal_kind;

#define CLICK_SAMPLE 1440000

static double tone(size_t n)
{
    const double t = (double)n / RATE;
    return sin(2 * M_PI * 1000 * t);
}

static double signal_sample(signal_kind kind, size_t n)
{
    const double t = (double)n / RATE;
    switch (kind) {
    case STEP_UP: return (t < 30 ? 0.01 : 0.501187234) * tone(n);
    case QUIET_TONE: return 0.01 * tone(n);
    case CLICK: return 0.0031623 * tone(n) + (n == CLICK_SAMPLE ? 0.9 : 0);
    case LOUD_SECTION: return (t >= 20 && t <= 40 ? 0.3162 : 0.003162) * tone(n);
    case DC_TONE: return 0.5 + 0.01 * tone(n);
    case FULL_SCALE: return tone(n);
    }
    return 0;
}

static fx_audio make_signal(signal_kind kind, int seconds)
{
    fx_audio a = {0};
    a.frames = (size_t)seconds * RATE;
    a.channels = 1;
    a.rate = RATE;
    a.data = malloc(a.frames * sizeof(double));
    for (size_t n = 0; n < a.frames; n++)
        a.data[n] = signal_sample(kind, n);
    return a;
}

static void md5_of(const double *x, size_t count, char hex[33])
{
    md5_state s;
    md5_init(&s);
    md5_update(&s, x, count * sizeof *x);
    md5_hex(&s, hex);
}

/* Normalize through the stream in chunks of `chunk` frames (0: one call). */
static fx_status normalize_chunked(fx_context *ctx, const fx_normalize_options *o,
                                   const fx_audio *in, size_t chunk, double *out)
{
    if (chunk == 0) {
        fx_audio res;
        fx_status st = fx_normalize_audio(ctx, o, in, &res);
        if (st == FX_OK) memcpy(out, res.data, in->frames * (size_t)in->channels * sizeof *out);
        fx_audio_free(&res);
        return st;
    }
    fx_normalize *n;
    fx_status st = fx_normalize_open(ctx, o, in->channels, in->rate, &n);
    if (st != FX_OK) return st;
    size_t done = 0, pulled = 0, ch = (size_t)in->channels;
    while (st == FX_OK && pulled < in->frames) {
        if (done < in->frames) {
            size_t take = in->frames - done < chunk ? in->frames - done : chunk;
            st = fx_normalize_push(n, in->data + done * ch, take);
            done += take;
            if (st == FX_OK && done == in->frames) st = fx_normalize_flush(n);
        }
        size_t got = 0;
        if (st == FX_OK) st = fx_normalize_pull(n, out + pulled * ch, chunk, &got);
        pulled += got;
        if (st == FX_OK && got == 0 && done == in->frames) break;
    }
    fx_normalize_close(n);
    return st;
}

typedef struct reference_case {
    signal_kind kind;
    int seconds;
    const char *options; /* "name=value ..." */
    const char *md5;     /* of ffmpeg 5.1.9's f64le output */
} reference_case;

static const reference_case reference_cases[] = {
    {STEP_UP, 60, "", "33c78e8abf0ca5bd226d18419ea220db"},
    {QUIET_TONE, 60, "", "0b1b7ecf4e1e5c542dc6fb60e48c0e7b"},
    {QUIET_TONE, 60, "alt-boundary=1", "b62ce66c6b5c37f78e072b364973ef6e"},
    {CLICK, 60, "", "34acafb899e02a0a31e2e938c20d0ceb"},
    {LOUD_SECTION, 60, "threshold=0.01 compat=ffmpeg5.1", "eb4fb61ac7d229c91d3f0cd8593e61c1"},
    {DC_TONE, 40, "correct-dc=1 compress=3", "8be71cb8caadd826c1bbacc6d69a9df9"},
    {FULL_SCALE, 30, "", "67791b59b8f4d184e2562b18c335f53f"},
    /* ffmpeg 5.1 passes inputs shorter than the window through unchanged. */
    {QUIET_TONE, 10, "compat=ffmpeg5.1", "ccd510a1e92fbf46d52bf1ff270692a3"},
};

static void set_options(fx_context *ctx, fx_normalize_options *o, const char *text)
{
    fx_normalize_options_init(o);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *word = strtok(buf, " "); word; word = strtok(NULL, " ")) {
        char *eq = strchr(word, '=');
        *eq = '\0';
        /* the strings must outlive buf: only numeric and enum options are used here */
        FXT_CHECK_OK(
            fx_option_set(ctx, fx_option_find(fx_normalize_options_table(), word), o, eq + 1), ctx);
    }
}

FXT_TEST(reference_outputs_of_ffmpeg_51)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    static const size_t chunks[] = {0, 4097};
    for (size_t i = 0; i < sizeof reference_cases / sizeof *reference_cases; i++) {
        const reference_case *rc = &reference_cases[i];
        fx_audio in = make_signal(rc->kind, rc->seconds);
        double *out = malloc(in.frames * sizeof *out);
        fx_normalize_options o;
        set_options(ctx, &o, rc->options);
        for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
            char hex[33];
            FXT_CHECK_OK(normalize_chunked(ctx, &o, &in, chunks[k], out), ctx);
            md5_of(out, in.frames, hex);
            if (strcmp(hex, rc->md5) != 0)
                printf("case %zu (%s), chunk %zu: md5 %s, ffmpeg %s\n", i, rc->options, chunks[k],
                       hex, rc->md5);
            FXT_CHECK(strcmp(hex, rc->md5) == 0);
        }
        free(out);
        free(in.data);
    }
    fx_context_destroy(ctx);
}

/* Random stereo with level changes, of a length that is not a frame multiple. */
static fx_audio make_noise(int channels, size_t frames, uint64_t seed)
{
    fx_audio a = {0};
    a.frames = frames;
    a.channels = channels;
    a.rate = RATE;
    a.data = malloc(frames * (size_t)channels * sizeof(double));
    for (size_t i = 0; i < frames * (size_t)channels; i++) {
        double level = 0.02 + 0.5 * fabs(sin((double)i / 300000.0));
        a.data[i] = level * ((double)(fxt_rand(&seed) >> 11) / 9007199254740992.0 - 0.5);
    }
    return a;
}

FXT_TEST(streaming_in_odd_chunks_equals_one_call)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    static const char *const option_sets[] = {
        "frame-ms=20 window=5",
        "frame-ms=20 window=7 coupling=0 correct-dc=1 compress=2",
        "frame-ms=30 window=9 overlap=0.4 target-rms=0.1",
        "frame-samples=333 min-window=3 gauss-window=9 alt-boundary=1",
        "frame-ms=10 window=3 ramp=0 threshold=0.05",
    };
    static const size_t chunks[] = {1, 7, 1000, 65537};
    fx_audio in = make_noise(3, 54321, 11);
    const size_t samples = in.frames * 3;
    double *whole = malloc(samples * sizeof *whole), *part = malloc(samples * sizeof *part);
    for (size_t s = 0; s < sizeof option_sets / sizeof *option_sets; s++) {
        fx_normalize_options o;
        set_options(ctx, &o, option_sets[s]);
        FXT_CHECK_OK(normalize_chunked(ctx, &o, &in, 0, whole), ctx);
        for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
            memset(part, 0, samples * sizeof *part);
            FXT_CHECK_OK(normalize_chunked(ctx, &o, &in, chunks[k], part), ctx);
            if (!FXT_CHECK(memcmp(whole, part, samples * sizeof *part) == 0))
                printf("options '%s', chunk %zu differ\n", option_sets[s], chunks[k]);
        }
    }
    free(whole);
    free(part);
    free(in.data);
    fx_context_destroy(ctx);
}

FXT_TEST(per_sample_arithmetic_is_the_plain_formula)
{
    uint64_t seed = 5;
    for (int k = 0; k < 10000; k++) {
        const size_t length = 1 + fxt_rand(&seed) % 50000, pos = fxt_rand(&seed) % length;
        const double a = (double)(fxt_rand(&seed) % 1000) / 97.0;
        const double b = (double)(fxt_rand(&seed) % 1000) / 89.0;
        const double step = 1.0 / length;
        const double f0 = 1.0 - (step * (pos + 1.0));
        const double want = f0 * a + (1.0 - f0) * b;
        FXT_CHECK(fxi_nm_fade(a, b, pos, length) == want);
        FXT_CHECK(fxi_nm_gain_at(a, b, pos, length, 1) == want);
        FXT_CHECK(fxi_nm_gain_at(a, b, pos, length, 0) == b);
        FXT_CHECK(fxi_nm_remove_dc(0.25, a, b, pos, length) == 0.25 - want);
    }
    /* The ramp ends exactly on the next gain. */
    FXT_CHECK(fxi_nm_fade(3.0, 7.5, 99, 100) == 7.5);
}

FXT_TEST(parameters_are_ffmpeg_s)
{
    FXT_CHECK_EQ(fxi_nm_frame_length(44100, 500), 22050);
    FXT_CHECK_EQ(fxi_nm_frame_length(11025, 500), 5512);
    FXT_CHECK_EQ(fxi_nm_frame_length(22050, 500), 11026);
    FXT_CHECK_EQ(fxi_nm_frame_length(8000, 500), 4000);
    FXT_CHECK_EQ(fxi_nm_frame_length(44100, 10), 442);
    FXT_CHECK_EQ(fxi_nm_frame_length(44100, 33), 1456);
    double w[31];
    fxi_nm_gauss_weights(1, w);
    FXT_CHECK(w[0] == 0.10650697891920076 && w[1] == 0.7869860421615985 && w[2] == w[0]);
    fxi_nm_gauss_weights(2, w);
    FXT_CHECK(w[0] == 0.02691315637385272 && w[1] == 0.23336768374143024);
    FXT_CHECK(w[2] == 0.479438319769434);
    fxi_nm_gauss_weights(15, w);
    FXT_CHECK(w[0] == 0.0011444121186843254 && w[1] == 0.001970082174517926);
    FXT_CHECK(w[14] == 0.0759838352997904 && w[15] == 0.0774204620566702);
    FXT_CHECK(fxi_nm_bound(10, 1.0) == 0.9973881631072795);
    FXT_CHECK(fxi_nm_bound(10, 0.95) == 0.9477601625244163);
    FXT_CHECK(fxi_nm_bound(10, 9.5) == 7.662083693831346);
    FXT_CHECK(fxi_nm_compress_knee(0.05) == 0.05);
    FXT_CHECK(fabs(fxi_nm_compress_knee(0.5) - 0.506789) < 1e-6);
    FXT_CHECK(fabs(fxi_nm_compress_knee(0.7) - 0.788070) < 1e-6);
    /* x86-64 llrint overflow: the knee never reaches 1. */
    FXT_CHECK(fxi_nm_compress_knee(0.9) == 0.9999999999999997);
}

FXT_TEST(silence_stays_silent_and_short_inputs)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_audio in = {0}, out;
    FXT_CHECK_OK(fx_audio_alloc(ctx, &in, 40 * RATE, 2, RATE), ctx);
    FXT_CHECK_OK(fx_normalize_audio(ctx, NULL, &in, &out), ctx);
    int zero = 1;
    for (size_t i = 0; i < out.frames * 2; i++)
        zero &= out.data[i] == 0.0;
    FXT_CHECK(zero);
    fx_audio_free(&out);
    fx_audio_free(&in);

    /* Shorter than the window: 5.1 passes it through; the default mode processes it
     * (the boundary fade keeps a short file near unity gain). */
    fx_audio quiet = make_signal(QUIET_TONE, 10);
    fx_normalize_options o;
    fx_normalize_options_init(&o);
    FXT_CHECK_OK(fx_normalize_audio(ctx, &o, &quiet, &out), ctx);
    FXT_CHECK(memcmp(out.data, quiet.data, quiet.frames * sizeof *out.data) != 0);
    const size_t middle = 5 * RATE + 12;
    FXT_CHECK(fabs(out.data[middle] / quiet.data[middle] - 1.0) < 0.1);
    fx_audio_free(&out);
    o.alt_boundary = 1; /* full gain at the ends: ×10 at most */
    FXT_CHECK_OK(fx_normalize_audio(ctx, &o, &quiet, &out), ctx);
    FXT_CHECK(fabs(out.data[RATE + 12] / quiet.data[RATE + 12] - 10.0) < 1e-9);
    fx_audio_free(&out);
    free(quiet.data);

    /* Nothing in, nothing out. */
    fx_audio empty = {NULL, 0, 1, RATE, FX_SF_SAME};
    FXT_CHECK_OK(fx_normalize_audio(ctx, NULL, &empty, &out), ctx);
    FXT_CHECK_EQ(out.frames, 0);
    fx_audio_free(&out);
    fx_context_destroy(ctx);
}

FXT_TEST(threshold_default_mode_keeps_the_loud_part)
{
    /* 5.1 fades the loud section (20..40 s) to near silence before its end;
     * with aligned, renormalised weights its gain stays near bound(10, 0.95/0.3162). */
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    fx_audio in = make_signal(LOUD_SECTION, 60), fixed, compat;
    fx_normalize_options o;
    set_options(ctx, &o, "threshold=0.01");
    FXT_CHECK_OK(fx_normalize_audio(ctx, &o, &in, &fixed), ctx);
    o.compat = FX_NORMALIZE_COMPAT_FFMPEG51;
    FXT_CHECK_OK(fx_normalize_audio(ctx, &o, &in, &compat), ctx);
    const size_t at = (size_t)(39.5 * RATE) + 12; /* inside the last loud frame */
    const double fixed_gain = fixed.data[at] / in.data[at],
                 compat_gain = compat.data[at] / in.data[at];
    FXT_CHECK(compat_gain < 0.01);
    FXT_CHECK(fixed_gain > 1.5 && fixed_gain < 3.0);
    fx_audio_free(&fixed);
    fx_audio_free(&compat);
    free(in.data);
    fx_context_destroy(ctx);
}

FXT_TEST(channels_outside_the_list_pass_through)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_audio in = make_noise(3, 30000, 3), out;
    fx_normalize_options o;
    set_options(ctx, &o, "frame-ms=10 window=3 correct-dc=1 compress=2");
    o.channels = "0,2";
    FXT_CHECK_OK(fx_normalize_audio(ctx, &o, &in, &out), ctx);
    int same1 = 1, changed0 = 0;
    for (size_t i = 0; i < in.frames; i++) {
        same1 &= out.data[i * 3 + 1] == in.data[i * 3 + 1];
        changed0 |= out.data[i * 3] != in.data[i * 3];
    }
    FXT_CHECK(same1 && changed0);
    fx_audio_free(&out);
    free(in.data);
    fx_context_destroy(ctx);
}

FXT_TEST(options_are_checked)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_normalize_options o;
    fx_normalize *n = NULL;
    fx_normalize_options_init(&o);
    FXT_CHECK(o.frame_ms == 500 && o.window == 31 && o.peak == 0.95 && o.max_gain == 10);
    FXT_CHECK(o.coupling == 1 && o.ramp == 1 && o.target_rms == 0 && o.compress == 0);
    o.window = 30;
    FXT_CHECK_STATUS(fx_normalize_open(ctx, &o, 2, RATE, &n), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--window: 30 is even");
    FXT_CHECK(n == NULL);
    fx_normalize_options_init(&o);
    o.peak = 1.5;
    FXT_CHECK_STATUS(fx_normalize_open(ctx, &o, 2, RATE, &n), FX_ERANGE, ctx);
    fx_normalize_options_init(&o);
    static const char *const bad_lists[] = {"2", "x", "0,", "1-0", "0;1", "-1"};
    for (size_t i = 0; i < sizeof bad_lists / sizeof *bad_lists; i++) {
        o.channels = bad_lists[i];
        FXT_CHECK_STATUS(fx_normalize_open(ctx, &o, 2, RATE, &n), FX_EINVAL, ctx);
    }
    o.channels = "0-1";
    FXT_CHECK_OK(fx_normalize_open(ctx, &o, 2, RATE, &n), ctx);
    fx_normalize_info info;
    fx_normalize_info_get(n, &info);
    FXT_CHECK_EQ(info.frame_length, 24000);
    FXT_CHECK_EQ(info.latency_frames, 30);
    double x[2] = {0, 0};
    FXT_CHECK_OK(fx_normalize_flush(n), ctx);
    FXT_CHECK_STATUS(fx_normalize_push(n, x, 1), FX_EBADSTATE, ctx);
    fx_normalize_close(n);

    /* The preset fills the options left at their defaults. */
    fx_normalize_options_init(&o);
    o.preset = FX_NORMALIZE_PRESET_DANPI;
    o.window = 11;
    FXT_CHECK_OK(fx_normalize_open(ctx, &o, 1, 44100, &n), ctx);
    fx_normalize_info_get(n, &info);
    FXT_CHECK_EQ(info.frame_length, 1024);
    FXT_CHECK_EQ(info.gauss_window, 11);
    fx_normalize_close(n);
    fx_context_destroy(ctx);
}

FXT_TEST(gpu_levels_give_the_host_analysis_gains)
{
    /* The GPU analysis measures each frame with fxi_nm_frame_levels and the host turns
     * the levels into gains: the same gains as the host's own analysis, bit for bit,
     * coupled or not, with and without an RMS target, full and short frames. */
    static const char *const options[] = {"", "target-rms=0.2", "coupling=0",
                                          "coupling=0 target-rms=0.05 min-gain=0.5"};
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    uint64_t seed = 99;
    double x[5 * 777];
    for (size_t k = 0; k < sizeof options / sizeof *options; k++)
        for (int channels = 1; channels <= 5; channels += 2)
            for (size_t n = 775; n <= 777; n++) {
                fx_normalize_options o;
                set_options(ctx, &o, options[k]);
                fxi_nm_params p;
                FXT_CHECK_OK(fxi_nm_params_resolve(ctx, &o, channels, 44100, &p), ctx);
                fxi_nm_carry carry;
                FXT_CHECK_OK(fxi_nm_carry_init(ctx, &p, &carry), ctx);
                for (size_t i = 0; i < n * (size_t)channels; i++)
                    x[i] = ((double)(fxt_rand(&seed) >> 11) / 9007199254740992.0 - 0.5) *
                           (i % 3 ? 0.3 : 1.1);
                fxi_nm_gain host[5];
                fxi_nm_analyze(ctx, &p, &carry, x, n, host);
                const int gains = p.coupled ? 1 : channels;
                const bool want_rms = p.target_rms > DBL_EPSILON;
                for (int g = 0; g < gains; g++) {
                    double peak, sumsq;
                    fxi_nm_frame_levels(x, (uint32_t)n, channels, p.coupled ? -1 : g, want_rms,
                                        &peak, &sumsq);
                    const size_t count = n * (p.coupled ? (size_t)channels : 1);
                    const fxi_nm_gain dev = fxi_nm_local_gain(
                        &p, peak, want_rms ? fxi_nm_rms_of_sum(sumsq, count) : 0.0);
                    FXT_CHECK(dev.gain == host[g].gain && dev.flag == host[g].flag);
                }
                fxi_nm_carry_free(&carry);
                fxi_nm_params_free(&p);
            }
    fx_context_destroy(ctx);
}

/* The levels kernel's blocks: every frame and gain channel of a run exactly once, in
 * the host's order of reading (t = frame * gains + gain channel), each at its frame's
 * first sample with its frame's length (the last one short) and channel. */
FXT_TEST(gpu_levels_blocks_cover_the_run)
{
    for (int gains = 1; gains <= 3; gains += 2) {
        const fxi_nm_levels_job job = {5, 3 * 40, 40, 17, 3, gains, 1};
        for (uint32_t t = 0; t < job.frames * (uint32_t)gains; t++) {
            uint32_t n;
            int c;
            const size_t at = fxi_nm_levels_block(&job, t, &n, &c);
            const uint32_t frame = t / (uint32_t)gains;
            FXT_CHECK_EQ(at, frame * job.slot_samples);
            FXT_CHECK_EQ(n, frame + 1 == job.frames ? job.last_length : job.length);
            FXT_CHECK_EQ(c, gains == 1 ? -1 : (int)(t % (uint32_t)gains));
        }
    }
}

FXT_TEST(gpu_thread_work_and_geometry)
{
    /* What each GPU thread computes in a batch of four frames, the last one short:
     * the sample times the CPU's ramp gain of its own frame, or the sample untouched
     * in a channel outside the list. */
    enum { FRAMES = 4, LENGTH = 97, LAST = 31, CH = 3 };
    const bool process[CH] = {true, false, true};
    double gain_rows[(FRAMES + 1) * CH], src[CH * LENGTH * FRAMES];
    for (size_t r = 0; r < sizeof gain_rows / sizeof *gain_rows; r++)
        gain_rows[r] = 0.25 + (double)((r * 7) % 11);
    for (size_t e = 0; e < sizeof src / sizeof *src; e++)
        src[e] = (double)e / 7.0 - 20.0;
    for (int gains = 1; gains <= CH; gains += CH - 1) {
        double params[(FRAMES + 1) * CH + CH];
        FXT_CHECK_EQ(fxi_nm_ramp_param_count(FRAMES, CH, gains), (FRAMES + 1) * gains + CH);
        memcpy(params, gain_rows, (FRAMES + 1) * (size_t)gains * sizeof *params);
        fxi_nm_batch_pack_process(process, CH, gains, FRAMES, params);
        for (int ramp = 0; ramp <= 1; ramp++) {
            fxi_nm_ramp_batch b;
            fxi_nm_batch_describe(&b, FRAMES, LENGTH, LAST, CH, gains, ramp);
            FXT_CHECK_EQ(b.samples, ((FRAMES - 1) * LENGTH + LAST) * CH);
            for (uint32_t e = 0; e < b.samples; e++) {
                const size_t k = e / (LENGTH * CH), i = e % (LENGTH * CH) / CH, c = e % CH;
                const size_t g = gains == 1 ? 0 : c, length = k + 1 == FRAMES ? LAST : LENGTH;
                const double from = params[k * gains + g], to = params[(k + 1) * gains + g];
                const double want =
                    process[c] ? src[e] * fxi_nm_gain_at(from, to, i, length, ramp) : src[e];
                if (!FXT_CHECK(fxi_nm_batch_element(src, params, e, &b) == want)) return;
            }
        }
    }
    FXT_CHECK_EQ(fxi_nm_batch_frames(1), FXI_NM_BATCH_SAMPLES);
    FXT_CHECK_EQ(fxi_nm_batch_frames(FXI_NM_BATCH_SAMPLES / 3), 3);
    FXT_CHECK_EQ(fxi_nm_batch_frames(FXI_NM_BATCH_SAMPLES * 2), 1);
    FXT_CHECK_EQ(fxi_nm_ramp_blocks(0, 132), 0);
    FXT_CHECK_EQ(fxi_nm_ramp_blocks(1, 132), 1);
    FXT_CHECK_EQ(fxi_nm_ramp_blocks(FXI_NM_RAMP_THREADS + 1, 132), 2);
    FXT_CHECK_EQ(fxi_nm_ramp_blocks((size_t)1 << 30, 132), 132 * FXI_NM_RAMP_BLOCKS_PER_SM);
    FXT_CHECK_EQ(fxi_nm_ramp_blocks((size_t)1 << 30, 0), FXI_NM_RAMP_BLOCKS_PER_SM);
}

FXT_MAIN(FXT_CASE(reference_outputs_of_ffmpeg_51),
         FXT_CASE(gpu_levels_give_the_host_analysis_gains),
         FXT_CASE(streaming_in_odd_chunks_equals_one_call),
         FXT_CASE(per_sample_arithmetic_is_the_plain_formula), FXT_CASE(parameters_are_ffmpeg_s),
         FXT_CASE(silence_stays_silent_and_short_inputs),
         FXT_CASE(threshold_default_mode_keeps_the_loud_part),
         FXT_CASE(channels_outside_the_list_pass_through), FXT_CASE(options_are_checked),
         FXT_CASE(gpu_levels_blocks_cover_the_run), FXT_CASE(gpu_thread_work_and_geometry))
