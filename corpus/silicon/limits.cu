// Limits of shared memory and of alignment on NVIDIA silicon (issue 24 item 4), recorded natively on an H200
// by record_limits.py from the sm_90 build; sassport's tests translate the sm_86 build of the same kernels.
// Every kernel is launched with one block; thread 0 makes the probed access, the others help fill and copy.

// out[0]: what the probed load read (0 without a load); out[1]: 1 once thread 0 is past the access;
// out[2 + i]: word i of the array after the access (a store that wraps around into the array shows there).
// mode bit 0: store `value` at byte `off` from the array's first byte; bit 1: then load from there.
#define PROBE(ARR, WORDS)                                                                                      \
    for (unsigned i = threadIdx.x; i < (WORDS); i += blockDim.x)                                              \
        (ARR)[i] = 0xa5000000u | i;                                                                            \
    __syncthreads();                                                                                           \
    if (threadIdx.x == 0) {                                                                                    \
        volatile unsigned *p = (volatile unsigned *)((char *)(ARR) + off);                                     \
        if (mode & 1u)                                                                                         \
            *p = value;                                                                                        \
        out[0] = (mode & 2u) ? *p : 0u;                                                                        \
        out[1] = 1u;                                                                                           \
    }                                                                                                          \
    __syncthreads();                                                                                           \
    for (unsigned i = threadIdx.x; i < (WORDS); i += blockDim.x)                                              \
        out[2 + i] = (ARR)[i];

// A static array of BYTES bytes (its .nv.shared section is exactly that size).
#define PAST_STATIC(BYTES)                                                                                     \
    extern "C" __global__ void past_static_##BYTES(unsigned off, unsigned value, unsigned mode, unsigned *out) \
    {                                                                                                          \
        /* SASS: STS/LDS at a register offset past the end of the .nv.shared section */                       \
        __shared__ unsigned arr[(BYTES) / 4];                                                                  \
        PROBE(arr, (BYTES) / 4)                                                                                \
    }

PAST_STATIC(4)
PAST_STATIC(100)
PAST_STATIC(1024)
PAST_STATIC(1028)
PAST_STATIC(4100)

// Dynamic shared memory only: launched with `words` * 4 bytes (or any other size) of it.
extern "C" __global__ void past_dynamic(unsigned off, unsigned value, unsigned mode, unsigned *out, unsigned words)
{
    // SASS: STS/LDS at a register offset from the start of dynamic shared memory
    extern __shared__ unsigned dyn[];
    PROBE(dyn, words)
}

// 1028 static bytes and dynamic shared memory after them; `off` counts from the dynamic array's first byte.
extern "C" __global__ void past_both(unsigned off, unsigned value, unsigned mode, unsigned *out, unsigned words)
{
    // SASS: STS/LDS past static and dynamic shared memory together
    __shared__ unsigned fixed[257];
    extern __shared__ unsigned dyn[];
    for (unsigned i = threadIdx.x; i < 257; i += blockDim.x)
        fixed[i] = 0x5a000000u | i;
    PROBE(dyn, words)
    __syncthreads();
    if (threadIdx.x == 0)
        out[2 + words] = fixed[256];
}

// What the hardware says about a block's shared memory, for static arrays of 4, 1028 and 4100 bytes and the
// launch's dynamic part: out[0] %total_smem_size, [1] %dynamic_smem_size, [2] the shared address of the static
// array, [3] that of the dynamic array, and on sm_90 [4] %aggr_smem_size, [5..8) %reserved_smem_offset_begin,
// _end and _cap.
#define SIZES(BYTES)                                                                                           \
    extern "C" __global__ void smem_sizes_##BYTES(unsigned *out)                                               \
    {                                                                                                          \
        __shared__ unsigned arr[(BYTES) / 4];                                                                  \
        extern __shared__ unsigned dyn[];                                                                      \
        arr[threadIdx.x % ((BYTES) / 4)] = threadIdx.x;                                                        \
        dyn[0] = 1u;                                                                                           \
        __syncthreads();                                                                                       \
        unsigned total, dynamic;                                                                               \
        asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(total));                                          \
        asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic));                                      \
        if (threadIdx.x == 0) {                                                                                \
            out[0] = total;                                                                                    \
            out[1] = dynamic;                                                                                  \
            out[2] = (unsigned)__cvta_generic_to_shared(arr);                                                  \
            out[3] = (unsigned)__cvta_generic_to_shared(dyn);                                                  \
            out[9] = arr[1 % ((BYTES) / 4)] + dyn[0];                                                          \
        }                                                                                                      \
        SIZES_SM90                                                                                             \
    }

