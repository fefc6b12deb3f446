// cuRAND's device API (curand_kernel.h from the pinned nvidia-curand wheel): XORWOW and Philox4_32_10
// generators, one state per thread, initialised with curand_init(seed, subsequence = thread, offset), as
// Monte-Carlo code writes it. XORWOW's subsequence skip walks NVIDIA's precalculated jump matrices (large
// __device__ tables in global memory, loops of 32x32 bit-matrix products); Philox is counter-based. Raw
// bits and uniforms are exact (integer arithmetic and one FMA); normals go through Box-Muller (logf,
// sqrtf, __sincosf: MUFU) and compare within a ulp tolerance, double normals through libdevice's log/sincospi.
// The cubins are NOT committed (NVIDIA's EULA covers the headers and their tables): `cargo xtask corpus`
// builds them when the nvidia-curand headers are installed, see corpus/README.md.
// K results per thread at out[i * K + k].

#include <curand_kernel.h>

extern "C" __global__ void curand_xorwow_bits(unsigned *out, unsigned long long seed, int n)
{
    // SASS: curand_init's skipahead over precalc_xorwow_matrix (LDG of table rows, nested loops with
    // LOP3/SHF bit tests, BSSY/BSYNC), the xorwow step (SHF/LOP3, IADD3 with the Weyl constant 362437),
    // curand_uniform (I2F.U32 + FFMA), curand_uniform_double (I2F.F64.U32, DFMA)
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandStateXORWOW_t st;
    curand_init(seed, (unsigned long long)i, (unsigned long long)(i % 5), &st);
    unsigned *o = out + i * K;
    o[0] = curand(&st);
    o[1] = curand(&st);
    o[2] = __float_as_uint(curand_uniform(&st));
    double d = curand_uniform_double(&st);
    o[3] = (unsigned)__double_as_longlong(d);
    o[4] = (unsigned)(__double_as_longlong(d) >> 32);
    skipahead(1000ull, &st);
    o[5] = curand(&st);
    skipahead_sequence(3ull, &st);
    o[6] = curand(&st);
    o[7] = st.d;
}

extern "C" __global__ void curand_philox_bits(unsigned *out, unsigned long long seed, int n)
{
    // SASS: Philox4x32-10 rounds (IMAD.WIDE.U32 hi/lo products, LOP3 xor with the key, IADD3 key bumps),
    // the 128-bit counter increment with carries, curand4/curand_uniform4/curand_uniform2_double, skipahead
    // and skipahead_sequence (64-bit counter arithmetic)
    const int K = 14;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandStatePhilox4_32_10_t st;
    curand_init(seed, (unsigned long long)i, (unsigned long long)(i % 7), &st);
    unsigned *o = out + i * K;
    uint4 r = curand4(&st);
    o[0] = r.x;
    o[1] = r.y;
    o[2] = r.z;
    o[3] = r.w;
    float4 u = curand_uniform4(&st);
    o[4] = __float_as_uint(u.x);
    o[5] = __float_as_uint(u.w);
    double2 d = curand_uniform2_double(&st);
    o[6] = (unsigned)__double_as_longlong(d.x);
    o[7] = (unsigned)(__double_as_longlong(d.y) >> 32);
    o[8] = curand(&st);
    skipahead((unsigned long long)i * 1000003ull, &st);
    o[9] = curand(&st);
    skipahead_sequence(1ull << 33, &st);
    o[10] = curand(&st);
    o[11] = curand(&st);
    o[12] = st.STATE;
    o[13] = st.ctr.w;
}

extern "C" __global__ void curand_normal_f32(float *out, unsigned long long seed, int n)
{
    // SASS: Box-Muller on both generators: MUFU.LG2 inside logf, MUFU.RSQ, MUFU.SIN and MUFU.COS after FMUL.RZ,
    // the cached second normal (state flag tests), curand_log_normal (MUFU.EX2 inside expf)
    const int K = 10;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandStateXORWOW_t x;
    curandStatePhilox4_32_10_t p;
    curand_init(seed, (unsigned long long)i, 0ull, &x);
    curand_init(seed, (unsigned long long)i, 0ull, &p);
    float *o = out + i * K;
    o[0] = curand_normal(&x);
    o[1] = curand_normal(&x);
    float2 v = curand_normal2(&x);
    o[2] = v.x;
    o[3] = v.y;
    o[4] = curand_log_normal(&x, 0.5f, 0.25f);
    float4 w = curand_normal4(&p);
    o[5] = w.x;
    o[6] = w.w;
    o[7] = curand_normal(&p);
    o[8] = curand_log_normal(&p, -1.0f, 2.0f);
    o[9] = curand_uniform(&p);
}

extern "C" __global__ void curand_normal_f64(double *out, unsigned long long seed, int n)
{
    // SASS: the double Box-Muller (libdevice log and sincospi: DFMA chains, MUFU.RCP64H), 53-bit uniforms
    // built from two 32-bit draws (I2F.F64.U32, DFMA), curand_log_normal_double (exp)
    const int K = 6;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandStateXORWOW_t x;
    curandStatePhilox4_32_10_t p;
    curand_init(seed ^ 0x5deece66dull, (unsigned long long)i, 1ull, &x);
    curand_init(seed, (unsigned long long)i, 2ull, &p);
    double *o = out + i * K;
    o[0] = curand_normal_double(&x);
    double2 v = curand_normal2_double(&x);
    o[1] = v.x;
    o[2] = v.y;
    o[3] = curand_log_normal_double(&x, 0.5, 0.25);
    o[4] = curand_normal_double(&p);
    o[5] = curand_normal2_double(&p).y;
}
