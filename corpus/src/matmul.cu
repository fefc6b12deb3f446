// Matrix multiply C = A * B (row-major, square N x N, N a multiple of 16) in three classic shapes: naive, with
// 16x16 shared-memory tiles, and with a register-blocked 2x2 micro-tile; plus a double-precision tiled
// version. Each input word is mapped to a small integer on load (exact_small), so every product and sum is
// exact and independent of summation order. Launch with a 2-D grid of N/16 x N/16 blocks of 16x16 threads
// (the 2x2 micro-tile kernel: 8x8 threads).

#define TILE 16

// The integer in [-8, 7] held in bits 19:16 of the input word, as a float.
__device__ __forceinline__ float exact_small(float v) { return (float)(((__float_as_int(v) >> 16) & 15) - 8); }

extern "C" __global__ void matmul_naive(const float *a, const float *b, float *c, int n)
{
    // SASS: 2-D indices from SR_CTAID.Y/SR_TID.Y, an unrolled FFMA loop over LDG.E, IMAD.WIDE addressing
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += exact_small(a[row * n + k]) * exact_small(b[k * n + col]);
    c[row * n + col] = acc;
}

extern "C" __global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    // SASS: STS of A and B tiles, BAR.SYNC, LDS.128 / LDS with immediate offsets feeding FFMA, the outer tile
    // loop (backward BRA)
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        ta[ty][tx] = exact_small(a[row * n + k0 + tx]);
        tb[ty][tx] = exact_small(b[(k0 + ty) * n + col]);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

extern "C" __global__ void matmul_regblock(const float *a, const float *b, float *c, int n)
{
    // SASS: register blocking (four accumulators), LDS.64, FFMA with register reuse (.reuse flags)
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y; // 8 x 8 threads, each computes 2 x 2 outputs
    int row = blockIdx.y * TILE + 2 * ty, col = blockIdx.x * TILE + 2 * tx;
    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        for (int r = 0; r < 2; ++r)
            for (int q = 0; q < 2; ++q) {
                ta[2 * ty + r][2 * tx + q] = exact_small(a[(row + r) * n + k0 + 2 * tx + q]);
                tb[2 * ty + r][2 * tx + q] = exact_small(b[(k0 + 2 * ty + r) * n + col + q]);
            }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            float a0 = ta[2 * ty][k], a1 = ta[2 * ty + 1][k];
            float b0 = tb[k][2 * tx], b1 = tb[k][2 * tx + 1];
            c00 += a0 * b0; c01 += a0 * b1; c10 += a1 * b0; c11 += a1 * b1;
        }
        __syncthreads();
    }
    c[row * n + col] = c00;
    c[row * n + col + 1] = c01;
    c[(row + 1) * n + col] = c10;
    c[(row + 1) * n + col + 1] = c11;
}

extern "C" __global__ void dmatmul_tiled(const double *a, const double *b, double *c, int n)
{
    // SASS: the tiled loop in double precision: STS.64/LDS.64, DFMA chains
    __shared__ double ta[TILE][TILE];
    __shared__ double tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    double acc = 0.0;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        ta[ty][tx] = (double)exact_small(__int_as_float((int)(__double_as_longlong(a[row * n + k0 + tx]) >> 32)));
        tb[ty][tx] = (double)exact_small(__int_as_float((int)(__double_as_longlong(b[(k0 + ty) * n + col]) >> 32)));
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}
