// Asynchronous global-to-shared copies (Ampere cp.async): 4-, 8- and 16-byte copies, the zero-fill form for
// out-of-bounds tails, commit groups and waits, and a two-stage double-buffered pipeline.
// Launch with 128 threads per block.

#include <cuda_pipeline.h>

extern "C" __global__ void cp_async_sizes(const unsigned *in, const uint2 *in2, const uint4 *in4, unsigned *out, int n)
{
    // SASS: LDGSTS.E (4 bytes), LDGSTS.E.64, LDGSTS.E.BYPASS.128 (16 bytes, bypassing the first-level cache), LDGSTS.E.ZFILL-style
    // zero-fill through the src-size operand, LDGDEPBAR, DEPBAR.LE SB0, BAR.SYNC; 4 words per thread out
    __shared__ unsigned s1[128];
    __shared__ uint2 s2[128];
    __shared__ uint4 s4[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int src = i < n ? i : 0;
    __pipeline_memcpy_async(&s1[t], &in[src], 4);
    __pipeline_memcpy_async(&s2[t], &in2[src], 8);
    // Zero-fill: copy 16 bytes when in bounds, 0 source bytes (all zero) otherwise.
    __pipeline_memcpy_async(&s4[t], &in4[src], 16, i < n ? 0 : 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (i >= n) return;
    int r = blockDim.x - 1 - t;
    unsigned *o = out + i * 4;
    o[0] = s1[r];
    o[1] = s2[r].x ^ s2[r].y;
    o[2] = s4[r].x + s4[r].y;
    o[3] = s4[r].z - s4[r].w;
}

extern "C" __global__ void cp_async_pipeline(const float *in, float *out, int n, int chunks)
{
    // SASS: two LDGSTS stages in flight, DEPBAR.LE SB0, 0x1 (wait for all but the newest group), the loop
    // carrying the stage index, BAR.SYNC; out[i] sums `chunks` chunks of blockDim.x floats, read in turn
    __shared__ float stage[2][128];
    int t = threadIdx.x;
    float acc = 0.0f;
    int base = blockIdx.x * blockDim.x * chunks;
    __pipeline_memcpy_async(&stage[0][t], &in[base + t], 4);
    __pipeline_commit();
    for (int c = 0; c < chunks; ++c) {
        if (c + 1 < chunks) __pipeline_memcpy_async(&stage[(c + 1) & 1][t], &in[base + (c + 1) * blockDim.x + t], 4);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += (float)(__float_as_int(stage[c & 1][(t + c) % blockDim.x]) & 1023);
        __syncthreads();
    }
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) out[i] = acc;
}
