/* The equalize job's performance knobs, in one place: chunk sizes of the CPU passes,
 * the GPU's block and grid sizes and its host-image staging, each with the
 * measurement that chose it or, where none was recorded, what it trades off ("not
 * measured"). Changing one changes speed, never the output bytes: the constants that
 * define the arithmetic (bins, levels, OpenCV's fixed-point colour factors in
 * equalize_math.h) stay beside the code they define. Plain #defines, usable from C
 * and CUDA; those still to be swept on the GPU may be set from the build (e.g.
 * -DCMAKE_C_FLAGS=-DFXI_EQ_STAGE_SLOTS=8 -DCMAKE_CUDA_FLAGS=-DFXI_EQ_STAGE_SLOTS=8). The GPU plumbing shared by every job is in src/gpu/gpu_tuning.h. */
#ifndef FXKIT_EQUALIZE_TUNING_H
#define FXKIT_EQUALIZE_TUNING_H

#include <stddef.h>

/* ---- CPU (histogram.c, global.c, clahe.c, fast_u8.c, clahe_u8.c) ---- */

/* Rows per chunk handed to a thread by the counting pass, the mapping pass and
 * CLAHE's interpolation: larger chunks cost less scheduling, smaller ones balance
 * the threads on short images. Not measured. */
#define FXI_EQ_HIST_ROWS_PER_CHUNK 16
#define FXI_EQ_APPLY_ROWS_PER_CHUNK 8
#define FXI_EQ_INTERP_ROWS_PER_CHUNK 4
/* Histograms per thread in the CPU's counting loops (a power of two): consecutive
 * pixels count into different copies, so equal neighbours do not serialise on one
 * counter. More copies cost more cache and a longer merge. Not measured against
 * other counts. */
#define FXI_EQ_SUB_HISTS 4

/* ---- GPU (gpu_cuda.c, geometry.c, gpu_kernels.cu) ---- */

/* Threads per block unless --gpu-block says otherwise: 8 warps. Not measured against
 * other sizes here (docs/BENCHMARKS.md has the --gpu-block sweep of
 * bench/gpu_jobs_bench.c). */
#define FXI_EQ_GPU_DEFAULT_BLOCK 256
/* The 8-bit fast GPU passes: a thread steps over 16 pixels (FXI_EQ_VECTOR_PIXELS in
 * equalize_internal.h, one 16-byte load of gray), and the grid provides for
 * FXI_EQ_FAST_THREADS_PER_SM threads an SM (an SM's maximum on sm_80 and sm_90: enough
 * loads in flight to run at memory bandwidth whatever --gpu-block is; eight 256-thread
 * blocks, and the rgb histogram's 24 KiB of shared memory times eight still fits). */
#define FXI_EQ_FAST_THREADS_PER_SM 2048u
/* Tried and reverted (r39-r40, H200, 10000x6000): the mapping pass's bytes taken and set
 * by byte permutes, hsv's channel as the top byte of one multiply-add: eq_map_u8<hsv>
 * ran 12 instructions a pixel instead of 21 and fewer registers, so 8 blocks an SM fit
 * instead of 4, and it ran slower (hsv 0.205-0.214 against 0.178-0.180 ms; Nsight
 * Compute: DRAM 55-59% of peak against 70%). Held to 4 blocks an SM it took 0.178-0.179
 * again, no gain, and gray1 and CLAHE then lost 5%. Also tried (r44): the next thread
 * step's words loaded while this one maps, two items' loads in flight a thread: hsv
 * 0.33 ms, its mapping kernel 0.245 against 0.101 ms (DRAM 48% of peak). */
/* CLAHE's fast 8-bit gray mapping keeps every tile's LUT in shared memory as bytes
 * (256 a tile): up to this many bytes (192 tiles; 8x8 takes 16 KiB). Larger grids take
 * the general mapping, which reads the LUTs from global memory. 48 KiB is what every
 * GPU gives a block without opting in; not measured against other sizes. */
#define FXI_EQ_GPU_CLAHE_LUT_SHARED_BYTES ((size_t)48 * 1024)
/* Shared memory a histogram block may use; more bins go straight to global memory.
 * Not measured against other sizes (48 KiB is what every GPU gives a block without
 * opting in). */
