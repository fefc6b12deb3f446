// The shared body of matmul_tiled.cu and matmul_regblock.cu: random 32-bit words whose bits 19:16 the kernels
// map to integers in [-8, 7] (exact_small), N x N, N = 2048 (256 on --small).
#pragma once
#include "../src/matmul.cu"

static float small_of(uint32_t w) { return (float)((int)((w >> 16) & 15) - 8); }

static int run_matmul(int argc, char **argv, const char *name, bool regblock)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 128 : 2048;
    std::vector<uint32_t> a(size_t(n) * n), b(size_t(n) * n);
    Lcg g(2);
    for (auto &w : a) w = g.next();
    for (auto &w : b) w = g.next();
    float *da = (float *)to_device(a), *db = (float *)to_device(b), *dc = device_filled<float>(size_t(n) * n);
    dim3 grid(n / 16, n / 16);
    auto unit = [&] {
        if (regblock) matmul_regblock<<<grid, dim3(8, 8)>>>(da, db, dc, n);
        else matmul_tiled<<<grid, dim3(16, 16)>>>(da, db, dc, n);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> c = to_host(dc, size_t(n) * n);
    bool ok = true;
    for (int i = 0; i < n; i += 97)
        for (int j = 0; j < n; j += 89) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += (double)small_of(a[size_t(i) * n + k]) * small_of(b[size_t(k) * n + j]);
            ok &= c[size_t(i) * n + j] == (float)s;
        }
    Hash h;
    h.add(c);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d", n);
    return report(name, size, t, h, ok);
}
