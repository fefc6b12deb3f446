#!/usr/bin/env python3
"""Record silicon goldens for the corpus on an NVIDIA GPU (an H200 / sm_90; see corpus/README.md).

For every line of corpus/launches.txt this script builds the same input buffers as the Rust side
(`sassport_corpus::inputs`), launches the kernel from corpus/sm90/<file>.cubin with CuPy, and writes every
buffer argument, after the launch, to corpus/goldens/<kernel>.arg<i>.bin (i = argument index, scalars
included in the count). A summary of the recording (GPU, driver, CuPy, cubin hashes) goes to
corpus/goldens/RECORDED.txt.

The generator and manifest parser need only the Python standard library, so they can be checked without a
GPU:  python3 corpus/record_silicon.py --print-words SEED COUNT   (prints generated words in hex)
      python3 corpus/record_silicon.py --parse-only               (parses the manifest, prints layouts)
Record: python3 corpus/record_silicon.py [--out DIR] [--only KERNEL ...] [--repeat N]
"""

import argparse
import ctypes
import datetime
import hashlib
import os
import struct
import sys

CORPUS = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------------------
# Input generator: mirror of corpus/inputs.rs. Keep both in step with the README's "Input generator".

SEED_MIX = 0x9E3779B97F4A7C15
MULTIPLIER = 0x2545F4914F6CDD1D
MASK64 = (1 << 64) - 1

SPECIAL_WORDS = [
    # FP32 (entries 0-39)
    0x00000000, 0x7F800000, 0x80000000, 0xFF800000, 0x3F800000, 0x7FC00000, 0xBF800000, 0xFFC00001,
    0x7F800001, 0x7FFFFFFF, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F000000,
    0x3FC00000, 0x40200000, 0xC0200000, 0x3EFFFFFF, 0x4B000001, 0x4F000000, 0xCF000000, 0x4F800000,
    0x5F000000, 0xDF000001, 0x477FE000, 0x477FF000, 0x33800000, 0x387FC000, 0x40490FDB, 0xC0490FDB,
    0x3DCCCCCD, 0x49742400, 0x42B17218, 0xC2CE8ED0, 0xFFFFFFFF, 0x4EFFFFFF, 0x3F7FFFFF, 0x00400000,
    # FP64 as (low, high) (entries 40-63)
    0x00000000, 0x00000000, 0x00000000, 0x7FF00000, 0x00000000, 0xFFF00000, 0x00000000, 0x7FF80000,
    0x00000001, 0x00000000, 0x00000000, 0x00100000, 0xFFFFFFFF, 0x7FEFFFFF, 0x00000000, 0x3FF80000,
    0x00000000, 0xC0040000, 0x00000000, 0x41E00000, 0x00000000, 0x43E00000, 0x55555555, 0x3FD55555,
]
assert len(SPECIAL_WORDS) == 64


def word_stream(seed):
    """The xorshift64* stream of 32-bit words (high half of each 64-bit output)."""
    state = (seed ^ SEED_MIX) & MASK64
    if state == 0:
        state = SEED_MIX
    while True:
        state ^= state >> 12
        state ^= (state << 25) & MASK64
        state ^= state >> 27
        yield ((state * MULTIPLIER) & MASK64) >> 32


def fnv1a64(data):
    """FNV-1a, 64-bit: the cubin fingerprint in RECORDED.txt, checked by corpus/tests/goldens.rs."""
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & MASK64
    return h


def special_word(k, seed):
    return SPECIAL_WORDS[(k + 2 * (seed % 32)) % 64]


