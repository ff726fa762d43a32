/* Kernel text: a preset name, or weights.
 *
 *   weights  = row { (';' | newline) row } [ '/' DIVISOR ]
 *   row      = number { (' ' | ',' | tab) number }
 *
 * '#' starts a comment that runs to the end of the line; empty rows (a trailing ';',
 * blank lines) are skipped. When every number and the divisor are integers the kernel
 * is exact (numerators over the divisor); otherwise the weights are number / divisor.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_internal.h"

/* Integers beyond this are not kept exactly (the planner needs headroom for sums). */
#define EXACT_INTEGER_MAX ((int64_t)1 << 40)

typedef struct parsed {
    double *values;
    int64_t *ints;
    size_t count, capacity;
    int rows, width;
    bool all_integers;
    double divisor;
    int64_t int_divisor;
    bool int_divisor_ok;
} parsed;

static bool is_separator(char c)
{
    return c == ' ' || c == '\t' || c == ',' || c == '\r';
}

static bool ends_token(char c)
{
    return !c || is_separator(c) || c == ';' || c == '\n' || c == '/' || c == '#';
}

/* Parse one number token [s, e): its value, and whether it is an integer written as one. */
static fx_status parse_number(fx_context *ctx, const char *s, const char *e, const char *where,
                              double *value, bool *integer, int64_t *ivalue)
{
    char token[64];
    size_t len = (size_t)(e - s);
    FXI_RETURN_IF(len >= sizeof token, FX_EINVAL, "%s: '%.*s…' is not a number", where, 20, s);
    memcpy(token, s, len);
    token[len] = 0;
    char *end;
    errno = 0;
    double v = strtod(token, &end);
    FXI_RETURN_IF(end == token || *end, FX_EINVAL, "%s: '%s' is not a number", where, token);
    FXI_RETURN_IF(!isfinite(v), FX_EINVAL, "%s: '%s' is not a finite number", where, token);
    *value = v;
    const char *digits = token + (token[0] == '+' || token[0] == '-');
    *integer = *digits && strspn(digits, "0123456789") == strlen(digits);
    if (*integer) {
        errno = 0;
        long long iv = strtoll(token, NULL, 10);
        if (errno || iv > EXACT_INTEGER_MAX || iv < -EXACT_INTEGER_MAX)
            *integer = false;
        else
            *ivalue = iv;
    }
    return FX_OK;
}

static fx_status push(fx_context *ctx, parsed *p, double v, bool integer, int64_t iv)
{
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? p->capacity * 2 : 64;
        double *nv = realloc(p->values, cap * sizeof *nv);
        FXI_RETURN_IF(!nv, FX_ENOMEM, "out of memory parsing the kernel");
        p->values = nv;
        int64_t *ni = realloc(p->ints, cap * sizeof *ni);
        FXI_RETURN_IF(!ni, FX_ENOMEM, "out of memory parsing the kernel");
        p->ints = ni;
        p->capacity = cap;
    }
    p->values[p->count] = v;
    p->ints[p->count] = iv;
    p->count++;
    p->all_integers = p->all_integers && integer;
    return FX_OK;
}

/* A row ends: check its width against the first row's. */
static fx_status end_row(fx_context *ctx, parsed *p, int numbers)
{
    if (numbers == 0) return FX_OK; /* empty row: skipped */
    FXI_RETURN_IF(numbers > FX_KERNEL_MAX_SIDE, FX_ERANGE,
                 "kernel row %d has %d numbers (at most %d)", p->rows + 1, numbers,
                 FX_KERNEL_MAX_SIDE);
    if (p->rows == 0) p->width = numbers;
    FXI_RETURN_IF(numbers != p->width, FX_EINVAL, "kernel row %d has %d numbers, row 1 has %d",
                 p->rows + 1, numbers, p->width);
    p->rows++;
    FXI_RETURN_IF(p->rows > FX_KERNEL_MAX_SIDE, FX_ERANGE, "kernel has more than %d rows",
                 FX_KERNEL_MAX_SIDE);
    return FX_OK;
}

