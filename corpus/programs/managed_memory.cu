// Managed memory: cudaMallocManaged buffers used by host and kernels through one pointer, at the points CUDA
// makes them coherent on any device (with or without concurrent managed access): host writes then a kernel,
// two kernels back to back then the host after cudaDeviceSynchronize, host writes after a synchronisation
// that later copies and memsets must not undo, cudaMemcpy and cudaMemset with managed memory on either
// side. Prints PASS or FAIL; exits 0 only on PASS.
#include <cstdio>

#include "check.h"

__global__ void square(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

__global__ void add(const int *a, int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] += a[i];
}

int main() {
    const int n = 1000;
    int *x, *y, *d;
    CHECK(cudaMallocManaged(&x, n * sizeof(int)));
    CHECK(cudaMallocManaged(&y, n * sizeof(int), cudaMemAttachGlobal));
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    int managed = -1, concurrent = -1;
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0));
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    printf("managedMemory=%d concurrentManagedAccess=%d\n", managed, concurrent);

    // Host writes, a kernel, the host reads after the synchronisation.
    for (int i = 0; i < n; ++i) x[i] = i - 500;
    square<<<(n + 127) / 128, 128>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += x[i] != (i - 500) * (i - 500);
    printf("square: %d wrong\n", bad);

    // Host writes after the synchronisation; a copy and a memset elsewhere must not undo them.
    for (int i = 0; i < n; ++i) y[i] = 3 * i;
    CHECK(cudaMemset(d, 0, n * sizeof(int)));
    // Managed to device memory and back into managed memory, then two kernels in a row.
    CHECK(cudaMemcpy(d, y, n * sizeof(int), cudaMemcpyDefault));
    add<<<(n + 127) / 128, 128>>>(d, x, n);
    add<<<(n + 127) / 128, 128>>>(x, y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int wrong_chain = 0;
    for (int i = 0; i < n; ++i) {
        int xi = (i - 500) * (i - 500) + 3 * i;
        wrong_chain += x[i] != xi;
        wrong_chain += y[i] != 3 * i + xi;
    }
    printf("kernels in a row: %d wrong\n", wrong_chain);
    bad += wrong_chain;

    // cudaMemset of managed memory and cudaMemcpy out of it, no kernel between.
    CHECK(cudaMemset(y, 0x01, n * sizeof(int)));
    int h[n];
    CHECK(cudaMemcpy(h, y, sizeof(h), cudaMemcpyDeviceToHost));
    int wrong_set = 0;
    for (int i = 0; i < n; ++i) wrong_set += (y[i] != 0x01010101) + (h[i] != 0x01010101);
    printf("memset and copy: %d wrong\n", wrong_set);
    bad += wrong_set;

    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(d));
    printf("%s: managed_memory, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad ? 1 : 0;
}