def generate(nbytes, seed):
    """Contents of a buf:in:<nbytes>:<seed> buffer."""
    words = []
    stream = word_stream(seed)
    for k in range((nbytes + 3) // 4):
        w = next(stream)
        words.append(special_word(k, seed) if k < 64 else w)
    return struct.pack("<%dI" % len(words), *words)[:nbytes]


# ---------------------------------------------------------------------------------------------------------
# Manifest: mirror of corpus/launch.rs.

class ManifestError(ValueError):
    pass


def _number(text):
    """Unsigned decimal or 0x hexadecimal; None when malformed."""
    if text.startswith("0x"):
        digits = text[2:]
        if digits and all(c in "0123456789abcdefABCDEF" for c in digits):
            return int(digits, 16)
        return None
    if text and all(c in "0123456789" for c in text):
        return int(text)
    return None


def _signed(text):
    if text.startswith("-"):
        v = _number(text[1:])
        return None if v is None else -v
    return _number(text)


def _ranged(v, lo, hi):
    return v if v is not None and lo <= v <= hi else None


def _parse_arg(text):
    """Returns (kind, value) with kind in i32 u32 i64 u64 f32 f64 raw in out."""
    if ":" not in text:
        raise ValueError("expected KIND:VALUE")
    kind, value = text.split(":", 1)
    if kind in ("i32", "u32", "i64", "u64"):
        bits = 32 if kind.endswith("32") else 64
        if kind[0] == "i":
            v = _ranged(_signed(value), -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        else:
            v = _ranged(_number(value), 0, (1 << bits) - 1)
        if v is None:
            raise ValueError("not a " + kind)
        return kind, v
    if kind in ("f32", "f64"):
        try:
            v = float(value)
        except ValueError:
            raise ValueError("not a decimal number")
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError("not finite")
        if kind == "f32" and struct.unpack("<f", struct.pack("<f", v))[0] != v:
            raise ValueError("not exactly representable as f32")
        return kind, v
    if kind == "raw":
        if ":" not in value:
            raise ValueError("expected raw:ALIGN:HEXBYTES")
        align, hexbytes = value.split(":", 1)
        align = _number(align)
        if align not in (1, 2, 4, 8, 16):
            raise ValueError("alignment must be 1, 2, 4, 8 or 16")
        if not hexbytes or len(hexbytes) % 2 or not all(c in "0123456789abcdefABCDEF" for c in hexbytes):
            raise ValueError("raw bytes must be an even, non-zero number of hex digits")
        return "raw", (align, bytes.fromhex(hexbytes))
    if kind == "buf":
        fields = value.split(":")
        if len(fields) == 3 and fields[0] == "in":
            size, seed = _number(fields[1]), _ranged(_number(fields[2]), 0, MASK64)
            if not size or seed is None:
                raise ValueError("expected buf:in:BYTES:SEED with BYTES > 0")
            return "in", (size, seed)
        if len(fields) == 2 and fields[0] == "out":
            size = _number(fields[1])
            if not size:
                raise ValueError("expected buf:out:BYTES with BYTES > 0")
            return "out", size
        raise ValueError("expected buf:in:BYTES:SEED or buf:out:BYTES")
    raise ValueError("unknown kind (known: i32 u32 i64 u64 f32 f64 raw buf)")


def _dim3(what, text):
    parts = text.split(",")
    values = [_ranged(_number(p), 1, 0xFFFFFFFF) for p in parts]
    if len(parts) > 3 or None in values:
        raise ValueError("bad %s %r" % (what, text))
    return tuple(values + [1] * (3 - len(values)))


def _name(text):
    if not text or not all(c.isascii() and (c.isalnum() or c == "_") for c in text):
        raise ValueError("bad name %r" % text)
    return text


class Launch:
    def __init__(self, line, file, kernel, grid, block, smem, cmp, args):
        self.line, self.file, self.kernel = line, file, kernel
        self.grid, self.block, self.smem, self.cmp, self.args = grid, block, smem, cmp, args

    def param_layout(self):
        """[(offset, size)] per argument, each aligned to its natural alignment (buffers: 8-byte pointers)."""
        offset, slots = 0, []
        for kind, value in self.args:
            if kind in ("i32", "u32", "f32"):
                size, align = 4, 4
            elif kind == "raw":
                align, size = value[0], len(value[1])
            else:
                size, align = 8, 8
            offset = (offset + align - 1) // align * align
            slots.append((offset, size))
            offset += size
        return slots

    def param_bytes(self, addresses):
        """The packed parameter buffer; addresses[k] is the device address of the k-th buffer argument."""
        slots = self.param_layout()
        out = bytearray(slots[-1][0] + slots[-1][1] if slots else 0)
        buffers = iter(addresses)
        fmt = {"i32": "<i", "u32": "<I", "i64": "<q", "u64": "<Q", "f32": "<f", "f64": "<d"}
        for (kind, value), (offset, size) in zip(self.args, slots):
            if kind in fmt:
                data = struct.pack(fmt[kind], value)
            elif kind == "raw":
                data = value[1]
            else:
                data = struct.pack("<Q", next(buffers))
            out[offset:offset + size] = data
        return bytes(out)


def parse_manifest(text):
    launches, seen = [], {}
    for number, raw in enumerate(text.splitlines(), start=1):
        content = raw.strip()
        if not content or content.startswith("#"):
            continue
        try:
            tokens = content.split()
            if len(tokens) < 4:
                raise ValueError("missing " + ["FILE", "KERNEL", "GRID", "BLOCK"][len(tokens)])
            file, kernel = _name(tokens[0]), _name(tokens[1])
            grid, block = _dim3("GRID", tokens[2]), _dim3("BLOCK", tokens[3])
            if block[0] * block[1] * block[2] > 1024:
                raise ValueError("BLOCK has more than 1024 threads")
            rest = tokens[4:]
            smem, cmp = 0, "exact"
            while rest and "=" in rest[0]:
                key, value = rest.pop(0).split("=", 1)
                if key == "smem" and _ranged(_number(value), 0, 0xFFFFFFFF) is not None:
                    smem = _number(value)
                elif key == "cmp" and (value == "exact" or (value.split(":")[0] in ("f32ulp", "f64ulp")
                                                          and len(value.split(":")) == 2
                                                          and _number(value.split(":")[1]) is not None)):
                    cmp = value
                elif key == "cpu" and value == "skip":
                    pass  # only sassport's CPU devices skip the launch; silicon records it
                else:
                    raise ValueError("bad option %r" % (key + "=" + value))
            args = []
            for index, text_arg in enumerate(rest):
                try:
                    args.append(_parse_arg(text_arg))
                except ValueError as e:
                    raise ValueError("bad argument %d %r: %s" % (index, text_arg, e))
        except ValueError as e:
            raise ManifestError("launches.txt line %d: %s" % (number, e))
        if kernel in seen:
            raise ManifestError("launches.txt line %d: kernel %r is already launched on line %d"
                                % (number, kernel, seen[kernel]))
        seen[kernel] = number
        launches.append(Launch(number, file, kernel, grid, block, smem, cmp, args))
    return launches


# ---------------------------------------------------------------------------------------------------------
# Recording (needs CuPy and an NVIDIA GPU).

CU_LAUNCH_PARAM_END = 0
CU_LAUNCH_PARAM_BUFFER_POINTER = 1
CU_LAUNCH_PARAM_BUFFER_SIZE = 2
CUDA_LIMIT_STACK_SIZE = 0
# calls.cu recurses; its stack size is unknowable statically, so give every thread a generous stack.
STACK_BYTES = 16384


def launch_packed(function_ptr, launch, params, stream_ptr):
    """cuLaunchKernel with the parameter buffer passed through `extra`, exactly as packed above."""
    buf = ctypes.create_string_buffer(params, max(len(params), 1))
    size = ctypes.c_size_t(len(params))
    extra = (ctypes.c_void_p * 5)(CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(buf),
                                  CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size), CU_LAUNCH_PARAM_END)
    libcuda = ctypes.CDLL("libcuda.so.1")
    libcuda.cuLaunchKernel.restype = ctypes.c_int
    libcuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    rc = libcuda.cuLaunchKernel(function_ptr, launch.grid[0], launch.grid[1], launch.grid[2],
                                launch.block[0], launch.block[1], launch.block[2], launch.smem,
                                stream_ptr, None, ctypes.addressof(extra))
    if rc != 0:
        raise RuntimeError("cuLaunchKernel(%s) failed with CUresult %d" % (launch.kernel, rc))


ET_REL = 1
CU_JIT_INPUT_CUBIN = 0


def _check(rc, what):
    if rc != 0:
        raise RuntimeError("%s failed with CUresult %d" % (what, rc))


class LinkedModule:
    """A relocatable (-rdc, ET_REL) cubin linked by the driver's linker (cuLinkCreate/AddData/Complete, what
    nvlink does for multi-file projects) and loaded with cuModuleLoadData."""

    def __init__(self, data):
        cuda = ctypes.CDLL("libcuda.so.1")
        self.cuda = cuda
        state = ctypes.c_void_p()
        _check(cuda.cuLinkCreate_v2(0, None, None, ctypes.byref(state)), "cuLinkCreate")
        try:
            buf = ctypes.create_string_buffer(data, len(data))
            cuda.cuLinkAddData_v2.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                                              ctypes.c_char_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
            _check(cuda.cuLinkAddData_v2(state, CU_JIT_INPUT_CUBIN, buf, len(data), b"rdc.cubin", 0, None, None),
                   "cuLinkAddData")
            image = ctypes.c_void_p()
            size = ctypes.c_size_t()
            cuda.cuLinkComplete.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                            ctypes.POINTER(ctypes.c_size_t)]
            _check(cuda.cuLinkComplete(state, ctypes.byref(image), ctypes.byref(size)), "cuLinkComplete")
            self.module = ctypes.c_void_p()
            cuda.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
            _check(cuda.cuModuleLoadData(ctypes.byref(self.module), image), "cuModuleLoadData")
        finally:
            cuda.cuLinkDestroy.argtypes = [ctypes.c_void_p]
            cuda.cuLinkDestroy(state)

    def function_ptr(self, name):
        f = ctypes.c_void_p()
        self.cuda.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
        _check(self.cuda.cuModuleGetFunction(ctypes.byref(f), self.module, name.encode()), "cuModuleGetFunction")
        return f.value


