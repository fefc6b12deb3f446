// Double-precision atomic add with the result unused (RED.E.ADD.F64.RN) and used (ATOMG.E.ADD.F64.RN), and a
// double add on shared memory (a compare-and-store loop, ATOMS.CAST.SPIN.64 [R.X8], on sm_86). Each thread
// owns its addresses, so every result is one IEEE round-to-nearest addition of acc[i] and arg[i]: exact
// arithmetic (Rust's f64 addition) is the reference.
// atomic_f64_add holds a warp vote (so it takes the warps-in-turns form); atomic_f64_add_plain does not.
// Built with: nvcc -arch=sm_86 -cubin -O3 -o atomic_f64_add.cubin atomic_f64_add.cu
__device__ void body(double *red, double *atom, double *old, double *shared_out, const double *arg, int n,
                     bool vote)
{
    __shared__ double s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? arg[i] : 0.0;
    s[threadIdx.x] = i < n ? atom[i] : 0.0;
    __syncthreads();
    // Never true for the test's inputs; there to put a VOTE in the kernel.
    if (vote && __ballot_sync(~0u, v == 12345.0) == 1u) v = -v;
    atomicAdd(&s[threadIdx.x], v);
    __syncthreads();
    if (i >= n) return;
    atomicAdd(&red[i], v);
    old[i] = atomicAdd(&atom[i], v);
    shared_out[i] = s[threadIdx.x];
}

extern "C" __global__ void atomic_f64_add(double *red, double *atom, double *old, double *shared_out,
                                          const double *arg, int n)
{
    body(red, atom, old, shared_out, arg, n, true);
}

extern "C" __global__ void atomic_f64_add_plain(double *red, double *atom, double *old, double *shared_out,
                                                const double *arg, int n)
{
    body(red, atom, old, shared_out, arg, n, false);
}
