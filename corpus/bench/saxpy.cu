// saxpy from corpus/src/saxpy.cu (the same kernel the translator corpus holds), 2^26 elements, eight launches
// a unit. Host reference: a*x+y is one fused multiply-add on the device; fmaf on the host is the same rounding.
#include "bench.h"
#include <cmath>
#include "../src/saxpy.cu"

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 1 << 14 : 1 << 26;
    std::vector<float> x(n), y(n);
    Lcg g(1);
    for (int i = 0; i < n; ++i) {
        x[i] = (float)(g.next() >> 8) / (float)(1 << 20) - 8.0f;
        y[i] = (float)(g.next() >> 8) / (float)(1 << 22) - 2.0f;
    }
    float a = 2.5f;
    float *dx = to_device(x), *dy = to_device(y), *dout = device_filled<float>(n);
    auto unit = [&] {
        for (int r = 0; r < 8; ++r) saxpy<<<grid_for(n, 256), 256>>>(a, dx, dy, dout, n);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out = to_host(dout, n);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= out[i] == fmaf(a, x[i], y[i]);
    Hash h;
    h.add(out);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d,x8", n);
    return report("saxpy", size, t, h, ok);
}
