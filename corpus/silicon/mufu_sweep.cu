// MUFU sweeps for modelling the special-function unit (corpus/silicon/RECORDED.md): each kernel applies one
// PTX approximation, which ptxas lowers to one MUFU instruction, to every input word. sin/cos go through an
// FMUL.RZ by 1/(2*pi) first; record_mufu.py patches that immediate to 1.0 so the MUFU sees the input itself.
#define SWEEP(name, insn)                                                                      \
    extern "C" __global__ void name(const unsigned *in, unsigned *out, int n)                 \
    {                                                                                          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                         \
        if (i >= n) return;                                                                    \
        float x = __uint_as_float(in[i]), r;                                                   \
        asm(insn " %0, %1;" : "=f"(r) : "f"(x));                                               \
        out[i] = __float_as_uint(r);                                                           \
    }
SWEEP(mufu_sin, "sin.approx.ftz.f32")
SWEEP(mufu_cos, "cos.approx.ftz.f32")
SWEEP(mufu_tanh, "tanh.approx.f32")
SWEEP(mufu_lg2, "lg2.approx.ftz.f32")
SWEEP(mufu_ex2, "ex2.approx.ftz.f32")
SWEEP(mufu_rcp, "rcp.approx.ftz.f32")
SWEEP(mufu_rsq, "rsqrt.approx.ftz.f32")
SWEEP(mufu_sqrt, "sqrt.approx.ftz.f32")
