#!/usr/bin/env python3
"""MUFU.RCP64H / RSQ64H sweeps on NVIDIA silicon (issue 23), from seed64_sweep.sm90.cubin.

Inputs (`inputs(kernel)`, deterministic): special high words (zeros, denormals, infinities, NaNs, negatives),
then every high word with a 20-bit significand at the exponent fields 1023 and 1024 (both signs for
RCP64H), then every 16th significand at the exponent fields 1, 2, 3, 1021, 1022, 1025, 2045, 2046. On the GPU
machine:
    python3 record_seed64.py OUT.npz
writes, per kernel, `<kernel>_special_hi` (the results of the special inputs) and `<kernel>_diff`: the
silicon high word minus the high word of the correctly rounded f64 1/d (RCP) or 1/sqrt(d) (RSQ) computed by
numpy, as int8 (`<kernel>_hi` in full instead when a difference does not fit), plus the count of results
whose low word was not zero. The difference form keeps the file small (most are 0 or +-1).
"""
import os
import sys

import numpy as np

SPECIAL = [0x0, 0x80000000, 0x1, 0x000FFFFF, 0x800FFFFF, 0x7FF00000, 0xFFF00000, 0x7FF80000, 0x7FF00001,
           0xFFF80000, 0xBFF00000, 0x80100000]
FULL = [1023, 1024]
SAMPLED = [1, 2, 3, 1021, 1022, 1025, 2045, 2046]


def regular(kernel):
    signs = [0, 1] if kernel == "seed_rcp64h" else [0]
    f = np.arange(1 << 20, dtype=np.uint32)
    parts = []
    for s in signs:
        for e in FULL:
            parts.append(np.uint32(s << 31) | np.uint32(e << 20) | f)
        for e in SAMPLED:
            parts.append(np.uint32(s << 31) | np.uint32(e << 20) | f[::16])
    return np.concatenate(parts).astype(np.uint32)


def inputs(kernel):
    return np.concatenate([np.array(SPECIAL, dtype=np.uint32), regular(kernel)])


def reference_hi(kernel, hi):
    d = (hi.astype(np.uint64) << np.uint64(32)).view(np.float64)
    r = 1.0 / d if kernel == "seed_rcp64h" else 1.0 / np.sqrt(d)
    return (r.view(np.uint64) >> np.uint64(32)).astype(np.uint32)


def main():
    import cupy

    out = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    mod = cupy.RawModule(path=os.path.join(here, "seed64_sweep.sm90.cubin"))
    arrays = {}
    for k in ["seed_rcp64h", "seed_rsq64h"]:
        x = inputs(k)
        n = len(x)
        d_in = cupy.asarray(x)
        d_hi = cupy.zeros(n, dtype=cupy.uint32)
        d_lo = cupy.zeros(n, dtype=cupy.uint32)
        mod.get_function(k)(((n + 255) // 256,), (256,), (d_in, d_hi, d_lo, np.int32(n)))
        cupy.cuda.Device().synchronize()
        hi = cupy.asnumpy(d_hi)
        lo = cupy.asnumpy(d_lo)
        ns = len(SPECIAL)
        arrays[k + "_special_hi"] = hi[:ns]
        diff = hi[ns:].astype(np.int64) - reference_hi(k, x[ns:]).astype(np.int64)
        if np.all(np.abs(diff) < 128):
            arrays[k + "_diff"] = diff.astype(np.int8)
        else:
            arrays[k + "_hi"] = hi[ns:]
        arrays[k + "_lo_nonzero"] = np.array([np.count_nonzero(lo)], dtype=np.int64)
        vals, counts = np.unique(np.clip(diff, -5, 5), return_counts=True)
        print(k, n, "inputs; low words nonzero:", int(np.count_nonzero(lo)), "; hi - reference:",
              dict(zip(vals.tolist(), counts.tolist())))
    np.savez_compressed(out, **arrays)
    print("wrote", out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
