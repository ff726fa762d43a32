/* libFuzzer target: the program's argument parser. The first byte picks a job,
 * the rest is split at NUL bytes into argv. Parsing and resolving the common
 * options must accept or reject every argv with a message, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_context.h"

/* argv entries beyond this are ignored (argv of a real shell is bounded too). */
#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fx_context *ctx = fuzz_context(0, 0);
    if (size < 1) return 0;
    size_t job_count = 0;
    while (fxcli_jobs[job_count])
        job_count++;
    const fxcli_job *job = fxcli_jobs[data[0] % job_count];

    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS];
    int argc = 0;
    for (char *p = text, *end = text + size - 1; p < end && argc < MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;

    fxcli_run run;
    if (fxcli_run_init(&run, job)) {
        fxcli_parse_result r = fxcli_parse_args(&run, ctx, argc, argv);
        if (r == FXCLI_PARSE_ERROR && !run.error[0] && !fx_context_error(ctx)[0])
            abort(); /* a rejected command line must say why */
        if (r == FXCLI_PARSE_OK) (void)fxcli_resolve_common(&run);
        fxcli_run_free(&run);
    }
    fx_context_clear_error(ctx);
    free(text);
    return 0;
}
