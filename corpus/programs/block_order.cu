// Blocks that wait for earlier blocks, and shared memory larger than some devices have (docs/block-order.md).
// chained_scan: each block sums its tile, spins (volatile loads) until the block before it has published its
// inclusive prefix, then publishes its own: a chained scan, correct only if every earlier block makes
// progress while a later one waits. atomic_chained_scan waits with atomics instead; ticket_scan takes tile
// numbers from an atomic counter, as CUB's onesweep does. big_shared: 40 KiB of static shared memory (over
// lavapipe's 32 KiB) written, reduced with shared atomics and read back across a barrier by 200 blocks. All
// checked against the host. Prints PASS or FAIL.
#include <cstdio>
#include <vector>

#include "check.h"

const int kTile = 256;

// The tile's sum, computed `rounds` times over: enough work that a block waiting on the one before it spins
// for long (on lavapipe, past its loop limit unless the blocks run in ascending order).
__device__ int tile_sum(const int *in, int tile, int rounds) {
    __shared__ int partial[kTile];
    int sum = 0;
    for (int r = 0; r < rounds; ++r) {
        partial[threadIdx.x] = in[tile * kTile + threadIdx.x] + r;
        __syncthreads();
        for (int s = kTile / 2; s > 0; s /= 2) {
            if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
            __syncthreads();
        }
        sum = partial[0] - r * kTile;
        __syncthreads();
    }
    return sum;
}

// flags[t] = 1 once prefix[t] holds the sum of tiles 0..t.
__device__ void chain(int tile, int own, volatile int *prefix, volatile int *flags, int *out) {
    if (threadIdx.x == 0) {
        int before = 0;
        if (tile > 0) {
            while (flags[tile - 1] == 0) {
            }
            before = prefix[tile - 1];
        }
        prefix[tile] = before + own;
        __threadfence();
        flags[tile] = 1;
        out[tile] = before + own;
    }
}

// The same with atomics only: the wait is an atomicAdd of 0 in a loop, as hand-written flag waits often are.
__global__ void atomic_chained_scan(const int *in, int *prefix, int *flags, int *out, int rounds) {
    int own = tile_sum(in, blockIdx.x, rounds);
    int tile = blockIdx.x;
    if (threadIdx.x == 0) {
        int before = 0;
        if (tile > 0) {
            while (atomicAdd(&flags[tile - 1], 0) == 0) {
            }
            before = atomicAdd(&prefix[tile - 1], 0);
        }
        atomicExch(&prefix[tile], before + own);
        __threadfence();
        atomicExch(&flags[tile], 1);
        out[tile] = before + own;
    }
}

__global__ void chained_scan(const int *in, volatile int *prefix, volatile int *flags, int *out, int rounds) {
    int own = tile_sum(in, blockIdx.x, rounds);
    chain(blockIdx.x, own, prefix, flags, out);
}

__global__ void ticket_scan(const int *in, unsigned *ticket, volatile int *prefix, volatile int *flags,
                            int *out, int rounds) {
    __shared__ int tile;
    if (threadIdx.x == 0) tile = atomicAdd(ticket, 1u);
    __syncthreads();
    int t = tile;
    int own = tile_sum(in, t, rounds);
    chain(t, own, prefix, flags, out);
}

const int kBigWords = 10240;  // 40 KiB

__global__ void big_shared(unsigned *out) {
    __shared__ unsigned big[kBigWords];
    __shared__ unsigned total;
    if (threadIdx.x == 0) total = 0;
    for (int i = threadIdx.x; i < kBigWords; i += blockDim.x) big[i] = i * 2654435761u + blockIdx.x;
    __syncthreads();
    unsigned mine = 0;
    for (int i = threadIdx.x; i < kBigWords; i += blockDim.x) mine ^= big[kBigWords - 1 - i];
    atomicAdd(&total, mine & 0xffff);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
    if (threadIdx.x == 0) out[gridDim.x * blockDim.x + blockIdx.x] = total;
}

static int check_scan(const char *what, const std::vector<int> &in, const int *d_out, int tiles, int &failures) {
    std::vector<int> got(tiles);
    CHECK(cudaMemcpy(got.data(), d_out, tiles * sizeof(int), cudaMemcpyDeviceToHost));
    int acc = 0, bad = 0;
    for (int t = 0; t < tiles; ++t) {
        for (int k = 0; k < kTile; ++k) acc += in[t * kTile + k];
        bad += got[t] != acc;
    }
    printf("%-12s %s\n", what, bad ? "WRONG" : "ok");
    failures += bad != 0;
    return 0;
}

int main() {
    const int tiles = 24, n = tiles * kTile, rounds = 64;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 500;
    int *d_in, *d_prefix, *d_flags, *d_out;
    unsigned *d_ticket;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_prefix, tiles * sizeof(int)));
    CHECK(cudaMalloc(&d_flags, tiles * sizeof(int)));
    CHECK(cudaMalloc(&d_out, tiles * sizeof(int)));
    CHECK(cudaMalloc(&d_ticket, sizeof(unsigned)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int failures = 0;

    CHECK(cudaMemset(d_flags, 0, tiles * sizeof(int)));
    chained_scan<<<tiles, kTile>>>(d_in, d_prefix, d_flags, d_out, rounds);
    CHECK(cudaGetLastError());
    if (check_scan("chained_scan", in, d_out, tiles, failures)) return 1;

    CHECK(cudaMemset(d_flags, 0, tiles * sizeof(int)));
    atomic_chained_scan<<<tiles, kTile>>>(d_in, d_prefix, d_flags, d_out, rounds);
    CHECK(cudaGetLastError());
    if (check_scan("atomic_chain", in, d_out, tiles, failures)) return 1;

    CHECK(cudaMemset(d_flags, 0, tiles * sizeof(int)));
    CHECK(cudaMemset(d_ticket, 0, sizeof(unsigned)));
    ticket_scan<<<tiles, kTile>>>(d_in, d_ticket, d_prefix, d_flags, d_out, rounds);
    CHECK(cudaGetLastError());
    if (check_scan("ticket_scan", in, d_out, tiles, failures)) return 1;

    const int blocks = 200, threads = 128;
    unsigned *d_big;
    CHECK(cudaMalloc(&d_big, (blocks * threads + blocks) * sizeof(unsigned)));
    big_shared<<<blocks, threads>>>(d_big);
    CHECK(cudaGetLastError());
    std::vector<unsigned> got(blocks * threads + blocks);
    CHECK(cudaMemcpy(got.data(), d_big, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < blocks; ++b) {
        unsigned total = 0;
        for (int t = 0; t < threads; ++t) {
            unsigned mine = 0;
            for (int i = t; i < kBigWords; i += threads) mine ^= (kBigWords - 1 - i) * 2654435761u + b;
            bad += got[b * threads + t] != mine;
            total += mine & 0xffff;
        }
        bad += got[blocks * threads + b] != total;
    }
    printf("%-12s %s\n", "big_shared", bad ? "WRONG" : "ok");
    failures += bad != 0;

    for (void *p : {(void *)d_in, (void *)d_prefix, (void *)d_flags, (void *)d_out, (void *)d_ticket, (void *)d_big})
        CHECK(cudaFree(p));
    printf(failures == 0 ? "PASS\n" : "FAIL\n");
    return failures == 0 ? 0 : 1;
}
