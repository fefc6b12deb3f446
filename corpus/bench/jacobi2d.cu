// PolyBench Jacobi-2D: the 5-point average, boundary copied; a unit is four sweeps (in -> t1 -> t2 -> t1 -> t2).
// Host reference: one sweep, every entry on --small, every 13th row otherwise.
#include "bench.h"

extern "C" __global__ void jacobi2d(const float *in, float *out, int n)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= n) return;
    int c = i * n + j;
    float v = in[c];
    if (i > 0 && j > 0 && i < n - 1 && j < n - 1)
        v = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - n] + in[c + n]);
    out[c] = v;
}

static float host_point(const std::vector<float> &a, int n, int i, int j)
{
    size_t c = size_t(i) * n + j;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) return a[c];
    return 0.2f * (a[c] + a[c - 1] + a[c + 1] + a[c - n] + a[c + n]);
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 128 : 8192;
    size_t nn = size_t(n) * n;
    std::vector<float> a(nn);
    Lcg g(11);
    for (auto &v : a) v = (float)(g.next() >> 8) * (1.0f / (1 << 24));
    float *din = to_device(a), *t1 = device_filled<float>(nn), *t2 = device_filled<float>(nn);
    dim3 grid(grid_for(n, 32), grid_for(n, 8)), block(32, 8);
    jacobi2d<<<grid, block>>>(din, t1, n);
    CHECK(cudaDeviceSynchronize());
    auto first = to_host(t1, nn);
    bool ok = true;
    for (int i = 0; i < n; i += o.small ? 1 : 13)
        for (int j = 0; j < n; ++j) ok &= first[size_t(i) * n + j] == host_point(a, n, i, j);
    auto unit = [&] {
        jacobi2d<<<grid, block>>>(din, t1, n);
        jacobi2d<<<grid, block>>>(t1, t2, n);
        jacobi2d<<<grid, block>>>(t2, t1, n);
        jacobi2d<<<grid, block>>>(t1, t2, n);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    Hash h;
    h.add(to_host(t1, nn));
    h.add(to_host(t2, nn));
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d,x4", n);
    return report("jacobi2d", size, t, h, ok);
}
