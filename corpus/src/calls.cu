// Non-inlined device functions: calls with integer, float, double, 64-bit and struct arguments, multiple
// return values through pointers, recursion (kept by nvcc because its depth is data-dependent), indirect
// calls through a table of function pointers, and a call from divergent code.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

struct Pair {
    int lo;
    float hi;
};

__device__ __noinline__ int add_mix(int a, unsigned b, long long c, float d, double e)
{
    return a + (int)b + (int)(c >> 8) + (int)d + (int)e;
}

__device__ __noinline__ Pair swap_pair(Pair p, int k)
{
    Pair r;
    r.lo = __float_as_int(p.hi) ^ k;
    r.hi = __int_as_float(p.lo & 0x3fffffff);
    return r;
}

__device__ __noinline__ void divmod(unsigned a, unsigned b, unsigned *q, unsigned *r)
{
    unsigned d = b == 0u ? 1u : b;
    *q = a / d;
    *r = a % d;
}

__device__ __noinline__ unsigned fib(unsigned k)
{
    return k < 2u ? k : fib(k - 1u) + fib(k - 2u);
}

__device__ __noinline__ unsigned long long gcd_rec(unsigned long long a, unsigned long long b)
{
    return b == 0ull ? a : gcd_rec(b, a % b);
}

__device__ __noinline__ unsigned op_rotl(unsigned x) { return (x << 5) | (x >> 27); }
__device__ __noinline__ unsigned op_mul(unsigned x) { return x * 2654435761u; }
__device__ __noinline__ unsigned op_not(unsigned x) { return ~x; }
__device__ __noinline__ unsigned op_sqr(unsigned x) { return x * x + 1u; }

typedef unsigned (*unary_op)(unsigned);
__device__ unary_op op_table[4] = {op_rotl, op_mul, op_not, op_sqr};

extern "C" __global__ void calls_direct(const int *a, const float *b, int *out, int n)
{
    // SASS: CALL.REL.NOINC / RET.REL.NODEC, argument registers, caller-saved spills around calls (STL/LDL of
    // live values when the callee clobbers them), a struct returned in registers
    const int K = 5;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    float y = b[i];
    int *o = out + i * K;
    o[0] = add_mix(x, (unsigned)x >> 3, (long long)x * 1000, y * 0.0f, (double)(x & 0xffff));
    Pair p = {x, y};
    Pair q = swap_pair(p, i);
    o[1] = q.lo;
    o[2] = __float_as_int(q.hi);
    unsigned qq, rr;
    divmod((unsigned)x, (unsigned)i, &qq, &rr);
    o[3] = (int)qq;
    o[4] = (int)rr;
}

extern "C" __global__ void calls_recursive(const unsigned *a, unsigned *out, int n)
{
    // SASS: recursive CALL.REL with a stack frame (the stack pointer adjusted by IADD3, STL/LDL of saved
    // registers), RET; gcd_rec's tail recursion becomes a loop around the 64-bit remainder subroutine
    const int K = 2;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unsigned *o = out + i * K;
    o[0] = fib(x & 15u);
    o[1] = (unsigned)gcd_rec((unsigned long long)x * 6ull, (unsigned long long)(x >> 7) * 4ull + 2ull);
}

extern "C" __global__ void calls_indirect(const unsigned *a, unsigned *out, int n)
{
    // SASS: CALL.ABS.NOINC / CALL.REL with a register target loaded from a global function-pointer table
    // (LDG + relocation), divergent indirect calls (each lane may call a different function)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unary_op f = op_table[x & 3u];
    unary_op g = op_table[(x >> 2) & 3u];
    out[i] = f(x) ^ g(x + 1u);
}
