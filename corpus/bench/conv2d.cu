// A 2-D convolution with a 5x5 filter in constant memory (zero outside the image), one thread per pixel, fused
// multiply-adds in a fixed order; a unit is two launches. Host reference: the same fmaf chain, every 11th row.
#include "bench.h"
#include <cmath>

__constant__ float filter5[25];

extern "C" __global__ void conv2d(const float *in, float *out, int h, int w)
{
    int y = blockIdx.y * blockDim.y + threadIdx.y, x = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= h || x >= w) return;
    float acc = 0.0f;
#pragma unroll
    for (int dy = -2; dy <= 2; ++dy)
#pragma unroll
        for (int dx = -2; dx <= 2; ++dx) {
            int yy = y + dy, xx = x + dx;
            float v = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? in[yy * w + xx] : 0.0f;
            acc = fmaf(filter5[(dy + 2) * 5 + dx + 2], v, acc);
        }
    out[y * w + x] = acc;
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int hgt = o.small ? 96 : 8192, wid = o.small ? 128 : 8192;
    size_t n = size_t(hgt) * wid;
    std::vector<float> a(n), f(25);
    Lcg g(13);
    for (auto &v : a) v = (float)(g.next() >> 8) * (1.0f / (1 << 24)) - 0.5f;
    for (auto &v : f) v = (float)(g.next() >> 8) * (1.0f / (1 << 26));
    CHECK(cudaMemcpyToSymbol(filter5, f.data(), sizeof(float) * 25));
    float *din = to_device(a), *dout = device_filled<float>(n);
    dim3 grid(grid_for(wid, 32), grid_for(hgt, 8)), block(32, 8);
    auto unit = [&] {
        conv2d<<<grid, block>>>(din, dout, hgt, wid);
        conv2d<<<grid, block>>>(din, dout, hgt, wid);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto out = to_host(dout, n);
    bool ok = true;
    for (int y = 0; y < hgt; y += o.small ? 1 : 11)
        for (int x = 0; x < wid; ++x) {
            float acc = 0.0f;
            for (int dy = -2; dy <= 2; ++dy)
                for (int dx = -2; dx <= 2; ++dx) {
                    int yy = y + dy, xx = x + dx;
                    float v = (yy >= 0 && yy < hgt && xx >= 0 && xx < wid) ? a[size_t(yy) * wid + xx] : 0.0f;
                    acc = fmaf(f[(dy + 2) * 5 + dx + 2], v, acc);
                }
            ok &= out[size_t(y) * wid + x] == acc;
        }
    Hash h;
    h.add(out);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "%dx%d,5x5,x2", hgt, wid);
    return report("conv2d", size, t, h, ok);
}
