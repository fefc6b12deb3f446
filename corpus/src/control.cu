// Control flow: divergent if/else chains, counted loops (unrolled and not), data-dependent loops, nested
// loops with break and continue, early exits inside loops, short-circuit conditions, select instead of
// branch, and a loop whose trip count differs per lane (reconvergence with BSSY/BSYNC).
// Every kernel reads its inputs at index i and writes K results per thread at out[i * K + k].

extern "C" __global__ void divergent_branches(const int *a, const int *b, int *out, int n)
{
    // SASS: BRA (divergent), BSSY/BSYNC reconvergence, @P predicated instructions, SEL, PLOP3, ISETP chains
    const int K = 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    int *o = out + i * K;
    int r;
    if (x > y) {
        r = x - y;
        if (r & 1) r = r * 3 + 1;
        else r >>= 1;
    } else if (x == y) {
        r = 0x7777;
    } else {
        r = (y - x) ^ 0x55;
        for (int k = 0; k < (x & 7); ++k) r = r * 5 + k;
    }
    o[0] = r;
    o[1] = (x > 0 && y > 0) || (x < -100 && y != 3) ? 1 : -1;
    o[2] = x < 0 ? -x : x;
    int s = 0;
    if (threadIdx.x & 1) s = x; else s = y;
    if (threadIdx.x & 2) s += 7;
    o[3] = s;
}

extern "C" __global__ void loops(const unsigned *a, unsigned *out, int n)
{
    // SASS: backward BRA loops, loop counters (IADD3/ISETP), unrolled bodies, data-dependent trip counts
    // (Collatz with a cap), nested loops with break/continue, BSSY/BSYNC around divergent loops
    const int K = 5;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unsigned *o = out + i * K;
    // Counted, unrollable.
    unsigned h = 2166136261u;
    for (int k = 0; k < 4; ++k) h = (h ^ ((x >> (8 * k)) & 0xffu)) * 16777619u;
    o[0] = h;
    // Data-dependent: Collatz steps, capped.
    unsigned c = (x & 0xffffu) | 1u, steps = 0;
    while (c != 1u && steps < 500u) {
        c = (c & 1u) ? 3u * c + 1u : c >> 1;
        ++steps;
    }
    o[1] = steps;
    // Nested with break and continue.
    unsigned acc = 0;
    for (unsigned r = 0; r < 8u; ++r) {
        if (((x >> r) & 1u) == 0u) continue;
        for (unsigned q = 0; q < 8u; ++q) {
            if (q * r > (x & 31u)) break;
            acc += q ^ r;
        }
    }
    o[2] = acc;
    // Loop with a runtime bound the compiler cannot unroll.
    unsigned m = x & 63u, p = 1;
    for (unsigned k = 0; k < m; ++k) p = p * 1103515245u + 12345u;
    o[3] = p;
    // do-while counting trailing zeros by hand, early return inside the loop.
    unsigned t = x, z = 0;
    do {
        if (t == 0u) {
            o[4] = 0xffffffffu;
            return;
        }
        if (t & 1u) break;
        t >>= 1;
        ++z;
    } while (true);
    o[4] = z;
}

extern "C" __global__ void predication(const float *a, const float *b, float *out, int n)
{
    // SASS: FSEL, FSETP with combined predicates (.AND/.OR forms), predicated stores, FMNMX used for clamps
    const int K = 3;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    float *o = out + i * K;
    o[0] = (x > y) ? x * 2.0f : y - 1.0f;
    o[1] = (x > 0.0f && y < 0.0f) || isnan(x) ? 1.0f : 0.5f;
    o[2] = fminf(fmaxf(x, -1.0f), 1.0f);
    if (x == y) o[0] = -0.0f;
}
