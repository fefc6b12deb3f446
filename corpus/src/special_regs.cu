// Special registers and launch geometry: thread/block indices and dimensions in x, y and z, the lane id and
// lane masks, the dynamic shared memory size, and clock reads (only their ordering is written, so the result
// is deterministic). Launch with a 3-D grid and block; out gets 12 words per thread.

extern "C" __global__ void special_registers(unsigned *out)
{
    // SASS: S2R SR_TID.X/Y/Z, SR_CTAID.X/Y/Z, SR_LANEID, SR_LTMASK/SR_LEMASK/SR_GTMASK, CS2R SR_CLOCKLO,
    // blockDim/gridDim from c[0x0][0x0..0x14], the dynamic shared size from the constant bank
    unsigned lane, le, gt, dsmem;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsmem));
    long long t0 = clock64();
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned local = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned i = block * threads + local;
    long long t1 = clock64();
    unsigned *o = out + i * 12;
    o[0] = threadIdx.x | (threadIdx.y << 10) | (threadIdx.z << 20);
    o[1] = blockIdx.x | (blockIdx.y << 10) | (blockIdx.z << 20);
    o[2] = blockDim.x | (blockDim.y << 10) | (blockDim.z << 20);
    o[3] = gridDim.x | (gridDim.y << 10) | (gridDim.z << 20);
    o[4] = lane;
    o[5] = le;
    o[6] = gt;
    o[7] = dsmem;
    o[8] = (unsigned)(t1 >= t0);
    o[9] = local & 31u;
    o[10] = warpSize;
    o[11] = i;
}
