/* fx_filter_run_batch on the GPU against the CPU's bytes image by image (fx_filter_run on
 * a CPU context: the reference every other GPU test uses): device-image batches on the
 * 8-bit fast path (one launch a pass for the whole batch: walk4, walk, fused, box slide
 * and two-pass, the two-pass batch of 1000 in chunks), gaussian 3/5/7/31, box 3/5/15 and a
 * dense 3x3 (image after image), every border, 1-4 channels (alpha kept or filtered),
 * sizes 1x1 to 257x129, counts 1, 3 and 1000, device images whose rows start at
 * different alignments and strides; batches of u16 and f32; host images on a GPU plan;
 * and the errors of a bad batch.
 */
#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA

/* Device images of a batch: each a view into an allocation one pixel wider, starting
 * `shift` bytes into it (8-bit: odd images start at an odd address, so the batch's rows
 * are not all 4-byte aligned and the walk4 kernel gives way to k_u8_walk). */
typedef struct device_set {
    int count;
    fx_image *parent, *view;
} device_set;

static bool device_set_make(fx_context *gpu, device_set *s, int count, int w, int h, int ch,
                            fx_sample_type t, bool misalign)
{
    s->count = count;
    s->parent = calloc((size_t)count, sizeof *s->parent);
    s->view = calloc((size_t)count, sizeof *s->view);
    for (int i = 0; i < count; i++) {
        if (!FXT_CHECK_OK(fx_image_alloc_device(gpu, &s->parent[i], w + 1, h, ch, t), gpu))
            return false;
        s->view[i] = s->parent[i];
        s->view[i].width = w;
        if (misalign && t == FX_U8 && i % 2) s->view[i].data = s->parent[i].data + 1;
    }
    return true;
}

static void device_set_free(device_set *s)
{
    for (int i = 0; i < s->count; i++)
        fx_image_free(&s->parent[i]);
    free(s->parent);
    free(s->view);
}

static void host_free(fx_image *imgs, int count)
{
    for (int i = 0; i < count; i++)
        free(imgs[i].data);
    free(imgs);
}

/* A batch of `count` random w x h x ch images of type t through `kernel_text` with
 * `border`: the GPU batch on device images (views as device_set_make) against fx_filter_run
 * on the CPU image by image. Returns false on a difference. */
static bool check_device_batch(fx_context *cpu, fx_context *gpu, const char *kernel_text,
                               fx_border border, bool keep_alpha, int w, int h, int ch,
                               fx_sample_type t, int count, bool misalign, uint64_t seed)
{
    bool ok = false;
    fx_kernel *k = NULL;
    if (!FXT_CHECK_OK(fx_kernel_parse(cpu, kernel_text, &k), cpu)) return false;
    fx_filter_options o;
    fx_filter_options_init(&o);
    o.border = border;
    o.border_value = t == FX_F32 ? "0.5" : "200";
    o.alpha = keep_alpha ? FX_ALPHA_KEEP : FX_ALPHA_FILTER;
    fx_image_desc d = {w, h, ch, t};
    fx_filter_plan *cpu_plan = NULL, *gpu_plan = NULL;
    fx_image *src = calloc((size_t)count, sizeof *src), *ref = calloc((size_t)count, sizeof *ref),
             *got = calloc((size_t)count, sizeof *got);
    device_set dsrc = {0}, ddst = {0};
    if (!FXT_CHECK_OK(fx_filter_plan_create(cpu, k, &o, &d, &cpu_plan), cpu) ||
        !FXT_CHECK_OK(fx_filter_plan_create(gpu, k, &o, &d, &gpu_plan), gpu))
        goto done;
    for (int i = 0; i < count; i++) {
        src[i] = gpu_padded_image(w, h, ch, t, (size_t)(i % 3) * fx_sample_size(t));
        ref[i] = gpu_padded_image(w, h, ch, t, 0);
        got[i] = gpu_padded_image(w, h, ch, t, 0);
        gpu_fill_random(&src[i], seed * 7919 + (uint64_t)i);
        if (!FXT_CHECK_OK(fx_filter_run(cpu_plan, &src[i], &ref[i], NULL), cpu)) goto done;
    }
    if (!device_set_make(gpu, &dsrc, count, w, h, ch, t, misalign) ||
        !device_set_make(gpu, &ddst, count, w, h, ch, t, !misalign))
        goto done;
    for (int i = 0; i < count; i++)
        if (!FXT_CHECK_OK(fx_image_upload(gpu, &src[i], &dsrc.view[i]), gpu)) goto done;
    fx_timings tm = {0};
    if (!FXT_CHECK_OK(fx_filter_run_batch(gpu_plan, dsrc.view, ddst.view, count, &tm), gpu))
        goto done;
    ok = true;
    for (int i = 0; i < count && ok; i++) {
        if (!FXT_CHECK_OK(fx_image_download(gpu, &ddst.view[i], &got[i]), gpu)) {
            ok = false;
            break;
        }
        if (!fxt_images_equal(&got[i], &ref[i])) {
            fprintf(stderr,
                    "  batch image %d of %d differs from the CPU: %s, border %s, alpha %s, "
                    "%dx%dx%d %s%s\n  plan: %s\n",
                    i, count, kernel_text, fx_border_name(border), keep_alpha ? "kept" : "filtered",
                    w, h, ch, fx_sample_type_name(t), misalign ? ", rows misaligned" : "",
                    fx_filter_plan_explain(gpu_plan));
            ok = false;
        }
    }
    FXT_CHECK(ok);
done:
    device_set_free(&dsrc);
    device_set_free(&ddst);
    host_free(src, count);
    host_free(ref, count);
    host_free(got, count);
    fx_filter_plan_free(cpu_plan);
    fx_filter_plan_free(gpu_plan);
    fx_kernel_free(k);
    return ok;
}

