#!/usr/bin/env python3
"""Record where an NVIDIA GPU faults on shared-memory accesses past a block's allocation, what such loads
read, what the hardware says a block's shared memory is, and how misaligned global accesses fail
(issue 24 item 4). Runs `limits.sm90.cubin` (built from `limits.cu`) with CuPy; no Rust, no network.

An illegal-address fault is sticky: it kills the CUDA context. So every probe runs in a worker process that
takes an ascending list of byte offsets and stops at the first fault; the controller starts a fresh worker
after each fault. Phase 1 sweeps each configuration by 4 bytes from just inside the array until the first
fault; phase 2 probes samples beyond it (each in its own process) to see whether everything past the first
fault faults too; the global misalignment probes run one per process.

    python3 record_limits.py run CUBIN OUTDIR [--budget SECONDS] [--jobs N]   writes OUTDIR/limits.json
    python3 record_limits.py plan                                              prints the plan (no GPU)
    python3 record_limits.py distill limits.json       the recording without per-offset detail (no GPU)
    python3 record_limits.py first-faults limits.json  the table the tests read (no GPU)
    python3 record_limits.py worker CUBIN JOBS_JSON                            (internal)
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

STATIC_SIZES = [4, 100, 1024, 1028, 4100]
DYNAMIC_SIZES = [0, 4, 100, 1024, 1028, 4100]
BOTH_DYNAMIC = [100, 1028]
# past_static_1024 launched with some dynamic shared memory as well: does the bound move with it?
STATIC_PLUS_DYNAMIC = [4, 128, 1024]
SWEEP_PAST = 0x2400  # phase 1 sweeps from 16 bytes inside the array to this far past its end
SAMPLES_PAST_FAULT = [4, 8, 12, 16, 28, 60, 124, 252, 508, 1020, 4092, 0x2000, 0xfffc, 0x40000]
SAMPLES_FAR = [0x1c00, 0x5c00, 0xdc00, 0x1dc00, 0x35c00, 0x3dc00, 0xfdc00]
NEGATIVE = [4, 0x100, 0x3fc, 0x400, 0x404, 0x800]
VALUE_TAG = 0x51000000
FILL_PATTERN = 0xDD000000


def configs():
    """Each sweep: (name, kernel, dynamic bytes, words the kernel fills, array bytes, mode)."""
    out = []
    for mode in (1, 2, 3):
        for s in STATIC_SIZES:
            out.append(("static%d/mode%d" % (s, mode), "past_static_%d" % s, 0, s // 4, s, mode))
        for d in DYNAMIC_SIZES:
            out.append(("dynamic%d/mode%d" % (d, mode), "past_dynamic", d, d // 4, d, mode))
        for d in BOTH_DYNAMIC:
            out.append(("static1028+dynamic%d/mode%d" % (d, mode), "past_both", d, d // 4, d, mode))
        for d in STATIC_PLUS_DYNAMIC:
            out.append(("static1024+unused_dynamic%d/mode%d" % (d, mode), "past_static_1024", d, 256, 1024, mode))
    return out


def probe_job(kernel, smem, words, off, mode):
    return {"kind": "probe", "kernel": kernel, "smem": smem, "words": words, "off": off & 0xFFFFFFFF,
            "mode": mode, "value": (VALUE_TAG | (off & 0xFFFFFF)) & 0xFFFFFFFF}


def global_jobs():
    jobs = []
    for kernel, offs in [("global_load64_at", [0, 4, 8]), ("global_store64_at", [0, 4]),
                         ("global_load128_at", [0, 4, 8, 16]), ("global_store128_at", [0, 8]),
                         ("global_load32_at", [0, 1, 2]), ("global_atomic64_at", [0, 4]),
                         ("global_atomic32_at", [0, 2])]:
        for off in offs:
            jobs.append({"kind": "global", "kernel": kernel, "off": off})
    return jobs


def size_jobs():
    # The kernels write dyn[0]: at least 4 bytes of dynamic shared memory, or that store is past the end.
    return [{"kind": "sizes", "kernel": "smem_sizes_%d" % s, "smem": d}
            for s in (4, 1028, 4100) for d in (4, 100, 1024, 1028)]


# ---- worker (one CUDA context) --------------------------------------------------------------------------

def worker(cubin, jobs_path):
    import numpy as np
    import cupy
    with open(jobs_path) as f:
        jobs = json.load(f)
    mod = cupy.RawModule(path=cubin)
    u32 = np.uint32
    try:
        # Stale data for later loads to find: a pattern in 48 KiB of shared memory on every SM.
        fill_out = cupy.zeros(1024, dtype=cupy.uint32)
        mod.get_function("fill_shared")((1024,), (256,), (u32(FILL_PATTERN), fill_out))
        cupy.cuda.runtime.deviceSynchronize()
    except Exception as e:  # report and stop: the context is gone
        print(json.dumps({"job": None, "ok": False, "error": "fill_shared: %s" % e}), flush=True)
        return
    for job in jobs:
        try:
            result = run_job(cupy, np, mod, job)
            result.update({"job": job, "ok": True})
            print(json.dumps(result), flush=True)
        except Exception as e:
            print(json.dumps({"job": job, "ok": False, "error": "%s: %s" % (type(e).__name__, e)}), flush=True)
            return


def run_job(cupy, np, mod, job):
    u32 = np.uint32
    f = mod.get_function(job["kernel"])
    if job["kind"] == "probe":
        words = job["words"]
        out = cupy.zeros(2 + words + 2, dtype=cupy.uint32)
        args = [u32(job["off"]), u32(job["value"]), u32(job["mode"]), out]
        if job["kernel"] in ("past_dynamic", "past_both"):
            args.append(u32(words))
        f((1,), (32,), tuple(args), shared_mem=job["smem"])
        cupy.cuda.runtime.deviceSynchronize()
        o = cupy.asnumpy(out).tolist()
        changed = [[i, o[2 + i]] for i in range(words) if o[2 + i] != (0xA5000000 | i)]
        r = {"read": o[0], "reached": o[1], "changed": changed}
        if job["kernel"] == "past_both":
            r["fixed_last"] = o[2 + words]
        return r
    if job["kind"] == "sizes":
        out = cupy.zeros(16, dtype=cupy.uint32)
        f((1,), (32,), (out,), shared_mem=job["smem"])
        cupy.cuda.runtime.deviceSynchronize()
        o = cupy.asnumpy(out).tolist()
        names = ["total_smem_size", "dynamic_smem_size", "static_array_address", "dynamic_array_address",
                 "aggr_smem_size", "reserved_smem_offset_begin", "reserved_smem_offset_end",
                 "reserved_smem_offset_cap"]
        return dict(zip(names, o))
    if job["kind"] == "global":
        base = cupy.arange(64, dtype=cupy.uint32) | u32(0x6C000000)
        out = cupy.zeros(8, dtype=cupy.uint32)
        off = u32(job["off"])
        k = job["kernel"]
        if k == "global_store64_at":
            args = (base, off, np.uint64(0x1122334455667788))
        elif k == "global_store128_at":
            src = cupy.asarray(np.array([1, 2, 3, 4], dtype=np.uint32))
            args = (base, off, src)
        else:
            args = (base, off, out)
        f((1,), (1,), args)
        cupy.cuda.runtime.deviceSynchronize()
        return {"out": cupy.asnumpy(out).tolist(), "base": cupy.asnumpy(base)[:8].tolist()}
    raise ValueError("unknown job kind %r" % job["kind"])


# ---- controller -----------------------------------------------------------------------------------------

class Controller:
    def __init__(self, cubin, outdir, budget, jobs):
        self.cubin = os.path.abspath(cubin)
        self.outdir = outdir
        self.deadline = time.time() + budget
        self.parallel = jobs
        self.processes = 0
        os.makedirs(outdir, exist_ok=True)
        self.scratch = tempfile.mkdtemp(prefix="record_limits.")  # job lists; only results go to outdir

    def spawn(self, jobs, tag):
        """Runs jobs in one worker; returns the result lines it printed (it stops at the first fault)."""
        if time.time() > self.deadline:
            return [{"job": j, "ok": None, "error": "skipped: time budget spent"} for j in jobs[:1]]
        path = os.path.join(self.scratch, "jobs.%s.json" % tag.replace("/", "_").replace("+", "_"))
        with open(path, "w") as f:
            json.dump(jobs, f)
        self.processes += 1
        try:
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "worker", self.cubin, path],
                               capture_output=True, text=True, timeout=120)
            stdout, stderr = p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            out = e.stdout or ""
            stdout, stderr = (out.decode() if isinstance(out, bytes) else out), "worker timed out after 120 s"
        finally:
            try:
                os.remove(path)
            except OSError:
                pass
        lines = []
        for line in stdout.splitlines():
            try:
                lines.append(json.loads(line))
            except ValueError:
                pass
        if len(lines) < len(jobs) and (not lines or lines[-1].get("ok")):
            lines.append({"job": jobs[len(lines)] if len(lines) < len(jobs) else None, "ok": False,
                          "error": "worker ended early: %s" % stderr[-2000:]})
        return lines

    def sweep(self, cfg):
        name, kernel, smem, words, size, mode = cfg
        offsets = list(range(max(0, size - 16), size + SWEEP_PAST + 1, 4))
        jobs = [probe_job(kernel, smem, words, o, mode) for o in offsets]
        lines = self.spawn(jobs, name)
        passed = [l for l in lines if l.get("ok")]
        fault = next((l for l in lines if l.get("ok") is False), None)
        # Loads of memory the kernel never wrote (mode 2): what they read, where they passed.
        reads = {}
        for l in passed:
            off = l["job"]["off"]
            if off >= size:
                reads[off] = l["read"]
        wraps = [[l["job"]["off"], l["changed"]] for l in passed if l["changed"] and l["job"]["off"] >= size]
        result = {"name": name, "kernel": kernel, "dynamic_bytes": smem, "array_bytes": size, "mode": mode,
                  "swept": [offsets[0], offsets[-1]], "last_pass": passed[-1]["job"]["off"] if passed else None,
                  "first_fault": fault["job"]["off"] if fault and fault.get("job") else None,
                  "fault_error": fault["error"] if fault else None,
                  "reads_past_end": summarize_reads(reads, size, mode), "wrapped_into_array": wraps[:8],
                  "samples": []}
        if mode != 3:
            # Past the first fault (or, when the sweep found none, past its end, farther out).
            base = result["first_fault"]
            steps = SAMPLES_PAST_FAULT if base is not None else SAMPLES_FAR
            base = offsets[-1] if base is None else base
            for d in steps:
                off = base + d
                r = self.spawn([probe_job(kernel, smem, words, off, mode)], "%s.%d" % (name, off))
                result["samples"].append(brief(off, r))
            if kernel == "past_static_1024" and smem == 0:
                for k in NEGATIVE:
                    off = (1 << 32) - k
                    r = self.spawn([probe_job(kernel, smem, words, off, mode)], "%s.neg%d" % (name, k))
                    result["samples"].append(brief(-k, r))
        return result

    def run(self):
        started = time.time()
        with ThreadPoolExecutor(self.parallel) as pool:
            sweeps = list(pool.map(self.sweep, configs()))
            sizes = list(pool.map(lambda j: brief_any(j, self.spawn([j], j["kernel"] + ".%d" % j["smem"])),
                                  size_jobs()))
            globals_ = list(pool.map(lambda j: brief_any(j, self.spawn([j], "%s.%d" % (j["kernel"], j["off"]))),
                                     global_jobs()))
        record = {"device": device_info(), "seconds": round(time.time() - started, 1),
                  "worker_processes": self.processes, "value_tag": VALUE_TAG, "fill_pattern": FILL_PATTERN,
                  "sweeps": sweeps, "sizes": sizes, "global": globals_}
        with open(os.path.join(self.outdir, "limits.json"), "w") as f:
            json.dump(record, f, indent=1)
        for s in sweeps:
            print("%-40s last pass %s first fault %s  %s" % (s["name"], hexo(s["last_pass"]),
                                                           hexo(s["first_fault"]), (s["fault_error"] or "")[:60]))
        for s in sizes:
            print(s)
        for g in globals_:
            print(g)
        print("%d worker processes, %.0f s" % (self.processes, time.time() - started))


def hexo(v):
    return "-" if v is None else "0x%x" % v


def summarize_reads(reads, size, mode):
    """Distinct values loads past the end read, with the first offset of each (mode 2: never stored)."""
    if mode == 1:
        return None
    seen = {}
    for off in sorted(reads):
        v = reads[off]
        key = "0x%08x" % v
        if mode == 3:
            key = "own store" if v == (VALUE_TAG | (off & 0xFFFFFF)) else key
        elif (v & 0xFF000000) == FILL_PATTERN:
            key = "fill pattern"
        seen.setdefault(key, [off, 0])
        seen[key][1] += 1
    return seen


def brief(off, lines):
    l = lines[-1] if lines else {"ok": False, "error": "no output"}
    return {"off": off, "ok": l.get("ok"), "read": l.get("read"), "error": l.get("error")}


def brief_any(job, lines):
    l = lines[-1] if lines else {"ok": False, "error": "no output"}
    return dict(job=job, **{k: v for k, v in l.items() if k != "job"})


def device_info():
    try:
        p = subprocess.run([sys.executable, "-c", (
            "import cupy, json\n"
            "d = cupy.cuda.runtime.getDeviceProperties(0)\n"
            "keep = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in d.items()\n"
            "        if 'hared' in k or k in ('name', 'major', 'minor', 'multiProcessorCount')}\n"
            "keep['driver'] = cupy.cuda.runtime.driverGetVersion()\n"
            "keep['runtime'] = cupy.cuda.runtime.runtimeGetVersion()\n"
            "keep['cupy'] = cupy.__version__\n"
            "print(json.dumps(keep))\n")], capture_output=True, text=True, timeout=120)
        return json.loads(p.stdout.strip().splitlines()[-1])
    except Exception as e:
        return {"error": str(e)}


def distill(path):
    """The recording without per-offset detail: what is committed as limits.recorded.json."""
    with open(path) as f:
        r = json.load(f)
    short = lambda e: None if e is None else e.split(":")[-1].strip()[:80]
    return {
        "device": r["device"], "seconds": r["seconds"], "worker_processes": r["worker_processes"],
        "sweeps": [{k: s[k] for k in ("name", "kernel", "dynamic_bytes", "array_bytes", "mode", "swept",
                                      "last_pass", "first_fault", "reads_past_end", "wrapped_into_array")}
                   | {"fault_error": short(s["fault_error"]),
                      "samples": [[x["off"], x["ok"], x["read"], short(x["error"])] for x in s["samples"]]}
                   for s in r["sweeps"]],
        "sizes": [{"kernel": x["job"]["kernel"], "dynamic_bytes": x["job"]["smem"]}
                  | {k: v for k, v in x.items() if k not in ("job",)} for x in r["sizes"]],
        "global": [[x["job"]["kernel"], x["job"]["off"], x["ok"], short(x.get("error")), x.get("out")]
                   for x in r["global"]],
    }


def first_faults(path):
    """One line per sweep for the tests: kernel, dynamic bytes, mode, last offset that ran, first that faulted."""
    with open(path) as f:
        r = json.load(f)
    lines = ["# Recorded by record_limits.py on %s (driver %s, CuPy %s) from limits.sm90.cubin: per probe, the"
             % (r["device"].get("name"), r["device"].get("driver"), r["device"].get("cupy")),
             "# kernel, dynamic shared bytes, mode (1 store, 2 load, 3 store then load), the last byte offset from",
             "# the probed array's start that ran (- for none) and the first that faulted, sweeping by 4 bytes.",
             "# Every sampled offset past the first fault faulted too (up to 256 KiB past)."]
    for s in r["sweeps"]:
        lines.append("%s %d %d %s %s" % (s["kernel"], s["dynamic_bytes"], s["mode"], hexo(s["last_pass"]),
                                         hexo(s["first_fault"])))
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "worker":
        worker(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "distill":
        print(json.dumps(distill(sys.argv[2]), indent=1))
    elif len(sys.argv) >= 3 and sys.argv[1] == "first-faults":
        sys.stdout.write(first_faults(sys.argv[2]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "plan":
        c = configs()
        print("%d sweeps, %d size jobs, %d global jobs" % (len(c), len(size_jobs()), len(global_jobs())))
        for cfg in c:
            print(cfg)
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        budget, jobs = 420.0, 12
        args = sys.argv[4:]
        if "--budget" in args:
            budget = float(args[args.index("--budget") + 1])
        if "--jobs" in args:
            jobs = int(args[args.index("--jobs") + 1])
        Controller(sys.argv[2], sys.argv[3], budget, jobs).run()
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
