// Runs k_u8_box_slide (gpu_u8_box.cu, cut before its host code) on the CPU, one block at a
// time, each CUDA thread a thread of this process (__syncthreads a barrier of the block,
// __shfl_up_sync an exchange within the warp), and compares every output byte with a
// plain 2-D window sum: 1-4 channels, one image and a batch, every border, kernels 1x1 to
// 121x121 and not square, rows that fit one tile and rows of several, aligned rows and
// not, each finish (the integer rule, cv2.blur's float rule and the general one, a kept
// alpha), the edge threads loading edge rows (k_u8_box_side's, emulated too) and not.
// Built with FXI_GPU_U8_SLIDE_THREADS=64 (run_box_emu.sh), so that rows of a few hundred
// pixels already span several tiles.
#include "emu_cuda.h"
#include "gpu_u8_box_kernels.inc" /* gpu_u8_box.cu cut before its host code: run_box_emu.sh */
/* the launch geometry as the library computes it: plain C, built here too */
#include "filter/gpu_u8_geometry.c"
/* the drivers' launch arguments (after the kernels: their types) */
#include "emu_args.h"

#include <barrier>
#include <climits>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

namespace
{
/* the kernel's extern __shared__ array: one block runs at a time */
alignas(16) uint32_t smem_words[1 << 14];
} // namespace

static std::unique_ptr<std::barrier<>> block_barrier;
static std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
static uint32_t exchange[32][32];

static void block_sync()
{
    block_barrier->arrive_and_wait();
}

static uint32_t shfl_up(uint32_t v, int offset)
{
    const int w = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    exchange[w][lane] = v;
    warp_barriers[w]->arrive_and_wait();
    const uint32_t r = lane >= offset ? exchange[w][lane - offset] : v;
    warp_barriers[w]->arrive_and_wait();
    return r;
}


enum finish_case { SUM_EXACT, U32_RULE, FLOAT_RULE, ALPHA_KEPT };

