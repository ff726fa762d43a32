/* Speech-like synthetic audio.
 *
 * Loudness normalizers react to the structure of speech: syllables of 100-220 ms,
 * short pauses between words, longer pauses between phrases, and phrase levels
 * that wander by tens of dB. This generator imitates that structure:
 *
 * - time is cut into slots of SPEECH_SLOT_SECONDS; a phrase is SPEECH_PHRASE_SLOTS
 *   slots whose last SPEECH_PHRASE_PAUSE_SLOTS are silent, and any other slot is a
 *   pause with probability SPEECH_PAUSE_CHANCE;
 * - a phrase has a level (0 to -SPEECH_PHRASE_RANGE_DB dB) and a speaker pitch;
 * - a syllable sits at a random place inside its slot: SPEECH_HARMONICS harmonics
 *   of a fundamental that glides linearly (a pitch contour), weighted 1/k with a
 *   formant-like boost around a random harmonic, under an attack/sustain/release
 *   envelope, sometimes starting with a short noise burst (a consonant).
 *
 * Because slots have a fixed length, the syllable covering frame n is found from
 * n alone: every frame is a pure function of (n, seed, rate).
 */
#include <math.h>

#include "gen_internal.h"

#define SPEECH_SLOT_SECONDS 0.25
#define SPEECH_PHRASE_SLOTS 12
#define SPEECH_PHRASE_PAUSE_SLOTS 2
#define SPEECH_PAUSE_CHANCE 0.15
#define SPEECH_MIN_SYLLABLE_SECONDS 0.10
#define SPEECH_SYLLABLE_SPREAD_SECONDS 0.12 /* so the longest still fits its slot */
#define SPEECH_PHRASE_RANGE_DB 20.0
#define SPEECH_MIN_PITCH_HZ 90.0
#define SPEECH_PITCH_SPREAD_HZ 140.0
#define SPEECH_CONTOUR_START_MIN 0.85 /* syllable start pitch / speaker pitch */
#define SPEECH_CONTOUR_START_SPREAD 0.3
#define SPEECH_CONTOUR_END_MIN 0.75 /* syllable end pitch / start pitch */
#define SPEECH_CONTOUR_END_SPREAD 0.4
#define SPEECH_HARMONICS 8
#define SPEECH_FORMANT_MIN 2.0 /* harmonic number of the boosted region */
#define SPEECH_FORMANT_SPREAD 4.0
#define SPEECH_FORMANT_BOOST 2.0
#define SPEECH_ATTACK_SHARE 0.15 /* of the syllable's length */
#define SPEECH_RELEASE_SHARE 0.35
#define SPEECH_ONSET_CHANCE 0.5
#define SPEECH_ONSET_SECONDS 0.02
#define SPEECH_NOISE_SHARE 0.15 /* of full scale, taken from the voiced part */

/* Stream numbers for fxi_gen_key. */
#define STREAM_SLOT 300
#define STREAM_PHRASE 301
#define STREAM_ONSET_NOISE 302

#define TWO_PI 6.283185307179586476925286766559

/* Draws of one slot's hash stream, each a separate counter. */
enum {
    DRAW_PAUSE,
    DRAW_LENGTH,
    DRAW_OFFSET,
    DRAW_START_PITCH,
    DRAW_END_PITCH,
    DRAW_FORMANT,
    DRAW_ONSET
};
enum { DRAW_PHRASE_LEVEL, DRAW_PHRASE_PITCH };

typedef struct syllable {
    uint64_t slot;
    int active;
    uint64_t begin, length; /* absolute first frame and length in frames */
    double gain;            /* phrase level */
    double f_start, f_end;  /* Hz */
    double weight[SPEECH_HARMONICS];
    int onset;
} syllable;

typedef struct speech {
    uint64_t slot_key, phrase_key, noise_key;
    int rate;
    uint64_t slot_frames;
} speech;

static double slot_draw(const speech *sp, uint64_t slot, int draw)
{
    return fxi_gen_unit_d(fxi_gen_hash2(sp->slot_key, slot, (uint64_t)draw));
}

