// Long-running loops, written to outlast lavapipe's loop limiter (gallivm leaves every loop of a shader once
// 65,535 loop iterations have run in it, counted together over all loops; docs/device-quirks.md): counted
// loops of 65,536 and 10^6 iterations, nested loops, an infinite loop, spins on a flag, and a warp-shuffle loop.
// Every result is a closed-form function of the inputs that the tests compute on the host.
// `#pragma unroll 1` keeps each loop a loop in SASS: one backward BRA per iteration.

__device__ __forceinline__ unsigned lcg_step(unsigned x, unsigned k)
{
    return x * 1664525u + (1013904223u ^ k);
}

extern "C" __global__ void loop_long(const unsigned *seed, unsigned *out, int iters, int n)
{
    // SASS: a counted loop (IADD3/ISETP/backward BRA) whose trip count comes from a parameter
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = seed[i];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) x = lcg_step(x, k);
    out[i] = x;
}

extern "C" __global__ void loop_nested(const unsigned *seed, unsigned *out, int outer, int inner, int n)
{
    // SASS: two nested counted loops; the inner trip count is a parameter
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = seed[i];
#pragma unroll 1
    for (int a = 0; a < outer; ++a) {
#pragma unroll 1
        for (int b = 0; b < inner; ++b) x = lcg_step(x, b);
        x ^= (unsigned)a;
    }
    out[i] = x;
}

extern "C" __global__ void loop_progress(volatile unsigned *out, int first, int second, int extra)
{
    // SASS: two loops in sequence, each storing its iteration count every iteration (volatile STG), so a
    // loop that a device leaves early shows how far it got. Thread t runs first + t * extra iterations.
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int a = first + t * extra;
#pragma unroll 1
    for (int k = 0; k < a; ++k) out[2 * t] = k + 1;
#pragma unroll 1
    for (int k = 0; k < second; ++k) out[2 * t + 1] = k + 1;
}

extern "C" __global__ void loop_forever(unsigned *out)
{
    // SASS: a branch to itself; the launch can only end by a timeout
    out[threadIdx.x] = 1;
    while (true) {
    }
}

extern "C" __global__ void spin_unset_flag(volatile unsigned *flag, unsigned *out)
{
    // SASS: a volatile load in a loop (LDG.E.STRONG.SYS) waiting for a value no one writes
    while (*flag == 0) {
    }
    out[threadIdx.x] = *flag;
}

extern "C" __global__ void spin_other_block(volatile unsigned *flag, unsigned *out)
{
    // SASS: block 0 publishes a flag (STG.E.STRONG.SYS, MEMBAR) that the threads of block 1 spin on
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) {
            __threadfence();
            *flag = 7u;
        }
        return;
    }
    unsigned spins = 0;
    while (*flag == 0) ++spins;
    out[threadIdx.x] = *flag + (spins > 0 ? 0u : 0u);
}

extern "C" __global__ void shuffle_loop(const unsigned *seed, unsigned *out, int iters)
{
    // SASS: SHFL.BFLY in a counted loop (the turns form on devices without 32-wide subgroups)
    unsigned lane = threadIdx.x & 31u;
    unsigned x = seed[blockIdx.x * blockDim.x + threadIdx.x];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        unsigned y = __shfl_xor_sync(0xffffffffu, x, (unsigned)k & 31u);
        x = lcg_step(y, k) ^ lane;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
