// A deliberately big kernel (20,278 reachable SASS instructions) for translator/benches/translate.rs: the
// per-instruction cost of translating it must not exceed a small kernel's (no superlinear pass). A fully
// unrolled loop whose body mixes float and integer arithmetic, loads, data-dependent branches, shuffles and
// shared memory. ptxas turns every branch into predication and selects: the CFG is 2 blocks, so this
// measures decoding, lowering and emission (3.98 M words, warps in turns), not the structurizer.
// Built by hand (our source):
//   nvcc -cubin -arch=sm_86 -O3 -o big_unrolled.sm86.cubin big_unrolled.cu
// Never launched; its results mean nothing.

extern "C" __global__ void big_unrolled(const float *in, const int *idx, float *out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i % n], y = in[(i + 1) % n];
    int a = idx[i % n];
    s[threadIdx.x] = x;
    __syncthreads();
#define STEP(k)                                                                                        \
    x = fmaf(x, 1.0f + (k) * 0x1p-10f, y);                                                             \
    a = a * (2 * (k) + 1) ^ (a >> ((k) & 7));                                                          \
    if (x > (float)(k)) {                                                                              \
        y += s[(a + (k)) & 255];                                                                       \
    } else {                                                                                           \
        y = y * 0.5f - (float)(a & 0xff);                                                              \
    }                                                                                                  \
    if (((k) & 15) == 15) {                                                                            \
        y += __shfl_xor_sync(0xffffffffu, y, (k) & 31);                                                \
        x += in[(a & 0x7fffffff) % n];                                                                 \
    }
#define STEP10(k) STEP(k) STEP(k + 1) STEP(k + 2) STEP(k + 3) STEP(k + 4) STEP(k + 5) STEP(k + 6) STEP(k + 7) \
    STEP(k + 8) STEP(k + 9)
#define STEP100(k) STEP10(k) STEP10(k + 10) STEP10(k + 20) STEP10(k + 30) STEP10(k + 40) STEP10(k + 50)   \
    STEP10(k + 60) STEP10(k + 70) STEP10(k + 80) STEP10(k + 90)
#define STEP1000(k) STEP100(k) STEP100(k + 100) STEP100(k + 200) STEP100(k + 300) STEP100(k + 400)       \
    STEP100(k + 500) STEP100(k + 600) STEP100(k + 700) STEP100(k + 800) STEP100(k + 900)
    // Macros, not `#pragma unroll`: the same code, written out (4,800 steps of about 4.2 instructions).
    STEP1000(0) STEP1000(1000) STEP1000(2000) STEP1000(3000) STEP100(4000) STEP100(4100) STEP100(4200)
    STEP100(4300) STEP100(4400) STEP100(4500) STEP100(4600) STEP100(4700)
    out[i] = x + y + (float)a;
}
