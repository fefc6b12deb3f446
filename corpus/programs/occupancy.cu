// Occupancy queries against the occupancy calculator's rule computed here from the device's properties and
// the kernels' attributes (blocks are limited by warps, registers, shared memory and a block count per
// multiprocessor), then a launch with the block size cudaOccupancyMaxPotentialBlockSize suggests. On NVIDIA
// hardware this checks the rule below against the driver; elsewhere, the driver against the rule.
// Prints PASS or FAIL.
#include <cstdio>

#include "check.h"

__global__ void light(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 2.0f + 1.0f;
}

__global__ void shared_heavy(int *out) {
    __shared__ int tile[4096];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

static int expected(const cudaDeviceProp &p, const cudaFuncAttributes &fa, int block, size_t dynamic) {
    int warps = (block + 31) / 32;
    int by_warps = (p.maxThreadsPerMultiProcessor / 32) / warps;
    int per_warp_regs = ((fa.numRegs > 0 ? fa.numRegs : 1) * 32 + 255) / 256 * 256;
    int by_regs = (p.regsPerMultiprocessor / per_warp_regs) / warps;
    size_t shared = (fa.sharedSizeBytes + dynamic + 127) / 128 * 128 + p.reservedSharedMemPerBlock;
    int by_shared = (int)(p.sharedMemPerMultiprocessor / shared);
    int n = p.maxBlocksPerMultiProcessor;
    if (by_warps < n) n = by_warps;
    if (by_regs < n) n = by_regs;
    if (by_shared < n) n = by_shared;
    return n;
}

template <typename K>
static int check(const char *name, K kernel, const cudaDeviceProp &p, int block, size_t dynamic) {
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, kernel));
    int blocks = -1;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, dynamic));
    int want = expected(p, fa, block, dynamic);
    if (blocks != want) {
        printf("%s, %d threads, %zu dynamic bytes: %d blocks per multiprocessor, the rule says %d\n", name, block,
               dynamic, blocks, want);
        return 1;
    }
    return 0;
}

int main() {
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int bad = 0;
    for (int block : {32, 96, 128, 256, 512, 1024}) {
        bad += check("light", light, p, block, 0);
        bad += check("light", light, p, block, 8192);
        bad += check("shared_heavy", shared_heavy, p, block, 0);
    }
    int min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, light, 0, 0));
    bad += block <= 0 || block > p.maxThreadsPerBlock || min_grid <= 0;
    const int n = 100000;
    float *d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemset(d, 0, n * sizeof(float)));
    light<<<(n + block - 1) / block, block>>>(d, n);
    CHECK(cudaGetLastError());
    static float h[n];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) bad += h[i] != 1.0f;
    CHECK(cudaFree(d));
    printf("%s: occupancy (suggested block %d, minimum grid %d)\n", bad ? "FAIL" : "PASS", block, min_grid);
    return bad ? 1 : 0;
}
