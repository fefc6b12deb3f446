// FP32 conversions in every rounding mode: float to 32/64-bit signed and unsigned integers, integers to
// float, float to and from double, saturation, the rounding functions (trunc/floor/ceil/rint/round),
// min/max with NaN and signed zeros, copysign, and raw bit reinterpretation.
// Out-of-range inputs saturate (PTX cvt semantics); NaN gives 0 for 32-bit and 0x8000000000000000 for
// 64-bit results on silicon (see the goldens).
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void fp32_to_int(const float *a, int *out, int n)
{
    // SASS: F2I.NTZ / F2I.TRUNC.NTZ / F2I.CEIL.NTZ / F2I.FLOOR.NTZ (.U32 and .S64/.U64 forms)
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    int *o = out + i * K;
    o[0] = __float2int_rn(x);
    o[1] = __float2int_rz(x);
    o[2] = __float2int_ru(x);
    o[3] = __float2int_rd(x);
    o[4] = (int)__float2uint_rn(x);
    o[5] = (int)__float2uint_rz(x);
    o[6] = (int)__float2uint_ru(x);
    o[7] = (int)__float2uint_rd(x);
    long long l0 = __float2ll_rn(x), l1 = __float2ll_rz(x), l2 = __float2ll_ru(x), l3 = __float2ll_rd(x);
    unsigned long long u0 = __float2ull_rn(x), u1 = __float2ull_rz(x);
    o[8] = (int)l0;
    o[9] = (int)(l1 >> 32);
    o[10] = (int)(l2 ^ (l2 >> 32));
    o[11] = (int)(l3 ^ (l3 >> 32));
    o[12] = (int)(u0 ^ (u0 >> 32));
    o[13] = (int)(u1 >> 32);
    o[14] = (int)x;
    o[15] = (int)(unsigned)x;
}

extern "C" __global__ void int_to_fp32(const int *a, const long long *b, float *out, int n)
{
    // SASS: I2F / I2F.U32 / I2F.S64 / I2F.U64 with .RZ/.RP/.RM, I2FP.F32.S32 (default round-to-nearest)
    const int K = 17;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    unsigned ux = x;
    long long l = b[i];
    unsigned long long ul = l;
    float *o = out + i * K;
    o[0] = __int2float_rn(x);
    o[1] = __int2float_rz(x);
    o[2] = __int2float_ru(x);
    o[3] = __int2float_rd(x);
    o[4] = __uint2float_rn(ux);
    o[5] = __uint2float_rz(ux);
    o[6] = __uint2float_ru(ux);
    o[7] = __uint2float_rd(ux);
    o[8] = __ll2float_rn(l);
    o[9] = __ll2float_rz(l);
    o[10] = __ll2float_ru(l);
    o[11] = __ll2float_rd(l);
    o[12] = __ull2float_rn(ul);
    o[13] = __ull2float_rz(ul);
    o[14] = __ull2float_ru(ul);
    o[15] = __ull2float_rd(ul);
    o[16] = (float)(short)x + (float)(unsigned char)ux;
}

extern "C" __global__ void fp32_double_convert(const float *a, const double *b, float *out, double *out64, int n)
{
    // SASS: F2F.F64.F32, F2F.F32.F64 with .RZ/.RP/.RM; float(double(x) * 3) folds to an FMUL
    const int K = 5;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    double d = b[i];
    float *o = out + i * K;
    o[0] = __double2float_rn(d);
    o[1] = __double2float_rz(d);
    o[2] = __double2float_ru(d);
    o[3] = __double2float_rd(d);
    o[4] = (float)((double)x * 3.0);
    out64[i] = (double)x;
}

extern "C" __global__ void fp32_round_misc(const float *a, const float *b, float *out, int n)
{
    // SASS: FRND / FRND.TRUNC / FRND.FLOOR / FRND.CEIL, FADD.SAT (saturatef), FMNMX (NaN and ±0 rules),
    // LOP3 for copysign/abs/neg, FSETP.NAN
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    float *o = out + i * K;
    o[0] = truncf(x);
    o[1] = floorf(x);
    o[2] = ceilf(x);
    o[3] = rintf(x);
    o[4] = roundf(x);
    o[5] = nearbyintf(x);
    o[6] = __saturatef(x);
    o[7] = fminf(x, y);
    o[8] = fmaxf(x, y);
    o[9] = copysignf(x, y);
    o[10] = fabsf(x);
    o[11] = -x;
    o[12] = __int_as_float(__float_as_int(x) ^ 0x00000001);
    o[13] = fdimf(x, y);
    o[14] = fminf(x, 0.0f) + fmaxf(y, -0.0f);
    o[15] = (float)lrintf(x) + (float)lroundf(y);
}
