/* --help, help JOB and --version, generated from the job list and option tables. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

/* Column where option help starts; longer option columns put help on the next line. */
#define HELP_COLUMN 30
/* Column where job summaries start in the job list. */
#define JOB_COLUMN 14
/* Room for one formatted value. */
#define VALUE_MAX 64
/* Doubles hold every integer below 2^53 exactly. */
#define EXACT_LIMIT 9007199254740992.0

static const char *metavar_of(const fx_option *o)
{
    if (o->metavar) return o->metavar;
    switch (o->type) {
    case FX_OPT_INT: return "N";
    case FX_OPT_DOUBLE: return "X";
    case FX_OPT_ENUM: return "NAME";
    default: return "TEXT";
    }
}

/* Lines are wrapped to fit an 80-column terminal. */
#define LINE_WIDTH 79
/* Written instead of the space inside "[min, max]" so that wrapping keeps a range
 * on one line; printed as a space. */
#define NO_BREAK_SPACE '\x01'
/* Room for one option's whole help text before wrapping. */
#define TEXT_MAX 2048

typedef struct text {
    char buf[TEXT_MAX];
    size_t len;
} text;

static void append(text *t, const char *fmt, ...) FXCLI_PRINTF(2, 3);
static void append(text *t, const char *fmt, ...)
{
    if (t->len >= sizeof t->buf) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n;
    if (t->len >= sizeof t->buf) t->len = sizeof t->buf - 1;
}

/* Whole numbers in full ("9007199254740992"), others as %g. */
static void append_number(text *t, double v)
{
    if (v == floor(v) && fabs(v) <= EXACT_LIMIT)
        append(t, "%.0f", v);
    else
        append(t, "%g", v);
}

/* " (default: X; range: [min, max]; one of: a, b)" */
static void append_details(text *t, const fx_option *o)
{
    const char *sep = " (";
    if (o->type != FX_OPT_STRING || o->def_str) {
        char value[VALUE_MAX];
        fx_option_format(o, NULL, value, sizeof value);
        append(t, "%sdefault: %s", sep, value);
        sep = "; ";
    }
    if (o->type == FX_OPT_INT || o->type == FX_OPT_DOUBLE) {
        append(t, "%srange: [", sep);
        append_number(t, o->min);
        append(t, ",%c", NO_BREAK_SPACE);
        append_number(t, o->max);
        append(t, "]");
        sep = "; ";
    } else if (o->type == FX_OPT_ENUM) {
        append(t, "%sone of: ", sep);
        for (const char *const *c = o->choices; c && *c; c++)
            append(t, "%s%s", c == o->choices ? "" : ", ", *c);
        sep = "; ";
    }
    if (strcmp(sep, " (") != 0) append(t, ")");
}

/* Print `body` from column `column` on, breaking at spaces before LINE_WIDTH. */
static void print_wrapped(FILE *out, const char *body, int column)
{
    int room = LINE_WIDTH - column;
    const char *p = body;
    while (*p) {
        int len = (int)strlen(p);
        if (len > room) {
            int cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0) cut = (int)strcspn(p, " "); /* one long word */
            len = cut;
        }
        for (int i = 0; i < len; i++)
            fputc(p[i] == NO_BREAK_SPACE ? ' ' : p[i], out);
        fputc('\n', out);
        p += len;
        while (*p == ' ')
            p++;
        if (*p) fprintf(out, "%*s", column, "");
    }
    if (!*body) fputc('\n', out);
}

