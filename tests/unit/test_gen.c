/* Synthetic-data generators: determinism across thread counts, exact formulas
 * against plain reference code written here, statistics, chunked audio, and
 * parameter validation. */
#include <math.h>
#include <stdlib.h>

#include "fxtest.h"

static const fx_sample_type all_types[] = {FX_U8, FX_U16, FX_F32};
#define TYPE_COUNT 3
static const fx_gen_image_kind all_image_kinds[] = {FX_GEN_NOISE, FX_GEN_GRADIENT, FX_GEN_CHECKER,
                                                    FX_GEN_PHOTO};
#define IMAGE_KIND_COUNT 4
static const fx_gen_audio_kind all_audio_kinds[] = {FX_GEN_TONES, FX_GEN_WHITE, FX_GEN_SILENCE,
                                                    FX_GEN_SPEECH};
#define AUDIO_KIND_COUNT 4

/* Thread counts compared for byte-identical output (7: more threads than rows in some images). */
static const int thread_counts[] = {1, 2, 7};
#define THREAD_COUNT_COUNT 3

typedef struct size2 {
    int w, h;
} size2;
static const size2 awkward_sizes[] = {{1, 1}, {1, 7}, {7, 1}, {37, 53}, {130, 3}};
#define AWKWARD_COUNT 5

static double type_max(fx_sample_type t)
{
    return t == FX_U8 ? 255.0 : t == FX_U16 ? 65535.0 : 1.0;
}

static double sample_at(const fx_image *img, int x, int y, int c)
{
    const uint8_t *row = fx_image_row(img, y);
    size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->type) {
    case FX_U8: return row[i];
    case FX_U16: return ((const uint16_t *)(const void *)row)[i];
    default: return ((const float *)(const void *)row)[i];
    }
}

static fx_gen_image_params image_params(fx_gen_image_kind kind, int w, int h, int ch,
                                        fx_sample_type t)
{
    fx_gen_image_params p;
    fx_gen_image_params_init(&p);
    p.kind = kind;
    p.width = w;
    p.height = h;
    p.channels = ch;
    p.type = t;
    p.seed = 12345;
    return p;
}

FXT_TEST(image_params_defaults)
{
    fx_gen_image_params p;
    fx_gen_image_params_init(&p);
    FXT_CHECK(p.width > 0 && p.height > 0);
    FXT_CHECK(p.channels >= 1 && p.channels <= FX_MAX_IMAGE_CHANNELS);
    FXT_CHECK(fx_sample_size(p.type) > 0);
    FXT_CHECK_EQ(p.cell, 32);
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    fx_image img;
    FXT_CHECK_OK(fx_gen_image(ctx, &p, &img), ctx);
    FXT_CHECK_EQ(img.width, p.width);
    fx_image_free(&img);
    fx_context_destroy(ctx);
}

/* Every kind, type and channel count: the same bytes with 1, 2 and 7 threads. */
FXT_TEST(image_same_for_any_thread_count)
{
    fx_context *ctx[THREAD_COUNT_COUNT];
    for (int t = 0; t < THREAD_COUNT_COUNT; t++)
        ctx[t] = fxt_context(FX_DEVICE_CPU, thread_counts[t]);
    for (int k = 0; k < IMAGE_KIND_COUNT; k++)
        for (int ti = 0; ti < TYPE_COUNT; ti++)
            for (int ch = 1; ch <= FX_MAX_IMAGE_CHANNELS; ch++) {
                fx_gen_image_params p = image_params(all_image_kinds[k], 97, 61, ch, all_types[ti]);
                p.cell = 7;
                fx_image img[THREAD_COUNT_COUNT];
                for (int t = 0; t < THREAD_COUNT_COUNT; t++)
                    FXT_CHECK_OK(fx_gen_image(ctx[t], &p, &img[t]), ctx[t]);
                for (int t = 1; t < THREAD_COUNT_COUNT; t++)
                    if (!FXT_CHECK(fxt_images_equal(&img[0], &img[t])))
                        fprintf(stderr, "  kind %d type %s channels %d threads %d\n", (int)p.kind,
                                fx_sample_type_name(p.type), ch, thread_counts[t]);
                for (int t = 0; t < THREAD_COUNT_COUNT; t++)
                    fx_image_free(&img[t]);
            }
    for (int t = 0; t < THREAD_COUNT_COUNT; t++)
        fx_context_destroy(ctx[t]);
}

