// FP64: add/sub/mul/fma in every rounding mode, division, reciprocal and square root (correctly rounded),
// conversions to and from 32/64-bit integers and float in every rounding mode, rounding functions,
// min/max, comparisons, and a few libdevice functions.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void fp64_round_arith(const double *a, const double *b, const double *c, double *out, int n)
{
    // SASS: DADD/DMUL/DFMA with .RZ/.RP/.RM and the default round-to-nearest
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    double *o = out + i * K;
    o[0] = __dadd_rn(x, y);
    o[1] = __dadd_rz(x, y);
    o[2] = __dadd_ru(x, y);
    o[3] = __dadd_rd(x, y);
    o[4] = __dsub_rn(x, y);
    o[5] = __dsub_rz(x, y);
    o[6] = __dmul_rn(x, y);
    o[7] = __dmul_rz(x, y);
    o[8] = __dmul_ru(x, y);
    o[9] = __dmul_rd(x, y);
    o[10] = __fma_rn(x, y, z);
    o[11] = __fma_rz(x, y, z);
    o[12] = __fma_ru(x, y, z);
    o[13] = __fma_rd(x, y, z);
    o[14] = x * y + z;
    o[15] = -x - fabs(y);
}

extern "C" __global__ void fp64_div_sqrt(const double *a, const double *b, double *out, int n)
{
    // SASS: MUFU.RCP64H + DFMA Newton steps, FSETP/DSETP range checks and a CALL to the slow path,
    // MUFU.RSQ64H (sqrt), directed-rounding __ddiv_* / __dsqrt_* / __drcp_* sequences
    const int K = 12;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i];
    double *o = out + i * K;
    o[0] = x / y;
    o[1] = __ddiv_rn(x, y);
    o[2] = __ddiv_rz(x, y);
    o[3] = __ddiv_ru(x, y);
    o[4] = __ddiv_rd(x, y);
    o[5] = sqrt(x);
    o[6] = __dsqrt_rz(x);
    o[7] = __dsqrt_ru(x);
    o[8] = __dsqrt_rd(x);
    o[9] = __drcp_rn(y);
    o[10] = __drcp_rz(y);
    o[11] = rsqrt(x);
}

extern "C" __global__ void fp64_convert(const double *a, const long long *b, long long *out, double *outd, int n)
{
    // SASS: F2I.F64 (.S64/.U64/.U32, .TRUNC/.CEIL/.FLOOR), I2F.F64 (.S64/.U64, .RZ/.RP/.RM), F2F.F64.F32,
    // F2F.F32.F64
    const int K = 14;
    const int KD = 10;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i];
    long long l = b[i];
    long long *o = out + i * K;
    double *od = outd + i * KD;
    o[0] = __double2int_rn(x);
    o[1] = __double2int_rz(x);
    o[2] = __double2int_ru(x);
    o[3] = __double2int_rd(x);
    o[4] = __double2uint_rn(x);
    o[5] = __double2uint_rz(x);
    o[6] = __double2ll_rn(x);
    o[7] = __double2ll_rz(x);
    o[8] = __double2ll_ru(x);
    o[9] = __double2ll_rd(x);
    o[10] = (long long)__double2ull_rn(x);
    o[11] = (long long)__double2ull_rd(x);
    o[12] = __double_as_longlong(x) ^ l;
    o[13] = __double2hiint(x) + (long long)__double2loint(x);
    od[0] = __ll2double_rn(l);
    od[1] = __ll2double_rz(l);
    od[2] = __ll2double_ru(l);
    od[3] = __ll2double_rd(l);
    od[4] = __ull2double_rn((unsigned long long)l);
    od[5] = __ull2double_rd((unsigned long long)l);
    od[6] = __int2double_rn((int)l);
    od[7] = __uint2double_rn((unsigned)l);
    od[8] = (double)__double2float_rn(x);
    od[9] = __hiloint2double((int)(l >> 32), (int)l);
}

extern "C" __global__ void fp64_round_misc(const double *a, const double *b, double *out, int n)
{
    // SASS: FRND.F64 (.TRUNC/.FLOOR/.CEIL), DSETP.MIN/DSETP.MAX + FSEL for fmin/fmax, DSETP, LOP3 on the high
    // word, DFMA polynomials and MUFU.RCP64H in exp/log
    const int K = 14;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i];
    double *o = out + i * K;
    o[0] = trunc(x);
    o[1] = floor(x);
    o[2] = ceil(x);
    o[3] = rint(x);
    o[4] = round(x);
    o[5] = fmin(x, y);
    o[6] = fmax(x, y);
    o[7] = copysign(x, y);
    o[8] = fabs(x);
    o[9] = (x < y) ? 1.0 : ((x == y) ? 0.0 : ((x > y) ? -1.0 : 2.0));
    o[10] = isnan(x) ? 1.0 : (isinf(x) ? 2.0 : 0.0);
    o[11] = fdim(x, y);
    o[12] = exp(x);
    o[13] = log(y);
}
