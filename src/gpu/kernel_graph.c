/* A kernel launched as a CUDA graph of its one node (gpu_internal.h's fxi_kernel_graph). */
#include <string.h>

#include "gpu/gpu_internal.h"

/* g's graph of node, instantiated; false where the runtime refuses any step (g is then
 * broken: the caller launches directly from now on). */
static bool make_graph(fxi_kernel_graph *g, const struct cudaKernelNodeParams *node,
                       int cooperative)
{
    cudaLaunchAttributeValue value;
    memset(&value, 0, sizeof value);
    value.cooperative = cooperative;
    if (cudaGraphCreate(&g->graph, 0) == cudaSuccess &&
        cudaGraphAddKernelNode(&g->node, g->graph, NULL, 0, node) == cudaSuccess &&
        (!cooperative || cudaGraphKernelNodeSetAttribute(g->node, cudaLaunchAttributeCooperative,
                                                         &value) == cudaSuccess) &&
        cudaGraphInstantiate(&g->exec, g->graph, 0) == cudaSuccess)
        return true;
    (void)cudaGetLastError();
    fxi_kernel_graph_release(g);
    g->broken = 1;
    return false;
}

static bool same_dim(dim3 a, dim3 b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

fx_status fxi_kernel_graph_launch(fx_context *ctx, fxi_kernel_graph *g, const void *func, dim3 grid,
                                  dim3 block, void **params, int cooperative,
                                  const uint64_t key[FXI_KERNEL_GRAPH_KEY], cudaStream_t stream,
                                  bool *launched)
{
    *launched = false;
    if (g->broken) return FX_OK;
    struct cudaKernelNodeParams node;
    memset(&node, 0, sizeof node);
    node.func = (void *)func;
    node.gridDim = grid;
    node.blockDim = block;
    node.kernelParams = params;
    if (!g->exec) {
        if (!make_graph(g, &node, cooperative)) return FX_OK;
    } else if (memcmp(g->key, key, sizeof g->key) != 0 || g->func != func ||
               !same_dim(g->grid, grid) || !same_dim(g->block, block)) {
        const cudaError_t e = cudaGraphExecKernelNodeSetParams(g->exec, g->node, &node);
        if (e != cudaSuccess) return fxi_cuda_error(ctx, e, "cudaGraphExecKernelNodeSetParams");
    }
    memcpy(g->key, key, sizeof g->key);
    g->func = func;
    g->grid = grid;
    g->block = block;
    const cudaError_t e = cudaGraphLaunch(g->exec, stream);
    if (e == cudaErrorCooperativeLaunchTooLarge) { /* nothing ran: the caller's way */
        (void)cudaGetLastError();
        fxi_kernel_graph_release(g);
        g->broken = 1;
        return FX_OK;
    }
    if (e != cudaSuccess) return fxi_cuda_error(ctx, e, "cudaGraphLaunch");
    *launched = true;
    return FX_OK;
}

void fxi_kernel_graph_release(fxi_kernel_graph *g)
{
    if (g->exec) (void)cudaGraphExecDestroy(g->exec);
    if (g->graph) (void)cudaGraphDestroy(g->graph);
    g->exec = NULL;
    g->graph = NULL;
    g->node = NULL;
}
