/* The filter job's performance knobs, in one place: block, band and tile sizes,
 * thresholds and crossover points of the CPU strategies and the GPU plan, each with
 * the measurement that chose it or, where none was recorded, what it trades off
 * ("not measured"). Changing one changes speed, never the output bytes: the
 * constants that define the arithmetic (OpenCV's rounding rules, exactness limits,
 * SIMD lane counts) stay beside the code they define.
 *
 * Plain #defines, usable from C and CUDA. The streaming thresholds (when a huge
 * image is filtered band by band, and the band size) are public, as callers choose
 * band sizes too: FX_FILTER_STREAM_ABOVE_BYTES and FX_FILTER_STREAM_BAND_BYTES in
 * include/fxkit/filter.h (the choice: src/filter/stream.c). The GPU
 * plumbing shared by every job (the pinned pool, host copies) is in
 * src/gpu/gpu_tuning.h. */
#ifndef FXKIT_FILTER_TUNING_H
#define FXKIT_FILTER_TUNING_H

#include <stddef.h>

/* ---- the planner's crossover points (planner.c, strategy auto) ----
 *
 * Chosen on the 2-core development machine; the script once named for them
 * (bench/filter_crossover.sh) is not in the repository and its numbers were not
 * recorded in docs/BENCHMARKS.md. To re-measure, time each strategy forced on the
 * same kernel with bench/filter_bench.c (built by `make` into build/bench/) over
 * growing kernel sizes and take the size where the faster one changes, e.g.
 *   build/bench/filter_bench compute box:K 4096 2304 3 7 2 box
 *   build/bench/filter_bench compute box:K 4096 2304 3 7 2 direct
 * for box against direct, gaussian:K with separable against direct, and kernels of
 * growing non-zero tap counts with fft against direct. */
/* Every tap the same and at least this many taps: box (running sums). */
#define FXI_BOX_MIN_TAPS 9
/* Rank 1 with at least this many taps: separable (kw + kh per output). */
#define FXI_SEPARABLE_MIN_TAPS 9
/* At least this many non-zero taps (not rank 1): fft, where an fft is there. */
#define FXI_FFT_MIN_TAPS 400

/* ---- CPU blocks and bands (cpu_common.h, cpu_direct.c, cpu_separable.c, cpu_box.c) ---- */

/* Ring budget per worker (bytes): the rows a block keeps should stay near L2. Not
 * measured. */
#define FXI_RING_BUDGET (2u << 20)
/* Block (tile) width limits: FXI_TILE_PER_TAP kernel widths, within
 * [FXI_TILE_MIN, FXI_TILE_MAX]. Wider blocks amortise the halo, narrower ones keep
 * the ring in cache. Not measured. */
#define FXI_TILE_MAX 256
/* Box blocks touch two of their kh rows per output row, so they can be wider. Not
 * measured. */
#define FXI_BOX_TILE_MAX 2048
#define FXI_TILE_PER_TAP 4
#define FXI_TILE_MIN 16
/* Work (output samples x operations per output) below which a run stays on the calling
 * thread: there, handing blocks to the pool's threads and waiting for them costs more
 * than they save. Measured on runs back to back (a reused plan; the pool's threads are
 * still awake, src/core/pool.c) with `filter_bench reuse 1000 SIDE KERNEL 1|2` over sides
 * 16…256 on the 2-core development machine: 2 threads gain on RGB from ~24 x 24 on for
 * gaussian:5 (17 K) and sharpen (9 K), from ~48 x 48 for box:3 (55 K): this line lies
 * between (docs/BENCHMARKS.md). A pool that has gone to sleep costs ~10-15 us more. */
#define FXI_SERIAL_MAX_WORK (32.0 * 1024)
/* A box output's operations for that rule: about the cost of 8 separable taps. Not
 * measured on its own. */
#define FXI_BOX_OPS 8

/* direct: bands shorter than this waste the ring's warm-up (kh rows per band). Not
 * measured. */
#define FXI_DIRECT_MIN_BAND 8
/* separable: each band re-does kh - 1 row passes: bands of FXI_SEPARABLE_BAND_PER_TAP
 * kernel heights, at least FXI_SEPARABLE_MIN_BAND rows, amortise that. Not measured. */
#define FXI_SEPARABLE_BAND_PER_TAP 4
#define FXI_SEPARABLE_MIN_BAND 16
/* separable, 8-bit narrow rows: the uint16 ring of a block (bytes) is at most this, a
 * quarter of a 512 KiB L2. Not measured. */
#define FXI_NARROW_RING_BUDGET (128 << 10)
/* separable, 8-bit: the column pass and the finish go this many pixels at a time, so
 * the int32 sums stay in L1 between the two. Not measured. */
#define FXI_NARROW_CHUNK 256
/* box: each band re-sums kh rows to start: bands of FXI_BOX_BAND_PER_TAP kernel
 * heights, at least FXI_BOX_MIN_BAND rows, amortise that. Not measured. */
