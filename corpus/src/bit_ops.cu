// Bit manipulation: population count, leading zeros, find-first-set, bit reverse, byte permute,
// funnel shifts (wrapping and clamping), variable shifts, bit-field extract/insert (PTX bfe/bfi, which SM86
// lowers to SHF/SGXT/BMSK sequences), rotates, three-input logic and find-n-th-set.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void bit_ops32(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out, int n)
{
    // SASS: POPC, FLO.U32 (+ IADD3 for clz/ffs), BREV, PRMT, SHF.L.W/SHF.R.W/SHF.L.U32/SHF.R.U32.HI/SHF.R.S32.HI,
    // SGXT, BMSK, LOP3, SEL, ISETP
    const int K = 22;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    unsigned s = z & 31u;
    unsigned pos = z & 31u, len = (z >> 8) & 31u;
    unsigned *o = out + i * K;
    unsigned bfe_u, bfi;
    int bfe_s;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(bfe_u) : "r"(x), "r"(pos), "r"(len));
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(bfe_s) : "r"((int)x), "r"(pos), "r"(len));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(bfi) : "r"(x), "r"(y), "r"(pos), "r"(len));
    o[0] = __popc(x);
    o[1] = __clz((int)x);
    o[2] = __ffs((int)x);
    o[3] = __brev(x);
    o[4] = __byte_perm(x, y, 0x5140);
    o[5] = __byte_perm(x, y, z);
    o[6] = __funnelshift_l(x, y, z);
    o[7] = __funnelshift_r(x, y, z);
    o[8] = __funnelshift_lc(x, y, z);
    o[9] = __funnelshift_rc(x, y, z);
    o[10] = x << s;
    o[11] = x >> s;
    o[12] = (unsigned)((int)x >> s);
    o[13] = bfe_u;
    o[14] = (unsigned)bfe_s;
    o[15] = bfi;
    o[16] = (x & y) ^ (~x | z);
    o[17] = (x << 7) | (x >> 25);
    o[18] = (s == 0) ? 0u : ((1u << s) - 1u);
    o[19] = (unsigned)(((int)(x << (31u - s))) >> (31u - s));
    o[20] = __fns(x, s, (int)(y & 7u) - 3);
    o[21] = (x & 0xff00ff00u) | ((y >> 8) & 0x00ff00ffu);
}

extern "C" __global__ void bit_ops_const_shift(const unsigned *a, unsigned *out, int n)
{
    // SASS: SHF/PRMT with immediate amounts, byte swaps (PRMT), LOP3 with immediates, bit tests (LOP3.LUT P)
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unsigned *o = out + i * K;
    o[0] = __byte_perm(x, 0, 0x0123);
    o[1] = (x << 3) + x;
    o[2] = (x >> 13) ^ (x << 19);
    o[3] = (unsigned)((int)x >> 31);
    o[4] = (x & 0x10u) ? 0xdeadbeefu : 0x12345678u;
    o[5] = ((x >> 4) & 0xfu) | ((x & 0xfu) << 4);
    o[6] = (x | 0x80000000u) & ~0xffu;
    o[7] = (unsigned)(x != 0 && (x & (x - 1)) == 0);
}
