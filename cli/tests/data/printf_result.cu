// What device printf returns (CUDA: the number of arguments parsed; 0 without arguments): stored per thread.
// Test input for cli/tests/externs.rs (not part of the silicon corpus). Built with:
//   nvcc -cubin -arch=sm_86 -O3 -o printf_result.cubin printf_result.cu

#include <cstdio>

extern "C" __global__ void printf_result(int *out)
{
    int i = threadIdx.x;
    int r0 = printf("plain %%d line\n");
    int r2 = printf("%d and %5.1f%%\n", i, 0.5 * i);
    int r3 = printf("%c%c%s\n", 'o', 'k', "!");
    out[3 * i] = r0;
    out[3 * i + 1] = r2;
    out[3 * i + 2] = r3;
}
