// Warp- and block-synchronous operations in divergent code: shuffles, votes, matches, reductions, __syncwarp
// and barriers executed by data-dependent subsets of a warp or block — after divergent branches, inside loops
// that lanes leave early (break and return), with exited lanes named in full masks, and named barriers with
// thread counts between warp groups. Every mask comes from the data (ballots, __activemask), every shuffle
// reads only lanes that are active and named in its mask, and every barrier is reached by all the threads it
// counts (exited threads release CTA-wide barriers, as PTX `exit` specifies), so each result is defined by
// CUDA/PTX and deterministic. Launch with 128 threads per block (whole warps). Every kernel reads its inputs
// at index i and writes K results per thread at out[i * K + k]; threads with i >= n take part in every warp
// operation with x = 0 and only skip the stores.

#define FULL 0xffffffffu

// The lowest lane of `m` above `lane`, wrapping to the lowest lane of `m` (m must not be empty).
__device__ __forceinline__ int next_lane(unsigned m, int lane)
{
    unsigned above = m & ~((2u << lane) - 1u);
    return __ffs(above ? above : m) - 1;
}

// The highest lane of `m` below `lane`, wrapping to the highest lane of `m` (m must not be empty).
__device__ __forceinline__ int prev_lane(unsigned m, int lane)
{
    unsigned below = m & ((1u << lane) - 1u);
    return 31 - __clz(below ? below : m);
}

extern "C" __global__ void shfl_divergent_widths(const int *a, int *out, int n)
{
    // SASS: SHFL.UP/.DOWN/.BFLY/.IDX with segment widths 8, 16 and 32 inside data-dependent branches
    // (BSSY/BSYNC), member masks from __activemask (VOTE.ANY R, PT, PT) and from ballots, nvcc's paths for
    // masks it cannot prove uniform (BRA.DIV/BRA.CONV, MATCH.ANY + REDUX.OR tests, CALL to its shuffle
    // helpers, WARPSYNC with register masks), a per-lane source lane found with BREV/FLO under an arbitrary
    // divergent mask
    const int K = 12;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int x = i < n ? a[i] : 0;
    int r[K];
    for (int k = 0; k < K; ++k) r[k] = 0;
    // Branch conditions uniform over 8- and 16-lane segments (but data-dependent), so every source lane of a
    // segmented shuffle is in the branch.
    int lead8 = __shfl_sync(FULL, x, lane & ~7);
    int lead16 = __shfl_sync(FULL, x, lane & ~15);
    if (lead8 & 1) {
        unsigned m = __activemask();
        r[0] = __shfl_up_sync(m, x, 3, 8);
        r[1] = __shfl_down_sync(m, x, 2, 8);
        r[2] = __shfl_xor_sync(m, x, 5, 8);
        r[3] = __shfl_sync(m, x, (int)((unsigned)x >> 27), 8);
        r[4] = (int)m;
    } else {
        unsigned m = __activemask();
        r[0] = __shfl_down_sync(m, x * 3, 7, 8);
        r[1] = __shfl_sync(m, x, 7, 8);
        r[2] = __shfl_xor_sync(m, x + 1, 3, 8);
        r[4] = ~(int)m;
    }
    if (lead16 & 2) {
        unsigned m = __activemask();
        r[5] = __shfl_up_sync(m, x, 5, 16);
        r[6] = __shfl_down_sync(m, x, 9, 16);
        r[7] = __shfl_xor_sync(m, x, 10, 16);
        r[8] = __shfl_sync(m, x, lane + 7, 16);
    }
    // Width 32 over data-dependent lane ranges: DOWN from [lo, 31] reads lanes in the range or its own value
    // past lane 31; UP in [0, hi) reads lanes in the range or its own value below lane 0.
    int lo = __shfl_sync(FULL, x, 0) & 31;
    int hi = __shfl_sync(FULL, x, 1) & 31;
    unsigned mlo = __ballot_sync(FULL, lane >= lo);
    unsigned mhi = __ballot_sync(FULL, lane < hi);
    if (lane >= lo) r[9] = __shfl_down_sync(mlo, x, 3);
    if (lane < hi) r[10] = __shfl_up_sync(mhi, x, 4);
    // An arbitrary divergent set of lanes: each reads the next lane of the set.
    if (x & 4) {
        unsigned m = __activemask();
        r[11] = __shfl_sync(m, x ^ lane, next_lane(m, lane));
    }
    if (i >= n) return;
    int *o = out + i * K;
    for (int k = 0; k < K; ++k) o[k] = r[k];
}