#define FXI_EQ_GPU_SHARED_HISTOGRAM_BYTES ((size_t)48 * 1024)
/* Blocks per multiprocessor for the histogram and mapping passes: enough resident
 * warps to hide memory latency. Not measured against other counts. */
#define FXI_EQ_GPU_BLOCKS_PER_SM 4
/* The 8-bit fast histogram of rgb (and of every mode with LANE_COLUMNS 0) counts into
 * this many shared copies (which one: SUB_HIST_BY_LANE). Measured on the H200 (r37,
 * 10000x6000, LANE_COLUMNS 0): 4 copies against 8, gray1 0.116/0.117 against
 * 0.114/0.116 ms, hsv 0.198/0.195 against 0.196/0.197: the same. 16 do not fit rgb's
 * three planes in 48 KiB. */
#ifndef FXI_EQ_GPU_FAST_SUB_HISTS
#define FXI_EQ_GPU_FAST_SUB_HISTS 8
#endif
/* Which copy a thread counts into: 1, lane % copies (each copy padded a bank further,
 * so lanes of one warp counting the same key -- neighbouring 16-pixel groups of a
 * photo -- hit different addresses and banks); 0, warp % copies (the earlier rule: a
 * warp's 32 lanes in one copy). Measured on the H200 (r37, LANE_COLUMNS 0): 0 against
 * 1, gray1 0.116/0.118 against 0.114/0.116 ms: the same. */
#ifndef FXI_EQ_GPU_FAST_SUB_HIST_BY_LANE
#define FXI_EQ_GPU_FAST_SUB_HIST_BY_LANE 1
#endif
/* One-plane modes (gray, to-gray, hsv, luma, hsv-float) count into a column of 256
 * 32-bit counters per lane (32 KiB a block; gpu_kernels.cu's hist_layout): a warp's
 * shared atomics never conflict, so each key adds on its own, with no branch (0 takes
 * the sub-histograms above instead, which merge runs of equal keys). Measured on the
 * H200, 10000x6000: while both merged runs, 0 and 1 were the same (r37, gray1 0.114-0.117
 * ms); counting without the runs' branches, with the blocks' equal slices
 * (fxi_eq_fast_hist_geometry), took gray1 from 0.117 to 0.088 ms and hsv from 0.201 to
 * 0.181 (r38, both changes together; the counting kernel 0.096 -> 0.054 ms under Nsight
 * Compute: it had run 23 instructions a pixel). */
#ifndef FXI_EQ_GPU_FAST_LANE_COLUMNS
#define FXI_EQ_GPU_FAST_LANE_COLUMNS 1
#endif
/* Tried and not kept (r80-r82, H200, 10000x6000): global equalization of a device image
 * in one cooperative launch (count, a grid-wide barrier, every block the LUTs into its
 * shared memory, then the map over the same thread steps, two of each thread's groups
 * kept in shared memory and the rest mapped newest first, while the count's last reads
 * may be in L2). A standalone hsv prototype took 0.157-0.163 ms against the library's
 * 0.178-0.181 (read floor 0.047, device copy 0.093); in the library, with the general
 * group and LUT code, hsv took 0.174-0.175 against 0.178-0.180, but gray1 0.097-0.100
 * against 0.087-0.090, rgb 0.30 against 0.25 and hsv-float 0.70 against 0.67 (each
 * block's LUT, hsv-float's one-thread loop above all). No variant reached 0.15; L2 kept
 * little of the count's reads for the map (reverse order, streaming hints: within 3%).
 * The one launch kept since (below) differs: first (r132-r140) thread steps interleaved
 * over the whole grid instead of a slice a block, 768 threads an SM, every block its own
 * LUT by warp scans, no memset between launches; then (r145-r156) units of work dealt to
 * the blocks from counters. */
