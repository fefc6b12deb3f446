// Pitched 2-D memory: cudaMallocPitch, cudaMemcpy2D host to device and back (into a sub-rectangle of a wider
// host image), cudaMemset2D, cudaMemcpy2DAsync device to device, and a kernel indexing rows by the pitch.
// Prints PASS or FAIL.
#include <cstdio>
#include <vector>

#include "check.h"

__global__ void transpose_add(const float *in, size_t in_pitch, float *out, size_t out_pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        const float *row = (const float *)((const char *)in + y * in_pitch);
        float *col = (float *)((char *)out + x * out_pitch);
        col[y] = row[x] + 0.5f;
    }
}

int main() {
    const int w = 45, h = 30;
    std::vector<float> img(w * h);
    for (int i = 0; i < w * h; ++i) img[i] = (float)(i % 251);
    float *d_in, *d_out, *d_copy;
    size_t in_pitch, out_pitch, copy_pitch;
    CHECK(cudaMallocPitch(&d_in, &in_pitch, w * sizeof(float), h));
    CHECK(cudaMallocPitch(&d_out, &out_pitch, h * sizeof(float), w));
    CHECK(cudaMallocPitch(&d_copy, &copy_pitch, h * sizeof(float), w));
    int bad = in_pitch < w * sizeof(float) || out_pitch < h * sizeof(float);
    CHECK(cudaMemset2D(d_out, out_pitch, 0, h * sizeof(float), w));
    CHECK(cudaMemcpy2D(d_in, in_pitch, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    transpose_add<<<grid, block>>>(d_in, in_pitch, d_out, out_pitch, w, h);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2DAsync(d_copy, copy_pitch, d_out, out_pitch, h * sizeof(float), w, cudaMemcpyDeviceToDevice, 0));
    // Back into columns 2.. of a host image two floats wider than the result, leaving the border alone.
    const int wide = h + 2;
    std::vector<float> back(wide * w, -7.0f);
    CHECK(cudaMemcpy2D(back.data() + 2, wide * sizeof(float), d_copy, copy_pitch, h * sizeof(float), w,
                       cudaMemcpyDeviceToHost));
    for (int x = 0; x < w; ++x) {
        for (int y = 0; y < h; ++y) bad += back[x * wide + 2 + y] != img[y * w + x] + 0.5f;
        bad += back[x * wide] != -7.0f || back[x * wide + 1] != -7.0f;
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_copy));
    printf("%s: pitched_2d, pitches %zu/%zu, %d wrong\n", bad ? "FAIL" : "PASS", in_pitch, out_pitch, bad);
    return bad ? 1 : 0;
}
