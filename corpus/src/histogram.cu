// Histograms: per-block privatised bins in shared memory updated with shared atomics, merged into global
// bins with global atomics; and a byte histogram with warp-aggregated increments (__match_any_sync).
// Counts are order-independent, so the final bins are deterministic.

#define BINS 64

extern "C" __global__ void histogram_shared(const unsigned *in, unsigned *bins, int n)
{
    // SASS: ATOMS.ADD (or ATOMS.POPC.INC) on shared bins, BAR.SYNC, RED.E.ADD merging, grid-stride loop
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0u;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned v = local[b];
        if (v) atomicAdd(&bins[b], v);
    }
}

extern "C" __global__ void histogram_bytes_aggregated(const unsigned *in, unsigned *bins, int n)
{
    // SASS: MATCH.ANY to group lanes with equal keys, POPC of the group, FLO/BREV to elect the leader,
    // RED.E.ADD by the leader only; bins has 256 entries
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned word = i < n ? in[i] : 0u;
    for (int k = 0; k < 4; ++k) {
        unsigned key = (word >> (8 * k)) & 0xffu;
        unsigned valid = __ballot_sync(0xffffffffu, i < n);
        unsigned peers = __match_any_sync(0xffffffffu, key) & valid;
        int leader = __ffs(peers) - 1;
        if (i < n && (int)(threadIdx.x & 31) == leader) atomicAdd(&bins[key], __popc(peers));
    }
}
