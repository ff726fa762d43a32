/* fxkit filter: image convolution (include/fxkit/filter.h).
 *
 * The kernel is parsed once; each worker keeps the plan of the last shape it filtered,
 * so a batch of same-shaped images plans once per worker. The option table is the
 * library's, followed by the program's own rows (kernel, depth, listing, explain).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Room for the library's rows plus the program's. */
#define TABLE_ROWS 32
/* A kernel file larger than this is surely not a kernel (4096 x 4096 numbers fit). */
#define KERNEL_FILE_MAX ((size_t)256 << 20)

/* --depth: same first, then the fx_sample_type names in order of precision. */
static const char *const depth_names[] = {"same", "u8", "u16", "f32", NULL};
enum { DEPTH_SAME = 0 };
static const fx_sample_type depth_types[] = {FX_U8, FX_U8, FX_U16, FX_F32};

typedef struct filter_cli_options {
    fx_filter_options lib; /* first: the library's rows point into it */
    const char *kernel;
    int depth;
    int list_kernels;
    int explain;
    int stream_rows;
} filter_cli_options;

#define OPT(field) offsetof(filter_cli_options, field)

static const fx_option program_rows[] = {
    {"kernel", 'k', FX_OPT_STRING, OPT(kernel), 0, 0, 0, NULL, NULL, "KERNEL",
     "a preset (box:5, gaussian:7:1.5, sharpen, …; see --list-kernels), weights "
     "(\"1 2 1; 2 4 2; 1 2 1 / 16\") or @FILE with weights"},
    {"depth", 0, FX_OPT_ENUM, OPT(depth), DEPTH_SAME, 0, 0, NULL, depth_names, "TYPE",
     "output sample type (same: the input's); the image is filtered at the more precise "
     "of the two"},
    {"list-kernels", 0, FX_OPT_BOOL, OPT(list_kernels), 0, 0, 1, NULL, NULL, NULL,
     "print the preset kernels with their weights and exit"},
    {"explain", 0, FX_OPT_BOOL, OPT(explain), 0, 0, 1, NULL, NULL, NULL,
     "say which strategy and device each plan uses and why (--device auto: the estimates)"},
    {"stream-rows", 0, FX_OPT_INT, OPT(stream_rows), 0, 0, 1 << 20, NULL, NULL, "N",
     "filter from file to file in bands of N rows, never holding the whole image (0: the "
     "library's choice: images over 16 MiB in bands of about 8 MiB on the CPU and of about "
     "3 MiB on a GPU (over 1 GiB: 16 MiB); fft and the wrap border filter whole)"},
    FX_OPTION_END};

static fx_option filter_table[TABLE_ROWS];

__attribute__((constructor)) static void build_table(void)
{
    fxcli_join_tables(filter_table, TABLE_ROWS, fx_filter_options_table(), program_rows);
}

/* One plan per worker context, reused while the images keep their shape. */
typedef struct plan_slot {
    fx_context *ctx;
    fx_image_desc desc;
    fx_filter_plan *plan;
} plan_slot;

typedef struct filter_state {
    fx_kernel *kernel;
    pthread_mutex_t lock;
    plan_slot slots[FXCLI_MAX_JOBS];
} filter_state;

/* ---- --list-kernels ---- */

static void print_weights(fx_context *ctx, const char *spec)
{
    fx_kernel *k;
    if (fx_kernel_preset(ctx, spec, &k) != FX_OK) return;
    int w = fx_kernel_width(k), h = fx_kernel_height(k);
    double *weights = malloc((size_t)w * h * sizeof *weights), offset = 0;
    if (weights && fx_kernel_weights(ctx, k, FX_U8, weights, &offset) == FX_OK) {
        printf("    %s on 8-bit images:%s\n", spec, offset ? " (plus 128)" : "");
        for (int i = 0; i < h; i++) {
            printf("     ");
            for (int j = 0; j < w; j++)
                printf(" %9.6g", weights[(size_t)i * w + j]);
            printf("\n");
        }
    }
    free(weights);
    fx_kernel_free(k);
}

