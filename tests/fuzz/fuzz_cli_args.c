/* libFuzzer target: the program's argument parser. The first byte picks a job,
 * the rest is split at NUL bytes into argv. Parsing and resolving the common
 * options must accept or reject every argv with a message, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* argv entries beyond this are ignored (argv of a real shell is bounded too). */
#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fx_context *ctx;
    if (!ctx) {
        fx_context_options opts;
        fx_context_options_init(&opts);
        opts.device = FX_DEVICE_CPU;
        opts.threads = 1;
        if (fx_context_create(&opts, &ctx) != FX_OK) abort();
    }
    if (size < 1) return 0;
    size_t job_count = 0;
    while (fxcli_jobs[job_count]) job_count++;
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