/* A large photo is split into many chunks: still identical. */
FXT_TEST(photo_large_same_for_any_thread_count)
{
    fx_context *one = fxt_context(FX_DEVICE_CPU, 1), *many = fxt_context(FX_DEVICE_CPU, 7);
    fx_gen_image_params p = image_params(FX_GEN_PHOTO, 1021, 769, 3, FX_U8);
    fx_image a, b;
    FXT_CHECK_OK(fx_gen_image(one, &p, &a), one);
    FXT_CHECK_OK(fx_gen_image(many, &p, &b), many);
    FXT_CHECK(fxt_images_equal(&a, &b));
    fx_image_free(&a);
    fx_image_free(&b);
    fx_context_destroy(one);
    fx_context_destroy(many);
}

FXT_TEST(image_seeds_differ)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    static const fx_gen_image_kind seeded[] = {FX_GEN_NOISE, FX_GEN_PHOTO};
    for (int k = 0; k < 2; k++) {
        fx_gen_image_params p = image_params(seeded[k], 64, 48, 3, FX_U8);
        fx_image a, b;
        FXT_CHECK_OK(fx_gen_image(ctx, &p, &a), ctx);
        p.seed++;
        FXT_CHECK_OK(fx_gen_image(ctx, &p, &b), ctx);
        FXT_CHECK(!fxt_images_equal(&a, &b));
        fx_image_free(&a);
        fx_image_free(&b);
    }
    fx_context_destroy(ctx);
}

/* Reference: checker squares, top-left 0, by the plain formula. */
FXT_TEST(checker_matches_reference)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    static const int cells[] = {1, 5, 32};
    for (int ci = 0; ci < 3; ci++)
        for (int ti = 0; ti < TYPE_COUNT; ti++)
            for (int s = 0; s < AWKWARD_COUNT; s++)
                for (int ch = 1; ch <= FX_MAX_IMAGE_CHANNELS; ch++) {
                    fx_gen_image_params p = image_params(FX_GEN_CHECKER, awkward_sizes[s].w,
                                                         awkward_sizes[s].h, ch, all_types[ti]);
                    p.cell = cells[ci];
                    fx_image img;
                    if (!FXT_CHECK_OK(fx_gen_image(ctx, &p, &img), ctx)) continue;
                    int bad = 0;
                    for (int y = 0; y < p.height; y++)
                        for (int x = 0; x < p.width; x++)
                            for (int c = 0; c < ch; c++) {
                                double want =
                                    ((x / p.cell + y / p.cell) % 2) ? type_max(p.type) : 0.0;
                                bad += sample_at(&img, x, y, c) != want;
                            }
                    FXT_CHECK_EQ(bad, 0);
                    fx_image_free(&img);
                }
    fx_context_destroy(ctx);
}

/* Reference ramp: nearest value of num/den of full scale, computed in long double. */
static double ramp_reference(long num, long den, fx_sample_type t)
{
    if (den == 0) return 0.0;
    if (t == FX_F32) return (double)(float)((double)num / (double)den);
    long double exact = (long double)num * type_max(t) / (long double)den;
    return (double)floorl(exact + 0.5L);
}