#define FXI_BOX_BAND_PER_TAP 4
#define FXI_BOX_MIN_BAND 16
/* box, exact float sums: windows up to this many pixels wide are added directly,
 * wider ones slid by entering minus leaving sample. Not measured. */
#define FXI_BOX_DIRECT_SUM_MAX 16
/* box, 8-bit: windows this wide or narrower add their column sums directly (vector
 * loops); wider ones difference prefix sums along the row. Not measured. */
#define FXI_BOX_U8_DIRECT_SUM_MAX_WIDTH 8
/* box, 8-bit: sums go to the finish this many pixels at a time, so they stay in L1.
 * Not measured. */
#define FXI_BOX_U8_FINISH_CHUNK 512

/* separable, AVX2 paths (cpu_separable.c). Not measured against other values.
 * Narrow rows up to this many taps wide take vpmaddubsw (the tap pairs' factors are
 * made once per call, kept in registers); wider ones the plain pass. */
#define FXI_MADDUBS_MAX_TAPS 16
/* The fused column pass and finish: a step takes this many vectors of outputs at
 * once, so each row pointer and tap vector serves them all (the loop is bound by
 * instructions)... */
#define FXI_FUSED_STEP_VECTORS 2
/* ... and tap vectors are made once per call, not once per step, for every kernel up
 * to this height. */
#define FXI_FUSED_KEPT_TAPS 32

/* ---- CPU fft (cpu_fft.c, fft_sides.h) ---- */

/* Smaller transforms are all overhead (also the GPU fft's smallest side). Not
 * measured. */
#define FXI_FFT_MIN_SIDE 16
/* Sides considered when the kernel allows: working sets beyond the L2 cache slow FFTW
 * down per point (measured: 2048^2 about twice the time per point of 512^2), and big
 * tiles waste work at the image's edges. */
#define FXI_FFT_MAX_SIDE 1024
/* A plane of more points than this (4 MiB of floats) leaves the L2 caches of current
 * CPUs; the cost model charges such tiles FXI_FFT_CACHE_PENALTY times per point. The
 * penalty is not measured (the 2x above is for 2048^2 against 512^2). */
#define FXI_FFT_CACHE_POINTS (1u << 20)
#define FXI_FFT_CACHE_PENALTY 1.5
/* Per point, reading the block and storing the results cost about as much as this
 * many log2 levels of the transforms (conversion, deinterleave, mean, multiply). An
 * estimate, not measured. */
#define FXI_FFT_IO_LEVELS 4.0

/* ---- GPU launch geometry (gpu_geometry.c, gpu_geometry.h) ----
 * The block shapes below are not measured one by one unless said; the ring/two-pass
 * box crossover is. */

/* Block size of the published variants (--gpu-block) by default. */
#define FXI_GPU_BLOCK_DEFAULT 16
/* direct: a warp across the row, 8 warps down, 4 output rows per thread */
#define FXI_GPU_DIRECT_BLOCK_X 32
#define FXI_GPU_DIRECT_BLOCK_Y 8
#define FXI_GPU_DIRECT_ROWS_PER_THREAD 4
/* separable: a warp across, 8 warps down, 16 output rows per thread (the row pass is
 * redone for kh - 1 halo rows per tile: tall tiles amortise it) */
#define FXI_GPU_SEPARABLE_BLOCK_X 32
#define FXI_GPU_SEPARABLE_BLOCK_Y 8
#define FXI_GPU_SEPARABLE_ROWS_PER_THREAD 16
/* box: 256 threads; column pass strips of at least 64 rows; row pass segments of at
 * least 32 pixels (each starts with a full window sum: strips and segments of several
 * kernel sizes amortise it) */
#define FXI_GPU_BOX_THREADS 256
#define FXI_GPU_BOX_MIN_STRIP 64
#define FXI_GPU_BOX_MIN_SEGMENT 32
#define FXI_GPU_BOX_PER_TAP 4
/* ring layouts: 256 threads; 8 input rows per staging step; separable tiles at least 64
 * rows tall and twice the halo (the row pass is redone for at most a third of the rows);
 * box segments of 8 to 16 pixels (a segment's first window costs kw reads, each further
 * pixel two), tiles of at least 32 rows and kh / 2 (each starts with kh reads per column:
 * taller tiles would leave too few blocks for the GPU) */
#define FXI_GPU_RING_THREADS 256
#define FXI_GPU_RING_CHUNK_ROWS 8
#define FXI_GPU_RING_MIN_TILE_ROWS 64
#define FXI_GPU_RING_BOX_MIN_SEGMENT 8
#define FXI_GPU_RING_BOX_MAX_SEGMENT 16
#define FXI_GPU_RING_BOX_MIN_TILE_ROWS 32
/* Wider boxes run faster as two passes (column sums through device memory, then row
 * sums): measured on the H200, 10000x6000 RGB u8, box:121 took 4.2 ms in the ring and
 * 3.0 ms in two passes, box:3 0.94 ms and 1.7 ms. */
