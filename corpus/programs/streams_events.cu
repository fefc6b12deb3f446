// Two streams with asynchronous copies and launches, events recorded on them, a stream waiting on an event,
// elapsed time between events, and the results checked on the host. Prints PASS or FAIL.
#include <cstdio>
#include <vector>

#include "check.h"

__global__ void add_value(int *x, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

__global__ void combine(const int *a, const int *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * 2 + b[i];
}

int main() {
    const int n = 4096;
    std::vector<int> a(n), b(n), out(n);
    for (int i = 0; i < n; ++i) {
        a[i] = i;
        b[i] = 3 * i + 1;
    }
    int *da, *db, *dout;
    CHECK(cudaMalloc(&da, n * sizeof(int)));
    CHECK(cudaMalloc(&db, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t start, a_ready, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&a_ready));
    CHECK(cudaEventCreate(&stop));

    CHECK(cudaEventRecord(start, s1));
    CHECK(cudaMemcpyAsync(da, a.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1));
    add_value<<<n / 256, 256, 0, s1>>>(da, 5, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(a_ready, s1));
    CHECK(cudaMemcpyAsync(db, b.data(), n * sizeof(int), cudaMemcpyHostToDevice, s2));
    add_value<<<n / 256, 256, 0, s2>>>(db, -1, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamWaitEvent(s2, a_ready, 0));
    combine<<<n / 128, 128, 0, s2>>>(da, db, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
    CHECK(cudaEventRecord(stop, s2));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventQuery(stop));
    CHECK(cudaStreamQuery(s1));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    int bad = 0;
    for (int i = 0; i < n; ++i) bad += out[i] != (a[i] + 5) * 2 + (b[i] - 1);
    printf("combine: %d wrong; elapsed %s\n", bad, ms >= 0.0f ? "non-negative" : "negative");
    bad += ms < 0.0f;
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(a_ready));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dout));
    printf("%s: streams_events\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