FXT_TEST(gradient_matches_reference)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    static const size2 sizes[] = {{1, 1}, {1, 7}, {7, 1}, {37, 53}, {256, 2}, {1000, 3}};
    for (int ti = 0; ti < TYPE_COUNT; ti++)
        for (int s = 0; s < 6; s++)
            for (int ch = 1; ch <= FX_MAX_IMAGE_CHANNELS; ch++) {
                const int w = sizes[s].w, h = sizes[s].h;
                fx_gen_image_params p = image_params(FX_GEN_GRADIENT, w, h, ch, all_types[ti]);
                fx_image img;
                if (!FXT_CHECK_OK(fx_gen_image(ctx, &p, &img), ctx)) continue;
                int bad = 0;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        const long num[4] = {x, y, x + y, w - 1 - x};
                        const long den[4] = {w - 1, h - 1, w + h - 2, w - 1};
                        for (int c = 0; c < ch; c++)
                            bad +=
                                sample_at(&img, x, y, c) != ramp_reference(num[c], den[c], p.type);
                    }
                FXT_CHECK_EQ(bad, 0);
                /* The ends of a ramp are exactly 0 and full scale. */
                if (w > 1) FXT_CHECK(sample_at(&img, w - 1, 0, 0) == type_max(p.type));
                fx_image_free(&img);
            }
    fx_context_destroy(ctx);
}

FXT_TEST(noise_statistics)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    enum { SIDE = 512 };
    for (int ti = 0; ti < TYPE_COUNT; ti++) {
        fx_gen_image_params p = image_params(FX_GEN_NOISE, SIDE, SIDE, 1, all_types[ti]);
        fx_image img;
        if (!FXT_CHECK_OK(fx_gen_image(ctx, &p, &img), ctx)) continue;
        const double max = type_max(p.type);
        double sum = 0.0, lo = INFINITY, hi = -INFINITY;
        static int seen[256];
        memset(seen, 0, sizeof seen);
        for (int y = 0; y < SIDE; y++)
            for (int x = 0; x < SIDE; x++) {
                double v = sample_at(&img, x, y, 0);
                sum += v;
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
                if (p.type == FX_U8) seen[(int)v] = 1;
            }
        double mean = sum / ((double)SIDE * SIDE);
        /* Uniform: standard error of the mean is max / sqrt(12 * 262144) ~ 0.06% of max. */
        FXT_CHECK(fabs(mean - max / 2) < 0.005 * max);
        FXT_CHECK(lo >= 0.0 && lo < 0.01 * max);
        FXT_CHECK(hi > 0.99 * max);
        if (p.type == FX_F32) FXT_CHECK(hi < 1.0);
        if (p.type == FX_U8) {
            int count = 0;
            for (int v = 0; v < 256; v++)
                count += seen[v];
            FXT_CHECK_EQ(count, 256);
        }
        fx_image_free(&img);
    }
    fx_context_destroy(ctx);
}

/* Photo-like: not constant, values inside the range, mostly smooth (neighbour
 * differences far below the overall spread), but with some hard edges. */
FXT_TEST(photo_statistics)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    fx_gen_image_params p = image_params(FX_GEN_PHOTO, 400, 300, 3, FX_F32);
    fx_image img;
    if (!FXT_CHECK_OK(fx_gen_image(ctx, &p, &img), ctx)) return;
    double sum = 0, sum2 = 0, diff = 0;
    long edges = 0, count = 0, out_of_range = 0;
    for (int y = 0; y < p.height; y++)
        for (int x = 0; x + 1 < p.width; x++)
            for (int c = 0; c < 3; c++) {
                double v = sample_at(&img, x, y, c), d = fabs(sample_at(&img, x + 1, y, c) - v);
                out_of_range += v < 0.0 || v > 1.0;
                sum += v;
                sum2 += v * v;
                diff += d;
                edges += d > 0.2;
                count++;
            }
    double mean = sum / count, sd = sqrt(sum2 / count - mean * mean);
    FXT_CHECK_EQ(out_of_range, 0);
    FXT_CHECK(mean > 0.2 && mean < 0.8);
    FXT_CHECK(sd > 0.05);
    FXT_CHECK(diff / count < 0.5 * sd);
    FXT_CHECK(edges > 0);
    FXT_CHECK(edges < count / 50);
    fx_image_free(&img);

    /* Alpha channels are opaque. */
    p = image_params(FX_GEN_PHOTO, 31, 17, 4, FX_U16);
    if (FXT_CHECK_OK(fx_gen_image(ctx, &p, &img), ctx)) {
        int bad = 0;
        for (int y = 0; y < p.height; y++)
            for (int x = 0; x < p.width; x++)
                bad += sample_at(&img, x, y, 3) != 65535.0;
        FXT_CHECK_EQ(bad, 0);
        fx_image_free(&img);
    }
    fx_context_destroy(ctx);
}

