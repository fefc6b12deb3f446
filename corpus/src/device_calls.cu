// A predicated CALL: ptxas ends the main loop of a register-tiled matrix multiply with
// `@P0 CALL.REL.NOINC <after the loop>; BRA <loop head>` — a call that never returns, used as the loop's
// exit jump. 128x128 tile per block, 8x8 per thread, K in steps of 8 through shared memory. Inputs are
// mapped to small integers, so every sum is exact.

extern "C" __global__ void loop_exit_call_sgemm(const unsigned *a_bits, const unsigned *b_bits, float *c,
                                                int n, int k_total)
{
    // SASS: a predicated CALL.REL.NOINC to the code after the loop, PLOP3 on a uniform predicate,
    // BAR.SYNC.DEFER_BLOCKING, FFMA blocks, LDS.128
    __shared__ float as[8][128];
    __shared__ float bs[8][128];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < k_total; k0 += 8) {
        for (int l = threadIdx.x; l < 8 * 128; l += 256) {
            int kk = l / 128, m = l % 128;
            as[kk][m] = (float)((int)(a_bits[m * k_total + k0 + kk] & 15u) - 7);
            bs[kk][m] = (float)((int)(b_bits[(k0 + kk) * n + m] % 9u) - 4);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 8; kk++) {
            float a[8], b[8];
#pragma unroll
            for (int i = 0; i < 8; i++) a[i] = as[kk][ty * 8 + i];
#pragma unroll
            for (int j = 0; j < 8; j++) b[j] = bs[kk][tx * 8 + j];
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) c[(ty * 8 + i) * n + tx * 8 + j] = acc[i][j];
}
