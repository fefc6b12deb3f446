// MUFU-based fast math (the special-function unit) and the precise libdevice functions built around it.
// Approximate results (MUFU.*) may differ by a few ulp between chips: compare goldens of fast_math_mufu
// and precise_math with a stated ulp tolerance, never bit-exactly.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void fast_math_mufu(const float *a, const float *b, float *out, int n)
{
    // SASS: MUFU.SIN, MUFU.COS, MUFU.EX2, MUFU.LG2, MUFU.RCP, MUFU.RSQ, MUFU.SQRT, MUFU.TANH, FMUL.RZ
    // (range reduction for sin/cos), FSETP for the denormal-scaling paths
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    float *o = out + i * K;
    float t, r, q, e, l, s;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(x));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(q) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(x));
    asm("lg2.approx.f32 %0, %1;" : "=f"(l) : "f"(x));
    asm("sqrt.approx.f32 %0, %1;" : "=f"(s) : "f"(x));
    o[0] = __sinf(x);
    o[1] = __cosf(x);
    o[2] = __expf(x);
    o[3] = exp2f(x);
    o[4] = __log2f(x);
    o[5] = __logf(x);
    o[6] = rsqrtf(x);
    o[7] = __fdividef(x, y);
    o[8] = t;
    o[9] = r;
    o[10] = q;
    o[11] = e;
    o[12] = l;
    o[13] = s;
    o[14] = __powf(x, y);
    o[15] = __tanf(x) + __exp10f(y) + __log10f(y);
}

extern "C" __global__ void precise_math(const float *a, const float *b, float *out, int n)
{
    // SASS: long FFMA polynomial chains, MUFU.EX2, MUFU.LG2, MUFU.RCP and MUFU.RSQ inside libdevice,
    // F2I/I2FP/FRND for range reduction, the sinf/cosf slow path (64-bit IMAD.WIDE chains in a called
    // subroutine: CALL/RET), FCHK, BSSY/BSYNC
    const int K = 12;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    float *o = out + i * K;
    o[0] = sinf(x);
    o[1] = cosf(x);
    o[2] = expf(x);
    o[3] = logf(x);
    o[4] = powf(x, y);
    o[5] = atan2f(x, y);
    o[6] = tanhf(x);
    o[7] = erff(x);
    o[8] = cbrtf(x);
    o[9] = hypotf(x, y);
    o[10] = log1pf(x);
    o[11] = fmodf(x, y);
}