template <int C, bool BATCH>
static int run_case(int64_t width, int64_t height, int kw, int kh, int border, finish_case fin,
                    bool aligned, bool side_rows)
{
    const int64_t n = width * C;
    /* rows of exactly n bytes where not aligned (then odd strides too), padded to 4 where
     * aligned; with -fsanitize=address a read past the image fails */
    const size_t stride = aligned ? (size_t)((n + 3) / 4 * 4) : (size_t)n + (n % 2 == 0);
    std::vector<uint8_t> srcv(stride * height + (aligned ? 0 : 1)), dst(stride * height, 0xA5);
    uint8_t *src = srcv.data() + (aligned ? 0 : 1); /* not aligned: rows start at odd addresses */
    const int area = kw * kh;
    for (size_t i = 0; i < stride * height; i++) /* exact sums: ones so sparse that a sum stays below 256 */
        src[i] = fin == SUM_EXACT || fin == ALPHA_KEPT || fin == U32_RULE
                     ? (emu_random() % (uint32_t)(area * 2 + 2) == 0)
                     : (uint8_t)emu_random();
    fxi_filter_args a =
        emu_u8_args(src, dst.data(), stride, width, height, C, kw, kh, kw / 2, kh / 2, border);
    a.filter_channels = fin == ALPHA_KEPT && (C == 2 || C == 4) ? C - 1 : C;
    for (int c = 0; c < 4; c++)
        a.border_value[c] = fin == FLOAT_RULE ? (double)(emu_random() & 0xFF) : (double)(c & 1);
    fxi_gpu_u8_taps tp;
    memset(&tp, 0, sizeof tp);
    tp.scale = 1;
    if (fin == FLOAT_RULE) { /* cv2.blur's rule, as taps.c makes it */
        a.finish.mode = FXI_ROUND_FLOAT_SCALE;
        a.finish.scale = 1.0 / area;
        a.finish.mul = (float)a.finish.scale;
        a.finish.scalar_from = n - n % 8;
        a.finish.maxval = 255;
    } else { /* the sum itself (below 256): S + 0 over a denominator of 1 */
        a.finish.mode = fin == U32_RULE ? FXI_ROUND_MULSHIFT : FXI_ROUND_HALF_EVEN;
        a.finish.den = 1;
        a.finish.mul = 1;
        a.finish.unit = 1;
        a.finish.maxval = 255;
        tp.int_finish = fin == U32_RULE;
        tp.mul = 1;
    }
    fxi_gpu_u8_launch g;
    const char *why = nullptr;
    if (!fxi_gpu_u8_geometry(FXI_U8_BOX_SLIDE, true, width, C, height, kw, kh, 48 << 10, INT_MAX,
                             65535, &g, &why)) {
        fprintf(stderr, "%lldx%lldx%d box %dx%d: no geometry (%s)\n", (long long)width,
                (long long)height, C, kw, kh, why ? why : "?");
        return 1;
    }
    fxi_gpu_u8_slide_strips(&g, height, (width + height) % 5, 65535); /* short strips too */
    const fxi_gpu_u8_image image = {src, dst.data(), stride, stride};
    if (BATCH) {
        a.src = nullptr;
        a.dst = nullptr;
    }
    /* the edge rows (where they fit), filled as k_u8_box_side's launch does */
    if (side_rows) fxi_gpu_u8_slide_side(&g, width, C, kw, a.ax);
    std::vector<uint8_t> side(g.work_bytes, 0xCD);
    if (g.work_bytes) {
        const unsigned words = (unsigned)(g.work_stride / 4);
        blockDim = dim3(128, 1, 1);
        gridDim = dim3((words + 127) / 128, 1, 1);
        for (unsigned bx = 0; bx < gridDim.x; bx++)
            for (unsigned tx = 0; tx < 128; tx++) {
                threadIdx = uint3{tx, 0, 0};
                blockIdx = uint3{bx, 0, 0};
                k_u8_box_side<BATCH>(a, g, BATCH ? &image : nullptr, side.data());
            }
    }
    blockDim = dim3((unsigned)g.tile_w, 1, 1);
    gridDim = dim3((unsigned)g.grid_x, (unsigned)g.grid_y, 1);
    emu_barrier_hook = block_sync;
    emu_shfl_up_hook = shfl_up;
    for (unsigned by = 0; by < gridDim.y; by++)
        for (unsigned bx = 0; bx < gridDim.x; bx++) {
            block_barrier = std::make_unique<std::barrier<>>(g.tile_w);
            warp_barriers.clear();
            for (int w = 0; w < g.tile_w / 32; w++)
                warp_barriers.push_back(std::make_unique<std::barrier<>>(32));
            memset(smem_words, 0xCD, g.shared_bytes); /* what the kernel reads, it wrote */
            std::vector<std::thread> threads;
            for (int tx = 0; tx < g.tile_w; tx++)
                threads.emplace_back([&, tx] {
                    threadIdx = uint3{(unsigned)tx, 0, 0};
                    blockIdx = uint3{bx, by, 0};
                    k_u8_box_slide<C, BATCH>(a, g, tp, BATCH ? &image : nullptr, aligned,
                                             g.work_bytes ? side.data() : nullptr);
                });
            for (auto &t : threads)
                t.join();
        }
    int bad = 0;
    for (int64_t y = 0; y < height; y++)
        for (int64_t e = 0; e < (int64_t)stride; e++) {
            const uint8_t got = dst[y * stride + e];
            if (e >= n) { /* padding untouched */
                bad += got != 0xA5;
                continue;
            }
            const int64_t x = e / C;
            const int c = (int)(e % C);
            uint32_t s = 0;
            for (int i = 0; i < kh; i++)
                for (int j = 0; j < kw; j++) {
                    const int64_t yy = fxi_border_index(y - kh / 2 + i, height, border);
                    const int64_t xx = fxi_border_index(x - kw / 2 + j, width, border);
                    s += yy < 0 || xx < 0 ? (uint32_t)a.border_value[c] : src[yy * stride + xx * C + c];
                }
            const uint32_t want = c >= a.filter_channels ? src[y * stride + e]
                                                         : (uint32_t)fxi_finish_exact_at(&a.finish, s, e);
            if (got != want) {
                if (bad < 3)
                    fprintf(stderr,
                            "%lldx%lldx%d box %dx%d border %d finish %d aligned %d batch %d: (%lld, "
                            "%lld) %u want %u\n",
                            (long long)width, (long long)height, C, kw, kh, border, (int)fin, aligned,
                            BATCH, (long long)y, (long long)e, got, want);
                bad++;
            }
        }
    return bad;
}

template <int C, bool BATCH> static int run_all()
{
    static const int64_t widths[] = {1, 3, 37, 150, 333};
    static const int64_t heights[] = {1, 4, 45};
    static const int ks[][2] = {{1, 1}, {7, 7}, {3, 9}, {30, 5}, {121, 121}};
    int bad = 0, cases = 0;
    for (int64_t w : widths)
        for (int64_t h : heights)
            for (const auto &k : ks) {
                if (k[0] * k[1] > 1000 && w * h > 2000) continue; /* the reference's time */
                const int border = (int)((w + h + k[0]) % 5);
                const finish_case fin = (finish_case)((w + h * 3 + k[1]) % 4);
                bad += run_case<C, BATCH>(w, h, k[0], k[1], border, fin, (w + h) % 3 != 0,
                                          (w + k[0]) % 2 == 1) != 0;
                cases++;
            }
    printf("C %d batch %d: %d cases, %d bad\n", C, BATCH, cases, bad);
    return bad;
}

int main()
{
    int bad = run_all<1, false>() + run_all<2, false>() + run_all<3, false>() + run_all<4, false>() +
              run_all<3, true>() + run_all<4, true>();
    printf("%s\n", bad ? "FAIL" : "all match");
    return bad != 0;
}
