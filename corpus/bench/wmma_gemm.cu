// A tensor-core GEMM through WMMA: f16 inputs (small integers, so products and sums are exact), f32
// accumulators, one warp per 16x16 output tile, fragments loaded straight from global memory (A row-major, B
// column-major). Host reference: sampled entries against an exact dot product.
#include "bench.h"
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const __half *a, const __half *b, float *c, int n)
{
    int warp = threadIdx.x >> 5;
    int tile_row = blockIdx.y * 16, tile_col = (blockIdx.x * 4 + warp) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::load_matrix_sync(fa, a + tile_row * n + k, n);
        wmma::load_matrix_sync(fb, b + tile_col * n + k, n);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c + tile_row * n + tile_col, fc, n, wmma::mem_row_major);
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int n = o.small ? 64 : 2048;
    size_t nn = size_t(n) * n;
    auto fa = small_floats(nn, 21, -4, 3), fbt = small_floats(nn, 22, -4, 3); // fbt: B column-major
    std::vector<__half> ha(nn), hb(nn);
    for (size_t i = 0; i < nn; ++i) ha[i] = __float2half(fa[i]), hb[i] = __float2half(fbt[i]);
    __half *da = to_device(ha), *db = to_device(hb);
    float *dc = device_filled<float>(nn);
    dim3 grid(n / 64, n / 16);
    auto unit = [&] { wmma_gemm<<<grid, 128>>>(da, db, dc, n); };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto c = to_host(dc, nn);
    bool ok = true;
    for (int i = 0; i < n; i += o.small ? 1 : 29)
        for (int j = 0; j < n; j += o.small ? 1 : 31) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += (double)fa[size_t(i) * n + k] * fbt[size_t(j) * n + k];
            ok &= c[size_t(i) * n + j] == (float)s;
        }
    Hash h;
    h.add(c);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "n=%d", n);
    return report("wmma_gemm", size, t, h, ok);
}
