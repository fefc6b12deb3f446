// Vector add through the CUDA runtime API: cudaMalloc, cudaMemcpy both ways, a launch, cudaDeviceSynchronize,
// checked element by element against the host's sum. Prints PASS or FAIL; exits 0 only on PASS.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 10000;
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.5f * i;
        b[i] = 3.0f - 0.25f * i;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    int block = 256, grid = (n + block - 1) / block;
    vector_add<<<grid, block>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (c[i] != a[i] + b[i]) {
            if (bad < 5) printf("mismatch at %d: %g != %g\n", i, c[i], a[i] + b[i]);
            ++bad;
        }
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    printf("%s: vector_add, %d elements, %d wrong\n", bad ? "FAIL" : "PASS", n, bad);
    return bad ? 1 : 0;
}
