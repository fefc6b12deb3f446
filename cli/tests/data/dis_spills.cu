// Register pressure beyond -maxrregcount=32, so that ptxas spills to local memory and records each spill and
// refill in EIATTR_ANNOTATIONS; nvdisasm marks those STL/LDL lines (*"SpillRefill"*).
// Built with: nvcc -arch=sm_86 -cubin -O3 -maxrregcount=32 -o dis_spills.cubin dis_spills.cu
// Listing: nvdisasm -c -raw dis_spills.cubin > dis_spills.sass
extern "C" __global__ void dis_spills(const float *in, float *out, int rounds)
{
    float v[40];
#pragma unroll
    for (int j = 0; j < 40; j++)
        v[j] = in[threadIdx.x + j * 32];
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int j = 0; j < 40; j++)
            v[j] = v[j] * v[(j + 5) % 40] + v[(j + 11) % 40];
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < 40; j++)
        sum += v[j] * (float)(j + 1);
    out[threadIdx.x] = sum;
}
