// Launch throughput: N back-to-back launches of an empty kernel then one cudaDeviceSynchronize, timed on the
// host (issue 18's figure: host time per launch, against native CUDA's on the same GPU). Then N launches of a
// one-thread kernel that bumps a counter, which must read N afterwards: every launch ran, in stream order.
// Prints the two per-launch times and PASS or FAIL; exits 0 only on PASS. N is the first argument (10000).
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "check.h"

__global__ void empty_kernel() {}

__global__ void bump(unsigned *counter) { *counter += 1; }

static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 10000;
    if (n <= 0) {
        printf("FAIL: launch count %s is not positive\n", argv[1]);
        return 1;
    }
    // One warm-up launch: module loading and pipeline creation are not launch costs.
    empty_kernel<<<1, 32>>>();
    CHECK(cudaDeviceSynchronize());
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 32>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double empty_s = seconds_since(start);

    unsigned *counter;
    CHECK(cudaMalloc(&counter, sizeof(unsigned)));
    CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
    bump<<<1, 1>>>(counter);
    CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) bump<<<1, 1>>>(counter);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double bump_s = seconds_since(start);
    unsigned got = 0;
    CHECK(cudaMemcpy(&got, counter, sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(counter));

    printf("empty kernel: %d launches + synchronize in %.3f s, %.2f us per launch\n", n, empty_s,
           1e6 * empty_s / n);
    printf("counter kernel: %d launches + synchronize in %.3f s, %.2f us per launch; counter %u\n", n, bump_s,
           1e6 * bump_s / n, got);
    bool ok = got == (unsigned)n;
    printf("%s: launch_throughput, %d launches, counter %u (want %d)\n", ok ? "PASS" : "FAIL", n, got, n);
    return ok ? 0 : 1;
}
