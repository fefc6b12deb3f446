#!/usr/bin/env python3
"""MUFU input sweeps and their recording on NVIDIA silicon (see RECORDED.md).

`inputs(name)` gives the u32 input words of each sweep (numpy, deterministic: a splitmix64 stream, no
library RNG); the tests and the model fit regenerate them from this file. On the GPU machine:
    python3 record_mufu.py OUTDIR      (loads mufu_sweep.sm90.cubin with CuPy, writes OUTDIR/<sweep>.bin)
sin/cos: ptxas puts FMUL.RZ x, 1/(2*pi) before MUFU.SIN/COS; the cubin is patched at load time so that
immediate is 1.0 and the MUFU sees the input word itself (revolutions).
"""
import os
import sys

import numpy as np

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix(seed, n):
    """n u64 words of splitmix64 from `seed`."""
    with np.errstate(over="ignore"):
        i = np.arange(1, n + 1, dtype=np.uint64)
        z = np.uint64(seed) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def rand_u32(seed, n):
    return (splitmix(seed, n) >> np.uint64(32)).astype(np.uint32)


def f2u(v):
    return np.asarray(v, dtype=np.float32).view(np.uint32)


def float_range(lo_bits, hi_bits, stride):
    return np.arange(lo_bits, hi_bits, stride, dtype=np.uint64).astype(np.uint32)


def inputs(name):
    q = 2.0 ** -25
    if name in ("sin_q0", "cos_q0"):
        # the first quarter turn on the 2^-25-revolution grid, every 4th point
        return f2u(np.arange(0, 1 << 23, 4, dtype=np.float64) * q)
    if name == "sincos_misc":
        parts = []
        # random float bits, |x| in [2^-40, 2^24), both signs
        r = rand_u32(1, 1 << 18)
        e = (r >> 23) % np.uint32(64) + np.uint32(127 - 40)
        parts.append((r & np.uint32(0x807FFFFF)) | (e << np.uint32(23)))
        # random floats in (-1, 1) revolutions with every mantissa bit random
        r = rand_u32(2, 1 << 18)
        e = (r >> 23) % np.uint32(8) + np.uint32(127 - 8)
        parts.append((r & np.uint32(0x807FFFFF)) | (e << np.uint32(23)))
        # the 2^-25 grid in all four quadrants and one turn either side
        k = rand_u32(3, 1 << 18) % np.uint32(1 << 25)
        qd = (rand_u32(4, 1 << 18) % np.uint32(4)).astype(np.float64) - 2.0
        parts.append(f2u(qd + k.astype(np.float64) * q))
        # around every zero and extremum of sin/cos in [-2, 2]: m/4 +- j * 2^-25
        j = np.arange(0, 2048, dtype=np.float64) * q
        for m in range(-8, 9):
            parts.append(f2u(m / 4 + j))
            parts.append(f2u(m / 4 - j))
        # tiny arguments: j * 2^-25 and j * 2^-31
        parts.append(f2u(np.arange(0, 1 << 14, dtype=np.float64) * q))
        parts.append(f2u(np.arange(0, 1 << 14, dtype=np.float64) * 2.0 ** -31))
        return np.concatenate(parts)
    if name == "tanh":
        # |x| from 2^-14 to 16, every 61st float, and random negatives
        a = float_range(0x38800000, 0x41800000, 61)
        r = rand_u32(5, 1 << 16)
        e = (r >> 23) % np.uint32(20) + np.uint32(127 - 16)
        n = (r & np.uint32(0x007FFFFF)) | (e << np.uint32(23)) | np.uint32(0x80000000)
        return np.concatenate([a, n])
    if name == "lg2":
        a = float_range(0x3E800000, 0x40800000, 17)  # [0.25, 4)
        b = float_range(0x3F7F0000, 0x3F810000, 1)  # around 1, every float
        r = rand_u32(6, 1 << 18) & np.uint32(0x7FFFFFFF)
        return np.concatenate([a, b, r])
    if name == "ex2_rcp_rsq_sqrt":
        # one input set for all four (each output block in this order)
        a = float_range(0x3F800000, 0x40800000, 64)  # [1, 4)
        r = rand_u32(7, 1 << 17)
        e = (r >> 23) % np.uint32(16) + np.uint32(127 - 8)
        b = (r & np.uint32(0x807FFFFF)) | (e << np.uint32(23))  # ±[2^-8, 2^8)
        c = rand_u32(8, 1 << 16)
        return np.concatenate([a, b, c])
    raise KeyError(name)


SWEEPS = [
    ("sin_q0", ["mufu_sin"]),
    ("cos_q0", ["mufu_cos"]),
    ("sincos_misc", ["mufu_sin", "mufu_cos"]),
    ("tanh", ["mufu_tanh"]),
    ("lg2", ["mufu_lg2"]),
    ("ex2_rcp_rsq_sqrt", ["mufu_ex2", "mufu_rcp", "mufu_rsq", "mufu_sqrt"]),
]

FMUL_2PI = bytes.fromhex("2078090283f9223e")  # FMUL.RZ R9, R2, 1/(2*pi), little-endian low word
FMUL_ONE = bytes.fromhex("207809020000803f")  # the same with 1.0


def patched_cubin(path, out):
    data = open(path, "rb").read()
    assert data.count(FMUL_2PI) == 2, "expected two FMUL.RZ by 1/(2*pi)"
    open(out, "wb").write(data.replace(FMUL_2PI, FMUL_ONE))


def main():
    import cupy

    outdir = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    patched = os.path.join(outdir, "mufu_sweep.patched.cubin")
    patched_cubin(os.path.join(here, "mufu_sweep.sm90.cubin"), patched)
    mod = cupy.RawModule(path=patched)
    for name, kernels in SWEEPS:
        x = inputs(name)
        n = x.size
        d_in = cupy.asarray(x)
        outs = []
        for k in kernels:
            d_out = cupy.zeros(n, dtype=cupy.uint32)
            mod.get_function(k)(((n + 255) // 256,), (256,), (d_in, d_out, np.int32(n)))
            cupy.cuda.Device().synchronize()
            outs.append(cupy.asnumpy(d_out))
        np.concatenate(outs).astype("<u4").tofile(os.path.join(outdir, name + ".bin"))
        print(name, n, "inputs,", len(kernels), "ops")
    os.remove(patched)


if __name__ == "__main__":
    main()
