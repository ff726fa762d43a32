/* FX_DEVICE_AUTO's choice of device by estimated cost (device_cost.h). */
#include <stdio.h>
#include <string.h>

#include "core/device_cost.h"
#include "core/internal.h"

#define MB 1e6
#define GB 1e9
#define MS 1e3

double fxi_cpu_estimate_s(const fxi_item_cost *c, int threads)
{
    if (threads < 1 || c->cpu_serial) threads = 1;
    double compute = c->cpu_thread_s;
    if (threads > 1)
        compute = compute / (threads * FXI_CPU_THREAD_EFFICIENCY) + FXI_CPU_POOL_WAKE_S;
    double floor = c->cpu_bytes / FXI_CPU_MEMORY_BYTES_PER_S;
    /* Streamed: the bands' decoding and encoding overlap the arithmetic. */
    const double files = c->stream_bytes / FXI_STREAM_BANDED_BYTES_PER_S;
    if (files > floor) floor = files;
    return compute > floor ? compute : floor;
}

double fxi_gpu_best_case_s(const fxi_item_cost *c)
{
    const double bytes = c->on_device ? 0 : (double)c->upload_bytes + (double)c->download_bytes;
    return c->gpu_fixed_s + c->gpu_sm_s / FXI_GPU_MAX_MULTIPROCESSORS +
           bytes / FXI_GPU_MAX_COPY_BYTES_PER_S;
}

/* The part of a one-time cost an item carries: all of it alone; in a batch, its share of
 * the bytes that pay the cost, which are the batch's over `payers` (1 for CUDA's start,
 * paid once a process; the workers for a first use, paid once by each). */
static double one_time_part(const fxi_device_setting *s, double payers)
{
    if (!(s->batch_share > 0)) return 1;
    const double part = s->batch_share * payers;
    return part < 1 ? part : 1;
}

double fxi_gpu_first_use_s(const fxi_item_cost *c, const fxi_device_setting *s)
{
    if (s->gpu_warm) return 0;
    double bytes = (double)c->upload_bytes + (double)c->download_bytes;
    if (bytes > FXI_GPU_FIRST_USE_MAX_BYTES) bytes = FXI_GPU_FIRST_USE_MAX_BYTES;
    const int workers = s->workers > 1 ? s->workers : 1;
    /* Each worker's first use is shared by the items that worker runs: about its
     * 1 / workers of the batch. */
    return (FXI_GPU_FIRST_USE_S + bytes / FXI_GPU_FIRST_USE_BYTES_PER_S) * (workers + 1) / 2.0 *
           one_time_part(s, workers);
}

double fxi_gpu_process_start_s(const fxi_device_setting *s)
{
    return FXI_GPU_PROCESS_START_S * one_time_part(s, 1);
}

/* The host's share of the GPU path: packing into and out of pinned staging (none when
 * the file's bands are the pinned buffers), and the file's reading and writing, whole
 * before and after or in bands. */
static double staging_s(const fxi_item_cost *c)
{
    /* Every staged byte is read and written once on the way in or out. */
    if (c->on_device || (c->stream_bytes > 0 && c->gpu_banded)) return 0;
    return 2.0 * c->staging_bytes / FXI_CPU_MEMORY_BYTES_PER_S;
}

static double stream_s(const fxi_item_cost *c)
{
    if (c->on_device) return 0;
    return c->stream_bytes /
           (c->gpu_banded ? FXI_STREAM_BANDED_BYTES_PER_S : FXI_STREAM_WHOLE_BYTES_PER_S);
}

double fxi_gpu_least_on_s(const fxi_item_cost *c, const fxi_device_setting *s,
                          fxi_device_estimate *e)
{
    e->staging_s = staging_s(c);
    e->stream_s = stream_s(c);
    e->stream_banded = c->gpu_banded;
    e->first_use_s = fxi_gpu_first_use_s(c, s);
    double best = fxi_gpu_best_case_s(c);
    if (s->multiprocessors > 0 && s->multiprocessors < FXI_GPU_MAX_MULTIPROCESSORS)
        best += c->gpu_sm_s / s->multiprocessors - c->gpu_sm_s / FXI_GPU_MAX_MULTIPROCESSORS;
    e->gpu_s = best + e->staging_s + e->stream_s + e->first_use_s;
    return e->gpu_s;
}