FXT_TEST(image_awkward_sizes_every_kind)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 7);
    for (int k = 0; k < IMAGE_KIND_COUNT; k++)
        for (int ti = 0; ti < TYPE_COUNT; ti++)
            for (int s = 0; s < AWKWARD_COUNT; s++)
                for (int ch = 1; ch <= FX_MAX_IMAGE_CHANNELS; ch++) {
                    fx_gen_image_params p = image_params(all_image_kinds[k], awkward_sizes[s].w,
                                                         awkward_sizes[s].h, ch, all_types[ti]);
                    fx_image img;
                    if (!FXT_CHECK_OK(fx_gen_image(ctx, &p, &img), ctx)) continue;
                    FXT_CHECK(img.width == p.width && img.height == p.height && img.channels == ch);
                    int bad = 0;
                    for (int y = 0; y < p.height; y++)
                        for (int x = 0; x < p.width; x++)
                            for (int c = 0; c < ch; c++) {
                                double v = sample_at(&img, x, y, c);
                                bad += !(v >= 0.0 && v <= type_max(p.type));
                            }
                    FXT_CHECK_EQ(bad, 0);
                    fx_image_free(&img);
                }
    fx_context_destroy(ctx);
}

FXT_TEST(image_bad_params_rejected)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_image img;
    fx_gen_image_params p = image_params(FX_GEN_NOISE, 8, 8, 3, FX_U8);
    p.kind = (fx_gen_image_kind)99;
    FXT_CHECK_STATUS(fx_gen_image(ctx, &p, &img), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "kind");
    FXT_CHECK(img.data == NULL);

    p = image_params(FX_GEN_CHECKER, 8, 8, 3, FX_U8);
    p.cell = 0;
    FXT_CHECK_STATUS(fx_gen_image(ctx, &p, &img), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "cell");

    static const int bad_channels[] = {0, 5, -1};
    for (int i = 0; i < 3; i++) {
        p = image_params(FX_GEN_NOISE, 8, 8, bad_channels[i], FX_U8);
        FXT_CHECK_STATUS(fx_gen_image(ctx, &p, &img), FX_EINVAL, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "channels");
    }
    p = image_params(FX_GEN_PHOTO, 0, 8, 3, FX_U8);
    FXT_CHECK_STATUS(fx_gen_image(ctx, &p, &img), FX_EINVAL, ctx);
    p = image_params(FX_GEN_PHOTO, 8, -3, 3, FX_U8);
    FXT_CHECK_STATUS(fx_gen_image(ctx, &p, &img), FX_EINVAL, ctx);
    p = image_params(FX_GEN_PHOTO, 8, 8, 3, (fx_sample_type)0);
    FXT_CHECK_STATUS(fx_gen_image(ctx, &p, &img), FX_EINVAL, ctx);
    /* Limits come from the context. */
    p = image_params(FX_GEN_NOISE, FX_DEFAULT_MAX_DIMENSION + 1, 1, 1, FX_U8);
    FXT_CHECK_STATUS(fx_gen_image(ctx, &p, &img), FX_ELIMIT, ctx);
    FXT_CHECK_STATUS(fx_gen_image(ctx, NULL, &img), FX_EINVAL, ctx);
    fx_context_destroy(ctx);
}

/* ---- audio ---- */

