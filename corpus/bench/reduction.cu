// A sum reduction of 32-bit integers: grid-stride loads, a warp-shuffle tree, one shared-memory step per block
// and a 64-bit global atomic per block (integer sums are exact in any order); a unit is four reductions.
// Host reference: the exact sum.
#include "bench.h"

extern "C" __global__ void sum_zero(unsigned long long *sum)
{
    *sum = 0;
}

extern "C" __global__ void sum_reduce(const int *v, unsigned long long *sum, int n)
{
    __shared__ long long warp_sums[32];
    long long s = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += v[i];
    for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
        if (lane == 0) atomicAdd(sum, (unsigned long long)s);
    }
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 1 << 14 : 1 << 26;
    std::vector<int> v(n);
    Lcg g(16);
    for (auto &x : v) x = (int)g.next() >> 4;
    int *dv = to_device(v);
    unsigned long long *ds = device_filled<unsigned long long>(4);
    auto unit = [&] {
        for (int r = 0; r < 4; ++r) {
            sum_zero<<<1, 1>>>(ds + r);
            sum_reduce<<<1056, 512>>>(dv, ds + r, n);
        }
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto sums = to_host(ds, 4);
    long long ref = 0;
    for (int x : v) ref += x;
    bool ok = true;
    for (auto s : sums) ok &= (long long)s == ref;
    Hash h;
    h.add(sums);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d,x4", n);
    return report("reduction", size, t, h, ok);
}
