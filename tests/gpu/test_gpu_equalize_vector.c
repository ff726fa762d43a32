/* The GPU's 8-bit fast equalization kernels (16-byte vector groups, an unaligned head
 * group and a short tail group per row segment; CLAHE's tiles counted by segments and
 * mapped with every tile's LUT in shared memory) against the CPU's bytes, on device
 * images whose rows start at every alignment: awkward sizes (1x1, 1xN, Nx1, widths
 * around multiples of 16), row starts and pitches off the 16-byte grid (input and
 * output differently), CLAHE grids that do not divide the image or are wider than it,
 * constant images and images with one bin holding almost everything, several
 * --gpu-block sizes; and large images with every 8-bit colour through one plan, run
 * after run, device and host images in turn (the one-launch pass of device images relies
 * on the launch before it to leave its histogram zeroed). A wrong byte of any group kind
 * fails a case. */
#include "gpu_common.h"

#ifdef FXKIT_HAVE_CUDA
#include "gpu/gpu_internal.h"

typedef struct shape {
    int w, h;
} shape;
static const shape shapes[] = {{1, 1},  {1, 17},  {17, 1},   {15, 3},    {16, 4},   {17, 5},
                               {33, 9}, {100, 7}, {257, 31}, {1000, 13}, {1921, 37}};
#define SHAPES (int)(sizeof shapes / sizeof *shapes)

enum content { RANDOM, CONSTANT, ONE_BIN, CONTENTS };

static void fill(fx_image *img, enum content what, uint64_t seed)
{
    const size_t n = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = fxt_rand(&seed);
            switch (what) {
            case RANDOM: row[i] = (uint8_t)(r >> 56); break;
            case CONSTANT: row[i] = 77; break;
            default: /* everything in one bin but about one pixel in 61 */
                row[i] = (uint8_t)(r % 61 == 0 ? (r >> 40) : 200);
                break;
            }
        }
    }
}

/* A device image of w x h x ch bytes inside `base` (freed by the caller), its first
 * row `offset` bytes into the allocation and `pad` bytes between rows. */
static int device_view(fx_context *gpu, fx_image *base, fx_image *view, int w, int h, int ch,
                       size_t offset, size_t pad)
{
    const size_t stride = (size_t)w * (size_t)ch + pad;
    memset(view, 0, sizeof *view);
    if (fx_image_alloc_device(gpu, base, (int)(stride + offset), h, 1, FX_U8) != FX_OK) return 0;
    view->width = w;
    view->height = h;
    view->channels = ch;
    view->type = FX_U8;
    view->stride = stride;
    view->memory = FX_MEMORY_DEVICE;
    view->data = (uint8_t *)base->data + offset;
    return 1;
}

/* One case: the CPU on a packed host copy, the GPU on device views at the offsets;
 * 1 when the bytes are the same. */
static int same_on_device(fx_context *cpu, fx_context *gpu, const fx_equalize_options *o,
                          const fx_image *host, size_t in_offset, size_t in_pad, size_t out_offset,
                          size_t out_pad)
{
    const int w = host->width, h = host->height, ch = host->channels;
    const int out_ch = fx_equalize_output_channels(o, ch);
    fx_image want = gpu_padded_image(w, h, out_ch, FX_U8, 0);
    fx_image got = gpu_padded_image(w, h, out_ch, FX_U8, 0);
    fx_image in_base = {0}, out_base = {0}, din, dout;
    int ok = device_view(gpu, &in_base, &din, w, h, ch, in_offset, in_pad);
    ok = ok && device_view(gpu, &out_base, &dout, w, h, out_ch, out_offset, out_pad);
    ok = ok && FXT_CHECK_OK(fx_equalize(cpu, o, host, &want, NULL), cpu) &&
         FXT_CHECK_OK(fx_image_upload(gpu, host, &din), gpu) &&
         FXT_CHECK_OK(fx_equalize(gpu, o, &din, &dout, NULL), gpu) &&
         FXT_CHECK_OK(fx_image_download(gpu, &dout, &got), gpu);
    if (ok && !fxt_images_equal(&got, &want)) {
        ok = 0;
        for (int y = 0, shown = 0; y < h && shown < 3; y++)
            for (int x = 0; x < w * out_ch && shown < 3; x++) {
                const uint8_t g = ((const uint8_t *)fx_image_row(&got, y))[x],
                              e = ((const uint8_t *)fx_image_row(&want, y))[x];
                if (g != e) {
                    fprintf(stderr, "    byte %d of row %d: GPU %u, CPU %u\n", x, y, g, e);
                    shown++;
                }
            }
    }
    fx_image_free(&in_base);
    fx_image_free(&out_base);
    free(want.data);
    free(got.data);
    return ok;
}

