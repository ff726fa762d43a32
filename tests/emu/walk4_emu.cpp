// Runs k_u8_walk4 (gpu_u8.cu, cut before its host code) thread by thread on the CPU and
// compares every output byte with a plain 2-D reference: every K, C, box/weighted (and the
// 1 : 2 : 1 walk of 3x3 taps in those ratios, gaussian:3's, from taps 64 : 128 : 64),
// border, anchor, and awkward widths/heights (edges, partial last thread, several tiles),
// and for 3x3 threads of 4 and of 8 elements (FXI_GPU_U8_WALK3_ELEMENTS) whichever the
// build's, with the edge elements walked by edge blocks and by the edge threads
// (fxi_gpu_u8_launch.walk_edge_blocks 1 and 0).
#include "emu_cuda.h"
#include "gpu_u8_kernels.inc" /* gpu_u8.cu cut before its host code: run_walk4_emu.sh */
/* the launch geometry (block width) as the library computes it: plain C, built here too */
#include "filter/gpu_u8_geometry.c"
/* the drivers' launch arguments (after the kernels: their types) */
#include "emu_args.h"

#include <climits>
#include <cstdio>
#include <vector>


/* One image through k_u8_walk4<K, C, TAPS, BATCH, E>: E elements a thread, the build's
 * (FXI_GPU_U8_WALK_ELEMENTS) or for 3x3 the other (4 or 8), launched as the library
 * built with FXI_GPU_U8_WALK3_ELEMENTS = E would launch it. */
