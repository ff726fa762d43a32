// Runs k_u8_rows_dp4a (gpu_u8.cu, cut before its host code: the two-pass rows in byte dot
// products) on the CPU, one block at a time, each CUDA thread (tx, channel) a thread of
// this process (__syncthreads a barrier of the block), and compares every value of the
// intermediate it writes (uint16 row sums of every virtual row) with a plain row filter:
// 1-4 channels, one image and a batch, every border, anchors at both ends and the centre,
// kernels 1 to 255 taps wide (taps 0 .. 255, their sum at most 257 as the fast path
// requires), widths from 1 pixel to several blocks. Built with FXI_GPU_U8_ROW_TX=8
// (run_rows_emu.sh), so that short rows span several blocks.
#include "emu_cuda.h"
#include "gpu_u8_kernels.inc" /* gpu_u8.cu cut before its host code: run_rows_emu.sh */
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
alignas(16) unsigned char smem[1 << 16];
} // namespace

static std::unique_ptr<std::barrier<>> block_barrier;

static void block_sync()
{
    block_barrier->arrive_and_wait();
}

template <bool BATCH>
static int run_case(int64_t width, int64_t height, int C, int kw, int ax, int border)
{
    const int64_t n = width * C;
    const size_t stride = (size_t)n + 1; /* rows at odd offsets: the kernel reads bytes */
    std::vector<uint8_t> src(stride * height);
    for (auto &b : src)
        b = (uint8_t)emu_random();
    fxi_gpu_u8_taps tp;
    memset(&tp, 0, sizeof tp);
    int sum = 0;
    for (int j = 0; j < kw; j++) { /* whole taps below 256, summing to at most 257 */
        const int room = 257 - sum - (kw - 1 - j);
        const int most = room < 255 ? room : 255;
        tp.row[j] = (float)(most > 0 ? (int)(emu_random() % (uint32_t)(most + 1)) : 0);
        sum += (int)tp.row[j];
    }
    tp.row_bytes = 1;
    /* the rows pass alone: any kh, here 3 (virtual rows -1 .. height) */
    fxi_filter_args a =
        emu_u8_args(src.data(), nullptr, stride, width, height, C, kw, 3, ax, 1, border);
    for (int c = 0; c < 4; c++)
        a.border_value[c] = (double)(emu_random() & 0xFF);
    fxi_gpu_u8_launch g;
    const char *why = nullptr;
    if (!fxi_gpu_u8_geometry(FXI_U8_TWO_PASS, false, width, C, height, kw, 3, 48 << 10, INT_MAX,
                             65535, &g, &why)) {
        fprintf(stderr, "%lldx%lldx%d row taps %d: no geometry (%s)\n", (long long)width,
                (long long)height, C, kw, why ? why : "?");
        return 1;
    }
    std::vector<uint16_t> work(g.work_bytes / 2, 0xBEEF);
    const fxi_gpu_u8_image image = {src.data(), nullptr, (int64_t)stride, 0};
    if (BATCH) a.src = nullptr;
    blockDim = dim3((unsigned)g.row_tx, (unsigned)C, 1);
    gridDim = dim3((unsigned)g.row_grid_x, 2, 1); /* rows strided by the grid */
    emu_barrier_hook = block_sync;
    for (unsigned by = 0; by < gridDim.y; by++)
        for (unsigned bx = 0; bx < gridDim.x; bx++) {
            block_barrier = std::make_unique<std::barrier<>>(g.row_tx * C);
            memset(smem, 0xCD, sizeof smem); /* what the kernel reads, it wrote */
            std::vector<std::thread> threads;
            for (int c = 0; c < C; c++)
                for (int tx = 0; tx < g.row_tx; tx++)
                    threads.emplace_back([&, tx, c] {
                        threadIdx = uint3{(unsigned)tx, (unsigned)c, 0};
                        blockIdx = uint3{bx, by, 0};
                        k_u8_rows_dp4a<BATCH>(a, g, tp, work.data(), BATCH ? &image : nullptr);
                    });
            for (auto &t : threads)
                t.join();
        }
    int bad = 0;
    const int64_t ws = (int64_t)(g.work_stride / 2);
    for (int64_t v = 0; v < g.vrows; v++) {
        const int64_t y = fxi_border_index(v - 1, height, border);
        for (int64_t e = 0; e < n; e++) {
            const int64_t x = e / C;
            const int c = (int)(e % C);
            uint32_t want = 0;
            for (int j = 0; j < kw; j++) {
                const int64_t xx = fxi_border_index(x - ax + j, width, border);
                want += (uint32_t)tp.row[j] * (y < 0 || xx < 0 ? (uint32_t)a.border_value[c]
                                                               : src[y * stride + xx * C + c]);
            }
            const uint16_t got = work[v * ws + e];
            if (got != want) {
                if (bad < 3)
                    fprintf(stderr,
                            "%lldx%lldx%d row taps %d anchor %d border %d batch %d: row %lld "
                            "element %lld: %u, want %u\n",
                            (long long)width, (long long)height, C, kw, ax, border, BATCH,
                            (long long)v, (long long)e, got, want);
                bad++;
            }
        }
    }
    return bad;
}

int main()
{
    static const int64_t widths[] = {1, 5, 37, 150};
    static const int ks[] = {1, 2, 3, 7, 30, 121, 255};
    int bad = 0, cases = 0;
    for (int C = 1; C <= 4; C++)
        for (int64_t w : widths)
            for (int k : ks)
                for (int anchor = 0; anchor < 3; anchor++) {
                    const int ax = anchor == 0 ? k / 2 : anchor == 1 ? 0 : k - 1;
                    const int border = (int)((w + k + anchor + C) % 5);
                    const int b = (w + k + anchor) % 2 ? run_case<true>(w, 3, C, k, ax, border)
                                                       : run_case<false>(w, 3, C, k, ax, border);
                    bad += b != 0;
                    cases++;
                }
    printf("%d cases, %d bad\n%s\n", cases, bad, bad ? "FAIL" : "all match");
    return bad != 0;
}
