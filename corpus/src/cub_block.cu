// CUB's block- and warp-level collectives (the headers of the pinned nvidia-cuda-cccl, Apache-2.0 with the
// LLVM exception), instantiated the way library users write them: BlockLoad/BlockStore with warp
// transposes, BlockReduce (both algorithms), BlockScan (raking and warp scans, inclusive and exclusive,
// with a block aggregate), BlockRadixSort of keys and of key/value pairs, BlockHistogram, WarpReduce and
// WarpScan, BlockDiscontinuity. Integer data keeps every result order-independent and exact.
// Launch with 128 threads per block (the template parameters say so); out-of-range items read as 0.

#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

constexpr int THREADS = 128;
constexpr int ITEMS = 4;
constexpr int TILE = THREADS * ITEMS;

extern "C" __global__ void cub_block_reduce(const int *in, int *out, int n)
{
    // SASS: BlockLoad (warp transpose: STS/LDS through shared), BlockReduce with warp reductions and raking
    // (SHFL.DOWN trees, BAR.SYNC, predicated partial-tile reductions), per-block STG by thread 0
    using Load = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using ReduceW = cub::BlockReduce<int, THREADS, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
    using ReduceR = cub::BlockReduce<int, THREADS, cub::BLOCK_REDUCE_RAKING>;
    __shared__ union {
        typename Load::TempStorage load;
        typename ReduceW::TempStorage w;
        typename ReduceR::TempStorage r;
    } tmp;
    int base = blockIdx.x * TILE;
    int valid = min(max(n - base, 0), TILE);
    int items[ITEMS];
    Load(tmp.load).Load(in + base, items, valid, 0);
    __syncthreads();
    int sum = ReduceW(tmp.w).Sum(items);
    __syncthreads();
    int mx = ReduceR(tmp.r).Reduce(items, cuda::maximum<>{});
    __syncthreads();
    // A partial reduction over the first `valid / ITEMS` threads' first items.
    int part = ReduceR(tmp.r).Sum(items[0], valid / ITEMS);
    __syncthreads();
    unsigned x = (unsigned)items[0] ^ (unsigned)items[3];
    unsigned xr = ReduceW(tmp.w).Reduce(x, [](unsigned a, unsigned b) { return a ^ b; });
    if (threadIdx.x == 0) {
        out[blockIdx.x * 4 + 0] = sum;
        out[blockIdx.x * 4 + 1] = mx;
        out[blockIdx.x * 4 + 2] = part;
        out[blockIdx.x * 4 + 3] = (int)xr;
    }
}

extern "C" __global__ void cub_block_scan(const int *in, int *out, int *aggregates, int n)
{
    // SASS: BlockScan raking and warp scans (SHFL.UP, shared raking grids, BAR.SYNC), inclusive and
    // exclusive sums with block aggregates, a max scan, BlockStore with a warp transpose
    using Load = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
    using ScanR = cub::BlockScan<int, THREADS, cub::BLOCK_SCAN_RAKING>;
    using ScanW = cub::BlockScan<int, THREADS, cub::BLOCK_SCAN_WARP_SCANS>;
    using Store = cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename ScanR::TempStorage r;
        typename ScanW::TempStorage w;
        typename Store::TempStorage store;
    } tmp;
    int base = blockIdx.x * TILE;
    int valid = min(max(n - base, 0), TILE);
    int items[ITEMS];
    Load(tmp.load).Load(in + base, items, valid, 0);
    __syncthreads();
    int agg_r, agg_w;
    int incl[ITEMS], excl[ITEMS], mx[ITEMS];
    ScanR(tmp.r).InclusiveSum(items, incl, agg_r);
    __syncthreads();
    ScanW(tmp.w).ExclusiveSum(items, excl, agg_w);
    __syncthreads();
    ScanW(tmp.w).InclusiveScan(items, mx, cuda::maximum<>{});
    __syncthreads();
    int mixed[ITEMS];
    for (int k = 0; k < ITEMS; k++) mixed[k] = incl[k] ^ (excl[k] * 3) ^ (mx[k] << 1);
    Store(tmp.store).Store(out + base, mixed, valid);
    if (threadIdx.x == 0) {
        aggregates[blockIdx.x * 2 + 0] = agg_r;
        aggregates[blockIdx.x * 2 + 1] = agg_w;
    }
}

extern "C" __global__ void cub_radix_sort(const unsigned *keys_in, const int *vals_in, unsigned *keys_out,
                                          int *vals_out, int n)
{
    // SASS: BlockRadixSort: per-digit BlockRadixRank (match/ballot-free counting in shared memory, scans
    // with SHFL.UP, digit extraction via SHF/LOP3), scatters to shared (STS/LDS), key/value pairs,
    // a descending sort over a bit range; padding keys are all ones so they sort last
    using Sort = cub::BlockRadixSort<unsigned, THREADS, ITEMS, int>;
    using SortK = cub::BlockRadixSort<unsigned, THREADS, ITEMS>;
    using LoadK = cub::BlockLoad<unsigned, THREADS, ITEMS, cub::BLOCK_LOAD_DIRECT>;
    using LoadV = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_DIRECT>;
    __shared__ union {
        typename Sort::TempStorage sort;
        typename SortK::TempStorage sortk;
    } tmp;
    int base = blockIdx.x * TILE;
    int valid = min(max(n - base, 0), TILE);
    unsigned keys[ITEMS];
    int vals[ITEMS];
    LoadK().Load(keys_in + base, keys, valid, 0xffffffffu);
    LoadV().Load(vals_in + base, vals, valid, 0);
    unsigned keys2[ITEMS];
    for (int k = 0; k < ITEMS; k++) keys2[k] = keys[k];
    // Keys equal in the sorted bits keep their input order (the sort is stable), so values are exact.
    Sort(tmp.sort).SortBlockedToStriped(keys, vals);
    __syncthreads();
    for (int k = 0; k < ITEMS; k++) {
        int at = base + k * THREADS + (int)threadIdx.x;
        if (at < n) {
            keys_out[2 * at] = keys[k];
            vals_out[at] = vals[k];
        }
    }
    // Descending on bits [4, 20) only.
    SortK(tmp.sortk).SortDescending(keys2, 4, 20);
    for (int k = 0; k < ITEMS; k++) {
        int at = base + (int)threadIdx.x * ITEMS + k;
        if (at < n) keys_out[2 * at + 1] = keys2[k];
    }
}

