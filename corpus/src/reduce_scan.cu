// Block reductions and prefix scans, the way compute code writes them: a shared-memory tree reduction,
// a warp-shuffle reduction with one shared slot per warp, and a Hillis-Steele inclusive scan in shared
// memory plus a warp-shuffle exclusive scan. Integer data keeps the results order-independent.
// Launch with 256 threads per block; per-block results go to out[blockIdx.x].

extern "C" __global__ void reduce_shared_tree(const int *in, int *out, int n)
{
    // SASS: STS/LDS, BAR.SYNC in a loop with a halving stride (SHF.R), predicated adds, one STG per block
    __shared__ int s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < (int)stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_warp_shuffle(const unsigned *in, unsigned long long *out, int n)
{
    // SASS: SHFL.DOWN reduction on 64-bit values (two SHFLs per step), STS of per-warp partials, BAR.SYNC,
    // second-level reduction by warp 0, RED.E.ADD.64 of the block sum into out[0] and STG of out[1 + block]
    __shared__ unsigned long long warp_sums[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned long long v = i < n ? in[i] : 0u;
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((t & 31) == 0) warp_sums[t >> 5] = v;
    __syncthreads();
    if (t < 32) {
        v = t < (int)(blockDim.x >> 5) ? warp_sums[t] : 0ull;
        for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
        if (t == 0) {
            atomicAdd(&out[0], v);
            out[1 + blockIdx.x] = v;
        }
    }
}

extern "C" __global__ void scan_shared_inclusive(const int *in, int *out, int n)
{
    // SASS: double-buffered shared scan (LDS/STS with a computed buffer offset), BAR.SYNC per step
    __shared__ int buf[2][256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int cur = 0;
    buf[0][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < (int)blockDim.x; off <<= 1) {
        int v = buf[cur][t];
        if (t >= off) v += buf[cur][t - off];
        buf[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[cur][t];
}

extern "C" __global__ void scan_warp_exclusive(const unsigned *in, unsigned *out, int n)
{
    // SASS: SHFL.UP with lane predicate, SHFL.IDX broadcast of warp totals, STS/LDS of warp totals, BAR.SYNC
    __shared__ unsigned totals[8];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = i < n ? in[i] : 0u;
    unsigned v = x;
    for (int d = 1; d < 32; d <<= 1) {
        unsigned y = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += y;
    }
    if (lane == 31) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        unsigned tv = lane < (int)(blockDim.x >> 5) ? totals[lane] : 0u;
        for (int d = 1; d < 8; d <<= 1) {
            unsigned y = __shfl_up_sync(0xffffffffu, tv, d);
            if (lane >= d) tv += y;
        }
        if (lane < 8) totals[lane] = tv;
    }
    __syncthreads();
    unsigned base = warp > 0 ? totals[warp - 1] : 0u;
    if (i < n) out[i] = base + v - x;
}
