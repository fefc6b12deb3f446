#!/usr/bin/env python3
"""Inputs and silicon recording of cvt_sweep.cu (see RECORDED.md).

    python3 record_cvt.py --inputs      writes cvt_sweep.in.bin (a, b as u32 words, then d as u64 words)
    python3 record_cvt.py OUTDIR        on the GPU machine: runs cvt_sweep.sm90.cubin with CuPy, writes
                                        OUTDIR/cvt_sweep.out.bin (16 u32 words per thread)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from record_mufu import rand_u32, splitmix  # noqa: E402

N = 16384


def f32_specials():
    v = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FFFFFFF,
         0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000]
    # f16 edges: 65504, 65519.99, 65520, 65536, smallest/largest f16 denormals and ties around them
    for f in [65504.0, 65519.0, 65520.0, 65536.0, 2.0**-24, 2.0**-25, 1.5 * 2.0**-25, 2.0**-26,
              2.0**-14, 2.0**-14 - 2.0**-24, 3 * 2.0**-25, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11,
              1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, 3.3895314e38, 3.3961776e38, 1e-40]:
        b = int(np.float32(f).view(np.uint32))
        v += [b, b ^ 0x80000000, b + 1, b - 1]
    return np.array(v, dtype=np.uint32)


def f64_specials():
    v = [0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000001,
         0x7FF0000000000001, 1, 0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF]
    for f in [65504.0, 65519.0, 65520.0, 65536.0, 2.0**-24, 2.0**-25, 1.5 * 2.0**-25, 2.0**-26,
              2.0**-14, 2.0**-14 - 2.0**-24, 3 * 2.0**-25, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11]:
        b = int(np.float64(f).view(np.uint64))
        v += [b, b ^ (1 << 63), b + 1, b - 1]
    return np.array(v, dtype=np.uint64)


def inputs():
    def f32_in(seed):
        r = rand_u32(seed, N)
        # exponents spread over the f16 range and beyond (2^-30 .. 2^20), a quarter fully random
        e = (r >> 23) % np.uint32(51) + np.uint32(127 - 30)
        s = (r & np.uint32(0x807FFFFF)) | (e << np.uint32(23))
        s = np.where(rand_u32(seed + 100, N) % np.uint32(4) == 0, rand_u32(seed + 200, N), s).astype(np.uint32)
        sp = f32_specials()
        s[: sp.size] = sp
        return s

    a = f32_in(11)
    b = np.roll(f32_in(12), 7)
    r = splitmix(13, N)
    e = (r >> np.uint64(52)) % np.uint64(51) + np.uint64(1023 - 30)
    d = (r & np.uint64(0x800FFFFFFFFFFFFF)) | (e << np.uint64(52))
    # doubles within a few units of a half's rounding boundary (double rounding through f32 would show)
    near = (splitmix(14, N) % np.uint64(4)) == np.uint64(0)
    d = np.where(near, (d & ~np.uint64((1 << 42) - 1)) | (np.uint64(1) << np.uint64(41)) + (r & np.uint64(7)) - np.uint64(3), d)
    sp = f64_specials()
    d[: sp.size] = sp
    return a.astype(np.uint32), b.astype(np.uint32), d.astype(np.uint64)


def main():
    if sys.argv[1] == "--inputs":
        a, b, d = inputs()
        with open(os.path.join(HERE, "cvt_sweep.in.bin"), "wb") as f:
            f.write(a.astype("<u4").tobytes() + b.astype("<u4").tobytes() + d.astype("<u8").tobytes())
        return
    import cupy

    raw = np.fromfile(os.path.join(HERE, "cvt_sweep.in.bin"), dtype=np.uint8)
    a = raw[: 4 * N].view("<u4")
    b = raw[4 * N: 8 * N].view("<u4")
    d = raw[8 * N:].view("<u8")
    mod = cupy.RawModule(path=os.path.join(HERE, "cvt_sweep.sm90.cubin"))
    out = cupy.zeros(16 * N, dtype=cupy.uint32)
    mod.get_function("cvt_sweep")(((N + 127) // 128,), (128,),
                                  (cupy.asarray(a), cupy.asarray(b), cupy.asarray(d), out, np.int32(N)))
    cupy.cuda.Device().synchronize()
    cupy.asnumpy(out).astype("<u4").tofile(os.path.join(sys.argv[1], "cvt_sweep.out.bin"))
    print("cvt_sweep", N)


if __name__ == "__main__":
    main()