extern "C" __global__ void cub_histogram_discontinuity(const unsigned char *in, unsigned *hist, int *flags, int n)
{
    // SASS: BlockHistogram by sorting and by atomics (ATOMS.POPC.INC on shared bins, BlockRadixSort of bytes and
    // discontinuity run lengths), BlockDiscontinuity FlagHeads/FlagTails (neighbour exchange through STS/LDS),
    // RED.ADD of the block's bins into the global histogram
    using HistA = cub::BlockHistogram<unsigned char, THREADS, ITEMS, 256, cub::BLOCK_HISTO_ATOMIC>;
    using HistS = cub::BlockHistogram<unsigned char, THREADS, ITEMS, 256, cub::BLOCK_HISTO_SORT>;
    using Disc = cub::BlockDiscontinuity<unsigned char, THREADS>;
    __shared__ unsigned bins_a[256];
    __shared__ unsigned bins_s[256];
    __shared__ union {
        typename HistA::TempStorage a;
        typename HistS::TempStorage s;
        typename Disc::TempStorage d;
    } tmp;
    int base = blockIdx.x * TILE;
    unsigned char items[ITEMS];
    for (int k = 0; k < ITEMS; k++) {
        int at = base + (int)threadIdx.x * ITEMS + k;
        // Bytes folded into 16 values so runs and repeated bins occur; the tail pads with 0.
        items[k] = at < n ? (unsigned char)(in[at] & 0x0f) : 0;
    }
    HistA(tmp.a).Histogram(items, bins_a);
    __syncthreads();
    HistS(tmp.s).Histogram(items, bins_s);
    __syncthreads();
    int heads[ITEMS], tails[ITEMS];
    Disc(tmp.d).FlagHeadsAndTails(heads, tails, items, cuda::std::not_equal_to<>{});
    for (int k = 0; k < ITEMS; k++) {
        int at = base + (int)threadIdx.x * ITEMS + k;
        if (at < n) flags[at] = heads[k] | (tails[k] << 1);
    }
    for (int b = threadIdx.x; b < 256; b += THREADS) {
        if (bins_a[b]) atomicAdd(&hist[b], bins_a[b]);
        if (bins_s[b]) atomicAdd(&hist[256 + b], bins_s[b]);
    }
}

extern "C" __global__ void cub_warp_collectives(const int *in, int *out, int n)
{
    // SASS: WarpReduce (REDUX-free SHFL.DOWN trees with lane guards for partial reductions), WarpReduce on
    // 16-lane logical warps, segmented reductions (head flags: ballot + BREV/FLO lane arithmetic), WarpScan
    // inclusive/exclusive with SHFL.UP
    using WR = cub::WarpReduce<int>;
    using WR16 = cub::WarpReduce<int, 16>;
    using WS = cub::WarpScan<int>;
    __shared__ typename WR::TempStorage wr[THREADS / 32];
    __shared__ typename WR16::TempStorage wr16[THREADS / 16];
    __shared__ typename WS::TempStorage ws[THREADS / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = threadIdx.x / 32;
    int v = i < n ? in[i] : 0;
    int s = WR(wr[warp]).Sum(v);
    int m = WR(wr[warp]).Reduce(v, cuda::minimum<>{});
    // Only the first (in[block] & 31) + 1 lanes take part.
    int valid = (blockIdx.x < (unsigned)n ? (in[blockIdx.x] & 31) : 0) + 1;
    int p = WR(wr[warp]).Sum(v, valid);
    int s16 = WR16(wr16[threadIdx.x / 16]).Sum(v);
    int head = (v & 7) == 0 || (threadIdx.x & 31) == 0;
    int seg = WR(wr[warp]).HeadSegmentedSum(v, head);
    int incl, excl;
    WS(ws[warp]).InclusiveSum(v, incl);
    WS(ws[warp]).ExclusiveScan(v, excl, 0, cuda::maximum<>{});
    if (i < n) {
        out[i * 6 + 0] = (threadIdx.x & 31) == 0 ? s : incl;
        out[i * 6 + 1] = (threadIdx.x & 31) == 0 ? m : excl;
        out[i * 6 + 2] = (threadIdx.x & 31) == 0 ? p : 0;
        out[i * 6 + 3] = (threadIdx.x & 15) == 0 ? s16 : 0;
        out[i * 6 + 4] = head ? seg : 0;
        out[i * 6 + 5] = incl - excl;
    }
}