static fx_gen_audio_params audio_params(fx_gen_audio_kind kind, uint64_t frames, int channels,
                                        int rate)
{
    fx_gen_audio_params p;
    fx_gen_audio_params_init(&p);
    p.kind = kind;
    p.frames = frames;
    p.channels = channels;
    p.rate = rate;
    p.seed = 777;
    return p;
}

FXT_TEST(audio_params_defaults)
{
    fx_gen_audio_params p;
    fx_gen_audio_params_init(&p);
    FXT_CHECK(p.frequency == 440.0);
    FXT_CHECK(p.amplitude == 0.5);
    FXT_CHECK(p.rate > 0 && p.channels >= 1 && p.frames > 0);
    FXT_CHECK(p.kind == FX_GEN_TONES);
}

/* Pieces of awkward lengths, generated on another thread count, equal the whole. */
FXT_TEST(audio_chunks_equal_whole)
{
    fx_context *one = fxt_context(FX_DEVICE_CPU, 1), *many = fxt_context(FX_DEVICE_CPU, 7);
    static const size_t pieces[] = {1, 999, 4801, 20000, 65537};
    for (int k = 0; k < AUDIO_KIND_COUNT; k++)
        for (int ch = 1; ch <= 3; ch++) {
            fx_gen_audio_params p = audio_params(all_audio_kinds[k], 150000, ch, 44100);
            fx_audio whole;
            if (!FXT_CHECK_OK(fx_gen_audio(many, &p, &whole), many)) continue;
            double *parts = calloc(whole.frames * (size_t)ch, sizeof *parts);
            uint64_t start = 0;
            for (int i = 0; start < p.frames; i = (i + 1) % 5) {
                size_t n = pieces[i] < p.frames - start ? pieces[i] : (size_t)(p.frames - start);
                FXT_CHECK_OK(fx_gen_audio_chunk(one, &p, start, n, parts + start * (size_t)ch),
                             one);
                start += n;
            }
            if (!FXT_CHECK(memcmp(parts, whole.data, whole.frames * (size_t)ch * sizeof *parts) ==
                           0))
                fprintf(stderr, "  kind %d channels %d\n", (int)p.kind, ch);
            free(parts);
            fx_audio_free(&whole);
        }
    /* A chunk far into a long signal (start beyond 2^32) matches its neighbour. */
    fx_gen_audio_params p = audio_params(FX_GEN_SPEECH, UINT64_C(1) << 34, 2, 48000);
    double a[2 * 300], b[2 * 200];
    const uint64_t far = (UINT64_C(1) << 33) + 12345;
    FXT_CHECK_OK(fx_gen_audio_chunk(one, &p, far, 300, a), one);
    FXT_CHECK_OK(fx_gen_audio_chunk(many, &p, far + 100, 200, b), many);
    FXT_CHECK(memcmp(a + 200, b, sizeof b) == 0);
    fx_context_destroy(one);
    fx_context_destroy(many);
}

FXT_TEST(audio_seeds_differ)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    static const fx_gen_audio_kind seeded[] = {FX_GEN_WHITE, FX_GEN_SPEECH};
    for (int k = 0; k < 2; k++) {
        fx_gen_audio_params p = audio_params(seeded[k], 48000, 1, 16000);
        fx_audio a, b;
        FXT_CHECK_OK(fx_gen_audio(ctx, &p, &a), ctx);
        p.seed++;
        FXT_CHECK_OK(fx_gen_audio(ctx, &p, &b), ctx);
        FXT_CHECK(memcmp(a.data, b.data, a.frames * sizeof(double)) != 0);
        fx_audio_free(&a);
        fx_audio_free(&b);
    }
    fx_context_destroy(ctx);
}

static double peak(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fabs(x[i]) > m ? fabs(x[i]) : m;
    return m;
}

static double rms(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s / (double)n);
}

