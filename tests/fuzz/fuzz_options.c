/* libFuzzer target: option parsing. The input is "name\0value" pairs applied to a
 * table with every option type; each must be accepted or rejected with a detail,
 * never crash, and an accepted value must pass fx_options_validate. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_context.h"

typedef struct fuzz_opts {
    int count;
    double level;
    int flag;
    const char *text;
    int choice;
} fuzz_opts;

static const char *const choices[] = {"one", "two", "three", NULL};

static const fx_option table[] = {
    {"count", 'c', FX_OPT_INT, offsetof(fuzz_opts, count), 5, -1000, 1000, NULL, NULL, NULL, "int"},
    {"level", 'l', FX_OPT_DOUBLE, offsetof(fuzz_opts, level), 0.5, -1e6, 1e6, NULL, NULL, NULL,
     "double"},
    {"flag", 'f', FX_OPT_BOOL, offsetof(fuzz_opts, flag), 0, 0, 1, NULL, NULL, NULL, "bool"},
    {"text", 't', FX_OPT_STRING, offsetof(fuzz_opts, text), 0, 0, 0, "x", NULL, NULL, "string"},
    {"choice", 0, FX_OPT_ENUM, offsetof(fuzz_opts, choice), 0, 0, 0, NULL, choices, NULL, "enum"},
    FX_OPTION_END,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fx_context *ctx = fuzz_context(0, 0);
    /* A terminated copy, split at NUL bytes into alternating names and values. */
    char *text = malloc(size + 2);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = text[size + 1] = '\0';

    fuzz_opts obj;
    fx_options_defaults(table, &obj);
    const char *p = text, *end = text + size;
    while (p < end) {
        const char *name = p;
        p += strlen(p) + 1;
        const char *value = p < end ? p : NULL;
        if (value) p += strlen(p) + 1;
        const fx_option *opt = fx_option_find(table, name);
        if (!opt) continue;
        fx_status st = fx_option_set(ctx, opt, &obj, value);
        if (st != FX_OK && fx_context_error(ctx)[0] == '\0') abort(); /* an error must say why */
        fx_context_clear_error(ctx);
    }
    if (fx_options_validate(ctx, table, &obj) != FX_OK) abort(); /* accepted values are in range */
    char buf[64];
    for (const fx_option *o = table; o->name; o++)
        fx_option_format(o, &obj, buf, sizeof buf);
    free(text);
    return 0;
}