// shfl.sync with its predicate output: d = shuffled value, p = 1 when the source lane was in range.
#define SHFL_P(MODE, d, p, a, b, c, m)                                                                       \
    asm volatile("{ .reg .pred q; shfl.sync." MODE ".b32 %0|q, %2, %3, %4, %5; selp.u32 %1, 1, 0, q; }"    \
                 : "=r"(d), "=r"(p) : "r"(a), "r"(b), "r"(c), "r"(m))

extern "C" __global__ void shfl_ptx_predicate(const int *a, unsigned *out, int n)
{
    // SASS: SHFL.UP/.DOWN/.BFLY/.IDX with the P destination predicate (shfl.sync d|p in inline assembly), lane
    // and clamp/segment operands in registers that differ per lane (odd clamps, segment masks 0-31), partial
    // member masks over data-dependent lane ranges in divergent code (BSSY/BSYNC, VOTEU.ANY, WARPSYNC)
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned x = i < n ? (unsigned)a[i] : 0u;
    unsigned y = x * 2654435761u + (unsigned)lane;
    unsigned v[7] = {0, 0, 0, 0, 0, 0, 0}, p[7] = {0, 0, 0, 0, 0, 0, 0};
    // Full warp: every source lane is active, whatever b and c say.
    SHFL_P("up", v[0], p[0], x, x & 31u, 0u, FULL);
    SHFL_P("down", v[1], p[1], x, (x >> 5) & 31u, 31u, FULL);
    SHFL_P("bfly", v[2], p[2], x, (x >> 10) & 31u, ((y >> 4) & 31u) | (((y >> 12) & 31u) << 8), FULL);
    SHFL_P("idx", v[3], p[3], x, (x >> 25) & 31u, ((y >> 20) & 31u) | (0x18u << 8), FULL);
    SHFL_P("idx", v[4], p[4], y, x >> 27, 0x1004u, FULL);
    // Data-dependent lane ranges; per-lane shift amounts, sources inside the range or out of range.
    unsigned lo = (unsigned)__shfl_sync(FULL, (int)x, 2) & 31u;
    unsigned hi = (unsigned)__shfl_sync(FULL, (int)x, 3) & 31u;
    unsigned mlo = __ballot_sync(FULL, (unsigned)lane >= lo);
    unsigned mhi = __ballot_sync(FULL, (unsigned)lane < hi);
    if ((unsigned)lane >= lo) SHFL_P("down", v[5], p[5], y, (x >> 7) & 15u, 0x81fu, mlo);
    if ((unsigned)lane < hi) SHFL_P("up", v[6], p[6], y, (x >> 13) & 15u, 0u, mhi);
    if (i >= n) return;
    unsigned *o = out + i * K;
    unsigned bits = 0;
    for (int k = 0; k < 7; ++k) {
        o[k] = v[k];
        bits |= p[k] << k;
    }
    o[7] = bits;
}

