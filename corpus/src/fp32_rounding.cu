// FP32 arithmetic with every explicit rounding mode: add, sub, mul, fma, div, reciprocal and square root
// in round-to-nearest-even (_rn), toward zero (_rz), toward +inf (_ru) and toward -inf (_rd); plus the
// default IEEE operators, flush-to-zero-free denormal handling, and the approximate division intrinsic.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].
// All results here are correctly rounded IEEE operations: goldens compare bit-exactly.

extern "C" __global__ void fp32_round_arith(const float *a, const float *b, const float *c, float *out, int n)
{
    // SASS: FADD.RZ/.RP/.RM, FMUL.RZ/.RP/.RM, FFMA.RZ/.RP/.RM, FADD/FMUL/FFMA (round to nearest)
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + i * K;
    o[0] = __fadd_rn(x, y);
    o[1] = __fadd_rz(x, y);
    o[2] = __fadd_ru(x, y);
    o[3] = __fadd_rd(x, y);
    o[4] = __fsub_rn(x, y);
    o[5] = __fsub_rz(x, y);
    o[6] = __fsub_ru(x, y);
    o[7] = __fsub_rd(x, y);
    o[8] = __fmul_rn(x, y);
    o[9] = __fmul_rz(x, y);
    o[10] = __fmul_ru(x, y);
    o[11] = __fmul_rd(x, y);
    o[12] = __fmaf_rn(x, y, z);
    o[13] = __fmaf_rz(x, y, z);
    o[14] = __fmaf_ru(x, y, z);
    o[15] = __fmaf_rd(x, y, z);
}

extern "C" __global__ void fp32_round_div_sqrt(const float *a, const float *b, float *out, int n)
{
    // SASS: MUFU.RCP + FFMA refinement with FCHK and a CALL to the slow path (division), MUFU.RSQ + FFMA
    // (sqrt), FFMA.RZ/.RP/.RM for the directed-rounding final steps
    const int K = 17;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    float *o = out + i * K;
    o[0] = __fdiv_rn(x, y);
    o[1] = __fdiv_rz(x, y);
    o[2] = __fdiv_ru(x, y);
    o[3] = __fdiv_rd(x, y);
    o[4] = __frcp_rn(x);
    o[5] = __frcp_rz(x);
    o[6] = __frcp_ru(x);
    o[7] = __frcp_rd(x);
    o[8] = __fsqrt_rn(x);
    o[9] = __fsqrt_rz(x);
    o[10] = __fsqrt_ru(x);
    o[11] = __fsqrt_rd(x);
    o[12] = x / y;
    o[13] = sqrtf(x);
    o[14] = 1.0f / y;
    o[15] = __frsqrt_rn(x);
    o[16] = x / 3.0f;
}

extern "C" __global__ void fp32_default_ops(const float *a, const float *b, const float *c, float *out, int n)
{
    // SASS: FADD, FMUL, FFMA (contracted a*b+c), FADD with negated/absolute operands, FMUL by immediates,
    // FSETP with ordered/unordered comparisons, FSEL, FSET.BF
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + i * K;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x * y + z;
    o[4] = -x * y - z;
    o[5] = fabsf(x) - fabsf(y);
    o[6] = x * 0.5f + 1.25f;
    o[7] = x * 3.0e38f;
    o[8] = (x < y) ? 1.0f : 0.0f;
    o[9] = (x <= y) ? z : x;
    o[10] = (x != y) ? 1.0f : -1.0f;
    o[11] = !(x >= y) ? 2.0f : 3.0f;
    o[12] = isnan(x) ? 1.0f : (isinf(x) ? 2.0f : (isfinite(x) ? 3.0f : 4.0f));
    o[13] = __fmul_rn(x, y) + z;
    o[14] = x * x * x;
    o[15] = fmaf(x, y, z);
}
