/* The CLI's parser, job tables, output naming, CSV quoting and work-list checks,
 * called directly (the end-to-end tests in tests/cli run the program). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fxtest.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof *(a)))

static const fxcli_job *job_named(const char *name)
{
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++)
        if (!strcmp((*j)->name, name)) return *j;
    return NULL;
}

/* Parse argv for a job into run; returns the result. */
static fxcli_parse_result parse(fxcli_run *run, const char *job, int argc, char **argv)
{
    const fxcli_job *j = job_named(job);
    if (!FXT_CHECK(j != NULL)) return FXCLI_PARSE_ERROR;
    FXT_CHECK(fxcli_run_init(run, j));
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    fxcli_parse_result r = fxcli_parse_args(run, ctx, argc, argv);
    fx_context_destroy(ctx);
    return r;
}

static int option_int(const fxcli_run *run, const char *name)
{
    const fx_option *o = fx_option_find(run->job->options, name);
    return *(const int *)(const void *)((const char *)run->options + o->offset);
}

FXT_TEST(every_option_form)
{
    char *argv[] = {"--quality=80", "--compression", "3",   "-j2", "-t", "4", "-qv",
                    "--no-quiet",   "--quiet=no",    "in1", "--",  "-o", "x"};
    fxcli_run run;
    FXT_CHECK_EQ(parse(&run, "convert", ARGC(argv), argv), FXCLI_PARSE_OK);
    FXT_CHECK_EQ(option_int(&run, "quality"), 80);
    /* --compression's choices are "fast" then the levels: level 3 is choice 4. */
    FXT_CHECK_EQ(option_int(&run, "compression"), 4);
    FXT_CHECK(run.common.jobs_text && !strcmp(run.common.jobs_text, "2"));
    FXT_CHECK_EQ(run.common.threads, 4);
    FXT_CHECK_EQ(run.common.quiet, 0);
    FXT_CHECK_EQ(run.common.verbose, 1);
    FXT_CHECK(run.common.output == NULL);
    if (FXT_CHECK_EQ(run.input_count, 3)) {
        FXT_CHECK(!strcmp(run.inputs[0], "in1"));
        FXT_CHECK(!strcmp(run.inputs[1], "-o"));
        FXT_CHECK(!strcmp(run.inputs[2], "x"));
    }
    fxcli_run_free(&run);
}

FXT_TEST(defaults_in_place)
{
    char *argv[] = {"in.png"};
    fxcli_run run;
    FXT_CHECK_EQ(parse(&run, "convert", ARGC(argv), argv), FXCLI_PARSE_OK);
    FXT_CHECK(run.common.jobs_text && !strcmp(run.common.jobs_text, "auto"));
    FXT_CHECK(run.common.device && !strcmp(run.common.device, "auto"));
    FXT_CHECK_EQ(run.common.log_level, FX_LOG_WARNING);
    FXT_CHECK_EQ(fxcli_resolve_common(&run), FXCLI_EXIT_OK);
    FXT_CHECK_EQ(run.common.jobs, 0); /* auto */
    FXT_CHECK_EQ(run.common.memory_mib, 0);
    FXT_CHECK_EQ(run.device, FX_DEVICE_AUTO);
    fxcli_run_free(&run);
}

