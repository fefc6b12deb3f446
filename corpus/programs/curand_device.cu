// cuRAND's device API (XORWOW, the default generator): each thread calls curand_init with its own
// subsequence and an offset, then draws raw 32-bit numbers and uniforms. The host checks every value against
// its own implementation of XORWOW from the generator's public definition (Marsaglia's xorwow with a Weyl
// sequence; curand_init's seed scrambling; a subsequence is 2^67 steps, skipped with the state transition
// matrix over GF(2)), so nothing is compared with cuRAND's or sassport's own output. Prints PASS or FAIL.
#include <curand_kernel.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

const int kThreads = 256;
const int kDraws = 8;
const unsigned long long kSeed = 0x1234567890abcdefULL;
const unsigned long long kOffset = 5;

__global__ void draw(unsigned *raw, float *uniform, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState s;
    // Subsequences 0..n-1 spread over a large range so that the skip uses many matrix powers.
    curand_init(kSeed, (unsigned long long)i * 977u, kOffset, &s);
    for (int k = 0; k < kDraws; ++k) raw[i * kDraws + k] = curand(&s);
    for (int k = 0; k < kDraws; ++k) uniform[i * kDraws + k] = curand_uniform(&s);
}

// ---- host XORWOW ----
struct Xorwow {
    uint32_t v[5];
    uint32_t d;
};

static uint32_t next(Xorwow &s) {
    uint32_t t = s.v[0] ^ (s.v[0] >> 2);
    s.v[0] = s.v[1];
    s.v[1] = s.v[2];
    s.v[2] = s.v[3];
    s.v[3] = s.v[4];
    s.v[4] = (s.v[4] ^ (s.v[4] << 4)) ^ (t ^ (t << 1));
    s.d += 362437;
    return s.v[4] + s.d;
}

// The 160-bit state v as a bit vector; a matrix is 160 columns, column j = image of basis vector j.
struct Mat {
    uint32_t col[160][5];
};

static void step_v(uint32_t v[5]) {
    Xorwow s;
    memcpy(s.v, v, sizeof s.v);
    s.d = 0;
    next(s);
    memcpy(v, s.v, sizeof s.v);
}

static void apply(const Mat &m, const uint32_t in[5], uint32_t out[5]) {
    uint32_t r[5] = {0, 0, 0, 0, 0};
    for (int j = 0; j < 160; ++j)
        if ((in[j / 32] >> (j % 32)) & 1)
            for (int w = 0; w < 5; ++w) r[w] ^= m.col[j][w];
    memcpy(out, r, sizeof r);
}

static Mat multiply(const Mat &a, const Mat &b) {  // a after b
    Mat c;
    for (int j = 0; j < 160; ++j) apply(a, b.col[j], c.col[j]);
    return c;
}

static Mat one_step() {
    Mat m;
    for (int j = 0; j < 160; ++j) {
        uint32_t v[5] = {0, 0, 0, 0, 0};
        v[j / 32] = 1u << (j % 32);
        step_v(v);
        memcpy(m.col[j], v, sizeof v);
    }
    return m;
}

// m^(2^k) for k = 0..63, so that m^e is a product of the powers for e's bits.
struct Powers {
    std::vector<Mat> p;
    Powers(Mat m, int count) {
        for (int k = 0; k < count; ++k) {
            p.push_back(m);
            m = multiply(m, m);
        }
    }
};

// Applies m^e to v.
static void apply_power(const Powers &m, unsigned long long e, uint32_t v[5]) {
    for (int k = 0; e; ++k, e >>= 1)
        if (e & 1) apply(m.p[k], v, v);
}

static Xorwow host_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        const Powers &step, const Powers &sequence_step) {
    uint32_t s0 = (uint32_t)seed ^ 0xaad26b49u;
    uint32_t s1 = (uint32_t)(seed >> 32) ^ 0xf7dcefddu;
    uint32_t t0 = 1099087573u * s0;
    uint32_t t1 = 2591861531u * s1;
    Xorwow s;
    s.d = 6615241u + t1 + t0;
    s.v[0] = 123456789u + t0;
    s.v[1] = 362436069u ^ t0;
    s.v[2] = 521288629u + t1;
    s.v[3] = 88675123u ^ t1;
    s.v[4] = 5783321u + t0;
    apply_power(sequence_step, subsequence, s.v);  // 2^67 steps each; d moves by a multiple of 2^32
    apply_power(step, offset, s.v);
    s.d += 362437u * (uint32_t)offset;
    return s;
}

int main() {
    const int n = kThreads * 4;
    unsigned *draw_raw;
    float *draw_uniform;
    CHECK(cudaMalloc(&draw_raw, n * kDraws * sizeof(unsigned)));
    CHECK(cudaMalloc(&draw_uniform, n * kDraws * sizeof(float)));
    draw<<<n / kThreads, kThreads>>>(draw_raw, draw_uniform, n);
    CHECK(cudaGetLastError());
    std::vector<unsigned> raw(n * kDraws);
    std::vector<float> uniform(n * kDraws);
    CHECK(cudaMemcpy(raw.data(), draw_raw, raw.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(uniform.data(), draw_uniform, uniform.size() * sizeof(float), cudaMemcpyDeviceToHost));

    Mat m = one_step();
    Powers step(m, 8);
    for (int k = 0; k < 67; ++k) m = multiply(m, m);
    Powers sequence_step(m, 24);

    int bad_raw = 0, bad_uniform = 0;
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        Xorwow s = host_init(kSeed, (unsigned long long)i * 977u, kOffset, step, sequence_step);
        for (int k = 0; k < kDraws; ++k) {
            unsigned want = next(s);
            if (raw[i * kDraws + k] != want) {
                if (bad_raw < 5) printf("raw[%d][%d] = %u, want %u\n", i, k, raw[i * kDraws + k], want);
                ++bad_raw;
            }
        }
        for (int k = 0; k < kDraws; ++k) {
            unsigned x = next(s);
            // curand_uniform: x * 2^-32 + 2^-33 in float; nvcc may fuse it into one FMA, so both roundings
            // are accepted.
            float separate = (float)x * 2.3283064e-10f;
            separate = separate + 2.3283064e-10f / 2.0f;
            float fused = fmaf((float)x, 2.3283064e-10f, 2.3283064e-10f / 2.0f);
            float got = uniform[i * kDraws + k];
            sum += got;
            if (got != separate && got != fused) {
                if (bad_uniform < 5) printf("uniform[%d][%d] = %.9g, want %.9g\n", i, k, got, fused);
                ++bad_uniform;
            }
            if (!(got > 0.0f && got <= 1.0f)) ++bad_uniform;
        }
    }
    double mean = sum / (n * kDraws);
    printf("curand: %d raw and %d uniform values wrong of %d each; uniform mean %.4f\n", bad_raw, bad_uniform,
           n * kDraws, mean);
    bool ok = bad_raw == 0 && bad_uniform == 0 && std::fabs(mean - 0.5) < 0.02;
    CHECK(cudaFree(draw_raw));
    CHECK(cudaFree(draw_uniform));
    printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
}