/* Device images, global equalization of gray, hsv and luma on the fast path: one launch
 * (gpu_kernels.cu's eq_fused_u8: count, a grid-wide barrier, every block its own LUT, the
 * map newest first) where the GPU launches cooperatively. A bit a mode
 * (FXI_EQ_MODE_BIT); 0 runs the two launches below everywhere. Measured on the H200,
 * 10000x6000, gpu_jobs_bench's device ms, three rounds in turn with the two launches
 * (r138, r140, fixed interleaved shares): hsv 0.153-0.158 against 0.179-0.185, gray1
 * 0.078-0.081 against 0.089-0.093, luma 0.201-0.205 against 0.207-0.215; a 64x64 image
 * 0.015-0.017 against 0.025-0.033. Tried there and not kept: the map's stores streaming
 * (st.global.cs, hsv 0.161) or its loads last-use (ld.global.lu, 0.176); cooperative
 * groups' grid sync instead of grid_barrier (0.156-0.157, the same); the last block
 * computing the LUT while the others wait (0.167, r136). */
#ifndef FXI_EQ_GPU_FUSED_MODES
#define FXI_EQ_GPU_FUSED_MODES                                                                     \
    (FXI_EQ_MODE_BIT(FXI_EQ_MODE_GRAY) | FXI_EQ_MODE_BIT(FXI_EQ_MODE_HSV) |                        \
     FXI_EQ_MODE_BIT(FXI_EQ_MODE_LUMA))
#endif
/* Threads an SM of the fused launch (the grid: at most this many, as the launch bounds
 * let them be resident), and the launch bounds of gray's and luma's blocks (256
 * threads, registers for 3 of them an SM). Measured in the r135 prototype, hsv, three
 * rounds (ms): 768 threads an SM 0.143-0.147 (3 x 256 0.1433-0.1437, 2 x 384
 * 0.1437-0.1447, 1 x 768 0.1452-0.1466); 1024 (2 x 512) 0.153-0.155; 1024 as 4 x 256
 * 0.154-0.158. Keeping each thread's first one to three steps in shared memory for the
 * map (fewer reads) was slower: 0.147-0.153. */
#ifndef FXI_EQ_GPU_FUSED_THREADS_PER_SM
#define FXI_EQ_GPU_FUSED_THREADS_PER_SM 768u
#endif
#ifndef FXI_EQ_GPU_FUSED_MIN_BLOCKS
#define FXI_EQ_GPU_FUSED_MIN_BLOCKS 3
#endif
/* The fused launch's units of work (gpu_kernels.cu's deal): the bytes of the image a
 * thread loads at once for each unit dealt to its block, 96 for gray and luma (6 steps
 * of 16 gray pixels, 2 of RGB); hsv's count and map, and hsv's blocks an SM (2 x 256
 * threads: 128 registers a thread, where 3 left its map spilling). Measured on the H200,
 * 10000x6000, device ms, in turn with the fixed interleaved shares of r138 ("before"):
 * - r144 (globaltimer in every block): with fixed shares the blocks ended their count
 *   7 us apart and their map 20 us apart;
 * - r145: a unit a warp (64 steps) from one counter: hsv 0.266, gray1 0.130 (the
 *   counter's atomics);
 * - r146: a unit a block, 2 steps a thread: hsv 0.153-0.155 against 0.155-0.156,
 *   gray1 0.083 against 0.078 (its units too small);
 * - r147-r148: with 3 blocks an SM, loading the map's first unit (the oldest) before the
 *   barrier spilled: hsv 0.178-0.182; 2 blocks an SM 0.159-0.162;
 * - r149: all of a unit's loads in flight, per mode: gray at 3 blocks x 96 bytes 0.070-
 *   0.071 against 0.076-0.077; hsv at 2 blocks x 144 0.150-0.154 (x 96 0.159-0.161,
 *   x 192 0.153-0.154) against 0.153;
 * - r150: the next unit taken after the current one's loads; loading the map's first
 *   unit while the tables are built: 0.150-0.153, without 0.150-0.152 (not kept); hsv x
 *   192 0.153-0.154, x 240 0.156-0.159;
 * - r151: hsv's count x 192 and map x 144: 0.150-0.151; count x 144 0.150-0.154, x 96
 *   0.155-0.157; before 0.153-0.156;
 * - r156 (the build kept): hsv 0.149-0.151 against 0.154-0.155, gray1 0.072-0.074
 *   against 0.077-0.079, luma 0.198-0.199 against 0.201-0.203;
 * - r159-r164, not kept, against 0.148-0.151: the loads staged in shared memory by
 *   cp.async (every mode 3 blocks an SM, no spills) 0.166-0.228; L2 evict_last hints
 *   on the count's newest 16-48 MiB 0.151-0.154; hsv 3 blocks with a map of 48 bytes
 *   0.150-0.152; each pass's last 8-48 MiB in units of one step 0.150-0.161. */
