/* The normalize job's performance knobs, in one place: the CPU ramp's chunk size and
 * the GPU's launch shape and batch size, each with the measurement that chose it or,
 * where none was recorded, what it trades off ("not measured"). Changing one changes
 * speed, never the output bytes: the constants that define the arithmetic (ffmpeg's
 * weights and bounds in normalize_internal.h, normalize_math.h) stay beside the code
 * they define. Plain #defines, usable from C and CUDA. The CLI's reader/writer
 * pipeline sizes are the CLI's own (cli/jobs/normalize_pipeline.c); the GPU plumbing
 * shared by every job (the pinned pool that holds a stream's slot ring) is in
 * src/gpu/gpu_tuning.h. */
#ifndef FXKIT_NORMALIZE_TUNING_H
#define FXKIT_NORMALIZE_TUNING_H

#include <stddef.h>

/* Samples per parallel chunk of the gain ramp on the CPU (normalize_stream.c). The
 * ramp is memory-bound and vectorised: splitting frames smaller than this costs more
 * in thread wake-ups than it gains (ffmpeg's default frames, 500 ms of stereo
 * 44.1 kHz, run on one thread, leaving the other cores to reading and writing). Not
 * measured against other sizes. */
#define FXI_NM_RAMP_GRAIN_SAMPLES ((size_t)1 << 18)

/* GPU ramp (normalize_gpu_plan.h): 256 threads (8 warps) per block and at most 8
 * blocks per multiprocessor; each thread strides over the rest, so a batch of any
 * size is one launch. The ramp is memory-bound: more blocks would not add bandwidth.
 * Not measured against other shapes. */
#define FXI_NM_RAMP_THREADS 256
#define FXI_NM_RAMP_BLOCKS_PER_SM 8
/* GPU levels kernel (normalize_kernels.cu): threads per frame and gain channel; 8
 * warps share the maximum (a batch may hold only a few long frames). Not measured
 * against other counts. */
#define FXI_NM_LEVELS_THREADS 256u
/* GPU samples per batch: 8 MiB of doubles each way, long enough that a transfer runs
 * at the bus's speed, short enough that each worker's pinned staging stays small
 * (pinning memory is slow and serialised by the driver) and indices stay well inside
 * 32 bits. Measured with bench/gpu_pcie_bench.c on the H200 (pinned chunks of this
 * size up and down per thread): 48.5 GB/s both ways with one thread, 89-98 GB/s with
 * 4-16 threads (docs/BENCHMARKS.md, "normalize on the GPU", 19:50 UTC); other batch
 * sizes were not compared. */
#define FXI_NM_BATCH_SAMPLES ((size_t)1 << 20)

/* The whole-buffer GPU path (normalize_whole_cuda.c): samples per block of the pinned
 * staging that carries a buffer up and down (two blocks alternate, so the host packs
 * or unpacks one while the other is on the bus), per thread of the context and at
 * most: a context on all the CPUs (a library call) gets 2 x 8 MiB, each one-thread
 * worker of a CLI batch 2 x 1 MiB (pinning is slow and serialised by the driver, and a
 * batch has a context per worker). 8 MiB is FXI_NM_BATCH_SAMPLES's size, which ran at
 * the bus's speed (48.5 GB/s pinned, one thread); the smaller blocks were not
 * measured: to be measured on the H200. */
#define FXI_NM_WHOLE_CHUNK_PER_THREAD ((size_t)1 << 17)
#define FXI_NM_WHOLE_CHUNK_SAMPLES ((size_t)1 << 20)
/* The fewest samples per host task when packing or unpacking a chunk (a chunk is
 * shared out over the context's threads above that). Not measured. */
#define FXI_NM_WHOLE_COPY_GRAIN ((size_t)1 << 14)
/* Frames per host task of the whole buffer's gain steps (normalize_whole.c: local
 * gains, minima, smoothed gains; each frame's some tens of operations). Not measured. */
#define FXI_NM_WHOLE_GAINS_GRAIN ((size_t)4096)
/* At most this many samples per ramp launch and blocks per levels launch: the
 * kernels' indices are 32-bit (and grids below 2^31 blocks). */
#define FXI_NM_WHOLE_LAUNCH_SAMPLES ((size_t)1 << 30)
#define FXI_NM_WHOLE_LEVELS_BLOCKS ((size_t)1 << 30)

#endif