def function_ptr(cupy, modules, launch):
    """The loaded kernel of a manifest line: through CuPy for whole-program cubins, through the driver's
    linker for relocatable ones (sources rdc_*.cu)."""
    if launch.file not in modules:
        path = os.path.join(CORPUS, "sm90", launch.file + ".cubin")
        with open(path, "rb") as f:
            data = f.read()
        if struct.unpack_from("<H", data, 16)[0] == ET_REL:
            modules[launch.file] = LinkedModule(data)
        else:
            modules[launch.file] = cupy.RawModule(path=path)
    module = modules[launch.file]
    if isinstance(module, LinkedModule):
        return module.function_ptr(launch.kernel)
    kernel = module.get_function(launch.kernel)
    # RawModule.get_function gives a RawKernel; its .kernel is the loaded cupy.cuda.function.Function.
    function = kernel.kernel if hasattr(kernel, "kernel") else kernel
    return function.ptr


def run_once(cupy, modules, launch):
    """Launches one manifest line on fresh buffers and returns {arg index: bytes after the launch}."""
    import numpy
    fptr = function_ptr(cupy, modules, launch)
    buffers = {}
    for index, (kind, value) in enumerate(launch.args):
        if kind == "in":
            data = numpy.frombuffer(generate(value[0], value[1]), dtype=numpy.uint8)
            buffers[index] = cupy.asarray(data)
        elif kind == "out":
            buffers[index] = cupy.zeros(value, dtype=cupy.uint8)
    params = launch.param_bytes([buffers[i].data.ptr for i in sorted(buffers)])
    stream = cupy.cuda.get_current_stream()
    launch_packed(fptr, launch, params, stream.ptr)
    stream.synchronize()
    return {i: cupy.asnumpy(b).tobytes() for i, b in buffers.items()}