FXT_TEST(tones_levels)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    const int rate = 48000;
    fx_gen_audio_params p = audio_params(FX_GEN_TONES, 8 * (uint64_t)rate, 2, rate);
    p.amplitude = 0.8;
    p.frequency = 1000.0;
    fx_audio a;
    if (!FXT_CHECK_OK(fx_gen_audio(ctx, &p, &a), ctx)) return;
    const size_t section = 2 * (size_t)rate, gap = (size_t)rate / 4, ch = 2;
    /* Peak: the amplitude, within the worst sampling of a sine's crest. */
    double pk = peak(a.data, a.frames * ch);
    FXT_CHECK(pk <= p.amplitude);
    FXT_CHECK(pk >= p.amplitude * cos(M_PI * p.frequency / rate));
    /* Both channels carry the same tone. */
    int differ = 0;
    for (size_t i = 0; i < a.frames; i++)
        differ += a.data[2 * i] != a.data[2 * i + 1];
    FXT_CHECK_EQ(differ, 0);
    /* Levels step 0, -20, -40 dB, then back; the middle of each section is steady. */
    static const double levels[] = {1.0, 0.1, 0.01, 1.0};
    const size_t middle = (size_t)rate / 2, span = (size_t)rate / 2;
    for (int s = 0; s < 4; s++) {
        double r = rms(a.data + (s * section + middle) * ch, span * ch);
        FXT_CHECK(fabs(r / (p.amplitude * levels[s] / sqrt(2.0)) - 1.0) < 0.01);
        /* The last quarter second of each section is digital silence. */
        FXT_CHECK(peak(a.data + ((s + 1) * section - gap) * ch, gap * ch) == 0.0);
    }
    fx_audio_free(&a);
    fx_context_destroy(ctx);
}

FXT_TEST(silence_and_white)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 3);
    fx_audio a;
    fx_gen_audio_params p = audio_params(FX_GEN_SILENCE, 10007, 4, 8000);
    FXT_CHECK_OK(fx_gen_audio(ctx, &p, &a), ctx);
    int nonzero = 0;
    for (size_t i = 0; i < a.frames * 4; i++)
        nonzero += a.data[i] != 0.0 || signbit(a.data[i]);
    FXT_CHECK_EQ(nonzero, 0);
    fx_audio_free(&a);

    p = audio_params(FX_GEN_WHITE, 100000, 2, 8000);
    p.amplitude = 0.25;
    FXT_CHECK_OK(fx_gen_audio(ctx, &p, &a), ctx);
    size_t n = a.frames * 2;
    double sum = 0;
    int same = 0;
    for (size_t i = 0; i < n; i++)
        sum += a.data[i];
    for (size_t i = 0; i < a.frames; i++)
        same += a.data[2 * i] == a.data[2 * i + 1];
    FXT_CHECK(peak(a.data, n) <= 0.25 && peak(a.data, n) > 0.249);
    FXT_CHECK(fabs(sum / n) < 0.005);
    /* Uniform on [-A, A): rms A / sqrt(3). */
    FXT_CHECK(fabs(rms(a.data, n) / (0.25 / sqrt(3.0)) - 1.0) < 0.01);
    FXT_CHECK(same < 10); /* channels are independent */
    fx_audio_free(&a);
    fx_context_destroy(ctx);
}

/* Speech: bounded by the amplitude, with pauses, and phrase levels that vary by
 * more than 6 dB over 30 seconds. */
FXT_TEST(speech_structure)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 2);
    const int rate = 16000, phrase = 3 * rate, phrases = 10;
    fx_gen_audio_params p = audio_params(FX_GEN_SPEECH, (uint64_t)phrase * phrases, 1, rate);
    p.amplitude = 0.9;
    fx_audio a;
    if (!FXT_CHECK_OK(fx_gen_audio(ctx, &p, &a), ctx)) return;
    FXT_CHECK(peak(a.data, a.frames) <= p.amplitude);
    FXT_CHECK(peak(a.data, a.frames) > 0.1 * p.amplitude);
    size_t zeros = 0;
    for (size_t i = 0; i < a.frames; i++)
        zeros += a.data[i] == 0.0;
    FXT_CHECK(zeros > a.frames / 10 && zeros < a.frames * 3 / 4);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < phrases; i++) {
        double r = rms(a.data + (size_t)i * phrase, (size_t)phrase);
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    FXT_CHECK(lo > 0.0);
    FXT_CHECK(hi / lo > 2.0);
    /* The last half second of every phrase is a pause. */
    for (int i = 0; i < phrases; i++)
        FXT_CHECK(peak(a.data + (size_t)(i + 1) * phrase - rate / 2, (size_t)rate / 2) == 0.0);
    fx_audio_free(&a);
    fx_context_destroy(ctx);
}

