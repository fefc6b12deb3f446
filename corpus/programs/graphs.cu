// CUDA graphs through the runtime API: a graph captured from two streams (cudaStreamBeginCapture, a fork and a
// join through events, kernels, cudaMemcpyAsync both ways, cudaMemsetAsync, a host function), instantiated
// once and launched several times with new host input each time; and a graph built node by node
// (cudaGraphCreate, kernel, memset, memcpy and host nodes with explicit dependencies), launched, changed with
// cudaGraphExecKernelNodeSetParams and launched again. Every result is checked against the host's. Prints
// PASS or FAIL.
#include <cstdio>
#include <vector>

#include "check.h"

__global__ void scale_add(const int *in, int *out, int n, int mul, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * mul + add;
}

__global__ void combine(const int *a, const int *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += a[i] - b[i];
}

struct HostLog {
    int calls;
    int last_seen;
    const int *watch;
};

// A host node: counts its runs and reads what the copy before it brought back (stream order).
static void CUDART_CB host_step(void *p) {
    HostLog *log = static_cast<HostLog *>(p);
    log->calls += 1;
    log->last_seen = log->watch[0];
}

static const int kN = 1000;
static const int kBlock = 128;
static const int kGrid = (kN + kBlock - 1) / kBlock;

// The captured graph, per launch: a = in*3+1 (stream 1), b = in*2 (stream 2, forked), out = memset 7, then
// out += a - b (joined), back to the host, then the host function.
static int captured(int &bad) {
    int *d_in, *d_a, *d_b, *d_out;
    CHECK(cudaMalloc(&d_in, kN * sizeof(int)));
    CHECK(cudaMalloc(&d_a, kN * sizeof(int)));
    CHECK(cudaMalloc(&d_b, kN * sizeof(int)));
    CHECK(cudaMalloc(&d_out, kN * sizeof(int)));
    // Page-locked host buffers: the graph's copies read and write them at every launch.
    int *in, *out;
    CHECK(cudaMallocHost(&in, kN * sizeof(int)));
    CHECK(cudaMallocHost(&out, kN * sizeof(int)));
    HostLog log = {0, 0, out};
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(s1, &status));
    if (status != cudaStreamCaptureStatusNone) printf("s1 captures before the capture\n"), ++bad;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CHECK(cudaStreamIsCapturing(s1, &status));
    if (status != cudaStreamCaptureStatusActive) printf("s1 not capturing\n"), ++bad;
    CHECK(cudaMemcpyAsync(d_in, in, kN * sizeof(int), cudaMemcpyHostToDevice, s1));
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaStreamIsCapturing(s2, &status));
    if (status != cudaStreamCaptureStatusActive) printf("s2 did not join the capture\n"), ++bad;
    scale_add<<<kGrid, kBlock, 0, s1>>>(d_in, d_a, kN, 3, 1);
    scale_add<<<kGrid, kBlock, 0, s2>>>(d_in, d_b, kN, 2, 0);
    CHECK(cudaMemsetAsync(d_out, 0, kN * sizeof(int), s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    combine<<<kGrid, kBlock, 0, s1>>>(d_a, d_b, d_out, kN);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(out, d_out, kN * sizeof(int), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaLaunchHostFunc(s1, host_step, &log));
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaStreamIsCapturing(s1, &status));
    if (status != cudaStreamCaptureStatusNone) printf("s1 still captures\n"), ++bad;
    if (log.calls != 0) printf("the host function ran during the capture\n"), ++bad;

    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    if (nodes != 7) printf("captured graph has %zu nodes, want 7\n", nodes), ++bad;
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < kN; ++i) in[i] = i * (round + 1) - 500;
        CHECK(cudaGraphLaunch(exec, s1));
        CHECK(cudaStreamSynchronize(s1));
        for (int i = 0; i < kN; ++i) {
            int want = (in[i] * 3 + 1) - in[i] * 2;
            if (out[i] != want) {
                if (bad < 5) printf("round %d: out[%d] = %d, want %d\n", round, i, out[i], want);
                ++bad;
            }
        }
        if (log.calls != round + 1 || log.last_seen != out[0])
            printf("round %d: host function ran %d times, saw %d\n", round, log.calls, log.last_seen), ++bad;
    }
    printf("captured graph: %zu nodes, 3 launches, host function ran %d times\n", nodes, log.calls);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_out));
    return 0;
}

// The built graph: memset(x, 3) -> kernel y = x*mul + 5 -> memcpy y to z (device to device) -> host node,
// with the memcpy also depending on a second memset of z.
static int built(int &bad) {
    int *d_x, *d_y, *d_z;
    CHECK(cudaMalloc(&d_x, kN * sizeof(int)));
    CHECK(cudaMalloc(&d_y, kN * sizeof(int)));
    CHECK(cudaMalloc(&d_z, kN * sizeof(int)));
    std::vector<int> z(kN);
    HostLog log = {0, 0, z.data()};
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));

    cudaMemsetParams ms = {};
    ms.dst = d_x;
    ms.value = 3;
    ms.elementSize = 4;
    ms.width = kN;
    ms.height = 1;
    cudaGraphNode_t set_x, set_z, kernel, copy, host;
    CHECK(cudaGraphAddMemsetNode(&set_x, graph, nullptr, 0, &ms));
    ms.dst = d_z;
    ms.value = 0xffffffffu;
    CHECK(cudaGraphAddMemsetNode(&set_z, graph, nullptr, 0, &ms));

    int n = kN, mul = 4, add = 5;
    const int *x = d_x;
    int *y = d_y;
    void *args[] = {&x, &y, &n, &mul, &add};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale_add;
    kp.gridDim = dim3(kGrid);
    kp.blockDim = dim3(kBlock);
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&kernel, graph, &set_x, 1, &kp));
    cudaGraphNode_t before_copy[] = {kernel, set_z};
    CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, before_copy, 2, d_z, d_y, kN * sizeof(int),
                                   cudaMemcpyDeviceToDevice));
    cudaHostNodeParams hp = {host_step, &log};
    CHECK(cudaGraphAddHostNode(&host, graph, nullptr, 0, &hp));
    CHECK(cudaGraphAddDependencies(graph, &copy, &host, nullptr, 1));

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (int round = 0; round < 2; ++round) {
        if (round == 1) {
            mul = -7;  // arguments are copied when set: the node takes the new value only through the call
            CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel, &kp));
        }
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(z.data(), d_z, kN * sizeof(int), cudaMemcpyDeviceToHost));
        int want = 3 * mul + 5;
        for (int i = 0; i < kN; ++i) {
            if (z[i] != want) {
                if (bad < 5) printf("built round %d: z[%d] = %d, want %d\n", round, i, z[i], want);
                ++bad;
            }
        }
        if (log.calls != round + 1) printf("built round %d: host node ran %d times\n", round, log.calls), ++bad;
    }
    // The kernel node now reads y itself, which holds 3*(-7)+5 = -16 from the last launch.
    x = d_y;
    mul = 2;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel, &kp));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(z.data(), d_z, kN * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i) {
        if (z[i] != -16 * 2 + 5) {
            if (bad < 5) printf("built round 2: z[%d] = %d, want %d\n", i, z[i], -16 * 2 + 5);
            ++bad;
        }
    }
    printf("built graph: 5 nodes, 3 launches, kernel parameters changed twice\n");
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_z));
    return 0;
}

int main() {
    int bad = 0;
    if (captured(bad) != 0) return 1;
    if (built(bad) != 0) return 1;
    printf(bad == 0 ? "PASS\n" : "FAIL\n");
    return bad == 0 ? 0 : 1;
}
