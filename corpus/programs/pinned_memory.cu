// Page-locked host memory: cudaMallocHost and cudaHostAlloc buffers as the host side of synchronous and
// asynchronous copies, flags read back with cudaHostGetFlags, a kernel between. Prints PASS or FAIL.
// The flags check what NVIDIA's driver does (recorded on an H200, h200-native.txt): cudaHostAllocPortable is
// not reported back, cudaHostAllocWriteCombined is, and cudaHostAllocMapped is reported exactly when the
// device maps page-locked memory (canMapHostMemory: NVIDIA maps every allocation, sassport none).
#include <cstdio>

#include "check.h"

__global__ void reverse(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[n - 1 - i] = in[i] ^ 0x5a5a5a5au;
}

int main() {
    const int n = 3000;
    unsigned *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, n * sizeof(unsigned)));
    CHECK(cudaHostAlloc(&h_out, n * sizeof(unsigned), cudaHostAllocPortable));
    unsigned flags = 0, wc_flags = 0;
    CHECK(cudaHostGetFlags(&flags, h_out));
    unsigned *h_wc;
    CHECK(cudaHostAlloc(&h_wc, 4096, cudaHostAllocWriteCombined));
    CHECK(cudaHostGetFlags(&wc_flags, h_wc));
    CHECK(cudaFreeHost(h_wc));
    int can_map = 0;
    CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
    unsigned mapped = can_map ? cudaHostAllocMapped : 0;
    for (int i = 0; i < n; ++i) h_in[i] = i * 2654435761u;
    unsigned *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_out, n * sizeof(unsigned)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyAsync(d_in, h_in, n * sizeof(unsigned), cudaMemcpyHostToDevice, s));
    reverse<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out, d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("flags: portable allocation 0x%x, write-combined 0x%x, canMapHostMemory %d\n", flags, wc_flags, can_map);
    int bad = (flags != mapped) + (wc_flags != (mapped | cudaHostAllocWriteCombined));
    for (int i = 0; i < n; ++i) bad += h_out[n - 1 - i] != (h_in[i] ^ 0x5a5a5a5au);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    printf("%s: pinned_memory, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad ? 1 : 0;
}