FXT_TEST(audio_bad_params_rejected)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fx_audio a;
    double buf[16];
    fx_gen_audio_params p = audio_params(FX_GEN_TONES, 100, 0, 48000);
    FXT_CHECK_STATUS(fx_gen_audio(ctx, &p, &a), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "channels");
    FXT_CHECK(a.data == NULL);
    p = audio_params(FX_GEN_TONES, 100, FX_DEFAULT_MAX_AUDIO_CHANNELS + 1, 48000);
    FXT_CHECK_STATUS(fx_gen_audio(ctx, &p, &a), FX_ELIMIT, ctx);
    p = audio_params(FX_GEN_WHITE, 100, 1, 0);
    FXT_CHECK_STATUS(fx_gen_audio(ctx, &p, &a), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "rate");

    static const double bad_freq[] = {0.0, -5.0, 24000.0, 30000.0, NAN};
    for (int i = 0; i < 5; i++) {
        p = audio_params(FX_GEN_TONES, 100, 1, 48000);
        p.frequency = bad_freq[i];
        FXT_CHECK_STATUS(fx_gen_audio(ctx, &p, &a), FX_ERANGE, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "frequency");
    }
    /* Other kinds ignore the frequency. */
    p = audio_params(FX_GEN_WHITE, 100, 1, 8000);
    p.frequency = 30000.0;
    FXT_CHECK_OK(fx_gen_audio(ctx, &p, &a), ctx);
    fx_audio_free(&a);

    static const double bad_amp[] = {-0.1, 1.5, NAN};
    for (int i = 0; i < 3; i++) {
        p = audio_params(FX_GEN_SPEECH, 100, 1, 48000);
        p.amplitude = bad_amp[i];
        FXT_CHECK_STATUS(fx_gen_audio(ctx, &p, &a), FX_ERANGE, ctx);
        FXT_CHECK_CONTAINS(fx_context_error(ctx), "amplitude");
    }
    p = audio_params((fx_gen_audio_kind)9, 100, 1, 48000);
    FXT_CHECK_STATUS(fx_gen_audio(ctx, &p, &a), FX_EINVAL, ctx);
    /* A chunk past the end of the signal. */
    p = audio_params(FX_GEN_WHITE, 100, 1, 48000);
    FXT_CHECK_STATUS(fx_gen_audio_chunk(ctx, &p, 95, 8, buf), FX_ERANGE, ctx);
    FXT_CHECK_STATUS(fx_gen_audio_chunk(ctx, &p, 101, 0, buf), FX_ERANGE, ctx);
    FXT_CHECK_OK(fx_gen_audio_chunk(ctx, &p, 92, 8, buf), ctx);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(image_params_defaults), FXT_CASE(image_same_for_any_thread_count),
         FXT_CASE(photo_large_same_for_any_thread_count), FXT_CASE(image_seeds_differ),
         FXT_CASE(checker_matches_reference), FXT_CASE(gradient_matches_reference),
         FXT_CASE(noise_statistics), FXT_CASE(photo_statistics),
         FXT_CASE(image_awkward_sizes_every_kind), FXT_CASE(image_bad_params_rejected),
         FXT_CASE(audio_params_defaults), FXT_CASE(audio_chunks_equal_whole),
         FXT_CASE(audio_seeds_differ), FXT_CASE(tones_levels), FXT_CASE(silence_and_white),
         FXT_CASE(speech_structure), FXT_CASE(audio_bad_params_rejected))
