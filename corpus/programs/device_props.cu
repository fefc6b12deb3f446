// Device properties and function attributes agree with each other and with what the device does: attribute
// queries match cudaGetDeviceProperties, an allocation lowers free memory, a kernel's attributes fit the
// device, and a launch of the largest block the kernel reports runs. Prints PASS or FAIL.
#include <cstdio>
#include <cstring>

#include "check.h"

__global__ void fill(int *out, int v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x; }

static int expect(const char *what, long long got, long long want) {
    if (got != want) {
        printf("%s: %lld, want %lld\n", what, got, want);
        return 1;
    }
    return 0;
}

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    int bad = count < 1;
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    printf("device 0: %s, compute capability %d.%d, %d multiprocessors, %zu bytes\n", p.name, p.major, p.minor,
           p.multiProcessorCount, p.totalGlobalMem);
    int v = 0;
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
    bad += expect("major", v, p.major);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0));
    bad += expect("max threads per block", v, p.maxThreadsPerBlock);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    bad += expect("multiprocessors", v, p.multiProcessorCount);
    bad += expect("warp size", p.warpSize, 32);
    bad += p.maxThreadsPerBlock < 64 || p.maxThreadsPerBlock > 1024;
    bad += p.maxThreadsDim[0] * (long long)p.maxThreadsDim[1] < p.maxThreadsPerBlock;
    bad += strlen(p.name) == 0;

    size_t free0 = 0, total = 0, free1 = 0;
    CHECK(cudaMemGetInfo(&free0, &total));
    bad += expect("total memory", total, p.totalGlobalMem);
    int *d;
    CHECK(cudaMalloc(&d, 1 << 20));
    CHECK(cudaMemGetInfo(&free1, &total));
    bad += free1 + (1 << 20) > free0;

    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, fill));
    printf("fill: %d registers, at most %d threads, binary version %d\n", fa.numRegs, fa.maxThreadsPerBlock,
           fa.binaryVersion);
    bad += expect("binary version", fa.binaryVersion, p.major * 10 + p.minor);
    bad += fa.maxThreadsPerBlock < 32 || fa.maxThreadsPerBlock > p.maxThreadsPerBlock;
    bad += fa.numRegs <= 0;
    int threads = fa.maxThreadsPerBlock;
    fill<<<2, threads>>>(d, 7);
    CHECK(cudaGetLastError());
    static int h[2 * 1024];
    CHECK(cudaMemcpy(h, d, 2 * threads * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2 * threads; ++i) bad += h[i] != 7 + i % threads;
    CHECK(cudaFree(d));
    printf("%s: device_props\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
