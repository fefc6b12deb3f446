// Float-to-half conversions for the F2FP / F2F.F16.F64 lowering (corpus/silicon/RECORDED.md): every
// PTX form ptxas turns into F2FP (.PACK_AB and .MERGE_C, f16 and bf16, RN/RZ, .RELU, .SATFINITE) and
// the f64 -> f16 conversion (F2F.F16.F64) in all four rounding modes. Thread i reads a[i], b[i] (f32 bits)
// and d[i] (f64 bits) and writes K words at out[i * K + k].
#define CVT2(k, insn)                                                                           \
    asm(insn " %0, %1, %2;" : "=r"(r) : "f"(x), "f"(y));                                        \
    o[k] = r;
#define CVT1(insn, src, c, dst) asm(insn " %0, %1;" : "=h"(dst) : c(src));

extern "C" __global__ void cvt_sweep(const unsigned *a, const unsigned *b, const unsigned long long *d,
                                     unsigned *out, int n)
{
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(a[i]), y = __uint_as_float(b[i]);
    double z = __longlong_as_double((long long)d[i]);
    unsigned *o = out + i * K;
    unsigned r;
    unsigned short h0, h1;
    CVT2(0, "cvt.rn.f16x2.f32")
    CVT2(1, "cvt.rz.f16x2.f32")
    CVT2(2, "cvt.rn.relu.f16x2.f32")
    CVT2(3, "cvt.rz.relu.f16x2.f32")
    CVT2(4, "cvt.rn.satfinite.f16x2.f32")
    CVT2(5, "cvt.rn.satfinite.relu.f16x2.f32")
    CVT2(6, "cvt.rn.bf16x2.f32")
    CVT2(7, "cvt.rz.bf16x2.f32")
    CVT2(8, "cvt.rn.relu.bf16x2.f32")
    CVT2(9, "cvt.rz.relu.bf16x2.f32")
    CVT2(10, "cvt.rn.satfinite.bf16x2.f32")
    CVT1("cvt.rn.relu.bf16.f32", x, "f", h0)
    CVT1("cvt.rn.relu.f16.f32", y, "f", h1)
    o[11] = h0 | (unsigned)h1 << 16;
    CVT1("cvt.rn.f16.f64", z, "d", h0)
    CVT1("cvt.rz.f16.f64", z, "d", h1)
    o[12] = h0 | (unsigned)h1 << 16;
    CVT1("cvt.rm.f16.f64", z, "d", h0)
    CVT1("cvt.rp.f16.f64", z, "d", h1)
    o[13] = h0 | (unsigned)h1 << 16;
    CVT1("cvt.rn.ftz.f16.f32", x, "f", h0)
    CVT1("cvt.rz.relu.bf16.f32", y, "f", h1)
    o[14] = h0 | (unsigned)h1 << 16;
    CVT1("cvt.rz.satfinite.relu.bf16.f32", x, "f", h0)
    CVT1("cvt.rn.satfinite.f16.f32", y, "f", h1)
    o[15] = h0 | (unsigned)h1 << 16;
}
