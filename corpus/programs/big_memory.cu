// Device-sized memory (issue 19): one cudaMalloc of 100 GiB (argv[1] MiB if given; 8 MiB on a device that
// reports less than 100 GiB), every 8-byte word written by a grid-stride kernel with a hash of its 64-bit index
// and read back by a second kernel that counts the mismatches; the allocation's last 1 GiB (or what there is)
// copied to the host and checked there; then copy bandwidth of 1 GiB each way between pageable host memory
// and the device. Prints PASS or FAIL; exits 0 only on PASS. Through sassport the allocation spans many
// window chunks (docs/abi.md).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

__host__ __device__ inline unsigned long long mix(unsigned long long i) {
    unsigned long long x = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

__global__ void fill(unsigned long long *p, unsigned long long n) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = mix(i);
}

__global__ void check(const unsigned long long *p, unsigned long long n, unsigned long long *bad) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long mine = 0;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        mine += p[i] != mix(i);
    if (mine) atomicAdd(bad, mine);
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv) {
    size_t free_b = 0, total_b = 0;
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    // Without an argument: 100 GiB on any device that reports at least that much (the H200 through sassport
    // reports over 127 GB); a smaller device (lavapipe's default window is 127 MiB) gets 8 MiB, enough to
    // run every step in about a second. Either way the size is printed on the PASS line.
    const unsigned long long kFull = 100ull << 30;
    unsigned long long bytes = argc > 1 ? strtoull(argv[1], nullptr, 10) << 20
                               : total_b >= kFull ? kFull
                                                  : 8ull << 20;
    unsigned long long n = bytes / 8;
    printf("device memory: %.1f GiB total, %.1f GiB free; allocating %.1f GiB (%llu MiB)\n",
           total_b / 1073741824.0, free_b / 1073741824.0, bytes / 1073741824.0, bytes >> 20);
    unsigned long long *d = nullptr, *bad = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMalloc(&bad, sizeof(unsigned long long)));
    CHECK(cudaMemset(bad, 0, sizeof(unsigned long long)));
    auto t0 = std::chrono::steady_clock::now();
    fill<<<4096, 256>>>(d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double t_fill = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    check<<<4096, 256>>>(d, n, bad);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double t_check = seconds_since(t0);
    unsigned long long wrong = ~0ull;
    CHECK(cudaMemcpy(&wrong, bad, sizeof wrong, cudaMemcpyDeviceToHost));
    printf("fill %.3f s (%.1f GB/s), check %.3f s (%.1f GB/s): %llu wrong words of %llu\n", t_fill,
           bytes / t_fill / 1e9, t_check, bytes / t_check / 1e9, wrong, n);

    // The tail of the allocation, checked on the host; then 1 GiB each way, timed.
    unsigned long long tail = bytes < (1ull << 30) ? bytes : 1ull << 30;
    unsigned long long first = (bytes - tail) / 8;
    std::vector<unsigned long long> h(tail / 8);
    t0 = std::chrono::steady_clock::now();
    CHECK(cudaMemcpy(h.data(), d + first, tail, cudaMemcpyDeviceToHost));
    double t_d2h = seconds_since(t0);
    unsigned long long host_wrong = 0;
    for (unsigned long long k = 0; k < tail / 8; ++k) host_wrong += h[k] != mix(first + k);
    for (unsigned long long k = 0; k < tail / 8; ++k) h[k] = ~mix(first + k);
    t0 = std::chrono::steady_clock::now();
    CHECK(cudaMemcpy(d, h.data(), tail, cudaMemcpyHostToDevice));
    double t_h2d = seconds_since(t0);
    std::vector<unsigned long long> back(tail / 8);
    CHECK(cudaMemcpy(back.data(), d, tail, cudaMemcpyDeviceToHost));
    unsigned long long round_wrong = 0;
    for (unsigned long long k = 0; k < tail / 8; ++k) round_wrong += back[k] != h[k];
    printf("copies of %.2f GiB: device to host %.2f GB/s, host to device %.2f GB/s\n", tail / 1073741824.0,
           tail / t_d2h / 1e9, tail / t_h2d / 1e9);
    printf("host check of the last %.2f GiB: %llu wrong; round trip: %llu wrong\n", tail / 1073741824.0,
           host_wrong, round_wrong);
    CHECK(cudaFree(d));
    CHECK(cudaFree(bad));
    bool ok = wrong == 0 && host_wrong == 0 && round_wrong == 0;
    printf("%s: big_memory, %.1f GiB (%llu MiB) in one allocation\n", ok ? "PASS" : "FAIL", bytes / 1073741824.0,
           bytes >> 20);
    return ok ? 0 : 1;
}
