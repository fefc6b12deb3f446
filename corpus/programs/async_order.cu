// Asynchronous launches keep CUDA's promises: 300 back-to-back launches on one stream run in order (each
// step is x = 3x + i, which only the right order gives), a second stream that waits on an event of the first
// sees all of them, queries answer cudaSuccess once the work is synchronised, an event pair around the work
// gives a non-negative elapsed time, and device printf output of several launches comes out at the next
// synchronisation, in launch order. Prints PASS or FAIL.
#include <cstdio>

#include "check.h"

__global__ void step(unsigned *x, int n, unsigned i) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) x[t] = x[t] * 3u + i + (unsigned)t;
}

__global__ void copy(const unsigned *in, unsigned *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = in[t];
}

__global__ void say(int i) {
    if (threadIdx.x == 0) printf("async_order launch %d\n", i);
}

int main() {
    const int n = 1000, steps = 300;
    unsigned *x, *out;
    CHECK(cudaMalloc(&x, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&out, n * sizeof(unsigned)));
    CHECK(cudaMemset(x, 0, n * sizeof(unsigned)));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t start, stop, done;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaEventRecord(start, s1));
    for (int i = 0; i < steps; ++i) step<<<(n + 255) / 256, 256, 0, s1>>>(x, n, (unsigned)i);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop, s1));
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));
    copy<<<(n + 255) / 256, 256, 0, s2>>>(x, out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s2));
    unsigned h[n];
    CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < n; ++t) {
        unsigned want = 0;
        for (int i = 0; i < steps; ++i) want = want * 3u + (unsigned)i + (unsigned)t;
        bad += h[t] != want;
    }
    printf("ordered steps: %d wrong\n", bad);
    // s2's work followed the event, so s1's work up to it has completed too.
    cudaError_t q_event = cudaEventQuery(done);
    CHECK(cudaEventSynchronize(stop));
    cudaError_t q_stream = cudaStreamQuery(s1);
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("queries: event %s, stream %s; elapsed %s\n", cudaGetErrorName(q_event), cudaGetErrorName(q_stream),
           ms >= 0.0f ? "non-negative" : "negative");
    bad += q_event != cudaSuccess;
    bad += q_stream != cudaSuccess;
    bad += ms < 0.0f;
    fflush(stdout);
    for (int i = 0; i < 5; ++i) say<<<1, 32, 0, s1>>>(i);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaFree(x));
    CHECK(cudaFree(out));
    printf("%s: async_order, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad ? 1 : 0;
}
