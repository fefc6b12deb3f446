// Error paths: a launch with an oversized block fails with cudaErrorInvalidValue (what CUDA 13.5's runtime
// reports on NVIDIA's driver, recorded on an H200: the driver answers CUDA_ERROR_INVALID_VALUE) and leaves the
// context usable; an impossible allocation fails with cudaErrorMemoryAllocation and is the last error once;
// a correct launch afterwards still gives the right answer. Prints PASS or FAIL.
#include <cstdio>

#include "check.h"

__global__ void write_index(int *out) { out[threadIdx.x] = threadIdx.x; }

static int expect(const char *what, cudaError_t got, cudaError_t want) {
    if (got != want) {
        printf("%s: got %s, want %s\n", what, cudaGetErrorName(got), cudaGetErrorName(want));
        return 1;
    }
    printf("%s: %s as expected\n", what, cudaGetErrorName(got));
    return 0;
}

int main() {
    int bad = 0;
    int *d;
    CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
    write_index<<<1, 2048>>>(d);
    bad += expect("block of 2048 threads", cudaGetLastError(), cudaErrorInvalidValue);
    write_index<<<1, dim3(1, 1, 128)>>>(d);
    bad += expect("blockDim.z of 128", cudaGetLastError(), cudaErrorInvalidValue);
    void *huge = nullptr;
    bad += expect("allocation of 1 TiB", cudaMalloc(&huge, size_t(1) << 40), cudaErrorMemoryAllocation);
    bad += expect("last error after the failed allocation is cleared", cudaGetLastError(), cudaErrorMemoryAllocation);
    bad += expect("no error left", cudaGetLastError(), cudaSuccess);

    write_index<<<1, 1024>>>(d);
    CHECK(cudaGetLastError());
    int h[1024];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < 1024; ++i) wrong += h[i] != i;
    printf("launch after the errors: %d wrong\n", wrong);
    bad += wrong;
    CHECK(cudaFree(d));
    printf("%s: error_paths\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
