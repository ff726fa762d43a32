/* Command-line parsing against two option tables: the common groups the job uses
 * and the job's own. Every value goes through fx_option_set, so the library's
 * range checks and messages apply everywhere.
 *
 * Accepted forms: --name=value, --name value, -x value, -xvalue, flags --flag and
 * --no-flag, clusters of short flags (-qv), "--" ends the options. Anything else
 * is a positional INPUT.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Room for an option name typed on the command line (the part before '='). */
#define NAME_MAX_LEN 128

typedef struct found_option {
    const fx_option *opt;
    void *obj; /* struct its row points into */
} found_option;

/* Look `name` up in the tables the job uses. A long name must match a row's
 * name exactly; a short one must match an alias (fx_option_find tries both). */
static bool lookup(fxcli_run *run, const char *name, bool is_long, found_option *out)
{
    for (size_t g = 0; g <= fxcli_common_group_count; g++) {
        const fx_option *table;
        void *obj;
        if (g < fxcli_common_group_count) {
            if (!(run->job->common & fxcli_common_groups[g].flag)) continue;
            table = fxcli_common_groups[g].table;
            obj = &run->common;
        } else {
            if (!run->job->options) continue;
            table = run->job->options;
            obj = run->options;
        }
        const fx_option *o = fx_option_find(table, name);
        if (!o) continue;
        if (is_long ? strcmp(o->name, name) != 0 : o->alias != name[0]) continue;
        out->opt = o;
        out->obj = obj;
        return true;
    }
    return false;
}

/* The closest long option name to `typed`, or NULL. */
static const char *suggest_option(const fxcli_run *run, const char *typed)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    for (size_t g = 0; g <= fxcli_common_group_count; g++) {
        const fx_option *table =
            g < fxcli_common_group_count ? fxcli_common_groups[g].table : run->job->options;
        if (!table) continue;
        if (g < fxcli_common_group_count && !(run->job->common & fxcli_common_groups[g].flag))
            continue;
        for (const fx_option *o = table; o->name; o++) {
            if (!fxcli_is_close(typed, o->name)) continue;
            size_t d = fxcli_edit_distance(typed, o->name);
            if (d < best_distance) {
                best = o->name;
                best_distance = d;
            }
        }
    }
    return best;
}

static fxcli_parse_result unknown_option(fxcli_run *run, const char *shown, const char *bare)
{
    const char *hint = bare ? suggest_option(run, bare) : NULL;
    if (hint)
        fxcli_usage(run, "unknown option '%s'; did you mean '--%s'? (see '%s %s --help')", shown,
                    hint, FXCLI_PROGRAM, run->job->name);
    else
        fxcli_usage(run, "unknown option '%s' (see '%s %s --help')", shown, FXCLI_PROGRAM,
                    run->job->name);
    return FXCLI_PARSE_ERROR;
}

/* Store a value through the library; its message names the option and range. */
static fxcli_parse_result set_value(fxcli_run *run, fx_context *ctx, const found_option *f,
                                    const char *value)
{
    fx_context_clear_error(ctx);
    fx_status st = fx_option_set(ctx, f->opt, f->obj, value);
    if (st == FX_OK) return FXCLI_PARSE_OK;
    const char *detail = fx_context_error(ctx);
    fxcli_usage(run, "%s", *detail ? detail : fx_strerror(st));
    return FXCLI_PARSE_ERROR;
}

/* After a value is stored: -h/--help ends parsing at once. */
static fxcli_parse_result after_set(const fxcli_run *run)
{
    return run->common.help ? FXCLI_PARSE_HELP : FXCLI_PARSE_OK;
}

static fxcli_parse_result parse_long(fxcli_run *run, fx_context *ctx, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    const char *body = arg + 2;
    const char *eq = strchr(body, '=');
    size_t len = eq ? (size_t)(eq - body) : strlen(body);
    char name[NAME_MAX_LEN];
    if (len >= sizeof name) return unknown_option(run, arg, NULL);
    memcpy(name, body, len);
    name[len] = '\0';
    const char *value = eq ? eq + 1 : NULL;

    found_option f;
    if (lookup(run, name, true, &f)) {
        if (f.opt->type == FX_OPT_BOOL) {
            /* A flag never takes the next word: "--quiet in.png" means in.png is an input. */
            fxcli_parse_result r = set_value(run, ctx, &f, value);
            return r == FXCLI_PARSE_OK ? after_set(run) : r;
        }
        if (!value) {
            if (*i + 1 >= argc) {
                fxcli_usage(run, "option '--%s' needs a value (see '%s %s --help')", name,
                            FXCLI_PROGRAM, run->job->name);
                return FXCLI_PARSE_ERROR;
            }
            value = argv[++*i];
        }
        return set_value(run, ctx, &f, value);
    }
    /* --no-flag turns a flag off. */
    static const char negation[] = "no-";
    if (!strncmp(name, negation, sizeof negation - 1) &&
        lookup(run, name + sizeof negation - 1, true, &f) && f.opt->type == FX_OPT_BOOL) {
        if (value) {
            fxcli_usage(run, "option '--%s' takes no value", name);
            return FXCLI_PARSE_ERROR;
        }
        return set_value(run, ctx, &f, "0");
    }
    char shown[NAME_MAX_LEN + 2];
    snprintf(shown, sizeof shown, "--%s", name);
    return unknown_option(run, shown, name);
}

