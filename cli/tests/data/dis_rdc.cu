// Relocatable device code (-rdc=true): the cubin keeps relocations that nvdisasm prints as symbols.
// - calls to a device function in another section (CALL.ABS.NOINC `(sym), R_CUDA_ABS47_34) with the return
//   address as 32@lo/32@hi((kernel + .L_x_N@srel)) (R_CUDA_ABS32_LO_32/HI_32 with an addend);
// - a __device__ table's address (UMOV UR4, 32@lo(sym), R_CUDA_ABS32_LO_32/HI_32);
// - static shared arrays ([R2.X4+`(sym)], [`((sym + 0x40))], R_CUDA_ABS24_40);
// - double constants nvcc moves to a constant bank (c[`(sym)], R_CUDA_CONST_FIELD19_40);
// - spin loops on volatile global memory, where ptxas leaves a YIELD for the linker (R_CUDA_YIELD_OPCODE9_0,
//   printed (*"RELOCATOR OPCODE,YIELD,280"*)).
// Built with: nvcc -arch=sm_86 -cubin -O3 -rdc=true -o dis_rdc.cubin dis_rdc.cu
// Listing: nvdisasm -c -raw dis_rdc.cubin > dis_rdc.sass
__device__ int dis_rdc_table[64];

__device__ __noinline__ double dis_rdc_poly(double x)
{
    return ((x * 0.1 + 1.3) * x - 2.7) * x + 0.9;
}

extern "C" __global__ void dis_rdc_calls(const double *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = dis_rdc_poly(in[i]) + dis_rdc_poly(in[i] * 0.5) + dis_rdc_table[i & 63];
}

extern "C" __global__ void dis_rdc_shared(const int *in, int *out)
{
    __shared__ int a[128];
    __shared__ int b[32];
    a[threadIdx.x] = in[threadIdx.x];
    if (threadIdx.x < 32)
        b[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&b[a[threadIdx.x] & 31], 1);
    __syncthreads();
    out[threadIdx.x] = a[127 - threadIdx.x] + b[threadIdx.x & 31] + a[16];
}

__device__ __noinline__ int dis_rdc_wait(volatile int *flag)
{
    int seen;
    while ((seen = flag[0]) == 0) {
    }
    return seen;
}

extern "C" __global__ void dis_rdc_spin(volatile int *flag, int *out, unsigned mask)
{
    int v = out[threadIdx.x];
    v += __shfl_sync(mask, v, 3);
    v += __ballot_sync(mask, v & 1);
    if (threadIdx.x == 0)
        v += dis_rdc_wait(flag);
    out[threadIdx.x] = v;
}
