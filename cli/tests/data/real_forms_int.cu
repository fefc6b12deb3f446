// Integer, predicate and memory forms that compiled public code uses and the rest of the corpus did not:
// LEA with a negated operand (pointer minus index), LOP3 writing a predicate, uniform-register indices into
// __constant__ data, atomics on generic pointers that may point to shared or to global memory, and an
// async-copy arrive on an mbarrier. Written for the sassport corpus.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].
// Not part of corpus/: recorded on the H200 before lea_negated's out-of-bounds read was fixed, and no device
// time was left to record the fixed file; cli/tests/real_forms.rs checks lea_negated, lop3_predicate and
// generic_atomics against host models and the other five against that recording (data/real_forms_int_h200/,
// whose code is identical).
// Built with: nvcc -arch=sm_86 -cubin -O3 -Werror all-warnings -o real_forms_int.cubin real_forms_int.cu

extern "C" __global__ void lea_negated(const int *a, int *out, long long *out64, int n)
{
    // SASS: LEA.HI.X.SX32 with a bitwise-negated operand (~R, the high word of `base - index`), LEA with a
    // negated A, 64-bit differences of shifted values
    const int K = 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = a[i + 1];
    int back = (unsigned)x % 17u;
    const int *p = a + n - 1 - i;              // a pointer walking down from the end
    int *o = out + i * K;
    o[0] = *(p - back % (n - i));              // base minus a sign-extended index
    o[1] = (int)((unsigned)y - ((unsigned)x << 3));
    o[2] = (a + n - 1)[-((i * 5) % n)];      // indices stay in [0, n)
    o[3] = (int)(a + n - (y & 63) > a + i);    // pointer comparisons after a subtraction
    long long w = (long long)y - ((long long)x << 4);
    out64[i * 2] = w;
    out64[i * 2 + 1] = (long long)(unsigned)x - ((long long)y << 2) - (long long)(p - a);
}

extern "C" __global__ void lop3_predicate(const unsigned *a, unsigned *out, int n)
{
    // SASS: LOP3.LUT with a predicate destination (P = (a & b) != 0, and with a register result kept),
    // PLOP3 combining them
    const int K = 3;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = a[i + 1], z = a[i + 2];
    unsigned *o = out + i * K;
    unsigned r = 0;
    if ((x & y) != 0) r |= 1;
    if ((x ^ y ^ z) == 0) r |= 2;
    if (((x | z) & 0x80000001u) != 0) r |= 4;
    if ((~x & y & ~z) == 0) r |= 8;
    unsigned m = x & ~y;
    o[0] = r;
    o[1] = m != 0 ? m : z;
    o[2] = ((x & 0xff00u) == 0) == ((y & 0xffu) == 0) ? x + y : x - y;
}

__constant__ unsigned long long real_forms_words[64] = {
    0x0123456789abcdefull, 0xfedcba9876543210ull, 0x8000000000000000ull, 0x7fffffffffffffffull,
    0x3ff0000000000000ull, 0xbff8000000000000ull, 0x0000000000000001ull, 0xffffffffffffffffull,
    0x00000000ffffffffull, 0xffffffff00000000ull, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull,
    0x0f0f0f0f0f0f0f0full, 0xf0f0f0f0f0f0f0f0ull, 0x00ff00ff00ff00ffull, 0xff00ff00ff00ff00ull,
    0x400921fb54442d18ull, 0x4005bf0a8b145769ull, 0x3fe0000000000000ull, 0xc000000000000000ull,
    0x0000000100000002ull, 0x0000000300000004ull, 0x1111111111111111ull, 0x2222222222222222ull,
    0x3333333333333333ull, 0x4444444444444444ull, 0x6666666666666666ull, 0x7777777777777777ull,
    0x8888888888888888ull, 0x9999999999999999ull, 0xbbbbbbbbbbbbbbbbull, 0xccccccccccccccccull,
    0x1000000000000000ull, 0x0100000000000000ull, 0x0010000000000000ull, 0x0001000000000000ull,
    0x0000100000000000ull, 0x0000010000000000ull, 0x0000001000000000ull, 0x0000000100000000ull,
    0x0000000010000000ull, 0x0000000001000000ull, 0x0000000000100000ull, 0x0000000000010000ull,
    0x0000000000001000ull, 0x0000000000000100ull, 0x0000000000000010ull, 0x0000000000000003ull,
    0x3fd5555555555555ull, 0x4059000000000000ull, 0x40c3880000000000ull, 0x412e848000000000ull,
    0xdeadbeefcafef00dull, 0x0badf00d0ddba11ull, 0x1234567812345678ull, 0x8765432187654321ull,
    0x0000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
    0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull, 0x3ff0000000000001ull,
};

extern "C" __global__ void constant_uniform_index(const double *a, double *out, unsigned long long *bits, int k, int n)
{
    // SASS: ULDC.64 URx, c[0x3][URx] and c[0x3][URx+imm] (a loop-uniform index into __constant__ data), DFMA
    // on the loaded values
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double x = i < n ? a[i] : 0.0;
    double s = 0.0;
    unsigned long long t = 0;
    const double *table = reinterpret_cast<const double *>(real_forms_words);
    for (int j = 0; j < k; j++) {
        s = s * 0.5 + table[16 + (j & 7)] * x;
        t = (t << 1 | t >> 63) ^ real_forms_words[(j * 7 + 3) & 63];
    }
    if (i < n) {
        out[i] = s;
        bits[i] = t ^ real_forms_words[(k + blockIdx.x) & 63];
    }
}

