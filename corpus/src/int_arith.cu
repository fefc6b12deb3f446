// Integer arithmetic: 32- and 64-bit multiply, high multiply, division and remainder (signed and
// unsigned, by variables and by constants), min/max/abs, 24-bit multiply, sum of absolute differences.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].
// Division operands are adjusted so the C source never divides by zero or overflows (INT_MIN / -1):
// the hardware sequence is the same, and the goldens stay defined by the language.

#include <climits>

extern "C" __global__ void int32_arith(const int *a, const int *b, int *out, int n)
{
    // SASS: IMAD, IMAD.HI, IMAD.WIDE, IADD3, IABS, IMNMX, I2F.U32.RP + MUFU.RCP + F2I (division), ISETP, SEL, LOP3
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = x, uy = y;
    int d = (y == 0 || (x == INT_MIN && y == -1)) ? 1 : y;
    unsigned ud = uy == 0 ? 1u : uy;
    int *o = out + i * K;
    o[0] = (int)(ux * uy);
    o[1] = __mulhi(x, y);
    o[2] = (int)__umulhi(ux, uy);
    o[3] = x / d;
    o[4] = x % d;
    o[5] = (int)(ux / ud);
    o[6] = (int)(ux % ud);
    o[7] = min(x, y);
    o[8] = max(x, y);
    o[9] = (int)min(ux, uy);
    o[10] = (int)max(ux, uy);
    o[11] = abs(x);
    o[12] = __mul24(x, y);
    o[13] = (int)__umul24(ux, uy);
    o[14] = (int)(ux + uy * 5u - (ux >> 3));
    o[15] = (int)__sad(x, y, ux & 0xffu);
}

extern "C" __global__ void int32_const_divide(const int *a, int *out, int n)
{
    // SASS: IMAD.HI / IMAD.WIDE.U32 magic-number division, SHF.R.S32.HI, LEA.HI, LOP3 (power-of-two remainders)
    const int K = 12;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    unsigned ux = x;
    int *o = out + i * K;
    o[0] = x / 7;
    o[1] = x % 7;
    o[2] = x / -3;
    o[3] = x / 10;
    o[4] = x / 1000;
    o[5] = (int)(ux / 3u);
    o[6] = (int)(ux % 10u);
    o[7] = x / 16;
    o[8] = x % 16;
    o[9] = (int)(ux / 16u);
    o[10] = (int)(ux / 0x80000001u);
    o[11] = x / 641;
}

extern "C" __global__ void int64_arith(const long long *a, const long long *b, long long *out, int n)
{
    // SASS: IMAD.WIDE.U32, IMAD.HI.U32, IADD3.X, ISETP.*.EX, SHF.L.U64.HI, SHF.R.S64, 64-bit division (CALL to a
    // division subroutine or an inlined I2F.U64/F2I sequence), POPC, FLO, BREV on register pairs
    const int K = 24;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i], y = b[i];
    unsigned long long ux = x, uy = y;
    long long d = (y == 0 || (x == LLONG_MIN && y == -1)) ? 1 : y;
    unsigned long long ud = uy == 0 ? 1ull : uy;
    unsigned s = (unsigned)uy & 63u;
    long long *o = out + i * K;
    o[0] = (long long)(ux * uy);
    o[1] = __mul64hi(x, y);
    o[2] = (long long)__umul64hi(ux, uy);
    o[3] = x / d;
    o[4] = x % d;
    o[5] = (long long)(ux / ud);
    o[6] = (long long)(ux % ud);
    o[7] = (long long)(ux + uy);
    o[8] = (long long)(ux - uy);
    o[9] = (x < y) | ((ux < uy) << 1) | ((x == y) << 2) | ((x <= y) << 3) | ((ux >= uy) << 4) | ((x != 0) << 5);
    o[10] = min(x, y);
    o[11] = (long long)max(ux, uy);
    o[12] = llabs(x);
    o[13] = (long long)(ux << s);
    o[14] = x >> s;
    o[15] = (long long)(ux >> s);
    o[16] = (long long)__brevll(ux);
    o[17] = __popcll(ux) | (__clzll(x) << 8) | (__ffsll(x) << 16);
    o[18] = x / 1000;
    o[19] = (long long)(ux % 1000000007ull);
    o[20] = (long long)(int)x * (long long)(int)y;
    o[21] = (long long)((unsigned long long)(unsigned)x * (unsigned)y);
    o[22] = (long long)(ux * 3ull + (ux >> 1) - (uy << 2));
    o[23] = (long long)(-ux) ^ (long long)~uy;
}

extern "C" __global__ void int32_saturate_simd(const unsigned *a, const unsigned *b, const unsigned *c,
                                               unsigned *out, int n)
{
    // SASS: IADD3 + IMNMX (saturation), halving adds (LEA.HI / SHF), IDP.4A / IDP.2A, VABSDIFF4, PRMT,
    // video intrinsics lowered to LOP3/IADD3 sequences
    const int K = 20;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    int sx = (int)x, sy = (int)y;
    unsigned *o = out + i * K;
    int sat_add, sat_sub;
    asm("add.sat.s32 %0, %1, %2;" : "=r"(sat_add) : "r"(sx), "r"(sy));
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(sat_sub) : "r"(sx), "r"(sy));
    o[0] = (unsigned)__hadd(sx, sy);
    o[1] = (unsigned)__rhadd(sx, sy);
    o[2] = __uhadd(x, y);
    o[3] = __urhadd(x, y);
    o[4] = (unsigned)sat_add;
    o[5] = (unsigned)sat_sub;
    o[6] = __vadd4(x, y);
    o[7] = __vaddss4(x, y);
    o[8] = __vaddus2(x, y);
    o[9] = __vabsdiffu4(x, y);
    o[10] = __vmaxs4(x, y);
    o[11] = __vcmpgtu4(x, y);
    o[12] = __vsads2(x, y);
    o[13] = (unsigned)__dp4a(sx, sy, (int)z);
    o[14] = __dp4a(x, y, z);
    o[15] = (unsigned)__dp2a_lo(sx, sy, (int)z);
    o[16] = __usad(x, y, z & 0xffffu);
    o[17] = (unsigned)min(max(sx, 0), 255);
    o[18] = (unsigned)max(min(sx, 32767), -32768);
    o[19] = __vsub2(x, y) ^ __vneg4(z);
}
