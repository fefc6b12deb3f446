// Cooperative-groups tiles of 2, 4, 8, 16 and 32 threads beyond `coop_groups.cu`: `cg::reduce` with signed
// and unsigned sums, max/min and bit operations on every tile size (a REDUX over part of a warp comes with
// WARPSYNC.EXCLUSIVE), tile shfl/shfl_down/shfl_xor, ballot/any/all/match_any and tile.sync() in code that
// diverges between tiles, in loops whose trip counts differ between tiles, and on coalesced groups with
// inactive lanes. Every thread of a tile takes the same path (CUDA requires it of tile operations); results
// are independent of scheduling.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <class Tile>
__device__ void tile_reductions(const Tile &t, unsigned x, unsigned *o)
{
    o[0] = (unsigned)cg::reduce(t, (int)(x >> 7), cg::plus<int>());
    o[1] = cg::reduce(t, x, cg::plus<unsigned>());
    o[2] = cg::reduce(t, x, cg::greater<unsigned>());
    o[3] = (unsigned)cg::reduce(t, (int)x, cg::less<int>());
    o[4] = cg::reduce(t, x | 0x01000000u, cg::bit_and<unsigned>());
    o[5] = cg::reduce(t, x & 0x00f0f0f0u, cg::bit_or<unsigned>());
    o[6] = cg::reduce(t, x >> 3, cg::bit_xor<unsigned>());
}

// One kernel per tile size (each stays within lavapipe's loop budget in the turns form): plus<int>,
// plus<unsigned>, greater<unsigned>, less<int>, bit_and, bit_or, bit_xor.
extern "C" __global__ void tile_reduce_2(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::reduce over 2-thread tiles: SHFL.BFLY, with the MATCH.ANY and REDUX.OR tile checks and
    // BRA.DIV to the shuffle helper CALLs
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned r[7];
    tile_reductions(cg::tiled_partition<2>(b), in[i], r);
    if ((int)i < n) {
        for (int k = 0; k < 7; k++) out[7 * i + k] = r[k];
    }
}

extern "C" __global__ void tile_reduce_4(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::reduce over 4-thread tiles: SHFL.BFLY trees (MATCH.ANY, REDUX.OR, BRA.DIV tile checks)
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned r[7];
    tile_reductions(cg::tiled_partition<4>(b), in[i], r);
    if ((int)i < n) {
        for (int k = 0; k < 7; k++) out[7 * i + k] = r[k];
    }
}

extern "C" __global__ void tile_reduce_8(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::reduce over 8-thread tiles: SHFL.BFLY trees (MATCH.ANY, REDUX.OR, BRA.DIV tile checks)
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned r[7];
    tile_reductions(cg::tiled_partition<8>(b), in[i], r);
    if ((int)i < n) {
        for (int k = 0; k < 7; k++) out[7 * i + k] = r[k];
    }
}

extern "C" __global__ void tile_reduce_16(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::reduce over 16-thread tiles: REDUX.SUM.S32, REDUX.MIN.S32, REDUX.MAX, REDUX (and), REDUX.OR,
    // REDUX.XOR after WARPSYNC.EXCLUSIVE (between BSSY and BSYNC, and in the reduxsync helper CALLs of the
    // divergent path); R2UR uniformity tests
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned r[7];
    tile_reductions(cg::tiled_partition<16>(b), in[i], r);
    if ((int)i < n) {
        for (int k = 0; k < 7; k++) out[7 * i + k] = r[k];
    }
}

extern "C" __global__ void tile_reduce_32(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::reduce over whole warps: REDUX.SUM.S32, REDUX.MIN.S32, REDUX.MAX, REDUX (and), REDUX.OR,
    // REDUX.XOR
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned r[7];
    tile_reductions(cg::tiled_partition<32>(b), in[i], r);
    if ((int)i < n) {
        for (int k = 0; k < 7; k++) out[7 * i + k] = r[k];
    }
}

