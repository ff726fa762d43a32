/* Shared by the CPU strategies: blocks of the image and their scratch. */
#ifndef FXKIT_FILTER_CPU_COMMON_H
#define FXKIT_FILTER_CPU_COMMON_H

#include "filter/filter_internal.h"
#include "filter/filter_tuning.h"

#define FXI_SCRATCH_ALIGN 64
/* The most parts a block cuts its scratch into, each starting aligned. */
#define FXI_SCRATCH_PARTS 6

/* Offsets inside a worker's scratch, rounded up so every part starts aligned. */
static inline size_t fxi_align_up(size_t bytes)
{
    return (bytes + FXI_SCRATCH_ALIGN - 1) / FXI_SCRATCH_ALIGN * FXI_SCRATCH_ALIGN;
}

/* The types a block works in: exact sums below 2^24 run in float (exact there, and
 * faster); other exact 8-bit work reads the samples as they are (no widened copy). */
typedef struct fxi_block_types {
    fxi_acc acc;  /* accumulators, as fxi_store_row takes them */
    fxi_acc rows; /* padded rows (FXI_ACC_RAW when raw) */
    bool raw;     /* rows are the image's own 8-bit samples */
} fxi_block_types;

static inline fxi_block_types fxi_block_types_of(const fxi_filter_job *job)
{
    const fxi_taps *t = job->taps;
    fxi_block_types b;
    b.acc = t->float_exact ? FXI_ACC_F32X : t->acc;
    b.raw = job->src->type == FX_U8 && t->acc == FXI_ACC_I32 && !t->float_exact;
    b.rows = b.raw ? FXI_ACC_RAW : t->float_exact ? FXI_ACC_F32 : t->acc;
    return b;
}

typedef struct fxi_block {
    int y0, y1;     /* output rows */
    int64_t x0, x1; /* output columns */
} fxi_block;

typedef void (*fxi_block_fn)(const fxi_filter_job *job, const fxi_cpu_state *s, const fxi_block *b,
                             uint8_t *scratch);

/* Run fn over every block of the image on the context's threads (and copy the
 * unfiltered alpha). */
fx_status fxi_walk_blocks(const fxi_filter_job *job, const fxi_cpu_state *s, fxi_block_fn fn);

/* Choose workers, tiles and bands and allocate scratch: per worker (kh + 2) rows of a
 * padded row plus an output row, in elements of `elem` bytes, and extra_bytes more; bands
 * of at least min_band rows. ops_per_output (taps a strategy applies per output, or
 * FXI_BOX_OPS) sizes the work: small work gets one worker, the calling thread. */
fx_status fxi_geometry(fx_context *ctx, const fxi_taps *t, int width, int height, int channels,
                       int min_band, int tile_max, size_t elem, size_t extra_bytes,
                       int64_t ops_per_output, fxi_cpu_state *s);

/* Box on 8-bit images by uint16 column sums (cpu_box_u8.c): do these taps fit, and one
 * block of it (scratch as fxi_box_geometry allocates it). */
bool fxi_box_u8_fits(const fxi_taps *t);
/* Its scratch beyond the box's rows: the alignment of its four parts and the zeros in
 * front of its prefix sums. */
#define FXI_BOX_U8_EXTRA_BYTES (8 * FXI_SCRATCH_ALIGN)
void fxi_box_block_u8(const fxi_filter_job *job, const fxi_block *b, uint8_t *scratch);

#endif
