// Code paths that leave the kernel: __trap(), assert() and printf() — common in real kernels, and the only
// corpus code that calls functions outside the cubin (__assertfail and vprintf are extern symbols the CUDA
// driver resolves, reached through addresses relocated into constant bank 4). Each path is guarded by an
// input value that the manifest's inputs never contain (the recorded goldens prove it: a trap or a failed
// assert aborts the launch), so results are the ordinary ones. out[i] = in[i] + k.

#include <cassert>
#include <cstdio>

extern "C" __global__ void trap_on_magic(const unsigned *in, unsigned *out, int n)
{
    // SASS: BPT.TRAP behind a predicated branch
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    if (x == 0xfee1deadu) __trap();
    out[i] = x + 1u;
}

extern "C" __global__ void assert_on_magic(const unsigned *in, unsigned *out, int n)
{
    // SASS: CALL.ABS.NOINC through a register loaded with LDC from constant bank 4 (the relocated address of
    // the extern __assertfail), its arguments (message, file, line, function) from c[0x4][...]
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    assert(x != 0xdeadbeefu);
    out[i] = x + 2u;
}

extern "C" __global__ void printf_on_magic(const unsigned *in, unsigned *out, int n)
{
    // SASS: the vprintf call sequence: an argument buffer on the stack (STL, the stack pointer from
    // c[0x0][0x28]), the format string's address from c[0x4][...], CALL.ABS.NOINC to the extern vprintf
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    if (x == 0xc0ffee00u) printf("thread %d saw %08x\n", i, x);
    out[i] = x + 3u;
}
