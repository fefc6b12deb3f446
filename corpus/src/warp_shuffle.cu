// Warp shuffles: __shfl_sync in idx/up/down/xor modes on 32-bit, 64-bit and float values, with full and
// sub-warp widths (8, 16), partial masks (only some lanes participate), lane indices out of range, and a
// shuffle inside divergent code. Launch with whole warps (blockDim a multiple of 32) and n a multiple of 32.
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void shfl_modes(const int *a, int *out, int n)
{
    // SASS: SHFL.IDX, SHFL.UP, SHFL.DOWN, SHFL.BFLY with register and immediate lane/clamp operands, the
    // segment mask for widths 8 and 16 (c operand), the PT/P destination predicate for out-of-range lanes
    const int K = 12;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int x = i < n ? a[i] : 0;
    int v0 = __shfl_sync(0xffffffffu, x, 5);
    int v1 = __shfl_sync(0xffffffffu, x, (x & 63));
    int v2 = __shfl_up_sync(0xffffffffu, x, 1);
    int v3 = __shfl_up_sync(0xffffffffu, x, 3, 16);
    int v4 = __shfl_down_sync(0xffffffffu, x, 2);
    int v5 = __shfl_down_sync(0xffffffffu, x, 5, 8);
    int v6 = __shfl_xor_sync(0xffffffffu, x, 1);
    int v7 = __shfl_xor_sync(0xffffffffu, x, 12, 16);
    int v8 = __shfl_sync(0xffffffffu, x, lane + 3, 8);
    int v9 = __shfl_down_sync(0xffffffffu, x, (unsigned)(x & 7));
    float f = __shfl_xor_sync(0xffffffffu, __int_as_float(x), 16);
    long long w = __shfl_sync(0xffffffffu, ((long long)x << 32) | (unsigned)lane, 31 - lane);
    if (i >= n) return;
    int *o = out + i * K;
    o[0] = v0; o[1] = v1; o[2] = v2; o[3] = v3; o[4] = v4; o[5] = v5;
    o[6] = v6; o[7] = v7; o[8] = v8; o[9] = v9;
    o[10] = __float_as_int(f);
    o[11] = (int)(w >> 32) ^ (int)w;
}

extern "C" __global__ void shfl_partial(const int *a, int *out, int n)
{
    // SASS: SHFL with a partial member mask held in a register, WARPSYNC with a partial mask, BSSY/BSYNC
    // around divergent shuffles (even lanes shuffle among themselves, odd lanes among themselves)
    const int K = 3;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int x = i < n ? a[i] : 0;
    int r0, r1;
    if (lane & 1) {
        r0 = __shfl_sync(0xaaaaaaaau, x, (lane + 2) & 31);
        r1 = __shfl_xor_sync(0xaaaaaaaau, x * 3, 2);
    } else {
        r0 = __shfl_sync(0x55555555u, x, (lane + 4) & 31);
        r1 = __shfl_down_sync(0x55555555u, x + 7, 2);
    }
    int r2 = 0;
    if (lane < 16) r2 = __shfl_up_sync(0x0000ffffu, x, 1, 16);
    if (i >= n) return;
    int *o = out + i * K;
    o[0] = r0;
    o[1] = r1;
    o[2] = r2;
}

extern "C" __global__ void shfl_reduce_broadcast(const float *a, float *out, int n)
{
    // SASS: SHFL.BFLY tree reductions feeding FADD/FMNMX, SHFL.IDX broadcast from lane 0, SHFL.UP inclusive
    // scan with a lane guard (predicated FADD)
    const int K = 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    // Small exact integers keep the sum order-independent; NaN/inf inputs are not fed here.
    float x = i < n ? (float)(__float_as_int(a[i]) & 255) : 0.0f;
    float s = x, m = x, scan = x;
    for (int d = 16; d > 0; d >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, d);
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    }
    for (int d = 1; d < 32; d <<= 1) {
        float y = __shfl_up_sync(0xffffffffu, scan, d);
        if (lane >= d) scan += y;
    }
    float first = __shfl_sync(0xffffffffu, x, 0);
    if (i >= n) return;
    float *o = out + i * K;
    o[0] = s;
    o[1] = m;
    o[2] = scan;
    o[3] = first;
}