#define FXI_GPU_RING_BOX_MAX_KW 32

/* ---- GPU 8-bit fast path (gpu_u8.cu, gpu_u8_geometry.c) ----
 * Not measured one by one (written without a GPU; sweep them on the H200 by rebuilding
 * with e.g. -DCMAKE_CUDA_FLAGS=-DFXI_GPU_U8_FUSED_MAX_TAPS=9 and -DCMAKE_C_FLAGS=... alike,
 * then tests/gpu_test_gpu_filter_bench --bench). */
/* 0: the fast path off (the general kernels run, as before it), to compare or to rule it
 * out. */
#ifndef FXI_GPU_U8_FAST_PATH
#define FXI_GPU_U8_FAST_PATH 1
#endif
/* Kernels up to this wide and tall take the fused layout (one read, one write of the
 * image, the row pass redone for kh - 1 halo rows a tile); larger ones two passes through
 * a uint16 intermediate (two more transfers of twice the image, no halo rows redone). */
#ifndef FXI_GPU_U8_FUSED_MAX_TAPS
#define FXI_GPU_U8_FUSED_MAX_TAPS 15
#endif
/* fused: threads (= output elements) across a tile, and its rows */
#ifndef FXI_GPU_U8_FUSED_THREADS
#define FXI_GPU_U8_FUSED_THREADS 256
#endif
#ifndef FXI_GPU_U8_FUSED_TILE_ROWS
#define FXI_GPU_U8_FUSED_TILE_ROWS 32
#endif
/* fused 3x3 and 5x5: 1 walks each thread down its column (its K bytes a row straight
 * from L1, the row sums' window in registers, no shared memory, no barrier) over tiles of
 * FXI_GPU_U8_WALK_TILE_ROWS rows; 0 stages them like the other sizes. Estimated, not
 * measured: the staged tile moves each sample through shared memory about three times
 * (≈ 0.14 ms of shared-memory wavefronts for 10000x6000x3 on 132 SMs), the walk loads
 * each byte K times from L1 in fewer wavefronts. */
#ifndef FXI_GPU_U8_FUSED_WALK
#define FXI_GPU_U8_FUSED_WALK 1
#endif
/* the walk 4 adjacent elements a thread (k_u8_walk4: aligned 32-bit loads, two row sums
 * a register, integer sums and finish, one 32-bit store) where its conditions hold; 0:
 * one element a thread (k_u8_walk) always. Written without a GPU: measure on the H200. */
#ifndef FXI_GPU_U8_WALK_VECTOR
#define FXI_GPU_U8_WALK_VECTOR 1
#endif
/* k_u8_walk4's adjacent output elements a thread for 3x3 kernels: 4 (one output word a
 * row) or 8 (two: the row's address, the loads of the words the two share, the loop and
 * the ring's bookkeeping paid once for 8 outputs, where the walk is bound by instruction
 * issue: Nsight Compute on the H200, box:3 10000x6000, SM 65%, DRAM 23%). Measured on the
 * H200 (r11, 2026-11-26, 10000x6000 RGB on the device, three rounds): 8 takes box:3 from
 * 0.264 to 0.225 ms and gaussian:3 from 0.276 to 0.239; the batch of 1000 256x256 box:3
 * the same within noise (0.53 ms). At 64 registers (WALK3_SM_THREADS 1024) ptxas spilled
 * a few values a row (RGB box 80 bytes stored), yet 768 threads at 80 registers, with no
 * spill, was slower (0.233 ms); with edge blocks, 768 is faster for weighted taps (the
 * launch bounds below). 5x5 stays at 4 (its ring of 5 row-sum sets already takes up to
 * 80 registers). */
#ifndef FXI_GPU_U8_WALK3_ELEMENTS
#define FXI_GPU_U8_WALK3_ELEMENTS 8
#endif
#if FXI_GPU_U8_WALK3_ELEMENTS != 4 && FXI_GPU_U8_WALK3_ELEMENTS != 8
#error "FXI_GPU_U8_WALK3_ELEMENTS must be 4 or 8"
#endif
/* The elements a k_u8_walk4 thread computes for a k x k kernel: the launch geometry
 * (gpu_u8_geometry.c) and the kernel's template (gpu_u8.cu) both take it from here. */
#define FXI_GPU_U8_WALK_ELEMENTS(k) ((k) == 3 ? FXI_GPU_U8_WALK3_ELEMENTS : 4)
/* 1: k_u8_walk4's edge threads (the image's left and right edges, walk4_edge.h) leave
 * their elements to edge blocks appended to each grid row, whose lanes each walk one
 * 4-element group of a strip, packed across strips; 0: each edge thread walks its own
 * elements after its warp's inside lanes. Nsight Compute on the H200 (r43, the batch of
 * 1000 256x256 RGB gaussian:5): the edge threads' border path costs about 237
 * instructions a row against 124 for an inside thread's, and their warps (2 of a row's
 * 6) ran 38% of the kernel's warp instructions with 1 or 2 lanes active. Measured on
 * the H200 (r48, three rounds, medians of 9): that batch 0.622-0.691 ms with edge
 * blocks against 0.810-0.905 without (box:3 0.370-0.442 against 0.595-0.664); one
 * 10000x6000 RGB image on the device, box:3 0.199-0.202 against 0.231-0.234, gaussian:3
 * 0.218-0.221 against 0.250-0.252. */
