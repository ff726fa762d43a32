/* PCIe throughput between pinned host memory and the GPU with several host threads,
 * each on its own stream, as the GPU normalizer's batch does: every thread copies
 * CHUNK bytes up and CHUNK bytes down, in turn, waiting for each pair (the shape of
 * one ramp batch), until TOTAL bytes per thread have gone each way. Prints the
 * aggregate GB/s (both directions counted) for 1, 4 and 16 threads, and again with the
 * two directions on two streams per thread (the ramp's download overlapping the next
 * batch's upload).
 *
 *   gpu_pcie_bench [CHUNK_MIB]   (default 8: one batch of 2^20 doubles)
 *
 * Build: `make` builds it into build/bench/gpu_pcie_bench when CUDA is on
 * (bench/CMakeLists.txt); by hand: gcc -O2 bench/gpu_pcie_bench.c -I/usr/local/cuda/include
 *        -L/usr/local/cuda/lib64 -lcudart_static -lpthread -ldl -lrt -o gpu_pcie_bench
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <stdlib.h>

#define TOTAL ((size_t)256 << 20) /* about one 6-minute stereo file of doubles */

static size_t chunk = (size_t)8 << 20;
static int overlap; /* the download on a second stream, waited for one step later */
/* The main thread and the workers meet after the allocations (pinning takes longer
 * than the copies) and after the copies: only the copies are timed. */
static pthread_barrier_t ready, finished;
static volatile int failed; /* a worker could not allocate: its result is void */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *worker(void *arg)
{
    (void)arg;
    cudaStream_t up, down;
    char *host, *dev;
    if (cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking) != cudaSuccess ||
        cudaHostAlloc((void **)&host, 2 * chunk, cudaHostAllocDefault) != cudaSuccess ||
        cudaMalloc((void **)&dev, 2 * chunk) != cudaSuccess) {
        failed = 1;
        pthread_barrier_wait(&ready);
        pthread_barrier_wait(&finished);
        return NULL;
    }
    pthread_barrier_wait(&ready);
    for (size_t done = 0; done < TOTAL; done += chunk) {
        cudaMemcpyAsync(dev, host, chunk, cudaMemcpyHostToDevice, up);
        if (overlap) cudaStreamSynchronize(down); /* the previous step's download */
        cudaMemcpyAsync(host + chunk, dev + chunk, chunk, cudaMemcpyDeviceToHost,
                        overlap ? down : up);
        cudaStreamSynchronize(up);
    }
    cudaStreamSynchronize(down);
    pthread_barrier_wait(&finished);
    cudaFree(dev);
    cudaFreeHost(host);
    cudaStreamDestroy(up);
    cudaStreamDestroy(down);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) chunk = (size_t)atoi(argv[1]) << 20;
    cudaFree(0);
    const int counts[] = {1, 4, 16};
    for (int k = 0; k < 6; k++) {
        const int c = k % 3;
        overlap = k >= 3;
        pthread_t t[16];
        pthread_barrier_init(&ready, NULL, (unsigned)counts[c] + 1);
        pthread_barrier_init(&finished, NULL, (unsigned)counts[c] + 1);
        for (int i = 0; i < counts[c]; i++)
            pthread_create(&t[i], NULL, worker, NULL);
        pthread_barrier_wait(&ready);
        double t0 = now_s();
        pthread_barrier_wait(&finished);
        double s = now_s() - t0;
        for (int i = 0; i < counts[c]; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&ready);
        pthread_barrier_destroy(&finished);
        if (failed) {
            printf("RESULT pcie_error cannot allocate %zu MiB per thread\n", 2 * chunk >> 20);
            return 1;
        }
        printf("RESULT pcie_chunk_mib %zu threads %d overlap %d bytes_each_way %.0f MB seconds "
               "%.3f GBps_both %.1f\n",
               chunk >> 20, counts[c], overlap, (double)(TOTAL * (size_t)counts[c]) / 1e6, s,
               2.0 * (double)(TOTAL * (size_t)counts[c]) / s / 1e9);
    }
    return 0;
}