template <int K, int C, int TAPS, bool BATCH, int E>
static int run_case(int64_t width, int64_t height, int border, int ax, int ay, int tile_h,
                    int edge_blocks, int64_t strips = 2)
{
    const int64_t n = width * C;
    const size_t stride = (size_t)((n + 3) / 4 * 4);
    /* exactly the image: with EMU_CFLAGS=-fsanitize=address (ctest) a read past it fails */
    std::vector<uint32_t> srcw(stride * height / 4), dstw(stride * height / 4, 0xA5A5A5A5u);
    uint8_t *src = reinterpret_cast<uint8_t *>(srcw.data()),
            *dst = reinterpret_cast<uint8_t *>(dstw.data());
    for (size_t i = 0; i < stride * height; i++)
        src[i] = (uint8_t)emu_random();
    /* weighted 3x3: uneven taps (an anchor or a side mixed up shows), not in 1 : 2 : 1 */
    static const float t3[3] = {1, 3, 2}, t121[3] = {1, 2, 1}, t5[5] = {1, 4, 6, 4, 1};
    fxi_filter_args a = emu_u8_args(src, dst, stride, width, height, C, K, K, ax, ay, border);
    for (int c = 0; c < 4; c++)
        a.border_value[c] = (double)(emu_random() & 0xFF);
    fxi_gpu_u8_taps tp;
    memset(&tp, 0, sizeof tp);
    constexpr bool BOX = TAPS == WALK_BOX;
    /* WALK_121: gaussian:3's taps as the plan has them (64 : 128 : 64 each way) */
    const float unit = TAPS == WALK_121 ? 64.f : 1.f;
    for (int j = 0; j < K; j++)
        tp.row[j] = tp.col[j] = BOX                ? 1.f
                                : TAPS == WALK_121 ? unit * t121[j]
                                                   : (K == 3 ? t3[j] : t5[j]);
    /* about S / den, so that outputs rarely saturate (every byte tells) */
    uint32_t den = 0;
    for (int j = 0; j < K; j++)
        den += (uint32_t)tp.row[j];
    den *= den;
    tp.scale = 1;
    tp.int_finish = 1;
    tp.add = den / 2;
    tp.mul = (65536 + den - 1) / den;
    tp.shift = 16;
    if (TAPS == WALK_121) { /* OpenCV's finish of gaussian:3: (S + 2^15) >> 16 */
        tp.add = 1u << 15;
        tp.mul = 1;
    }
    tp.pair_row_sums = 1;
    /* the plan's test for the 1 : 2 : 1 walk, which must take these taps and no others */
    fxi_gpu_u8_taps_binomial3(&tp, K, K);
    if (tp.binomial3 != (TAPS == WALK_121)) {
        fprintf(stderr, "K %d taps %d: binomial3 %d\n", K, TAPS, tp.binomial3);
        return 1;
    }
    fxi_gpu_u8_launch g;
    const char *why = nullptr;
    if (!fxi_gpu_u8_geometry(FXI_U8_FUSED, BOX, width, C, height, K, K, 1 << 20, INT_MAX, 65535,
                             &g, &why) ||
        !g.walk) {
        fprintf(stderr, "K %d C %d %lldx%lld: no walk geometry (%s)\n", K, C, (long long)width,
                (long long)height, why ? why : "not a walk");
        return 1;
    }
    g.tile_h = tile_h; /* the library's block width, the test's tile heights */
    g.tiles_y = (height + tile_h - 1) / tile_h;
    g.grid_y = std::min<int64_t>(g.tiles_y, strips); /* the tile loop's stride too */
    /* BATCH: the rows come from the table (image 0), the args' are not to be read */
    const fxi_gpu_u8_image image = {src, dst, stride, stride};
    if (BATCH) {
        a.src = nullptr;
        a.dst = nullptr;
    }
    /* fxi_filter_launch_u8's grid and kernel: the geometry's walk_elements a thread, which
     * its conditions (walk4_fits) require to be the kernel's */
    if (E == FXI_GPU_U8_WALK_ELEMENTS(K) && g.walk_elements != E) {
        fprintf(stderr, "K %d: the geometry's %d elements a thread, the kernel's %d\n", K,
                g.walk_elements, E);
        return 1;
    }
    if (E != FXI_GPU_U8_WALK_ELEMENTS(K)) size_walk4(&g, n, E); /* the other build's geometry */
    g.walk_edge_blocks = edge_blocks; /* both ways the kernel can take its edges */
    blockDim = dim3((unsigned)g.tile_w, 1, 1);
    gridDim = dim3((unsigned)(g.walk_grid_x + g.walk_edge_blocks), (unsigned)g.grid_y, 1);
    for (unsigned by = 0; by < gridDim.y; by++)
        for (unsigned bx = 0; bx < gridDim.x; bx++)
            for (unsigned tx = 0; tx < blockDim.x; tx++) {
                blockIdx.x = bx;
                blockIdx.y = by;
                blockIdx.z = 0;
                threadIdx.x = tx;
                threadIdx.y = threadIdx.z = 0;
                k_u8_walk4<K, C, TAPS, BATCH, E>(a, g, tp, BATCH ? &image : nullptr);
            }
    int bad = 0;
    for (int64_t y = 0; y < height; y++)
        for (int64_t e = 0; e < (int64_t)stride; e++) {
            const uint8_t got = dst[y * stride + e];
            if (e >= n) {
                if (got != 0xA5) bad++;
                continue;
            } /* padding untouched */
            const int64_t x = e / C;
            const int c = (int)(e % C);
            uint32_t s = 0;
            for (int i = 0; i < K; i++)
                for (int j = 0; j < K; j++) {
                    const int64_t yy = fxi_border_index(y - ay + i, height, border);
                    const int64_t xx = fxi_border_index(x - ax + j, width, border);
                    const uint32_t v = yy < 0 || xx < 0 ? (uint32_t)a.border_value[c]
                                                        : src[yy * stride + xx * C + c];
                    s += (uint32_t)tp.col[i] * (uint32_t)tp.row[j] * v;
                }
            const uint32_t want = std::min<uint32_t>(255u, ((s + tp.add) * tp.mul) >> tp.shift);
            if (got != want) {
                if (bad < 3)
                    fprintf(stderr,
                            "K %d C %d taps %d %lldx%lld border %d anchor %d,%d edge blocks "
                            "%d: (%lld, %lld) %u want %u\n",
                            K, C, TAPS, (long long)width, (long long)height, border, ax, ay,
                            edge_blocks, (long long)y, (long long)e, got, want);
                bad++;
            }
        }
    return bad;
}