#ifndef FXI_GPU_U8_WALK_EDGE_BLOCKS
#define FXI_GPU_U8_WALK_EDGE_BLOCKS 1
#endif
/* k_u8_walk4 keeps at least this many threads an SM resident, its registers capped to
 * fit (1024 threads of 256-thread blocks: 64 registers a thread; 768: 85; 512: 128):
 * weighted 3x3 (WALK3), box 3x3 (WALK3_BOX) and 5x5 (WALK5). With the edge threads in
 * the inside warps, measured for 5x5 on the H200 (r45, a batch of 1000 256x256 RGB,
 * gaussian:5, three rounds): 768 0.779-0.849 ms, 1024 0.860-0.861 (64 registers, 32-180
 * bytes of spills), 512 1.159-1.251. With edge blocks (FXI_GPU_U8_WALK_EDGE_BLOCKS) the
 * 5x5 walk fits 64 registers without spills, and r49 (three rounds against main
 * 8e8411c's 1024 / 768 / 768) measured: that batch at 5x5 1024 0.553-0.619 ms against
 * 0.663-0.685; 3x3 at 768 (80 registers, no spills), 10000x6000 RGB on the device,
 * gaussian:3 0.202-0.203 against 0.214, but box:3 0.200-0.202 against 0.195. */
#ifndef FXI_GPU_U8_WALK3_SM_THREADS
#define FXI_GPU_U8_WALK3_SM_THREADS 768
#endif
#ifndef FXI_GPU_U8_WALK3_BOX_SM_THREADS
#define FXI_GPU_U8_WALK3_BOX_SM_THREADS 1024
#endif
/* The 1 : 2 : 1 walk (gaussian:3): no tap registers, a shift and adds a tap. Measured on
 * the H200 (r60, 10000x6000 RGB on the device, four rounds): gaussian:3 0.193-0.196 ms at
 * 1024 (64 registers), 0.195-0.198 at 768, against 0.205-0.206 for the weighted walk. */
#ifndef FXI_GPU_U8_WALK3_121_SM_THREADS
#define FXI_GPU_U8_WALK3_121_SM_THREADS 1024
#endif
#ifndef FXI_GPU_U8_WALK5_SM_THREADS
#define FXI_GPU_U8_WALK5_SM_THREADS 1024
#endif
/* k_u8_walk4's inside threads of kernels up to this size load row q + 1 before they sum
 * row q (two rows' loads in flight a thread); larger ones, and 0, each row just before
 * its sums. The walk waited on its loads (Nsight Compute on the H200, box:3 10000x6000:
 * 61% of the cycles between its instructions stalled on L1TEX at 50% occupancy). On the
 * H200 (docs/BENCHMARKS.md, r8), with against without: box:3 0.280 against 0.291 ms,
 * gaussian:3 0.291 against 0.307, a batch of 1000 256x256 box:3 0.607 against 0.689;
 * but 5x5, whose 80 registers then spill more, a batch of gaussian:5 0.909 against 0.823. */
#ifndef FXI_GPU_U8_WALK_PREFETCH_MAX_K
#define FXI_GPU_U8_WALK_PREFETCH_MAX_K 3
#endif
/* 1: k_u8_walk4's ring of row sums holds two elements a register (16-bit halves) for box
 * and 1 : 2 : 1 taps, whose column sums fit 16 bits, so that a column sums two elements an
 * add; 0: one element a register for every walk. Under the launch bounds' 64 registers
 * ptxas spilled 84-180 bytes for the 3x3 box and 1 : 2 : 1 walks with one element a
 * register, 0-16 with two (sm_90, nvcc 13). Measured on the H200 (r169, 10000x6000 RGB
 * on the device, four rounds, both with the walk's graph launch): box:3 0.178-0.181 ms
 * against 0.192-0.195, gaussian:3 0.175-0.188 against 0.190-0.193; a batch of 1000
 * 256x256 RGB box:3 0.36-0.43 ms either way, within the runs' spread. */
#ifndef FXI_GPU_U8_WALK_RING_PAIRS
#define FXI_GPU_U8_WALK_RING_PAIRS 1
#endif
/* rows a walking block's threads walk down (a tile; its K - 1 halo rows are read again
 * by the tile below). On the H200 (docs/BENCHMARKS.md, r9 and r10), 32 against 64:
 * box:3 10000x6000 0.265 against 0.279-0.284 ms, gaussian:3 0.276 against 0.290-0.293,
 * a batch of 1000 256x256 gaussian:5 0.783 against 0.892, box:3 0.545 against 0.701
 * (more blocks: 4 of 64 rows left a 256-row image 4 blocks a column, and the batch a
 * tail of partly filled waves). Fewer rows were no better (r41, that batch): 16 rows
 * 0.839-0.906 ms, 24 rows 0.808-0.920, against 0.788-0.842 for 32. */