/* The layouts of the fast kernels: (space, channels, adaptive, tiles). */
typedef struct layout {
    int space, channels, adaptive;
    const char *tiles;
} layout;
static const layout layouts[] = {
    {FX_EQ_SPACE_GRAY, 1, 0, NULL},    {FX_EQ_SPACE_GRAY, 3, 0, NULL}, /* to-gray */
    {FX_EQ_SPACE_HSV, 3, 0, NULL},     {FX_EQ_SPACE_LUMA, 3, 0, NULL},
    {FX_EQ_SPACE_RGB, 3, 0, NULL},     {FX_EQ_SPACE_HSV_FLOAT, 3, 0, NULL},
    {FX_EQ_SPACE_GRAY, 1, 1, "8x8"},   {FX_EQ_SPACE_GRAY, 1, 1, "3x5"},
    {FX_EQ_SPACE_GRAY, 1, 1, "1x1"},   {FX_EQ_SPACE_GRAY, 1, 1, "13x2"},
    {FX_EQ_SPACE_HSV, 3, 1, "4x4"},    /* fast counting, general CLAHE mapping */
    {FX_EQ_SPACE_GRAY, 1, 1, "16x16"}, /* 256 tiles: LUTs beyond shared memory */
};
#define LAYOUTS (int)(sizeof layouts / sizeof *layouts)

/* Where rows start and how far apart, input and output: aligned and packed, and off
 * the 16-byte grid in several ways (the head group's length depends on it). */
static const size_t placements[][4] = {
    {0, 0, 0, 0}, {1, 0, 0, 0}, {5, 7, 3, 1}, {13, 16, 0, 9}, {0, 3, 11, 0}, {16, 32, 16, 0},
};
#define PLACEMENTS (int)(sizeof placements / sizeof *placements)

FXT_TEST(fast_kernels_match_cpu_at_every_alignment)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const int blocks[] = {0, 64, 96, 1024};
    /* Under compute-sanitizer (tests/gpu/check.sh: four tools, each launch checked) a
     * sample: every layout, every third shape, two placements, no constant images. */
    const int sampled = getenv("FXKIT_UNDER_SANITIZER") != NULL;
    int cases = 0, bad = 0;
    for (int l = 0; l < LAYOUTS; l++)
        for (int s = 0; s < SHAPES; s++)
            for (int c = 0; c < CONTENTS; c++)
                for (int pl = 0; pl < PLACEMENTS; pl++) {
                    const layout *L = &layouts[l];
                    /* Every placement on random images; the others on two. */
                    if (c != RANDOM && pl > 1) continue;
                    if (sampled && (s % 3 != 0 || c == CONSTANT || (pl != 0 && pl != 2))) continue;
                    fx_image in = gpu_padded_image(shapes[s].w, shapes[s].h, L->channels, FX_U8, 0);
                    fill(&in, (enum content)c, (uint64_t)(l * 1000 + s * 10 + c));
                    fx_equalize_options o;
                    fx_equalize_options_init(&o);
                    o.space = L->space;
                    o.adaptive = L->adaptive;
                    if (L->tiles) o.tiles = L->tiles;
                    o.clip = L->adaptive ? 2.0 : 0.0;
                    o.gpu_block = blocks[(l + s + pl) % 4];
                    const size_t *p = placements[pl];
                    cases++;
                    if (!same_on_device(cpu, gpu, &o, &in, p[0], p[1], p[2], p[3])) {
                        bad++;
                        fprintf(stderr,
                                "  %dx%dx%d space %d adaptive %d tiles %s content %d block %d "
                                "placement %d differs\n",
                                shapes[s].w, shapes[s].h, L->channels, L->space, L->adaptive,
                                L->tiles ? L->tiles : "-", c, o.gpu_block, pl);
                    }
                    free(in.data);
                }
    printf("  %d device cases, %d differ\n", cases, bad);
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Host images take the fast kernels band by band on packed rows, whose starts fall
 * anywhere on the 16-byte grid when the width is odd. */
