/* fxkit — option tables.
 *
 * Each job declares its parameters once, as a table of fx_option rows that point
 * into the job's options struct. Defaults, parsing, range checks, --help and the
 * option reference in the docs all come from that one table (as FFmpeg's AVOption
 * and libvips' argument tables do), so a default is written in exactly one place.
 */
#ifndef FXKIT_OPTIONS_H
#define FXKIT_OPTIONS_H

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fx_option_type {
    FX_OPT_INT,    /* int field; min/max apply */
    FX_OPT_DOUBLE, /* double field; min/max apply */
    FX_OPT_BOOL,   /* int field, 0 or 1; a flag on the command line */
    FX_OPT_STRING, /* const char * field (not owned: points at the parsed text) */
    FX_OPT_ENUM    /* int field holding an index into `choices` */
} fx_option_type;

typedef struct fx_option {
    const char *name; /* long name, e.g. "sigma" (command line: --sigma) */
    char alias;       /* short alias, e.g. 's' (command line: -s), or 0 */
    fx_option_type type;
    size_t offset;              /* offsetof(options struct, field) */
    double def;                 /* default for INT, DOUBLE, BOOL and ENUM (index) */
    double min, max;            /* inclusive range for INT and DOUBLE */
    const char *def_str;        /* default for STRING (may be NULL) */
    const char *const *choices; /* NULL-terminated names for ENUM */
    const char *metavar;        /* value placeholder in help, e.g. "N" (NULL: from type) */
    const char *help;           /* one line */
} fx_option;

/* A table ends with a row whose name is NULL. */
#define FX_OPTION_END                                                                              \
    {                                                                                              \
        NULL, 0, FX_OPT_INT, 0, 0, 0, 0, NULL, NULL, NULL, NULL                                    \
    }

/* Write every default of the table into obj. */
FX_API void fx_options_defaults(const fx_option *table, void *obj);

/* Find a row by long name or, when the name is one character, by alias. NULL if none. */
FX_API const fx_option *fx_option_find(const fx_option *table, const char *name);

/* Parse `value` for the row and store it into obj. Errors (FX_EINVAL for text that
 * is not a number or not a choice, FX_ERANGE outside [min, max]) write a detail
 * naming the option and its range into ctx: "--sigma: 0 is out of range [0.1, 100]".
 * For BOOL, value may be NULL (meaning true) or one of 1/0/true/false/yes/no/on/off. */
FX_API fx_status fx_option_set(fx_context *ctx, const fx_option *opt, void *obj, const char *value);

/* Check every numeric field of obj against its range (for options set directly in C). */
FX_API fx_status fx_options_validate(fx_context *ctx, const fx_option *table, const void *obj);

/* Format the row's current value in obj (or its default when obj is NULL) into buf. */
FX_API void fx_option_format(const fx_option *opt, const void *obj, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
