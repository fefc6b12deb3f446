// PolyBench covariance: column means, centred data, and the upper triangle of the M x M covariance matrix of N
// samples (mirrored), one thread per pair. Host reference: the same float operations in the same order
// (sequential sums, IEEE division, fmaf where nvcc contracts acc += a*b), every entry on --small, sampled else.
#include "bench.h"
#include <cmath>

extern "C" __global__ void cov_mean(const float *data, float *mean, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += data[i * m + j];
    mean[j] = s / (float)n;
}

extern "C" __global__ void cov_center(const float *data, const float *mean, float *centred, int n, int m)
{
    int i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) centred[i * m + j] = data[i * m + j] - mean[j];
}

extern "C" __global__ void cov_pairs(const float *centred, float *cov, int n, int m)
{
    int j1 = blockIdx.y * blockDim.y + threadIdx.y, j2 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 >= m || j2 >= m || j2 < j1) return;
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) acc += centred[i * m + j1] * centred[i * m + j2];
    acc = acc / (float)(n - 1);
    cov[j1 * m + j2] = acc;
    cov[j2 * m + j1] = acc;
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 64 : 2048, m = o.small ? 64 : 2048;
    auto data = small_floats(size_t(n) * m, 10);
    float *dd = to_device(data), *dmean = device_filled<float>(m), *dc = device_filled<float>(size_t(n) * m);
    float *dcov = device_filled<float>(size_t(m) * m);
    auto unit = [&] {
        cov_mean<<<grid_for(m, 128), 128>>>(dd, dmean, n, m);
        cov_center<<<dim3(grid_for(m, 128), n), 128>>>(dd, dmean, dc, n, m);
        cov_pairs<<<dim3(grid_for(m, 32), grid_for(m, 8)), dim3(32, 8)>>>(dc, dcov, n, m);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto mean = to_host(dmean, m), cov = to_host(dcov, size_t(m) * m);
    std::vector<float> hm(m), hc(size_t(n) * m);
    for (int j = 0; j < m; ++j) {
        float s = 0.0f;
        for (int i = 0; i < n; ++i) s += data[size_t(i) * m + j];
        hm[j] = s / (float)n;
    }
    for (size_t k = 0; k < hc.size(); ++k) hc[k] = data[k] - hm[k % m];
    bool ok = mean == hm;
    int step = o.small ? 1 : 37;
    for (int j1 = 0; j1 < m; j1 += step)
        for (int j2 = 0; j2 < m; j2 += step) {
            int lo = std::min(j1, j2), hi = std::max(j1, j2);
            float acc = 0.0f;
            for (int i = 0; i < n; ++i) acc = fmaf(hc[size_t(i) * m + lo], hc[size_t(i) * m + hi], acc);
            ok &= cov[size_t(j1) * m + j2] == acc / (float)(n - 1);
        }
    Hash h;
    h.add(mean);
    h.add(cov);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d,m=%d", n, m);
    return report("covariance", size, t, h, ok);
}
