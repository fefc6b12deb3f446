// A 256-bin byte histogram: per-block histograms in shared memory (shared atomics), merged with global atomics;
// grid-stride over 32-bit words, four bytes each. The bytes are skewed (a few hot bins) so atomics contend.
// Host reference: the exact counts.
#include "bench.h"

extern "C" __global__ void hist_zero(unsigned *hist)
{
    hist[threadIdx.x] = 0;
}

extern "C" __global__ void histogram256(const unsigned *words, unsigned *hist, int n)
{
    __shared__ unsigned local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned w = words[i];
        atomicAdd(&local[w & 255], 1u);
        atomicAdd(&local[(w >> 8) & 255], 1u);
        atomicAdd(&local[(w >> 16) & 255], 1u);
        atomicAdd(&local[w >> 24], 1u);
    }
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 1 << 14 : 1 << 26;
    std::vector<unsigned> words(n);
    Lcg g(15);
    for (auto &w : words) {
        w = 0;
        for (int b = 0; b < 4; ++b) {
            unsigned r = g.next();
            unsigned byte = (r & 3) == 0 ? (r >> 8) & 7 : (r >> 16) & 255; // a quarter fall in 8 hot bins
            w |= byte << (8 * b);
        }
    }
    unsigned *dw = to_device(words), *dh = device_filled<unsigned>(256);
    auto unit = [&] {
        hist_zero<<<1, 256>>>(dh);
        histogram256<<<1056, 256>>>(dw, dh, n);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto hist = to_host(dh, 256);
    std::vector<unsigned> ref(256, 0);
    for (unsigned w : words)
        for (int b = 0; b < 4; ++b) ref[(w >> (8 * b)) & 255]++;
    Hash h;
    h.add(hist);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d", n);
    return report("histogram", size, t, h, hist == ref);
}