#ifndef FXI_GPU_U8_WALK_TILE_ROWS
#define FXI_GPU_U8_WALK_TILE_ROWS 32
#endif
/* two-pass rows: threads per channel across a block, and the outputs each computes (odd:
 * threads whose windows start this many floats apart hit distinct shared-memory banks).
 * Measured on the H200, gaussian:121 on 10000x6000 RGB (three rounds each): 11 outputs
 * against 9, 3.022-3.026 against 3.041-3.066 ms (r41; r37 3.029-3.031 against
 * 3.046-3.049); 13 took 3.13, 15 3.26-3.28 (r37); 128 threads a channel 3.34 (r41). */
#ifndef FXI_GPU_U8_ROW_TX
#define FXI_GPU_U8_ROW_TX 64
#endif
#ifndef FXI_GPU_U8_ROW_OUTPUTS
#define FXI_GPU_U8_ROW_OUTPUTS 11
#endif
/* 1: two-pass rows whose taps are whole numbers below 256 sum in byte dot products
 * (k_u8_rows_dp4a, gpu_u8.cu), with launch bounds for FXI_GPU_U8_ROW_DP4A_SM_BLOCKS
 * blocks of FXI_GPU_U8_ROW_DP4A_THREADS (row_tx * channels, 4 channels at most) an SM.
 * Measured on the H200, gaussian:121 on 10000x6000 RGB on the device (three rounds each):
 * 2.930-2.939 ms without bounds (94 registers), 2.790-2.816 with 3 blocks, 2.690-2.709
 * with 4, the float rows 2.986-3.013 (r123); 2.600-2.623 with 5 (48 registers),
 * 2.532-2.546 with 6 (r124); 6, 7 and 8 2.533-2.556, 2.531-2.553, 2.534-2.545, 7 and 8
 * spilling at 32 registers (r125). */
#ifndef FXI_GPU_U8_ROW_DP4A
#define FXI_GPU_U8_ROW_DP4A 1
#endif
#define FXI_GPU_U8_ROW_DP4A_THREADS (4 * FXI_GPU_U8_ROW_TX)
#ifndef FXI_GPU_U8_ROW_DP4A_SM_BLOCKS
#define FXI_GPU_U8_ROW_DP4A_SM_BLOCKS 6
#endif
/* ... its tap words in shared memory: 4 phases of FXI_TAP_WORDS(FXI_GPU_U8_MAX_TAPS)
 * (filter_math.h) words */
#define FXI_GPU_U8_ROW_TAP_WORD_BYTES (16 * ((FXI_GPU_U8_MAX_TAPS + 6) / 4))
/* two-pass columns: threads a block, output rows each computes (multiply-adds).
 * Measured on the H200, gaussian:121 (r41, three rounds): 256 threads against 128,
 * 2.999-3.001 against 3.041-3.066 ms; with 11 row outputs, 2.976-2.981 ms. 24 rows a
 * thread against 16: 3.148 against 3.18 ms (r3, within noise). Tried and reverted:
 * the taps in whole rounds of the outputs (no remainder) and 8 rows a rows-pass block,
 * 3.27 ms (r38). */
#ifndef FXI_GPU_U8_COL_THREADS
#define FXI_GPU_U8_COL_THREADS 256
#endif
#ifndef FXI_GPU_U8_COL_OUTPUTS
#define FXI_GPU_U8_COL_OUTPUTS 16
#endif
/* one-pass box (FXI_U8_BOX_SLIDE, gpu_u8_box.cu): every 8-bit box the walk does not take.
 * Threads a block (at most; a narrow row takes the warps it needs), pixels each thread
 * stages (a multiple of 4: a thread's elements are then whole 32-bit words and whole
 * pixels), and output rows a block walks down (each block first sums kh - 1 rows).
 * Measured on the H200, 10000x6000 RGB on the device: 128 threads against 256 (r35),
 * box:7 0.47 against 0.44 ms, box:121 0.81 against 0.80; 512 threads of RGB need more
 * than 48 KiB of shared memory. 4 pixels a thread against 8 (r33, an earlier kernel):
 * box:121 1.04 against 1.03 ms. Measured and not kept (r105-r110, docs/BENCHMARKS.md):
 * one-warp blocks (no block barrier, half the staged row halo) 0.95 ms; 16 pixels a
 * thread 1.26-1.54; rows in batches of one a warp, each warp scanning its own row, 1.14-1.22;
 * one barrier a row with doubled buffers (3 blocks an SM) 0.97-0.99; the slide 0.78-0.80. */
