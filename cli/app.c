/* The program: global options, job lookup, then parse → setup → plan → batch. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_try_help(void)
{
    fprintf(stderr, "Try '%s --help' for the list of jobs.\n", FXCLI_PROGRAM);
}

/* "unknown job 'convrt'; did you mean 'convert'?" */
static int unknown_job(const char *name)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++) {
        /* Compare with the first word: "gen image" is suggested as "gen". */
        char word[FXCLI_MESSAGE_MAX];
        snprintf(word, sizeof word, "%.*s", (int)strcspn((*j)->name, " "), (*j)->name);
        if (!fxcli_is_close(name, word)) continue;
        size_t d = fxcli_edit_distance(name, word);
        if (d < best_distance) {
            best_distance = d;
            best = (*j)->name;
        }
    }
    if (best)
        fxcli_error("unknown job '%s'; did you mean '%.*s'?", name, (int)strcspn(best, " "), best);
    else
        fxcli_error("unknown job '%s'", name);
    print_try_help();
    return FXCLI_EXIT_USAGE;
}

static int group_without_kind(const char *group, const char *given)
{
    if (given)
        fxcli_error("%s: unknown kind '%s'", group, given);
    else
        fxcli_error("%s: which kind?", group);
    fxcli_print_group_help(stderr, group);
    return FXCLI_EXIT_USAGE;
}

/* fxkit help [JOB...] */
static int help_command(int argc, char **argv)
{
    if (argc == 0) {
        fxcli_print_main_help(stdout);
        return FXCLI_EXIT_OK;
    }
    int used;
    bool group;
    const fxcli_job *job = fxcli_find_job(argc, argv, &used, &group);
    if (job) {
        fxcli_print_job_help(stdout, job);
        return FXCLI_EXIT_OK;
    }
    if (group && argc == 1) {
        fxcli_print_group_help(stdout, argv[0]);
        return FXCLI_EXIT_OK;
    }
    if (group) return group_without_kind(argv[0], argv[1]);
    return unknown_job(argv[0]);
}

static int usage_error(const fxcli_run *run)
{
    fxcli_error("%s: %s", run->job->name, run->error);
    return FXCLI_EXIT_USAGE;
}

/* A context only for option messages: one thread, CPU, nothing else. */
static fx_context *parse_context(void)
{
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = FX_DEVICE_CPU;
    o.threads = 1;
    fx_context *ctx = NULL;
    return fx_context_create(&o, &ctx) == FX_OK ? ctx : NULL;
}

static int run_job(const fxcli_job *job, int argc, char **argv)
{
    fxcli_run run;
    if (!fxcli_run_init(&run, job)) {
        fxcli_error("out of memory");
        return FXCLI_EXIT_FAILED;
    }
    fx_context *ctx = parse_context();
    if (!ctx) {
        fxcli_error("cannot create a context");
        fxcli_run_free(&run);
        return FXCLI_EXIT_FAILED;
    }
    fxcli_parse_result parsed = fxcli_parse_args(&run, ctx, argc, argv);
    fx_context_destroy(ctx);

    int code = FXCLI_EXIT_OK;
    fxcli_worklist list = {0};
    if (parsed == FXCLI_PARSE_HELP) {
        fxcli_print_job_help(stdout, job);
    } else if (parsed == FXCLI_PARSE_ERROR) {
        code = usage_error(&run);
    } else if ((code = fxcli_resolve_common(&run)) != FXCLI_EXIT_OK ||
               (job->setup && (code = job->setup(&run)) != FXCLI_EXIT_OK)) {
        if (code == FXCLI_EXIT_USAGE) usage_error(&run);
        if (code == FXCLI_EXIT_DONE) code = FXCLI_EXIT_OK;
    } else if (job->main) {
        code = job->main(&run);
    } else {
        list.shard = &run.shard;
        list.skip_existing = run.common.skip_existing;
        code = job->plan ? job->plan(&run, &list) : fxcli_plan_inputs(&run, &list);
        if (code == FXCLI_EXIT_USAGE)
            usage_error(&run);
        else if (code == FXCLI_EXIT_OK)
            code = fxcli_batch_run(&run, &list);
    }
    fxcli_worklist_free(&list);
    fxcli_run_free(&run);
    return code;
}

int fxcli_main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "Usage: %s JOB [options] INPUT... -o OUTPUT\n", FXCLI_PROGRAM);
        print_try_help();
        return FXCLI_EXIT_USAGE;
    }
    const char *first = argv[1];
    if (!strcmp(first, "--help") || !strcmp(first, "-h")) {
        fxcli_print_main_help(stdout);
        return FXCLI_EXIT_OK;
    }
    if (!strcmp(first, "--version") || !strcmp(first, "-V")) {
        fxcli_print_version(stdout);
        return FXCLI_EXIT_OK;
    }
    if (!strcmp(first, "help")) return help_command(argc - 2, argv + 2);
    if (first[0] == '-') {
        fxcli_error("unknown option '%s' (options follow the job name)", first);
        print_try_help();
        return FXCLI_EXIT_USAGE;
    }
    int used;
    bool group;
    const fxcli_job *job = fxcli_find_job(argc - 1, argv + 1, &used, &group);
    if (!job && group) {
        /* "fxkit gen --help" lists the kinds. */
        if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            fxcli_print_group_help(stdout, first);
            return FXCLI_EXIT_OK;
        }
        return group_without_kind(first, argc >= 3 ? argv[2] : NULL);
    }
    if (!job) return unknown_job(first);
    return run_job(job, argc - 1 - used, argv + 1 + used);
}
