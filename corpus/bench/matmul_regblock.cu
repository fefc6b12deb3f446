// matmul_regblock from corpus/src/matmul.cu: 16x16 tiles, each thread a 2x2 register block (8x8 threads).
// Inputs and reference as matmul_tiled.
#include "bench.h"
#include "matmul_common.h"

int main(int argc, char **argv)
{
    return run_matmul(argc, argv, "matmul_regblock", true);
}
