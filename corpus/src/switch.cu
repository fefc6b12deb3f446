// Switch statements: a dense switch, a sparse switch with fall-through, and an explicit PTX brx.idx jump
// table. nvcc 13.5 lowers C switches to compare-and-branch trees (it emits no jump tables of its own), so
// the indirect branch BRX comes from the inline-assembly kernel.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void switch_dense(const unsigned *a, unsigned *out, int n)
{
    // SASS: a binary tree of ISETP + BRA over the case values, BSSY/BSYNC reconvergence, POPC/BREV/FLO in cases
    const int K = 1;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unsigned r;
    switch (x % 24u) {
    case 0: r = x + 1u; break;
    case 1: r = x * 3u; break;
    case 2: r = x ^ 0xdeadbeefu; break;
    case 3: r = x >> 3; break;
    case 4: r = x << 5; break;
    case 5: r = ~x; break;
    case 6: r = x * x; break;
    case 7: r = __popc(x); break;
    case 8: r = __brev(x); break;
    case 9: r = x - 1000u; break;
    case 10: r = x | 0xf0u; break;
    case 11: r = x & 0x0fu; break;
    case 12: r = __clz(x); break;
    case 13: r = x / 7u; break;
    case 14: r = x % 13u; break;
    case 15: r = x * 0x9e3779b9u; break;
    case 16: r = (x << 16) | (x >> 16); break;
    case 17: r = x + 0x11111111u; break;
    case 18: r = x ^ (x >> 7); break;
    case 19: r = 42u; break;
    default: r = 0xffffffffu; break;
    }
    out[i * K] = r;
}

extern "C" __global__ void switch_sparse(const int *a, int *out, int n)
{
    // SASS: ISETP.EQ chains / binary search of ISETP.GT with BRA, fall-through blocks
    const int K = 2;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    int key = x & 0xfff;
    int r = 0;
    switch (key) {
    case 1: r = 10; break;
    case 17: r = 20; break;
    case 300: r = 30;
    // fall through
    case 301: r += 31; break;
    case 1024: r = x >> 2; break;
    case 2047: r = -x; break;
    case 4000: r = x * 7; break;
    case 4095: r = 1; break;
    default: r = key & 7; break;
    }
    int s;
    switch (x >> 28) {
    case -8: s = 1; break;
    case -1: s = 2; break;
    case 0: s = 3; break;
    case 7: s = 4; break;
    default: s = 5; break;
    }
    out[i * K] = r;
    out[i * K + 1] = s;
}

extern "C" __global__ void switch_brx_ptx(const unsigned *a, unsigned *out, int n)
{
    // SASS: BRX through a register target read with LDC from the branch-target table that ptxas places in a
    // constant bank (from the .branchtargets list and brx.idx)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unsigned idx = x & 3u;
    unsigned r;
    asm volatile(
        "{\n"
        "  .reg .u32 %%v;\n"
        "  ts: .branchtargets L0, L1, L2, L3;\n"
        "  brx.idx %1, ts;\n"
        "L0: mul.lo.u32 %%v, %2, 3; bra.uni DONE;\n"
        "L1: xor.b32 %%v, %2, 0x12345678; bra.uni DONE;\n"
        "L2: shr.u32 %%v, %2, 9; bra.uni DONE;\n"
        "L3: add.u32 %%v, %2, 77;\n"
        "DONE: mov.u32 %0, %%v;\n"
        "}\n"
        : "=r"(r)
        : "r"(idx), "r"(x));
    out[i] = r;
}
