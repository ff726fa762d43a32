/* Synthetic audio: stepped tones, white noise, silence and (gen_speech.c) speech.
 *
 * Every sample is a pure function of its absolute frame number, so a chunk
 * [start, start + frames) equals the same frames of the whole signal, and the
 * frames can be filled in parallel.
 *
 * tones: a sine at `frequency`, phase 2*pi*frequency*n/rate (continuous from
 * frame 0), in sections of TONE_SECTION_SECONDS whose level cycles through
 * tone_levels (0, -20, -40 dB relative to `amplitude`). Each section ends with
 * TONE_GAP_SECONDS of digital silence and its tone fades in and out over
 * TONE_FADE_SECONDS (raised cosine) so the steps do not click.
 * white: uniform in [-amplitude, amplitude), independent per channel.
 * Tones and speech are the same in every channel.
 */
#include <math.h>
#include <string.h>

#include "gen_internal.h"


#define TONE_SECTION_SECONDS 2.0
#define TONE_GAP_SECONDS 0.25
#define TONE_FADE_SECONDS 0.005
static const double tone_levels[] = {1.0, 0.1, 0.01};
#define TONE_LEVEL_COUNT (sizeof tone_levels / sizeof *tone_levels)

/* Frames per parallel chunk: large enough that handing chunks out costs nothing. */
#define AUDIO_FRAMES_PER_CHUNK 8192

#define GEN_STREAM_WHITE 2

#define TWO_PI 6.283185307179586476925286766559

void fx_gen_audio_params_init(fx_gen_audio_params *p)
{
    memset(p, 0, sizeof *p);
    p->kind = FX_GEN_TONES;
    p->rate = FX_DEFAULT_GEN_AUDIO_RATE;
    p->channels = FX_DEFAULT_GEN_AUDIO_CHANNELS;
    p->frames = (uint64_t)FX_DEFAULT_GEN_AUDIO_SECONDS * FX_DEFAULT_GEN_AUDIO_RATE;
    p->seed = FX_DEFAULT_GEN_SEED;
    p->frequency = FX_DEFAULT_GEN_FREQUENCY;
    p->amplitude = FX_DEFAULT_GEN_AMPLITUDE;
}

static fx_status validate_audio_params(fx_context *ctx, const fx_gen_audio_params *p)
{
    FXI_RETURN_IF(p->kind < FX_GEN_TONES || p->kind > FX_GEN_SPEECH, FX_EINVAL,
                 "audio generator: unknown kind %d", (int)p->kind);
    FXI_RETURN_IF(p->channels < 1, FX_EINVAL, "audio generator: %d channels (at least 1 needed)",
                 p->channels);
    FXI_RETURN_IF(p->channels > ctx->limits.max_channels, FX_ELIMIT,
                 "audio generator: %d channels exceed the limit of %d", p->channels,
                 ctx->limits.max_channels);
    FXI_RETURN_IF(p->rate <= 0, FX_EINVAL, "audio generator: sample rate %d Hz is not positive",
                 p->rate);
    FXI_RETURN_IF(p->frames > ctx->limits.max_audio_frames, FX_ELIMIT,
                 "audio generator: %llu frames exceed the limit of %llu",
                 (unsigned long long)p->frames, (unsigned long long)ctx->limits.max_audio_frames);
    FXI_RETURN_IF(!(p->amplitude >= 0.0 && p->amplitude <= 1.0), FX_ERANGE,
                 "audio generator: amplitude %g is outside 0..1", p->amplitude);
    FXI_RETURN_IF(p->kind == FX_GEN_TONES && !(p->frequency > 0.0 && p->frequency < 0.5 * p->rate),
                 FX_ERANGE,
                 "audio generator: tone frequency %g Hz must be above 0 and below half the sample "
                 "rate (%g Hz)",
                 p->frequency, 0.5 * p->rate);
    return FX_OK;
}

typedef struct audio_job {
    const fx_gen_audio_params *p;
    uint64_t start;
    double *out;
    uint64_t white_key;
    uint64_t section, gap, fade; /* tone section, silence gap and fade lengths in frames */
} audio_job;