static void syllable_setup(const speech *sp, uint64_t slot, syllable *s)
{
    s->slot = slot;
    const uint64_t phrase = slot / SPEECH_PHRASE_SLOTS, in_phrase = slot % SPEECH_PHRASE_SLOTS;
    s->active = in_phrase < SPEECH_PHRASE_SLOTS - SPEECH_PHRASE_PAUSE_SLOTS &&
                slot_draw(sp, slot, DRAW_PAUSE) >= SPEECH_PAUSE_CHANCE;
    if (!s->active) return;

    double level_db = -SPEECH_PHRASE_RANGE_DB *
                      fxi_gen_unit_d(fxi_gen_hash2(sp->phrase_key, phrase, DRAW_PHRASE_LEVEL));
    s->gain = pow(10.0, level_db / 20.0);
    double pitch = SPEECH_MIN_PITCH_HZ +
                   SPEECH_PITCH_SPREAD_HZ *
                       fxi_gen_unit_d(fxi_gen_hash2(sp->phrase_key, phrase, DRAW_PHRASE_PITCH));

    double seconds = SPEECH_MIN_SYLLABLE_SECONDS +
                     SPEECH_SYLLABLE_SPREAD_SECONDS * slot_draw(sp, slot, DRAW_LENGTH);
    s->length = (uint64_t)llround(seconds * sp->rate);
    if (s->length < 1) s->length = 1;
    if (s->length > sp->slot_frames) s->length = sp->slot_frames;
    uint64_t room = sp->slot_frames - s->length + 1;
    s->begin = slot * sp->slot_frames + (uint64_t)(slot_draw(sp, slot, DRAW_OFFSET) * (double)room);

    s->f_start = pitch * (SPEECH_CONTOUR_START_MIN +
                          SPEECH_CONTOUR_START_SPREAD * slot_draw(sp, slot, DRAW_START_PITCH));
    s->f_end = s->f_start * (SPEECH_CONTOUR_END_MIN +
                             SPEECH_CONTOUR_END_SPREAD * slot_draw(sp, slot, DRAW_END_PITCH));
    double formant = SPEECH_FORMANT_MIN + SPEECH_FORMANT_SPREAD * slot_draw(sp, slot, DRAW_FORMANT);
    double top = s->f_start > s->f_end ? s->f_start : s->f_end, total = 0.0;
    for (int k = 1; k <= SPEECH_HARMONICS; k++) {
        double d = (double)k - formant;
        double w = (1.0 + SPEECH_FORMANT_BOOST / (1.0 + d * d)) / (double)k;
        total += w;
        /* Harmonics at or above Nyquist would alias: leave them out (the peak only drops). */
        s->weight[k - 1] = (double)k * top < 0.5 * sp->rate ? w : 0.0;
    }
    for (int k = 0; k < SPEECH_HARMONICS; k++)
        s->weight[k] /= total;
    s->onset = slot_draw(sp, slot, DRAW_ONSET) < SPEECH_ONSET_CHANCE;
}

/* Attack/sustain/release envelope at position x in [0, 1) of the syllable. */
static double envelope(double x)
{
    if (x < SPEECH_ATTACK_SHARE) return 0.5 - 0.5 * cos(0.5 * TWO_PI * x / SPEECH_ATTACK_SHARE);
    if (x > 1.0 - SPEECH_RELEASE_SHARE)
        return 0.5 - 0.5 * cos(0.5 * TWO_PI * (1.0 - x) / SPEECH_RELEASE_SHARE);
    return 1.0;
}

/* The signal at absolute frame n inside syllable s, in [-1, 1]. */
static double syllable_sample(const speech *sp, const syllable *s, uint64_t n)
{
    if (!s->active || n < s->begin || n - s->begin >= s->length) return 0.0;
    const double t = (double)(n - s->begin) / sp->rate, duration = (double)s->length / sp->rate;
    /* Phase of a linear glide: the integral of f(t) = f_start + (f_end - f_start) t / duration. */
    double cycles = s->f_start * t + (s->f_end - s->f_start) * t * t / (2.0 * duration);
    double theta = TWO_PI * (cycles - floor(cycles));
    /* Harmonics by the Chebyshev recurrence sin(k theta) = 2 cos(theta) sin((k-1) theta) -
     * sin((k-2) theta). */
    double c2 = 2.0 * cos(theta), prev = 0.0, cur = sin(theta), voiced = 0.0;
    for (int k = 0; k < SPEECH_HARMONICS; k++) {
        voiced += s->weight[k] * cur;
        double next = c2 * cur - prev;
        prev = cur;
        cur = next;
    }
    double noise = 0.0;
    if (s->onset && t < SPEECH_ONSET_SECONDS)
        noise = (2.0 * fxi_gen_unit_d(fxi_gen_hash1(sp->noise_key, n)) - 1.0) *
                (1.0 - t / SPEECH_ONSET_SECONDS);
    double mix = (1.0 - SPEECH_NOISE_SHARE) * voiced + SPEECH_NOISE_SHARE * noise;
    return s->gain * envelope((double)(n - s->begin) / (double)s->length) * mix;
}

void fxi_gen_speech_range(uint64_t seed, int rate, double amplitude, uint64_t start, size_t frames,
                          int channels, double *out)
{
    speech sp = {fxi_gen_key(seed, STREAM_SLOT), fxi_gen_key(seed, STREAM_PHRASE),
                 fxi_gen_key(seed, STREAM_ONSET_NOISE), rate,
                 (uint64_t)llround(SPEECH_SLOT_SECONDS * rate)};
    if (sp.slot_frames < 1) sp.slot_frames = 1;
    syllable s;
    syllable_setup(&sp, start / sp.slot_frames, &s);
    for (size_t i = 0; i < frames; i++) {
        uint64_t n = start + i;
        /* The syllable parameters change once per slot: compute them then. */
        if (n / sp.slot_frames != s.slot) syllable_setup(&sp, n / sp.slot_frames, &s);
        double v = amplitude * syllable_sample(&sp, &s, n);
        for (int c = 0; c < channels; c++)
            *out++ = v;
    }
}
