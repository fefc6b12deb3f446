// The CUDA math API beyond the basics (libdevice, linked by nvcc): error and gamma functions, Bessel
// functions, normal-distribution functions, cube roots, norms, sin/cos of pi*x, log1p/expm1, inverse
// hyperbolics, remainders, in float and in double. Libdevice's float code goes through MUFU
// approximations (EX2, LG2, RCP, RSQ) which differ by a few ulp between chips: the launches compare within
// a stated ulp tolerance. Every kernel reads its inputs at index i and writes K results per thread at
// out[i * K + k]. Inputs: every fourth element keeps its raw bits (the generator's special values: NaN,
// infinities, zeros, denormals, huge magnitudes); the others are scaled into a range where the functions
// are interesting (|x| < 16 for float, |x| < 32 for double, from the raw bits as a signed integer).

__device__ float arg_f32(const float *p, int i)
{
    int bits = __float_as_int(p[i]);
    return (i & 3) == 0 ? p[i] : (float)bits * 0x1p-27f;
}

__device__ double arg_f64(const double *p, int i)
{
    long long bits = __double_as_longlong(p[i]);
    return (i & 3) == 0 ? p[i] : (double)bits * 0x1p-58;
}

extern "C" __global__ void math_f32_special(const float *a, const float *b, float *out, int n)
{
    // SASS: libdevice erf/erfc/erfinv/erfcinv/erfcx, lgamma/tgamma (reflection through sinpi, MUFU.EX2 and
    // MUFU.LG2, FRND), Bessel j0/j1/y0/y1/jn/yn (polynomial ranges selected by FSETP/FSEL, loops over n),
    // normcdf/normcdfinv, cyl_bessel_i0/i1
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = arg_f32(a, i), y = arg_f32(b, i);
    float u = x * 0.0625f; // inside (-1, 1) for the scaled inputs
    float *o = out + i * K;
    o[0] = erff(x);
    o[1] = erfcf(x);
    o[2] = erfinvf(u);
    o[3] = erfcinvf(u + 1.0f);
    o[4] = erfcxf(x);
    o[5] = lgammaf(x);
    o[6] = tgammaf(x);
    o[7] = j0f(x);
    o[8] = j1f(x);
    o[9] = y0f(y);
    o[10] = y1f(y);
    o[11] = jnf(3, x);
    o[12] = ynf(2, y);
    o[13] = normcdff(x);
    o[14] = normcdfinvf(u * 0.5f + 0.5f);
    o[15] = cyl_bessel_i0f(x) + cyl_bessel_i1f(y);
}

extern "C" __global__ void math_f32_elementary(const float *a, const float *b, float *out, int n)
{
    // SASS: cbrt/rcbrt (MUFU.LG2 and MUFU.EX2 seed plus FFMA Newton steps), hypot/norm3d/rnorm3d (exponent scaling
    // with LOP3/IMNMX, MUFU.RSQ), sincospi/sinpi/cospi (FRND quadrant selection), expm1/log1p/asinh/acosh/
    // atanh, remquo/fmod/remainder (integer quotient loops), exp10/log2/ldexp/frexp/ilogb/logb/nextafter/fdim
    const int K = 20;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = arg_f32(a, i), y = arg_f32(b, i);
    float *o = out + i * K;
    float s, c;
    sincospif(x, &s, &c);
    int q, e;
    float r = remquof(x, y, &q);
    float m = frexpf(x, &e);
    o[0] = cbrtf(x);
    o[1] = rcbrtf(x);
    o[2] = hypotf(x, y);
    o[3] = norm3df(x, y, x * y);
    o[4] = rnorm3df(x, y, 1.5f);
    o[5] = s;
    o[6] = c;
    o[7] = sinpif(y) + cospif(y);
    o[8] = expm1f(x);
    o[9] = log1pf(x);
    o[10] = asinhf(x) + acoshf(y);
    o[11] = atanhf(x * 0.0625f);
    o[12] = r;
    o[13] = (float)q;
    o[14] = fmodf(x, y) + remainderf(y, x);
    o[15] = exp10f(x) + log2f(y);
    o[16] = ldexpf(x, (int)y) + m;
    o[17] = (float)(e + ilogbf(y));
    o[18] = logbf(x) + nextafterf(x, y);
    o[19] = fdimf(x, y) + norm4df(x, y, x, 2.0f);
}

extern "C" __global__ void math_f64_special(const double *a, const double *b, double *out, int n)
{
    // SASS: the double versions: DFMA polynomial chains, MUFU.RCP64H with DFMA refinement, DSETP
    // range selection, the Bessel and gamma functions' loops and reflection paths
    const int K = 14;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = arg_f64(a, i), y = arg_f64(b, i);
    double u = x * 0.03125;
    double *o = out + i * K;
    o[0] = erf(x);
    o[1] = erfc(x);
    o[2] = erfinv(u);
    o[3] = erfcinv(u + 1.0);
    o[4] = erfcx(x);
    o[5] = lgamma(x);
    o[6] = tgamma(x);
    o[7] = j0(x);
    o[8] = j1(x);
    o[9] = y0(y);
    o[10] = y1(y);
    o[11] = jn(3, x) + yn(2, y);
    o[12] = normcdf(x);
    o[13] = normcdfinv(u * 0.5 + 0.5) + cyl_bessel_i0(x) + cyl_bessel_i1(y);
}

extern "C" __global__ void math_f64_elementary(const double *a, const double *b, double *out, int n)
{
    // SASS: double cbrt/rcbrt, hypot/norm3d/rnorm3d, sincospi, expm1/log1p, inverse hyperbolics, remquo/fmod
    // (DADD/DMUL loops over the exponent difference), exp10/log2, frexp/ilogb/nextafter (integer work on
    // the high word)
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = arg_f64(a, i), y = arg_f64(b, i);
    double *o = out + i * K;
    double s, c;
    sincospi(x, &s, &c);
    int q, e;
    double r = remquo(x, y, &q);
    double m = frexp(x, &e);
    o[0] = cbrt(x);
    o[1] = rcbrt(x);
    o[2] = hypot(x, y);
    o[3] = norm3d(x, y, x * y);
    o[4] = rnorm3d(x, y, 1.5);
    o[5] = s;
    o[6] = c;
    o[7] = expm1(x) + log1p(y);
    o[8] = asinh(x) + acosh(y) + atanh(x * 0.03125);
    o[9] = r;
    o[10] = (double)q + (double)e;
    o[11] = fmod(x, y) + remainder(y, x);
    o[12] = exp10(x) + log2(y);
    o[13] = ldexp(x, (int)y) + m;
    o[14] = logb(x) + nextafter(x, y) + (double)ilogb(y);
    o[15] = sinpi(y) + cospi(y);
}
