// Relocatable device code (-rdc=true, as every rdc_*.cu): shared-memory operands the linker places.
// cp.async into a shared array (LDGSTS with its shared address relocated, R_CUDA_ABS20_44) and a device
// function's shared array reached at `sym + 4` (STS, R_CUDA_ABS24_40 with an explicit addend).

__device__ __noinline__ unsigned rdc_window(unsigned t, unsigned v) {
    __shared__ unsigned win[129];
    win[t + 1] = v;
    __syncthreads();
    unsigned left = win[t];
    __syncthreads();
    return left;
}

extern "C" __global__ void rdc_shared(const unsigned *in, unsigned *out, int n) {
    // SASS: LDGSTS `(later) (cp.async, relocated shared address), LDGDEPBAR, DEPBAR, LDS, CALL.ABS.NOINC
    __shared__ unsigned first[64]; // placed first, so that later's place is not 0
    __shared__ unsigned later[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned t = threadIdx.x;
    if (t < 64)
        first[t] = t * 3u;
    unsigned src = (unsigned)(blockIdx.x * blockDim.x) + ((t * 5) & 127);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(&later[t])),
                 "l"(in + src));
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    unsigned a = later[(t + 7) & 127] + first[(t * 7) & 63];
    unsigned b = rdc_window(t, a ^ t);
    if (t == 0)
        b = 0x5a5a5a5au; // win[0] is never written
    if (i < n) {
        out[2 * i] = a;
        out[2 * i + 1] = b;
    }
}
