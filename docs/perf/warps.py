#!/usr/bin/env python3
"""Warps as subgroups versus warps in turns, on one NVIDIA GPU, against native CUDA (issue 7's benchmark).

Four corpus kernels over 2^24 elements: two block reductions and two block scans, each once with
warp shuffles and once with shared memory only. Every kernel runs natively (sm_90 cubin through CuPy, CUDA
events) and through sassport twice: `--warps auto` (warps as 32-wide subgroups on this device) and
`--warps turns` (the emulation lavapipe needs). Outputs are integers, so all three must agree bit for bit.

Usage (on the GPU machine, from the repository root, after docs/perf/run.sh's Vulkan set-up):
    python3 docs/perf/warps.py --sassport /tmp/sassport --work /tmp/warps --out $OUT
"""
import argparse
import json
import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import compare_bits, log, native_times, run_sassport, summary  # noqa: E402

CASES = [
    # kernel, output words per block (u32), extra output words
    ("reduce_shared_tree", 1, 0),
    ("reduce_warp_shuffle", 2, 2),
    ("scan_shared_inclusive", None, 0),
    ("scan_warp_exclusive", None, 0),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sassport", required=True)
    ap.add_argument("--work", default="/tmp/warps")
    ap.add_argument("--out", default=".")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=1 << 24)
    opts = ap.parse_args()
    os.makedirs(opts.work, exist_ok=True)
    exe = os.path.abspath(opts.sassport)
    n = opts.n
    rng = np.random.default_rng(20261130)
    x = rng.integers(0, 1 << 32, size=n, dtype=np.uint32)
    block, grid = (256, 1, 1), ((n + 255) // 256, 1, 1)
    mod = cp.RawModule(path="corpus/sm90/reduce_scan.cubin")
    results = []
    for kernel, per_block, extra in CASES:
        log(f"== {kernel} n={n}")
        words = n if per_block is None else per_block * grid[0] + extra
        d = os.path.join(opts.work, kernel)
        os.makedirs(d, exist_ok=True)
        x.tofile(f"{d}/in.bin")
        np.zeros(words, dtype=np.uint32).tofile(f"{d}/out.bin")
        f = mod.get_function(kernel)
        dx, dout = cp.asarray(x), cp.zeros(words, dtype=cp.uint32)
        f(grid, block, (dx, dout, np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        native_out = cp.asnumpy(dout)
        dout.fill(0)
        # The 64-bit atomic total accumulates across launches: time on a copy, compare the first launch.
        warm, idle = native_times(f, grid, block, (dx, dout, np.int32(n)), 20, 1)
        case = {"kernel": kernel, "n": n, "native_warm_ms": summary(warm)}
        sargs = [f"buf:{d}/in.bin", f"buf:{d}/out.bin", f"i32:{n}"]
        for mode in ("auto", "turns"):
            outdir = f"{d}/{mode}"
            try:
                kt, tt, _ = run_sassport(exe, "corpus/sm86/reduce_scan.cubin", kernel, grid, block, sargs, outdir,
                                         opts.reps, lambda: None, extra=("--warps", mode))
            except RuntimeError as e:
                case[mode] = {"error": str(e)[:500]}
                continue
            got = np.fromfile(f"{outdir}/arg1.bin", dtype=np.uint32)
            case[mode] = {"ms": summary(kt), "translate_ms": summary(tt),
                          "words_differing_from_native": compare_bits(f"{mode} vs native", got, native_out)}
        results.append(case)
        del dx, dout
        cp.get_default_memory_pool().free_all_blocks()
    with open(os.path.join(opts.out, "warps.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    log("")
    log(f"{'kernel':24} {'native ms':>10} {'subgroups ms':>13} {'turns ms':>10} {'turns/subgroups':>16} match")
    for c in results:
        a, t = c.get("auto", {}), c.get("turns", {})
        am = a.get("ms", {}).get("median", float("nan"))
        tm = t.get("ms", {}).get("median", float("nan"))
        ok = a.get("words_differing_from_native") == 0 and t.get("words_differing_from_native") == 0
        log(f"{c['kernel']:24} {c['native_warm_ms']['median']:>10.4f} {am:>13.4f} {tm:>10.4f} {tm / am:>16.2f} "
            f"{'yes' if ok else 'NO'}")


if __name__ == "__main__":
    sys.exit(main())
