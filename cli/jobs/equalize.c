/* fxkit equalize: histogram equalization and CLAHE (include/fxkit/equalize.h).
 *
 * The options are the library's table. Option mistakes, a --mask that cannot be
 * read and bad combinations are usage errors found before any file is touched;
 * an image the options do not fit (a mask of another size, a format that cannot
 * hold the result) fails that input alone. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The library's options first (its table's offsets), then the program's. */
typedef struct equalize_cli_options {
    fx_equalize_options lib;
    int explain;
} equalize_cli_options;

/* Room for the library's rows. */
#define TABLE_ROWS 16

static fx_option equalize_table[TABLE_ROWS];

/* The job's table: the library's rows, then the program's. Runs before main. */
__attribute__((constructor)) static void build_table(void)
{
    static const fx_option program_rows[] = {
        {"explain", 0, FX_OPT_BOOL, offsetof(equalize_cli_options, explain), 0, 0, 1, NULL, NULL,
         NULL, "say on which device each image runs and why (--device auto: the estimates)"},
        FX_OPTION_END};
    fxcli_join_tables(equalize_table, TABLE_ROWS, fx_equalize_options_table(), program_rows);
}

typedef struct equalize_state {
    fx_image mask; /* read once from --mask, shared by every item */
} equalize_state;

/* A context for checking options and reading the mask before the batch starts. */
static fx_context *setup_context(void)
{
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = 1;
    fx_context *ctx = NULL;
    return fx_context_create(&co, &ctx) == FX_OK ? ctx : NULL;
}

static int equalize_setup(fxcli_run *run)
{
    const fx_equalize_options *o = run->options;
    equalize_state *s = calloc(1, sizeof *s);
    if (!s) return fxcli_usage(run, "out of memory");
    run->state = s;
    fx_context *ctx = setup_context();
    if (!ctx) return fxcli_usage(run, "cannot create a context to check the options");
    int rc = FXCLI_EXIT_OK;
    if (fx_equalize_options_check(ctx, o) != FX_OK)
        rc = fxcli_usage(run, "%s", fx_context_error(ctx));
    else if (o->mask && fx_image_read_file(ctx, o->mask, &s->mask) != FX_OK)
        rc = fxcli_usage(run, "--mask %s: %s", o->mask, fx_context_error(ctx));
    else if (o->mask && (s->mask.channels != 1 || s->mask.type == FX_F32))
        rc = fxcli_usage(
            run, "--mask %s: the mask must be a gray 8- or 16-bit image (it is %s, %s)", o->mask,
            fxcli_channel_names(s->mask.channels), fx_sample_type_name(s->mask.type));
    fx_context_destroy(ctx);
    return rc;
}

static void equalize_finish(fxcli_run *run)
{
    equalize_state *s = run->state;
    if (s) fx_image_free(&s->mask);
    free(s);
    run->state = NULL;
}

static fx_status equalize_item(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                               const char *out_path, fxcli_result *res)
{
    const equalize_state *s = run->state;
    const equalize_cli_options *cli = run->options;
    fx_equalize_options o = cli->lib;
    if (s->mask.data) o.mask_image = &s->mask;
    const fxcli_image_target *target = fxcli_image_target_of(item->output);
    if (!target)
        return fxcli_fail(res, FX_EUNSUPPORTED, "'%s': unknown image format (use one of: %s)",
                          item->output, fxcli_image_extensions());
    fx_image in = {0}, out = {0};
    fx_status st = fxcli_read_image(ctx, item->input, &in, res);
    if (st != FX_OK) return st;

    char why[FXCLI_MESSAGE_MAX];
    const int out_channels = fx_equalize_output_channels(&o, in.channels);
    if (!fxcli_image_target_check(target, out_channels, in.type, why, sizeof why)) {
        st = fxcli_fail(res, FX_EUNSUPPORTED, "%s (write another format, or see --space)", why);
        goto out;
    }
    const fx_image_desc desc = fx_image_desc_of(&in);
    fx_equalize_plan *plan = NULL;
    st = fx_equalize_plan_create(ctx, &o, &desc, &plan);
    if (st == FX_OK)
        st = fx_image_alloc(ctx, &out, in.width, in.height, out_channels, in.type);
    if (st == FX_OK) st = fx_equalize_run(plan, &in, &out, &res->timings);
    if (st == FX_OK) {
        const char *device = strstr(fx_equalize_plan_explain(plan), "device: ");
        fxcli_result_device(res, device ? device + strlen("device: ") : "");
    }
    /* After the run: a fallback to the CPU shows. */
    if (st == FX_OK && (cli->explain || run->common.verbose))
        fxcli_note("%s: %s", item->input, fx_equalize_plan_explain(plan));
    fx_equalize_plan_free(plan);
    if (st != FX_OK) goto out;
    st = fxcli_write_image(ctx, out_path, &out, target, res);
out:
    fx_image_free(&out);
    fx_image_free(&in);
    return st;
}

const fxcli_job fxcli_job_equalize = {
    .name = "equalize",
    .summary = "Histogram equalization and CLAHE of images (OpenCV's answers, CPU or GPU)",
    .usage = "[options] INPUT... -o OUTPUT",
    .description =
        "Global equalization is OpenCV's equalizeHist on gray images; colour images keep their\n"
        "hue (V of HSV, the default) or follow OpenCV's YCrCb pipeline (--space luma).\n"
        "--adaptive is OpenCV's CLAHE. 8- and 16-bit images, 1 to 4 channels; alpha passes.\n"
        "Examples:\n"
        "  fxkit equalize photo.png -o photo_eq.png\n"
        "  fxkit equalize --adaptive --tiles 8x8 --clip 2 scans/*.png -o clahe/\n"
        "  fxkit equalize --space hsv-float --scale mms --bins 256 in.png -o published.png",
    .options = equalize_table,
    .options_size = sizeof(equalize_cli_options),
    .common = FXCLI_COMMON_FILE_JOB,
    .media = FXCLI_MEDIA_IMAGE,
    .takes_inputs = true,
    .setup = equalize_setup,
    .run_item = equalize_item,
    .finish = equalize_finish,
};
