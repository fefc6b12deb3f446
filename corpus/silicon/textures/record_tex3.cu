// Third texture recording (issue 20, session tex3): mipmapped arrays (fractional LOD, level blend, LOD clamps
// and bias, LOD from gradients, trilinear optimisation on/off), layered mipmaps, integer fetch at a level,
// cube maps (point, linear, seamless, layered) and surface reductions, on NVIDIA silicon. CuPy has no
// mipmapped arrays, so this is a CUDA program: `nvcc -O3 -arch=sm_90 record_tex3.cu -o record_tex3` beside
// textures.cu (included: the kernels are the sm_86 cubin's), then `./record_tex3 OUTDIR`.
// Writes OUTDIR/<case>/{texels.bin,out.bin[,dst.bin]} and OUTDIR/cases.json in record_textures.py's schema
// (plus res.levels, tex.mip_filter/lod_bias/min_lod/max_lod/trilinear_opt/seamless); OUTDIR/log.txt.
#include "textures.cu"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static FILE *logfile;
#define CK(x)                                                                                                  \
    do {                                                                                                       \
        cudaError_t e_ = (x);                                                                                  \
        if (e_ != cudaSuccess) {                                                                               \
            fprintf(logfile, "FAILED %s: %s at line %d\n", #x, cudaGetErrorString(e_), __LINE__);                   \
            return false;                                                                                      \
        }                                                                                                      \
    } while (0)

static std::string outdir;

static void save(const std::string &c, const char *f, const void *p, size_t n)
{
    std::string d = outdir + "/" + c;
    std::string cmd = "mkdir -p '" + d + "'";
    if (system(cmd.c_str()) != 0) return;
    FILE *o = fopen((d + "/" + f).c_str(), "wb");
    fwrite(p, 1, n, o);
    fclose(o);
}

// Texels of level l: RGBA8 byte (j texel, k component) = (37 j + 64 k + 11 + 101 l) mod 256; f32: the value l.
static std::vector<unsigned char> level_bytes(bool f32, int l, int texels, int layers)
{
    std::vector<unsigned char> b;
    for (int layer = 0; layer < layers; layer++)
        for (int j = 0; j < texels; j++) {
            if (f32) {
                float v = (float)l + 0.0f * layer;
                unsigned char *p = (unsigned char *)&v;
                b.insert(b.end(), p, p + 4);
            } else {
                for (int k = 0; k < 4; k++) b.push_back((unsigned char)((37 * (j + layer * texels) + 64 * k + 11 + 101 * l) % 256));
            }
        }
    return b;
}

struct Mip {
    const char *name, *kernel;
    bool f32;
    int side, levels, layers;  // layers 0: not layered
    int filter, mip_filter;    // 0 point, 1 linear
    float bias, min_lod, max_lod;
    int no_trilinear_opt;
    int n, cols;
    std::vector<float> floats;
    std::vector<int> ints;
};

static std::string fl(const std::vector<float> &v)
{
    std::string s = "[";
    char b[64];
    for (size_t i = 0; i < v.size(); i++) {
        snprintf(b, sizeof b, "%s%.9g", i ? ", " : "", v[i]);
        s += b;
    }
    return s + "]";
}
static std::string il(const std::vector<int> &v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

static bool run_mip(const Mip &m, std::string &json)
{
    cudaChannelFormatDesc cd = m.f32 ? cudaCreateChannelDesc<float>() : cudaCreateChannelDesc<uchar4>();
    int bpt = m.f32 ? 4 : 4;
    cudaMipmappedArray_t mm;
    unsigned flags = m.layers ? cudaArrayLayered : 0;
    CK(cudaMallocMipmappedArray(&mm, &cd, make_cudaExtent(m.side, m.side, m.layers), m.levels, flags));
    std::vector<unsigned char> all;
    for (int l = 0; l < m.levels; l++) {
        int s = m.side >> l ? m.side >> l : 1;
        std::vector<unsigned char> b = level_bytes(m.f32, l, s * s, m.layers ? m.layers : 1);
        all.insert(all.end(), b.begin(), b.end());
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, mm, l));
        cudaMemcpy3DParms p = {};
        p.srcPtr = make_cudaPitchedPtr(b.data(), s * bpt, s, s);
        p.dstArray = a;
        p.extent = make_cudaExtent(s, s, m.layers ? m.layers : 1);
        p.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&p));
    }
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeMipmappedArray;
    rd.res.mipmap.mipmap = mm;
    cudaTextureDesc td = {};
    for (int k = 0; k < 3; k++) td.addressMode[k] = cudaAddressModeClamp;
    td.filterMode = m.filter ? cudaFilterModeLinear : cudaFilterModePoint;
    td.mipmapFilterMode = m.mip_filter ? cudaFilterModeLinear : cudaFilterModePoint;
    td.readMode = m.f32 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
    td.normalizedCoords = 1;
    td.mipmapLevelBias = m.bias;
    td.minMipmapLevelClamp = m.min_lod;
    td.maxMipmapLevelClamp = m.max_lod;
    td.disableTrilinearOptimization = m.no_trilinear_opt;
    td.maxAnisotropy = 1;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    float4 *out;
    CK(cudaMalloc(&out, m.n * 16));
    CK(cudaMemset(out, 0xAB, m.n * 16));
    int blocks = (m.n + 255) / 256;
    std::string k = m.kernel;
    const std::vector<float> &f = m.floats;
    if (k == "tex2d_lod_ramp")
        tex2d_lod_ramp<<<blocks, 256>>>(t, out, m.n, m.cols, f[0], f[1], f[2], f[3]);
    else if (k == "tex2d_grad_ramp")
        tex2d_grad_ramp<<<blocks, 256>>>(t, out, m.n, m.cols, f[0], f[1], f[2], m.ints[0]);
    else if (k == "tex2d_layered_lod")
        tex2d_layered_lod<<<blocks, 256>>>(t, out, m.n, m.cols, f[0], f[1], f[2], f[3], m.ints[0]);
    else if (k == "tld_level")
        tld_level<<<blocks, 256>>>(t, out, m.n, m.cols);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> host(m.n * 16);
    CK(cudaMemcpy(host.data(), out, host.size(), cudaMemcpyDeviceToHost));
    save(m.name, "texels.bin", all.data(), all.size());
    save(m.name, "out.bin", host.data(), host.size());
    char b[1024];
    snprintf(b, sizeof b,
             "{\"name\": \"%s\", \"kernel\": \"%s\", \"res\": {\"type\": \"mip\", \"channels\": %d, \"bits\": %d, "
             "\"kind\": %d, \"width\": %d, \"height\": %d%s, \"levels\": %d}, \"tex\": {\"filter\": %d, "
             "\"mip_filter\": %d, \"read\": %d, \"normalized\": 1, \"modes\": [\"clamp\", \"clamp\", \"clamp\"], "
             "\"lod_bias\": %.9g, \"min_lod\": %.9g, \"max_lod\": %.9g, \"trilinear_opt\": %d}, \"launch\": {\"n\": %d, "
             "\"cols\": %d, \"floats\": %s, \"ints\": %s}}",
             m.name, m.kernel, m.f32 ? 1 : 4, m.f32 ? 32 : 8, m.f32 ? 2 : 1, m.side, m.side,
             m.layers ? (", \"depth\": " + std::to_string(m.layers) + ", \"flags\": 1").c_str() : "", m.levels,
             m.filter, m.mip_filter, m.f32 ? 0 : 1, m.bias, m.min_lod, m.max_lod, m.no_trilinear_opt ? 0 : 1, m.n,
             m.cols, fl(m.floats).c_str(), il(m.ints).c_str());
    json = b;
    cudaDestroyTextureObject(t);
    cudaFree(out);
    cudaFreeMipmappedArray(mm);
    return true;
}

