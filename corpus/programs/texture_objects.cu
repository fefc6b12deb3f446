// Texture and surface objects through the CUDA runtime: cudaMallocArray + cudaMemcpy2DToArray, a texture object
// over the array (point filter, clamp to edge, unnormalized coordinates, in and outside the array), one over a
// two-texel float array with the linear filter at quarter-texel positions (weights k/4, exact whatever the
// filter's rounding), tex1Dfetch over linear memory, and surf2Dwrite into a surface array read back with
// cudaMemcpy2DFromArray. Every result is checked against a host computation. Prints PASS or FAIL.
#include <cstdio>
#include <vector>

#include "check.h"

__global__ void sample_point(cudaTextureObject_t t, float *out, int w, int h) {
    // Coordinates from -2 to w+1 (and h+1): texel centres, and clamped positions outside.
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w + 4 && y < h + 4) out[y * (w + 4) + x] = tex2D<float>(t, x - 2 + 0.5f, y - 2 + 0.5f);
}

__global__ void sample_linear(cudaTextureObject_t t, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, 0.5f + 0.25f * i, 0.5f);
}

__global__ void fetch_linear(cudaTextureObject_t t, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<unsigned>(t, i);
}

__global__ void write_surface(cudaSurfaceObject_t s, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) surf2Dwrite<unsigned>(x * 1000u + y, s, x * 4, y);
}

static cudaTextureObject_t make_texture(cudaResourceDesc &res, cudaTextureFilterMode filter) {
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = filter;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    cudaTextureObject_t t = 0;
    if (cudaCreateTextureObject(&t, &res, &td, nullptr) != cudaSuccess) return 0;
    return t;
}

int main() {
    const int w = 13, h = 9;
    int bad = 0;
    std::vector<float> img(w * h);
    for (int i = 0; i < w * h; ++i) img[i] = (float)(i * 7 % 101) - 30.0f;
    cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &f32, w, h));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureObject_t point = make_texture(res, cudaFilterModePoint);
    if (!point) { printf("FAIL: cudaCreateTextureObject\n"); return 1; }
    float *d_out;
    const int W = w + 4, H = h + 4;
    CHECK(cudaMalloc(&d_out, W * H * sizeof(float)));
    sample_point<<<dim3(1, H), 32>>>(point, d_out, w, h);
    CHECK(cudaGetLastError());
    std::vector<float> got(W * H);
    CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            int cx = x - 2 < 0 ? 0 : x - 2 >= w ? w - 1 : x - 2, cy = y - 2 < 0 ? 0 : y - 2 >= h ? h - 1 : y - 2;
            bad += got[y * W + x] != img[cy * w + cx];
        }

    // Two texels 0 and 4: at x = 0.5 + i/4 the linear filter gives i (clamped past the second texel).
    cudaArray_t two;
    float pair[2] = {0.0f, 4.0f};
    CHECK(cudaMallocArray(&two, &f32, 2, 1));
    CHECK(cudaMemcpy2DToArray(two, 0, 0, pair, sizeof(pair), sizeof(pair), 1, cudaMemcpyHostToDevice));
    cudaResourceDesc res2 = {};
    res2.resType = cudaResourceTypeArray;
    res2.res.array.array = two;
    cudaTextureObject_t lin = make_texture(res2, cudaFilterModeLinear);
    sample_linear<<<1, 8>>>(lin, d_out, 8);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), d_out, 8 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; ++i) bad += got[i] != (i < 4 ? (float)i : 4.0f);

    // tex1Dfetch over linear memory.
    const int n = 100;
    std::vector<unsigned> words(n);
    for (int i = 0; i < n; ++i) words[i] = 0x9e3779b9u * (i + 1);
    unsigned *d_words, *d_fetched;
    CHECK(cudaMalloc(&d_words, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_fetched, n * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_words, words.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    cudaResourceDesc res3 = {};
    res3.resType = cudaResourceTypeLinear;
    res3.res.linear.devPtr = d_words;
    res3.res.linear.desc = cudaCreateChannelDesc<unsigned>();
    res3.res.linear.sizeInBytes = n * sizeof(unsigned);
    cudaTextureObject_t fetch = make_texture(res3, cudaFilterModePoint);
    fetch_linear<<<1, 128>>>(fetch, d_fetched, n);
    CHECK(cudaGetLastError());
    std::vector<unsigned> fetched(n);
    CHECK(cudaMemcpy(fetched.data(), d_fetched, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) bad += fetched[i] != words[i];

    // A surface written by a kernel, read back through cudaMemcpy2DFromArray.
    cudaChannelFormatDesc u32 = cudaCreateChannelDesc<unsigned>();
    cudaArray_t sarr;
    CHECK(cudaMallocArray(&sarr, &u32, w, h, cudaArraySurfaceLoadStore));
    cudaResourceDesc res4 = {};
    res4.resType = cudaResourceTypeArray;
    res4.res.array.array = sarr;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &res4));
    write_surface<<<dim3(1, h), 32>>>(surf, w, h);
    CHECK(cudaGetLastError());
    std::vector<unsigned> back(w * h);
    CHECK(cudaMemcpy2DFromArray(back.data(), w * sizeof(unsigned), sarr, 0, 0, w * sizeof(unsigned), h,
                                cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) bad += back[y * w + x] != x * 1000u + y;

    CHECK(cudaDestroySurfaceObject(surf));
    CHECK(cudaDestroyTextureObject(point));
    CHECK(cudaDestroyTextureObject(lin));
    CHECK(cudaDestroyTextureObject(fetch));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFreeArray(two));
    CHECK(cudaFreeArray(sarr));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_words));
    CHECK(cudaFree(d_fetched));
    printf("%s: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
    return bad ? 1 : 0;
}