#ifndef FXI_GPU_U8_SLIDE_THREADS
#define FXI_GPU_U8_SLIDE_THREADS 256
#endif
#ifndef FXI_GPU_U8_SLIDE_PIXELS
#define FXI_GPU_U8_SLIDE_PIXELS 8
#endif
#if FXI_GPU_U8_SLIDE_PIXELS % 4 != 0
#error "FXI_GPU_U8_SLIDE_PIXELS must be a multiple of 4"
#endif
/* the blocks an SM holds at least for C channels (the kernel's launch bounds cap its
 * registers to fit them: 64 for 4 blocks, 80 for 3; ptxas spills none). Measured on the
 * H200 (r33), box:121 RGB 10000x6000 on the device: 1.27 ms at the compiler's own 91
 * registers (2 blocks an SM), 1.03 ms capped at 64 (4 blocks); with the finish out of the
 * loop, 0.79 ms (r34). 4 channels spill over 100 bytes under 64 registers: 3 blocks. */
#ifndef FXI_GPU_U8_SLIDE_SM_BLOCKS
#define FXI_GPU_U8_SLIDE_SM_BLOCKS(channels) ((channels) >= 4 ? 3 : 4)
#endif
/* the outputs of a row each thread of the slide finishes at a time (the integer rule and
 * cv2.blur's float rule, which box:121 takes), their shared-memory loads issued together.
 * Measured on the H200 (10000x6000 RGB on the device, three rounds a build): with the
 * integer rule alone taking them (r109), 4 against 1: box:7 0.410-0.415 against
 * 0.437-0.444 ms, box:121 unchanged (0.79: the float rule); 8 spilled. With both rules
 * (r115-r116), 4 spilled 44 bytes; 2 against a0b7faa (4, the integer rule only): box:121
 * 0.731-0.758 against 0.775-0.783 ms, box:31 0.521-0.535 against 0.558-0.568, box:255
 * 0.968-0.984 against 1.014-1.030, box:7 0.419-0.432 against 0.408-0.410. */
#ifndef FXI_GPU_U8_SLIDE_OUTPUTS_IN_FLIGHT
#define FXI_GPU_U8_SLIDE_OUTPUTS_IN_FLIGHT 2
#endif
/* 1: a row's outputs shared evenly among its slide tiles (gpu_u8_geometry.c). Measured
 * (r116, against 0 in the same calls): box:61 0.596-0.618 against 0.624-0.639 ms, box:255
 * 0.968-0.984 against 0.996-1.002, box:121 0.731-0.758 against 0.739-0.751. */
#ifndef FXI_GPU_U8_SLIDE_EVEN
#define FXI_GPU_U8_SLIDE_EVEN 1
#endif
/* Output words (4 consecutive outputs, one 32-bit store) a thread finishes at a time
 * where the destination rows are 4-byte aligned (gpu_u8_box.cu's finish_words), their
 * prefix loads issued together. Measured on the H200 (10000x6000 RGB on the device, three
 * rounds, r120), 2 against 1: box:7 0.275-0.281 against 0.270-0.273 ms, box:121
 * 0.385-0.387 against 0.380-0.385 (2 spilled 8 bytes for RGB, r117). */
#ifndef FXI_GPU_U8_SLIDE_WORDS_IN_FLIGHT
#define FXI_GPU_U8_SLIDE_WORDS_IN_FLIGHT 1
#endif
/* the edge rows' launch (k_u8_box_side): rows a thread, its word's source columns found
 * once for them. One row a thread took 0.078 ms of box:121's 0.468 under Nsight Compute
 * (r128), the 64-bit divisions of the columns' border rule a row; 16 rows 0.022 (r129).
 * Measured on the H200 (10000x6000 RGB on the device, three rounds, r129): box:121
 * 0.341-0.343 ms with 16, 0.345-0.346 with 4, 0.375-0.376 with 64, 0.380-0.385 with one;
 * box:7 0.258-0.261 / 0.260-0.261 / 0.293-0.296 / 0.271-0.276. */
#ifndef FXI_GPU_U8_SLIDE_SIDE_ROWS
#define FXI_GPU_U8_SLIDE_SIDE_ROWS 16
#endif
/* the rows whose loads are in flight together while a strip first sums its kh - 1 rows:
 * 4 took box:121 to 0.98-1.00 ms against 0.77-0.81 (r115; 12 bytes spilled) */
#ifndef FXI_GPU_U8_SLIDE_WARM_ROWS
#define FXI_GPU_U8_SLIDE_WARM_ROWS 2
#endif
/* boxes at least this wide or tall slide; smaller ones (and 3x3, 5x5: the walk) take the
 * fused layout. The fused layout took 3.00 ms for box:7 and 4.06 for box:15 (r30), the
 * slide 0.44 and 0.47 (r34): every box beyond the walk's slides. */
