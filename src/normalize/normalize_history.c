/* Local gains to smoothed gains: the minimum filter, the Gaussian filter and the
 * limit, in ffmpeg 5.1's closed form (docs/ALGORITHMS.md):
 *
 *   a0        = alt ? g0 : min(1, g0)           the ramp's start; gains before frame 0
 *   m[c]      = min(g[c - mh] .. g[c + mh])     (g[k < 0] = a0)
 *   M         = [pre_1 .. pre_gh, m[0], m[1], …] pre_q = min(alt ? a0 : 1, g[1] .. g[q])
 *   S[j]      = min(sum_k (T[j+k] * w[k]) * M[j+k], g[j + 1])   k = 0 .. 2 gh
 *
 * with T the threshold flags (all 1 without --threshold). ffmpeg weights M[gh+c]
 * with the flag of frame c + mh and never divides by the flags' sum; unless
 * compat asks for that, the flag of frame c is used and the sum divided out.
 * With mh == gh == G/2 this is exactly ffmpeg's queue arithmetic. Frame j's
 * smoothed gain is known once frame j + mh + gh has been analysed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "normalize_internal.h"

fx_status fxi_nm_history_init(fx_context *ctx, const fxi_nm_params *p, fxi_nm_history *h)
{
    memset(h, 0, sizeof *h);
    h->min_half = p->min_half;
    h->gauss_half = p->gauss_half;
    h->ring = 2 * ((size_t)p->min_half + (size_t)p->gauss_half) + 2;
    void *mem[4];
    for (int i = 0; i < 4; i++) {
        fx_status st = fxi_calloc(ctx, h->ring, sizeof(double), &mem[i]);
        if (st != FX_OK) {
            for (int k = 0; k < i; k++)
                free(mem[k]);
            return st;
        }
    }
    h->g = mem[0];
    h->t = mem[1];
    h->m = mem[2];
    h->mt = mem[3];
    return FX_OK;
}

void fxi_nm_history_free(fxi_nm_history *h)
{
    free(h->g);
    free(h->t);
    free(h->m);
    free(h->mt);
    memset(h, 0, sizeof *h);
}

double fxi_nm_history_start(const fxi_nm_history *h)
{
    return h->first_gain;
}

/* Local gain of frame k (k may be negative: the left padding). */
static double gain_of(const fxi_nm_history *h, int64_t k)
{
    return k < 0 ? h->first_gain : h->g[(uint64_t)k % h->ring];
}

static double flag_of(const fxi_nm_history *h, int64_t k)
{
    return h->t[(uint64_t)(k < 0 ? 0 : k) % h->ring];
}

/* Store the minimum-queue entry at position `pos` with its flag. */
static void put_minimum(fxi_nm_history *h, uint64_t pos, double value, double flag)
{
    h->m[pos % h->ring] = value;
    h->mt[pos % h->ring] = flag;
}

/* The rings are walked with a wrapping index rather than a division per
 * element (which cost more than the arithmetic with wide windows); the
 * Gaussian's terms are still added in ffmpeg's order. */
static double smooth(const fxi_nm_params *p, const fxi_nm_history *h, uint64_t j)
{
    const int size = 2 * h->gauss_half + 1;
    double result = 0.0, flag_sum = 0.0;
    size_t at = (size_t)(j % h->ring);
    for (int k = 0; k < size; k++) {
        const double weight = h->mt[at] * p->weights[k];
        flag_sum += weight;
        result += weight * h->m[at];
        if (++at == h->ring) at = 0;
    }
    if (flag_sum == 0.0) return 1.0;
    if (!p->compat && p->threshold > 0.0) result /= flag_sum;
    return result;
}

bool fxi_nm_history_add(const fxi_nm_params *p, fxi_nm_history *h, fxi_nm_gain gain)
{
    const int64_t i = (int64_t)h->frames++;
    const int64_t mh = h->min_half, gh = h->gauss_half;
    h->g[(uint64_t)i % h->ring] = gain.gain;
    h->t[(uint64_t)i % h->ring] = gain.flag;
    if (i == 0) h->first_gain = p->alt_boundary ? gain.gain : fmin(1.0, gain.gain);

    /* The running minimum that pads the minimum queue on the left. */
    if (i >= 1 && i <= gh) {
        const double before =
            i == 1 ? (p->alt_boundary ? h->first_gain : 1.0) : h->m[(uint64_t)(i - 2) % h->ring];
        put_minimum(h, (uint64_t)(i - 1), fmin(before, gain.gain), flag_of(h, 0));
    }
    /* The minimum centred on frame c = i - mh; frames before 0 are all the
     * left padding, first_gain. */
    if (i >= mh) {
        const int64_t c = i - mh;
        double min = c - mh < 0 ? h->first_gain : DBL_MAX;
        const int64_t from = c - mh < 0 ? 0 : c - mh;
        size_t at = (size_t)((uint64_t)from % h->ring);
        for (int64_t k = from; k <= c + mh; k++) {
            /* fmin without the call: gains are never NaN. */
            const double v = h->g[at];
            if (v < min) min = v;
            if (++at == h->ring) at = 0;
        }
        const bool as_ffmpeg = p->compat || p->threshold == 0.0;
        put_minimum(h, (uint64_t)(gh + c), min, flag_of(h, as_ffmpeg ? i : c));
    }
    return i - mh - gh >= (int64_t)h->smoothed;
}

double fxi_nm_history_smooth(const fxi_nm_params *p, fxi_nm_history *h, double *local,
                             double *minimum)
{
    const uint64_t j = h->smoothed++;
    *local = gain_of(h, (int64_t)j);
    *minimum = h->m[(j + (uint64_t)h->gauss_half) % h->ring];
    return fmin(smooth(p, h, j), gain_of(h, (int64_t)j + 1));
}
