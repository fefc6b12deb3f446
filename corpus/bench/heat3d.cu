// A 3-D 7-point stencil (heat equation step), boundary copied; a unit is four sweeps (in -> t1 -> t2 -> t1 ->
// t2). Host reference: one sweep, the same operations (an explicit fmaf), every 7th plane.
#include "bench.h"
#include <cmath>

extern "C" __global__ void heat3d(const float *in, float *out, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x >= n || y >= n) return;
    int p = n * n, c = z * p + y * n + x;
    float v = in[c];
    if (x > 0 && y > 0 && z > 0 && x < n - 1 && y < n - 1 && z < n - 1) {
        float s = in[c - 1] + in[c + 1] + in[c - n] + in[c + n] + in[c - p] + in[c + p];
        v = fmaf(0.25f, v, 0.125f * s);
    }
    out[c] = v;
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 32 : 384;
    size_t p = size_t(n) * n, nnn = p * n;
    std::vector<float> a(nnn);
    Lcg g(12);
    for (auto &v : a) v = (float)(g.next() >> 8) * (1.0f / (1 << 20));
    float *din = to_device(a), *t1 = device_filled<float>(nnn), *t2 = device_filled<float>(nnn);
    dim3 grid(grid_for(n, 32), grid_for(n, 8), n), block(32, 8);
    heat3d<<<grid, block>>>(din, t1, n);
    CHECK(cudaDeviceSynchronize());
    auto first = to_host(t1, nnn);
    bool ok = true;
    for (int z = 0; z < n; z += o.small ? 1 : 7)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                size_t c = z * p + size_t(y) * n + x;
                float v = a[c];
                if (x > 0 && y > 0 && z > 0 && x < n - 1 && y < n - 1 && z < n - 1) {
                    float s = a[c - 1] + a[c + 1] + a[c - n] + a[c + n] + a[c - p] + a[c + p];
                    v = fmaf(0.25f, v, 0.125f * s);
                }
                ok &= first[c] == v;
            }
    auto unit = [&] {
        heat3d<<<grid, block>>>(din, t1, n);
        heat3d<<<grid, block>>>(t1, t2, n);
        heat3d<<<grid, block>>>(t2, t1, n);
        heat3d<<<grid, block>>>(t1, t2, n);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    Hash h;
    h.add(to_host(t1, nnn));
    h.add(to_host(t2, nnn));
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d^3,x4", n);
    return report("heat3d", size, t, h, ok);
}
