/* fxkit equalize against OpenCV 4.6's own outputs: tests/data/equalize/cases.txt
 * lists inputs and cv2.equalizeHist / YCrCb pipeline / cvtColor gray /
 * createCLAHE results made by scripts/goldens-equalize.py. Every case must match
 * byte for byte, with 1 and 2 threads and in place. */
#include <stdlib.h>

#include "fxtest.h"

#define LINE_MAX_LEN 512
#define FIELD_MAX 128

static const char *data_dir(void)
{
    static char dir[LINE_MAX_LEN];
    const char *root = getenv("FXKIT_TESTDATA");
    if (!root) return NULL;
    snprintf(dir, sizeof dir, "%s/equalize", root);
    return dir;
}

static int space_index(const char *name)
{
    static const char *const names[] = {"gray", "hsv", "luma", "rgb", "hsv-float"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(names[i], name)) return i;
    return -1;
}

/* One case on `ctx`; in place when asked (and the output keeps the input's shape). */
static int run_case(fx_context *ctx, const char *dir, const char *expected, const char *input,
                    const fx_equalize_options *o, int in_place)
{
    fx_image in = {0}, want = {0}, got = {0};
    int ok = FXT_CHECK_OK(fx_image_read_file(ctx, fxt_path(dir, input), &in), ctx) &&
             FXT_CHECK_OK(fx_image_read_file(ctx, fxt_path(dir, expected), &want), ctx);
    if (ok && in_place && fx_equalize_output_channels(o, in.channels) == in.channels) {
        ok = FXT_CHECK_OK(fx_equalize(ctx, o, &in, &in, NULL), ctx) && fxt_images_equal(&in, &want);
    } else if (ok) {
        ok = FXT_CHECK_OK(fx_equalize(ctx, o, &in, &got, NULL), ctx) &&
             fxt_images_equal(&got, &want);
    }
    if (!ok)
        fprintf(stderr, "  %s (from %s) differs%s\n", expected, input, in_place ? " in place" : "");
    fx_image_free(&in);
    fx_image_free(&want);
    fx_image_free(&got);
    return ok;
}

FXT_TEST(every_golden_case_is_identical_to_opencv)
{
    const char *dir = data_dir();
    if (!dir) fxt_skip("FXKIT_TESTDATA is not set");
    FILE *f = fopen(fxt_path(dir, "cases.txt"), "r");
    if (!FXT_CHECK(f != NULL)) return;
    fx_context *one = fxt_context(FX_DEVICE_CPU, 1), *two = fxt_context(FX_DEVICE_CPU, 2);
    char line[LINE_MAX_LEN];
    int cases = 0, failures = 0;
    while (fgets(line, sizeof line, f)) {
        char expected[FIELD_MAX], input[FIELD_MAX], space[FIELD_MAX], tiles[FIELD_MAX];
        int bins, adaptive;
        double clip;
        if (line[0] == '#' || sscanf(line, "%127s %127s %127s %d %d %127s %lf", expected, input,
                                     space, &bins, &adaptive, tiles, &clip) != 7)
            continue;
        fx_equalize_options o;
        fx_equalize_options_init(&o);
        o.space = space_index(space);
        o.bins = bins;
        o.adaptive = adaptive;
        o.tiles = tiles;
        o.clip = clip;
        cases++;
        failures += !run_case(one, dir, expected, input, &o, 0);
        failures += !run_case(two, dir, expected, input, &o, 1);
    }
    fclose(f);
    printf("  %d OpenCV cases, %d mismatches\n", cases, failures);
    FXT_CHECK(cases >= 20);
    FXT_CHECK_EQ(failures, 0);
    fx_context_destroy(one);
    fx_context_destroy(two);
}

FXT_MAIN(FXT_CASE(every_golden_case_is_identical_to_opencv))
