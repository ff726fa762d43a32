/* Performance knobs of the GPU plumbing shared by every job (src/gpu), each with
 * the measurement that chose it or, where none was made, what it trades off. The
 * jobs' own knobs are in src/filter/filter_tuning.h, src/equalize/equalize_tuning.h
 * and src/normalize/normalize_tuning.h. */
#ifndef FXKIT_GPU_TUNING_H
#define FXKIT_GPU_TUNING_H

/* Free blocks the context's pinned pool keeps for reuse (fxi_pinned_take/give):
 * enough for the filter's bands (2 blocks per stream, FXI_GPU_MAX_STREAMS streams),
 * equalize's 4 bands and a few normalize streams at once. More keeps more host
 * memory pinned; fewer means pinning again (cudaHostAlloc costs milliseconds and
 * serialises the process's CUDA calls). Not measured. */
#define FXI_PINNED_POOL_BLOCKS 16

/* Bytes per task of a parallel host copy (fxi_parallel_copy_rows, filling and
 * emptying pinned staging, and the filter's band packing): 256 KiB, so that a band of
 * a few MiB keeps all of a machine's threads copying. Measured on the H200 machine
 * (16 cores, docs/BENCHMARKS.md r47, 3 rounds): equalize hsv 10000x6000 host to host
 * 7.70-7.99 ms against 10.61-12.38 ms with 1 MiB tasks, which left half the threads
 * idle on each 8 MiB band. */
#ifndef FXI_COPY_BYTES_PER_TASK
#define FXI_COPY_BYTES_PER_TASK ((size_t)1 << 18)
#endif

#endif
