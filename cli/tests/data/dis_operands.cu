// Two operand forms real code hit that the encoding table missed or printed differently: a float kernel
// parameter widened to double straight from the constant bank (F2F.F64.F32 R2, c[0x0][0x160]) and a shared
// load from a uniform address with no register part (LDS R0, [UR4] — not [RZ+UR4]).
// Built with: nvcc -arch=sm_86 -cubin -O3 -o dis_operands.cubin dis_operands.cu
// Listing: nvdisasm -c -raw dis_operands.cubin > dis_operands.sass
extern "C" __global__ void dis_f2f_param(float f, float g, double *out)
{
    out[0] = f;
    out[1] = g;
}

extern "C" __global__ void dis_lds_uniform(int4 *out, int *out1, int n)
{
    __shared__ int4 s[256];
    __shared__ int t[256];
    s[threadIdx.x] = make_int4(threadIdx.x, 1, 2, 3);
    t[threadIdx.x] = threadIdx.x * 3;
    __syncthreads();
    out[threadIdx.x] = s[blockIdx.x & 255];
    out1[threadIdx.x] = t[n & 255];
}
