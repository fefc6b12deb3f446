// Texture and surface objects (issue 20): what nvcc emits for CUDA's bindless texture and surface API.
// Every kernel takes its texture/surface objects as 64-bit parameters (nvcc reads the handle from the
// parameter bank: the `.SCR` forms with bank 0, word 0x58 = byte 0x160), computes its coordinates from
// the thread index and the float parameters (x0, step, scale), and writes K results per thread at
// out[i * K + k]. Launched by record_textures.py beside this file (CuPy texture objects), not by
// launches.txt: each kernel runs on several textures that differ only in their descriptors.

#include <cuda_runtime.h>

// Coordinates of thread i: a grid of `cols` columns, x0 + step * column, x0 + step * row, times scale.
__device__ __forceinline__ void coords(int i, int cols, float x0, float step, float scale, float &x, float &y)
{
    x = (x0 + step * (float)(i % cols)) * scale;
    y = (x0 + step * (float)(i / cols)) * scale;
}

extern "C" __global__ void tex1d_fetch_u32(cudaTextureObject_t t, unsigned *out, int n, int offset)
{
    // SASS: TLD.SCR.LZ 1D (tex1Dfetch on a linear-memory texture, integer element index, out of range too)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex1Dfetch<unsigned>(t, i + offset);
}

extern "C" __global__ void tex1d_fetch_f4(cudaTextureObject_t t, float4 *out, int n, int offset)
{
    // SASS: TLD.SCR.LZ 1D with four components (float4 element type or normalized uchar4 reads)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex1Dfetch<float4>(t, i + offset);
}

extern "C" __global__ void tex2d_f4(cudaTextureObject_t t, float4 *out, int n, int cols, float x0, float step,
                                    float scale)
{
    // SASS: TEX.SCR.LL 2D with LOD register 0xc2000000 = -32.0 (tex2D<float4>: point or linear filter,
    // unnormalized or normalized coordinates, every address mode; the descriptor decides, the code is the same)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    out[i] = tex2D<float4>(t, x, y);
}

extern "C" __global__ void tex2d_f1(cudaTextureObject_t t, float *out, int n, int cols, float x0, float step,
                                    float scale)
{
    // SASS: TEX.SCR.LL 2D, one component, write mask 0x1 (single-channel float textures: filter-weight probe)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    out[i] = tex2D<float>(t, x, y);
}

extern "C" __global__ void tex2d_u4(cudaTextureObject_t t, uint4 *out, int n, int cols, float x0, float step,
                                    float scale)
{
    // SASS: TEX.SCR.LL 2D of an integer texture (cudaReadModeElementType, point filter)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    out[i] = tex2D<uint4>(t, x, y);
}

extern "C" __global__ void tex2d_lod(cudaTextureObject_t t, float4 *out, int n, int cols, float x0, float step,
                                     float scale, float lod)
{
    // SASS: TEX.SCR.LL 2D (tex2DLod: explicit level of detail)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    out[i] = tex2DLod<float4>(t, x, y, lod + 0.25f * (float)(i & 3));
}

extern "C" __global__ void tex2d_grad(cudaTextureObject_t t, float4 *out, int n, int cols, float x0,
                                      float step, float scale)
{
    // SASS: TXD 2D (tex2DGrad: explicit derivatives)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    float d = 0.5f * (float)(i & 7) * scale;
    out[i] = tex2DGrad<float4>(t, x, y, make_float2(d, 0.0f), make_float2(0.0f, d));
}

extern "C" __global__ void tex2d_gather(cudaTextureObject_t t, float4 *out, int n, int cols, float x0,
                                        float step, float scale)
{
    // SASS: TLD4.SCR.R/.G/.B/.A 2D (tex2Dgather of components 0..3)
    const int K = 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    out[i * K + 0] = tex2Dgather<float4>(t, x, y, 0);
    out[i * K + 1] = tex2Dgather<float4>(t, x, y, 1);
    out[i * K + 2] = tex2Dgather<float4>(t, x, y, 2);
    out[i * K + 3] = tex2Dgather<float4>(t, x, y, 3);
}

extern "C" __global__ void tex3d_f1(cudaTextureObject_t t, float *out, int n, int cols, float x0, float step,
                                    float scale)
{
    // SASS: TEX.SCR.LL 3D (tex3D; z from the thread index's third factor)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int plane = cols * cols;
    float x, y;
    coords(i % plane, cols, x0, step, scale, x, y);
    float z = (x0 + step * (float)(i / plane)) * scale;
    out[i] = tex3D<float>(t, x, y, z);
}

