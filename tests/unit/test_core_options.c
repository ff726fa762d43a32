/* Option tables: defaults, lookup by name and alias, parsing, range checks, messages. */
#include <float.h>
#include <stddef.h>

#include "fxtest.h"

typedef struct demo_opts {
    int radius;
    double sigma;
    int verbose;
    const char *name;
    int mode;
} demo_opts;

static const char *const mode_choices[] = {"fast", "exact", "auto", NULL};

static const fx_option demo_table[] = {
    {"radius", 'r', FX_OPT_INT, offsetof(demo_opts, radius), 3, 1, 100, NULL, NULL, "N",
     "kernel radius"},
    {"sigma", 's', FX_OPT_DOUBLE, offsetof(demo_opts, sigma), 1.5, 0.1, 50, NULL, NULL, "X",
     "spread"},
    {"verbose", 'v', FX_OPT_BOOL, offsetof(demo_opts, verbose), 0, 0, 1, NULL, NULL, NULL, "talk"},
    {"name", 0, FX_OPT_STRING, offsetof(demo_opts, name), 0, 0, 0, "plain", NULL, "TEXT", "a name"},
    {"mode", 'm', FX_OPT_ENUM, offsetof(demo_opts, mode), 2, 0, 0, NULL, mode_choices, NULL,
     "mode"},
    FX_OPTION_END,
};

FXT_TEST(defaults_come_from_the_table)
{
    demo_opts o = {99, 99, 99, NULL, 99};
    fx_options_defaults(demo_table, &o);
    FXT_CHECK_EQ(o.radius, 3);
    FXT_CHECK(o.sigma == 1.5);
    FXT_CHECK_EQ(o.verbose, 0);
    FXT_CHECK(o.name && !strcmp(o.name, "plain"));
    FXT_CHECK_EQ(o.mode, 2);
}

FXT_TEST(lookup_by_name_and_alias)
{
    FXT_CHECK(fx_option_find(demo_table, "sigma") == &demo_table[1]);
    FXT_CHECK(fx_option_find(demo_table, "s") == &demo_table[1]);
    FXT_CHECK(fx_option_find(demo_table, "m") == &demo_table[4]);
    FXT_CHECK(fx_option_find(demo_table, "sig") == NULL);
    FXT_CHECK(fx_option_find(demo_table, "x") == NULL);
    FXT_CHECK(fx_option_find(demo_table, "") == NULL);
    FXT_CHECK(fx_option_find(demo_table, NULL) == NULL);
}

FXT_TEST(parse_valid_values)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    demo_opts o;
    fx_options_defaults(demo_table, &o);
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[0], &o, "100"), ctx);
    FXT_CHECK_EQ(o.radius, 100);
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[0], &o, "1"), ctx);
    FXT_CHECK_EQ(o.radius, 1);
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[1], &o, "2.25"), ctx);
    FXT_CHECK(o.sigma == 2.25);
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[1], &o, "1e1"), ctx);
    FXT_CHECK(o.sigma == 10);
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[2], &o, NULL), ctx);
    FXT_CHECK_EQ(o.verbose, 1);
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[2], &o, "off"), ctx);
    FXT_CHECK_EQ(o.verbose, 0);
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[3], &o, "hello"), ctx);
    FXT_CHECK(!strcmp(o.name, "hello"));
    FXT_CHECK_OK(fx_option_set(ctx, &demo_table[4], &o, "EXACT"), ctx);
    FXT_CHECK_EQ(o.mode, 1);
    FXT_CHECK_OK(fx_options_validate(ctx, demo_table, &o), ctx);
    fx_context_destroy(ctx);
}

FXT_TEST(errors_name_the_option_and_its_range)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    demo_opts o;
    fx_options_defaults(demo_table, &o);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[0], &o, "0"), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--radius: 0 is out of range [1, 100]");
    FXT_CHECK_EQ(o.radius, 3); /* unchanged on error */
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[0], &o, "101"), FX_ERANGE, ctx);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[0], &o, "99999999999999999999"), FX_ERANGE,
                     ctx);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[0], &o, "3x"), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "not an integer");
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[0], &o, ""), FX_EINVAL, ctx);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[0], &o, NULL), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "needs a value");
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[1], &o, "0.05"), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--sigma: 0.05 is out of range [0.1, 50]");
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[1], &o, "nan"), FX_EINVAL, ctx);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[1], &o, "inf"), FX_ERANGE, ctx);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[1], &o, "1e999"), FX_ERANGE, ctx);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[2], &o, "maybe"), FX_EINVAL, ctx);
    FXT_CHECK_STATUS(fx_option_set(ctx, &demo_table[4], &o, "slow"), FX_EINVAL, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "one of: fast, exact, auto");
    fx_context_destroy(ctx);
}

FXT_TEST(validate_catches_values_set_in_c)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    demo_opts o;
    fx_options_defaults(demo_table, &o);
    o.sigma = 0;
    FXT_CHECK_STATUS(fx_options_validate(ctx, demo_table, &o), FX_ERANGE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "--sigma");
    fx_options_defaults(demo_table, &o);
    o.mode = 3;
    FXT_CHECK_STATUS(fx_options_validate(ctx, demo_table, &o), FX_EINVAL, ctx);
    fx_context_destroy(ctx);
}

FXT_TEST(format_values_for_help)
{
    char buf[64];
    demo_opts o;
    fx_options_defaults(demo_table, &o);
    fx_option_format(&demo_table[0], NULL, buf, sizeof buf);
    FXT_CHECK(!strcmp(buf, "3"));
    fx_option_format(&demo_table[1], &o, buf, sizeof buf);
    FXT_CHECK(!strcmp(buf, "1.5"));
    fx_option_format(&demo_table[2], NULL, buf, sizeof buf);
    FXT_CHECK(!strcmp(buf, "off"));
    fx_option_format(&demo_table[4], NULL, buf, sizeof buf);
    FXT_CHECK(!strcmp(buf, "auto"));
    fx_option_format(&demo_table[3], NULL, buf, sizeof buf);
    FXT_CHECK(!strcmp(buf, "plain"));
}

FXT_MAIN(FXT_CASE(defaults_come_from_the_table), FXT_CASE(lookup_by_name_and_alias),
         FXT_CASE(parse_valid_values), FXT_CASE(errors_name_the_option_and_its_range),
         FXT_CASE(validate_catches_values_set_in_c), FXT_CASE(format_values_for_help))
