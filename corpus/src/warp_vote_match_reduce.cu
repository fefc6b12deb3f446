// Warp votes, matches and reductions: __ballot_sync, __all_sync, __any_sync, __activemask (in divergent
// code), __match_any_sync / __match_all_sync on 32- and 64-bit values, __reduce_{add,min,max,and,or,xor}_sync,
// lane masks from special registers. Launch with whole warps and n a multiple of 32.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void warp_vote(const int *a, unsigned *out, int n)
{
    // SASS: VOTE.ANY/VOTE.ALL with result register and predicate, S2R SR_LANEID / SR_LTMASK /
    // SR_GEMASK..., POPC on ballots, __activemask in a divergent branch
    const int K = 7;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? a[i] : 0;
    unsigned ballot = __ballot_sync(0xffffffffu, x > 0);
    int all = __all_sync(0xffffffffu, x != 12345);
    int any = __any_sync(0xffffffffu, (x & 0xff) == 0);
    unsigned active = 0;
    if (x & 1) active = __activemask();
    unsigned lt, ge;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    unsigned rank = __popc(ballot & lt);
    unsigned partial = 0;
    if (threadIdx.x & 2) partial = __ballot_sync(0xccccccccu, x < 0);
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = ballot;
    o[1] = (unsigned)all | ((unsigned)any << 1);
    o[2] = active;
    o[3] = rank;
    o[4] = ge;
    o[5] = partial;
    o[6] = __popc(__ballot_sync(0xffffffffu, (x >> 31) & 1));
}

extern "C" __global__ void warp_match(const int *a, const long long *b, unsigned *out, int n)
{
    // SASS: MATCH.ANY, MATCH.ALL (with predicate), MATCH.ANY.U64, MATCH.ALL.U64
    const int K = 5;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? (a[i] & 3) : 0;
    long long y = i < n ? (b[i] & 0x100000001ll) : 0;
    int pred32 = 0, pred64 = 0;
    unsigned any32 = __match_any_sync(0xffffffffu, x);
    unsigned all32 = __match_all_sync(0xffffffffu, x, &pred32);
    unsigned any64 = __match_any_sync(0xffffffffu, y);
    unsigned all64 = __match_all_sync(0xffffffffu, (long long)(threadIdx.x >> 5), &pred64);
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = any32;
    o[1] = all32;
    o[2] = (unsigned)pred32 | ((unsigned)pred64 << 1);
    o[3] = any64;
    o[4] = all64;
}

extern "C" __global__ void warp_reduce(const int *a, unsigned *out, int n)
{
    // SASS: REDUX.SUM, REDUX.MIN.S32, REDUX.MAX.S32, REDUX.MIN, REDUX.MAX, REDUX.AND, REDUX.OR, REDUX.XOR
    // (results land in uniform registers, then move back), partial-mask REDUX in divergent code
    const int K = 9;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? a[i] : 0;
    unsigned ux = (unsigned)x;
    unsigned s = __reduce_add_sync(0xffffffffu, ux);
    int mn = __reduce_min_sync(0xffffffffu, x);
    int mx = __reduce_max_sync(0xffffffffu, x);
    unsigned umn = __reduce_min_sync(0xffffffffu, ux);
    unsigned umx = __reduce_max_sync(0xffffffffu, ux);
    unsigned an = __reduce_and_sync(0xffffffffu, ux);
    unsigned orr = __reduce_or_sync(0xffffffffu, ux);
    unsigned xr = __reduce_xor_sync(0xffffffffu, ux);
    unsigned part = 0;
    if (threadIdx.x < 16) part = __reduce_add_sync(0x0000ffffu, ux >> 4);
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = s; o[1] = (unsigned)mn; o[2] = (unsigned)mx; o[3] = umn; o[4] = umx;
    o[5] = an; o[6] = orr; o[7] = xr; o[8] = part;
}
