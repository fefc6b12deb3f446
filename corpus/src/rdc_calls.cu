// Relocatable device code (compiled with -rdc=true: `cargo xtask corpus` gives every rdc_*.cu that flag).
// Each function gets its own .text section; calls are CALL.ABS.NOINC with the callee in a relocation
// (R_CUDA_ABS47_34), return addresses are relocated MOVs (32@lo/32@hi of kernel + label), returns are
// RET.ABS.NODEC, and shared and constant variables are relocated operands (R_CUDA_ABS24_40, R_CUDA_ABS16_32),
// all resolved by nvlink or the driver in CUDA and by sassport's linker (translator/src/cubin/link.rs) here.

// Constant bank 3, reached through a relocated bank offset.
__constant__ unsigned rdc_table[16] = {
    0x9e3779b9u, 0x7f4a7c15u, 0x85ebca6bu, 0xc2b2ae35u, 0x27d4eb2fu, 0x165667b1u, 0xd3a2646cu, 0xfd7046c5u,
    0xb55a4f09u, 0x94d049bbu, 0xbf58476du, 0x1b873593u, 0xcc9e2d51u, 0xe6546b64u, 0x5bd1e995u, 0x68e31da4u};

__device__ __noinline__ unsigned rdc_mix(unsigned x, unsigned k) {
    return ((x ^ (x >> 7)) * 0x2545f491u) + k * 0x01000193u + rdc_table[(x + k) & 15];
}

// A function calling another (nested relocated calls, each returning through its own R20:R21).
__device__ __noinline__ unsigned rdc_mix_twice(unsigned x) {
    unsigned a = rdc_mix(x, 1);
    unsigned b = rdc_mix(a, 2);
    return b ^ rdc_mix(x ^ b, 3);
}

// Recursion across a relocated call.
__device__ __noinline__ unsigned rdc_gcd(unsigned a, unsigned b) {
    return b == 0 ? a : rdc_gcd(b, a % b);
}

// Shared memory declared in a device function: the linker places it beside the kernel's own.
__device__ __noinline__ unsigned rdc_neighbours(unsigned v) {
    __shared__ unsigned part[128];
    part[threadIdx.x] = v;
    __syncthreads();
    unsigned s = part[threadIdx.x ^ 1] + 3u * part[(threadIdx.x + 5) & 127];
    __syncthreads();
    return s;
}

extern "C" __global__ void rdc_calls(const unsigned *in, unsigned *out, int n) {
    // SASS: CALL.ABS.NOINC (relocated), MOV 32@lo/32@hi (return addresses), STS/LDS `(shared); the callees
    // return with ret.abs and read `(rdc_table)
    __shared__ unsigned own[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i < n ? in[i] : 0u;
    unsigned a = rdc_mix_twice(x);
    unsigned b = (x & 1) ? rdc_mix(x, 7) : 0u; // a call on one side of a branch
    own[threadIdx.x] = a;
    __syncthreads();
    unsigned c = own[threadIdx.x ^ 3] + rdc_neighbours(x);
    unsigned d = rdc_gcd((x & 0xffffu) | 1u, (a & 0xffffu) | 1u);
    if (i < n) {
        out[4 * i + 0] = a;
        out[4 * i + 1] = b;
        out[4 * i + 2] = c;
        out[4 * i + 3] = d;
    }
}

