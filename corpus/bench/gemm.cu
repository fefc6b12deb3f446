// PolyBench-style GEMM, one thread per output, no shared memory: C_out = alpha*A*B + beta*C_in, N x N. Small
// integer inputs keep every sum exact. Host reference: sampled entries against an exact dot product.
#include "bench.h"

extern "C" __global__ void gemm(float alpha, float beta, const float *a, const float *b, const float *c_in,
                                float *c_out, int n)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
    c_out[i * n + j] = alpha * acc + beta * c_in[i * n + j];
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 96 : 2048;
    size_t nn = size_t(n) * n;
    auto a = small_floats(nn, 3), b = small_floats(nn, 4), c = small_floats(nn, 5);
    float *da = to_device(a), *db = to_device(b), *dc = to_device(c), *dout = device_filled<float>(nn);
    float alpha = 2.0f, beta = 3.0f;
    dim3 grid(grid_for(n, 32), grid_for(n, 8));
    auto unit = [&] { gemm<<<grid, dim3(32, 8)>>>(alpha, beta, da, db, dc, dout, n); };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto out = to_host(dout, nn);
    bool ok = true;
    for (int i = 0; i < n; i += 31)
        for (int j = 0; j < n; j += 37) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += (double)a[size_t(i) * n + k] * b[size_t(k) * n + j];
            ok &= out[size_t(i) * n + j] == (float)(alpha * s + beta * c[size_t(i) * n + j]);
        }
    Hash h;
    h.add(out);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d", n);
    return report("gemm", size, t, h, ok);
}
