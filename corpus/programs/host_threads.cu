// Four host threads share the device at once: each allocates, copies, launches on its own stream and checks
// its own result. Prints PASS or FAIL; exits 0 only on PASS.
#include <cstdio>
#include <thread>
#include <vector>

#include "check.h"

__global__ void affine(const int *x, int *y, int a, int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}

static int worker(int id) {
    const int n = 2000 + 512 * id;
    std::vector<int> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = i * (id + 1) - 700;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(int)));
    CHECK(cudaMalloc(&dy, n * sizeof(int)));
    for (int round = 0; round < 3; ++round) {
        CHECK(cudaMemcpyAsync(dx, x.data(), n * sizeof(int), cudaMemcpyHostToDevice, s));
        affine<<<(n + 255) / 256, 256, 0, s>>>(dx, dy, id + 2, round - id, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(y.data(), dy, n * sizeof(int), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; ++i) {
            if (y[i] != (id + 2) * x[i] + round - id) {
                printf("thread %d round %d: mismatch at %d\n", id, round, i);
                return 1;
            }
        }
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

int main() {
    int results[4] = {1, 1, 1, 1};
    std::vector<std::thread> threads;
    for (int id = 0; id < 4; ++id) threads.emplace_back([&results, id] { results[id] = worker(id); });
    for (auto &t : threads) t.join();
    int bad = results[0] + results[1] + results[2] + results[3];
    printf("%s: host_threads, %d of 4 threads failed\n", bad ? "FAIL" : "PASS", bad);
    return bad ? 1 : 0;
}