// Cube maps: 4x4 RGBA8 faces (u8each bytes: texel j component k = (37 j + 64 k + 11) mod 256), normalized.
static bool run_cube(const char *name, int filter, int seamless, int layers, float scale, std::string &json)
{
    int side = 4, faces = 6 * (layers ? layers : 1);
    std::vector<unsigned char> b(side * side * faces * 4);
    for (size_t i = 0; i < b.size(); i++) b[i] = (unsigned char)((i / 4 * 37 + i % 4 * 64 + 11) % 256);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(side, side, faces),
                         cudaArrayCubemap | (layers ? cudaArrayLayered : 0)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(b.data(), side * 4, side, side);
    p.dstArray = a;
    p.extent = make_cudaExtent(side, side, faces);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    for (int k = 0; k < 3; k++) td.addressMode[k] = cudaAddressModeClamp;
    td.filterMode = filter ? cudaFilterModeLinear : cudaFilterModePoint;
    td.readMode = cudaReadModeNormalizedFloat;
    td.normalizedCoords = 1;
    td.seamlessCubemap = seamless;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    int cols = 16, n = 6 * cols * cols * (layers ? layers : 1);
    float4 *out;
    CK(cudaMalloc(&out, n * 16));
    CK(cudaMemset(out, 0xAB, n * 16));
    if (layers)
        texcube_layered_f4<<<(n + 255) / 256, 256>>>(t, out, n, cols, -1.0f, 0.125f, scale, layers);
    else
        texcube_f4<<<(n + 255) / 256, 256>>>(t, out, n, cols, -1.0f, 0.125f, scale);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> host(n * 16);
    CK(cudaMemcpy(host.data(), out, host.size(), cudaMemcpyDeviceToHost));
    save(name, "texels.bin", b.data(), b.size());
    save(name, "out.bin", host.data(), host.size());
    char j[1024];
    snprintf(j, sizeof j,
             "{\"name\": \"%s\", \"kernel\": \"%s\", \"res\": {\"type\": \"cube\", \"channels\": 4, \"bits\": 8, "
             "\"kind\": 1, \"width\": 4, \"height\": 4, \"depth\": %d, \"flags\": %d}, \"tex\": {\"filter\": %d, "
             "\"read\": 1, \"normalized\": 1, \"modes\": [\"clamp\", \"clamp\", \"clamp\"], \"seamless\": %d}, "
             "\"launch\": {\"n\": %d, \"cols\": %d, \"floats\": [-1.0, 0.125, %.9g]%s}}",
             name, layers ? "texcube_layered_f4" : "texcube_f4", faces, layers ? 5 : 4, filter, seamless, n, cols,
             scale, layers ? (", \"ints\": [" + std::to_string(layers) + "]").c_str() : "");
    json = j;
    cudaDestroyTextureObject(t);
    cudaFree(out);
    cudaFreeArray(a);
    return true;
}

