// Float-to-8-bit-integer conversions compiled public code uses (cuda_fp16's __half2uchar_rz and friends) and the
// rest of the corpus did not: F2I.U8 / F2I.S8 from f16, f32 and f64. Written for the sassport corpus.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].
// Not part of corpus/ (written after the last H200 recording of this session): cli/tests/real_forms.rs checks it
// against a host model.
// Built with: nvcc -arch=sm_86 -cubin -O3 -Werror all-warnings -o real_forms_f2i.cubin real_forms_f2i.cu

#include <cuda_fp16.h>

extern "C" __global__ void narrow_float_to_int(const unsigned *a, unsigned *out, int n)
{
    // SASS: F2I.U8 / F2I.S8 from f16 (`__half2uchar_rz`, `__half2char_rz`, inline cvt.rni.u8.f16), f32
    // (cvt.rmi.s8 / cvt.rpi.sat.u8) and f64 (cvt.rzi.s8.f64): saturated to the byte's range, NaN to 0 with
    // .NTZ; the register results stored as they are where nvcc does not mask them
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    float f = __uint_as_float(x);
    __half h = __ushort_as_half((unsigned short)x), h2 = __ushort_as_half((unsigned short)(x >> 16));
    unsigned *o = out + i * K;
    unsigned r;
    unsigned short r16;
    o[0] = __half2uchar_rz(h);
    o[1] = (unsigned)(int)__half2char_rz(h2);
    o[2] = (unsigned)(int)__half2char_rz(h);
    asm("cvt.rmi.s8.f32 %0, %1;" : "=r"(r) : "f"(f));
    o[3] = r;
    asm("cvt.rpi.sat.u8.f32 %0, %1;" : "=r"(r) : "f"(f));
    o[4] = r;
    asm("{ .reg .f64 d; mov.b64 d, {%1, %2}; cvt.rzi.s8.f64 %0, d; }" : "=r"(r) : "r"(x), "r"(a[i + 1]));
    o[5] = r;
    asm("cvt.rni.u8.f16 %0, %1;" : "=h"(r16) : "h"(__half_as_ushort(h2)));
    o[6] = r16;
    o[7] = (unsigned)(int)(signed char)__float2int_rz(f);
}