extern "C" __global__ void tex2d_layered_f1(cudaTextureObject_t t, float *out, int n, int cols, float x0,
                                            float step, float scale, int layers)
{
    // SASS: TEX.SCR.LL ARRAY_2D (tex2DLayered; the layer is an integer, out-of-range layers clamp)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int plane = cols * cols;
    float x, y;
    coords(i % plane, cols, x0, step, scale, x, y);
    int layer = i / plane - 1;
    out[i] = tex2DLayered<float>(t, x, y, layer < layers + 1 ? layer : layers + 1);
}

extern "C" __global__ void tex1d_f1(cudaTextureObject_t t, float *out, int n, float x0, float step, float scale)
{
    // SASS: TEX.SCR.LL 1D (tex1D on a 1-D cudaArray)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex1D<float>(t, (x0 + step * (float)i) * scale);
}

extern "C" __global__ void surf2d_rw(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, unsigned *out, int n,
                                     int w, int h)
{
    // SASS: SULD.D.BA.2D.STRONG.SM.TRAP / SUST.D.BA.2D.STRONG.SM.TRAP (surf2Dread/surf2Dwrite of 32-bit
    // elements; x in bytes), SULD.D.BA.2D.STRONG.SM.IGN (cudaBoundaryModeZero) and SULD.D.BA.2D.STRONG.SM
    // (cudaBoundaryModeClamp) at out-of-range coordinates
    const int K = 3;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = i % (w + 2) - 1;
    int y = i / (w + 2) - 1;
    unsigned zero = surf2Dread<unsigned>(src, x * 4, y, cudaBoundaryModeZero);
    unsigned clamp = surf2Dread<unsigned>(src, x * 4, y, cudaBoundaryModeClamp);
    out[i * K + 0] = zero;
    out[i * K + 1] = clamp;
    out[i * K + 2] = (unsigned)x * 0x10000u + (unsigned)y;
    if (x >= 0 && x < w && y >= 0 && y < h) {
        unsigned v = surf2Dread<unsigned>(src, x * 4, y);
        surf2Dwrite<unsigned>(v * 3u + 1u, dst, (w - 1 - x) * 4, y);
    }
}

extern "C" __global__ void surf2d_rw_u4(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h)
{
    // SASS: SULD.D.BA.2D.128.STRONG.SM.TRAP / SUST.D.BA.2D.128.STRONG.SM.TRAP (16-byte uint4 elements)
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    uint4 v = surf2Dread<uint4>(src, x * 16, y);
    uint4 r = make_uint4(v.w, v.z ^ 0xffu, v.y + 1u, v.x);
    surf2Dwrite<uint4>(r, dst, x * 16, h - 1 - y);
}

extern "C" __global__ void surf3d_rw(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h, int d)
{
    // SASS: SULD.D.BA.3D.U8 / SUST.D.BA.3D.U8 (surf3Dread/surf3Dwrite of 8-bit elements)
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    int z = blockIdx.z;
    if (x >= w || y >= h || z >= d) return;
    unsigned char v = surf3Dread<unsigned char>(src, x, y, z);
    surf3Dwrite<unsigned char>((unsigned char)(v + z * 16 + 1), dst, x, y, d - 1 - z);
}

extern "C" __global__ void surf2d_layered_rw(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h,
                                             int layers)
{
    // SASS: SULD.D.BA.2D_ARRAY.U16 / SUST.D.BA.2D_ARRAY.U16 (surf2DLayeredread/write of 16-bit elements)
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    int l = blockIdx.z;
    if (x >= w || y >= h || l >= layers) return;
    unsigned short v = surf2DLayeredread<unsigned short>(src, x * 2, y, l);
    surf2DLayeredwrite<unsigned short>((unsigned short)(v ^ (l * 0x1111)), dst, x * 2, y, layers - 1 - l);
}

