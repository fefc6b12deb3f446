// Test input for `sassport translate` (cli/tests/translate.rs): one cubin holding a kernel whose mangled
// name is longer than a file name may be (NAME_MAX is 255 bytes; CUB and Thrust names reach 400+), a kernel
// the translator refuses (a performance-monitor event: PMTRIG is not translated), and a plain kernel. Built with the
// pinned nvcc 13.5.37: `cd cli/tests/data && nvcc -cubin -arch=sm_86 -O3 -o long_names.cubin long_names.cu`.

// A performance-monitor event (PTX pmevent, SASS PMTRIG): refused by the translator by name.
extern "C" __global__ void signal_pm_event(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("pmevent 1;");
    if (i < n) out[i] = float(i);
}

// out[i] = i + 1.
extern "C" __global__ void count_up(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = float(i + 1);
}

// A compile-time sequence whose instantiation spells every element into the kernel's mangled name.
template <int... Values> struct Sequence {
    static constexpr int count = sizeof...(Values);
};

// out[i] = i * (number of elements of S): the name is long, the code is short.
template <typename S> __global__ void scale_by_sequence_length(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = float(i) * float(S::count);
}

template __global__ void scale_by_sequence_length<Sequence<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95>>(float *, int);
