// An inclusive prefix sum of 32-bit integers in three kernels: a shared-memory scan of 1024-element tiles
// (256 threads, four elements each, a Hillis-Steele pass over the thread totals) writing tile totals, one block
// scanning the totals serially per thread, and a pass adding each tile's offset. Host reference: exact.
#include "bench.h"

#define TILE_ELEMS 1024

extern "C" __global__ void scan_tiles(const int *in, int *out, int *totals)
{
    __shared__ int part[256];
    int base = blockIdx.x * TILE_ELEMS + threadIdx.x * 4;
    int v0 = in[base], v1 = v0 + in[base + 1], v2 = v1 + in[base + 2], v3 = v2 + in[base + 3];
    part[threadIdx.x] = v3;
    __syncthreads();
    for (int d = 1; d < 256; d <<= 1) {
        int add = threadIdx.x >= d ? part[threadIdx.x - d] : 0;
        __syncthreads();
        part[threadIdx.x] += add;
        __syncthreads();
    }
    int before = threadIdx.x ? part[threadIdx.x - 1] : 0;
    out[base] = v0 + before;
    out[base + 1] = v1 + before;
    out[base + 2] = v2 + before;
    out[base + 3] = v3 + before;
    if (threadIdx.x == 255) totals[blockIdx.x] = part[255];
}

// One block of 1024 threads; each scans `per` consecutive totals, then the thread sums are scanned in shared.
extern "C" __global__ void scan_totals(int *totals, int per)
{
    __shared__ int part[1024];
    int base = threadIdx.x * per, s = 0;
    for (int k = 0; k < per; ++k) s += totals[base + k];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int d = 1; d < 1024; d <<= 1) {
        int add = threadIdx.x >= d ? part[threadIdx.x - d] : 0;
        __syncthreads();
        part[threadIdx.x] += add;
        __syncthreads();
    }
    int run = threadIdx.x ? part[threadIdx.x - 1] : 0;
    for (int k = 0; k < per; ++k) {
        run += totals[base + k];
        totals[base + k] = run;
    }
}

extern "C" __global__ void scan_add(int *out, const int *totals)
{
    if (blockIdx.x == 0) return;
    int off = totals[blockIdx.x - 1];
    int base = blockIdx.x * TILE_ELEMS + threadIdx.x * 4;
    for (int k = 0; k < 4; ++k) out[base + k] += off;
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 1 << 20 : 1 << 26;
    int tiles = n / TILE_ELEMS;
    std::vector<int> v(n);
    Lcg g(17);
    for (auto &x : v) x = g.range(-1000, 1000);
    int *din = to_device(v), *dout = device_filled<int>(n), *dt = device_filled<int>(tiles);
    auto unit = [&] {
        scan_tiles<<<tiles, 256>>>(din, dout, dt);
        scan_totals<<<1, 1024>>>(dt, tiles / 1024);
        scan_add<<<tiles, 256>>>(dout, dt);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto out = to_host(dout, n);
    bool ok = true;
    int run = 0;
    for (int i = 0; i < n; ++i) run += v[i], ok &= out[i] == run;
    Hash h;
    h.add(out);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d", n);
    return report("scan", size, t, h, ok);
}
