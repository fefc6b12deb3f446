// Kernels that call into the CUDA device runtime (libcudadevrt), which sassport refuses by name:
// a device-side launch (dynamic parallelism), a device-side stream, a device graph's conditional handle.
// Built with the pinned nvcc (not by cargo xtask corpus), for translator/tests/device_runtime.rs:
//   nvcc -cubin -arch=sm_86 -O3 -rdc=true device_runtime.cu -o device_runtime.rdc.cubin
//   nvcc -cubin -arch=sm_86 -O3 device_runtime.cu -DNO_LAUNCH -o device_runtime.cubin

extern "C" __global__ void child(int *out, int v) { out[threadIdx.x] = v + (int)threadIdx.x; }

#ifndef NO_LAUNCH
extern "C" __global__ void parent(int *out, int n)
{
    if (threadIdx.x == 0) child<<<1, 32>>>(out + 32 * blockIdx.x, n);
}

extern "C" __global__ void parent_stream(int *out, int n)
{
    if (threadIdx.x == 0) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        child<<<1, 32, 0, s>>>(out, n);
        cudaStreamDestroy(s);
    }
}
#endif

extern "C" __global__ void set_condition(cudaGraphConditionalHandle handle, const int *v)
{
    if (threadIdx.x == 0) cudaGraphSetConditional(handle, v[0] > 0);
}
