/* --device: which device each worker of the batch uses.
 *
 *   auto, cpu, gpu, gpu:N   one device (the library's fx_parse_device)
 *   gpu:N,M,…               these GPUs; a number may repeat (gpu:0,0: two workers share GPU 0)
 *   gpu:all                 every GPU the process sees (CUDA_VISIBLE_DEVICES applies)
 *
 * With several GPUs the batch's workers take them in turn (worker i: the i-th modulo
 * their number), and all take items from the one work list, so big and small files mix
 * without a static split. `gpu` and `auto` without a number follow the process's local
 * rank when an MPI or Slurm launcher gives one (rank modulo the visible GPUs), so that
 * `srun --ntasks-per-node=4 fxkit …` or `mpirun -n 4 fxkit …` puts one process on each
 * GPU of a 4-GPU node with no extra options.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* A GPU number in a list: the library accepts the same range for gpu:N. */
#define GPU_INDEX_MAX 1024

/* "0,2,2" → run->gpus. */
static int parse_list(fxcli_run *run, const char *text, const char *list)
{
    run->gpu_count = 0;
    for (const char *p = list;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > GPU_INDEX_MAX || (*end && *end != ','))
            return fxcli_usage(run, "--device: '%s': GPUs are numbers from 0, separated by commas "
                                    "(gpu:0,1), or gpu:all", text);
        if (run->gpu_count == FXCLI_MAX_GPUS)
            return fxcli_usage(run, "--device: '%s' names more than %d GPUs", text,
                               FXCLI_MAX_GPUS);
        run->gpus[run->gpu_count++] = (int)v;
        if (!*end) break;
        p = end + 1;
    }
    run->device = FX_DEVICE_GPU;
    run->gpu_index = run->gpus[0];
    return FXCLI_EXIT_OK;
}

int fxcli_devices_parse(fxcli_run *run)
{
    const char *text = run->common.device;
    run->gpu_count = 0;
    run->gpu_all = false;
    run->gpu_by_rank = false;
    if (text && !strncasecmp(text, "gpu:", 4)) {
        const char *rest = text + 4;
        if (!strcasecmp(rest, "all")) {
            run->device = FX_DEVICE_GPU;
            run->gpu_index = 0;
            run->gpu_all = true;
            return FXCLI_EXIT_OK;
        }
        if (strchr(rest, ',')) return parse_list(run, text, rest);
    }
    if (fx_parse_device(text, &run->device, &run->gpu_index) != FX_OK)
        return fxcli_usage(run, "--device: '%s' is not one of: auto, cpu, gpu, gpu:N, gpu:N,M,… "
                                "or gpu:all", text ? text : "");
    /* No number given: the launcher's local rank may pick one. */
    run->gpu_by_rank = run->device != FX_DEVICE_CPU && !strchr(text, ':');
    return FXCLI_EXIT_OK;
}

const char *fxcli_no_gpu_reason(fx_status st, fx_context *ctx)
{
    if (!fx_gpu_built()) return "this build has no CUDA support";
    if (st != FX_OK && ctx && fx_context_error(ctx)[0]) return fx_context_error(ctx);
    return "no NVIDIA GPU or driver found";
}

int fxcli_gpu_count(char *why, size_t size)
{
    fx_context_options o;
    fx_context_options_init(&o);
    o.device = FX_DEVICE_CPU;
    o.threads = 1;
    fx_context *ctx = NULL;
    int count = 0;
    if (fx_context_create(&o, &ctx) != FX_OK) {
        snprintf(why, size, "cannot create a context");
        return 0;
    }
    fx_status st = fx_gpu_count(ctx, &count);
    if (st != FX_OK || count <= 0) {
        snprintf(why, size, "%s", fxcli_no_gpu_reason(st, ctx));
        count = 0;
    }
    fx_context_destroy(ctx);
    return count;
}

int fxcli_devices_expand(fxcli_run *run)
{
    char why[FXCLI_MESSAGE_MAX];
    if (run->gpu_all) {
        int count = fxcli_gpu_count(why, sizeof why);
        if (count == 0) return fxcli_usage(run, "--device %s: %s", run->common.device, why);
        if (count > FXCLI_MAX_GPUS) count = FXCLI_MAX_GPUS;
        for (int i = 0; i < count; i++)
            run->gpus[i] = i;
        run->gpu_count = count;
        return FXCLI_EXIT_OK;
    }
    int rank;
    const char *variable;
    if (!run->gpu_by_rank || !fxcli_local_rank(NULL, &rank, &variable)) return FXCLI_EXIT_OK;
    int count = fxcli_gpu_count(why, sizeof why);
    /* auto without a GPU stays auto (the CPU); gpu without one fails in the context. */
    if (count == 0) return FXCLI_EXIT_OK;
    /* auto stays auto (each item by cost), on the rank's GPU. */
    if (run->device != FX_DEVICE_AUTO) run->device = FX_DEVICE_GPU;
    run->gpu_index = rank % count;
    snprintf(run->gpu_note, sizeof run->gpu_note, "GPU %d of %d, from %s=%d", run->gpu_index,
             count, variable, rank);
    return FXCLI_EXIT_OK;
}

int fxcli_worker_gpu(const fxcli_run *run, int worker)
{
    if (run->gpu_count == 0) return run->gpu_index;
    return run->gpus[worker % run->gpu_count];
}
