// Atomics on global and shared memory: add/sub/exch/min/max/and/or/xor/inc/dec/CAS on int, unsigned and
// unsigned long long, float and double add, with and without use of the returned value.
// Determinism: a returned ("old") value is only written out where each thread owns its address, and
// contended atomics use commutative operations whose final value does not depend on the order
// (integer add/min/max/and/or/xor/inc/dec, and float adds of small exact integers).

extern "C" __global__ void atomics_global_owned(int *si, unsigned *su, unsigned long long *su64, float *sf,
                                                const int *arg, int *old, int n)
{
    // SASS: ATOMG.E.ADD/.EXCH/.MIN.S32/.MAX/.AND/.OR/.XOR/.INC/.DEC (.64 forms), ATOMG.E.CAS, ATOMG.E.ADD.F32.FTZ.RN
    // — the returned value is used, so these are ATOMG forms. si/su/su64/sf have 4 elements per
    // thread; old gets 16 words per thread.
    const int K = 16;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = arg[i];
    unsigned uv = (unsigned)v;
    int *o = old + i * K;
    o[0] = atomicAdd(&si[4 * i + 0], v);
    o[1] = atomicSub(&si[4 * i + 1], v);
    o[2] = atomicExch(&si[4 * i + 2], v);
    o[3] = atomicMin(&si[4 * i + 3], v);
    o[4] = atomicMax(&si[4 * i + 3], v >> 3);
    o[5] = (int)atomicAnd(&su[4 * i + 0], uv);
    o[6] = (int)atomicOr(&su[4 * i + 1], uv);
    o[7] = (int)atomicXor(&su[4 * i + 2], uv);
    o[8] = (int)atomicInc(&su[4 * i + 3], uv & 0xffu);
    o[9] = (int)atomicDec(&su[4 * i + 3], uv & 0xfu);
    o[10] = atomicCAS(&si[4 * i + 0], v, v ^ 0x5a5a5a5a);
    o[11] = (int)atomicMin(&su[4 * i + 0], uv >> 1);
    unsigned long long w = ((unsigned long long)uv << 32) | (uv * 2654435761u);
    o[12] = (int)atomicAdd(&su64[4 * i + 0], w);
    o[13] = (int)(atomicCAS(&su64[4 * i + 1], su64[4 * i + 1], w) >> 32);
    o[14] = (int)(atomicMax(&su64[4 * i + 2], w) >> 16);
    o[15] = __float_as_int(atomicAdd(&sf[4 * i + 0], __int_as_float(v)));
}

extern "C" __global__ void atomics_global_contended(const int *arg, int *bins, unsigned *ubins,
                                                    unsigned long long *bins64, float *fbins, double *dbins, int n)
{
    // SASS: RED.E.ADD/.MIN.S32/.MAX.S32/.AND/.OR/.XOR/.INC/.DEC (result unused), RED.E.ADD.64, RED.E.ADD.F32.FTZ.RN,
    // RED.E.ADD.F64.RN, warp-aggregated atomics (the compiler combines lanes with VOTEU, POPC and REDUX)
    // bins: 16 ints, ubins: 16, bins64: 4, fbins: 8, dbins: 4.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = arg[i];
    unsigned uv = (unsigned)v;
    int b = (int)(uv & 3u);
    atomicAdd(&bins[b], v);
    atomicSub(&bins[4 + b], v >> 4);
    atomicMin(&bins[8 + b], v);
    atomicMax(&bins[12 + b], v);
    atomicAnd(&ubins[b], uv | 0x01010101u);
    atomicOr(&ubins[4 + b], uv & 0x80808080u);
    atomicXor(&ubins[8 + b], uv);
    atomicInc(&ubins[12], 1000u);
    atomicDec(&ubins[13], 77u);
    atomicAdd(&ubins[14], 1u);
    atomicMax(&ubins[15], uv);
    atomicAdd(&bins64[b], (unsigned long long)uv * 4099u);
    atomicAdd(&fbins[b], (float)(v & 15));
    atomicAdd(&fbins[4 + (i & 3)], 1.0f);
    atomicAdd(&dbins[b], (double)(v & 255));
}

extern "C" __global__ void atomics_shared(const int *arg, int *out, int n)
{
    // SASS: ATOMS.ADD/.MIN/.MAX/.AND/.OR/.XOR/.INC/.DEC/.EXCH, ATOMS.CAS/.CAST.SPIN (float add on shared is a
    // compare-and-swap loop on sm_86), ATOMS.POPC.INC, BAR.SYNC; each block writes its 16 bins to out[block * 16 + k]
    __shared__ int bins[8];
    __shared__ unsigned ubins[4];
    __shared__ float fbin[2];
    __shared__ unsigned long long b64[2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < 8) bins[t] = 0;
    if (t == 2) bins[2] = 0x7fffffff;
    if (t == 3) bins[3] = (int)0x80000000;
    if (t < 4) ubins[t] = t == 0 ? 0xffffffffu : 0u;
    if (t < 2) fbin[t] = 0.0f;
    if (t < 2) b64[t] = 0ull;
    __syncthreads();
    int v = i < n ? arg[i] : 0;
    unsigned uv = (unsigned)v;
    atomicAdd(&bins[0], v);
    atomicSub(&bins[1], v & 0xff);
    atomicMin(&bins[2], v);
    atomicMax(&bins[3], v);
    atomicAnd(&ubins[0], uv | 0x10000000u);
    atomicOr(&ubins[1], uv & 0x00010001u);
    atomicXor(&ubins[2], uv);
    atomicInc(&ubins[3], 50u);
    atomicAdd(&fbin[0], (float)(v & 7));
    atomicAdd(&b64[0], (unsigned long long)uv);
    // CAS loop with an order-independent result: saturating increment capped at 100.
    int cur = bins[4], seen;
    do {
        seen = cur;
        cur = atomicCAS(&bins[4], seen, min(seen + 1, 100));
    } while (cur != seen);
    // Exchange and add on slots that only thread 0 touches, so the returned values are deterministic.
    if (t == 0) atomicExch(&bins[5], v);
    if (t == 0) bins[6] = atomicAdd(&bins[7], 5) + 1;
    __syncthreads();
    if (t < 8) out[blockIdx.x * 16 + t] = bins[t];
    if (t < 4) out[blockIdx.x * 16 + 8 + t] = (int)ubins[t];
    if (t == 0) out[blockIdx.x * 16 + 12] = __float_as_int(fbin[0]);
    if (t == 0) out[blockIdx.x * 16 + 13] = (int)b64[0];
    if (t == 0) out[blockIdx.x * 16 + 14] = (int)(b64[0] >> 32);
    if (t == 0) out[blockIdx.x * 16 + 15] = 0x600d;
}

extern "C" __global__ void atomics_system_scope(unsigned *counters, const unsigned *arg, int n)
{
    // SASS: ATOMG.E.ADD.STRONG.SM (block scope) / .STRONG.SYS (system scope), ATOMG.E.MAX/.OR at those
    // scopes, warp aggregation through REDUX, MEMBAR.SC.GPU / MEMBAR.SC.SYS (__threadfence,
    // __threadfence_system); counters has 4 words
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = arg[i] & 0xffffu;
    atomicAdd_block(&counters[0], v);
    __threadfence();
    atomicAdd_system(&counters[1], v);
    __threadfence_system();
    atomicMax_system(&counters[2], v);
    atomicOr_block(&counters[3], 1u << (v & 31u));
}