static const char *const kernels[] = {"gaussian:3", "gaussian:5", "gaussian:7", "gaussian:31",
                                      "box:3",      "box:5",      "box:15",
                                      "1 2 1; 0 3 -1; 2 1 1 / 9"}; /* dense: direct */
static const int sizes[][2] = {{1, 1}, {7, 3}, {256, 256}, {257, 129}};

FXT_TEST(u8_batches_match_cpu)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0), *gpu = fxt_context(FX_DEVICE_GPU, 0);
    uint64_t seed = 1;
    int failures = 0;
    for (int ki = 0; ki < (int)(sizeof kernels / sizeof *kernels); ki++)
        for (int b = FX_BORDER_CONSTANT; b <= FX_BORDER_WRAP; b++)
            for (int ch = 1; ch <= 4; ch++)
                for (int count = 1; count <= 3; count += 2) {
                    const int *sz = sizes[(ki + b + ch + count) % 4];
                    const bool keep_alpha = (ch == 2 || ch == 4) && (ki + b) % 2;
                    const bool misalign = (ki + b + ch) % 3 == 0;
                    if (!check_device_batch(cpu, gpu, kernels[ki], (fx_border)b, keep_alpha, sz[0],
                                            sz[1], ch, FX_U8, count, misalign, seed++) &&
                        ++failures > 5)
                        goto out;
                }
out:
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Every size with every kernel at one border: the sizes' edges on every layout. */
FXT_TEST(u8_sizes_match_cpu)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0), *gpu = fxt_context(FX_DEVICE_GPU, 0);
    uint64_t seed = 5000;
    for (int ki = 0; ki < (int)(sizeof kernels / sizeof *kernels); ki++)
        for (int si = 0; si < 4; si++)
            check_device_batch(cpu, gpu, kernels[ki], FX_BORDER_REFLECT101, false, sizes[si][0],
                               sizes[si][1], 3, FX_U8, 3, si % 2, seed++);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* The batch: 1000 RGB 256x256 (walk4 for gaussian:5 and box:3; two-pass in chunks
 * of FXI_GPU_U8_BATCH_WORK_BYTES for gaussian:31; the box slide for box:15). */
FXT_TEST(thousand_images_match_cpu)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0), *gpu = fxt_context(FX_DEVICE_GPU, 0);
    check_device_batch(cpu, gpu, "gaussian:5", FX_BORDER_REFLECT101, false, 256, 256, 3, FX_U8,
                       1000, false, 101);
    check_device_batch(cpu, gpu, "box:3", FX_BORDER_REPLICATE, false, 256, 256, 3, FX_U8, 1000,
                       true, 102);
    check_device_batch(cpu, gpu, "gaussian:31", FX_BORDER_CONSTANT, false, 256, 256, 3, FX_U8,
                       1000, false, 103);
    check_device_batch(cpu, gpu, "box:15", FX_BORDER_WRAP, false, 256, 256, 3, FX_U8, 1000,
                       false, 104);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Off the fast path: 16-bit and float batches run image after image, same bytes. */
FXT_TEST(u16_and_f32_batches_match_cpu)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0), *gpu = fxt_context(FX_DEVICE_GPU, 0);
    uint64_t seed = 9000;
    static const fx_sample_type types[] = {FX_U16, FX_F32};
    for (int ti = 0; ti < 2; ti++)
        for (int ki = 0; ki < (int)(sizeof kernels / sizeof *kernels); ki += 3)
            for (int b = FX_BORDER_CONSTANT; b <= FX_BORDER_WRAP; b += 2)
                check_device_batch(cpu, gpu, kernels[ki], (fx_border)b, ki % 2, 61, 29,
                                   1 + (ki + b) % 4, types[ti], 3, false, seed++);
    check_device_batch(cpu, gpu, "gaussian:5", FX_BORDER_REFLECT101, false, 256, 256, 3, FX_U16,
                       40, false, seed++);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Host images on a GPU plan: each streamed as fx_filter_run does. */