extern "C" __global__ void vote_loop_break(const int *a, unsigned *out, int n)
{
    // SASS: VOTE.ANY (ballots; __any_sync into a predicate), VOTE.ALL, MATCH.ALL, REDUX.SUM under shrinking
    // member masks in a loop with a data-dependent trip count and a second data-dependent exit (BSSY/BSYNC,
    // PLOP3, WARPSYNC with register masks, BRA.DIV to nvcc's vote helpers)
    const int K = 6;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i < n ? (unsigned)a[i] : 0u;
    int limit = (int)(x & 7u) + (int)((x >> 3) & 3u);
    unsigned m = FULL, hash = 0, votes = 0, left = 0;
    int it = 0;
    for (;; ++it) {
        bool go = it < limit;
        m = __ballot_sync(m, go);
        if (!go) break;
        unsigned bits = x >> it;
        unsigned b = __ballot_sync(m, bits & 1u);
        int all = __all_sync(m, bits & 2u);
        int any = __any_sync(m, bits & 4u);
        int pm;
        unsigned mm = __match_all_sync(m, bits & 8u, &pm);
        unsigned sum = __reduce_add_sync(m, bits & 0xffu);
        hash = hash * 33u + (b ^ mm ^ (sum << 7));
        votes += (unsigned)all + 2u * (unsigned)any + 4u * (unsigned)pm;
        // A second way out, taken by some lanes mid-iteration; the others drop them from the mask.
        bool stop = (bits & 0x30u) == 0x30u;
        unsigned leaving = __ballot_sync(m, stop);
        if (stop) {
            left = leaving;
            break;
        }
        m &= ~leaving;
    }
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = hash;
    o[1] = votes;
    o[2] = (unsigned)it;
    o[3] = m;
    o[4] = left;
    o[5] = (unsigned)limit;
}

extern "C" __global__ void vote_after_return(const int *a, unsigned *out, int n)
{
    // SASS: returns of data-dependent lanes inside a loop (nvcc parks those lanes at a BSYNC and lets them EXIT
    // after the others), then VOTE.ALL, VOTE.ANY (ballot), REDUX.SUM/.MAX, MATCH.ANY and WARPSYNC 0xffffffff
    // with full masks naming the returned lanes (BRA.DIV to nvcc's helpers), __activemask after the returns,
    // SHFL.IDX among the remaining lanes, POPC
    const int K = 8;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned x = i < n ? (unsigned)a[i] : 0u;
    unsigned m = FULL, seen = 0;
    for (int it = 0; it < 4; ++it) {
        bool leave = ((x >> (2 * it + 3)) & 3u) == 3u;
        unsigned lv = __ballot_sync(m, leave);
        if (leave) {
            if (i < n) {
                unsigned *o = out + i * K;
                for (int k = 0; k < K; ++k) o[k] = 0xdead0000u | ((unsigned)it << 8) | (unsigned)__popc(lv);
            }
            return;
        }
        m &= ~lv;
        seen = seen * 7u + lv;
    }
    // Only lanes of m are left; the others have exited.
    unsigned act = __activemask();
    unsigned b = __ballot_sync(FULL, (int)x > 0);
    int all = __all_sync(FULL, x & 1u);
    int any = __any_sync(FULL, x & 2u);
    unsigned sum = __reduce_add_sync(FULL, x & 0xffffu);
    unsigned mx = __reduce_max_sync(FULL, x);
    unsigned ma = __match_any_sync(FULL, x & 1u);
    int got = __shfl_sync(FULL, (int)x, next_lane(m, lane));
    if (i >= n) return;
    unsigned *o = out + i * K;
    o[0] = act;
    o[1] = b;
    o[2] = (unsigned)all | ((unsigned)any << 1);
    o[3] = sum;
    o[4] = mx;
    o[5] = ma;
    o[6] = (unsigned)got;
    o[7] = seen ^ m;
}