FXT_TEST(errors_name_the_option)
{
    static const struct {
        const char *args[3];
        int argc;
        const char *message;
    } cases[] = {
        {{"--foo"}, 1, "unknown option '--foo' (see 'fxkit convert --help')"},
        {{"--qualty", "5"}, 2, "did you mean '--quality'?"},
        {{"--quality", "0"}, 2, "--quality: 0 is out of range [1, 100]"},
        {{"--quality"}, 1, "'--quality' needs a value"},
        {{"--q", "5"}, 2, "unknown option '--q'"}, /* a long name must be whole */
        {{"--no-quality"}, 1, "unknown option '--no-quality'"},
        {{"--no-quiet=1"}, 1, "takes no value"},
        {{"-Z"}, 1, "unknown option '-Z'"},
        {{"-j"}, 1, "'-j' (--jobs) needs a value"},
        {{"--depth", "u12"}, 2, "--depth: 'u12' is not one of: auto, same, u8, u16, f32"},
        {{"--quiet=maybe"}, 1, "--quiet: 'maybe' is not a yes/no value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *argv[3];
        for (int k = 0; k < cases[i].argc; k++)
            argv[k] = (char *)cases[i].args[k];
        fxcli_run run;
        FXT_CHECK_EQ(parse(&run, "convert", cases[i].argc, argv), FXCLI_PARSE_ERROR);
        FXT_CHECK_CONTAINS(run.error, cases[i].message);
        fxcli_run_free(&run);
    }
}

FXT_TEST(help_stops_parsing)
{
    char *argv[] = {"-q", "--help", "--nonsense"};
    fxcli_run run;
    FXT_CHECK_EQ(parse(&run, "convert", ARGC(argv), argv), FXCLI_PARSE_HELP);
    fxcli_run_free(&run);
}

FXT_TEST(jobs_without_inputs_refuse_them)
{
    char *argv[] = {"stray"};
    fxcli_run run;
    FXT_CHECK_EQ(parse(&run, "gen image", ARGC(argv), argv), FXCLI_PARSE_ERROR);
    FXT_CHECK_CONTAINS(run.error, "unexpected argument 'stray'");
    fxcli_run_free(&run);
}

FXT_TEST(resolve_checks_combinations)
{
    static const char *const bad[][3] = {
        {"--device", "tpu", NULL},
        {"--in-place", "-o", "x"},
        {"--max-pixels", "2.5", NULL},
        {"--suffix", "a/b", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *argv[3];
        int argc = 0;
        while (argc < 3 && bad[i][argc]) {
            argv[argc] = (char *)bad[i][argc];
            argc++;
        }
        fxcli_run run;
        FXT_CHECK_EQ(parse(&run, "convert", argc, argv), FXCLI_PARSE_OK);
        FXT_CHECK_EQ(fxcli_resolve_common(&run), FXCLI_EXIT_USAGE);
        fxcli_run_free(&run);
    }
}

FXT_TEST(find_jobs_and_groups)
{
    char *gen_image[] = {"gen", "image"};
    char *gen_only[] = {"gen"};
    char *nope[] = {"nope"};
    int used;
    bool group;
    const fxcli_job *j = fxcli_find_job(2, gen_image, &used, &group);
    FXT_CHECK(j && !strcmp(j->name, "gen image"));
    FXT_CHECK_EQ(used, 2);
    FXT_CHECK(fxcli_find_job(1, gen_only, &used, &group) == NULL);
    FXT_CHECK(group);
    FXT_CHECK(fxcli_find_job(1, nope, &used, &group) == NULL);
    FXT_CHECK(!group);
}

/* Every name and alias a job accepts is unique, so no option shadows another. */
FXT_TEST(option_names_do_not_collide)
{
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++) {
        const fx_option *tables[16];
        size_t n = 0;
        for (size_t g = 0; g < fxcli_common_group_count; g++)
            if ((*j)->common & fxcli_common_groups[g].flag)
                tables[n++] = fxcli_common_groups[g].table;
        if ((*j)->options) tables[n++] = (*j)->options;
        for (size_t a = 0; a < n; a++)
            for (const fx_option *x = tables[a]; x->name; x++)
                for (size_t b = a; b < n; b++)
                    for (const fx_option *y = b == a ? x + 1 : tables[b]; y->name; y++) {
                        if (!FXT_CHECK(strcmp(x->name, y->name) != 0))
                            fprintf(stderr, "  %s: --%s twice\n", (*j)->name, x->name);
                        if (!FXT_CHECK(!x->alias || x->alias != y->alias))
                            fprintf(stderr, "  %s: -%c twice\n", (*j)->name, x->alias);
                    }
    }
}

static double default_of(const char *job, const char *option)
{
    const fx_option *o = fx_option_find(job_named(job)->options, option);
    return o ? o->def : -1;
}

/* Defaults the CLI shows must be the library's own. */
FXT_TEST(table_defaults_match_the_library)
{
    fx_image_write_options wo;
    fx_image_write_options_init(&wo);
    FXT_CHECK_EQ(default_of("convert", "quality"), wo.jpeg_quality);
    /* --compression's default is choice 0, "fast". */
    FXT_CHECK_EQ(default_of("convert", "compression"), 0);
    FXT_CHECK_EQ(wo.png_compression, FX_PNG_COMPRESSION_FAST);
    FXT_CHECK_EQ(default_of("convert", "png-filter"), wo.png_filter);
    fx_gen_image_params ip;
    fx_gen_image_params_init(&ip);
    FXT_CHECK_EQ(default_of("gen image", "cell"), ip.cell);
    FXT_CHECK_EQ(default_of("gen image", "channels"), ip.channels);
    FXT_CHECK_EQ(default_of("gen image", "seed"), (long long)ip.seed);
    fx_gen_audio_params ap;
    fx_gen_audio_params_init(&ap);
    FXT_CHECK(default_of("gen audio", "frequency") == ap.frequency);
    FXT_CHECK(default_of("gen audio", "amplitude") == ap.amplitude);
    FXT_CHECK_EQ(default_of("gen audio", "channels"), ap.channels);
    FXT_CHECK_EQ(default_of("gen audio", "seed"), (long long)ap.seed);
    FXT_CHECK(default_of("gen audio", "duration") * ap.rate == (double)ap.frames);
    /* The log-level choices are indexed by fx_log_level. */
    FXT_CHECK(!strcmp(fxcli_log_level_names[FX_LOG_ERROR], "error"));
    FXT_CHECK(!strcmp(fxcli_log_level_names[FX_LOG_DEBUG], "debug"));
}

FXT_TEST(output_names)
{
    static const struct {
        const char *folder, *input, *suffix, *ext, *want;
    } cases[] = {
        {"out/", "a/b/x.png", "_s", "ppm", "out/x_s.ppm"},
        {"out", "a/b/x.png", NULL, NULL, "out/x.png"},
        {NULL, "a/b/x.png", "_s", NULL, "a/b/x_s.png"},
        {NULL, "x.png", NULL, "jpg", "x.jpg"},
        {"o/", ".hidden", NULL, "png", "o/.hidden.png"},
        {"o/", "x.tar.gz", "-1", NULL, "o/x.tar-1.gz"},
        {NULL, "dir.d/noext", "_1", NULL, "dir.d/noext_1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got =
            fxcli_output_name(cases[i].folder, cases[i].input, cases[i].suffix, cases[i].ext);
        if (!FXT_CHECK(got && !strcmp(got, cases[i].want)))
            fprintf(stderr, "  got '%s', want '%s'\n", got ? got : "(null)", cases[i].want);
        free(got);
    }
    FXT_CHECK(!strcmp(fxcli_path_extension("a.b/c"), ""));
    FXT_CHECK(!strcmp(fxcli_path_extension("a/c.PNG"), "PNG"));
    FXT_CHECK_EQ(fxcli_output_kind_of(NULL), FXCLI_OUTPUT_NONE);
    FXT_CHECK_EQ(fxcli_output_kind_of("new/"), FXCLI_OUTPUT_FOLDER);
    FXT_CHECK_EQ(fxcli_output_kind_of("/"), FXCLI_OUTPUT_FOLDER);
    FXT_CHECK_EQ(fxcli_output_kind_of("surely-not-here.png"), FXCLI_OUTPUT_FILE);
}

FXT_TEST(csv_quoting)
{
    static const char *const cases[][2] = {
        {"plain.png", "plain.png"},
        {"a,b.png", "\"a,b.png\""},
        {"say \"hi\".png", "\"say \"\"hi\"\".png\""},
        {"two\nlines", "\"two\nlines\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[64] = {0};
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        if (!FXT_CHECK(f != NULL)) return;
        fxcli_csv_field(f, cases[i][0]);
        fclose(f);
        FXT_CHECK(!strcmp(buf, cases[i][1]));
    }
}

FXT_TEST(suggestions)
{
    FXT_CHECK_EQ(fxcli_edit_distance("convrt", "convert"), 1);
    FXT_CHECK_EQ(fxcli_edit_distance("", "abc"), 3);
    FXT_CHECK(fxcli_is_close("qualty", "quality"));
    FXT_CHECK(fxcli_is_close("conv", "convert"));
    FXT_CHECK(!fxcli_is_close("xyz", "convert"));
}

static void write_file(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("x", f);
        fclose(f);
    }
}

FXT_TEST(worklist_refuses_unsafe_items)
{
    const char *dir = fxt_tmpdir("cli_worklist");
    char a[4096], b[4096], missing[4096];
    snprintf(a, sizeof a, "%s/a.png", dir);
    snprintf(b, sizeof b, "%s/b.png", dir);
    snprintf(missing, sizeof missing, "%s/missing.png", dir);
    write_file(a);
    write_file(b);
    fxcli_worklist list = {0};
    fxcli_worklist_add(&list, a, strdup(b)); /* output is another input */
    fxcli_worklist_add(&list, b, fxcli_join_path(dir, "o.png"));
    fxcli_worklist_add(&list, a, fxcli_join_path(dir, "o.png")); /* same output as item 1 */
    fxcli_worklist_add(&list, missing, fxcli_join_path(dir, "m.png"));
    fxcli_worklist_add(&list, a, fxcli_join_path(dir, "fine.png"));
    fxcli_worklist_check(&list, false);
    FXT_CHECK(list.items[0].skip);
    FXT_CHECK(!list.items[1].skip);
    FXT_CHECK(list.items[2].skip);
    FXT_CHECK(list.items[3].skip);
    FXT_CHECK(!list.items[4].skip);
    FXT_CHECK_EQ(list.refused, 3);
    fxcli_worklist_free(&list);
}

FXT_TEST(temp_files_sit_beside_the_target)
{
    const char *dir = fxt_tmpdir("cli_temp");
    char final[4096];
    snprintf(final, sizeof final, "%s/result.png", dir);
    fxcli_temp temp;
    FXT_CHECK_EQ(fxcli_temp_create(&temp, final, 0), 0);
    FXT_CHECK(!strncmp(temp.path, dir, strlen(dir)));
    FXT_CHECK_CONTAINS(temp.path, "/.result.fxtmp-");
    FXT_CHECK(!strcmp(fxcli_path_extension(temp.path), "png"));
    FXT_CHECK_EQ(access(temp.path, F_OK), 0);
    FXT_CHECK_EQ(fxcli_temp_commit(&temp, final, 0600), 0);
    struct stat st;
    FXT_CHECK(stat(final, &st) == 0 && (st.st_mode & 0777) == 0600);
    FXT_CHECK(access(temp.path, F_OK) != 0);

    FXT_CHECK_EQ(fxcli_temp_create(&temp, final, 1), 0);
    fxcli_temp_discard(&temp);
    FXT_CHECK(access(temp.path, F_OK) != 0);
    char nowhere[4096];
    snprintf(nowhere, sizeof nowhere, "%s/no/such/folder/x.png", dir);
    FXT_CHECK(fxcli_temp_create(&temp, nowhere, 0) != 0);
}

FXT_MAIN(FXT_CASE(every_option_form), FXT_CASE(defaults_in_place), FXT_CASE(errors_name_the_option),
         FXT_CASE(help_stops_parsing), FXT_CASE(jobs_without_inputs_refuse_them),
         FXT_CASE(resolve_checks_combinations), FXT_CASE(find_jobs_and_groups),
         FXT_CASE(option_names_do_not_collide), FXT_CASE(table_defaults_match_the_library),
         FXT_CASE(output_names), FXT_CASE(csv_quoting), FXT_CASE(suggestions),
         FXT_CASE(worklist_refuses_unsafe_items), FXT_CASE(temp_files_sit_beside_the_target))
