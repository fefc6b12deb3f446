// The device heap: malloc/free and new/delete in kernels, calls to the extern functions `malloc` and `free`
// that the CUDA driver provides (reached like vprintf through addresses relocated into constant bank 4).
// Pointers the heap hands out are never written out (they differ between runs and implementations); only
// values computed through them, their 16-byte alignment and whether a request failed. Every kernel frees
// what it allocates, so the heap is the same for each launch and for the next kernel.

#include <cstddef>
#include <cstdint>

struct Node {
    unsigned value;
    Node *next;
};

extern "C" __global__ void heap_per_thread(const unsigned *in, unsigned *out, int n)
{
    // SASS: CALL.ABS.NOINC to malloc and free (through registers loaded from c[0x4]), in divergent code and
    // loops; new[]/delete[] and new/delete of a struct
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[i];
    unsigned words = 1u + (x & 63u);
    unsigned *a = static_cast<unsigned *>(malloc(words * sizeof(unsigned)));
    unsigned sum = 0, aligned = 0, failed = 0;
    if (a == nullptr) {
        failed = 1;
    } else {
        aligned = (reinterpret_cast<uintptr_t>(a) & 15u) == 0;
        for (unsigned k = 0; k < words; k++) a[k] = x * (k + 1u) ^ (k << 3);
        for (unsigned k = 0; k < words; k++) sum += a[(k * 7u) % words] * (k | 1u);
        free(a);
    }
    // A linked list of 1..8 nodes, allocated one by one, walked, freed in order: blocks go back to the heap
    // and come out again within the same thread.
    Node *head = nullptr;
    unsigned count = 1u + ((x >> 8) & 7u);
    for (unsigned k = 0; k < count; k++) {
        Node *node = new Node;
        if (node == nullptr) { failed |= 2; break; }
        node->value = x + k * 0x9e3779b9u;
        node->next = head;
        head = node;
    }
    unsigned walk = 0;
    while (head != nullptr) {
        Node *next = head->next;
        walk = walk * 31u + head->value;
        delete head;
        head = next;
    }
    // new[] of a size that depends on the input; delete[].
    int m = 3 + (int)((x >> 12) & 15u);
    unsigned long long *w = new unsigned long long[m];
    unsigned long long acc = 0;
    if (w == nullptr) {
        failed |= 4;
    } else {
        for (int k = 0; k < m; k++) w[k] = (unsigned long long)x * (unsigned long long)(k + 1) ^ (unsigned)k;
        for (int k = m - 1; k >= 0; k--) acc = acc * 3u + w[k];
        delete[] w;
    }
    if (i < n) {
        out[5 * i + 0] = sum;
        out[5 * i + 1] = walk;
        out[5 * i + 2] = (unsigned)acc ^ (unsigned)(acc >> 32);
        out[5 * i + 3] = aligned;
        out[5 * i + 4] = failed;
    }
}

extern "C" __global__ void heap_block_shared(const unsigned *in, unsigned *out, int n)
{
    // SASS: malloc by one thread of the block, the pointer handed to the others through shared memory, free
    // by another thread after a barrier
    __shared__ unsigned *buffer;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) buffer = static_cast<unsigned *>(malloc(blockDim.x * 2 * sizeof(unsigned)));
    __syncthreads();
    unsigned *b = buffer;
    unsigned x = in[i];
    unsigned r = 0xffffffffu;
    if (b != nullptr) {
        b[t] = x;
        b[blockDim.x + t] = x * 3u + 1u;
        __syncthreads();
        r = b[(t + 5) % blockDim.x] + b[blockDim.x + (t * 3) % blockDim.x];
        __syncthreads();
        if (t == blockDim.x - 1) free(b);
    }
    if (i < n) out[i] = r;
}

extern "C" __global__ void heap_exhaustion(unsigned *out)
{
    // SASS: malloc returning null when the 8 MiB default heap cannot hold the request, a freed block reused,
    // malloc(0), free(nullptr). One thread, so the order of requests is fixed.
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const size_t mib3 = (size_t)3 << 20;
    char *p1 = static_cast<char *>(malloc(mib3));
    char *p2 = static_cast<char *>(malloc(mib3));
    char *p3 = static_cast<char *>(malloc(mib3)); // 9 MiB in all: does not fit
    out[0] = p1 != nullptr;
    out[1] = p2 != nullptr;
    out[2] = p3 != nullptr;
    if (p3 != nullptr) free(p3);
    unsigned check = 0;
    if (p1 != nullptr) {
        p1[0] = 7; p1[mib3 - 1] = 9;
        check += p1[0] * 10 + p1[mib3 - 1];
        free(p1);
    }
    char *p4 = static_cast<char *>(malloc(mib3)); // fits again after the free
    out[3] = p4 != nullptr;
    if (p2 != nullptr && p4 != nullptr) {
        for (size_t k = 0; k < mib3; k += 4096) { p2[k] = (char)(k >> 12); p4[k] = (char)(k >> 13); }
        for (size_t k = 0; k < mib3; k += 4096) check += (unsigned char)p2[k] + 3u * (unsigned char)p4[k];
    }
    out[4] = check;
    if (p2 != nullptr) free(p2);
    if (p4 != nullptr) free(p4);
    void *huge = malloc((size_t)64 << 20);
    out[5] = huge != nullptr;
    if (huge != nullptr) free(huge);
    void *big = malloc((size_t)1 << 40);
    out[6] = big != nullptr;
    if (big != nullptr) free(big);
    free(nullptr);
    // After everything was freed, 6 MiB fit again.
    void *q1 = malloc(mib3);
    void *q2 = malloc(mib3);
    out[7] = (q1 != nullptr) + (q2 != nullptr);
    free(q1);
    free(q2);
    // malloc(0): null or a block free() takes (CUDA leaves it open; the golden says which); two are distinct.
    void *z1 = malloc(0);
    void *z2 = malloc(0);
    out[8] = z1 != nullptr;
    out[9] = z1 != nullptr && z1 == z2;
    out[10] = (reinterpret_cast<uintptr_t>(z1) & 15u) == 0;
    free(z1);
    free(z2);
    // Alignment of odd sizes: every pointer is 16-byte aligned.
    unsigned aligned = 0;
    for (unsigned k = 1; k <= 40; k += 3) {
        void *p = malloc(k);
        aligned += p != nullptr && (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
        free(p);
    }
    out[11] = aligned;
}