#ifndef FXI_EQ_GPU_FUSED_DEAL_BYTES
#define FXI_EQ_GPU_FUSED_DEAL_BYTES 96
#endif
#ifndef FXI_EQ_GPU_FUSED_HSV_COUNT_BYTES
#define FXI_EQ_GPU_FUSED_HSV_COUNT_BYTES 192
#endif
#ifndef FXI_EQ_GPU_FUSED_HSV_MAP_BYTES
#define FXI_EQ_GPU_FUSED_HSV_MAP_BYTES 144
#endif
#ifndef FXI_EQ_GPU_FUSED_HSV_MIN_BLOCKS
#define FXI_EQ_GPU_FUSED_HSV_MIN_BLOCKS 2
#endif
/* Device images, global equalization on the fast path: the last block of the counting
 * pass computes the LUTs (eq_lut measured 0.012-0.019 ms as a launch of its own on the
 * H200, mostly launch latency). 0 launches eq_lut as before. Measured on the H200 (r37,
 * before the branch-free counting): 0 against 1, gray1 0.112/0.114 against 0.117/0.116
 * ms, hsv 0.199/0.199 against 0.200/0.203: within noise. */
#ifndef FXI_EQ_GPU_FOLD_LUT
#define FXI_EQ_GPU_FOLD_LUT 1
#endif
/* Blocks of the folding counting pass resident an SM (its __launch_bounds__, blocks of
 * at most 256 threads: 6 caps its registers at 40, as many as the plain pass uses for
 * gray, and 6 blocks of its 32 KiB of lane columns fit an SM's shared memory). Measured
 * on the H200 (r37): 4 against 6, gray1 0.119/0.123 against 0.117/0.116 ms. */
#ifndef FXI_EQ_GPU_FOLD_MIN_BLOCKS
#define FXI_EQ_GPU_FOLD_MIN_BLOCKS 6
#endif
/* Host images cross in row bands through pinned staging (from the context's pinned
 * pool): FXI_EQ_STAGE_SLOTS bands in flight, each on its own stream, of at most
 * FXI_EQ_STAGE_BAND_BYTES. Measured on the H200 (docs/BENCHMARKS.md, "equalize on
 * the GPU", 10000x6000 RGB): 8 MiB bands on 4 streams gave hsv host to host 7.43 ms,
 * against 6.5 ms for the two transfers alone at 55 GB/s; a restructured staging (one
 * pinned block, one banded path) measured 9.75 ms and was reverted. r47 (3 rounds,
 * with 256 KiB copy tasks, gpu_tuning.h): 16 MiB bands hsv 7.41-7.97 ms, 8 MiB
 * 7.70-7.99; 4 MiB 11.8-12.1 (with the streaming stores below). The bands are copied
 * with memcpy: fxi_copy_streaming's non-temporal stores measured slower here (8 MiB
 * bands: hsv 8.61-9.02 ms, 16 MiB: 8.22-8.30), though faster for the filter's larger
 * bands; a band of a few MiB likely stays in the last-level cache for the DMA. */
#ifndef FXI_EQ_STAGE_SLOTS
#define FXI_EQ_STAGE_SLOTS 4
#endif
#ifndef FXI_EQ_STAGE_BAND_BYTES
#define FXI_EQ_STAGE_BAND_BYTES ((size_t)16 << 20)
#endif
/* Host images whose memory is page-locked (the caller's cudaHostAlloc/cudaHostRegister)
 * cross PCIe straight from and to their rows, with no packing (gpu_cuda.c's host_rows):
 * through the slots, the host's memory moves each byte three or four times (read,
 * write into the slot, the DMA's read), which measured 11.4 ms for hsv 10000x6000 host
 * to host on the H200 (upload 6.2, download 5.1) against 6.7 ms for the two transfers.
 * Page-locking other host images for the run instead (cudaHostRegister, then
 * cudaHostUnregister) measured 25.2 ms for the same hsv run on the H200 (2026-11-26,
 * gpu_jobs_bench): pinning costs more than the packing saves, so they stage. */

#endif
