// Lanes of a warp exchanging data through shared memory with no warp instruction in the kernel: nvcc drops a
// full-mask __syncwarp() of converged code to a NOP (or to nothing), and legacy "warp-synchronous" code has no
// sync at all. On silicon a converged warp runs in lockstep, so a lane's load after the warp's store sees the
// other lanes' stores and a load before it does not see them; a translation that runs each thread on its own
// must not lose that. Launch with 256 threads per block. Every kernel reads its input at index i and writes K
// results per thread at out[i * K + k] (n bounds the stores only: every lane takes part in every exchange).

// One block of 256 threads: 8 warps, each exchanging through its own 32 words of `s`.
#define WARP_BASE(t) ((t) & ~31)

extern "C" __global__ void xchg_syncwarp(const unsigned *a, unsigned *out, int n)
{
    // SASS: STS, NOP (the dropped __syncwarp), LDS at lane ^ k: butterfly rounds with a store after each
    // load (write after read) and a load after each store (read after write), then neighbour rotations
    __shared__ unsigned s[256];
    const int K = 3;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = a[i];
    unsigned sum = x;
    s[t] = x;
    __syncwarp();
    for (int k = 1; k < 32; k <<= 1) {
        unsigned v = s[WARP_BASE(t) | ((t ^ k) & 31)];
        __syncwarp();
        sum = sum * 3u + v;
        s[t] = sum;
        __syncwarp();
    }
    unsigned left = s[WARP_BASE(t) | ((t + 31) & 31)];
    __syncwarp();
    s[t] = left ^ (x << 1);
    __syncwarp();
    unsigned right = s[WARP_BASE(t) | ((t + 1) & 31)];
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = sum;
    o[1] = left;
    o[2] = right;
}

extern "C" __global__ void xchg_volatile_reduce(const unsigned *a, unsigned *out, int n)
{
    // SASS: the classic shared-memory tree reduction: BAR.SYNC between the steps down to 64 threads, then the
    // last warp's "warp-synchronous" tail through volatile shared memory with no sync (LDS, LDS, IADD3, STS
    // repeated); every lane of the tail stores its partial sums, lane 0 the block's total
    __shared__ unsigned s[256];
    const int K = 2;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = a[i];
    __syncthreads();
    for (int h = blockDim.x / 2; h > 32; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
    }
    unsigned first = 0, last = 0;
    if (t < 32) {
        volatile unsigned *v = s;
        v[t] += v[t + 32];
        first = v[t];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
        last = v[t];
    }
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = first;
    o[1] = last;
}

extern "C" __global__ void xchg_partial_mask(const unsigned *a, unsigned *out, int n)
{
    // SASS: STS in the lower half-warp only, __syncwarp(0x0000ffff) (WARPSYNC or BRA.CONV + CALL to the
    // warpsync routine, or a NOP), LDS of a neighbour in the same half; the upper half exchanges with a
    // __syncwarp(0xffff0000)
    __shared__ unsigned s[256];
    const int K = 2;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = a[i];
    unsigned got = 0, again = 0;
    if ((t & 31) < 16) {
        s[t] = x + 7u;
        __syncwarp(0x0000ffffu);
        got = s[WARP_BASE(t) | ((t + 3) & 15)];
        __syncwarp(0x0000ffffu);
        s[t] = got * 5u;
        __syncwarp(0x0000ffffu);
        again = s[WARP_BASE(t) | ((t + 15) & 15)];
    } else {
        s[t] = x ^ 0x5a5a5a5au;
        __syncwarp(0xffff0000u);
        got = s[WARP_BASE(t) | 16 | ((t + 5) & 15)];
    }
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = got;
    o[1] = again;
}

extern "C" __global__ void xchg_divergent(const unsigned *a, unsigned *out, int n)
{
    // SASS: STS, a data-dependent branch (BSSY/BSYNC around both arms, each with its own arithmetic and a
    // second STS in one arm), then __syncwarp() after the warp reconverged and LDS of the mirrored lane
    __shared__ unsigned s[256];
    __shared__ unsigned u[256];
    const int K = 2;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = a[i];
    s[t] = x;
    unsigned y;
    if (x & 1u) {
        y = x * 2654435761u;
        for (unsigned k = 0; k < (x & 7u); ++k) y = (y >> 3) ^ (y * 5u);
        u[t] = y;
    } else {
        y = x + 0x9e3779b9u;
        u[t] = ~y;
    }
    __syncwarp();
    unsigned m = s[WARP_BASE(t) | (31 - (t & 31))];
    unsigned w = u[WARP_BASE(t) | ((t + 13) & 31)];
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = m + y;
    o[1] = w;
}

extern "C" __global__ void xchg_syncthreads(const unsigned *a, unsigned *out, int n)
{
    // SASS: the control: xchg_syncwarp with __syncthreads() (BAR.SYNC) between every store and load, so no
    // store can meet a load of another lane between barriers (the translation keeps its cheap form)
    __shared__ unsigned s[256];
    const int K = 3;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = a[i];
    unsigned sum = x;
    s[t] = x;
    __syncthreads();
    for (int k = 1; k < 32; k <<= 1) {
        unsigned v = s[WARP_BASE(t) | ((t ^ k) & 31)];
        __syncthreads();
        sum = sum * 3u + v;
        s[t] = sum;
        __syncthreads();
    }
    unsigned left = s[WARP_BASE(t) | ((t + 31) & 31)];
    __syncthreads();
    s[t] = left ^ (x << 1);
    __syncthreads();
    unsigned right = s[WARP_BASE(t) | ((t + 1) & 31)];
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = sum;
    o[1] = left;
    o[2] = right;
}

extern "C" __global__ void xchg_read_then_write(const unsigned *a, unsigned *out, int n)
{
    // SASS: a barrier interval with only a load before a store (write after read): BAR.SYNC, LDS of the next
    // lane, NOP (__syncwarp), STS over the own word, BAR.SYNC; lane 31's load must see lane 0's old word
    __shared__ unsigned s[256];
    const int K = 2;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = a[i];
    s[t] = x;
    __syncthreads();
    unsigned v = s[WARP_BASE(t) | ((t + 1) & 31)];
    __syncwarp();
    s[t] = v * 3u + 1u;
    __syncthreads();
    unsigned r = s[WARP_BASE(t) | ((t + 2) & 31)];
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = v;
    o[1] = r;
}
