// A failed device assert() is reported at the next synchronisation as cudaErrorAssert and stays: later calls
// fail with it too (CUDA's sticky errors), while work before it completed. Prints PASS or FAIL.
#include <cassert>
#include <cstdio>

#include "check.h"

__global__ void check_positive(const int *x, int *ok, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(x[i] > 0);
        ok[i] = 1;
    }
}

int main() {
    const int n = 256;
    int h[n], flags[n];
    for (int i = 0; i < n; ++i) h[i] = i + 1;
    int *dx, *dok;
    CHECK(cudaMalloc(&dx, n * sizeof(int)));
    CHECK(cudaMalloc(&dok, n * sizeof(int)));
    CHECK(cudaMemcpy(dx, h, sizeof(h), cudaMemcpyHostToDevice));
    check_positive<<<1, n>>>(dx, dok, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(flags, dok, sizeof(flags), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += flags[i] != 1;

    h[100] = -5;
    CHECK(cudaMemcpy(dx, h, sizeof(h), cudaMemcpyHostToDevice));
    check_positive<<<1, n>>>(dx, dok, n);
    cudaError_t sync = cudaDeviceSynchronize();
    void *p = nullptr;
    cudaError_t after = cudaMalloc(&p, 16);
    printf("synchronize: %s; allocation after it: %s\n", cudaGetErrorName(sync), cudaGetErrorName(after));
    bad += sync != cudaErrorAssert;
    bad += after != cudaErrorAssert;
    printf("%s: assert_sticky\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
