#!/usr/bin/env python3
"""Native CUDA versus sassport-through-Vulkan on one NVIDIA GPU, same kernels, same inputs.

Native side: the sm_90 build of a corpus kernel (corpus/sm90/*.cubin) launched through CuPy's RawModule and
timed with CUDA events. sassport side: the sm_86 build of the same source (corpus/sm86/*.cubin) translated to
SPIR-V and launched by `sassport run --device NVIDIA`, which times the dispatch with Vulkan timestamp queries.
Inputs are drawn here, written to files for sassport, and the outputs of both sides are compared with each
other (bit-exactly) and with a reference computed independently.

Usage (on the GPU machine, from the repository root; docs/perf/run.sh sets up the Vulkan loader):
    python3 docs/perf/bench.py --sassport .perf/sassport --work /tmp/perf --out $OUT
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import cupy as cp
import numpy as np

KERNEL_TIME = re.compile(r"kernel time ([0-9.]+) ms")
TRANSLATED = re.compile(r"translated in ([0-9.]+) ms")


def log(*a):
    print(*a, flush=True)


def native_times(f, grid, block, args, warm_reps, idle_reps):
    """CUDA-event times (ms) of warm back-to-back launches, and of single launches after 1 s idle."""
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def one():
        start.record()
        f(grid, block, args)
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end)

    for _ in range(3):
        one()  # module load, lazy function load, clocks up
    warm = [one() for _ in range(warm_reps)]
    idle = []
    for _ in range(idle_reps):
        time.sleep(1.0)  # about the host-side setup time of one sassport process
        idle.append(one())
    return warm, idle


def run_sassport(exe, cubin, kernel, grid, block, args, outdir, reps, warmer, extra=()):
    """Runs `sassport run` `reps` times; returns kernel times (ms), translate times, wall times, last outdir."""
    cmd = [exe, "run", cubin, "--kernel", kernel, "--grid", ",".join(map(str, grid)),
           "--block", ",".join(map(str, block)), "--device", "NVIDIA", "--out", outdir, *extra]
    for a in args:
        cmd += ["--arg", a]
    ktimes, ttimes, walls = [], [], []
    for r in range(reps):
        warmer()  # keep the GPU clocks where the native runs had them
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if p.returncode != 0:
            log("sassport failed:", " ".join(cmd))
            log(p.stdout)
            log(p.stderr)
            raise RuntimeError(f"sassport exited {p.returncode}: {p.stderr.strip()[:2000]}")
        if r == 0:
            log(p.stdout.strip())
        m = KERNEL_TIME.search(p.stdout)
        t = TRANSLATED.search(p.stdout)
        ktimes.append(float(m.group(1)))
        ttimes.append(float(t.group(1)) if t else float("nan"))
    return ktimes, ttimes, walls


def summary(ts):
    return {"min": min(ts), "median": statistics.median(ts), "max": max(ts), "n": len(ts), "all": ts}


def compare_bits(name, a, b):
    a = np.ascontiguousarray(a).view(np.uint32)
    b = np.ascontiguousarray(b).view(np.uint32)
    diff = int(np.count_nonzero(a != b))
    log(f"  {name}: {diff} of {a.size} words differ")
    return diff


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sassport", required=True)
    ap.add_argument("--work", default="/tmp/perf")
    ap.add_argument("--out", default=".")
    ap.add_argument("--reps", type=int, default=5, help="sassport processes per case")
    ap.add_argument("--warm-reps", type=int, default=50)
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    opts = ap.parse_args()
    os.makedirs(opts.work, exist_ok=True)
    exe = os.path.abspath(opts.sassport)
    rng = np.random.default_rng(20261129)

    dev = cp.cuda.Device(0)
    props = cp.cuda.runtime.getDeviceProperties(0)
    env = {
        "gpu": props["name"].decode(),
        "sm_count": props["multiProcessorCount"],
        "cuda_driver": cp.cuda.runtime.driverGetVersion(),
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cupy": cp.__version__,
        "nvidia_smi": subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit",
             "--format=csv,noheader"], capture_output=True, text=True).stdout.strip(),
        "sassport_devices": subprocess.run([exe, "devices"], capture_output=True, text=True).stdout.strip(),
    }
    log(json.dumps(env, indent=1))
    del dev

    # A clock warmer: ~150 ms of dense work right before each sassport process, so it starts with the GPU
    # clocks where the native timings had them (an idle H200 drops its SM clock to a few hundred MHz).
    wa = cp.random.random((4096, 4096), dtype=cp.float32)

    def warmer():
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.15:
            wa @ wa
            cp.cuda.Stream.null.synchronize()

    results = {"env": env, "cases": []}
    saxpy_n = 1 << 16 if opts.quick else 1 << 24  # 3 x 64 MiB: inside the runtime's 256 MiB window
    mm_sizes = [256] if opts.quick else [2048, 4096]
    cases = [("saxpy", "saxpy", saxpy_n)]
    cases += [("matmul", k, n) for k in ("matmul_regblock", "matmul_tiled") for n in mm_sizes]

    mods = {}
    for file, kernel, n in cases:
        log(f"== {kernel} n={n}")
        if file not in mods:
            mods[file] = cp.RawModule(path=f"corpus/sm90/{file}.cubin")
        f = mods[file].get_function(kernel)
        d = os.path.join(opts.work, f"{kernel}_{n}")
        os.makedirs(d, exist_ok=True)
        if kernel == "saxpy":
            a = np.float32(2.5)
            x = rng.standard_normal(n, dtype=np.float32)
            y = rng.standard_normal(n, dtype=np.float32)
            ref = (np.float64(a) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
            dx, dy = cp.asarray(x), cp.asarray(y)
            dout = cp.full(n, np.nan, dtype=np.float32)
            block = (256, 1, 1)
            grid = ((n + 255) // 256, 1, 1)
            nargs = (a, dx, dy, dout, np.int32(n))
            ins = {"x": x, "y": y}
            sargs = [f"f32:{float(a)!r}", f"buf:{d}/x.bin", f"buf:{d}/y.bin", f"buf:{d}/out.bin", f"i32:{n}"]
            out_arg = 3
            flops, bytes_moved = 2 * n, 12 * n
        else:
            # Random words; the kernel maps bits 19:16 of each to an integer in [-8, 7], so every product
            # and partial sum is an exact float and the result is independent of summation order.
            wa_ = rng.integers(0, 1 << 32, size=(n, n), dtype=np.uint32)
            wb_ = rng.integers(0, 1 << 32, size=(n, n), dtype=np.uint32)
            da, db = cp.asarray(wa_), cp.asarray(wb_)
            sa = (((da >> 16) & 15).astype(cp.int32) - 8).astype(cp.float64)
            sb = (((db >> 16) & 15).astype(cp.int32) - 8).astype(cp.float64)
            ref = cp.asnumpy(sa @ sb).astype(np.float32)  # exact: |sums| < 2^24 in float64
            del sa, sb
            dout = cp.full((n, n), np.nan, dtype=np.float32)
            if kernel == "matmul_regblock":
                block = (8, 8, 1)
            else:
                block = (16, 16, 1)
            grid = (n // 16, n // 16, 1)
            nargs = (da, db, dout, np.int32(n))
            ins = {"a": wa_, "b": wb_}
            sargs = [f"buf:{d}/a.bin", f"buf:{d}/b.bin", f"buf:{d}/out.bin", f"i32:{n}"]
            out_arg = 2
            flops, bytes_moved = 2 * n ** 3, 12 * n * n

        # Native: one checked launch on a poisoned output, then the timings.
        f(grid, block, nargs)
        cp.cuda.runtime.deviceSynchronize()
        native_out = cp.asnumpy(dout)
        if kernel == "saxpy":
            ulp = np.abs(native_out.view(np.int32).astype(np.int64) - ref.view(np.int32).astype(np.int64))
            native_ref_ok = bool(np.all(np.isfinite(native_out)) and ulp.max() <= 1)
            log(f"  native vs float64 reference: max {int(ulp.max())} ulp, {int(np.count_nonzero(ulp))} differ")
        else:
            native_ref_ok = bool(np.array_equal(native_out, ref))
            log(f"  native vs exact reference: {'equal' if native_ref_ok else 'DIFFERENT'}")
        warm, idle = native_times(f, grid, block, nargs, opts.warm_reps, 3)

        # sassport: same inputs as files, poisoned output.
        for k, v in ins.items():
            v.tofile(f"{d}/{k}.bin")
        np.full(native_out.size, 0xFFFFFFFF, dtype=np.uint32).tofile(f"{d}/out.bin")
        outdir = f"{d}/sassport_out"
        try:
            ktimes, ttimes, walls = run_sassport(exe, f"corpus/sm86/{file}.cubin", kernel, grid, block, sargs,
                                                 outdir, opts.reps, warmer)
        except RuntimeError as e:
            log(f"  {e}")
            results["cases"].append({"kernel": kernel, "n": n, "error": str(e),
                                     "native_warm_ms": summary(warm), "native_after_idle_ms": summary(idle)})
            continue
        sass_out = np.fromfile(f"{outdir}/arg{out_arg}.bin", dtype=np.float32).reshape(native_out.shape)
        diff = compare_bits("sassport vs native", sass_out, native_out)
        for i in range(len(sargs)):
            # Inputs must come back unchanged.
            p = f"{outdir}/arg{i}.bin"
            if i != out_arg and os.path.exists(p):
                name = sargs[i].split("/")[-1].removesuffix(".bin")
                if not np.array_equal(np.fromfile(p, dtype=np.uint8), ins[name].view(np.uint8).ravel()):
                    log(f"  input {name} changed by the sassport run!")
                    diff = max(diff, 1)

        case = {
            "kernel": kernel, "n": n, "grid": grid, "block": block, "flops": flops, "min_bytes": bytes_moved,
            "native_warm_ms": summary(warm), "native_after_idle_ms": summary(idle),
            "sassport_ms": summary(ktimes), "sassport_translate_ms": summary(ttimes),
            "sassport_process_wall_s": summary(walls),
            "native_matches_reference": native_ref_ok, "sassport_words_differing_from_native": diff,
        }
        case["ratio_median_vs_warm"] = case["sassport_ms"]["median"] / case["native_warm_ms"]["median"]
        case["ratio_best_vs_best"] = case["sassport_ms"]["min"] / case["native_warm_ms"]["min"]
        case["ratio_median_vs_after_idle"] = case["sassport_ms"]["median"] / case["native_after_idle_ms"]["median"]
        results["cases"].append(case)
        del dout, nargs
        cp.get_default_memory_pool().free_all_blocks()

    with open(os.path.join(opts.out, "results.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    log("")
    log(f"{'kernel':18} {'n':>9} {'native warm med':>16} {'native idle med':>16} {'sassport med':>13} "
        f"{'sassport min':>13} {'ratio':>7} {'match':>6}")
    for c in results["cases"]:
        if "error" in c:
            log(f"{c['kernel']:18} {c['n']:>9} {c['native_warm_ms']['median']:>13.4f} ms  sassport failed")
            continue
        log(f"{c['kernel']:18} {c['n']:>9} {c['native_warm_ms']['median']:>13.4f} ms "
            f"{c['native_after_idle_ms']['median']:>13.4f} ms {c['sassport_ms']['median']:>10.4f} ms "
            f"{c['sassport_ms']['min']:>10.4f} ms {c['ratio_median_vs_warm']:>7.2f} "
            f"{'yes' if c['sassport_words_differing_from_native'] == 0 and c['native_matches_reference'] else 'NO':>6}")


if __name__ == "__main__":
    sys.exit(main())
