// All-pairs n-body accelerations with shared-memory tiles of 256 bodies (IEEE sqrt and division, softened).
// Host reference: double precision, relative error below 1e-4 for every 61st body (float summation order
// differs from the host's; native and sassport must still agree bit for bit).
#include "bench.h"
#include <cmath>

extern "C" __global__ void nbody(const float4 *pos, float4 *acc_out, int n)
{
    __shared__ float4 tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int t = 0; t < n; t += 256) {
        tile[threadIdx.x] = pos[t + threadIdx.x];
        __syncthreads();
        for (int k = 0; k < 256; ++k) {
            float4 q = tile[k];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float d2 = dx * dx + dy * dy + dz * dz + 1e-3f;
            float inv = 1.0f / sqrtf(d2);
            float s = q.w * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        __syncthreads();
    }
    acc_out[i] = make_float4(ax, ay, az, 0.0f);
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 512 : 32768;
    std::vector<float4> pos(n);
    Lcg g(14);
    auto u = [&] { return (float)(g.next() >> 8) * (1.0f / (1 << 24)); };
    for (auto &p : pos) p = make_float4(u() * 2 - 1, u() * 2 - 1, u() * 2 - 1, u() + 0.5f);
    float4 *dpos = to_device(pos), *dacc = device_filled<float4>(n);
    auto unit = [&] { nbody<<<n / 256, 256>>>(dpos, dacc, n); };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto acc = to_host(dacc, n);
    bool ok = true;
    for (int i = 0; i < n; i += o.small ? 1 : 61) {
        double r[3] = {0, 0, 0}, mag = 0;
        for (int k = 0; k < n; ++k) {
            double d[3] = {(double)pos[k].x - pos[i].x, (double)pos[k].y - pos[i].y, (double)pos[k].z - pos[i].z};
            double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 1e-3f;
            double s = pos[k].w / (d2 * sqrt(d2));
            for (int c = 0; c < 3; ++c) r[c] += s * d[c], mag += fabs(s * d[c]);
        }
        float got[3] = {acc[i].x, acc[i].y, acc[i].z};
        for (int c = 0; c < 3; ++c) ok &= fabs(got[c] - r[c]) <= 1e-4 * mag;
    }
    Hash h;
    h.add(acc);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d", n);
    return report("nbody", size, t, h, ok);
}