__device__ __noinline__ unsigned generic_atomic_ops(unsigned *p, unsigned v)
{
    // Called with shared and with global pointers: every atomic here is ATOM on a generic address.
    unsigned r = atomicAdd(p, v & 0xff);
    r ^= atomicAnd(p + 1, ~(1u << (v & 31)));
    r ^= atomicOr(p + 2, 1u << ((v >> 5) & 31));
    r ^= atomicXor(p + 3, v);
    r ^= atomicMin(p + 4, v | 0x100u);
    r ^= atomicMax(reinterpret_cast<int *>(p) + 5, (int)v);
    r ^= atomicInc(p + 6, 40u);
    r ^= atomicDec(p + 7, 50u);
    r ^= atomicAdd_block(p + 8, v >> 24);
    r ^= atomicAnd_block(p + 9, v | 0x01010101u);
    r ^= atomicMin_block(reinterpret_cast<int *>(p) + 10, (int)v);
    return r;
}

__device__ __noinline__ void generic_atomic_ops64(unsigned long long *q, unsigned v)
{
    atomicAdd(q, (unsigned long long)v);
    atomicMax(q + 1, (unsigned long long)v << 20);
    atomicMin(q + 2, (unsigned long long)v * 3);
    atomicOr(q + 3, 1ull << (v & 63));
    atomicAnd(q + 4, ~(1ull << (v & 63)));
    atomicXor(q + 5, (unsigned long long)v << 7);
}

// Initial values of the shared targets (the global ones come from the input generator).
__device__ unsigned initial_word(int t)
{
    return t == 1 || t == 4 || t == 9 || t == 10 ? 0x7fffffffu : (unsigned)t * 5u;
}

extern "C" __global__ void generic_atomics(const unsigned *in, unsigned *global_words, unsigned *out, int n)
{
    // SASS: ATOM.E.ADD, .AND, .OR, .XOR, .MIN, .MAX, .INC, .DEC with .STRONG.GPU and .STRONG.SM (the _block forms) on generic
    // pointers that point to shared memory in some warps and to global memory in others (resolved at run
    // time); ATOM.E.EXCH and ATOM.E.CAS on a per-thread slot, shared or global by the input, whose returned
    // values are written out; the shared results copied out afterwards
    __shared__ unsigned words[12];
    __shared__ unsigned slots[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < 12) words[t] = initial_word(t);
    slots[t] = (unsigned)t * 3u;
    __syncthreads();
    unsigned v = i < n ? in[i] : 0u;
    bool to_shared = ((t >> 5) & 1) != 0;      // warps 1 and 3 use shared memory, 0 and 2 global
    unsigned folded = generic_atomic_ops(to_shared ? words : global_words, v);
    unsigned *slot = (v & 1) ? &slots[t] : &global_words[16 + i];
    unsigned old_exch = atomicExch(slot, v);
    unsigned old_cas = atomicCAS(slot, v, v + 1);
    unsigned old_cas2 = atomicCAS(slot, v, v + 2);  // fails: the slot holds v + 1
    __syncthreads();
    if (i < n) {
        out[i * 4] = old_exch;
        out[i * 4 + 1] = old_cas;
        out[i * 4 + 2] = old_cas2;
        out[i * 4 + 3] = *slot + (folded == 0x12345678u ? 1u : 0u); // the fold is order-dependent: a fixed fact
    }
    if (t < 12) out[4 * n + blockIdx.x * 12 + t] = words[t];
}

extern "C" __global__ void generic_atomics64(const unsigned *in, unsigned long long *global_longs, unsigned *out, int n)
{
    // SASS: ATOM.E.ADD, .MIN, .MAX, .AND, .OR, .XOR with .64.STRONG.GPU and its predicate output on generic pointers (the
    // hardware does 64-bit atomics on global memory only; on shared memory nvcc's fallback takes over: a QSPC
    // test and an ATOMS.CAST.SPIN.64 loop), pointers shared in some warps and global in others
    __shared__ unsigned long long longs[6];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < 6) longs[t] = t == 2 || t == 4 ? ~0ull >> 1 : (unsigned long long)t << 40;
    __syncthreads();
    unsigned v = i < n ? in[i] : 0u;
    generic_atomic_ops64(((t >> 5) & 1) ? longs : global_longs, v);
    __syncthreads();
    if (t < 6) {
        out[blockIdx.x * 12 + 2 * t] = (unsigned)longs[t];
        out[blockIdx.x * 12 + 2 * t + 1] = (unsigned)(longs[t] >> 32);
    }
}

extern "C" __global__ void async_copy_arrive(const unsigned *in, unsigned *out, int n)
{
    // SASS: ARRIVES.LDGSTSBAR.64 (cp.async.mbarrier.arrive with and without .noinc) after LDGSTS, the
    // pending-count increment ATOMS.ADD of the counting form, ATOMS.ARRIVE.64 and a test_wait loop
    __shared__ unsigned long long bar;
    __shared__ unsigned tile[2][128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar_addr), "r"(2 * blockDim.x));
    __syncthreads();
    const unsigned *src = in + (i < n ? i : 0);
    unsigned d0 = (unsigned)__cvta_generic_to_shared(&tile[0][t]);
    unsigned d1 = (unsigned)__cvta_generic_to_shared(&tile[1][t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d0), "l"(src));
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(bar_addr));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d1), "l"(src + 1));
    asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(bar_addr));
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar_addr));
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar_addr), "l"(state));
    }
    if (i < n) {
        out[i * 2] = tile[0][(t + 1) & 127];
        out[i * 2 + 1] = tile[1][127 - t];
    }
}