static void list_kernels(void)
{
    static const char *const examples[] = {"identity", "box:3",    "gaussian:3", "gaussian:5",
                                           "sharpen",  "edge",     "edge4",      "emboss",
                                           "emboss:h", "emboss:v", "sobel-x",    "sobel-y"};
    printf("Preset kernels (-k NAME):\n");
    const char *syntax, *help;
    for (int i = 0; i < fx_kernel_preset_list(0, NULL, NULL); i++) {
        fx_kernel_preset_list(i, &syntax, &help);
        printf("  %-20s %s\n", syntax, help);
    }
    printf("\nOr weights: rows separated by ';' or new lines, numbers by spaces or commas,\n"
           "an optional '/ DIVISOR' at the end, '#' comments; -k @FILE reads them from a file.\n"
           "\nWeights:\n");
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = 1;
    fx_context *ctx;
    if (fx_context_create(&co, &ctx) != FX_OK) return;
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++)
        print_weights(ctx, examples[i]);
    fx_context_destroy(ctx);
}

/* ---- setup ---- */

/* The text of -k @FILE, or NULL with run->error set. */
static char *read_kernel_file(fxcli_run *run, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fxcli_usage(run, "-k @%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fxcli_usage(run, "-k @%s: not a regular file", path);
    } else if ((size_t)st.st_size > KERNEL_FILE_MAX) {
        fxcli_usage(run, "-k @%s: %lld bytes is too large for a kernel", path,
                    (long long)st.st_size);
    } else if (!(text = malloc((size_t)st.st_size + 1))) {
        fxcli_usage(run, "-k @%s: out of memory", path);
    } else {
        size_t got = fread(text, 1, (size_t)st.st_size, f);
        text[got] = 0;
        if (memchr(text, 0, got)) {
            fxcli_usage(run, "-k @%s: a kernel file is text, this one holds NUL bytes", path);
            free(text);
            text = NULL;
        }
    }
    fclose(f);
    return text;
}

/* Plan for a small image once, so that option errors (anchor, border value, a strategy
 * that does not apply) are usage errors before any file is read. */
static int check_plan(fxcli_run *run, fx_context *ctx, const filter_cli_options *o,
                      const fx_kernel *k)
{
    int channels = 1;
    for (const char *s = o->lib.border_value; s && *s; s++)
        channels += *s == ',';
    if (channels > FX_MAX_IMAGE_CHANNELS)
        return fxcli_usage(run, "--border-value '%s': at most %d values (one per channel)",
                           o->lib.border_value, FX_MAX_IMAGE_CHANNELS);
    /* The check runs on a CPU context: the published GPU variants are checked as direct
     * there when the run itself is on a GPU (their own limits are the GPU plan's). */
    fx_filter_options lib = o->lib;
    if (run->device == FX_DEVICE_GPU && lib.strategy >= FX_STRATEGY_GPU_GLOBAL)
        lib.strategy = FX_STRATEGY_DIRECT;
    /* Options valid for some sample type pass here (a --border-value of 1000 suits
     * 16-bit and float inputs); an input of a type they do not suit fails on its own,
     * named. The usage error, when every type refuses them, is the 8-bit plan's. */
    static const fx_sample_type types[] = {FX_U8, FX_U16, FX_F32};
    char first_error[512] = "";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        fx_image_desc d = {8, 8, channels, types[i]};
        fx_filter_plan *p;
        if (fx_filter_plan_create(ctx, k, &lib, &d, &p) == FX_OK) {
            fx_filter_plan_free(p);
            return FXCLI_EXIT_OK;
        }
        if (i == 0) snprintf(first_error, sizeof first_error, "%s", fx_context_error(ctx));
    }
    return fxcli_usage(run, "%s", first_error);
}