#if __CUDA_ARCH__ >= 900
#define SIZES_SM90                                                                                             \
    unsigned aggr, rb, re, rc;                                                                                 \
    asm volatile("mov.u32 %0, %%aggr_smem_size;" : "=r"(aggr));                                                \
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(rb));                                      \
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(re));                                        \
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(rc));                                        \
    if (threadIdx.x == 0) {                                                                                    \
        out[4] = aggr;                                                                                         \
        out[5] = rb;                                                                                           \
        out[6] = re;                                                                                           \
        out[7] = rc;                                                                                           \
    }
#else
#define SIZES_SM90
#endif

SIZES(4)
SIZES(1028)
SIZES(4100)

// Leaves a pattern (pattern | word index) in 48 KiB of shared memory of every block, so that a later block
// on the same SM that reads memory it did not write shows whether it sees stale data.
extern "C" __global__ void fill_shared(unsigned pattern, unsigned *out)
{
    __shared__ unsigned big[12288];
    for (unsigned i = threadIdx.x; i < 12288; i += blockDim.x)
        big[i] = pattern | i;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = big[(blockIdx.x * 37u) % 12288];
}

// Global accesses at `base + off`: with `off` not a multiple of the access size they are misaligned (CUDA
// reports cudaErrorMisalignedAddress). out receives what a load read.
extern "C" __global__ void global_load64_at(const unsigned char *base, unsigned off, unsigned long long *out)
{
    // SASS: LDG.E.64 at a register address
    out[0] = *(const unsigned long long *)(base + off);
}

extern "C" __global__ void global_store64_at(unsigned char *base, unsigned off, unsigned long long value)
{
    // SASS: STG.E.64 at a register address
    *(unsigned long long *)(base + off) = value;
}

extern "C" __global__ void global_load128_at(const unsigned char *base, unsigned off, uint4 *out)
{
    // SASS: LDG.E.128 at a register address
    out[0] = *(const uint4 *)(base + off);
}

extern "C" __global__ void global_store128_at(unsigned char *base, unsigned off, const uint4 *value)
{
    // SASS: STG.E.128 at a register address
    *(uint4 *)(base + off) = value[0];
}

extern "C" __global__ void global_load32_at(const unsigned char *base, unsigned off, unsigned *out)
{
    // SASS: LDG.E at a register address
    out[0] = *(const unsigned *)(base + off);
}

extern "C" __global__ void global_atomic64_at(unsigned char *base, unsigned off, unsigned long long *out)
{
    // SASS: ATOMG.E.ADD.64 at a register address
    out[0] = atomicAdd((unsigned long long *)(base + off), 1ull);
}

extern "C" __global__ void global_atomic32_at(unsigned char *base, unsigned off, unsigned *out)
{
    // SASS: ATOMG.E.ADD at a register address
    out[0] = atomicAdd((unsigned *)(base + off), 1u);
}

// One word per block, for grids larger than a Vulkan dispatch: out[linear block index] = block index + 1.
extern "C" __global__ void block_word(unsigned *out)
{
    // SASS: S2R SR_CTAID.X/Y/Z, gridDim from c[0x0][0xc..0x14]
    if (threadIdx.x == 0) {
        unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        out[b] = (unsigned)b + 1u;
    }
}

// No launch values at all: no block index, no global memory. Any grid must launch.
extern "C" __global__ void no_launch_values(unsigned x)
{
    // SASS: EXIT (the kernel only computes)
    asm volatile("" :: "r"(x * 3u + 1u));
}
