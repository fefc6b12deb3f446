#!/usr/bin/env python3
"""Record texture and surface goldens on NVIDIA silicon (issue 20): textures.sm90.cubin through CuPy.

Usage (on the GPU machine, from the repository root):
    python3 corpus/silicon/textures/record_textures.py OUTDIR

Every case builds its texels from a fixed formula (`texels()`), creates a CUDA array (or a linear buffer),
a texture or surface object with the case's descriptor, launches one kernel of textures.sm90.cubin and
writes, under OUTDIR/<case>/: `texels.bin` (the bytes copied into the array, row-major, layer/slice-major),
`out.bin` (the output buffer) and, for surfaces, `dst.bin` (the destination array read back). OUTDIR/
cases.json lists every case with its parameters (the replay side needs nothing else) and OUTDIR/log.txt
says what failed: one case failing does not stop the others.

Without a GPU: `--list` prints the cases. `OUTDIR --only a,b` records the named cases only.
"""

import json
import os
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CUBIN = os.path.join(HERE, "textures.sm90.cubin")

# CUDA runtime enum values (cuda_runtime_api / driver_types; the same numbers CuPy's runtime exposes).
WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
POINT, LINEAR = 0, 1
ELEMENT, NORMALIZED = 0, 1
SIGNED, UNSIGNED, FLOAT = 0, 1, 2
ARRAY_LAYERED, ARRAY_SURFACE = 1, 2
RES_ARRAY, RES_LINEAR = 0, 2
MODES = {"wrap": WRAP, "clamp": CLAMP, "mirror": MIRROR, "border": BORDER}


