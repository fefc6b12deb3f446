// The classic first kernels: saxpy (y = a*x + y) with a scalar float parameter, its double-precision twin,
// a grid-stride version, and a vectorised float4 version.

extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, int n)
{
    // SASS: S2R SR_CTAID.X/SR_TID.X, IMAD, ISETP + EXIT, IMAD.WIDE addressing, LDG.E, FFMA with a
    // constant-bank operand (the float parameter), STG.E
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" __global__ void daxpy(double a, const double *x, const double *y, double *out, int n)
{
    // SASS: DFMA with a 64-bit constant-bank operand, LDG.E.64/STG.E.64
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" __global__ void saxpy_grid_stride(float a, const float *x, const float *y, float *out, int n)
{
    // SASS: grid-stride loop (IMAD with c[0x0][0xc] gridDim.x and c[0x0][0x0] blockDim.x), loop unrolled by
    // ptxas with a remainder loop
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}

extern "C" __global__ void saxpy_vec4(float a, const float4 *x, const float4 *y, float4 *out, int n4)
{
    // SASS: LDG.E.128 / STG.E.128 and four FFMA per thread
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 u = x[i], v = y[i];
    out[i] = make_float4(a * u.x + v.x, a * u.y + v.y, a * u.z + v.z, a * u.w + v.w);
}