static fxcli_parse_result parse_short(fxcli_run *run, fx_context *ctx, int argc, char **argv,
                                      int *i)
{
    const char *arg = argv[*i];
    /* A cluster: -qv is -q -v; the first option that takes a value takes the rest
     * of the word (-j4) or, when the word ends there, the next word (-j 4). */
    for (const char *p = arg + 1; *p; p++) {
        char name[2] = {*p, '\0'};
        found_option f;
        if (!lookup(run, name, false, &f)) {
            char shown[3] = {'-', *p, '\0'};
            return unknown_option(run, shown, NULL);
        }
        if (f.opt->type == FX_OPT_BOOL) {
            fxcli_parse_result r = set_value(run, ctx, &f, NULL);
            if (r != FXCLI_PARSE_OK) return r;
            if (run->common.help) return FXCLI_PARSE_HELP;
            continue;
        }
        const char *value = p[1] ? p + 1 : NULL;
        if (!value) {
            if (*i + 1 >= argc) {
                fxcli_usage(run, "option '-%c' (--%s) needs a value (see '%s %s --help')", *p,
                            f.opt->name, FXCLI_PROGRAM, run->job->name);
                return FXCLI_PARSE_ERROR;
            }
            value = argv[++*i];
        }
        return set_value(run, ctx, &f, value);
    }
    return FXCLI_PARSE_OK;
}

fxcli_parse_result fxcli_parse_args(fxcli_run *run, fx_context *ctx, int argc, char **argv)
{
    free(run->inputs);
    run->input_count = 0;
    run->inputs = calloc((size_t)argc + 1, sizeof *run->inputs);
    if (!run->inputs) {
        fxcli_usage(run, "out of memory");
        return FXCLI_PARSE_ERROR;
    }
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        fxcli_parse_result r = FXCLI_PARSE_OK;
        if (options_done || arg[0] != '-' || !strcmp(arg, "-")) {
            if (!run->job->takes_inputs) {
                fxcli_usage(run, "unexpected argument '%s' (see '%s %s --help')", arg,
                            FXCLI_PROGRAM, run->job->name);
                return FXCLI_PARSE_ERROR;
            }
            run->inputs[run->input_count++] = argv[i];
        } else if (!strcmp(arg, "--")) {
            options_done = true;
        } else if (arg[1] == '-') {
            r = parse_long(run, ctx, argc, argv, &i);
        } else {
            r = parse_short(run, ctx, argc, argv, &i);
        }
        if (r != FXCLI_PARSE_OK) return r;
    }
    return FXCLI_PARSE_OK;
}

/* --jobs: "auto" (0) or 1..FXCLI_MAX_JOBS. */
static int resolve_jobs(fxcli_run *run)
{
    fxcli_common *c = &run->common;
    if (!c->jobs_text || !strcmp(c->jobs_text, "auto")) {
        c->jobs = 0;
        return FXCLI_EXIT_OK;
    }
    char *end;
    errno = 0;
    long n = strtol(c->jobs_text, &end, 10);
    if (end == c->jobs_text || *end || errno)
        return fxcli_usage(run, "--jobs: '%s' is not an integer or 'auto'", c->jobs_text);
    if (n < 1 || n > FXCLI_MAX_JOBS)
        return fxcli_usage(run, "--jobs: %ld is out of range [1, %d]", n, FXCLI_MAX_JOBS);
    c->jobs = (int)n;
    return FXCLI_EXIT_OK;
}

int fxcli_resolve_common(fxcli_run *run)
{
    fxcli_common *c = &run->common;
    int code = resolve_jobs(run);
    if (code != FXCLI_EXIT_OK) return code;
    code = fxcli_devices_parse(run);
    if (code != FXCLI_EXIT_OK) return code;
    /* Only batches take a shard: `fxkit info` shows the launcher's, errors included. */
    char why[FXCLI_MESSAGE_MAX];
    if (run->job->common & FXCLI_COMMON_BATCH) {
        if (fxcli_shard_resolve(c->shard_text, NULL, &run->shard, why, sizeof why) != 0)
            return fxcli_usage(run, "%s", why);
    } else {
        run->shard = (fxcli_shard){.index = 0, .count = 1, .source = "not a batch"};
    }
    if (c->skip_existing && c->in_place)
        return fxcli_usage(run, "--skip-existing skips items whose output exists, and with "
                                "--in-place every output does; use one or the other");
    run->log_level = (fx_log_level)c->log_level;
    if (c->verbose && run->log_level < FX_LOG_INFO) run->log_level = FX_LOG_INFO;
    if (c->max_pixels != floor(c->max_pixels))
        return fxcli_usage(run, "--max-pixels: %g is not a whole number", c->max_pixels);
    if (c->in_place && c->output)
        return fxcli_usage(run, "--in-place replaces the inputs; it cannot be used with -o");
    if (c->in_place && c->suffix)
        return fxcli_usage(run, "--in-place replaces the inputs; it cannot be used with --suffix");
    if (c->suffix && strchr(c->suffix, '/'))
        return fxcli_usage(run, "--suffix: '%s' must not contain '/'", c->suffix);
    fxcli_console_set_quiet(c->quiet);
    return FXCLI_EXIT_OK;
}
