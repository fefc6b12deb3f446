// Shared by the programs: stop with FAIL (exit 1) when a CUDA runtime call fails.
#pragma once
#include <cstdio>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL: %s at line %d: %s (%s)\n", #call, __LINE__, cudaGetErrorString(e_),      \
                   cudaGetErrorName(e_));                                                          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