extern "C" __global__ void match_reduce_divergent(const int *a, const long long *b, unsigned *out, int n)
{
    // SASS: MATCH.ANY/.ALL on 32- and 64-bit values (.U64) and REDUX.SUM/.MIN/.MAX/.AND/.OR/.XOR (signed and
    // unsigned) with partial member masks from ballots (VOTE.ANY, VOTEU.ANY) in both arms of a data-dependent
    // if/else (BSSY/BSYNC), and from __activemask; WARPSYNC with register masks
    const int K = 10;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int x = i < n ? a[i] : 0;
    long long y = i < n ? b[i] : 0;
    unsigned r[K];
    for (int k = 0; k < K; ++k) r[k] = 0;
    unsigned sel = __ballot_sync(FULL, (x >> 4) & 1);
    if ((x >> 4) & 1) {
        unsigned m = sel;
        int p;
        r[0] = __match_any_sync(m, x & 3);
        r[1] = __match_all_sync(m, (x >> 8) & 1, &p);
        r[2] = (unsigned)p;
        r[3] = __reduce_add_sync(m, (unsigned)x);
        r[4] = (unsigned)__reduce_min_sync(m, x);
        r[5] = __reduce_max_sync(m, (unsigned)x);
        r[6] = __reduce_xor_sync(m, (unsigned)x);
    } else {
        unsigned m = ~sel;
        int p;
        r[0] = __match_any_sync(m, y & 0x300000001ll);
        r[1] = __match_all_sync(m, y & 0x100000000ll, &p);
        r[2] = (unsigned)p | 2u;
        r[3] = __reduce_and_sync(m, (unsigned)x | 0x0f0f0000u);
        r[4] = (unsigned)__reduce_max_sync(m, x);
        r[5] = __reduce_min_sync(m, (unsigned)x);
        r[6] = __reduce_or_sync(m, (unsigned)x & 0x8000ffffu);
    }
    if (x & 0x100) {
        unsigned m = __activemask();
        r[7] = m;
        r[8] = __reduce_add_sync(m, (unsigned)lane);
        r[9] = __match_any_sync(m, (x >> 9) & 1);
    }
    if (i >= n) return;
    unsigned *o = out + i * K;
    for (int k = 0; k < K; ++k) o[k] = r[k];
}

extern "C" __global__ void barrier_counts_groups(const unsigned *a, unsigned *out, int n)
{
    // SASS: BAR.ARV and BAR.SYNC with barrier ids and thread counts in registers and immediates between warp
    // groups (pairs and a three-warp group), BAR.RED.POPC/.AND/.OR with a thread count, B2R.RESULT, MEMBAR
    // before the arrivals, STS/LDS handed over through them
    __shared__ unsigned s1[128];
    __shared__ unsigned s2[96];
    const int K = 6;
    int t = threadIdx.x;
    int w = t >> 5;
    int i = blockIdx.x * blockDim.x + t;
    unsigned x = i < n ? a[i] : 0u;
    unsigned r[K] = {0, 0, 0, 0, 0, 0};
    // Pairs: warp 0 hands over to warp 1 through barrier 1, warp 2 to warp 3 through barrier 2 (64 threads
    // each; the id is a register, the same in both warps of a pair).
    s1[t] = x * 0x9E3779B1u;
    unsigned id = 1u + (unsigned)(w >> 1);
    if ((w & 1) == 0) {
        __threadfence_block();
        asm volatile("bar.arrive %0, 64;" ::"r"(id) : "memory");
    } else {
        asm volatile("bar.sync %0, 64;" ::"r"(id) : "memory");
        r[0] = s1[t - 32];
    }
    // Reductions over warps 1 and 3 (barrier 3) and over warps 0 and 2 (barrier 4), 64 threads each.
    if (w & 1) {
        unsigned c;
        asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; bar.red.popc.u32 %0, 3, 64, q; }"
                     : "=r"(c) : "r"(x & 0x100u) : "memory");
        r[1] = c;
    } else {
        unsigned all, any;
        asm volatile("{ .reg .pred q, d; setp.ne.u32 q, %1, 0; bar.red.and.pred d, 4, 64, q; selp.u32 %0, 1, 0, d; }"
                     : "=r"(all) : "r"(x & 0x80000000u) : "memory");
        asm volatile("{ .reg .pred q, d; setp.eq.u32 q, %1, 0x600; bar.red.or.pred d, 4, 64, q; selp.u32 %0, 1, 0, d; }"
                     : "=r"(any) : "r"(x & 0x600u) : "memory");
        r[2] = all | (any << 1);
    }
    // Three warps: warps 1 and 2 write and arrive, warp 0 waits (barrier 5, 96 threads, count in a register);
    // warp 3 takes no part.
    unsigned count = 96;
    if (w == 1 || w == 2) {
        s2[t - 32] = x ^ (x >> 16);
        __threadfence_block();
        asm volatile("bar.arrive 5, %0;" ::"r"(count) : "memory");
    } else if (w == 0) {
        asm volatile("bar.sync 5, %0;" ::"r"(count) : "memory");
        r[3] = s2[t] + s2[63 - t];
    }
    // Everyone again, then a popcount over the whole block on barrier 0.
    __syncthreads();
    r[4] = (unsigned)__syncthreads_count((x & 3u) == 1u);
    r[5] = id | ((unsigned)w << 4);
    if (i >= n) return;
    unsigned *o = out + i * K;
    for (int k = 0; k < K; ++k) o[k] = r[k];
}

