/* Context: device parsing and resolution, error detail, log callback, status strings. */
#include "core/internal.h"
#include "fxtest.h"

FXT_TEST(parse_device_names)
{
    fx_device_kind k;
    int i = -5;
    FXT_CHECK_OK(fx_parse_device("auto", &k, &i), NULL);
    FXT_CHECK(k == FX_DEVICE_AUTO && i == 0);
    FXT_CHECK_OK(fx_parse_device("CPU", &k, &i), NULL);
    FXT_CHECK(k == FX_DEVICE_CPU);
    FXT_CHECK_OK(fx_parse_device("gpu", &k, &i), NULL);
    FXT_CHECK(k == FX_DEVICE_GPU && i == 0);
    FXT_CHECK_OK(fx_parse_device("gpu:3", &k, &i), NULL);
    FXT_CHECK(k == FX_DEVICE_GPU && i == 3);
    FXT_CHECK_OK(fx_parse_device("cuda:1", &k, &i), NULL);
    FXT_CHECK(k == FX_DEVICE_GPU && i == 1);
    static const char *const bad[] = {"", "gpu:", "gpu:-1", "gpu:x", "gpu:1x", "tpu", "gpu:99999"};
    for (size_t n = 0; n < sizeof bad / sizeof *bad; n++)
        FXT_CHECK_STATUS(fx_parse_device(bad[n], &k, &i), FX_EINVAL, NULL);
}

typedef struct log_record {
    int calls;
    fx_log_level last_level;
    char last[256];
} log_record;

static void record_log(void *user, fx_log_level level, const char *message)
{
    log_record *r = user;
    r->calls++;
    r->last_level = level;
    snprintf(r->last, sizeof r->last, "%s", message);
}

FXT_TEST(cpu_context_and_error_detail)
{
    log_record rec = {0};
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = FX_DEVICE_CPU;
    opts.threads = 2;
    opts.log = record_log;
    opts.log_user = &rec;
    fx_context *ctx = NULL;
    FXT_CHECK_OK(fx_context_create(&opts, &ctx), NULL);
    int gpu = 7;
    FXT_CHECK_EQ(fx_context_device(ctx, &gpu), FX_DEVICE_CPU);
    FXT_CHECK_EQ(gpu, -1);
    FXT_CHECK_EQ(fx_context_threads(ctx), 2);
    FXT_CHECK(fx_context_limits(ctx)->max_pixels == FX_DEFAULT_MAX_PIXELS);
    FXT_CHECK(!strcmp(fx_context_error(ctx), ""));

    fx_status st = fxi_error(ctx, FX_EFORMAT, "line %d: expected %d numbers, found %d", 3, 5, 4);
    FXT_CHECK_EQ(st, FX_EFORMAT);
    FXT_CHECK(!strcmp(fx_context_error(ctx), "line 3: expected 5 numbers, found 4"));
    FXT_CHECK_EQ(rec.calls, 1);
    FXT_CHECK_EQ(rec.last_level, FX_LOG_ERROR);
    fxi_error_prefix(ctx, "kernel file %s: ", "k.txt");
    FXT_CHECK(
        !strcmp(fx_context_error(ctx), "kernel file k.txt: line 3: expected 5 numbers, found 4"));
    fxi_log(ctx, FX_LOG_DEBUG, "not delivered above the level");
    FXT_CHECK_EQ(rec.calls, 1);
    fxi_log(ctx, FX_LOG_WARNING, "delivered");
    FXT_CHECK_EQ(rec.calls, 2);
    fx_context_clear_error(ctx);
    FXT_CHECK(!strcmp(fx_context_error(ctx), ""));
    fx_context_destroy(ctx);
    fx_context_destroy(NULL);
}

/* Whether a GPU is here, which the no-GPU cases cannot run with (said when it is). */
static bool gpu_present(void)
{
    int count = -1;
    FXT_CHECK_OK(fx_gpu_count(NULL, &count), NULL);
    if (count > 0) printf("  (a GPU is present: the no-GPU case is not testable here)\n");
    return count > 0;
}

FXT_TEST(gpu_request_without_gpu_is_an_error)
{
    if (gpu_present()) return;
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = FX_DEVICE_GPU;
    fx_context *ctx = (fx_context *)&opts; /* must be reset to NULL on failure */
    FXT_CHECK_STATUS(fx_context_create(&opts, &ctx), FX_ENODEVICE, NULL);
    FXT_CHECK(ctx == NULL);
    /* auto falls back to the CPU */
    opts.device = FX_DEVICE_AUTO;
    FXT_CHECK_OK(fx_context_create(&opts, &ctx), NULL);
    FXT_CHECK_EQ(fx_context_device(ctx, NULL), FX_DEVICE_CPU);
    fx_context_destroy(ctx);
}

static void count_errors(void *user, fx_log_level level, const char *message)
{
    (void)message;
    if (level == FX_LOG_ERROR) (*(int *)user)++;
}

