// Block-level synchronisation: __syncthreads, __syncthreads_count/_and/_or, __syncwarp (full and partial),
// named barriers (PTX bar.sync / bar.arrive with an id and a thread count), memory fences, and the
// producer/consumer pattern they protect. Launch with 128 threads per block.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void sync_predicates(const int *a, int *out, int n)
{
    // SASS: BAR.SYNC.DEFER_BLOCKING, BAR.RED.POPC, BAR.RED.AND, BAR.RED.OR (with predicate inputs), B2R.RESULT
    const int K = 3;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? a[i] : 0;
    int count = __syncthreads_count(x > 0);
    int all = __syncthreads_and(x != 0);
    int any = __syncthreads_or(x == 0x7fffffff);
    if (i >= n) return;
    int *o = out + i * K;
    o[0] = count;
    o[1] = all;
    o[2] = any;
}

extern "C" __global__ void named_barriers(const unsigned *a, unsigned *out, int n)
{
    // SASS: BAR.SYNC with barrier id and thread count (bar.sync 1, 64), BAR.ARV (bar.arrive), BAR.SYNC 0,
    // STS/LDS around them; warps 0-1 produce, warps 2-3 consume through barrier 1
    __shared__ unsigned stage[64];
    const int K = 2;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = i < n ? a[i] : 0u;
    unsigned got = 0;
    if (t < 64) {
        stage[t] = x * 2654435761u;
        __threadfence_block();
        asm volatile("bar.arrive 1, 128;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        got = stage[t - 64];
    }
    __syncthreads();
    unsigned pair = 0;
    if (t < 64) {
        asm volatile("bar.sync 2, 64;" ::: "memory");
        pair = stage[63 - t];
    }
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = got;
    o[1] = pair;
}

extern "C" __global__ void syncwarp_exchange(const int *a, int *out, int n)
{
    // SASS: WARPSYNC with full and partial masks (__syncwarp), lane exchange through shared memory (STS/LDS)
    __shared__ int buf[128];
    const int K = 2;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int x = i < n ? a[i] : 0;
    buf[t] = x;
    __syncwarp();
    int mirrored = buf[(t & ~31) | (31 - (t & 31))];
    __syncwarp();
    int half = 0;
    if ((t & 31) < 16) {
        buf[t] = x + 1;
        __syncwarp(0x0000ffffu);
        half = buf[(t & ~31) | ((t + 1) & 15)];
    }
    if (i >= n) return;
    int *o = out + i * K;
    o[0] = mirrored;
    o[1] = half;
}