#ifndef FXI_GPU_U8_SLIDE_MIN_TAPS
#define FXI_GPU_U8_SLIDE_MIN_TAPS 7
#endif
#ifndef FXI_GPU_U8_SLIDE_ROWS
#define FXI_GPU_U8_SLIDE_ROWS 64
#endif
/* ... and where the device's resident blocks are known (fxi_gpu_u8_slide_strips), rows
 * split among them, at least this many a block */
#ifndef FXI_GPU_U8_SLIDE_MIN_ROWS
#define FXI_GPU_U8_SLIDE_MIN_ROWS 32
#endif
/* Taps the fast path's kernel parameters hold per direction (kernels up to 255). */
#define FXI_GPU_U8_MAX_TAPS 256
/* Batches of device images (fx_filter_run_batch): one launch a pass covers at most this
 * many images (grid z's limit on every CUDA device); more take one launch a chunk. */
#define FXI_GPU_U8_BATCH_MAX_IMAGES 65535
/* two-pass batches: the intermediates of one launch's images (each g->work_bytes, about
 * twice the image's bytes) share at most this much device memory; a larger batch runs in
 * chunks of images that fit, one launch a pass a chunk. Not measured: 256 MiB is 608
 * RGB 256x256 gaussian:31 intermediates (431 KiB each); to be measured on the H200. */
#ifndef FXI_GPU_U8_BATCH_WORK_BYTES
#define FXI_GPU_U8_BATCH_WORK_BYTES ((size_t)256 << 20)
#endif

/* ---- GPU bands of host images (gpu_geometry.c, gpu_plan_cuda.c) ---- */

/* Target input bytes of one band: big enough for full-speed copies, small enough that
 * several bands keep upload, compute and download overlapping. Each stream in flight
 * holds a pinned staging block of its band's input and one of its output, from the
 * context's pinned pool. Not measured against other sizes. */
#define FXI_GPU_BAND_TARGET_BYTES ((size_t)32 << 20)
/* Bands in flight, each on its own stream: the upload of one, the kernel of another
 * and the download of a third overlap. Not measured against other counts. */
#define FXI_GPU_MAX_STREAMS 3
/* Share of the free device memory the bands may take by default (--gpu-memory
 * overrides it): the rest is left to other users of the GPU. Not measured. */
#define FXI_GPU_FREE_MEMORY_SHARE 0.8
/* Halvings of the memory cap tried when an allocation fails before out of memory is
 * reported (2^-12 of the first cap). Not measured. */
#define FXI_GPU_MAX_SHRINKS 12

/* ---- GPU fft (gpu_fft_geometry.c, gpu_fft_geometry.h, gpu_plan_cuda.c) ---- */

/* Largest side the cost model considers (or the next side above twice the kernel, when
 * that is larger): cuFFT transforms a row of up to 1024 points in one pass through
 * shared memory, so a 2-D transform of such tiles is two passes over memory. */
#define FXI_GPU_FFT_MAX_SIDE 1024
/* Data bytes of one batch need be no larger than this to keep the GPU busy. Batches
 * small enough to stay in the H200's 50 MB L2 cache from pack to extract measured
 * slower (r52, 10000x6000 RGB on the device, three rounds): 24 MiB float 31x31 4.32-4.38
 * ms, 121x121 6.01-6.12; 40 MiB 4.12-4.14 / 4.78-4.80; 96 MiB 4.02-4.04 / 4.68-4.69;
 * 512 MiB 3.69-3.70 / 4.06-4.07. With the fitted tile costs (r100, three rounds in turn):
 * 512 MiB 3.29-3.30 / 3.86-3.87, 1 GiB 3.23 / 3.80-3.82 (31x31's 143 tiles in one batch),
 * 2 GiB 3.24-3.25 / 3.81-3.82. */
#ifndef FXI_GPU_FFT_MAX_BATCH_BYTES
#define FXI_GPU_FFT_MAX_BATCH_BYTES ((size_t)1024 << 20)
#endif
/* 1: tile widths (M, the rows of the real-to-complex pass) only powers of two where one
 * fits the kernel, the image and the budget (else any nice width, as with 0). Under
 * Nsight Compute (docs/BENCHMARKS.md, 2026-11-26) cuFFT's R2C and C2R passes over
 * 768-point rows (121x121's tiles) moved 1.4 TB/s where those over 512-point rows (31x31's)
 * moved 2.3 TB/s. On the H200 (r8, 10000x6000 RGB device images), 1 against 0: float
 * 121x121 4.09 against 5.21 ms, 31x31 3.71 against 3.69 (its tiles were 512 wide already). */
#ifndef FXI_GPU_FFT_POW2_COLS
#define FXI_GPU_FFT_POW2_COLS 1
#endif
/* The cost model's price of a tile point comes from a table of measured costs by side
 * (gpu_fft_geometry.c, fitted to bench/gpu_fft_tiles on the H200, r95-r97). Sides beyond
 * the table (2048, reached only by kernels over 1024 taps) cost this much more a point
 * per doubling, ns per 1000 points: the table's own step from 1024 to 2048 (rows +2.4,
 * columns +1.1). Extrapolated, not measured. */
