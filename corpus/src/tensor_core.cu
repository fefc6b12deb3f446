// Tensor cores and their operand loads: warp-wide matrix multiply-accumulate through the WMMA API (FP16 with
// FP32 accumulation, BF16, TF32, INT8, FP64) and PTX mma.sync m16n8k16 fed by ldmatrix. Inputs are turned into
// small integers on the device so every product and sum is exact and the goldens compare bit-exactly.
// Launch each kernel with one block of 32 threads (one warp).

#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;

__device__ __forceinline__ float small_int(unsigned w) { return (float)((int)(w & 7u) - 3); }

extern "C" __global__ void wmma_f16_f32(const unsigned *in, float *c)
{
    // SASS: HMMA.16816.F32 (two per 16x16x16 tile), LDSM fragment loads from shared memory, STG of the accumulator
    __shared__ __half a[256], b[256];
    int lane = threadIdx.x;
    for (int k = lane; k < 256; k += 32) {
        a[k] = __float2half(small_int(in[k]));
        b[k] = __float2half(small_int(in[256 + k] >> 3));
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 1.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_bf16_tf32(const unsigned *in, float *c)
{
    // SASS: HMMA.16816.F32.BF16 and HMMA.1684.F32.TF32; c gets two 16x16 row-major results
    __shared__ __nv_bfloat16 a[256], b[256];
    __shared__ float fa32[16 * 8], fb32[8 * 16];
    int lane = threadIdx.x;
    for (int k = lane; k < 256; k += 32) {
        a[k] = __float2bfloat16(small_int(in[k]));
        b[k] = __float2bfloat16(small_int(in[256 + k] >> 5));
    }
    for (int k = lane; k < 128; k += 32) {
        fa32[k] = small_int(in[512 + k]);
        fb32[k] = small_int(in[640 + k] >> 2);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> ba;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(ba, a, 16);
    wmma::load_matrix_sync(bb, b, 16);
    wmma::mma_sync(acc, ba, bb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> tb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tacc;
    wmma::fill_fragment(tacc, -2.0f);
    wmma::load_matrix_sync(ta, fa32, 8);
    wmma::load_matrix_sync(tb, fb32, 16);
    for (int k = 0; k < ta.num_elements; ++k) ta.x[k] = wmma::__float_to_tf32(ta.x[k]);
    for (int k = 0; k < tb.num_elements; ++k) tb.x[k] = wmma::__float_to_tf32(tb.x[k]);
    wmma::mma_sync(tacc, ta, tb, tacc);
    wmma::store_matrix_sync(c + 256, tacc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_s8_f64(const unsigned *in, int *ci, double *cd)
{
    // SASS: IMMA.16816.S8.S8 (int8 with int32 accumulation), DMMA.884 (double 8x8x4)
    __shared__ signed char a[256], b[256];
    __shared__ double da[32], db[32];
    int lane = threadIdx.x;
    for (int k = lane; k < 256; k += 32) {
        a[k] = (signed char)(in[k] & 0xffu);
        b[k] = (signed char)((in[256 + k] >> 8) & 0xffu);
    }
    da[lane] = (double)small_int(in[512 + lane]);
    db[lane] = (double)small_int(in[544 + lane] >> 4);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> ia;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> ib;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> iacc;
    wmma::fill_fragment(iacc, 7);
    wmma::load_matrix_sync(ia, a, 16);
    wmma::load_matrix_sync(ib, b, 16);
    wmma::mma_sync(iacc, ia, ib, iacc);
    wmma::store_matrix_sync(ci, iacc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> xa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> xb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> xacc;
    wmma::fill_fragment(xacc, 0.5);
    wmma::load_matrix_sync(xa, da, 4);
    wmma::load_matrix_sync(xb, db, 8);
    wmma::mma_sync(xacc, xa, xb, xacc);
    wmma::store_matrix_sync(cd, xacc, 8, wmma::mem_row_major);
}

extern "C" __global__ void mma_ldmatrix_f16(const unsigned *in, float *c)
{
    // SASS: LDSM.16.M88.4 and LDSM.16.MT88.2 (ldmatrix, .trans), HMMA.16816.F32 from inline mma.sync; c gets the
    // 16x8 result, each lane writing its four accumulator elements at their (row, column) positions
    __shared__ __align__(16) __half a[16 * 16];
    __shared__ __align__(16) __half b[16 * 8];
    int lane = threadIdx.x;
    for (int k = lane; k < 256; k += 32) a[k] = __float2half(small_int(in[k]));
    for (int k = lane; k < 128; k += 32) b[k] = __float2half(small_int(in[256 + k] >> 6));
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    // x4: lanes 0-15 address rows 0-15 of columns 0-7, lanes 16-31 rows 0-15 of columns 8-15.
    unsigned a_addr = (unsigned)__cvta_generic_to_shared(&a[(lane & 15) * 16 + (lane >> 4) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(a_addr));
    // B is stored k-major (16 rows of 8): .trans gives the column-major fragment mma expects.
    unsigned b_addr = (unsigned)__cvta_generic_to_shared(&b[(lane & 15) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1)
                 : "r"(b_addr));
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9},"
                 " {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    int row = lane >> 2, col = (lane & 3) * 2;
    c[row * 8 + col] = d0;
    c[row * 8 + col + 1] = d1;
    c[(row + 8) * 8 + col] = d2;
    c[(row + 8) * 8 + col + 1] = d3;
}
