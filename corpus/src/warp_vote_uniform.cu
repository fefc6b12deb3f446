// Uniformity votes: PTX vote.sync.uni (VOTE.EQ) over the full warp and over 8-lane groups whose predicate is
// uniform in some groups and not in others, beside all/any/ballot votes on block-uniform and warp-uniform
// predicates (nvcc keeps some on the uniform datapath: VOTEU). Launch with 128 threads per block.

extern "C" __global__ void vote_uniform_modes(const unsigned *a, unsigned *out, int n, int limit)
{
    // SASS: VOTE.EQ with full and partial (8-lane) masks, VOTE.ALL, VOTE.ANY, VOTEU.ANY, SHFL.IDX, REDUX.OR and
    // BRA.DIV of nvcc's mask checks
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = i < n ? a[i] : 0u;
    const int K = 6;
    unsigned r[K];
    asm volatile("{ .reg .pred q, d; setp.ne.u32 q, %1, 0; vote.sync.uni.pred d, q, 0xffffffff; selp.u32 %0, 1, 0, d; }"
                 : "=r"(r[0])
                 : "r"(x & 0x80000000u));
    // g is uniform over each 8-lane group (lane 8j's bit); bit 8 of x is not.
    unsigned g = __shfl_sync(0xffffffffu, (x >> 3) & 1u, t & ~7);
    unsigned m8 = 0xffu << (t & 24);
    asm volatile("{ .reg .pred q, d; setp.ne.u32 q, %1, 0; vote.sync.uni.pred d, q, %2; selp.u32 %0, 1, 0, d; }"
                 : "=r"(r[1])
                 : "r"(g), "r"(m8));
    asm volatile("{ .reg .pred q, d; setp.ne.u32 q, %1, 0; vote.sync.uni.pred d, q, %2; selp.u32 %0, 1, 0, d; }"
                 : "=r"(r[2])
                 : "r"(x & 0x100u), "r"(m8));
    r[3] = __all_sync(0xffffffffu, limit > 100);
    r[4] = __any_sync(0xffffffffu, limit > (int)blockIdx.x * 1000);
    r[5] = __ballot_sync(0xffffffffu, (blockIdx.x & 1u) != 0u) ^ __ballot_sync(0xffffffffu, limit > 7);
    if (i >= n) return;
    for (int k = 0; k < K; ++k) out[i * K + k] = r[k];
}
