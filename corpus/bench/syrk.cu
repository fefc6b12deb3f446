// PolyBench SYRK: C_out = alpha*A*A^T + beta*C_in on the lower triangle (j <= i), C_in elsewhere; A is N x M.
// Small integer inputs keep every sum exact. Host reference: sampled entries.
#include "bench.h"

extern "C" __global__ void syrk(float alpha, float beta, const float *a, const float *c_in, float *c_out, int n,
                                int m)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= n) return;
    float v = c_in[i * n + j];
    if (j <= i) {
        float acc = 0.0f;
        for (int k = 0; k < m; ++k) acc += a[i * m + k] * a[j * m + k];
        v = alpha * acc + beta * v;
    }
    c_out[i * n + j] = v;
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 96 : 2048, m = o.small ? 64 : 2048;
    auto a = small_floats(size_t(n) * m, 6), c = small_floats(size_t(n) * n, 7);
    float *da = to_device(a), *dc = to_device(c), *dout = device_filled<float>(size_t(n) * n);
    float alpha = 2.0f, beta = -1.0f;
    dim3 grid(grid_for(n, 32), grid_for(n, 8));
    auto unit = [&] { syrk<<<grid, dim3(32, 8)>>>(alpha, beta, da, dc, dout, n, m); };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto out = to_host(dout, size_t(n) * n);
    bool ok = true;
    for (int i = 0; i < n; i += 29)
        for (int j = 0; j < n; j += 23) {
            double v = c[size_t(i) * n + j];
            if (j <= i) {
                double s = 0;
                for (int k = 0; k < m; ++k) s += (double)a[size_t(i) * m + k] * a[size_t(j) * m + k];
                v = alpha * s + beta * v;
            }
            ok &= out[size_t(i) * n + j] == (float)v;
        }
    Hash h;
    h.add(out);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d,m=%d", n, m);
    return report("syrk", size, t, h, ok);
}
