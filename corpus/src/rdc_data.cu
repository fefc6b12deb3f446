// Relocatable device code (compiled with -rdc=true, as every rdc_*.cu): data a linker must place.
// - A device function's fp64 constants live in its own constant bank 2 (.nv.constant2.<function>); its
//   instructions name them as `c[`(f.const_opt...)]` operands (R_CUDA_CONST_FIELD19_40) that the linker
//   points into the kernel's bank 2 once it has merged the function's bank there.
// - __device__ variables (.nv.global zero-initialised, .nv.global.init initialised) are reached through their
//   relocated addresses, 32@lo(v) / 32@hi(v) (R_CUDA_ABS32_LO_32 / _HI_32), which only the loader knows.

__device__ unsigned rdc_slots[256];
__device__ unsigned rdc_weights[8] = {3u, 1u, 4u, 1u, 5u, 9u, 2u, 6u};

// Horner steps written as fma() so that every rounding is fixed by the source.
__device__ __noinline__ double rdc_poly(double x) {
    double p = fma(x, 0.0123456789012345, -0.3183098861837907);
    p = fma(p, x, 1.4142135623730951);
    p = fma(p, x, -2.718281828459045);
    return fma(p, x, 0.5772156649015329) * 1.2020569031595942;
}

__device__ __noinline__ void rdc_store(unsigned i, unsigned v) {
    rdc_slots[i & 255] = v * rdc_weights[i & 7];
}

extern "C" __global__ void rdc_data(const unsigned *in, double *out, unsigned *outw, int n) {
    // SASS: UMOV 32@lo(rdc_slots) / 32@hi(rdc_weights), CALL.ABS.NOINC; rdc_poly's fma steps read
    // c[`(rdc_poly.const_opt...)] operands
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned w = i < n ? in[i] : 0u;
    // An exact double in [0, 1): the polynomial never meets NaN or infinity.
    double x = (double)(w & 0xfffffu) * (1.0 / 1048576.0);
    double y = rdc_poly(x);
    rdc_store((unsigned)i, w);
    __syncthreads();
    if (i < n) {
        out[i] = y;
        outw[2 * i] = rdc_slots[(i ^ 1) & 255];
        outw[2 * i + 1] = rdc_weights[(i + 3) & 7];
    }
}