extern "C" __global__ void tile_divergent(const unsigned *in, unsigned *out, int n)
{
    // SASS: tile operations in both arms of branches that diverge between the tiles of a warp (odd and even
    // 16-thread tiles; 4-thread tiles by a tile-wide any): REDUX.SUM.S32/REDUX.MAX after WARPSYNC.EXCLUSIVE,
    // tile shfl/shfl_down/shfl_xor (SHFL.IDX, SHFL.DOWN and SHFL.BFLY with segment masks), ballot/any/all
    // (VOTE), match_any (MATCH.ANY), tile.sync() (WARPSYNC); the lavapipe test also runs partial last warps
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned x = in[i];
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(b);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(b);
    unsigned r0, r1, r2, r3, r4;
    if (t16.meta_group_rank() & 1u) {
        r0 = (unsigned)cg::reduce(t16, (int)x >> 4, cg::plus<int>());
        r1 = t16.shfl(x, 5);
        r2 = t16.ballot(x & 1u);
    } else {
        r0 = cg::reduce(t16, x, cg::greater<unsigned>());
        r1 = t16.shfl_down(x, 2);
        r2 = (unsigned)t16.any(x & 2u) | ((unsigned)t16.all(x & 4u) << 1);
    }
    if (t4.any(x & 8u)) {
        r3 = (unsigned)cg::reduce(t4, (int)(x & 0xffffu) - 30000, cg::plus<int>());
        r4 = t4.match_any(x & 3u);
    } else {
        r3 = 0x1234u;
        r4 = t4.shfl_xor(x, 1);
    }
    t16.sync();
    unsigned r5 = cg::reduce(t16, r3 ^ r0, cg::bit_xor<unsigned>());
    if ((int)i < n) {
        out[6 * i + 0] = r0;
        out[6 * i + 1] = r1;
        out[6 * i + 2] = r2;
        out[6 * i + 3] = r3;
        out[6 * i + 4] = r4;
        out[6 * i + 5] = r5;
    }
}

extern "C" __global__ void tile_loop(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::reduce and tile shuffles in a loop whose trip count is uniform within a 16-thread tile but
    // differs between the two tiles of a warp, so one tile reduces while the other has left the loop:
    // REDUX.SUM.S32 and REDUX.OR after WARPSYNC.EXCLUSIVE, SHFL.IDX with per-lane sources, an 8-thread
    // tile's SHFL.BFLY, tile.sync() (WARPSYNC)
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned x = in[i];
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(b);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(b);
    unsigned trips = cg::reduce(t16, x & 3u, cg::greater<unsigned>()) + 1u;
    unsigned acc = 0, v = x, small = 0;
    for (unsigned it = 0; it < trips; it++) {
        acc += (unsigned)cg::reduce(t16, (int)(v & 0xfffu) - 2048, cg::plus<int>());
        acc ^= cg::reduce(t16, v & 0xff00ffu, cg::bit_or<unsigned>()) << 1;
        small = small * 3u + t8.shfl_xor(v >> 20, (int)(it | 1u));
        v = t16.shfl(v, (t16.thread_rank() + it + 1u) & 15u) ^ it;
        t16.sync();
    }
    if ((int)i < n) {
        out[4 * i + 0] = acc;
        out[4 * i + 1] = v;
        out[4 * i + 2] = trips;
        out[4 * i + 3] = small;
    }
}

extern "C" __global__ void coalesced_after_exit(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::coalesced_threads() after a third of the lanes returned (the lavapipe test also runs partial
    // last warps): cg::reduce over the remaining lanes (REDUX.SUM.S32 after WARPSYNC.EXCLUSIVE on
    // __activemask's VOTE.ANY, REDUX.MAX), thread_rank/size (POPC of lane masks), ballot packed by rank, shfl
    // from rank 0
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned x = in[i];
    if (x % 3u == 0u) {
        if ((int)i < n) out[5 * i] = 0xdeadu;
        return;
    }
    cg::coalesced_group a = cg::coalesced_threads();
    unsigned r0 = (unsigned)cg::reduce(a, (int)(x >> 8), cg::plus<int>());
    unsigned r1 = a.thread_rank() | (a.size() << 8);
    unsigned r2 = a.ballot(x & 1u);
    unsigned r3 = a.shfl(x, 0);
    unsigned r4 = cg::reduce(a, x, cg::greater<unsigned>());
    if ((int)i < n) {
        out[5 * i + 0] = r0;
        out[5 * i + 1] = r1;
        out[5 * i + 2] = r2;
        out[5 * i + 3] = r3;
        out[5 * i + 4] = r4;
    }
}
