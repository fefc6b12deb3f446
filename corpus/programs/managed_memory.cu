// Managed memory: one cudaMallocManaged buffer written by the host, squared by a kernel, read back by the
// host after cudaDeviceSynchronize. Prints PASS or FAIL; exits 0 only on PASS.
#include <cstdio>

#include "check.h"

__global__ void square(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

int main() {
    const int n = 1000;
    int *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(int)));
    for (int i = 0; i < n; ++i) x[i] = i - 500;
    square<<<(n + 127) / 128, 128>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += x[i] != (i - 500) * (i - 500);
    CHECK(cudaFree(x));
    printf("%s: managed_memory, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad ? 1 : 0;
}
