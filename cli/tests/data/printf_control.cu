// Device printf and assert inside control flow: in a loop nvcc unrolls (one vprintf call site per copy), in a
// non-inlined device function called from two places, and an assert after the loop. Test input for
// cli/tests/externs.rs (not part of the silicon corpus). Built with:
//   nvcc -cubin -arch=sm_86 -O3 -o printf_control.cubin printf_control.cu

#include <cstdio>
#include <cassert>
extern "C" __global__ void printf_loop(const int *a, int n)
{
    int i = threadIdx.x;
    for (int k = 0; k < n; k++) {
        if (a[k] == i) printf("thread %d found %d at %d\n", i, a[k], k);
    }
    assert(n < 100);
}
__device__ __noinline__ void report(int v) { printf("report %d\n", v); }
extern "C" __global__ void printf_in_function(const int *a, int n)
{
    int i = threadIdx.x;
    if (i < n) report(a[i]);
    if (i == 0) report(-1);
}
