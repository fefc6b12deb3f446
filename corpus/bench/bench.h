// The harness of the benchmark set (corpus/bench/*.cu, docs/perf/benchset.sh): argument parsing, deterministic
// inputs, timing with CUDA events and one result line per program. Natively the events are NVIDIA's GPU
// timestamps; through `sassport exec` sassport's libcuda queues a Vulkan timestamp with each record
// (cuda/src/stream.rs), so both sides time the same unit of work on the GPU's clock.
//
// A program prints one line
//   BENCH <name> <size> ms=<median> min=<min> reps=<n> hash=<fnv1a-64 of the outputs> ref=<PASS|FAIL>
// and exits 0 only when the output matched the host reference (ref=FAIL exits 1). The driver compares the
// hash of the native run with the hash through sassport: equal hashes mean bit-identical outputs.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL: %s at line %d: %s (%s)\n", #call, __LINE__, cudaGetErrorString(e_),      \
                   cudaGetErrorName(e_));                                                          \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

struct Opts {
    bool small = false;   // --small: smoke sizes for lavapipe
    double budget_ms = 400; // --budget MS: timed launches stop after about this much GPU time
    int max_reps = 30;    // --reps N: at most this many timed units
};

static Opts parse_opts(int argc, char **argv)
{
    Opts o;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--small")) o.small = true;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) o.max_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) o.budget_ms = atof(argv[++i]);
        else {
            printf("FAIL: unknown argument %s (expected --small, --reps N, --budget MS)\n", argv[i]);
            exit(2);
        }
    }
    if (o.max_reps < 1) o.max_reps = 1;
    return o;
}

// A small deterministic generator (64-bit LCG, high bits), the same on every machine.
struct Lcg {
    uint64_t s;
    explicit Lcg(uint64_t seed) : s(seed * 6364136223846793005ull + 1442695040888963407ull) {}
    uint32_t next()
    {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (uint32_t)(s >> 32);
    }
    // An integer in [lo, hi].
    int range(int lo, int hi) { return lo + (int)(next() % (uint32_t)(hi - lo + 1)); }
};

// Small integers as floats: products and sums of a few thousand of them stay exact, so the result does not
// depend on summation order and a host reference can be exact.
static std::vector<float> small_floats(size_t n, uint64_t seed, int lo = -8, int hi = 7)
{
    std::vector<float> v(n);
    Lcg g(seed);
    for (auto &x : v) x = (float)g.range(lo, hi);
    return v;
}

template <class T> static T *to_device(const std::vector<T> &h)
{
    T *d = nullptr;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <class T> static T *device_filled(size_t n, unsigned char byte = 0xff)
{
    T *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(T)));
    CHECK(cudaMemset(d, byte, n * sizeof(T)));
    return d;
}

template <class T> static std::vector<T> to_host(const T *d, size_t n)
{
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

// FNV-1a over the outputs, buffer after buffer.
struct Hash {
    uint64_t h = 0xcbf29ce484222325ull;
    template <class T> void add(const std::vector<T> &v)
    {
        const unsigned char *p = (const unsigned char *)v.data();
        for (size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    }
};

struct Timing {
    double median = 0, min = 0;
    int reps = 0;
};

// Times `unit` (one or more launches): two warm-up units, then one event pair around each timed unit until
// the budget or the rep limit is reached; the median and minimum in milliseconds.
template <class F> static Timing time_unit(const Opts &o, F unit)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 2; ++i) unit();
    CHECK(cudaDeviceSynchronize());
    std::vector<double> ts;
    double spent = 0;
    while ((int)ts.size() < o.max_reps && (ts.size() < 3 || spent < o.budget_ms)) {
        CHECK(cudaEventRecord(a));
        unit();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        ts.push_back(ms);
        spent += ms;
    }
    std::sort(ts.begin(), ts.end());
    Timing t;
    t.reps = (int)ts.size();
    t.min = ts[0];
    size_t m = ts.size();
    t.median = m % 2 ? ts[m / 2] : 0.5 * (ts[m / 2 - 1] + ts[m / 2]);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return t;
}

// Prints the result line; the exit status of the program.
static int report(const char *name, const char *size, const Timing &t, const Hash &h, bool ref_ok)
{
    printf("BENCH %s %s ms=%.4f min=%.4f reps=%d hash=%016llx ref=%s\n", name, size, t.median, t.min, t.reps,
           (unsigned long long)h.h, ref_ok ? "PASS" : "FAIL");
    return ref_ok ? 0 : 1;
}

static int grid_for(size_t n, int block) { return (int)((n + block - 1) / block); }
