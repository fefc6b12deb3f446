// Several kernels, templates instantiated for three types, a shared-memory reduction and a 2-D launch, each
// checked against the host. Prints PASS or FAIL; exits 0 only on PASS.
#include <cstdio>
#include <vector>

#include "check.h"

template <typename T>
__global__ void axpb(const T *x, T *y, T a, T b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}

// Block sums of squares: a shared-memory tree, one partial sum per block.
template <int BLOCK>
__global__ void sum_squares(const int *x, long long *partial, int n) {
    __shared__ long long s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    long long v = i < n ? (long long)x[i] * x[i] : 0;
    s[threadIdx.x] = v;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// out[r][c] = r * cols + c, from a 2-D grid of 2-D blocks.
__global__ void index_2d(int *out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[r * cols + c] = r * cols + c;
}

template <typename T>
static int check_axpb(const char *name, T a, T b, int n) {
    std::vector<T> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = T(i % 97) - T(40);
    T *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(T)));
    CHECK(cudaMalloc(&dy, n * sizeof(T)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    axpb<T><<<(n + 127) / 128, 128>>>(dx, dy, a, b, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += y[i] != a * x[i] + b;
    printf("axpb<%s>: %d wrong\n", name, bad);
    return bad;
}

int main() {
    int bad = 0;
    bad += check_axpb<float>("float", 1.5f, -2.0f, 3000);
    bad += check_axpb<int>("int", -3, 7, 5000);
    bad += check_axpb<double>("double", 0.25, 1e10, 2000);

    const int n = 10000, block = 256, blocks = (n + block - 1) / block;
    std::vector<int> x(n);
    for (int i = 0; i < n; ++i) x[i] = (i * 7919) % 20011 - 10000;
    int *dx;
    long long *dp;
    CHECK(cudaMalloc(&dx, n * sizeof(int)));
    CHECK(cudaMalloc(&dp, blocks * sizeof(long long)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    sum_squares<block><<<blocks, block>>>(dx, dp, n);
    CHECK(cudaGetLastError());
    std::vector<long long> partial(blocks);
    CHECK(cudaMemcpy(partial.data(), dp, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
    long long got = 0, want = 0;
    for (long long p : partial) got += p;
    for (int v : x) want += (long long)v * v;
    printf("sum_squares: %lld, host %lld\n", got, want);
    bad += got != want;

    const int rows = 37, cols = 53;
    int *dm;
    CHECK(cudaMalloc(&dm, rows * cols * sizeof(int)));
    CHECK(cudaMemset(dm, 0xff, rows * cols * sizeof(int)));
    dim3 b2(16, 8), g2((cols + 15) / 16, (rows + 7) / 8);
    index_2d<<<g2, b2>>>(dm, rows, cols);
    CHECK(cudaGetLastError());
    std::vector<int> m(rows * cols);
    CHECK(cudaMemcpy(m.data(), dm, m.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int bad2 = 0;
    for (int i = 0; i < rows * cols; ++i) bad2 += m[i] != i;
    printf("index_2d: %d wrong\n", bad2);
    bad += bad2;
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dp));
    CHECK(cudaFree(dm));
    printf("%s: templates\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