void fxi_device_estimate_make(const fxi_item_cost *c, const fxi_device_setting *s,
                              const fx_gpu_rates *rates, fxi_device_estimate *out)
{
    memset(out, 0, sizeof *out);
    out->cpu_s = fxi_cpu_estimate_s(c, s->threads);
    if (!rates) {
        out->device = FX_DEVICE_CPU;
        out->reason = FXI_REASON_NO_GPU;
        return;
    }
    const int sms =
        rates->multiprocessors > 0 ? rates->multiprocessors : FXI_GPU_DEFAULT_MULTIPROCESSORS;
    const double up = rates->upload_bytes_per_s > 0 ? rates->upload_bytes_per_s
                                                    : FXI_GPU_DEFAULT_COPY_BYTES_PER_S;
    const double down = rates->download_bytes_per_s > 0 ? rates->download_bytes_per_s
                                                        : FXI_GPU_DEFAULT_COPY_BYTES_PER_S;
    out->copy_bytes_per_s = (up + down) / 2;
    out->first_use_s = fxi_gpu_first_use_s(c, s);
    if (!c->on_device) {
        out->upload_bytes = c->upload_bytes;
        out->download_bytes = c->download_bytes;
        out->pcie_s = (double)c->upload_bytes / up + (double)c->download_bytes / down;
        out->staging_s = staging_s(c);
        out->stream_s = stream_s(c);
        out->stream_banded = c->gpu_banded;
    }
    out->gpu_s = c->gpu_fixed_s + c->gpu_sm_s / sms + out->pcie_s + out->staging_s + out->stream_s +
                 out->first_use_s;
    if (c->on_device) {
        out->device = FX_DEVICE_GPU;
        out->reason = FXI_REASON_ON_DEVICE;
        return;
    }
    out->reason = FXI_REASON_CHEAPER;
    /* A tie goes to the CPU: its estimate has fewer unknowns. */
    out->device = out->gpu_s < out->cpu_s ? FX_DEVICE_GPU : FX_DEVICE_CPU;
}

/* "12 ms", "0.3 ms", "1.25 s". */
static void format_seconds(double s, char *buf, size_t size)
{
    if (s >= 1)
        snprintf(buf, size, "%.2f s", s);
    else if (s * MS >= 10)
        snprintf(buf, size, "%.0f ms", s * MS);
    else if (s * MS >= 1)
        snprintf(buf, size, "%.1f ms", s * MS);
    else
        snprintf(buf, size, "%.2f ms", s * MS);
}

static void format_mb(uint64_t bytes, char *buf, size_t size)
{
    if (bytes >= 10 * MB)
        snprintf(buf, size, "%.0f MB", (double)bytes / MB);
    else
        snprintf(buf, size, "%.2f MB", (double)bytes / MB);
}

/* What the GPU estimate includes beyond the arithmetic, each where it counts:
 * "PCIe 2 x 180 MB at 54 GB/s, packing 18 ms, first GPU use 17 ms". */