def texels(kind, count):
    """Deterministic texel words: bytes that cover 0, 255 and odd values; floats with exact small values."""
    i = np.arange(count, dtype=np.int64)
    if kind == "u8":
        return ((i * 37 + 11) % 256).astype(np.uint8)
    if kind == "u16":
        return ((i * 4099 + 7) % 65536).astype(np.uint16)
    if kind == "u32":
        return ((i * 2654435761 + 12345) % (1 << 32)).astype(np.uint32)
    if kind == "f32":
        return (((i * 29 + 5) % 64) * 0.25 - 6.0).astype(np.float32)
    if kind == "u8each":
        # RGBA8 texel j, component k: (37 j + 64 k + 11) mod 256 (every byte value in every component).
        return ((i // 4 * 37 + i % 4 * 64 + 11) % 256).astype(np.uint8)
    raise ValueError(kind)


def bc_blocks(kind, count, block):
    """Block-compressed data: `hash` random-looking blocks (both BC1 colour modes, every BC7 mode); `alpha_all`
    BC3 blocks with alpha endpoints (a0, a1) = (b mod 256, b / 256 mod 256) and texel p of each block at alpha
    index p mod 8, colour half hashed."""
    i = np.arange(count * block // 4, dtype=np.uint64)
    words = ((i * np.uint64(2654435761) + np.uint64(12345)) ^ (i >> np.uint64(3))) % np.uint64(1 << 32)
    data = words.astype(np.uint32).view(np.uint8).copy()
    if kind == "alpha_all":
        at = np.arange(count) * block
        b = np.arange(count)
        data[at] = b % 256
        data[at + 1] = b // 256 % 256
        idx = sum((p % 8) << (3 * p) for p in range(16))
        for k in range(6):
            data[at + 2 + k] = (idx >> (8 * k)) & 0xFF
    return data


def case_list():
    """Every recorded case: (name, kernel, resource, descriptor, launch) as plain dicts (cases.json)."""
    cases = []

    def add(name, kernel, res, tex, launch):
        cases.append({"name": name, "kernel": kernel, "res": res, "tex": tex, "launch": launch})

    # tex1Dfetch on linear memory: u32 elements and RGBA8 read as normalized floats; indices -16..79 of 64.
    add("fetch_u32", "tex1d_fetch_u32",
        {"type": "linear", "channels": 1, "bits": 32, "kind": UNSIGNED, "texel": "u32", "width": 64},
        {"filter": POINT, "read": ELEMENT, "normalized": 0, "modes": ["clamp"]},
        {"n": 96, "ints": [-16]})
    add("fetch_rgba8_unorm", "tex1d_fetch_f4",
        {"type": "linear", "channels": 4, "bits": 8, "kind": UNSIGNED, "texel": "u8", "width": 64},
        {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": ["clamp"]},
        {"n": 80, "ints": [-8]})
    add("fetch_f32x4", "tex1d_fetch_f4",
        {"type": "linear", "channels": 4, "bits": 32, "kind": FLOAT, "texel": "f32", "width": 64},
        {"filter": POINT, "read": ELEMENT, "normalized": 0, "modes": ["clamp"]},
        {"n": 80, "ints": [-8]})
    # tex2D of an RGBA8 array (7 x 5), normalized reads: every filter, address mode and coordinate kind.
    rgba = {"type": "array", "channels": 4, "bits": 8, "kind": UNSIGNED, "texel": "u8",
            "width": 7, "height": 5}
    for filt, fname in [(POINT, "point"), (LINEAR, "linear")]:
        for mode in ["clamp", "border"]:
            add(f"rgba8_{fname}_{mode}_unnorm", "tex2d_f4", rgba,
                {"filter": filt, "read": NORMALIZED, "normalized": 0, "modes": [mode, mode],
                 "border": [0.25, 0.5, 0.75, 1.0]},
                {"n": 4096, "cols": 64, "floats": [-2.0, 0.1875, 1.0]})
        for mode in ["wrap", "clamp", "mirror", "border"]:
            add(f"rgba8_{fname}_{mode}_norm", "tex2d_f4", rgba,
                {"filter": filt, "read": NORMALIZED, "normalized": 1, "modes": [mode, mode],
                 "border": [0.25, 0.5, 0.75, 1.0]},
                {"n": 4096, "cols": 64, "floats": [-1.5, 0.0625, 1.0]})
    # The filter-weight probe: two texels 0 and 1 (and -3, 5; and RGBA8 0/255-ish), sampled at x = 0.5 + k/4096
    # along a 1-row texture: the result is the weight silicon gives the second texel (1.8 fixed point?).
    for name, vals in [("weights01", [0.0, 1.0]), ("weights_m3_5", [-3.0, 5.0]),
                       ("weights_big", [1.0, 16777216.0])]:
        add(f"f32_linear_{name}", "tex2d_f1",
            {"type": "array", "channels": 1, "bits": 32, "kind": FLOAT, "texel": "values", "values": vals,
             "width": 2, "height": 1},
            {"filter": LINEAR, "read": ELEMENT, "normalized": 0, "modes": ["clamp", "clamp"]},
            {"n": 4096, "cols": 4096, "floats": [0.5, 1.0 / 4096.0, 1.0]})
    add("rgba8_linear_weights", "tex2d_f4",
        {"type": "array", "channels": 4, "bits": 8, "kind": UNSIGNED, "texel": "values",
         "values": [0, 0, 0, 0, 255, 128, 1, 3], "width": 2, "height": 1},
        {"filter": LINEAR, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"]},
        {"n": 4096, "cols": 4096, "floats": [0.5, 1.0 / 4096.0, 1.0]})
    # Sub-texel precision: texels 0 1 2 3 (4) sampled at steps of 2^-14 across a texel edge (point: where the
    # index flips; linear: the output is i0 + weight, so it shows the fixed-point coordinate), and the same
    # through normalized coordinates on 5 texels (x * 5 is inexact in f32).
    ramp4 = {"type": "array", "channels": 1, "bits": 32, "kind": FLOAT, "texel": "values",
             "values": [0.0, 1.0, 2.0, 3.0], "width": 4, "height": 1}
    ramp5 = dict(ramp4, values=[0.0, 1.0, 2.0, 3.0, 4.0], width=5)
    add("f32_point_subtexel", "tex2d_f1", ramp4,
        {"filter": POINT, "read": ELEMENT, "normalized": 0, "modes": ["clamp", "clamp"]},
        {"n": 4096, "cols": 4096, "floats": [0.875, 1.0 / 16384.0, 1.0]})
    add("f32_linear_subtexel", "tex2d_f1", ramp4,
        {"filter": LINEAR, "read": ELEMENT, "normalized": 0, "modes": ["clamp", "clamp"]},
        {"n": 4096, "cols": 4096, "floats": [1.375, 1.0 / 16384.0, 1.0]})
    add("f32_linear_norm5", "tex2d_f1", ramp5,
        {"filter": LINEAR, "read": ELEMENT, "normalized": 1, "modes": ["clamp", "clamp"]},
        {"n": 4096, "cols": 4096, "floats": [0.5, 1.0 / 1024.0, 0.2]})
    # A 2-D float texture sampled bilinearly on a fine grid (both weights at once).
    add("f32_linear_2d", "tex2d_f1",
        {"type": "array", "channels": 1, "bits": 32, "kind": FLOAT, "texel": "f32", "width": 5, "height": 4},
        {"filter": LINEAR, "read": ELEMENT, "normalized": 0, "modes": ["clamp", "clamp"]},
        {"n": 4096, "cols": 64, "floats": [-0.5, 0.09375, 1.0]})
    # Integer texture, element reads (point only).
    for mode in ["clamp", "border"]:
        add(f"u32x4_point_{mode}", "tex2d_u4",
            {"type": "array", "channels": 4, "bits": 32, "kind": UNSIGNED, "texel": "u32",
             "width": 5, "height": 4},
            {"filter": POINT, "read": ELEMENT, "normalized": 0, "modes": [mode, mode]},
            {"n": 1024, "cols": 32, "floats": [-1.0, 0.25, 1.0]})
    # tex2DLod and tex2DGrad on a single-level array (CuPy has no mipmapped arrays): level 0 whatever the LOD.
    add("rgba8_lod", "tex2d_lod", rgba,
        {"filter": LINEAR, "read": NORMALIZED, "normalized": 1, "modes": ["wrap", "wrap"]},
        {"n": 1024, "cols": 32, "floats": [-0.5, 0.0625, 1.0, 0.0]})
    add("rgba8_grad", "tex2d_grad", rgba,
        {"filter": LINEAR, "read": NORMALIZED, "normalized": 1, "modes": ["mirror", "mirror"]},
        {"n": 1024, "cols": 32, "floats": [-0.5, 0.0625, 1.0]})
    for mode in ["clamp", "border"]:
        add(f"rgba8_gather_{mode}", "tex2d_gather", rgba,
            {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": [mode, mode]},
            {"n": 1024, "cols": 32, "floats": [-1.0, 0.28125, 1.0]})
        # Element reads of an 8-bit texture: TLD4 returns the integers; the float4 result holds their bits.
        add(f"u8x4_gather_elem_{mode}", "tex2d_gather", rgba,
            {"filter": POINT, "read": ELEMENT, "normalized": 0, "modes": [mode, mode]},
            {"n": 1024, "cols": 32, "floats": [-1.0, 0.28125, 1.0]})
    for filt, fname in [(POINT, "point"), (LINEAR, "linear")]:
        add(f"f32_3d_{fname}", "tex3d_f1",
            {"type": "array", "channels": 1, "bits": 32, "kind": FLOAT, "texel": "f32",
             "width": 4, "height": 3, "depth": 5},
            {"filter": filt, "read": ELEMENT, "normalized": 0, "modes": ["clamp", "clamp", "clamp"]},
            {"n": 512, "cols": 8, "floats": [-0.75, 0.75, 1.0]})
        add(f"f32_layered_{fname}", "tex2d_layered_f1",
            {"type": "array", "channels": 1, "bits": 32, "kind": FLOAT, "texel": "f32",
             "width": 4, "height": 4, "depth": 3, "flags": ARRAY_LAYERED},
            {"filter": filt, "read": ELEMENT, "normalized": 0, "modes": ["clamp", "clamp"]},
            {"n": 384, "cols": 8, "floats": [-0.75, 0.75, 1.0], "ints_after": [3]})
        for mode, norm, x0, step in [("clamp", 0, -2.0, 0.0625), ("wrap", 1, -1.25, 0.0125),
                                     ("mirror", 1, -1.25, 0.0125)]:
            add(f"f32_1d_{fname}_{mode}", "tex1d_f1",
                {"type": "array", "channels": 1, "bits": 32, "kind": FLOAT, "texel": "f32", "width": 8},
                {"filter": filt, "read": ELEMENT, "normalized": norm, "modes": [mode]},
                {"n": 256, "floats": [x0, step, 1.0]})
    # Conversion tables: every byte value once (16 x 4 RGBA8 = 256 bytes) read at texel centres as sRGB,
    # as SNORM8 and (1024 values) as UNORM16; and sRGB filtered linearly at fractional coordinates.
    every_byte = {"type": "array", "channels": 4, "bits": 8, "kind": UNSIGNED, "texel": "u8",
                  "width": 16, "height": 4}
    add("rgba8_srgb_point", "tex2d_f4", every_byte,
        {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"], "srgb": 1},
        {"n": 64, "cols": 16, "floats": [0.5, 1.0, 1.0]})
    add("rgba8_srgb_linear", "tex2d_f4", every_byte,
        {"filter": LINEAR, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"], "srgb": 1},
        {"n": 4096, "cols": 64, "floats": [-0.5, 0.078125, 1.0]})
    add("s8x4_snorm_point", "tex2d_f4", dict(every_byte, kind=SIGNED),
        {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"]},
        {"n": 64, "cols": 16, "floats": [0.5, 1.0, 1.0]})
    add("u16x4_unorm_point", "tex2d_f4",
        {"type": "array", "channels": 4, "bits": 16, "kind": UNSIGNED, "texel": "u16", "width": 16, "height": 16},
        {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"]},
        {"n": 256, "cols": 16, "floats": [0.5, 1.0, 1.0]})
    # Block-compressed arrays (cudaChannelFormatKindUnsignedBlockCompressed1/3/7 = 17/21/29): random blocks,
    # every texel sampled at its centre (point, normalized float reads); the decoded values are silicon's
    # BC decoder. Copied in with cudaMemcpy2DToArray: width in bytes of a row of blocks, height in block rows.
    for name, kind, block in [("bc1", 17, 8), ("bc3", 21, 16), ("bc7", 29, 16)]:
        add(f"{name}_point", "tex2d_f4",
            {"type": "bc", "channels": 4, "bits": 8, "kind": kind, "texel": "u8", "block": block,
             "width": 16, "height": 16},
            {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"]},
            {"n": 256, "cols": 16, "floats": [0.5, 1.0, 1.0]})
    # Session 2 (tex2): the whole sRGB decode table (every byte in R, G, B and A) point-sampled and filtered
    # across 16 texels both ways; BC1 and BC7 over 4096 random blocks; BC3 alpha over all 65536 endpoint
    # pairs with every index (the first recording covered two alpha differences only).
    every_each = {"type": "array", "channels": 4, "bits": 8, "kind": UNSIGNED, "texel": "u8each",
                  "width": 16, "height": 16}
    add("rgba8_srgb_point_all", "tex2d_f4", every_each,
        {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"], "srgb": 1},
        {"n": 256, "cols": 16, "floats": [0.5, 1.0, 1.0]})
    add("rgba8_srgb_linear_all", "tex2d_f4", every_each,
        {"filter": LINEAR, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"], "srgb": 1},
        {"n": 65536, "cols": 256, "floats": [-0.5, 0.0703125, 1.0]})
    for name, kind, block, blocks, side in [("bc1", 17, 8, "hash", 256), ("bc7", 29, 16, "hash", 256),
                                            ("bc3", 21, 16, "alpha_all", 1024)]:
        add(f"{name}_point_{blocks}", "tex2d_f4",
            {"type": "bc", "channels": 4, "bits": 8, "kind": kind, "texel": "u8", "block": block,
             "blocks": blocks, "width": side, "height": side},
            {"filter": POINT, "read": NORMALIZED, "normalized": 0, "modes": ["clamp", "clamp"]},
            {"n": side * side, "cols": side, "floats": [0.5, 1.0, 1.0]})
    # TXQ TEX_HEADER_DIMENSION (txq_dims: level 0 and level `n` = 1 of arrays with one level).
    for name, res in [("1d", {"width": 8}), ("2d", {"width": 7, "height": 5}),
                      ("3d", {"width": 9, "height": 3, "depth": 4}),
                      ("layered", {"width": 5, "height": 3, "depth": 2, "flags": ARRAY_LAYERED})]:
        add(f"txq_{name}", "txq_dims",
            dict({"type": "array", "channels": 1, "bits": 32, "kind": FLOAT, "texel": "f32"}, **res),
            {"filter": POINT, "read": ELEMENT, "normalized": 0, "modes": ["clamp"] * 3},
            {"n": 1, "grid": [1, 1, 1], "block": [1, 1, 1]})
    # Cube maps (cudaArrayCubemap = 4): a 4x4 RGBA8 face each, every face's major axis with the other two
    # components over [-1, 0.875] in steps of 1/8 (texcube_f4), point and linear.
    cube = {"type": "array", "channels": 4, "bits": 8, "kind": UNSIGNED, "texel": "u8each",
            "width": 4, "height": 4, "depth": 6, "flags": 4}
    for filt, fname in [(POINT, "point"), (LINEAR, "linear")]:
        add(f"cube_rgba8_{fname}", "texcube_f4", cube,
            {"filter": filt, "read": NORMALIZED, "normalized": 1, "modes": ["clamp"] * 3},
            {"n": 6 * 16 * 16, "cols": 16, "floats": [-1.0, 0.125, 1.0]})
    # Surfaces.
    add("surf2d_u32", "surf2d_rw",
        {"type": "surface", "channels": 1, "bits": 32, "kind": UNSIGNED, "texel": "u32",
         "width": 6, "height": 4},
        None, {"n": 48, "ints": [6, 4]})
    add("surf2d_u32x4", "surf2d_rw_u4",
        {"type": "surface", "channels": 4, "bits": 32, "kind": UNSIGNED, "texel": "u32",
         "width": 5, "height": 3},
        None, {"grid": [1, 3, 1], "block": [32, 1, 1], "ints": [5, 3]})
    add("surf3d_u8", "surf3d_rw",
        {"type": "surface", "channels": 1, "bits": 8, "kind": UNSIGNED, "texel": "u8",
         "width": 9, "height": 3, "depth": 4},
        None, {"grid": [1, 3, 4], "block": [32, 1, 1], "ints": [9, 3, 4]})
    add("surf2d_layered_u16", "surf2d_layered_rw",
        {"type": "surface", "channels": 1, "bits": 16, "kind": UNSIGNED, "texel": "u16",
         "width": 5, "height": 3, "depth": 2, "flags": ARRAY_LAYERED},
        None, {"grid": [1, 3, 2], "block": [32, 1, 1], "ints": [5, 3, 2]})
    return cases


def texel_array(res):
    """The host array copied into the resource, shaped as CuPy's copy_from wants it."""
    if res["type"] == "bc":
        rows, row_bytes = res["height"] // 4, res["width"] // 4 * res["block"]
        if "blocks" in res:
            return bc_blocks(res["blocks"], rows * row_bytes // res["block"], res["block"]).reshape(rows, row_bytes)
        return texels("u8", rows * row_bytes).reshape(rows, row_bytes)
    w = res["width"]
    h = res.get("height", 0)
    d = res.get("depth", 0)
    count = w * max(h, 1) * max(d, 1) * res["channels"]
    dtype = {(8, UNSIGNED): np.uint8, (8, SIGNED): np.int8, (16, UNSIGNED): np.uint16, (32, UNSIGNED): np.uint32,
             (32, FLOAT): np.float32}[(res["bits"], res["kind"])]
    if res["texel"] == "values":
        data = np.array(res["values"], dtype=dtype)
    else:
        data = texels(res["texel"], count)
        data = data.view(dtype) if data.dtype.itemsize == np.dtype(dtype).itemsize else data.astype(dtype)
    assert data.size == count, (res, data.size, count)
    if d:
        return data.reshape(d, h, w * res["channels"])
    if h:
        return data.reshape(h, w * res["channels"])
    return data


def run_case(cp, mod, case, outdir):
    from cupy.cuda import texture as T

    res = case["res"]
    launch = case["launch"]
    host = texel_array(res)
    os.makedirs(os.path.join(outdir, case["name"]), exist_ok=True)
    host.tofile(os.path.join(outdir, case["name"], "texels.bin"))
    c = res["channels"]
    bits = [res["bits"] if k < c else 0 for k in range(4)]
    desc = T.ChannelFormatDescriptor(bits[0], bits[1], bits[2], bits[3], res["kind"])
    keep = []
    if res["type"] == "bc":
        arr = T.CUDAarray(desc, res["width"], res["height"], 0, 0)
        keep.append(arr)
        rows, row_bytes = host.shape
        cp.cuda.runtime.memcpy2DToArray(arr.ptr, 0, 0, host.ctypes.data, row_bytes, row_bytes, rows, 1)
        rd = T.ResourceDescriptor(RES_ARRAY, cuArr=arr)
    elif res["type"] == "linear":
        dev = cp.asarray(host)
        keep.append(dev)
        rd = T.ResourceDescriptor(RES_LINEAR, arr=dev, chDesc=desc, sizeInBytes=dev.nbytes)
    else:
        flags = res.get("flags", 0) | (ARRAY_SURFACE if res["type"] == "surface" else 0)
        arr = T.CUDAarray(desc, res["width"], res.get("height", 0), res.get("depth", 0), flags)
        arr.copy_from(host)
        keep.append(arr)
        rd = T.ResourceDescriptor(RES_ARRAY, cuArr=arr)
    args = []
    if res["type"] == "surface":
        src = T.SurfaceObject(rd)
        dst_arr = T.CUDAarray(desc, res["width"], res.get("height", 0), res.get("depth", 0), flags)
        dst_arr.copy_from(np.zeros_like(host))
        dst = T.SurfaceObject(T.ResourceDescriptor(RES_ARRAY, cuArr=dst_arr))
        keep += [src, dst, dst_arr]
        args += [np.uint64(src.ptr), np.uint64(dst.ptr)]
    else:
        t = case["tex"]
        td = T.TextureDescriptor([MODES[m] for m in t["modes"]], t["filter"], t["read"], sRGB=t.get("srgb"),
                                 borderColors=t.get("border"), normalizedCoords=t["normalized"])
        tex = T.TextureObject(rd, td)
        keep.append(tex)
        args.append(np.uint64(tex.ptr))
    out = None
    n = launch.get("n")
    if n is not None:
        width = {"tex1d_fetch_u32": 4, "tex1d_fetch_f4": 16, "tex2d_f4": 16, "tex2d_f1": 4, "tex2d_u4": 16,
                 "tex2d_lod": 16, "tex2d_grad": 16, "tex2d_gather": 64, "tex3d_f1": 4,
                 "tex2d_layered_f1": 4, "tex1d_f1": 4, "surf2d_rw": 12, "txq_dims": 24,
                 "texcube_f4": 16}[case["kernel"]]
        out = cp.full(n * width, 0xAB, dtype=cp.uint8)
        args += [out, np.int32(n)]
        if "cols" in launch:
            args.append(np.int32(launch["cols"]))
    args += [np.float32(v) for v in launch.get("floats", [])]
    args += [np.int32(v) for v in launch.get("ints", []) + launch.get("ints_after", [])]
    grid = tuple(launch.get("grid", [(n + 255) // 256 if n else 1, 1, 1]))
    block = tuple(launch.get("block", [256, 1, 1]))
    mod.get_function(case["kernel"])(grid, block, tuple(args))
    cp.cuda.Device().synchronize()
    if out is not None:
        cp.asnumpy(out).tofile(os.path.join(outdir, case["name"], "out.bin"))
    if res["type"] == "surface":
        back = np.zeros_like(host)
        dst_arr.copy_to(back)
        back.tofile(os.path.join(outdir, case["name"], "dst.bin"))


def main():
    cases = case_list()
    if sys.argv[1:] == ["--list"]:
        for c in cases:
            print(c["name"], c["kernel"], json.dumps(c["launch"]))
        return 0
    only = None
    if len(sys.argv) > 3 and sys.argv[2] == "--only":
        only = set(sys.argv[3].split(","))
        cases = [c for c in cases if c["name"] in only]
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    import cupy as cp

    mod = cp.RawModule(path=CUBIN)
    with open(os.path.join(outdir, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
    failed = 0
    with open(os.path.join(outdir, "log.txt"), "w") as log:
        props = cp.cuda.runtime.getDeviceProperties(0)
        log.write(f"device {props['name']} driver {cp.cuda.runtime.driverGetVersion()} cupy {cp.__version__}\n")
        for case in cases:
            try:
                run_case(cp, mod, case, outdir)
                log.write(f"ok {case['name']}\n")
            except Exception:
                failed += 1
                log.write(f"FAILED {case['name']}\n{traceback.format_exc()}\n")
    print(f"{len(cases) - failed} of {len(cases)} cases recorded; see {outdir}/log.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
