// Float forms that compiled public code uses and the rest of the corpus did not: FMUL with a power-of-two
// post-scale (.D2/.D4/.D8/.M2/.M4/.M8, nvcc's contraction of `x * y * 0.5f` and of PTX `mul.f32` chains), with
// inputs built to land the product at the overflow and denormal boundaries; conversions from 8- and 16-bit
// integers (I2F.U8/.S8/.U16/.S16 to f16, f32 and f64) with byte and half source selects, F2F from a high half.
// Written for the sassport corpus.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

#include <cuda_fp16.h>

// Exponent pairs (biased) for the scaled-product cases: the product's exponent lands near 2^128 (overflow
// before the scaling, finite after it), near 2^-126 (normal before, denormal after), deep in the denormals,
// near the smallest denormal, and in the normal middle.
__constant__ int fmul_exponents[8][2] = {
    {127 + 64, 127 + 63}, {127 + 64, 127 + 64}, {127 - 63, 127 - 63}, {127 - 64, 127 - 62},
    {127 - 70, 127 - 60}, {127 - 75, 127 - 70}, {127 - 76, 127 - 72}, {127 + 3, 127 - 5},
};

__device__ float with_exponent(unsigned bits, int e)
{
    return __uint_as_float((bits & 0x807fffffu) | ((unsigned)e << 23));
}

extern "C" __global__ void fmul_scaled(const unsigned *a, float *out, int n)
{
    // SASS: FMUL.D2 / .D4 / .D8 (C++ `x * y * 0.5f`, `(x * y) / 4.0f`, `x * y * 0.125f`), FMUL.M2 / .M4 /
    // .M8, FMUL.D2.SAT, FMUL.FTZ.D2 and FMUL.D2 with an immediate (inline mul.f32 / mul.ftz.f32 chains), on the
    // raw special inputs and on products placed at the range boundaries. Every product has its own operand
    // pair, so that no product is shared (a shared product is rounded once and scaled by a second FMUL).
    const int K = 13;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned wa = a[i], wb = a[i + 1];
    float x = __uint_as_float(wa), y = __uint_as_float(wb);
    const int *e = fmul_exponents[i & 7];
    float ys = with_exponent(wb, e[1]), ys1 = with_exponent(wb, e[1] + 1);
    float xs = with_exponent(wa, e[0]), xs1 = with_exponent(wa, e[0] + 1), xs2 = with_exponent(wa, e[0] + 2);
    float xs3 = with_exponent(wa, e[0] - 1);
    // Products up by the scale: near 2^128 / 2^-126 after the multiplication by 2, 4, 8.
    float ym = with_exponent(wb, 254 - e[1]);
    float xm = with_exponent(wa, 254 - e[0] + 1), xm1 = with_exponent(wa, 254 - e[0]);
    float xm2 = with_exponent(wa, 254 - e[0] - 1);
    float *o = out + i * K;
    float r;
    o[0] = x * y * 0.5f;
    o[1] = xs * ys * 0.5f;
    o[2] = (xs1 * ys) / 4.0f;
    o[3] = xs2 * ys * 0.125f;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; mul.f32 %0, t, 0f40000000; }" : "=f"(r) : "f"(xm), "f"(ym));
    o[4] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; mul.f32 %0, t, 0f40800000; }" : "=f"(r) : "f"(xm1), "f"(ym));
    o[5] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; mul.f32 %0, t, 0f41000000; }" : "=f"(r) : "f"(xm2), "f"(ym));
    o[6] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; mul.sat.f32 %0, t, 0f3F000000; }" : "=f"(r) : "f"(x), "f"(ys));
    o[7] = r;
    asm("{ .reg .f32 t; mul.ftz.f32 t, %1, %2; mul.ftz.f32 %0, t, 0f3F000000; }" : "=f"(r) : "f"(xs), "f"(ys1));
    o[8] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, 0f40400000; mul.f32 %0, t, 0f3F000000; }" : "=f"(r) : "f"(xs));
    o[9] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; mul.f32 %0, t, 0f41000000; }" : "=f"(r) : "f"(-x), "f"(y));
    o[10] = r;
    asm("{ .reg .f32 t; mul.rz.f32 t, %1, %2; mul.rz.f32 %0, t, 0f3E800000; }" : "=f"(r) : "f"(xs1), "f"(ys1));
    o[11] = r;
    o[12] = -(xs3 * ys) * 0.25f;
}