static void gpu_parts(const fxi_device_estimate *e, char *parts, size_t size)
{
    size_t at = 0;
    parts[0] = '\0';
    if (e->upload_bytes || e->download_bytes) {
        char up[32], down[32];
        format_mb(e->upload_bytes, up, sizeof up);
        format_mb(e->download_bytes, down, sizeof down);
        if (e->upload_bytes == e->download_bytes)
            at += (size_t)snprintf(parts + at, size - at, "PCIe 2 x %s", up);
        else
            at += (size_t)snprintf(parts + at, size - at, "PCIe %s + %s", up, down);
        if (at < size)
            at +=
                (size_t)snprintf(parts + at, size - at, " at %.0f GB/s", e->copy_bytes_per_s / GB);
    }
    const struct {
        double s;
        const char *what;
    } extra[] = {{e->staging_s, "packing"},
                 {e->stream_s, e->stream_banded ? "file read and write in bands"
                                                : "whole-file read and write"},
                 {e->first_use_s, "first GPU use"},
                 {e->start_s, "CUDA start"}};
    for (size_t i = 0; i < sizeof extra / sizeof *extra && at < size; i++) {
        if (extra[i].s <= 0) continue;
        char t[32];
        format_seconds(extra[i].s, t, sizeof t);
        at += (size_t)snprintf(parts + at, size - at, "%s%s %s", at ? ", " : "", extra[i].what, t);
    }
}

void fxi_device_estimate_text(const fxi_device_estimate *e, int gpu_index, char *buf, size_t size)
{
    char where[16];
    if (e->device == FX_DEVICE_GPU)
        snprintf(where, sizeof where, "gpu:%d", gpu_index);
    else
        snprintf(where, sizeof where, "cpu");
    char cpu[32], gpu[32];
    format_seconds(e->cpu_s, cpu, sizeof cpu);
    format_seconds(e->gpu_s, gpu, sizeof gpu);
    switch (e->reason) {
    case FXI_REASON_NO_GPU: snprintf(buf, size, "%s (auto: no usable GPU)", where); return;
    case FXI_REASON_ON_DEVICE:
        snprintf(buf, size, "%s (auto: the image is in device memory)", where);
        return;
    case FXI_REASON_TINY:
        snprintf(buf, size, "%s (auto: cpu ~%s, below any GPU's least cost)", where, cpu);
        return;
    case FXI_REASON_FORCED: snprintf(buf, size, "%s (as the context was created)", where); return;
    case FXI_REASON_NEEDS_GPU:
        snprintf(buf, size, "%s (auto: what was asked runs only on the GPU)", where);
        return;
    case FXI_REASON_SURE: {
        char parts[200];
        gpu_parts(e, parts, sizeof parts);
        snprintf(buf, size, "%s (auto: cpu ~%s, gpu at most ~%s incl. %s)", where, cpu, gpu, parts);
        return;
    }
    case FXI_REASON_BOUND: {
        char parts[200];
        gpu_parts(e, parts, sizeof parts);
        snprintf(buf, size, "%s (auto: cpu ~%s, gpu at least ~%s incl. %s)", where, cpu, gpu,
                 parts);
        return;
    }
    case FXI_REASON_ASSUMED: {
        char parts[200];
        gpu_parts(e, parts, sizeof parts);
        snprintf(buf, size, "%s (auto: cpu ~%s, gpu ~%s at assumed rates incl. %s; GPU not started)",
                 where, cpu, gpu, parts);
        return;
    }
    case FXI_REASON_FALLBACK:
        snprintf(buf, size, "%s (auto: the GPU ran out of memory; cpu ~%s, gpu ~%s)", where, cpu,
                 gpu);
        return;
    default: break;
    }
    char parts[200];
    gpu_parts(e, parts, sizeof parts);
    if (!parts[0])
        snprintf(buf, size, "%s (auto: cpu ~%s, gpu ~%s)", where, cpu, gpu);
    else
        snprintf(buf, size, "%s (auto: cpu ~%s, gpu ~%s incl. %s)", where, cpu, gpu, parts);
}

bool fxi_device_auto(const fx_context *ctx)
{
    return ctx->requested == FX_DEVICE_AUTO && fxi_gpu_possible(ctx);
}

/* The estimate of c with the slowest copies any GPU has (FXI_GPU_MIN_COPY_BYTES_PER_S)
 * and s's multiprocessors into e; true when the GPU wins even so. */