extern "C" __global__ void syncthreads_after_exit(const int *a, int *out, int n)
{
    // SASS: EXIT of data-dependent lanes and of whole warps before BAR.SYNC and BAR.RED.POPC/.AND/.OR (exited
    // threads release block-wide barriers), B2R.RESULT, LDS of values stored (STS) before an earlier BAR.SYNC
    __shared__ int s[128];
    const int K = 5;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int x = i < n ? a[i] : 0;
    s[t] = x;
    __syncthreads();
    bool warp_leaves = ((s[t & ~31] >> 20) & 3) == 3;
    bool lane_leaves = (x & 0x18) == 0x18;
    if (warp_leaves || lane_leaves) {
        if (i < n) {
            int *o = out + i * K;
            for (int k = 0; k < K; ++k) o[k] = (int)(0xdead0000u | (warp_leaves ? 0x100u : 0u) | (unsigned)k);
        }
        return;
    }
    int cnt = __syncthreads_count(x > 0);
    int all = __syncthreads_and(x & 1);
    int any = __syncthreads_or((x & 0x60) == 0x60);
    __syncthreads();
    int other = s[t ^ 64] + s[127 - t];
    int cnt2 = __syncthreads_count(other & 1);
    if (i >= n) return;
    int *o = out + i * K;
    o[0] = cnt;
    o[1] = all;
    o[2] = any;
    o[3] = other;
    o[4] = cnt2;
}

extern "C" __global__ void syncwarp_divergent(const int *a, int *out, int n)
{
    // SASS: __syncwarp with register masks from ballots (VOTE.ANY) in both arms of a data-dependent branch and
    // inside a loop whose mask shrinks as lanes break out (nvcc tests the masks with MATCH.ANY, REDUX.OR,
    // VOTEU.ANY and BRA.CONV and calls its WARPSYNC helper), STS/LDS exchange between the synchronised lanes,
    // BREV/FLO lane search
    __shared__ int buf[128];
    const int K = 4;
    int t = threadIdx.x;
    int lane = t & 31;
    int base = t & ~31;
    int i = blockIdx.x * blockDim.x + t;
    int x = i < n ? a[i] : 0;
    int r0, r1;
    unsigned sel = __ballot_sync(FULL, x & 1);
    if (x & 1) {
        unsigned m = sel;
        buf[t] = x * 3;
        __syncwarp(m);
        r0 = buf[base + next_lane(m, lane)];
    } else {
        unsigned m = ~sel;
        buf[t] = x ^ 0x5a5a;
        __syncwarp(m);
        r0 = buf[base + prev_lane(m, lane)];
    }
    __syncwarp();
    // A running sum over the lanes still in the loop; lanes leave at data-dependent iterations.
    unsigned m = FULL;
    int acc = x, it = 0;
    for (; it < 6; ++it) {
        bool go = it == 0 || ((x >> (it + 1)) & 1);
        unsigned next = __ballot_sync(m, go);
        if (!go) break;
        m = next;
        buf[t] = acc;
        __syncwarp(m);
        acc += buf[base + next_lane(m, lane)];
        __syncwarp(m);
    }
    __syncwarp();
    r1 = acc;
    if (i >= n) return;
    int *o = out + i * K;
    o[0] = r0;
    o[1] = r1;
    o[2] = it;
    o[3] = (int)m;
}
