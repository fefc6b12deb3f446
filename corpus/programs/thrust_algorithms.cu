// Thrust on the device: device_vector, transform with a functor, sort (integer and float keys), sort_by_key,
// reduce, inclusive and exclusive scan, count_if, and copy back to host_vector; each result checked against
// the same computation with the C++ standard library on the host. Prints PASS or FAIL.
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <exception>
#include <cstdio>
#include <numeric>
#include <vector>

struct affine {
    int a, b;
    __host__ __device__ int operator()(int x) const { return a * x + b; }
};

struct is_odd {
    __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};

static unsigned lcg(unsigned &s) {
    s = s * 1664525u + 1013904223u;
    return s;
}

static int report(const char *what, bool ok, int &failures) {
    printf("%-22s %s\n", what, ok ? "ok" : "WRONG");
    failures += !ok;
    return ok;
}

static int run() {
    const int n = 20000;  // more than one tile, so the multi-block paths run
    int failures = 0;
    unsigned seed = 12345u;
    std::vector<int> keys(n);
    std::vector<float> fkeys(n);
    std::vector<int> values(n);
    for (int i = 0; i < n; ++i) {
        keys[i] = (int)(lcg(seed) % 100000u) - 50000;
        fkeys[i] = (float)((int)(lcg(seed) % 2000001u) - 1000000) / 64.0f;
        values[i] = i;
    }

    // transform
    thrust::device_vector<int> d_keys(keys.begin(), keys.end());
    thrust::device_vector<int> d_out(n);
    thrust::transform(d_keys.begin(), d_keys.end(), d_out.begin(), affine{3, -7});
    std::vector<int> want(n);
    std::transform(keys.begin(), keys.end(), want.begin(), affine{3, -7});
    thrust::host_vector<int> h_out = d_out;
    report("transform", std::equal(want.begin(), want.end(), h_out.begin()), failures);

    // reduce (sum and maximum)
    long long sum = thrust::reduce(d_keys.begin(), d_keys.end(), 0LL, thrust::plus<long long>());
    long long want_sum = std::accumulate(keys.begin(), keys.end(), 0LL);
    int mx = thrust::reduce(d_keys.begin(), d_keys.end(), -1000000, thrust::maximum<int>());
    report("reduce", sum == want_sum && mx == *std::max_element(keys.begin(), keys.end()), failures);

    // count_if
    long long odd = thrust::count_if(d_keys.begin(), d_keys.end(), is_odd());
    report("count_if", odd == std::count_if(keys.begin(), keys.end(), is_odd()), failures);

    // scans
    thrust::inclusive_scan(d_keys.begin(), d_keys.end(), d_out.begin());
    std::partial_sum(keys.begin(), keys.end(), want.begin());
    h_out = d_out;
    report("inclusive_scan", std::equal(want.begin(), want.end(), h_out.begin()), failures);
    thrust::exclusive_scan(d_keys.begin(), d_keys.end(), d_out.begin(), 10);
    int acc = 10;
    for (int i = 0; i < n; ++i) {
        want[i] = acc;
        acc += keys[i];
    }
    h_out = d_out;
    report("exclusive_scan", std::equal(want.begin(), want.end(), h_out.begin()), failures);

    // sort (integers, radix sort) and sort_by_key (stable: equal keys keep their values' order)
    thrust::device_vector<int> d_values(values.begin(), values.end());
    thrust::device_vector<int> d_sorted = d_keys;
    thrust::sort(d_sorted.begin(), d_sorted.end());
    std::vector<int> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    h_out = d_sorted;
    report("sort int", std::equal(sorted.begin(), sorted.end(), h_out.begin()), failures);

    thrust::sort_by_key(d_keys.begin(), d_keys.end(), d_values.begin());
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    thrust::host_vector<int> h_keys = d_keys, h_values = d_values;
    bool by_key = true;
    for (int i = 0; i < n; ++i) by_key &= h_keys[i] == keys[order[i]] && h_values[i] == order[i];
    report("sort_by_key", by_key, failures);

    // sort floats descending (a comparison sort with a functor)
    thrust::device_vector<float> d_f(fkeys.begin(), fkeys.end());
    thrust::sort(d_f.begin(), d_f.end(), thrust::greater<float>());
    std::vector<float> fsorted = fkeys;
    std::sort(fsorted.begin(), fsorted.end(), std::greater<float>());
    thrust::host_vector<float> h_f = d_f;
    report("sort float greater", std::equal(fsorted.begin(), fsorted.end(), h_f.begin()), failures);

    // sequence + copy to a host vector
    thrust::device_vector<int> d_seq(1000);
    thrust::sequence(d_seq.begin(), d_seq.end(), 5, 3);
    std::vector<int> seq(1000);
    thrust::copy(d_seq.begin(), d_seq.end(), seq.begin());
    bool seq_ok = true;
    for (int i = 0; i < 1000; ++i) seq_ok &= seq[i] == 5 + 3 * i;
    report("sequence/copy", seq_ok, failures);

    printf(failures == 0 ? "PASS\n" : "FAIL\n");
    return failures == 0 ? 0 : 1;
}

// Thrust reports CUDA failures as exceptions: one that escapes is a FAIL with its message.
int main() {
    try {
        return run();
    } catch (const std::exception &e) {
        printf("FAIL: %s\n", e.what());
        return 1;
    }
}
