/* The CPU gain ramp (src/normalize/normalize_ramp.c, vectorised for coupled
 * channels) against a plain per-sample reference written out here from
 * ffmpeg 5.1's expression, and against the GPU thread's per-element function:
 * 1 to 8 channels, coupled or not, ramp or constant gain, channel subsets,
 * frame lengths around the SIMD width and ranges that start and end anywhere. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fxtest.h"
#include "normalize/normalize_gpu_plan.h"
#include "normalize/normalize_ramp.h"

#define MAX_CHANNELS 8
#define MAX_LENGTH 1031

/* ffmpeg: f0 = 1 - (1/length) * (pos + 1); gain = f0 * prev + (1 - f0) * next. */
static double reference_gain(double prev, double next, size_t pos, size_t length, bool ramp)
{
    if (!ramp) return next;
    const double step = 1.0 / (double)length;
    const double f0 = 1.0 - (step * ((double)pos + 1.0));
    const double f1 = 1.0 - f0;
    return f0 * prev + f1 * next;
}

typedef struct ramp_case {
    int channels;
    bool coupled, ramp, some_skipped;
    size_t length, begin, end;
} ramp_case;

static bool check_case(const ramp_case *k, uint64_t *seed)
{
    static double src[MAX_LENGTH * MAX_CHANNELS], dst[MAX_LENGTH * MAX_CHANNELS];
    bool process[MAX_CHANNELS];
    double from[MAX_CHANNELS], to[MAX_CHANNELS];
    const int gains = k->coupled ? 1 : k->channels;
    for (int c = 0; c < k->channels; c++)
        process[c] = !(k->some_skipped && c % 2 == 1);
    for (int g = 0; g < gains; g++) {
        from[g] = 0.1 + (double)(fxt_rand(seed) >> 11) / 9007199254740992.0 * 9.9;
        to[g] = 0.1 + (double)(fxt_rand(seed) >> 11) / 9007199254740992.0 * 9.9;
    }
    for (size_t i = 0; i < k->length * (size_t)k->channels; i++)
        src[i] = (double)(fxt_rand(seed) >> 11) / 4503599627370496.0 - 1.0;
    memset(dst, 0, sizeof dst);

    fxi_nm_params p;
    memset(&p, 0, sizeof p);
    p.channels = k->channels;
    p.coupled = k->coupled;
    p.ramp = k->ramp;
    p.process = process;
    /* src and dst point at the range's first position, as a pull into a
     * caller's buffer does. */
    const size_t at = k->begin * (size_t)k->channels;
    const fxi_nm_ramp_job job = {&p, src + at, dst + at, from, to, k->length, k->begin};
    fxi_nm_ramp_range(&job, k->begin, k->end);

    /* The GPU's view: a batch of this one frame. */
    double params[3 * MAX_CHANNELS];
    for (int g = 0; g < gains; g++) {
        params[g] = from[g];
        params[gains + g] = to[g];
    }
    fxi_nm_batch_pack_process(process, k->channels, gains, 1, params);
    fxi_nm_ramp_batch batch;
    fxi_nm_batch_describe(&batch, 1, k->length, k->length, k->channels, gains, k->ramp);
    const size_t channels = (size_t)k->channels;
    for (size_t i = 0; i < k->length; i++)
        for (size_t c = 0; c < channels; c++) {
            const size_t e = i * channels + c;
            const size_t g = k->coupled ? 0 : c;
            const bool inside = i >= k->begin && i < k->end;
            const double want = !inside ? 0.0
                                : process[c]
                                    ? src[e] * reference_gain(from[g], to[g], i, k->length, k->ramp)
                                    : src[e];
            const double element = fxi_nm_batch_element(src, params, (uint32_t)e, &batch);
            if (!FXT_CHECK(dst[e] == want && (!inside || element == want))) {
                fprintf(stderr,
                        "  %d channels, coupled %d, ramp %d, skipped %d, length %zu, range "
                        "[%zu, %zu): sample %zu channel %zu: %.17g, want %.17g\n",
                        k->channels, k->coupled, k->ramp, k->some_skipped, k->length, k->begin,
                        k->end, i, c, dst[e], want);
                return false;
            }
        }
    return true;
}

FXT_TEST(ramp_matches_reference)
{
    static const size_t lengths[] = {1, 2, 3, 7, 8, 9, 16, 17, 1000, MAX_LENGTH};
    uint64_t seed = 17;
    for (int channels = 1; channels <= MAX_CHANNELS; channels++)
        for (int flags = 0; flags < 8; flags++)
            for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
                ramp_case k = {channels,   flags & 1, (flags & 2) != 0, (flags & 4) != 0,
                               lengths[l], 0,         lengths[l]};
                if (!check_case(&k, &seed)) return;
                /* A part of the frame, as one thread's share of it. */
                k.begin = lengths[l] / 3;
                k.end = lengths[l] - lengths[l] / 5;
                if (!check_case(&k, &seed)) return;
            }
}

FXT_MAIN(FXT_CASE(ramp_matches_reference))
