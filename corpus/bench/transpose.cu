// A matrix transpose through 32x33 shared tiles (the padding avoids bank conflicts), 32x8 threads per tile;
// a unit is two transposes (A -> B -> C, C equal to A). Host reference: every entry of B and C.
#include "bench.h"

extern "C" __global__ void transpose32(const float *in, float *out, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8) tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8) out[(y + k) * n + x] = tile[threadIdx.x][threadIdx.y + k];
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 256 : 8192;
    size_t nn = size_t(n) * n;
    std::vector<float> a(nn);
    Lcg g(18);
    for (auto &v : a) v = (float)g.next();
    float *da = to_device(a), *db = device_filled<float>(nn), *dc = device_filled<float>(nn);
    dim3 grid(n / 32, n / 32), block(32, 8);
    auto unit = [&] {
        transpose32<<<grid, block>>>(da, db, n);
        transpose32<<<grid, block>>>(db, dc, n);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto b = to_host(db, nn), c = to_host(dc, nn);
    bool ok = c == a;
    for (size_t i = 0; i < size_t(n); ++i)
        for (size_t j = 0; j < size_t(n); ++j) ok &= b[j * n + i] == a[i * n + j];
    Hash h;
    h.add(b);
    h.add(c);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d,x2", n);
    return report("transpose", size, t, h, ok);
}
