/* normalize_pcm.h: the widening of packed samples on the way to the GPU is the audio
 * reader's arithmetic (src/io/audio_convert.c), bit for bit, and a double packs only
 * when it unpacks to the same bits (so -0.0, NaN, off-grid and out-of-range samples
 * travel as doubles). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fxtest.h"
#include "io/audio_convert.h"
#include "normalize/normalize_pcm.h"

FXT_TEST(widening_is_the_readers)
{
    int bad = 0;
    for (int32_t v = INT16_MIN; v <= INT16_MAX; v++) {
        const int16_t s = (int16_t)v;
        double want;
        fxi_audio_s16_to_double(&s, &want, 1);
        bad += !fxi_nm_same_bits(fxi_nm_from_s16(s), want);
    }
    uint64_t seed = 7;
    for (int i = 0; i < 1000000; i++) {
        int32_t s = (int32_t)(uint32_t)(fxt_rand(&seed) >> 32);
        if (i == 0) s = INT32_MIN;
        if (i == 1) s = INT32_MAX;
        double want;
        fxi_audio_left_aligned_to_double(&s, &want, 1);
        bad += !fxi_nm_same_bits(fxi_nm_from_s32(s), want);
    }
    FXT_CHECK_EQ(bad, 0);
}

FXT_TEST(packing_round_trips_exactly)
{
    int bad = 0;
    for (int32_t v = INT16_MIN; v <= INT16_MAX; v++) {
        const double x = fxi_nm_from_s16((int16_t)v);
        int16_t s;
        int32_t w;
        float f;
        bad += !fxi_nm_pack_s16(x, &s) || s != v;
        bad += !fxi_nm_pack_s32(x, &w) || w != v * 65536;
        bad += !fxi_nm_pack_f32(x, &f) || !fxi_nm_same_bits((double)f, x);
    }
    /* 24-bit samples, left-aligned */
    for (int32_t v = -(1 << 23); v < (1 << 23); v += 4099) {
        const double x = fxi_nm_from_s32(v * 256);
        int32_t w;
        bad += !fxi_nm_pack_s32(x, &w) || w != v * 256;
    }
    FXT_CHECK_EQ(bad, 0);
}

FXT_TEST(packing_refuses_what_would_change)
{
    int16_t s;
    int32_t w;
    float f;
    const double refused_s16[] = {
        -0.0, NAN, INFINITY, -INFINITY, 1.0, -1.0 - 1.0 / 32768.0, 0.5 / 32768.0, 0.1, 1e300};
    for (size_t i = 0; i < sizeof refused_s16 / sizeof *refused_s16; i++)
        FXT_CHECK(!fxi_nm_pack_s16(refused_s16[i], &s));
    const double refused_s32[] = {-0.0, NAN, 1.0, 0.1, 0.5 / 2147483648.0, -1.0 - 1e-9};
    for (size_t i = 0; i < sizeof refused_s32 / sizeof *refused_s32; i++)
        FXT_CHECK(!fxi_nm_pack_s32(refused_s32[i], &w));
    /* -0.0 is a float (its bits survive); 0.1 and 1e300 are not. */
    FXT_CHECK(fxi_nm_pack_f32(-0.0, &f) && signbit(f));
    FXT_CHECK(!fxi_nm_pack_f32(0.1, &f));
    FXT_CHECK(!fxi_nm_pack_f32(1e300, &f));
    FXT_CHECK(!fxi_nm_pack_f32(NAN, &f));
    FXT_CHECK(fxi_nm_pack_s16(-1.0, &s) && s == INT16_MIN);
    FXT_CHECK(fxi_nm_pack_s32(-1.0, &w) && w == INT32_MIN);
    FXT_CHECK_EQ(fxi_nm_pcm_bytes(FXI_NM_PCM_S16), 2);
    FXT_CHECK_EQ(fxi_nm_pcm_bytes(FXI_NM_PCM_S32), 4);
    FXT_CHECK_EQ(fxi_nm_pcm_bytes(FXI_NM_PCM_F32), 4);
    FXT_CHECK_EQ(fxi_nm_pcm_bytes(FXI_NM_PCM_F64), 8);
}

FXT_MAIN(FXT_CASE(widening_is_the_readers), FXT_CASE(packing_round_trips_exactly),
         FXT_CASE(packing_refuses_what_would_change))
