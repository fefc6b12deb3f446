// matmul_tiled from corpus/src/matmul.cu: 16x16 shared tiles, inputs mapped to integers in [-8, 7] so every sum
// is exact. Host reference: sampled entries (every 97th row and column) against an exact dot product.
#include "bench.h"
#include "matmul_common.h"

int main(int argc, char **argv)
{
    return run_matmul(argc, argv, "matmul_tiled", false);
}