extern "C" __global__ void narrow_int_convert(const unsigned *a, float *out, double *out64, unsigned *bits, int n)
{
    // SASS: I2F.U8 / .S8 / .S8.RZ / .S16 / .U16 (f32), I2F.F64.U8 R.B1, I2F.F64.S8, I2F.F64.U16 R.H1,
    // I2F.F16.U8 R.B1, F2F.F64.F16 R.H1, and the byte/half extractions nvcc pairs with them
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    float f;
    double d;
    unsigned short h;
    float *o = out + i * K;
    double *o64 = out64 + i * 4;
    asm("cvt.rn.f32.u8 %0, %1;" : "=f"(f) : "r"(x));
    o[0] = f;
    asm("{ .reg .u32 t; shr.u32 t, %1, 8; cvt.rn.f32.u8 %0, t; }" : "=f"(f) : "r"(x));
    o[1] = f;
    asm("{ .reg .u32 t; shr.u32 t, %1, 16; cvt.rz.f32.s8 %0, t; }" : "=f"(f) : "r"(x));
    o[2] = f;
    asm("{ .reg .u32 t; shr.u32 t, %1, 24; cvt.rn.f32.s8 %0, t; }" : "=f"(f) : "r"(x));
    o[3] = f;
    asm("{ .reg .u32 t; shr.u32 t, %1, 16; cvt.rn.f32.s16 %0, t; }" : "=f"(f) : "r"(x));
    o[4] = f;
    o[5] = (float)(unsigned short)(x >> 16) + (float)(signed char)x;
    o[6] = (float)(short)x;
    asm("{ .reg .u32 t; shr.u32 t, %1, 8; cvt.rn.f64.u8 %0, t; }" : "=d"(d) : "r"(x));
    o64[0] = d;
    asm("{ .reg .u32 t; shr.u32 t, %1, 24; cvt.rn.f64.s8 %0, t; }" : "=d"(d) : "r"(x));
    o64[1] = d;
    asm("{ .reg .u32 t; shr.u32 t, %1, 16; cvt.rn.f64.u16 %0, t; }" : "=d"(d) : "r"(x));
    o64[2] = d;
    asm("{ .reg .u32 t; .reg .b16 hh; shr.u32 t, %1, 16; cvt.u16.u32 hh, t; cvt.f64.f16 %0, hh; }"
        : "=d"(d) : "r"(x));
    o64[3] = d;
    asm("{ .reg .u32 t; .reg .f16 hf; shr.u32 t, %1, 8; cvt.rn.f16.u8 hf, t; mov.b16 %0, hf; }"
        : "=h"(h) : "r"(x));
    o[7] = __half2float(__ushort_as_half(h));
    bits[i] = (unsigned)h | ((unsigned)__half_as_ushort(__int2half_rn((signed char)(x >> 8))) << 16);
}

extern "C" __global__ void math_library_forms(const unsigned *a, const unsigned *b, unsigned *out, int n)
{
    // SASS: LOP3.LUT with a predicate input (P = ((hi & 0x7fffffff) != 0) or P, nextafter's zero test), LEA
    // with a negated B (powf, tgammaf exponent assembly), FFMA with |x| and -|x| operands (erfcf, coshf,
    // sinhf, asinhf), from the toolkit's math library; MUFU approximations inside, hence an ulp tolerance
    const int K = 9;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(a[i]), y = __uint_as_float(b[i]);
    double xd = __hiloint2double((int)a[i], (int)b[i]), yd = __hiloint2double((int)b[i], (int)a[i]);
    double nd = nextafter(xd, yd);
    unsigned *o = out + i * K;
    o[0] = (unsigned)__double_as_longlong(nd);
    o[1] = (unsigned)(__double_as_longlong(nd) >> 32);
    o[2] = __float_as_uint(nextafterf(x, y));
    o[3] = __float_as_uint(powf(x, y));
    o[4] = __float_as_uint(tgammaf(x));
    o[5] = __float_as_uint(erfcf(x));
    o[6] = __float_as_uint(coshf(x));
    o[7] = __float_as_uint(sinhf(y));
    o[8] = __float_as_uint(asinhf(x));
}