template <int K, int C, int TAPS, bool BATCH, int E> static int run_all_of();
/* 3x3: both element counts a thread (FXI_GPU_U8_WALK3_ELEMENTS 4 and 8), whichever the
 * build's; 5x5: 4 */
template <int K, int C, int TAPS> static int run_all()
{
    int bad = run_all_of<K, C, TAPS, false, 4>() + run_all_of<K, C, TAPS, true, 4>();
    if constexpr (K == 3)
        bad += run_all_of<K, C, TAPS, false, 8>() + run_all_of<K, C, TAPS, true, 8>();
    return bad;
}

template <int K, int C, int TAPS, bool BATCH, int E> static int run_all_of()
{
    static const int64_t widths[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 37, 40, 255, 256, 257, 300, 1030};
    static const int64_t heights[] = {1, 2, 3, 7, 11};
    int bad = 0, cases = 0;
    for (int64_t w : widths)
        for (int64_t h : heights)
            for (int border = 0; border < 5; border++)
                for (int ax = 0; ax < K; ax++) {
                    const int ay = (ax + (int)h) % K;
                    for (int edge_blocks = 0; edge_blocks < 2; edge_blocks++) {
                        bad += run_case<K, C, TAPS, BATCH, E>(w, h, border, ax, ay,
                                                             h > 3 ? 4 : 64, edge_blocks) != 0;
                        cases++;
                    }
                }
    /* many strips: more than an edge block's lanes take (blockDim / groups), so that
     * several edge blocks of a grid column work and the others leave, with strips of one
     * tile and of several (the tile loop) */
    static const int64_t tall_widths[] = {5, 40, 257};
    for (int64_t w : tall_widths)
        for (int64_t strips : {int64_t{7}, int64_t{1000}})
            for (int border = 0; border < 5; border += 2) {
                bad += run_case<K, C, TAPS, BATCH, E>(w, 300, border, K / 2, K / 2, 1, 1,
                                                     strips) != 0;
                cases++;
            }
    printf("K %d C %d taps %s batch %d, %d elements a thread%s: %d cases, %d bad\n", K, C,
           TAPS == WALK_BOX ? "box" : TAPS == WALK_121 ? "1:2:1" : "weighted",
           BATCH, E, E == FXI_GPU_U8_WALK_ELEMENTS(K) ? " (the build's)" : "", cases, bad);
    return bad;
}

int main()
{
    int bad = 0;
    bad += run_all<3, 1, WALK_WEIGHTED>() + run_all<3, 2, WALK_WEIGHTED>() +
           run_all<3, 3, WALK_WEIGHTED>() + run_all<3, 4, WALK_WEIGHTED>();
    bad += run_all<3, 1, WALK_BOX>() + run_all<3, 2, WALK_BOX>() + run_all<3, 3, WALK_BOX>() +
           run_all<3, 4, WALK_BOX>();
    bad += run_all<3, 1, WALK_121>() + run_all<3, 2, WALK_121>() + run_all<3, 3, WALK_121>() +
           run_all<3, 4, WALK_121>();
    bad += run_all<5, 1, WALK_WEIGHTED>() + run_all<5, 2, WALK_WEIGHTED>() +
           run_all<5, 3, WALK_WEIGHTED>() + run_all<5, 4, WALK_WEIGHTED>();
    bad += run_all<5, 1, WALK_BOX>() + run_all<5, 2, WALK_BOX>() + run_all<5, 3, WALK_BOX>() +
           run_all<5, 4, WALK_BOX>();
    printf("%s\n", bad ? "FAIL" : "all match");
    return bad != 0;
}
