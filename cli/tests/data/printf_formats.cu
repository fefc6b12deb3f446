// Device printf with every argument kind nvcc packs into vprintf's buffer: ints of each width, a char, string
// pointers into .nv.global.init (relocated into constant bank 4), a long long after an int (8-byte aligned),
// doubles, a float promoted to double, a null pointer, and a literal percent sign. Test input for
// cli/tests/externs.rs (not part of the silicon corpus). Built with:
//   nvcc -cubin -arch=sm_86 -O3 -o printf_formats.cubin printf_formats.cu

#include <cstdio>

extern "C" __global__ void printf_formats(const int *ip, const double *dp, long long big, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    const char *name = (i & 1) ? "odd" : "even";
    printf("%d|%5i|%-4u|%x|%X|%o|%c|%s|%lld|%f|%.3e|%g|%p|%%\n", ip[i], i, (unsigned)i * 3u, ip[i], ip[i], i,
           'a' + i, name, big + i, dp[i], dp[i], dp[i] * 1e10, (void *)0);
    printf("float %f then int %d and %-6s|\n", (float)dp[i], -i, name);
}
