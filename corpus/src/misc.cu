// Less common instructions real code still uses: saturating narrowing conversions, address-space queries,
// prefetches, sleeping, shared-memory mbarriers (arrive/test/wait), a loop over block-uniform state, and
// 16-bit packed conversions.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

#include <cuda_fp16.h>

extern "C" __global__ void narrowing_conversions(const int *a, const float *b, unsigned *out, int n)
{
    // SASS: I2I.S8.S32.SAT / I2I.U16.S32.SAT (cvt.sat narrowing), I2IP (cvt.pack.sat), F2FP.PACK_AB (two floats
    // to half2), F2I with 16- and 8-bit results, PRMT to assemble bytes
    const int K = 6;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    float f = b[i];
    unsigned *o = out + i * K;
    int s8, u16, packed;
    asm("cvt.sat.s8.s32 %0, %1;" : "=r"(s8) : "r"(x));
    asm("cvt.sat.u16.s32 %0, %1;" : "=r"(u16) : "r"(x));
    asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(packed) : "r"(x), "r"(x >> 8), "r"(0));
    o[0] = (unsigned)s8;
    o[1] = (unsigned)u16;
    o[2] = (unsigned)packed;
    __half2 h = __floats2half2_rn(f, -f * 0.5f);
    o[3] = *reinterpret_cast<unsigned *>(&h);
    o[4] = (unsigned)(short)__float2int_rz(f) + ((unsigned)(unsigned char)__float2uint_rz(f) << 16);
    o[5] = (unsigned)__hadd2_sat(h, h).x;
}

extern "C" __global__ void address_spaces(const unsigned *in, unsigned *out, int n)
{
    // SASS: QSPC (address-space query for __isGlobal/__isShared/__isLocal), CCTL/prefetch forms
    // (prefetch.global.L2), NANOSLEEP, generic-to-shared conversion arithmetic
    __shared__ unsigned tile[128];
    const int K = 3;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned local_word = i < n ? in[i] : 0u;
    tile[t] = local_word;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(in + (i + 32) % (n > 0 ? n : 1)));
    __nanosleep(100);
    __syncthreads();
    if (i >= n) return;
    const void *p = (local_word & 1u) ? (const void *)&tile[t] : (const void *)&in[i];
    unsigned *o = out + i * K;
    o[0] = (unsigned)__isGlobal(p) | ((unsigned)__isShared(p) << 1) | ((unsigned)__isLocal(p) << 2);
    o[1] = (unsigned)__cvta_generic_to_shared(&tile[t]) - (unsigned)__cvta_generic_to_shared(&tile[0]);
    o[2] = tile[(t + 1) & 127];
}

extern "C" __global__ void mbarrier_handoff(const unsigned *in, unsigned *out, int n)
{
    // SASS: shared-memory mbarrier operations (arrive as ATOMS.ARRIVE.64, init and test_wait as shared stores
    // and loads), a spin loop on the barrier phase, BAR.SYNC
    __shared__ unsigned long long bar;
    __shared__ unsigned data[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(addr), "r"(blockDim.x));
    __syncthreads();
    data[t] = i < n ? in[i] * 3u : 0u;
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(addr), "l"(state)
                     : "memory");
    }
    if (i < n) out[i] = data[blockDim.x - 1 - t];
}

extern "C" __global__ void uniform_datapath(const int *in, int *out, int n, int rounds)
{
    // SASS: a loop bounded by a kernel parameter over block-uniform state (IMAD, LOP3, SHF, IADD3, ISETP) with
    // data-dependent loads. ptxas 13.5 keeps this state in ordinary registers; the corpus's uniform-datapath
    // instructions come from matmul, reduce_scan, atomics and the warp kernels
    int base = blockIdx.x * blockDim.x;
    int i = base + threadIdx.x;
    int u = blockIdx.x * 7 + rounds;
    int acc = 0;
    for (int r = 0; r < rounds; ++r) {
        u = (u * 5 + r) ^ (u >> 3);
        acc += (i < n ? in[(base + r) % n] : 0) ^ u;
    }
    if (i < n) out[i] = acc + u;
}
