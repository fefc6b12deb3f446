// Relocatable device code for cli/tests/rdc_calls.rs, beside the corpus (no silicon golden needed: the counter's
// result is exact, and the extern call cannot be linked anywhere). Built with the pinned nvcc 13.5.37:
// nvcc -cubin -arch=sm_86 -O3 -rdc=true -o rdc_cases.cubin rdc_cases.cu

// A __device__ variable reached from a device function: its address is a relocated operand (32@lo/32@hi of
// rdc_counter, R_CUDA_ABS32_LO_32/HI_32) that only the module loader knows: sassport's linker reads it from the
// merged constant bank the runtime fills.
__device__ unsigned rdc_counter[4];

__device__ __noinline__ void rdc_count(unsigned v) { atomicAdd(&rdc_counter[v & 3], 1u); }

extern "C" __global__ void rdc_device_var(const unsigned *in, unsigned *out) {
    rdc_count(in[threadIdx.x]);
    __syncthreads();
    if (threadIdx.x < 4)
        out[threadIdx.x] = rdc_counter[threadIdx.x];
}

// A function another file defines: the call is resolved only by nvlink, and refused by name here (CALL.ABS.NOINC `(_Z12rdc_elsewherej)).
extern __device__ unsigned rdc_elsewhere(unsigned);

extern "C" __global__ void rdc_extern_call(const unsigned *in, unsigned *out) {
    out[threadIdx.x] = rdc_elsewhere(in[threadIdx.x]);
}
