/* The list of jobs. A new job is one file in cli/jobs/ plus one line in each
 * list below. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

extern const fxcli_job fxcli_job_bench;
extern const fxcli_job fxcli_job_convert;
extern const fxcli_job fxcli_job_equalize;
extern const fxcli_job fxcli_job_filter;
extern const fxcli_job fxcli_job_gen_image;
extern const fxcli_job fxcli_job_gen_audio;
extern const fxcli_job fxcli_job_info;
extern const fxcli_job fxcli_job_normalize;

const fxcli_job *const fxcli_jobs[] = {
    &fxcli_job_bench,     &fxcli_job_convert, &fxcli_job_equalize,  &fxcli_job_filter,
    &fxcli_job_gen_image, &fxcli_job_gen_audio, &fxcli_job_info,    &fxcli_job_normalize,
    NULL,
};

/* Does `name` ("gen image") start with the word `word` followed by a space? */
static bool in_group(const char *name, const char *word)
{
    size_t n = strlen(word);
    return n && !strncmp(name, word, n) && name[n] == ' ';
}

bool fxcli_is_group(const char *word)
{
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++)
        if (in_group((*j)->name, word)) return true;
    return false;
}

const fxcli_job *fxcli_find_job(int argc, char **argv, int *used, bool *group_prefix)
{
    *used = 0;
    *group_prefix = false;
    if (argc < 1) return NULL;
    for (const fxcli_job *const *j = fxcli_jobs; *j; j++) {
        const char *name = (*j)->name;
        if (!strcmp(name, argv[0])) {
            *used = 1;
            return *j;
        }
        if (argc >= 2 && in_group(name, argv[0]) && !strcmp(name + strlen(argv[0]) + 1, argv[1])) {
            *used = 2;
            return *j;
        }
    }
    *group_prefix = fxcli_is_group(argv[0]);
    return NULL;
}

bool fxcli_run_init(fxcli_run *run, const fxcli_job *job)
{
    memset(run, 0, sizeof *run);
    run->job = job;
    /* Defaults of every group, including those the job leaves out, so that the
     * driver can read any field. */
    for (size_t g = 0; g < fxcli_common_group_count; g++)
        fx_options_defaults(fxcli_common_groups[g].table, &run->common);
    if (job->options_size) {
        run->options = calloc(1, job->options_size);
        if (!run->options) return false;
        if (job->options) fx_options_defaults(job->options, run->options);
    }
    run->log_level = FX_LOG_WARNING;
    return true;
}

void fxcli_run_free(fxcli_run *run)
{
    if (run->job && run->job->finish) run->job->finish(run);
    free(run->options);
    free(run->inputs);
    memset(run, 0, sizeof *run);
}

int fxcli_usage(fxcli_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->error, sizeof run->error, fmt, ap);
    va_end(ap);
    return FXCLI_EXIT_USAGE;
}

bool fxcli_join_tables(fx_option *dst, size_t rows, const fx_option *library,
                       const fx_option *program)
{
    size_t n = 0;
    const fx_option *parts[] = {library, program};
    for (int part = 0; part < 2; part++)
        for (const fx_option *o = parts[part]; o->name; o++) {
            if (n + 1 >= rows) return false;
            dst[n++] = *o;
        }
    dst[n] = (fx_option)FX_OPTION_END;
    return true;
}