static int filter_setup(fxcli_run *run)
{
    const filter_cli_options *o = run->options;
    if (o->list_kernels) {
        list_kernels();
        return FXCLI_EXIT_DONE;
    }
    if (!o->kernel || !*o->kernel)
        return fxcli_usage(run, "no kernel: give -k KERNEL (see fxkit filter --list-kernels)");
    filter_state *s = calloc(1, sizeof *s);
    if (!s) return fxcli_usage(run, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    run->state = s;

    char *file_text = NULL;
    const char *text = o->kernel;
    if (text[0] == '@') {
        if (!(file_text = read_kernel_file(run, text + 1))) return FXCLI_EXIT_USAGE;
        text = file_text;
    }
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = 1;
    fx_context *ctx;
    if (fx_context_create(&co, &ctx) != FX_OK) {
        free(file_text);
        return fxcli_usage(run, "cannot create a context");
    }
    int code = FXCLI_EXIT_OK;
    if (fx_kernel_parse(ctx, text, &s->kernel) != FX_OK)
        code = fxcli_usage(run, "-k %s%s%s", o->kernel[0] == '@' ? o->kernel : "",
                           o->kernel[0] == '@' ? ": " : "", fx_context_error(ctx));
    else
        code = check_plan(run, ctx, o, s->kernel);
    fx_context_destroy(ctx);
    free(file_text);
    return code;
}

/* A plan lives on its worker's context (a GPU plan holds device memory and streams):
 * it is freed before that context is. */
static void filter_worker_done(const fxcli_run *run, fx_context *ctx)
{
    filter_state *s = run->state;
    for (int i = 0; s && i < FXCLI_MAX_JOBS; i++)
        if (s->slots[i].ctx == ctx) {
            fx_filter_plan_free(s->slots[i].plan);
            s->slots[i].plan = NULL;
            s->slots[i].ctx = NULL;
        }
}

static void filter_finish(fxcli_run *run)
{
    filter_state *s = run->state;
    if (!s) return; /* the plans went with their workers (filter_worker_done) */
    fx_kernel_free(s->kernel);
    pthread_mutex_destroy(&s->lock);
    free(s);
    run->state = NULL;
}

/* ---- one image ---- */

/* The worker's plan for this shape: reused, or made (and explained) anew. */
static fx_status worker_plan(const fxcli_run *run, fx_context *ctx, const fx_image_desc *d,
                             fx_filter_plan **out)
{
    filter_state *s = run->state;
    const filter_cli_options *o = run->options;
    pthread_mutex_lock(&s->lock);
    plan_slot *slot = NULL;
    for (int i = 0; i < FXCLI_MAX_JOBS && !slot; i++)
        if (s->slots[i].ctx == ctx || !s->slots[i].ctx) slot = &s->slots[i];
    if (slot) slot->ctx = ctx;
    pthread_mutex_unlock(&s->lock);
    if (!slot) return FX_ENOMEM; /* more workers than FXCLI_MAX_JOBS: cannot happen */
    if (slot->plan && !memcmp(&slot->desc, d, sizeof *d)) {
        *out = slot->plan;
        return FX_OK;
    }
    fx_filter_plan_free(slot->plan);
    slot->plan = NULL;
    fx_status st = fx_filter_plan_create(ctx, s->kernel, &o->lib, d, &slot->plan);
    if (st != FX_OK) return st;
    slot->desc = *d;
    if (o->explain || run->common.verbose)
        fxcli_note("filter plan for %dx%dx%d %s: %s", d->width, d->height, d->channels,
                   fx_sample_type_name(d->type), fx_filter_plan_explain(slot->plan));
    *out = slot->plan;
    return FX_OK;
}

/* Convert img into type t in place (replacing it). */
static fx_status convert_to(fx_context *ctx, fx_image *img, fx_sample_type t, fx_timings *timings)
{
    if (img->type == t) return FX_OK;
    fx_image converted;
    fx_status st = fx_image_alloc(ctx, &converted, img->width, img->height, img->channels, t);
    if (st != FX_OK) return st;
    st = fx_image_convert(ctx, img, &converted, timings);
    if (st != FX_OK) {
        fx_image_free(&converted);
        return st;
    }
    fx_image_free(img);
    *img = converted;
    return FX_OK;
}

/* How an item would be streamed: its header, the output and working sample types, and
 * the rows of a band (0: filtered whole — small, a JPEG, whose row reader decodes it
 * whole anyway and whose probe reads the whole file, or a header that does not read,
 * which the whole path reports). */
typedef struct stream_plan {
    fx_image_info info;
    fx_sample_type out_type, work_type;
    int band_rows;
} stream_plan;

/* ctx reads the header; device (NULL: not known yet) is the context the item will be
 * filtered on, whose kind sets the library's band choice. */
static stream_plan plan_stream(const fxcli_run *run, fx_context *ctx, fx_context *device,
                               const fxcli_item *item)
{
    const filter_cli_options *o = run->options;
    const filter_state *s = run->state;
    stream_plan sp = {0};
    const fxcli_image_target *source = fxcli_image_target_of(item->input);
    if (o->stream_rows == 0 && source && source->format == FX_IMAGE_JPEG) return sp;
    if (fx_image_probe_file(ctx, item->input, &sp.info) != FX_OK) return sp;
    sp.out_type = o->depth == DEPTH_SAME ? sp.info.type : depth_types[o->depth];
    sp.work_type = sp.out_type > sp.info.type ? sp.out_type : sp.info.type;
    const fx_image_desc work = {sp.info.width, sp.info.height, sp.info.channels, sp.work_type};
    sp.band_rows = fx_filter_band_rows(device, s->kernel, &o->lib, &work, o->stream_rows);
    return sp;
}

/* A streamed item holds its bands (input rows with the kernel's halo, at the working
 * type too when wider, and two sets of output rows: the library writes one while it
 * fills the other), not the whole image. */
static uint64_t filter_estimate(const fxcli_run *run, fx_context *ctx, const fxcli_item *item)
{
    /* The probe is a CPU context; the items run there only with --device cpu (or auto
     * in a build without CUDA). Elsewhere the choice without a context (whole up to
     * 1 GiB), which streams less than either device does: never below the need. */
    const bool cpu = run->device == FX_DEVICE_CPU || (run->device == FX_DEVICE_AUTO && !fx_gpu_built());
    const stream_plan sp = plan_stream(run, ctx, cpu ? ctx : NULL, item);
    if (sp.band_rows == 0) return fxcli_item_estimate(ctx, item);
    const int kh = fx_kernel_height(((const filter_state *)run->state)->kernel);
    const uint64_t rows = (uint64_t)sp.band_rows + 2 * (uint64_t)(kh - 1);
    const uint64_t row_samples = (uint64_t)sp.info.width * (uint64_t)sp.info.channels;
    const uint64_t in = fx_sample_size(sp.info.type), work = fx_sample_size(sp.work_type);
    const uint64_t narrow = sp.out_type != sp.work_type ? fx_sample_size(sp.out_type) : 0;
    return rows * row_samples * (in + (sp.work_type != sp.info.type ? work : 0) + 2 * work) +
           2 * (uint64_t)sp.band_rows * row_samples * narrow;
}

/* The library's progress, as this worker's share of the progress bar. */
static void band_progress(void *user, int rows_done, int rows_total)
{
    const fxcli_result *res = user;
    fxcli_progress_item(res->slot, (uint64_t)rows_done, (uint64_t)rows_total);
}

/* The image band by band from file to file (fx_filter_file), when it is large (or
 * --stream-rows asks); *streamed tells whether it was. */
static fx_status filter_streamed(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                                 const char *out_path, const fxcli_image_target *target,
                                 fxcli_result *res, bool *streamed)
{
    const filter_cli_options *o = run->options;
    const filter_state *s = run->state;
    *streamed = false;
    const stream_plan sp = plan_stream(run, ctx, ctx, item);
    if (sp.band_rows == 0) return FX_OK;
    const fx_image_info info = sp.info;
    char why[FXCLI_MESSAGE_MAX];
    if (!fxcli_image_target_check(target, info.channels, sp.out_type, why, sizeof why))
        return fxcli_fail(res, FX_EUNSUPPORTED, "%s (see --depth)", why);
    *streamed = true;
    fx_filter_stream_options so;
    fx_filter_stream_options_init(&so);
    /* The library's own choice stays its own (0): it then decides the device once for
     * the whole image under --device auto, where bands the caller sizes decide band by
     * band, each as a small image in memory (a batch's share of the GPU's one-time costs
     * would send every band of a light kernel to the GPU). */
    so.band_rows = o->stream_rows;
    so.out_type = sp.out_type;
    so.progress = band_progress;
    so.progress_user = res;
    fx_image_write_options wo;
    fx_image_write_options_init(&wo);
    wo.format = target->format;
    wo.in_place = 1; /* out_path is the batch's own temporary file (cli/tempfile.c) */
    fx_filter_stream_result done = {0};
    fx_status st = fx_filter_file(ctx, s->kernel, &o->lib, &so, item->input, out_path, &wo, &done,
                                  &res->timings);
    if (done.band_rows) res->strategy = fx_filter_strategy_name(done.strategy);
    fxcli_result_device(res, done.device);
    res->width = info.width;
    res->height = info.height;
    res->channels = info.channels;
    if (st == FX_OK && (o->explain || run->common.verbose))
        fxcli_note("%s: filtered in bands of %d rows (%s); device: %s", item->input,
                   done.band_rows, res->strategy, done.device);
    return st;
}

static fx_status filter_image(const fxcli_run *run, fx_context *ctx, const fxcli_item *item,
                              const char *out_path, fxcli_result *res)
{
    const filter_cli_options *o = run->options;
    const fxcli_image_target *target = fxcli_image_target_of(item->output);
    if (!target)
        return fxcli_fail(res, FX_EUNSUPPORTED,
                          "'%s': unknown image format (name it .png, .jpg, .ppm, .pgm, .pfm)",
                          item->output);
    bool streamed;
    fx_status streamed_status = filter_streamed(run, ctx, item, out_path, target, res, &streamed);
    if (streamed || streamed_status != FX_OK) return streamed_status;
    fx_image img = {0}, out = {0};
    fx_status st = fxcli_read_image(ctx, item->input, &img, res);
    if (st != FX_OK) return st;

    fx_sample_type out_type = o->depth == DEPTH_SAME ? img.type : depth_types[o->depth];
    char why[FXCLI_MESSAGE_MAX];
    if (!fxcli_image_target_check(target, img.channels, out_type, why, sizeof why)) {
        st = fxcli_fail(res, FX_EUNSUPPORTED, "%s (see --depth)", why);
        goto out;
    }
    /* Filter at the more precise type: widen before, narrow after. */
    if (out_type > img.type && (st = convert_to(ctx, &img, out_type, &res->timings)) != FX_OK)
        goto out;
    fx_image_desc d = fx_image_desc_of(&img);
    fx_filter_plan *plan;
    if ((st = worker_plan(run, ctx, &d, &plan)) != FX_OK) goto out;
    res->strategy = fx_filter_strategy_name(fx_filter_plan_strategy(plan));
    if ((st = fx_image_alloc(ctx, &out, img.width, img.height, img.channels, img.type)) != FX_OK)
        goto out;
    if ((st = fx_filter_run(plan, &img, &out, &res->timings)) != FX_OK) goto out;
    {
        const char *device = strstr(fx_filter_plan_explain(plan), "; device: ");
        device = device ? device + strlen("; device: ") : "";
        fxcli_result_device(res, device);
        /* After the run: a fallback shows. */
        if (o->explain || run->common.verbose) fxcli_note("%s: device: %s", item->input, device);
    }
    if ((st = convert_to(ctx, &out, out_type, &res->timings)) != FX_OK) goto out;

    st = fxcli_write_image(ctx, out_path, &out, target, res);
out:
    fx_image_free(&out);
    fx_image_free(&img);
    return st;
}

const fxcli_job fxcli_job_filter = {
    .name = "filter",
    .summary = "Convolve images with a kernel: blur, sharpen, edges, emboss or any weights",
    .usage = "-k KERNEL [options] INPUT... -o OUTPUT",
    .description =
        "Correlation as OpenCV's filter2D (--convolve flips the kernel), anchor at the\n"
        "kernel's centre, output the size of the input, OpenCV's border rules. Integer\n"
        "kernels are exact on 8/16-bit images (every strategy gives the same bytes);\n"
        "float kernels use fused multiply-adds in one fixed order.\n"
        "Examples:\n"
        "  fxkit filter -k gaussian:5 photo.png -o blurred.png\n"
        "  fxkit filter -k \"0 -1 0; -1 5 -1; 0 -1 0\" -b replicate shots/*.jpg -o sharp/\n"
        "  fxkit filter -k sobel-x --depth f32 scan.pgm -o gradient.pfm\n"
        "  fxkit filter -k @kernel.txt --strategy fft --explain big.ppm -o out.ppm",
    .options = filter_table,
    .options_size = sizeof(filter_cli_options),
    .common = FXCLI_COMMON_FILE_JOB,
    .media = FXCLI_MEDIA_IMAGE,
    .takes_inputs = true,
    .setup = filter_setup,
    .run_item = filter_image,
    .estimate = filter_estimate,
    .worker_done = filter_worker_done,
    .finish = filter_finish,
};