static bool sure_of_gpu(const fxi_item_cost *c, const fxi_device_setting *s, double cpu_s,
                        fxi_device_estimate *e)
{
    const fx_gpu_rates slowest = {FXI_GPU_MIN_COPY_BYTES_PER_S, FXI_GPU_MIN_COPY_BYTES_PER_S, 0,
                                  s->multiprocessors, 0};
    fxi_device_estimate_make(c, s, &slowest, e);
    e->cpu_s = cpu_s;
    return e->device == FX_DEVICE_GPU;
}

/* The context as the model sees it. */
static fxi_device_setting setting_of(const fx_context *ctx)
{
    fxi_device_setting s = {ctx->threads, 1, ctx->gpu_warm, fxi_gpu_multiprocessors(ctx), 0};
    const int cpus = ctx->machine_cpus;
    if (ctx->threads >= 1 && cpus > ctx->threads) s.workers = cpus / ctx->threads;
    return s;
}

/* c's share of its batch's bytes (0: no batch given, or c larger than it). */
static double batch_share_of(const fx_context *ctx, const fxi_item_cost *c)
{
    const double bytes = (double)c->upload_bytes;
    if (!ctx->batch_bytes || !(bytes > 0) || bytes >= (double)ctx->batch_bytes) return 0;
    return bytes / (double)ctx->batch_bytes;
}

fx_device_kind fxi_device_choose(fx_context *ctx, const fxi_item_cost *c, bool needs_gpu,
                                 fxi_device_estimate *e, char *why, size_t size)
{
    fxi_device_estimate local;
    if (!e) e = &local;
    const fx_device_kind where = fxi_device_predict(ctx, c, needs_gpu, e);
    fxi_device_adopt(ctx, e, e, why, size);
    return where;
}

void fxi_device_adopt(fx_context *ctx, const fxi_device_estimate *decided, fxi_device_estimate *e,
                      char *why, size_t size)
{
    if (e != decided) *e = *decided;
    if (fxi_device_auto(ctx) && e->device == FX_DEVICE_GPU) ctx->gpu_warm = true;
    if (why) fxi_device_estimate_text(e, ctx->gpu_index, why, size);
}

/* The choices that need no GPU rates and no GPU: c's CPU estimate below any GPU's best
 * case, or below the least c could cost on a GPU from s (the host's share and the first
 * use). True when the CPU is certain, with e filled. */
static bool cpu_without_asking(const fxi_item_cost *c, const fxi_device_setting *s, double cpu_s,
                               fxi_device_estimate *e)
{
    if (c->on_device) return false;
    if (cpu_s < fxi_gpu_best_case_s(c)) {
        /* Nothing to measure: no GPU would be done before the CPU. */
        memset(e, 0, sizeof *e);
        e->reason = FXI_REASON_TINY;
    } else if (!(cpu_s < fxi_gpu_least_on_s(c, s, e))) {
        return false;
    } else {
        /* Nor once the host's share and this context's first use are counted: no
         * measuring either (it would cost the item ~10 ms). */
        e->reason = FXI_REASON_BOUND;
    }
    e->device = FX_DEVICE_CPU;
    e->cpu_s = cpu_s;
    return true;
}

/* A pending context's item above the bound: the GPU is started for it only when it would
 * win at the rates assumed without measuring (FXI_GPU_DEFAULT_*: the H200's, where the
 * model was fitted), CUDA's start included while no context of the process has paid it
 * (FXI_GPU_PROCESS_START_S). Without that an item that goes to the CPU anyway (a near
 * tie: 10000x6000 dense 15x15, 221 ms on the CPU against 260 on the GPU) or one the GPU
 * wins by less than the start would pay it for nothing. True when the CPU wins so, with e. */
