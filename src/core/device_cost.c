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
    if (threads > 1) compute = compute / (threads * FXI_CPU_THREAD_EFFICIENCY) + FXI_CPU_POOL_WAKE_S;
    const double memory = c->cpu_bytes / FXI_CPU_MEMORY_BYTES_PER_S;
    return compute > memory ? compute : memory;
}

double fxi_gpu_best_case_s(const fxi_item_cost *c)
{
    const double bytes = c->on_device ? 0 : (double)c->upload_bytes + (double)c->download_bytes;
    return c->gpu_fixed_s + c->gpu_sm_s / FXI_GPU_MAX_MULTIPROCESSORS +
           bytes / (FXI_GPU_MAX_COPY_BYTES_PER_S * FXI_GPU_STAGING_EFFICIENCY);
}

void fxi_device_estimate_make(const fxi_item_cost *c, int threads, const fx_gpu_rates *rates,
                              fxi_device_estimate *out)
{
    memset(out, 0, sizeof *out);
    out->cpu_s = fxi_cpu_estimate_s(c, threads);
    if (!rates) {
        out->device = FX_DEVICE_CPU;
        out->reason = FXI_REASON_NO_GPU;
        return;
    }
    const int sms = rates->multiprocessors > 0 ? rates->multiprocessors
                                               : FXI_GPU_DEFAULT_MULTIPROCESSORS;
    double up = rates->upload_bytes_per_s > 0 ? rates->upload_bytes_per_s
                                              : FXI_GPU_DEFAULT_COPY_BYTES_PER_S;
    double down = rates->download_bytes_per_s > 0 ? rates->download_bytes_per_s
                                                  : FXI_GPU_DEFAULT_COPY_BYTES_PER_S;
    up *= FXI_GPU_STAGING_EFFICIENCY;
    down *= FXI_GPU_STAGING_EFFICIENCY;
    if (!c->on_device) {
        out->upload_bytes = c->upload_bytes;
        out->download_bytes = c->download_bytes;
        out->pcie_s = (double)c->upload_bytes / up + (double)c->download_bytes / down;
    }
    out->copy_bytes_per_s = (up + down) / 2;
    out->gpu_s = c->gpu_fixed_s + c->gpu_sm_s / sms + out->pcie_s;
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
    case FXI_REASON_FALLBACK:
        snprintf(buf, size, "%s (auto: the GPU ran out of memory; cpu ~%s, gpu ~%s)", where, cpu,
                 gpu);
        return;
    default: break;
    }
    if (!e->upload_bytes && !e->download_bytes) {
        snprintf(buf, size, "%s (auto: cpu ~%s, gpu ~%s)", where, cpu, gpu);
        return;
    }
    char up[32], down[32], pcie[80];
    format_mb(e->upload_bytes, up, sizeof up);
    format_mb(e->download_bytes, down, sizeof down);
    if (e->upload_bytes == e->download_bytes)
        snprintf(pcie, sizeof pcie, "2 x %s", up);
    else
        snprintf(pcie, sizeof pcie, "%s + %s", up, down);
    snprintf(buf, size, "%s (auto: cpu ~%s, gpu ~%s incl. PCIe %s at %.0f GB/s)", where, cpu, gpu,
             pcie, e->copy_bytes_per_s / GB);
}

bool fxi_device_auto(const fx_context *ctx)
{
    return ctx->requested == FX_DEVICE_AUTO && ctx->device == FX_DEVICE_GPU;
}

fx_device_kind fxi_device_choose(fx_context *ctx, const fxi_item_cost *c, bool needs_gpu,
                                 fxi_device_estimate *e, char *why, size_t size)
{
    fxi_device_estimate local;
    if (!e) e = &local;
    memset(e, 0, sizeof *e);
    if (!fxi_device_auto(ctx)) {
        e->device = ctx->device;
        e->cpu_s = fxi_cpu_estimate_s(c, ctx->threads);
        e->reason = ctx->requested == FX_DEVICE_AUTO ? FXI_REASON_NO_GPU : FXI_REASON_FORCED;
    } else if (needs_gpu) {
        e->device = FX_DEVICE_GPU;
        e->reason = FXI_REASON_NEEDS_GPU;
    } else if (!c->on_device && fxi_cpu_estimate_s(c, ctx->threads) < fxi_gpu_best_case_s(c)) {
        /* Nothing to measure: no GPU would be done before the CPU. */
        e->device = FX_DEVICE_CPU;
        e->cpu_s = fxi_cpu_estimate_s(c, ctx->threads);
        e->reason = FXI_REASON_TINY;
    } else {
        fx_gpu_rates rates;
        if (fx_gpu_rates_get(ctx, &rates) != FX_OK) {
            /* Assumed rates: the choice still has to be made. */
            fxi_log(ctx, FX_LOG_WARNING, "GPU rates not measured (%s): assuming %.0f GB/s",
                    ctx->error, FXI_GPU_DEFAULT_COPY_BYTES_PER_S / GB);
            fx_context_clear_error(ctx);
            memset(&rates, 0, sizeof rates);
        }
        fxi_device_estimate_make(c, ctx->threads, &rates, e);
    }
    if (why) fxi_device_estimate_text(e, ctx->gpu_index, why, size);
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
