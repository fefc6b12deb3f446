// CUB's device-wide algorithms with the usual two calls (size query, then the run with cudaMalloc'd temporary
// storage): DeviceReduce::Sum and ::Max, DeviceScan::ExclusiveSum and ::InclusiveScan with a functor,
// DeviceRadixSort::SortKeys and ::SortPairs, DeviceSelect::If; checked against the same computations on the
// host. Prints PASS or FAIL.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "check.h"

struct is_multiple_of_3 {
    __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};

struct max_op {
    __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

static unsigned lcg(unsigned &s) {
    s = s * 1103515245u + 12345u;
    return s >> 1;
}

// Runs a CUB algorithm twice, first for its temporary storage size, as CUB prescribes.
#define CUB_RUN(call_with_temp)                                     \
    do {                                                            \
        void *d_temp = nullptr;                                     \
        size_t temp_bytes = 0;                                      \
        CHECK(call_with_temp);                                      \
        CHECK(cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));    \
        CHECK(call_with_temp);                                      \
        CHECK(cudaFree(d_temp));                                    \
    } while (0)

template <typename T>
static bool same(const std::vector<T> &want, const T *d, int n) {
    std::vector<T> got(n);
    if (cudaMemcpy(got.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) return false;
    return std::equal(want.begin(), want.end(), got.begin());
}

int main() {
    const int n = 30000;
    unsigned seed = 7u;
    std::vector<int> in(n), vals(n);
    for (int i = 0; i < n; ++i) {
        in[i] = (int)(lcg(seed) % 1000000u) - 500000;
        vals[i] = i;
    }
    int *d_in, *d_out, *d_vals, *d_vals_out, *d_scalar, *d_count;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_vals, n * sizeof(int)));
    CHECK(cudaMalloc(&d_vals_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_scalar, sizeof(int)));
    CHECK(cudaMalloc(&d_count, sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vals, vals.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int failures = 0;
    auto report = [&](const char *what, bool ok) {
        printf("%-26s %s\n", what, ok ? "ok" : "WRONG");
        failures += !ok;
    };

    // Reductions (sums wrap as int, the same on both sides).
    CUB_RUN(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_scalar, n));
    unsigned want_sum = 0;
    for (int v : in) want_sum += (unsigned)v;
    report("DeviceReduce::Sum", same(std::vector<int>{(int)want_sum}, d_scalar, 1));
    CUB_RUN(cub::DeviceReduce::Max(d_temp, temp_bytes, d_in, d_scalar, n));
    report("DeviceReduce::Max", same(std::vector<int>{*std::max_element(in.begin(), in.end())}, d_scalar, 1));

    // Scans.
    CUB_RUN(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n));
    std::vector<int> want(n);
    unsigned acc = 0;
    for (int i = 0; i < n; ++i) {
        want[i] = (int)acc;
        acc += (unsigned)in[i];
    }
    report("DeviceScan::ExclusiveSum", same(want, d_out, n));
    CUB_RUN(cub::DeviceScan::InclusiveScan(d_temp, temp_bytes, d_in, d_out, max_op(), n));
    int m = in[0];
    for (int i = 0; i < n; ++i) want[i] = m = std::max(m, in[i]);
    report("DeviceScan::InclusiveScan", same(want, d_out, n));

    // Radix sorts (pairs: stable, so equal keys keep their values' order).
    CUB_RUN(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_in, d_out, n));
    std::vector<int> sorted = in;
    std::sort(sorted.begin(), sorted.end());
    report("DeviceRadixSort::SortKeys", same(sorted, d_out, n));
    CUB_RUN(cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, d_in, d_out, d_vals, d_vals_out, n));
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return in[a] < in[b]; });
    report("DeviceRadixSort::SortPairs", same(sorted, d_out, n) && same(order, d_vals_out, n));

    // Selection.
    CUB_RUN(cub::DeviceSelect::If(d_temp, temp_bytes, d_in, d_out, d_count, n, is_multiple_of_3()));
    std::vector<int> selected;
    for (int v : in)
        if (v % 3 == 0) selected.push_back(v);
    report("DeviceSelect::If", same(std::vector<int>{(int)selected.size()}, d_count, 1) &&
                                   same(selected, d_out, (int)selected.size()));

    for (int *p : {d_in, d_out, d_vals, d_vals_out, d_scalar, d_count}) CHECK(cudaFree(p));
    printf(failures == 0 ? "PASS\n" : "FAIL\n");
    return failures == 0 ? 0 : 1;
}