FXT_TEST(host_images_of_odd_widths_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const shape sizes[] = {{1, 3001}, {3001, 1}, {333, 777}, {1027, 519}};
    int bad = 0;
    for (int s = 0; s < 4; s++)
        for (int l = 0; l < LAYOUTS; l++) {
            const layout *L = &layouts[l];
            fx_image in = gpu_padded_image(sizes[s].w, sizes[s].h, L->channels, FX_U8, 3);
            fill(&in, RANDOM, (uint64_t)(s * 100 + l));
            fx_equalize_options o;
            fx_equalize_options_init(&o);
            o.space = L->space;
            o.adaptive = L->adaptive;
            if (L->tiles) o.tiles = L->tiles;
            const int ch = fx_equalize_output_channels(&o, L->channels);
            fx_image want = gpu_padded_image(sizes[s].w, sizes[s].h, ch, FX_U8, 0);
            fx_image got = gpu_padded_image(sizes[s].w, sizes[s].h, ch, FX_U8, 5);
            if (!FXT_CHECK_OK(fx_equalize(cpu, &o, &in, &want, NULL), cpu) ||
                !FXT_CHECK_OK(fx_equalize(gpu, &o, &in, &got, NULL), gpu) ||
                !fxt_images_equal(&got, &want)) {
                bad++;
                fprintf(stderr, "  host %dx%dx%d space %d adaptive %d differs\n", sizes[s].w,
                        sizes[s].h, L->channels, L->space, L->adaptive);
            }
            free(want.data);
            free(got.data);
            free(in.data);
        }
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* Every 8-bit colour once (4096x4096 RGB: R, G and B from the pixel's index), so hsv's
 * integer mapping (fxi_hsv_u8_apply) meets every (channel, V) pair; twisted by `turn`
 * so a second image has other LUTs. The gray image: every level many times over. */
static void fill_every_colour(fx_image *img, unsigned turn)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = fx_image_row(img, y);
        for (int x = 0; x < img->width; x++) {
            const uint32_t i = (uint32_t)y * (uint32_t)img->width + (uint32_t)x;
            if (img->channels == 1) {
                row[x] = (uint8_t)((x * 7u + y * 3u + ((x * y) >> 9) + turn * 31u) % 256u);
                continue;
            }
            for (int c = 0; c < 3; c++)
                row[3 * x + c] = (uint8_t)((i >> (8 * c)) + turn * (37u + 50u * c));
        }
    }
}

/* Large device images through one plan, run after run: many blocks in the counting pass
 * (the last one of them computes the LUTs where that is folded in, and must leave the
 * block counter at zero for the next run), other images on the same plan (other LUTs;
 * the last run on other device buffers, which the one-launch pass's graph must take),
 * every global fast layout and --gpu-block sizes with and without the fold. Under
 * compute-sanitizer the images are 64 rows high, but 1200 with the default block: the
 * fused launch then has more units of work than blocks for hsv and luma (302 and 603
 * against 264 and 396 blocks on the H200), so its counters deal units under every tool
 * too. */
