// Cooperative groups: the block barrier of `this_thread_block().sync()` and `cg::sync`, which nvcc emits as
// `barrier.sync 0` (SASS BAR.SYNC without .DEFER_BLOCKING, unlike __syncthreads()'s `bar.sync 0`), and the
// warp tiles of `tiled_partition` with `cg::reduce` and the tile's own shuffles and votes. Results are
// independent of scheduling; every thread reaches every barrier (bounds are checked only at the stores).

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_block_rotate(const unsigned *in, unsigned *out, int n)
{
    // SASS: BAR.SYNC 0x0 (no .DEFER_BLOCKING) in straight code and in a loop; thread_rank, size, group_index
    __shared__ unsigned s[256];
    cg::thread_block b = cg::this_thread_block();
    unsigned t = b.thread_rank();
    unsigned size = b.size();
    unsigned i = blockIdx.x * blockDim.x + t;
    unsigned x = in[i];
    for (unsigned r = 0; r < 4; r++) {
        s[t] = x;
        b.sync();
        x = s[(t + 1u + 7u * r) % size] * 3u + (x ^ r);
        cg::sync(b);
    }
    s[t] = x;
    b.sync();
    unsigned y = s[size - 1u - t];
    if ((int)i < n) {
        out[2 * i] = x + y;
        out[2 * i + 1] = size ^ (b.group_index().x << 16) ^ (b.thread_index().x << 8);
    }
}

extern "C" __global__ void cg_tile_reduce(const unsigned *in, unsigned *out, int n)
{
    // SASS: tiles of 8, 16 and 32 threads: cg::reduce (SHFL.BFLY trees with BRA.DIV and the shuffle helper
    // CALLs, REDUX.MAX and REDUX.XOR over the whole warp), tile shuffles and ballots, meta_group_rank;
    // BAR.SYNC 0x0.
    // (A REDUX over part of a warp comes with WARPSYNC.EXCLUSIVE, which sassport does not model yet.)
    __shared__ unsigned s[256];
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned x = in[i];
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(b);
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(b);
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(b);
    unsigned sum8 = cg::reduce(t8, x, cg::plus<unsigned>());
    unsigned min16 = cg::reduce(t16, x ^ 0x5555u, [](unsigned p, unsigned q) { return p < q ? p : q; });
    unsigned max32 = cg::reduce(t32, x, cg::greater<unsigned>());
    unsigned xor32 = cg::reduce(t32, x >> 3, cg::bit_xor<unsigned>());
    unsigned down = t16.shfl_down(x, 3);
    unsigned ballot = t32.ballot((x & 3u) == 1u);
    s[b.thread_rank()] = sum8 ^ min16 ^ max32;
    b.sync();
    unsigned other = s[(b.thread_rank() + 8u) % b.size()];
    if ((int)i < n) {
        out[6 * i + 0] = sum8;
        out[6 * i + 1] = min16 + max32;
        out[6 * i + 2] = xor32;
        out[6 * i + 3] = down + (t8.meta_group_rank() << 24) + (t16.thread_rank() << 16);
        out[6 * i + 4] = ballot;
        out[6 * i + 5] = other;
    }
}