static void print_option(FILE *out, const fx_option *o)
{
    char left[VALUE_MAX * 2];
    char alias[8] = "    ";
    if (o->alias) snprintf(alias, sizeof alias, "-%c, ", o->alias);
    /* A flag that is on by default is turned off with --no-NAME, so show that form. */
    bool negatable = o->type == FX_OPT_BOOL && o->def != 0;
    if (o->type == FX_OPT_BOOL)
        snprintf(left, sizeof left, "  %s--%s%s", alias, negatable ? "[no-]" : "", o->name);
    else
        snprintf(left, sizeof left, "  %s--%s %s", alias, o->name, metavar_of(o));
    if ((int)strlen(left) >= HELP_COLUMN - 1)
        fprintf(out, "%s\n%*s", left, HELP_COLUMN, "");
    else
        fprintf(out, "%-*s", HELP_COLUMN, left);
    text t = {.len = 0};
    t.buf[0] = '\0';
    append(&t, "%s", o->help ? o->help : "");
    if (o->type != FX_OPT_BOOL) append_details(&t, o);
    print_wrapped(out, t.buf, HELP_COLUMN);
}

static void print_table(FILE *out, const char *title, const fx_option *table)
{
    if (!table || !table->name) return;
    fprintf(out, "\n%s:\n", title);
    for (const fx_option *o = table; o->name; o++)
        print_option(out, o);
}

static const char *media_text(unsigned media)
{
    if ((media & FXCLI_MEDIA_IMAGE) && (media & FXCLI_MEDIA_AUDIO)) return "images and audio";
    if (media & FXCLI_MEDIA_IMAGE) return "images";
    if (media & FXCLI_MEDIA_AUDIO) return "audio";
    return NULL;
}

void fxcli_print_job_help(FILE *out, const fxcli_job *job)
{
    fprintf(out, "Usage: %s %s %s\n", FXCLI_PROGRAM, job->name, job->usage);
    fprintf(out, "\n%s.\n", job->summary);
    if (job->description) fprintf(out, "\n%s\n", job->description);
    const char *media = media_text(job->media);
    if (media && job->takes_inputs) fprintf(out, "\nWorks on: %s.\n", media);
    print_table(out, "Options", job->options);
    for (size_t g = 0; g < fxcli_common_group_count; g++)
        if (job->common & fxcli_common_groups[g].flag)
            print_table(out, fxcli_common_groups[g].title, fxcli_common_groups[g].table);
    fprintf(out, "\nExit status: 0 all done, 1 some input failed, 2 usage error.\n");
}

void fxcli_print_group_help(FILE *out, const char *group)
{
    size_t n = strlen(group);
    fprintf(out, "Usage:\n");
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++)
        if (!strncmp((*j)->name, group, n) && (*j)->name[n] == ' ')
            fprintf(out, "  %s %s %s\n      %s\n", FXCLI_PROGRAM, (*j)->name, (*j)->usage,
                    (*j)->summary);
    fprintf(out, "\nSee '%s %s KIND --help' for the options of each.\n", FXCLI_PROGRAM, group);
}

void fxcli_print_main_help(FILE *out)
{
    fprintf(out,
            "Usage: %s JOB [options] INPUT... -o OUTPUT\n"
            "       %s JOB --help      (or: %s help JOB)\n"
            "       %s --version\n"
            "\nFast image and audio filtering on NVIDIA GPUs and multi-core CPUs.\n"
            "\nJobs:\n",
            FXCLI_PROGRAM, FXCLI_PROGRAM, FXCLI_PROGRAM, FXCLI_PROGRAM);
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++)
        fprintf(out, "  %-*s%s\n", JOB_COLUMN, (*j)->name, (*j)->summary);
    fprintf(out, "\nOUTPUT is a file for one input, or a folder (ending in '/', or existing) for\n"
                 "several; output names are the input names with --suffix before the extension.\n"
                 "Outputs are written to a temporary file and renamed into place, and an input is\n"
                 "never overwritten unless --in-place is given.\n"
                 "\nExit status:\n"
                 "  0    every input was done\n"
                 "  1    some input failed (the others were still done)\n"
                 "  2    usage error (nothing was done)\n"
                 "  130  interrupted (128 + signal number); unfinished outputs are removed\n");
}

void fxcli_print_version(FILE *out)
{
    fprintf(out, "%s %s\nfeatures: %s\n", FXCLI_PROGRAM, fx_version(), fx_build_features());
}
