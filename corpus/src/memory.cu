// Memory spaces and access widths: global loads/stores of 8/16/32/64/128 bits (signed and unsigned
// extension), read-only and cache-hinted loads, shared memory (static and dynamic), a per-thread local
// array indexed dynamically, __constant__ data with uniform and divergent indices, kernel parameters passed
// by value (including a struct), and generic pointers that may point to shared or global memory.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

struct Params {
    int scale;
    float bias;
    unsigned long long mask;
    short small[4];
};

__constant__ unsigned const_table[64] = {
    0x00000000u, 0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u, 0x55555555u, 0x66666666u, 0x77777777u,
    0x88888888u, 0x99999999u, 0xaaaaaaaau, 0xbbbbbbbbu, 0xccccccccu, 0xddddddddu, 0xeeeeeeeeu, 0xffffffffu,
    0x01234567u, 0x89abcdefu, 0xfedcba98u, 0x76543210u, 0x0f0f0f0fu, 0xf0f0f0f0u, 0x00ff00ffu, 0xff00ff00u,
    0x80000000u, 0x7fffffffu, 0x00000001u, 0xfffffffeu, 0x3f800000u, 0xbf800000u, 0x7f800000u, 0x7fc00000u,
    2u, 3u, 5u, 7u, 11u, 13u, 17u, 19u, 23u, 29u, 31u, 37u, 41u, 43u, 47u, 53u,
    59u, 61u, 67u, 71u, 73u, 79u, 83u, 89u, 97u, 101u, 103u, 107u, 109u, 113u, 127u, 131u,
};

__constant__ float const_coeffs[4] = {0.5f, -1.25f, 3.0f, 1.0e-3f};

extern "C" __global__ void global_widths(const unsigned char *bytes, const short *halves, const float4 *vec4,
                                         const double2 *vec2d, int *out, float4 *out4, unsigned char *out8, int n)
{
    // SASS: LDG.E.U8, LDG.E.S8, LDG.E.U16, LDG.E.S16, LDG.E, LDG.E.64, LDG.E.128, STG.E.U8, STG.E.128,
    // LDG.E.CONSTANT (__ldg), LDG.E.EF/.LU/.STRONG.GPU hints (__ldcs/__ldlu/__ldcg), STG.E.EF (__stcs)
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int *o = out + i * K;
    o[0] = bytes[i];
    o[1] = (signed char)bytes[n - 1 - i];
    o[2] = (unsigned short)halves[i];
    o[3] = halves[i] * 3;
    o[4] = (int)__ldg(&bytes[i * 3 % n]) + __ldg(&halves[(i + 1) % n]);
    o[5] = __ldcg(&halves[i]) ^ __ldcs(&halves[(i + 7) % n]);
    double2 d = vec2d[i];
    o[6] = (int)(d.x != d.y);
    o[7] = __float_as_int(__ldlu(&vec4[i].z));
    float4 v = vec4[i];
    __stcs(&out4[i], make_float4(v.w, v.z, v.y, v.x));
    out8[i] = (unsigned char)(bytes[i] + 1);
}

extern "C" __global__ void shared_static(const unsigned *in, unsigned *out, int n)
{
    // SASS: STS, LDS, STS.U8/LDS.U8, STS.U16/LDS.S16, STS.64/LDS.64, STS.128/LDS.128, BAR.SYNC, shared
    // addresses computed with LEA and immediates (bank-conflict-free transposed access)
    __shared__ unsigned words[256];
    __shared__ unsigned char bytes[256];
    __shared__ short halves[256];
    __shared__ uint2 pairs[256];
    __shared__ uint4 quads[64];
    const int K = 6;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned v = i < n ? in[i] : 0u;
    words[t] = v;
    bytes[t] = (unsigned char)v;
    halves[t] = (short)(v >> 16);
    pairs[t] = make_uint2(v, ~v);
    if (t < 64) quads[t] = make_uint4(v, v + 1, v + 2, v + 3);
    __syncthreads();
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = words[(t + 1) % blockDim.x];
    o[1] = bytes[blockDim.x - 1 - t];
    o[2] = (unsigned)halves[t ^ 1];
    uint2 p = pairs[(t * 5) % blockDim.x];
    o[3] = p.x ^ p.y;
    uint4 q = quads[t % 64];
    o[4] = q.x + q.y + q.z + q.w;
    o[5] = words[(t % 16) * 16 + t / 16];
}