// Surface reductions: an 8 x 8 u32 surface (texel j = j * 2654435761 + 12345), 1024 threads of surf2d_red.
static bool run_red(std::string &json)
{
    int w = 8, h = 8, n = 1024;
    std::vector<unsigned> b(w * h);
    for (int j = 0; j < w * h; j++) b[j] = (unsigned)j * 2654435761u + 12345u;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<unsigned>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, w, h, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(a, 0, 0, b.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &rd));
    surf2d_red<<<(n + 255) / 256, 256>>>(s, n, w);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<unsigned> back(w * h);
    CK(cudaMemcpy2DFromArray(back.data(), w * 4, a, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
    save("surf2d_red", "texels.bin", b.data(), b.size() * 4);
    save("surf2d_red", "dst.bin", back.data(), back.size() * 4);
    json = "{\"name\": \"surf2d_red\", \"kernel\": \"surf2d_red\", \"res\": {\"type\": \"surface\", \"channels\": 1, "
           "\"bits\": 32, \"kind\": 1, \"width\": 8, \"height\": 8}, \"tex\": null, \"launch\": {\"grid\": [4, 1, 1], \"block\": [256, 1, 1], \"ints\": [1024, 8]}}";
    cudaDestroySurfaceObject(s);
    cudaFreeArray(a);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: record_tex3 OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    std::string cmd = "mkdir -p '" + outdir + "'";
    if (system(cmd.c_str()) != 0) return 1;
    logfile = fopen((outdir + "/log.txt").c_str(), "w");
    cudaDeviceProp pr;
    cudaGetDeviceProperties(&pr, 0);
    int drv = 0;
    cudaDriverGetVersion(&drv);
    fprintf(logfile, "device %s driver %d\n", pr.name, drv);
    // 16x16 with 5 levels; positions x0 + step * column; LOD rows lod0 + lstep * row.
    std::vector<Mip> mips = {
        {"mip_rgba8_lod_point", "tex2d_lod_ramp", false, 16, 5, 0, 1, 0, 0, 0, 8, 0, 3072, 8, {0.03125f, 0.1171875f, -1.0f, 1.0f / 64}, {}},
        {"mip_rgba8_lod_linear", "tex2d_lod_ramp", false, 16, 5, 0, 1, 1, 0, 0, 8, 0, 3072, 8, {0.03125f, 0.1171875f, -1.0f, 1.0f / 64}, {}},
        {"mip_f32_lod_point", "tex2d_lod_ramp", true, 16, 5, 0, 0, 0, 0, 0, 8, 0, 3072, 2, {0.25f, 0.5f, -1.0f, 1.0f / 256}, {}},
        {"mip_f32_lod_linear", "tex2d_lod_ramp", true, 16, 5, 0, 0, 1, 0, 0, 8, 0, 3072, 2, {0.25f, 0.5f, -1.0f, 1.0f / 256}, {}},
        {"mip_f32_lod_linear_exact", "tex2d_lod_ramp", true, 16, 5, 0, 0, 1, 0, 0, 8, 1, 3072, 2, {0.25f, 0.5f, -1.0f, 1.0f / 256}, {}},
        {"mip_f32_lod_clamp_bias", "tex2d_lod_ramp", true, 16, 5, 0, 0, 1, 0.25f, 0.5f, 2.75f, 1, 3072, 2, {0.25f, 0.5f, -1.0f, 1.0f / 256}, {}},
        {"mip_f32_grad_iso", "tex2d_grad_ramp", true, 16, 5, 0, 0, 1, 0, 0, 8, 1, 384, 2, {0.25f, 0.5f, 1.0f}, {-10}},
        {"mip_f32_grad_aniso3", "tex2d_grad_ramp", true, 16, 5, 0, 0, 1, 0, 0, 8, 1, 384, 2, {0.25f, 0.5f, 3.0f}, {-10}},
        {"mip_f32_grad_opt", "tex2d_grad_ramp", true, 16, 5, 0, 0, 1, 0, 0, 8, 0, 384, 2, {0.25f, 0.5f, 1.0f}, {-10}},
        {"mip_rgba8_grad_linear", "tex2d_grad_ramp", false, 16, 5, 0, 1, 1, 0, 0, 8, 1, 1536, 8, {0.03125f, 0.1171875f, 1.0f}, {-10}},
        {"mip_layered_lod", "tex2d_layered_lod", false, 8, 4, 3, 1, 1, 0, 0, 8, 1, 960, 8, {0.0625f, 0.1171875f, -0.5f, 0.125f}, {3}},
        {"mip_tld_level", "tld_level", false, 16, 5, 0, 0, 0, 0, 0, 8, 0, 18 * 18 * 7, 18, {}, {}},
    };
    std::vector<std::string> cases;
    int ok = 0, total = 0;
    for (const Mip &m : mips) {
        std::string j;
        total++;
        if (run_mip(m, j)) {
            cases.push_back(j);
            ok++;
            fprintf(logfile, "ok %s\n", m.name);
        }
    }
    struct C { const char *name; int filter, seamless, layers; float scale; } cubes[] = {
        {"cube_rgba8_point", 0, 0, 0, 1.0f}, {"cube_rgba8_linear", 1, 0, 0, 1.0f},
        {"cube_rgba8_linear_seamless", 1, 1, 0, 1.0f}, {"cube_rgba8_point_edges", 0, 0, 0, 0.75f},
        {"cube_layered_point", 0, 0, 2, 1.0f},
    };
    for (const C &c : cubes) {
        std::string j;
        total++;
        if (run_cube(c.name, c.filter, c.seamless, c.layers, c.scale, j)) {
            cases.push_back(j);
            ok++;
            fprintf(logfile, "ok %s\n", c.name);
        }
    }
    {
        std::string j;
        total++;
        if (run_red(j)) {
            cases.push_back(j);
            ok++;
            fprintf(logfile, "ok surf2d_red\n");
        }
    }
    FILE *cj = fopen((outdir + "/cases.json").c_str(), "w");
    fprintf(cj, "[\n");
    for (size_t i = 0; i < cases.size(); i++) fprintf(cj, "%s%s\n", cases[i].c_str(), i + 1 < cases.size() ? "," : "");
    fprintf(cj, "]\n");
    fclose(cj);
    fprintf(logfile, "%d of %d cases recorded\n", ok, total);
    fclose(logfile);
    printf("%d of %d cases recorded\n", ok, total);
    return ok == total ? 0 : 1;
}