#define FXI_GPU_FFT_COST_PER_DOUBLING 2.0
/* 1: where the main tiles would leave much of their last column or row of tiles unused,
 * the right and bottom strips take tiles of their own (gpu_fft_geometry.h), each strip
 * charged this many ns on top of its points' cost: its own launches. r101 (H200, float
 * 31x31 on 10000x6000 RGB, each part timed alone by bench/gpu_fft_tiles): 512 x 1024
 * tiles over the whole image 3.23 ms; over its 9940 x 5784 whole tiles 2.74-2.76, the
 * 60-column strip in 512 x 128 tiles 0.065-0.067, the 216-row strip in 256 x 1024 0.131,
 * the corner in one 256 x 128 tile 0.034-0.039 (the cost of a launch sequence). */
#ifndef FXI_GPU_FFT_STRIPS
#define FXI_GPU_FFT_STRIPS 1
#endif
#define FXI_GPU_FFT_REGION_COST_NS 30000.0
/* A strip's batch may take this part of the memory budget at most (two strips: half), the
 * main tiles the rest. A strip is one column or row of tiles, so its batch is small
 * wherever memory is not tight. Not measured. */
#define FXI_GPU_FFT_STRIP_BUDGET_PARTS 4
/* Tried and not kept (r83, a standalone prototype on the H200): the column transforms,
 * the multiply and the inverse column transforms as one kernel in shared memory (1-D
 * cuFFT plans for the rows), which would save four of the twelve passes over each point.
 * Its radix-4/2/3/5 Stockham stages, ping-pong in shared memory, took 1.13 ms for 535
 * planes of 384 x 257 against 0.82 ms for cuFFT's column passes and the multiply
 * (1024 x 513: 1.79 against 0.99 ms); the rows' 1-D plans cost what the 2-D plans' row
 * passes do. Beating cuFFT there needs register-level radix-8/16 passes. Nor (r90-r94, a
 * standalone prototype): pack, multiply and extract as cuFFT LTO callbacks
 * (cufftXtSetJITCallback) inside the transforms. Float 31x31 took 3.92 ms with all three
 * against the library's 3.47 ms: the callbacks' per-element index arithmetic lands in
 * cuFFT's row passes, which are bound by their instructions already, and each plan's JIT
 * link took 0.05-0.7 s. */
/* cuFFT's work area for a batch, as a share of its data: 2-D transforms of these
 * sides need at most about the data again. The real size is queried at plan time. */
#define FXI_GPU_FFT_WORK_SHARE 1.0
/* The fft's own kernels (gpu_fft.cu): pack and extract blocks of 32 x 8 threads (a
 * warp across a plane row's columns, 8 rows down); the spectrum multiply 256 threads a
 * block and at most 1024 blocks per plane, each thread striding over the rest. Not
 * measured against other shapes: to be measured on the H200. */
#define FXI_GPU_FFT_BLOCK_X 32
#define FXI_GPU_FFT_BLOCK_Y 8
#define FXI_GPU_FFT_MULTIPLY_THREADS 256
#define FXI_GPU_FFT_MULTIPLY_BLOCKS 1024u
/* Plane rows one pack block writes and output rows one extract block finishes: a block
 * finds its tile and biases once (a 64-bit division and a border-ruled fetch per
 * channel; pack also its rows' source offsets), then each thread walks ROWS / BLOCK_Y
 * rows of its column. Measured on the H200 (10000x6000 RGB on the device, three rounds):
 * r52, the kernels before the row offsets and the channel template: 64 float 31x31
 * 3.66-3.67 ms, 121x121 4.06; 32 3.69-3.70 / 4.06-4.07; 16 3.71-3.73 / 4.08-4.10. r87,
 * after them: pack 32 rows 3.47-3.49 / 3.85-3.89, 64 3.49-3.51 / 3.90-3.93, 128
 * 3.59-3.60 / 3.98-3.99; extract 32 3.50-3.53 / 3.91-3.94, 128 3.71-3.72 / 4.12-4.13. */
#ifndef FXI_GPU_FFT_PACK_ROWS
#define FXI_GPU_FFT_PACK_ROWS 32
#endif
#ifndef FXI_GPU_FFT_EXTRACT_ROWS
#define FXI_GPU_FFT_EXTRACT_ROWS 64
#endif
/* Two complex values (16 bytes) a thread an iteration in the spectrum multiply, and
 * about this many iterations a thread: the blocks per plane are sized for it. Not
 * measured: to be measured on the H200. */
#ifndef FXI_GPU_FFT_MULTIPLY_PAIRS_PER_THREAD
#define FXI_GPU_FFT_MULTIPLY_PAIRS_PER_THREAD 4
#endif
/* Share of the memory budget the fft engines (batch buffers, cuFFT work areas) may
 * take, split over FXI_FFT_ENGINES; the bands get the rest. Not measured. */
#define FXI_GPU_FFT_MEMORY_SHARE 0.5

#endif