extern "C" __global__ void shared_dynamic(const float *in, float *out, int n)
{
    // SASS: LDS/STS relative to the dynamic shared window (extern __shared__), LDS with register + immediate
    // offsets, BAR.SYNC. Launched with 1024 bytes of dynamic shared memory per block.
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    dyn[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i >= n) return;
    float left = t > 0 ? dyn[t - 1] : 0.0f;
    float right = t + 1 < (int)blockDim.x ? dyn[t + 1] : 0.0f;
    out[i] = left - 2.0f * dyn[t] + right;
}

extern "C" __global__ void local_array(const unsigned *in, unsigned *out, int n)
{
    // SASS: STL/LDL (a per-thread array indexed by data-dependent indices cannot live in registers),
    // STL.64/LDL.64 or STL.128 vector forms, stack-pointer-relative addressing from c[0x0][0x28]
    const int K = 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned buf[32];
    for (int k = 0; k < 32; ++k) buf[k] = x * (unsigned)(k + 1) ^ (unsigned)k;
    for (int k = 0; k < 8; ++k) {
        unsigned j = (x >> (k * 4)) & 31u;
        buf[j] += buf[(j + 13) & 31u];
    }
    unsigned *o = out + i * K;
    o[0] = buf[x & 31u];
    o[1] = buf[(x >> 5) & 31u];
    o[2] = buf[(x >> 10) & 31u] ^ buf[31];
    unsigned sum = 0;
    for (int k = 0; k < 32; ++k) sum += buf[k] * (unsigned)(2 * k + 1);
    o[3] = sum;
}

extern "C" __global__ void constant_memory(const unsigned *in, Params p, unsigned *out, int n)
{
    // SASS: LDC (divergent index into __constant__), ULDC (uniform index), c[0x3][...] operands folded into
    // arithmetic instructions, kernel parameters by value at c[0x0][0x160 + ...] including a struct with mixed widths
    const int K = 6;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned *o = out + i * K;
    o[0] = const_table[x & 63u];
    o[1] = const_table[blockIdx.x & 63u] + const_table[5];
    o[2] = __float_as_uint(__uint_as_float(x & 0x3fffffffu) * const_coeffs[x & 3u] + const_coeffs[3]);
    o[3] = x * (unsigned)p.scale + (unsigned)p.small[x & 3u];
    o[4] = __float_as_uint((float)(x & 0xffffu) * p.bias);
    o[5] = (unsigned)(((unsigned long long)x << 13) & p.mask) ^ (unsigned)((((unsigned long long)x << 13) & p.mask) >> 32);
}

__device__ __noinline__ unsigned load_generic(const unsigned *p, int k)
{
    return p[k] * 3u + 1u;
}

__device__ __noinline__ void store_generic(unsigned *p, int k, unsigned v)
{
    p[k] = v;
}

extern "C" __global__ void generic_pointers(const unsigned *in, unsigned *out, int n)
{
    // SASS: LD.E / ST.E (generic addressing, because the callee cannot know the space), shared-window address
    // arithmetic for generic pointers to shared memory, CALL.REL.NOINC / RET.REL.NODEC
    __shared__ unsigned tile[128];
    const int K = 3;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    store_generic(tile, t, i < n ? in[i] : 0u);
    __syncthreads();
    if (i >= n) return;
    const unsigned *src = (in[i] & 1u) ? (const unsigned *)tile : in + blockIdx.x * blockDim.x;
    unsigned *o = out + i * K;
    o[0] = load_generic(tile, (t + 3) % blockDim.x);
    o[1] = load_generic(in, i);
    store_generic(o, 2, load_generic(src, t ^ 2));
}