FXT_TEST(host_batches_on_the_gpu_match_cpu)
{
    fx_context *cpu = fxt_context(FX_DEVICE_CPU, 0), *gpu = fxt_context(FX_DEVICE_GPU, 0);
    fx_kernel *k = NULL;
    FXT_CHECK_OK(fx_kernel_parse(cpu, "gaussian:5", &k), cpu);
    fx_image_desc d = {130, 70, 3, FX_U8};
    fx_filter_plan *cp = NULL, *gp = NULL;
    FXT_CHECK_OK(fx_filter_plan_create(cpu, k, NULL, &d, &cp), cpu);
    FXT_CHECK_OK(fx_filter_plan_create(gpu, k, NULL, &d, &gp), gpu);
    fx_image src[4], ref[4], got[4];
    for (int i = 0; i < 4; i++) {
        src[i] = gpu_padded_image(130, 70, 3, FX_U8, (size_t)i);
        ref[i] = gpu_padded_image(130, 70, 3, FX_U8, 0);
        got[i] = gpu_padded_image(130, 70, 3, FX_U8, 1);
        gpu_fill_random(&src[i], 40 + (uint64_t)i);
        FXT_CHECK_OK(fx_filter_run(cp, &src[i], &ref[i], NULL), cpu);
    }
    FXT_CHECK_OK(fx_filter_run_batch(gp, src, got, 4, NULL), gpu);
    for (int i = 0; i < 4; i++) {
        FXT_CHECK(fxt_images_equal(&got[i], &ref[i]));
        free(src[i].data);
        free(ref[i].data);
        free(got[i].data);
    }
    fx_filter_plan_free(cp);
    fx_filter_plan_free(gp);
    fx_kernel_free(k);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

FXT_TEST(bad_batches_are_reported)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 0);
    fx_kernel *k = NULL;
    FXT_CHECK_OK(fx_kernel_parse(gpu, "gaussian:5", &k), gpu);
    fx_image_desc d = {64, 32, 3, FX_U8};
    fx_filter_plan *p = NULL;
    FXT_CHECK_OK(fx_filter_plan_create(gpu, k, NULL, &d, &p), gpu);
    fx_image dsrc[3], ddst[3], host = gpu_padded_image(64, 32, 3, FX_U8, 0);
    for (int i = 0; i < 3; i++) {
        FXT_CHECK_OK(fx_image_alloc_device(gpu, &dsrc[i], 64, 32, 3, FX_U8), gpu);
        FXT_CHECK_OK(fx_image_alloc_device(gpu, &ddst[i], 64, 32, 3, FX_U8), gpu);
    }
    /* a host image among device images: named by its index */
    fx_image mixed[3] = {dsrc[0], host, dsrc[2]};
    FXT_CHECK_STATUS(fx_filter_run_batch(p, mixed, ddst, 3, NULL), FX_EINVAL, gpu);
    FXT_CHECK_CONTAINS(fx_context_error(gpu), "image 1");
    FXT_CHECK_CONTAINS(fx_context_error(gpu), "all device images or all host images");
    /* the wrong shape */
    fx_image wrong[3] = {dsrc[0], dsrc[1], dsrc[2]};
    wrong[2].height = 31;
    FXT_CHECK_STATUS(fx_filter_run_batch(p, wrong, ddst, 3, NULL), FX_EINVAL, gpu);
    FXT_CHECK_CONTAINS(fx_context_error(gpu), "batch image 2's input");
    FXT_CHECK_STATUS(fx_filter_run_batch(p, dsrc, ddst, -2, NULL), FX_EINVAL, gpu);
    /* and the plan still works */
    FXT_CHECK_OK(fx_filter_run_batch(p, dsrc, ddst, 3, NULL), gpu);
    FXT_CHECK_OK(fx_filter_run_batch(p, dsrc, ddst, 0, NULL), gpu);
    for (int i = 0; i < 3; i++) {
        fx_image_free(&dsrc[i]);
        fx_image_free(&ddst[i]);
    }
    free(host.data);
    fx_filter_plan_free(p);
    fx_kernel_free(k);
    fx_context_destroy(gpu);
}

GPU_TEST_MAIN(FXT_CASE(u8_batches_match_cpu), FXT_CASE(u8_sizes_match_cpu),
              FXT_CASE(thousand_images_match_cpu), FXT_CASE(u16_and_f32_batches_match_cpu),
              FXT_CASE(host_batches_on_the_gpu_match_cpu), FXT_CASE(bad_batches_are_reported))

#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
