// Cooperative-groups partitions whose groups interleave the lanes of a warp (`cg::labeled_partition`,
// `cg::binary_partition`), reduced at the same pc by every group (REDUX after WARPSYNC.EXCLUSIVE on each
// group's mask). Not run in the turns form yet (cli/tests/coop_tiles.rs says why); results are independent
// of scheduling.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

extern "C" __global__ void labeled_reduce(const unsigned *in, unsigned *out, int n)
{
    // SASS: cg::labeled_partition (MATCH.ANY) and cg::binary_partition (VOTE.ANY) of a warp into groups whose
    // lanes interleave, each reduced while the others reduce at the same pc: REDUX.SUM.S32, REDUX.MAX and
    // REDUX.XOR after WARPSYNC.EXCLUSIVE on the group masks; thread_rank and size (POPC)
    cg::thread_block b = cg::this_thread_block();
    unsigned i = blockIdx.x * blockDim.x + b.thread_rank();
    unsigned x = in[i];
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
    cg::coalesced_group by_value = cg::labeled_partition(w, x & 3u);
    unsigned r0 = (unsigned)cg::reduce(by_value, (int)(x >> 4), cg::plus<int>());
    unsigned r1 = cg::reduce(by_value, x, cg::greater<unsigned>());
    unsigned r2 = by_value.thread_rank() | (by_value.size() << 8);
    cg::coalesced_group parity = cg::binary_partition(w, (b.thread_rank() & 1u) != 0u);
    unsigned r3 = (unsigned)cg::reduce(parity, (int)x, cg::plus<int>());
    unsigned r4 = cg::reduce(parity, x >> 2, cg::bit_xor<unsigned>());
    if ((int)i < n) {
        out[5 * i + 0] = r0;
        out[5 * i + 1] = r1;
        out[5 * i + 2] = r2;
        out[5 * i + 3] = r3;
        out[5 * i + 4] = r4;
    }
}
