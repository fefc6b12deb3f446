// Stream features public programs use: host functions in stream order (cudaLaunchHostFunc and
// cudaStreamAddCallback), stream-ordered allocation (cudaMallocAsync/cudaFreeAsync, the device's default
// memory pool and its attributes, a pool of our own), and cooperative groups inside a block (thread_block,
// tiled_partition with shuffles and reductions) on two streams with an event between them. Every result is
// checked on the host. Prints PASS or FAIL.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdio>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

// Per block: the sum of its elements through 32-thread tiles (cg::reduce), then thread 0 adds the tiles'.
__global__ void block_sums(const int *in, int *out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ int tile_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int s = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = s;
    block.sync();
    if (block.thread_rank() == 0) {
        int total = 0;
        for (unsigned t = 0; t < tile.meta_group_size(); ++t) total += tile_sums[t];
        out[blockIdx.x] = total;
    }
}

// Each element becomes the next lane's value in its 16-thread tile (a rotation by shfl_down/shfl).
__global__ void rotate16(const int *in, int *out, int n) {
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int next = tile.shfl(v, (tile.thread_rank() + 1) % tile.size());
    if (i < n) out[i] = next;
}

__global__ void scale(int *x, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= k;
}

struct Seen {
    const int *host;  // the stream's copy-back target
    int first;        // what it held when the host function ran
    int calls;
};

static void CUDART_CB host_fn(void *p) {
    Seen *s = (Seen *)p;
    s->first = s->host[0];
    s->calls++;
}

static void CUDART_CB callback(cudaStream_t, cudaError_t status, void *p) {
    Seen *s = (Seen *)p;
    if (status == cudaSuccess) s->calls += 10;
}

int main() {
    const int n = 1 << 14, threads = 256, blocks = n / threads;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 37) % 1001 - 500;
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreate(&s2));
    int failures = 0;
    auto report = [&](const char *what, bool ok) {
        printf("%-28s %s\n", what, ok ? "ok" : "WRONG");
        failures += !ok;
    };

    // Stream-ordered allocation from the default pool.
    int *d_in, *d_sums, *d_rot;
    CHECK(cudaMallocAsync(&d_in, n * sizeof(int), s1));
    CHECK(cudaMallocAsync(&d_sums, blocks * sizeof(int), s1));
    CHECK(cudaMemcpyAsync(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1));
    block_sums<<<blocks, threads, 0, s1>>>(d_in, d_sums, n);
    CHECK(cudaGetLastError());
    std::vector<int> sums(blocks, -1);
    CHECK(cudaMemcpyAsync(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost, s1));
    // The host function runs after the copy back and before anything queued later on s1.
    Seen seen{sums.data(), -1, 0};
    CHECK(cudaLaunchHostFunc(s1, host_fn, &seen));
    CHECK(cudaStreamAddCallback(s1, callback, &seen, 0));
    cudaEvent_t done1;
    CHECK(cudaEventCreateWithFlags(&done1, cudaEventDisableTiming));
    CHECK(cudaEventRecord(done1, s1));

    // A pool of our own on s2, after s1's event.
    cudaMemPool_t pool;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    unsigned long long threshold = 1 << 20;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK(cudaStreamWaitEvent(s2, done1, 0));
    CHECK(cudaMallocFromPoolAsync(&d_rot, n * sizeof(int), pool, s2));
    rotate16<<<blocks, threads, 0, s2>>>(d_in, d_rot, n);
    CHECK(cudaGetLastError());
    scale<<<blocks, threads, 0, s2>>>(d_rot, 3, n);
    CHECK(cudaGetLastError());
    std::vector<int> rot(n, 0);
    CHECK(cudaMemcpyAsync(rot.data(), d_rot, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
    unsigned long long used = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    CHECK(cudaFreeAsync(d_rot, s2));
    CHECK(cudaFreeAsync(d_in, s2));
    CHECK(cudaFreeAsync(d_sums, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamSynchronize(s2));

    bool sums_ok = true;
    for (int b = 0; b < blocks; ++b) {
        int want = 0;
        for (int t = 0; t < threads; ++t) want += in[b * threads + t];
        sums_ok &= sums[b] == want;
    }
    report("cg::reduce block sums", sums_ok);
    report("host function order", seen.first == sums[0] && seen.calls == 11);
    bool rot_ok = true;
    for (int i = 0; i < n; ++i) {
        int base = i - i % 16;
        rot_ok &= rot[i] == 3 * in[base + (i % 16 + 1) % 16];
    }
    report("tile shuffle on a 2nd stream", rot_ok);
    report("pool used memory", used >= (unsigned long long)n * sizeof(int));

    cudaMemPool_t dflt;
    CHECK(cudaDeviceGetDefaultMemPool(&dflt, 0));
    CHECK(cudaMemPoolDestroy(pool));
    CHECK(cudaEventDestroy(done1));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    printf(failures == 0 ? "PASS\n" : "FAIL\n");
    return failures == 0 ? 0 : 1;
}
