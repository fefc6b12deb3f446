// PolyBench ATAX: tmp = A x (one thread per row: neighbouring threads read far apart), y = A^T tmp (one thread
// per column: reads coalesced), A is N x N. The second sums leave the exact range, so the host reference
// repeats the device's order of fused multiply-adds with fmaf (nvcc contracts acc += a*b to one FFMA).
#include "bench.h"
#include <cmath>

extern "C" __global__ void atax_ax(const float *a, const float *x, float *tmp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int j = 0; j < n; ++j) acc += a[i * n + j] * x[j];
    tmp[i] = acc;
}

extern "C" __global__ void atax_atx(const float *a, const float *tmp, float *y, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) acc += a[i * n + j] * tmp[i];
    y[j] = acc;
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 256 : 8192;
    auto a = small_floats(size_t(n) * n, 8), x = small_floats(n, 9);
    float *da = to_device(a), *dx = to_device(x), *dtmp = device_filled<float>(n), *dy = device_filled<float>(n);
    auto unit = [&] {
        atax_ax<<<grid_for(n, 128), 128>>>(da, dx, dtmp, n);
        atax_atx<<<grid_for(n, 128), 128>>>(da, dtmp, dy, n);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto tmp = to_host(dtmp, n), y = to_host(dy, n);
    bool ok = true;
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j) s += (double)a[size_t(i) * n + j] * x[j];
        ok &= tmp[i] == (float)s;
    }
    for (int j = 0; j < n; j += 41) {
        float acc = 0.0f;
        for (int i = 0; i < n; ++i) acc = fmaf(a[size_t(i) * n + j], tmp[i], acc);
        ok &= y[j] == acc;
    }
    Hash h;
    h.add(tmp);
    h.add(y);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d", n);
    return report("atax", size, t, h, ok);
}