static bool cpu_at_assumed_rates(const fxi_item_cost *c, const fxi_device_setting *s,
                                 double cpu_s, fxi_device_estimate *e)
{
    if (c->on_device) return false;
    const fx_gpu_rates assumed = {0}; /* (zeros: FXI_GPU_DEFAULT_*) */
    fxi_device_estimate_make(c, s, &assumed, e);
    e->cpu_s = cpu_s;
    /* The process's first GPU pays CUDA's start: an item it would win by less stays on
     * the CPU (a batch's later items weigh the same way until some context starts one). */
    if (!fxi_gpu_started_in_process()) {
        e->start_s = fxi_gpu_process_start_s(s);
        e->gpu_s += e->start_s;
        if (!(e->gpu_s < e->cpu_s)) e->device = FX_DEVICE_CPU;
    }
    if (e->device != FX_DEVICE_CPU) return false;
    e->reason = FXI_REASON_ASSUMED;
    return true;
}

fx_device_kind fxi_device_predict(fx_context *ctx, const fxi_item_cost *c, bool needs_gpu,
                                  fxi_device_estimate *e)
{
    fxi_device_estimate local;
    if (!e) e = &local;
    memset(e, 0, sizeof *e);
    const double cpu_s = fxi_cpu_estimate_s(c, ctx->threads);
    /* A pending auto context (no GPU looked for yet) knows no multiprocessors: the bound
     * takes the most any GPU has (fxi_gpu_least_on_s), so that it holds for whichever GPU
     * the start would find. Only an item above it, and that a GPU would take at the
     * assumed rates, starts the GPU (a CUDA start: ~0.3 s on the H200 machine, paid
     * inside that item), and is then weighed as before. */
    if (ctx->gpu_pending && !needs_gpu) {
        fxi_device_setting unknown_gpu = setting_of(ctx); /* (multiprocessors 0) */
        unknown_gpu.batch_share = batch_share_of(ctx, c);
        if (cpu_without_asking(c, &unknown_gpu, cpu_s, e) ||
            cpu_at_assumed_rates(c, &unknown_gpu, cpu_s, e))
            return e->device;
    }
    if (ctx->requested == FX_DEVICE_AUTO) (void)fxi_gpu_start(ctx);
    fxi_device_setting s = setting_of(ctx);
    s.batch_share = batch_share_of(ctx, c);
    if (!fxi_device_auto(ctx)) {
        memset(e, 0, sizeof *e);
        e->device = ctx->device;
        e->cpu_s = cpu_s;
        e->reason = ctx->requested == FX_DEVICE_AUTO ? FXI_REASON_NO_GPU : FXI_REASON_FORCED;
    } else if (needs_gpu) {
        memset(e, 0, sizeof *e);
        e->device = FX_DEVICE_GPU;
        e->reason = FXI_REASON_NEEDS_GPU;
    } else if (cpu_without_asking(c, &s, cpu_s, e)) {
        /* (TINY or BOUND, with this GPU's multiprocessors) */
    } else if (!c->on_device && s.multiprocessors > 0 && sure_of_gpu(c, &s, cpu_s, e)) {
        /* Even at the slowest copies any GPU has: no measuring either. */
        e->reason = FXI_REASON_SURE;
    } else {
        fx_gpu_rates rates;
        if (fx_gpu_rates_get(ctx, &rates) != FX_OK) {
            /* Assumed rates: the choice still has to be made. */
            fxi_log(ctx, FX_LOG_WARNING, "GPU rates not measured (%s): assuming %.0f GB/s",
                    ctx->error, FXI_GPU_DEFAULT_COPY_BYTES_PER_S / GB);
            fx_context_clear_error(ctx);
            memset(&rates, 0, sizeof rates);
        }
        fxi_device_estimate_make(c, &s, &rates, e);
    }
    return e->device;
}

void fxi_device_fallback(fx_context *ctx, const char *job, fxi_device_estimate *e, char *why,
                         size_t size)
{
    fxi_log(ctx, FX_LOG_WARNING, "%s: the GPU ran out of memory (%s): this item runs on the CPU",
            job, ctx->error);
    fx_context_clear_error(ctx);
    e->device = FX_DEVICE_CPU;
    e->reason = FXI_REASON_FALLBACK;
    if (why) fxi_device_estimate_text(e, ctx->gpu_index, why, size);
}
