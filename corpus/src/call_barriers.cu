// Convergence-barrier saves around calls: a __noinline__ device function whose divergent regions call the
// device heap (extern calls) makes ptxas keep the caller's barrier in a register (BMOV.32.CLEAR Rn, B6 ...
// BMOV.32 B6, Rn), as real code does around new/delete; the kernel runs warp-synchronous code (shuffles after
// divergent calls) so that the turns form, which models the barriers, runs it.

// Called only through a function-pointer table: ptxas cannot see its callers, so it keeps the ABI and saves the
// convergence barrier it reuses around its own extern calls.
__device__ __noinline__ int heap_sum(int x, int n)
{
    int s = 0;
    for (int k = 0; k < n; k++) {
        if ((x >> k) & 1) {
            int *p = (int *)malloc(16);
            if (p) {
                p[0] = x + k;
                p[1] = p[0] * 3;
                s += p[0] ^ p[1];
                free(p);
            }
        }
    }
    return s;
}

__device__ __noinline__ int plain(int x, int n)
{
    return x * n + 1;
}

typedef int (*op_t)(int, int);
__device__ op_t ops[2] = {heap_sum, plain};

extern "C" __global__ void barrier_save_calls(const int *in, int *out, int n)
{
    // SASS: BMOV.32.CLEAR and BMOV.32 (saving and restoring convergence barriers) around BSSY / CALL.ABS.NOINC
    // (malloc, free) / BSYNC in a called function, reached from divergent code; SHFL.BFLY after reconvergence
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? in[i] : 0;
    int r = 0;
    if (x & 1) {
        r = ops[(x >> 1) & 1](x, (x >> 8) & 7);
        if (x & 4) r += ops[0](x >> 3, 3);
    }
    for (int d = 16; d > 0; d >>= 1) r += __shfl_xor_sync(0xffffffffu, r, d);
    if (i < n) out[i] = r;
}
