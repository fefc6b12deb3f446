// MUFU.RCP64H / MUFU.RSQ64H sweeps (issue 23: the seeds of CUDA's double division and square root). Each
// kernel applies one PTX approximation that ptxas lowers to the MUFU on the high word of the operand, the low
// word being zero, to every input high word, and writes the result's high word (record_seed64.py checks the
// SASS and that the low word comes back zero).
#define SWEEP(name, insn)                                                                          \
    extern "C" __global__ void name(const unsigned *in, unsigned *out_hi, unsigned *out_lo, int n) \
    {                                                                                              \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                             \
        if (i >= n) return;                                                                        \
        double x = __hiloint2double((int)in[i], 0), r;                                             \
        asm(insn " %0, %1;" : "=d"(r) : "d"(x));                                                   \
        out_hi[i] = (unsigned)__double2hiint(r);                                                   \
        out_lo[i] = (unsigned)__double2loint(r);                                                   \
    }
SWEEP(seed_rcp64h, "rcp.approx.ftz.f64")
SWEEP(seed_rsq64h, "rsqrt.approx.ftz.f64")
