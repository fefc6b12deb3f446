// FP16 and BF16: __half/__half2 arithmetic, fused multiply-add, min/max (with and without NaN
// propagation), comparisons, conversions from and to float and integers in every rounding mode, and a few
// bfloat16 operations. Inputs are float bit patterns converted on the device, so the float special values
// (±0, ±inf, NaN, denormals, 65504, 65520) exercise half overflow, underflow and NaN handling.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void fp16_arith(const float *a, const float *b, const float *c, __half *out, int n)
{
    // SASS: F2FP.PACK_AB, HADD2, HMUL2, HFMA2 (.SAT), HMNMX2 (.NAN), HADD2.F32, HSETP2, MUFU.RCP (__hdiv), PRMT
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = __float2half(a[i]), y = __float2half(b[i]), z = __float2half(c[i]);
    __half2 x2 = __halves2half2(x, y), y2 = __halves2half2(z, x);
    __half *o = out + i * K;
    o[0] = __hadd(x, y);
    o[1] = __hsub(x, y);
    o[2] = __hmul(x, y);
    o[3] = __hfma(x, y, z);
    o[4] = __hmin(x, y);
    o[5] = __hmax(x, y);
    o[6] = __hmin_nan(x, y);
    o[7] = __hmax_nan(x, y);
    o[8] = __hfma_sat(x, y, z);
    o[9] = __hneg(x);
    o[10] = __habs(y);
    __half2 s = __hfma2(x2, y2, __hadd2(x2, y2));
    o[11] = __low2half(s);
    o[12] = __high2half(s);
    __half2 m = __hmul2(__hmax2(x2, y2), __hsub2(x2, y2));
    o[13] = __low2half(m);
    o[14] = __high2half(m);
    o[15] = __hdiv(x, y);
}

extern "C" __global__ void fp16_compare(const float *a, const float *b, unsigned *out, int n)
{
    // SASS: HSETP2 (ordered and unordered, .H0_H0 / .H1_H1 selects), HSET2.BM, ISETP on packed masks
    const int K = 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = __float2half(a[i]), y = __float2half(b[i]);
    __half2 x2 = __halves2half2(x, y), y2 = __halves2half2(y, x);
    unsigned *o = out + i * K;
    o[0] = __heq(x, y) | (__hne(x, y) << 1) | (__hlt(x, y) << 2) | (__hle(x, y) << 3) | (__hgt(x, y) << 4) |
           (__hge(x, y) << 5) | (__hequ(x, y) << 6) | (__hltu(x, y) << 7) | (__hisnan(x) << 8) | (__hisinf(x) << 9);
    __half2 lt = __hlt2(x2, y2);
    o[1] = (unsigned)__half_as_ushort(__low2half(lt)) | ((unsigned)__half_as_ushort(__high2half(lt)) << 16);
    o[2] = __hbeq2(x2, x2) | (__hbgtu2(x2, y2) << 1);
    o[3] = __hgt2_mask(x2, y2);
}

extern "C" __global__ void fp16_convert(const float *a, const int *b, unsigned short *out, float *outf, int n)
{
    // SASS: F2FP.PACK_AB with .RZ/.RP/.RM (float to half), F2F.F16.F32 rounding forms, HADD2.F32 (half to float),
    // F2I.F16 / I2F.F16 (half to and from integers)
    const int K = 14;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    int v = b[i];
    unsigned short *o = out + i * K;
    o[0] = __half_as_ushort(__float2half_rn(x));
    o[1] = __half_as_ushort(__float2half_rz(x));
    o[2] = __half_as_ushort(__float2half_ru(x));
    o[3] = __half_as_ushort(__float2half_rd(x));
    __half h = __float2half_rn(x);
    o[4] = (unsigned short)__half2int_rn(h);
    o[5] = (unsigned short)__half2int_rz(h);
    o[6] = (unsigned short)__half2int_ru(h);
    o[7] = (unsigned short)__half2int_rd(h);
    o[8] = __half_as_ushort(__int2half_rn(v));
    o[9] = __half_as_ushort(__int2half_rz(v));
    o[10] = __half_as_ushort(__uint2half_rd((unsigned)v));
    o[11] = __half_as_ushort(__short2half_rn((short)v));
    o[12] = __half2ushort_rz(h);
    o[13] = __half_as_ushort(__double2half((double)x * 0.75));
    outf[i] = __half2float(h) + __half2float(__ushort_as_half((unsigned short)v));
}

extern "C" __global__ void bf16_ops(const float *a, const float *b, unsigned short *out, int n)
{
    // SASS: F2FP.BF16.PACK_AB (.RZ), HFMA2.BF16_V2 (bf16 add/mul/fma), HMNMX2.BF16_V2, PRMT/SHF for bf16 to float
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = __float2bfloat16(a[i]), y = __float2bfloat16(b[i]);
    unsigned short *o = out + i * K;
    o[0] = __bfloat16_as_ushort(x);
    o[1] = __bfloat16_as_ushort(__float2bfloat16_rz(a[i]));
    o[2] = __bfloat16_as_ushort(__hadd(x, y));
    o[3] = __bfloat16_as_ushort(__hmul(x, y));
    o[4] = __bfloat16_as_ushort(__hfma(x, y, x));
    o[5] = __bfloat16_as_ushort(__hmax(x, y));
    o[6] = __bfloat16_as_ushort(__float2bfloat16(__bfloat162float(x) * 2.0f));
    __nv_bfloat162 p = __hmul2(__halves2bfloat162(x, y), __halves2bfloat162(y, x));
    o[7] = __bfloat16_as_ushort(__low2bfloat16(p)) ^ __bfloat16_as_ushort(__high2bfloat16(p));
}