FXT_TEST(large_images_through_one_plan_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const int blocks[] = {0, 96, 512};
    const int w = 4096, tool = getenv("FXKIT_UNDER_SANITIZER") != NULL;
    int bad = 0;
    for (int l = 0; l < LAYOUTS; l++) {
        const layout *L = &layouts[l];
        if (L->adaptive) continue;
        for (int b = 0; b < 3; b++) {
            fx_equalize_options o;
            fx_equalize_options_init(&o);
            o.space = L->space;
            o.gpu_block = blocks[b];
            const int h = !tool ? 4096 : blocks[b] == 0 ? 1200 : 64;
            const int out_ch = fx_equalize_output_channels(&o, L->channels);
            fx_image in = gpu_padded_image(w, h, L->channels, FX_U8, 0);
            fx_image want = gpu_padded_image(w, h, out_ch, FX_U8, 0);
            fx_image got = gpu_padded_image(w, h, out_ch, FX_U8, 0);
            fx_image din[2] = {{0}}, dout[2] = {{0}};
            fx_equalize_plan *plan = NULL;
            const fx_image_desc desc = fx_image_desc_of(&in);
            int ok = FXT_CHECK_OK(fx_equalize_plan_create(gpu, &o, &desc, &plan), gpu);
            for (int d = 0; d < 2; d++)
                ok = ok &&
                     FXT_CHECK_OK(fx_image_alloc_device(gpu, &din[d], w, h, L->channels, FX_U8),
                                  gpu) &&
                     FXT_CHECK_OK(fx_image_alloc_device(gpu, &dout[d], w, h, out_ch, FX_U8), gpu);
            /* device, device, host, device (other buffers): the one-launch pass (device
             * images, the default block) finds its histogram zeroed by the launch before
             * it, or clears what a host image's bands left there */
            for (unsigned turn = 0; ok && turn < 4; turn++) {
                const int d = turn == 3;
                fill_every_colour(&in, turn % 2);
                ok = FXT_CHECK_OK(fx_equalize(cpu, &o, &in, &want, NULL), cpu);
                if (turn == 2)
                    ok = ok && FXT_CHECK_OK(fx_equalize_run(plan, &in, &got, NULL), gpu);
                else
                    ok = ok && FXT_CHECK_OK(fx_image_upload(gpu, &in, &din[d]), gpu) &&
                         FXT_CHECK_OK(fx_equalize_run(plan, &din[d], &dout[d], NULL), gpu) &&
                         FXT_CHECK_OK(fx_image_download(gpu, &dout[d], &got), gpu);
                if (ok && !fxt_images_equal(&got, &want)) {
                    bad++;
                    fprintf(stderr, "  %dx%dx%d space %d block %d run %u differs\n", w, h,
                            L->channels, L->space, o.gpu_block, turn);
                }
            }
            bad += !ok;
            fx_equalize_plan_free(plan);
            for (int d = 0; d < 2; d++) {
                fx_image_free(&din[d]);
                fx_image_free(&dout[d]);
            }
            free(in.data);
            free(want.data);
            free(got.data);
        }
    }
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

/* A host image in page-locked memory (the context's cudaHostAlloc), rows `pad` bytes
 * apart: the equalization copies its bands straight from and to its rows (no packing). */
static int pinned_image(fx_context *gpu, fx_image *img, int w, int h, int ch, size_t pad)
{
    memset(img, 0, sizeof *img);
    const size_t stride = (size_t)w * (size_t)ch + pad;
    void *data = NULL;
    if (fxi_pinned_alloc(gpu, stride * (size_t)h, &data) != FX_OK || !data) return 0;
    memset(data, 0xA5, stride * (size_t)h);
    img->width = w;
    img->height = h;
    img->channels = ch;
    img->type = FX_U8;
    img->stride = stride;
    img->data = data;
    return 1;
}

/* Page-locked host images (input, output or both, packed or padded rows) through every
 * layout, fast and general paths, several bands: the CPU's bytes. */
FXT_TEST(page_locked_host_images_match_cpu)
{
    fx_context *gpu = fxt_context(FX_DEVICE_GPU, 2), *cpu = fxt_context(FX_DEVICE_CPU, 2);
    static const shape sizes[] = {{333, 777}, {4099, 1100}};
    int bad = 0;
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < LAYOUTS; l++)
            for (int which = 1; which < 4; which++) { /* 1 input, 2 output, 3 both */
                const layout *L = &layouts[l];
                const int w = sizes[s].w, h = sizes[s].h;
                fx_equalize_options o;
                fx_equalize_options_init(&o);
                o.space = L->space;
                o.adaptive = L->adaptive;
                if (L->tiles) o.tiles = L->tiles;
                const int ch = fx_equalize_output_channels(&o, L->channels);
                const size_t pad = which == 3 ? (size_t)(s * 13 + 3) : 0;
                fx_image in = gpu_padded_image(w, h, L->channels, FX_U8, pad);
                fx_image got = gpu_padded_image(w, h, ch, FX_U8, pad + 1);
                fx_image want = gpu_padded_image(w, h, ch, FX_U8, 0);
                fx_image pin_in = {0}, pin_out = {0};
                fill(&in, RANDOM, (uint64_t)(s * 1000 + l * 10 + which));
                int ok = (!(which & 1) || pinned_image(gpu, &pin_in, w, h, L->channels, pad)) &&
                         (!(which & 2) || pinned_image(gpu, &pin_out, w, h, ch, pad + 1));
                if (ok && (which & 1))
                    for (int y = 0; y < h; y++)
                        memcpy(fx_image_row(&pin_in, y), fx_image_row(&in, y),
                               (size_t)w * (size_t)L->channels);
                const fx_image *src = which & 1 ? &pin_in : &in;
                fx_image *dst = which & 2 ? &pin_out : &got;
                ok = ok && FXT_CHECK_OK(fx_equalize(cpu, &o, &in, &want, NULL), cpu) &&
                     FXT_CHECK_OK(fx_equalize(gpu, &o, src, dst, NULL), gpu) &&
                     fxt_images_equal(dst, &want);
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  page-locked (%d) %dx%dx%d space %d adaptive %d differs\n",
                            which, w, h, L->channels, L->space, L->adaptive);
                }
                fxi_pinned_free(gpu, pin_in.data);
                fxi_pinned_free(gpu, pin_out.data);
                free(in.data);
                free(got.data);
                free(want.data);
            }
    FXT_CHECK_EQ(bad, 0);
    fx_context_destroy(gpu);
    fx_context_destroy(cpu);
}

GPU_TEST_MAIN(FXT_CASE(fast_kernels_match_cpu_at_every_alignment),
              FXT_CASE(page_locked_host_images_match_cpu),
              FXT_CASE(host_images_of_odd_widths_match_cpu),
              FXT_CASE(large_images_through_one_plan_match_cpu))
#else
int main(void)
{
    gpu_require();
    return 0;
}
#endif