/* start_gpu_in_background where there is no GPU: a build with CUDA makes the context
 * and fails its first GPU call with the reason; one without fails at once. */
FXT_TEST(background_gpu_start_without_gpu)
{
    if (gpu_present()) return;
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.device = FX_DEVICE_GPU;
    opts.start_gpu_in_background = 1;
    fx_context *ctx = NULL;
    if (!fx_gpu_built()) {
        FXT_CHECK_STATUS(fx_context_create(&opts, &ctx), FX_ENODEVICE, NULL);
        FXT_CHECK(ctx == NULL);
        return;
    }
    FXT_CHECK_OK(fx_context_create(&opts, &ctx), NULL);
    if (!ctx) return;
    FXT_CHECK_EQ(fx_context_device(ctx, NULL), FX_DEVICE_GPU);
    fx_image dev = {0};
    FXT_CHECK_STATUS(fx_image_alloc_device(ctx, &dev, 8, 8, 1, FX_U8), FX_ENODEVICE, ctx);
    FXT_CHECK_CONTAINS(fx_context_error(ctx), "none is present");
    FXT_CHECK_STATUS(fx_context_gpu_ready(ctx), FX_ENODEVICE, ctx);
    fx_context_destroy(ctx);
    /* Destroyed before anything waited for the start: the failed start is not reported
     * there (nothing asked for the GPU). */
    int errors = 0;
    opts.log = count_errors;
    opts.log_user = &errors;
    FXT_CHECK_OK(fx_context_create(&opts, &ctx), NULL);
    fx_context_destroy(ctx);
    FXT_CHECK_EQ(errors, 0);
}

FXT_TEST(bad_context_options)
{
    fx_context_options opts;
    fx_context_options_init(&opts);
    opts.threads = -1;
    fx_context *ctx;
    FXT_CHECK_STATUS(fx_context_create(&opts, &ctx), FX_EINVAL, NULL);
    FXT_CHECK_STATUS(fx_context_create(NULL, NULL), FX_EINVAL, NULL);
    FXT_CHECK_OK(fx_context_create(NULL, &ctx), NULL);
    FXT_CHECK(fx_context_threads(ctx) >= 1);
    fx_context_destroy(ctx);
}

FXT_TEST(scratch_grows_and_is_reused)
{
    fx_context *ctx = fxt_context(FX_DEVICE_CPU, 1);
    void *a = NULL, *b = NULL;
    FXT_CHECK_OK(fxi_scratch(ctx, 100, &a), ctx);
    memset(a, 0x5a, 100);
    FXT_CHECK_OK(fxi_scratch(ctx, 50, &b), ctx);
    FXT_CHECK(a == b); /* a smaller request reuses the buffer */
    FXT_CHECK_OK(fxi_scratch(ctx, 1 << 20, &b), ctx);
    FXT_CHECK(b != NULL && ((unsigned char *)b)[99] == 0x5a); /* grown, contents kept */
    FXT_CHECK_EQ(fx_cpu_count() >= 1, 1);
    fx_context_destroy(ctx);
}

FXT_TEST(status_strings_and_version)
{
    for (int s = FX_EBADSTATE; s <= FX_OK; s++) {
        FXT_CHECK(fx_strerror(s) != NULL);
        FXT_CHECK(strcmp(fx_strerror(s), "unknown error") != 0);
    }
    FXT_CHECK(!strcmp(fx_strerror(-1000), "unknown error"));
    FXT_CHECK(!strcmp(fx_version(), FXKIT_VERSION_STRING));
    FXT_CHECK_CONTAINS(fx_build_features(), "png");
    FXT_CHECK_EQ(fx_gpu_built(), strstr(fx_build_features(), "cuda") != NULL);
    uint64_t a = fx_time_ns(), b = fx_time_ns();
    FXT_CHECK(b >= a);
}

/* The interop calls of gpu.h on a CPU context: no stream, nothing to wait for, and
 * waiting for a producer's stream is an error that says why. */
FXT_TEST(stream_interop_on_a_cpu_context)
{
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = FX_DEVICE_CPU;
    co.threads = 1;
    fx_context *ctx;
    FXT_CHECK_OK(fx_context_create(&co, &ctx), NULL);
    FXT_CHECK(fx_context_stream(ctx) == NULL);
    FXT_CHECK_OK(fx_context_synchronize(ctx), ctx);
    FXT_CHECK_STATUS(fx_context_wait_stream(ctx, NULL), FX_ENODEVICE, ctx);
    FXT_CHECK(strstr(fx_context_error(ctx), "GPU") != NULL);
    fx_context_destroy(ctx);
}

FXT_MAIN(FXT_CASE(parse_device_names), FXT_CASE(stream_interop_on_a_cpu_context), FXT_CASE(cpu_context_and_error_detail),
         FXT_CASE(gpu_request_without_gpu_is_an_error), FXT_CASE(background_gpu_start_without_gpu),
         FXT_CASE(bad_context_options),
         FXT_CASE(scratch_grows_and_is_reused), FXT_CASE(status_strings_and_version))