extern "C" __global__ void txq_dims(cudaTextureObject_t t, int *out, int level)
{
    // SASS: TXQ TEX_HEADER_DIMENSION (masks 1, 2, 4) at level 0 and, through txq.level, at `level`
    // (inline PTX: CUDA has no texture-object size query). One thread writes 6 words.
    int w, h, d, lw, lh, ld;
    asm volatile("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t));
    asm volatile("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(t));
    asm volatile("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(t));
    asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(lw) : "l"(t), "r"(level));
    asm volatile("txq.level.height.b32 %0, [%1], %2;" : "=r"(lh) : "l"(t), "r"(level));
    asm volatile("txq.level.depth.b32 %0, [%1], %2;" : "=r"(ld) : "l"(t), "r"(level));
    out[0] = w;
    out[1] = h;
    out[2] = d;
    out[3] = lw;
    out[4] = lh;
    out[5] = ld;
}

extern "C" __global__ void tex2d_pick(const cudaTextureObject_t *ts, float4 *out, int n, int cols, float x0,
                                      float step, float scale)
{
    // SASS: TEX.SCR.B.LL 2D: the handle is loaded from memory, so it sits in a register (the first of Rb)
    // rather than in the parameter bank. ts holds two handles; odd threads take the second.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    out[i] = tex2D<float4>(ts[i & 1], x, y);
}

extern "C" __global__ void texcube_f4(cudaTextureObject_t t, float4 *out, int n, int cols, float x0, float step,
                                      float scale)
{
    // SASS: TEX.SCR.LL CUBE (texCubemap<float4>). Thread i looks along face f = i / cols² mod 6's major axis
    // (+x -x +y -y +z -z, length `scale`) with the other two components x0 + step * column / row.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int f = (i / (cols * cols)) % 6;
    float u, v;
    coords(i % (cols * cols), cols, x0, step, 1.0f, u, v);
    float m = (f & 1) ? -scale : scale;
    float x = f < 2 ? m : u, y = f < 2 ? u : (f < 4 ? m : v), z = f < 4 ? v : m;
    out[i] = texCubemap<float4>(t, x, y, z);
}

// Session 3 (tex3): register handles for TLD/TLD4/TXD, mipmapped textures, cube arrays, surface reductions.

extern "C" __global__ void tex1d_fetch_pick(const cudaTextureObject_t *ts, unsigned *out, int n, int offset)
{
    // SASS: TLD.SCR.B.LZ 1D (tex1Dfetch with the handle loaded from memory; odd threads take the second)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex1Dfetch<unsigned>(ts[i & 1], i + offset);
}

extern "C" __global__ void tex2d_gather_pick(const cudaTextureObject_t *ts, float4 *out, int n, int cols, float x0,
                                             float step, float scale)
{
    // SASS: TLD4.SCR.B.R/.G/.B/.A 2D (tex2Dgather with a register handle)
    const int K = 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    cudaTextureObject_t t = ts[i & 1];
    out[i * K + 0] = tex2Dgather<float4>(t, x, y, 0);
    out[i * K + 1] = tex2Dgather<float4>(t, x, y, 1);
    out[i * K + 2] = tex2Dgather<float4>(t, x, y, 2);
    out[i * K + 3] = tex2Dgather<float4>(t, x, y, 3);
}

extern "C" __global__ void tex2d_grad_pick(const cudaTextureObject_t *ts, float4 *out, int n, int cols, float x0,
                                           float step, float scale)
{
    // SASS: TXD.B 2D (tex2DGrad with a register handle)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x, y;
    coords(i, cols, x0, step, scale, x, y);
    float d = 0.5f * (float)(i & 7) * scale;
    out[i] = tex2DGrad<float4>(ts[i & 1], x, y, make_float2(d, 0.0f), make_float2(0.0f, d));
}

// An exact power-of-two-times-(1 + k/16) gradient length for ramp step k from 2^e0 (no MUFU: both sides agree).
__device__ __forceinline__ float ramp_len(int k, int e0)
{
    return (1.0f + (float)(k & 15) * 0.0625f) * __int_as_float((e0 + (k >> 4) + 127) << 23);
}

extern "C" __global__ void tex2d_lod_ramp(cudaTextureObject_t t, float4 *out, int n, int cols, float x0, float step,
                                          float lod0, float lstep)
{
    // SASS: TEX.SCR.LL 2D on a mipmapped array: column i % cols picks the position, row i / cols the LOD
    // lod0 + lstep * row (LOD rounding, level blend weights and the sampler's LOD clamps).
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = i % cols;
    float x = x0 + step * (float)c;
    float y = x0 + step * (float)((c * 5) % cols);
    out[i] = tex2DLod<float4>(t, x, y, lod0 + lstep * (float)(i / cols));
}

extern "C" __global__ void tex2d_grad_ramp(cudaTextureObject_t t, float4 *out, int n, int cols, float x0,
                                           float step, float ratio, int e0)
{
    // SASS: TXD 2D on a mipmapped array: gradients (len, 0) and (0, len * ratio), len = ramp_len(row, e0), so
    // the result shows the LOD silicon computes from derivatives (isotropic for ratio 1).
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = i % cols;
    float x = x0 + step * (float)c;
    float y = x0 + step * (float)((c * 5) % cols);
    float d = ramp_len(i / cols, e0);
    out[i] = tex2DGrad<float4>(t, x, y, make_float2(d, 0.0f), make_float2(0.0f, d * ratio));
}

extern "C" __global__ void tex2d_layered_lod(cudaTextureObject_t t, float4 *out, int n, int cols, float x0,
                                             float step, float lod0, float lstep, int layers)
{
    // SASS: TEX.SCR.LL ARRAY_2D on a mipmapped layered array (tex2DLayeredLod): layer (i / cols) % layers,
    // LOD lod0 + lstep * (i / (cols * layers)).
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = i % cols;
    float x = x0 + step * (float)c;
    float y = x0 + step * (float)((c * 5) % cols);
    int layer = (i / cols) % layers;
    out[i] = tex2DLayeredLod<float4>(t, x, y, layer, lod0 + lstep * (float)(i / (cols * layers)));
}

extern "C" __global__ void tld_level(cudaTextureObject_t t, float4 *out, int n, int cols)
{
    // SASS: TLD.SCR.LL 2D (integer texel fetch at an explicit level through inline PTX tex.level with s32
    // coordinates; CUDA has no C++ form): x, y over -1..cols-2, level (i / cols²) - 1.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = i % cols - 1, y = (i / cols) % cols - 1, l = i / (cols * cols) - 1;
    float4 r;
    asm volatile("tex.level.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                 : "l"(t), "r"(x), "r"(y), "r"(l));
    out[i] = r;
}

extern "C" __global__ void texcube_layered_f4(cudaTextureObject_t t, float4 *out, int n, int cols, float x0,
                                              float step, float scale, int layers)
{
    // SASS: TEX.LL ARRAY_CUBE (texCubemapLayered): as texcube_f4, layer i / (6 cols²) mod layers.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int f = (i / (cols * cols)) % 6;
    int layer = (i / (6 * cols * cols)) % layers;
    float u, v;
    coords(i % (cols * cols), cols, x0, step, 1.0f, u, v);
    float m = (f & 1) ? -scale : scale;
    float x = f < 2 ? m : u, y = f < 2 ? u : (f < 4 ? m : v), z = f < 4 ? v : m;
    out[i] = texCubemapLayered<float4>(t, x, y, z, layer);
}

extern "C" __global__ void surf2d_red(cudaSurfaceObject_t s, int n, int w)
{
    // SASS: SURED.D.BA.2D.{ADD,MIN,MAX,AND,OR}[.S32].STRONG.SYS.TRAP (inline PTX sured.b: CUDA has no C++
    // surface atomics); row r of a w-wide u32 surface takes op r; the .zero form out of range is dropped
    // (.IGN) and the .clamp form adds at x = 0 of row 7. Integer reductions: the order does not matter.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = (i % w) * 4;
    unsigned v = (unsigned)i * 2654435761u ^ ((unsigned)i >> 3);
    asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(0), "r"(v & 0xffff));
    asm volatile("sured.b.min.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(1), "r"(v));
    asm volatile("sured.b.max.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(2), "r"(v));
    asm volatile("sured.b.and.2d.b32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(3), "r"(v | (v << 7)));
    asm volatile("sured.b.or.2d.b32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(4), "r"(v & (v >> 5)));
    asm volatile("sured.b.min.2d.s32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(5), "r"(v));
    asm volatile("sured.b.max.2d.s32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(6), "r"(v));
    asm volatile("sured.b.add.2d.u32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(4 * w + x), "r"(7), "r"(1));
    asm volatile("sured.b.add.2d.u32.clamp [%0, {%1, %2}], %3;" ::"l"(s), "r"(-4 - x), "r"(7), "r"(v & 0xff));
}