def record(launches, out_dir, repeat, partial=False):
    import cupy
    cupy.cuda.runtime.deviceSetLimit(CUDA_LIMIT_STACK_SIZE, STACK_BYTES)
    os.makedirs(out_dir, exist_ok=True)
    modules, written, unstable = {}, 0, []
    for launch in launches:
        results = run_once(cupy, modules, launch)
        for _ in range(repeat - 1):
            if run_once(cupy, modules, launch) != results:
                unstable.append(launch.kernel)
                break
        for index, data in sorted(results.items()):
            with open(os.path.join(out_dir, "%s.arg%d.bin" % (launch.kernel, index)), "wb") as f:
                f.write(data)
            written += 1
        print("%-28s %-28s %d buffers" % (launch.file, launch.kernel, len(results)))
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    lines = [
        "Silicon goldens recorded by corpus/record_silicon.py from corpus/sm90/*.cubin and corpus/launches.txt.",
        "date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpu: %s (sm_%d%d)" % (name, props["major"], props["minor"]),
        "driver: %d, runtime: %d, cupy: %s" % (cupy.cuda.runtime.driverGetVersion(),
                                               cupy.cuda.runtime.runtimeGetVersion(), cupy.__version__),
        "launches: %d, buffers: %d, repeats per launch: %d" % (len(launches), written, repeat),
        "nondeterministic across repeats: %s" % (" ".join(unstable) or "none"),
    ]
    for file in sorted({l.file for l in launches}):
        with open(os.path.join(CORPUS, "sm90", file + ".cubin"), "rb") as f:
            data = f.read()
        lines.append("cubin sm90/%s.cubin fnv1a64 %016x sha256 %s" % (file, fnv1a64(data), hashlib.sha256(data).hexdigest()))
    # A partial recording (--only) adds its section to the file instead of replacing the record of the others.
    if partial:
        lines[0] = "Added later: %s, recorded on their own (--only)." % " ".join(l.kernel for l in launches)
    with open(os.path.join(out_dir, "RECORDED.txt"), "a" if partial else "w") as f:
        f.write(("\n" if partial else "") + "\n".join(lines) + "\n")
    print("\n".join(lines[:6]))
    return 1 if unstable else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", default=os.path.join(CORPUS, "launches.txt"))
    parser.add_argument("--out", default=os.path.join(CORPUS, "goldens"))
    parser.add_argument("--only", nargs="+", metavar="KERNEL", help="record only these kernels")
    parser.add_argument("--repeat", type=int, default=2, help="launches per kernel; results must agree")
    parser.add_argument("--print-words", nargs=2, type=int, metavar=("SEED", "COUNT"),
                        help="print the first COUNT generated words of a buffer with SEED, then exit")
    parser.add_argument("--parse-only", action="store_true", help="parse the manifest, print layouts, exit")
    args = parser.parse_args(argv)
    if args.print_words:
        seed, count = args.print_words
        data = generate(4 * count, seed)
        print(" ".join("%08x" % w for w in struct.unpack("<%dI" % count, data)))
        return 0
    with open(args.manifest) as f:
        launches = parse_manifest(f.read())
    if args.only:
        unknown = set(args.only) - {l.kernel for l in launches}
        if unknown:
            parser.error("not in the manifest: " + " ".join(sorted(unknown)))
        launches = [l for l in launches if l.kernel in args.only]
    if args.parse_only:
        for l in launches:
            print(l.file, l.kernel, " ".join("%d+%d" % s for s in l.param_layout()))
        return 0
    return record(launches, args.out, max(args.repeat, 1), partial=bool(args.only))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