/* The tone at absolute frame n, before the amplitude. */
static double tone_sample(const audio_job *job, uint64_t n)
{
    const uint64_t pos = n % job->section, audible = job->section - job->gap;
    if (pos >= audible) return 0.0;
    double gain = tone_levels[(n / job->section) % TONE_LEVEL_COUNT];
    uint64_t from_edge = pos < audible - 1 - pos ? pos : audible - 1 - pos;
    if (from_edge < job->fade)
        gain *= 0.5 - 0.5 * cos(0.5 * TWO_PI * (double)from_edge / (double)job->fade);
    /* Cycles elapsed, split into whole seconds and the rest so that the phase
     * keeps its precision for very long signals. */
    const uint64_t rate = (uint64_t)job->p->rate;
    double cycles = fmod((double)(n / rate) * job->p->frequency, 1.0) +
                    (double)(n % rate) * job->p->frequency / (double)rate;
    return gain * sin(TWO_PI * cycles);
}

static void audio_frames(void *arg, size_t begin, size_t end, int worker)
{
    (void)worker;
    const audio_job *job = arg;
    const fx_gen_audio_params *p = job->p;
    const size_t ch = (size_t)p->channels;
    double *out = job->out + begin * ch;
    switch (p->kind) {
    case FX_GEN_TONES:
        for (size_t i = begin; i < end; i++) {
            double v = p->amplitude * tone_sample(job, job->start + i);
            for (size_t c = 0; c < ch; c++)
                *out++ = v;
        }
        break;
    case FX_GEN_WHITE:
        for (size_t i = begin; i < end; i++)
            for (size_t c = 0; c < ch; c++)
                *out++ =
                    p->amplitude *
                    (2.0 * fxi_gen_unit_d(fxi_gen_hash2(job->white_key, job->start + i, c)) - 1.0);
        break;
    case FX_GEN_SPEECH:
        fxi_gen_speech_range(p->seed, p->rate, p->amplitude, job->start + begin, end - begin,
                             p->channels, out);
        break;
    default: /* FX_GEN_SILENCE */ memset(out, 0, (end - begin) * ch * sizeof *out); break;
    }
}

fx_status fx_gen_audio_chunk(fx_context *ctx, const fx_gen_audio_params *p, uint64_t start,
                             size_t frames, double *out)
{
    if (!ctx || !p || (!out && frames))
        return fxi_error(ctx, FX_EINVAL, "audio generator: NULL argument");
    FXI_TRY(validate_audio_params(ctx, p));
    size_t samples;
    FXI_RETURN_IF(!fxi_mul_size(frames, (size_t)p->channels, &samples), FX_EOVERFLOW,
                 "audio generator: %zu frames x %d channels overflows", frames, p->channels);
    FXI_RETURN_IF(start > p->frames || frames > p->frames - start, FX_ERANGE,
                 "audio generator: frames %llu..%llu are past the end (%llu frames)",
                 (unsigned long long)start, (unsigned long long)start + frames,
                 (unsigned long long)p->frames);
    audio_job job = {
        .p = p, .start = start, .out = out, .white_key = fxi_gen_key(p->seed, GEN_STREAM_WHITE)};
    job.section = (uint64_t)llround(TONE_SECTION_SECONDS * p->rate);
    if (job.section < 1) job.section = 1;
    job.gap = (uint64_t)llround(TONE_GAP_SECONDS * p->rate);
    if (job.gap >= job.section) job.gap = 0; /* absurdly low rates: no gap */
    job.fade = (uint64_t)llround(TONE_FADE_SECONDS * p->rate);
    fxi_parallel_for(ctx, frames, AUDIO_FRAMES_PER_CHUNK, audio_frames, &job);
    return FX_OK;
}

fx_status fx_gen_audio(fx_context *ctx, const fx_gen_audio_params *p, fx_audio *audio)
{
    if (!ctx || !p || !audio) return fxi_error(ctx, FX_EINVAL, "audio generator: NULL argument");
    memset(audio, 0, sizeof *audio);
    FXI_TRY(validate_audio_params(ctx, p));
    FXI_RETURN_IF(p->frames > SIZE_MAX, FX_EOVERFLOW,
                 "audio generator: %llu frames do not fit in memory",
                 (unsigned long long)p->frames);
    FXI_TRY(fx_audio_alloc(ctx, audio, (size_t)p->frames, p->channels, p->rate));
    fx_status st = fx_gen_audio_chunk(ctx, p, 0, audio->frames, audio->data);
    if (st != FX_OK) fx_audio_free(audio);
    return st;
}