static fx_status parse_divisor(fx_context *ctx, parsed *p, const char *s)
{
    while (is_separator(*s))
        s++;
    const char *e = s;
    while (!ends_token(*e))
        e++;
    FXI_RETURN_IF(e == s, FX_EINVAL, "kernel: expected a divisor after '/'");
    bool integer;
    int64_t iv = 0;
    FXI_TRY(parse_number(ctx, s, e, "kernel divisor", &p->divisor, &integer, &iv));
    FXI_RETURN_IF(p->divisor == 0, FX_EINVAL, "kernel divisor is 0");
    p->int_divisor = iv;
    p->int_divisor_ok = integer;
    /* Only separators and a comment may follow. */
    while (is_separator(*e) || *e == '\n' || *e == ';')
        e++;
    FXI_RETURN_IF(*e && *e != '#', FX_EINVAL, "kernel: unexpected '%.20s' after the divisor", e);
    return FX_OK;
}

static fx_status parse_weights(fx_context *ctx, const char *text, parsed *p)
{
    int numbers = 0;
    const char *s = text;
    while (*s) {
        char c = *s;
        if (is_separator(c)) {
            s++;
        } else if (c == '#') {
            while (*s && *s != '\n')
                s++;
        } else if (c == ';' || c == '\n') {
            FXI_TRY(end_row(ctx, p, numbers));
            numbers = 0;
            s++;
        } else if (c == '/') {
            FXI_TRY(end_row(ctx, p, numbers));
            numbers = 0;
            FXI_TRY(parse_divisor(ctx, p, s + 1));
            break;
        } else {
            const char *e = s;
            while (!ends_token(*e))
                e++;
            char where[48];
            snprintf(where, sizeof where, "kernel row %d, number %d", p->rows + 1, numbers + 1);
            double v;
            bool integer;
            int64_t iv = 0;
            FXI_TRY(parse_number(ctx, s, e, where, &v, &integer, &iv));
            FXI_TRY(push(ctx, p, v, integer, iv));
            numbers++;
            FXI_RETURN_IF(numbers > FX_KERNEL_MAX_SIDE, FX_ERANGE,
                         "kernel row %d has more than %d numbers", p->rows + 1, FX_KERNEL_MAX_SIDE);
            s = e;
        }
    }
    FXI_TRY(end_row(ctx, p, numbers));
    FXI_RETURN_IF(p->rows == 0, FX_EINVAL, "kernel is empty (no numbers)");
    return FX_OK;
}

/* Text that starts like a word (a letter) names a preset; anything else is weights. */
static bool names_preset(const char *text)
{
    while (is_separator(*text))
        text++;
    return isalpha((unsigned char)*text) &&
           !(tolower((unsigned char)text[0]) == 'n' && tolower((unsigned char)text[1]) == 'a') &&
           !(tolower((unsigned char)text[0]) == 'i' && tolower((unsigned char)text[1]) == 'n' &&
             tolower((unsigned char)text[2]) == 'f');
}

fx_status fx_kernel_parse(fx_context *ctx, const char *text, fx_kernel **out)
{
    *out = NULL;
    FXI_RETURN_IF(!text, FX_EINVAL, "kernel: no text");
    if (names_preset(text) || fxi_is_preset(text)) {
        while (is_separator(*text))
            text++;
        return fx_kernel_preset(ctx, text, out);
    }
    parsed p = {.all_integers = true, .divisor = 1, .int_divisor = 1, .int_divisor_ok = true};
    fx_status st = parse_weights(ctx, text, &p);
    if (st == FX_OK) {
        bool exact = p.all_integers && p.int_divisor_ok;
        char name[48];
        snprintf(name, sizeof name, "custom %dx%d", p.width, p.rows);
        st = fxi_kernel_new(ctx, p.width, p.rows, exact, name, out);
        if (st == FX_OK) {
            fx_kernel *k = *out;
            /* A negative divisor moves its sign into the numerators (den > 0). */
            int64_t sign = exact && p.int_divisor < 0 ? -1 : 1;
            for (size_t i = 0; i < p.count; i++) {
                k->weights[i] = p.values[i] / p.divisor;
                if (exact) k->exact.num[i] = sign * p.ints[i];
            }
            if (exact) k->exact.den = sign * p.int_divisor;
        }
    }
    free(p.values);
    free(p.ints);
    return st;
}
