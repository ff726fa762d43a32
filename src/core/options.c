/* Option tables: defaults, lookup, parsing with range checks, formatting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* A string field; a typedef so that CFIELD can add its const without doubling one. */
typedef const char *cstring;

#define FIELD(obj, opt, type) ((type *)(void *)((char *)(obj) + (opt)->offset))
#define CFIELD(obj, opt, type) ((const type *)(const void *)((const char *)(obj) + (opt)->offset))

void fx_options_defaults(const fx_option *table, void *obj)
{
    for (const fx_option *o = table; o->name; o++) {
        switch (o->type) {
        case FX_OPT_DOUBLE: *FIELD(obj, o, double) = o->def; break;
        case FX_OPT_STRING: *FIELD(obj, o, const char *) = o->def_str; break;
        default: *FIELD(obj, o, int) = (int)o->def; break;
        }
    }
}

const fx_option *fx_option_find(const fx_option *table, const char *name)
{
    if (!name || !*name) return NULL;
    for (const fx_option *o = table; o->name; o++)
        if (!strcmp(o->name, name)) return o;
    if (name[1] == '\0')
        for (const fx_option *o = table; o->name; o++)
            if (o->alias && o->alias == name[0]) return o;
    return NULL;
}

static void format_choices(const fx_option *o, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *const *c = o->choices; c && *c && used < size; c++) {
        int n = snprintf(buf + used, size - used, "%s%s", c == o->choices ? "" : ", ", *c);
        if (n < 0) break;
        used += (size_t)n;
    }
}

static fx_status range_error(fx_context *ctx, const fx_option *o, const char *value)
{
    if (o->type == FX_OPT_INT)
        return fxi_error(ctx, FX_ERANGE, "--%s: %s is out of range [%.0f, %.0f]", o->name, value,
                         o->min, o->max);
    return fxi_error(ctx, FX_ERANGE, "--%s: %s is out of range [%g, %g]", o->name, value, o->min,
                     o->max);
}

static fx_status parse_bool(fx_context *ctx, const fx_option *o, const char *value, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    if (!value) {
        *out = 1;
        return FX_OK;
    }
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (!strcasecmp(value, yes[i])) {
            *out = 1;
            return FX_OK;
        }
        if (!strcasecmp(value, no[i])) {
            *out = 0;
            return FX_OK;
        }
    }
    return fxi_error(ctx, FX_EINVAL, "--%s: '%s' is not a yes/no value", o->name, value);
}

fx_status fx_option_set(fx_context *ctx, const fx_option *o, void *obj, const char *value)
{
    if (!o || !obj) return fxi_error(ctx, FX_EINVAL, "no such option");
    if (o->type == FX_OPT_BOOL) return parse_bool(ctx, o, value, FIELD(obj, o, int));
    FXI_RETURN_IF(!value, FX_EINVAL, "--%s needs a value", o->name);
    char *end;
    switch (o->type) {
    case FX_OPT_INT: {
        errno = 0;
        long long v = strtoll(value, &end, 10);
        FXI_RETURN_IF(end == value || *end, FX_EINVAL, "--%s: '%s' is not an integer", o->name,
                     value);
        if (errno == ERANGE || v < o->min || v > o->max) return range_error(ctx, o, value);
        *FIELD(obj, o, int) = (int)v;
        return FX_OK;
    }
    case FX_OPT_DOUBLE: {
        errno = 0;
        double v = strtod(value, &end);
        FXI_RETURN_IF(end == value || *end || isnan(v), FX_EINVAL, "--%s: '%s' is not a number",
                     o->name, value);
        if (errno == ERANGE || v < o->min || v > o->max) return range_error(ctx, o, value);
        *FIELD(obj, o, double) = v;
        return FX_OK;
    }
    case FX_OPT_STRING: *FIELD(obj, o, const char *) = value; return FX_OK;
    case FX_OPT_ENUM: {
        for (int i = 0; o->choices && o->choices[i]; i++) {
            if (!strcasecmp(o->choices[i], value)) {
                *FIELD(obj, o, int) = i;
                return FX_OK;
            }
        }
        char list[512];
        format_choices(o, list, sizeof list);
        return fxi_error(ctx, FX_EINVAL, "--%s: '%s' is not one of: %s", o->name, value, list);
    }
    default: return fxi_error(ctx, FX_EINVAL, "--%s: unknown option type", o->name);
    }
}

fx_status fx_options_validate(fx_context *ctx, const fx_option *table, const void *obj)
{
    char text[64];
    for (const fx_option *o = table; o->name; o++) {
        switch (o->type) {
        case FX_OPT_INT: {
            int v = *CFIELD(obj, o, int);
            if (v < o->min || v > o->max) {
                snprintf(text, sizeof text, "%d", v);
                return range_error(ctx, o, text);
            }
            break;
        }
        case FX_OPT_DOUBLE: {
            double v = *CFIELD(obj, o, double);
            if (!(v >= o->min && v <= o->max)) {
                snprintf(text, sizeof text, "%g", v);
                return range_error(ctx, o, text);
            }
            break;
        }
        case FX_OPT_BOOL: {
            int v = *CFIELD(obj, o, int);
            FXI_RETURN_IF(v != 0 && v != 1, FX_EINVAL, "--%s: %d is not 0 or 1", o->name, v);
            break;
        }
        case FX_OPT_ENUM: {
            int v = *CFIELD(obj, o, int), n = 0;
            while (o->choices && o->choices[n])
                n++;
            FXI_RETURN_IF(v < 0 || v >= n, FX_EINVAL, "--%s: choice %d does not exist", o->name, v);
            break;
        }
        default: break;
        }
    }
    return FX_OK;
}

void fx_option_format(const fx_option *o, const void *obj, char *buf, size_t size)
{
    switch (o->type) {
    case FX_OPT_INT: snprintf(buf, size, "%d", obj ? *CFIELD(obj, o, int) : (int)o->def); break;
    case FX_OPT_DOUBLE: snprintf(buf, size, "%g", obj ? *CFIELD(obj, o, double) : o->def); break;
    case FX_OPT_BOOL:
        snprintf(buf, size, "%s", (obj ? *CFIELD(obj, o, int) : (int)o->def) ? "on" : "off");
        break;
    case FX_OPT_STRING: {
        const char *s = obj ? *CFIELD(obj, o, cstring) : o->def_str;
        snprintf(buf, size, "%s", s ? s : "");
        break;
    }
    case FX_OPT_ENUM: {
        int v = obj ? *CFIELD(obj, o, int) : (int)o->def;
        int n = 0;
        while (o->choices && o->choices[n])
            n++;
        snprintf(buf, size, "%s", v >= 0 && v < n ? o->choices[v] : "?");
        break;
    }
    }
}
