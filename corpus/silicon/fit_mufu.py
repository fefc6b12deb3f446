#!/usr/bin/env python3
"""Fits the MUFU.SIN/COS (and LG2, TANH) models to the H200 recordings and writes the table and the compact recordings.

    python3 fit_mufu.py RECORDINGS_DIR   (the *.bin files record_mufu.py wrote; needs numpy)

Writes translator/src/exact/sfu_tables.rs (generated; do not edit; run rustfmt on it after) and
corpus/silicon/mufu_*.txt.

The model (what the recordings show; RECORDED.md): the argument in revolutions is truncated to a multiple of
2^-25 (K = floor(|x| * 2^25) mod 2^25), its quadrant is K >> 23 and t = K mod 2^23 the position in the
quarter turn; sin and cos both read one table T(t) ~ sin(2 pi t 2^-25) at t or at the mirrored 2^23 - 1 - t
(a one's complement: sin(0.5 - 2^-25) is exactly 0 on silicon) and set the sign by quadrant. T is piecewise
quadratic over 64 intervals of 2^17 (the least-squares error of 64 pieces is at the output rounding, of 32 it
is 16 times larger), evaluated here in fixed point with 2^-61 units: acc = C0 2^24 + C1 xl +
C2 sq(xl), sq the truncated square. The first interval holds the results near zero; there silicon computes exactly
25737 * 2^-37 * t for small t (a 15-bit slope, 1 + 4.2e-5 times 2 pi) plus the square term;
its square term comes from a truncated squarer (sq_trunc): with that one C2 per interval fits.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record_mufu as rec  # noqa: E402

Q = 1 << 23
SQ_KEEP = 19
SLOPE0 = 25737


def sq_trunc(x):
    """The unit's truncated square of a 17-bit x: x^2 without the partial products of weight below 2^19
    (x_i x_j 2^(i+j+1) for i < j, x_i 2^(2i)); with that, one quadratic per interval fits silicon to 1 ulp,
    the first interval included, and a full square leaves 7-11 ulp there."""
    x = np.asarray(x, dtype=np.int64)
    r = np.zeros_like(x)
    for j in range(17):
        xj = (x >> j) & 1
        lo = max(0, SQ_KEEP - 1 - j)
        if lo < j:
            mask = ((1 << j) - 1) & ~((1 << lo) - 1)
            r += xj * ((x & mask) << (j + 1))
        if 2 * j >= SQ_KEEP:
            r += xj << (2 * j)
    return r


def fit(d):
    k = np.arange(0, Q, 4, dtype=np.int64)
    s = np.fromfile(os.path.join(d, "sin_q0.bin"), dtype="<u4").view(np.float32).astype(np.float64)
    c = np.fromfile(os.path.join(d, "cos_q0.bin"), dtype="<u4").view(np.float32).astype(np.float64)
    # T at t = k (sin in the first quadrant) and at t = Q - 1 - k (cos there reads the mirrored table)
    t = np.concatenate([k, Q - 1 - k])
    y = np.concatenate([s, c]) * 2.0**37
    iv = t >> 17
    xl = t & ((1 << 17) - 1)
    C0, C1, C2 = [], [], []
    for i in range(64):
        sel = iv == i
        X = xl[sel]
        S = sq_trunc(X).astype(np.float64)
        if i == 0:
            # silicon computes exactly SLOPE0 * t for small t: C0 = 0 and C1 = SLOPE0, only C2 is fitted
            dd = y[sel] - SLOPE0 * X
            cc = (0.0, float(SLOPE0), np.sum(dd * S) / np.sum(S * S))
        else:
            A = np.vstack([np.ones(len(X)), X.astype(np.float64), S]).T
            cc = np.linalg.lstsq(A, y[sel], rcond=None)[0]
        C0.append(int(round(cc[0])))
        C1.append(int(round(cc[1] * 2**24)))
        C2.append(int(round(cc[2] * 2**41)))
    return C0, C1, C2


LG2_EPS = 1 << 20  # 2^-41: ties of the 2^-36 result rounding fall as on silicon (fitted)


def fit_lg2(d):
    """LG2 on the same interpolator: T(m) ~ log2(1 + m 2^-23) on 64 pieces with the truncated squarer;
    silicon's result is e + T rounded to 2^-36, then toward zero to f32. Fitted to the e = 0 and e = -1 recordings
    (T = y - e), weighted by the inverse of each output's ulp, x = 1 (exactly 0 on silicon) left out."""
    x = rec.inputs("lg2")
    y = np.fromfile(os.path.join(d, "lg2.bin"), dtype="<u4").view(np.float32).astype(np.float64)
    e = ((x >> 23) & 0xFF).astype(np.int64) - 127
    mant = (x & 0x7FFFFF).astype(np.int64)
    sel = ((e == 0) | (e == -1)) & ~((e == 0) & (mant == 0))
    t = mant[sel]
    T = (y[sel] - e[sel]) * 2.0**37
    u = np.spacing(np.abs(y[sel]).astype(np.float32)).astype(np.float64) * 2.0**37
    w = 1 / np.maximum(u, 1.0)
    iv = t >> 17
    xl = t & ((1 << 17) - 1)
    C0, C1, C2 = [], [], []
    for i in range(64):
        s = iv == i
        X = xl[s]
        S = sq_trunc(X).astype(np.float64)
        A = np.vstack([np.ones(len(X)), X.astype(np.float64) / 2**17, S / 2**34]).T
        cc = np.linalg.lstsq(A * w[s][:, None], T[s] * w[s], rcond=None)[0]
        C0.append(int(round(cc[0])))
        C1.append(int(round(cc[1] / 2**17 * 2**24)))
        C2.append(int(round(cc[2] / 2**34 * 2**41)))
    return C0, C1, C2


# MUFU.TANH: per binade E of |x| (-8..2), the D low fraction bits the unit ignores (read off the recordings:
# the output is constant on aligned blocks of 2^D inputs). The next 17 bits are the interpolation variable,
# the bits above them pick one of 2^(6 - D) pieces of the binade.
TANH_PIECES = [(-8, 6), (-7, 6), (-6, 6), (-5, 5), (-4, 5), (-3, 4), (-2, 4), (-1, 4), (0, 3), (1, 2), (2, 3)]


def tanh_bases():
    """Index of each binade's first piece, and the number of pieces."""
    bases, n = [], 0
    for _, D in TANH_PIECES:
        bases.append(n)
        n += 1 << (6 - D)
    return bases, n


def tanh_decompose(x):
    """Piece index (-1 outside [2^-8, 8)) and 17-bit interpolation variable xl of |x| words."""
    e = ((x >> 23) & 0xFF).astype(np.int64) - 127
    m = (x & 0x7FFFFF).astype(np.int64)
    iv = np.full(x.shape, -1, np.int64)
    xl = np.zeros(x.shape, np.int64)
    for (E, D), base in zip(TANH_PIECES, tanh_bases()[0]):
        s = e == E
        iv[s] = base + (m[s] >> (17 + D))
        xl[s] = (m[s] >> D) & ((1 << 17) - 1)
    return iv, xl


def tanh_acc(T, iv, xl):
    """|tanh| in 2^-61 units, as sfu.rs computes it."""
    c0, c1, c2n = (np.array(c, dtype=np.int64)[iv] for c in T)
    sq = sq_trunc(xl)
    return (c0 << 24) + c1 * xl - (c2n * (sq >> 17) + ((c2n * (sq & ((1 << 17) - 1))) >> 17))


def tanh_model(T, x):
    """The whole MUFU.TANH model on finite input words."""
    x = np.asarray(x, dtype=np.uint32)
    a = x & np.uint32(0x7FFFFFFF)
    iv, xl = tanh_decompose(a)
    inr = iv >= 0
    acc = tanh_acc(T, np.maximum(iv, 0), xl)
    y = np.where(inr, to_f32_rn(np.where(inr, acc, 1 << 61), np.zeros(x.shape, bool)), 0).astype(np.uint32)
    y = np.where(a < 0x3B800000, a, y)
    y = np.where(a >= 0x41000000, np.uint32(0x3F800000), y)
    return y | (x & np.uint32(0x80000000))


def fit_tanh(d):
    """MUFU.TANH: the same interpolator with 51 pieces over [2^-8, 8) (TANH_PIECES), the truncated squarer on
    the piece's 17 input bits, one rounding to nearest. Least squares per piece on |x| and |y| of every recording,
    then each C0 moved by up to 8 units (2^-37) to minimise the piece's largest ulp error."""
    x = rec.inputs("tanh") & np.uint32(0x7FFFFFFF)
    y = np.fromfile(os.path.join(d, "tanh.bin"), dtype="<u4") & np.uint32(0x7FFFFFFF)
    iv, xl = tanh_decompose(x)
    n = tanh_bases()[1]
    yf = y.view(np.float32).astype(np.float64) * 2.0**61
    sq = sq_trunc(xl).astype(np.float64)
    T = [np.zeros(n, np.int64) for _ in range(3)]
    for i in range(n):
        s = iv == i
        A = np.vstack([np.full(s.sum(), 2.0**24), xl[s].astype(np.float64), -sq[s] / 2**17]).T
        cc = np.linalg.lstsq(A, yf[s], rcond=None)[0]
        for k in range(3):
            T[k][i] = int(round(cc[k]))
    for i in range(n):
        s = np.nonzero(iv == i)[0]
        want = y[s]
        best = None
        for dc in range(-8, 9):
            T[0][i] += dc
            got = to_f32_rn(tanh_acc(T, iv[s], xl[s]), np.zeros(s.size, bool))
            err = np.abs(got.astype(np.int64) - want.astype(np.int64)).max()
            T[0][i] -= dc
            if best is None or err < best[0]:
                best = (err, dc)
        T[0][i] += best[1]
    return [t.tolist() for t in T]


def check_tanh(T, d):
    x = rec.inputs("tanh")
    y = np.fromfile(os.path.join(d, "tanh.bin"), dtype="<u4")
    e = ulps(tanh_model(T, x), y)
    print("tanh: %d inputs, max %d ulp, %d over 1 ulp" % (x.size, e.max(), (e > 1).sum()))


def lg2_model(C, x):
    """The whole MUFU.LG2 model on positive normal input words."""
    x = np.asarray(x, dtype=np.uint32)
    e = ((x >> 23) & 0xFF).astype(np.int64) - 127
    mant = (x & 0x7FFFFF).astype(np.int64)
    acc = evaluate(*C, mant, top=False) + LG2_EPS
    q = (acc + (1 << 24)) >> 25
    out = []
    for E, M, Q in zip(e.tolist(), mant.tolist(), q.tolist()):
        v = (E << 36) + Q
        if (E == 0 and M == 0) or v == 0:
            out.append(0)
            continue
        out.append(int(to_f32_rn(np.array([abs(v) << 25]), np.array([v < 0]), rz=True)[0]))
    return np.array(out, dtype=np.uint32)


def evaluate(C0, C1, C2, ta, top=True):
    """T(ta) in 2^-61 units, as sfu.rs computes it."""
    ta = np.asarray(ta, dtype=np.int64)
    i = ta >> 17
    x = ta & ((1 << 17) - 1)
    c0, c1, c2n = np.array(C0)[i], np.array(C1)[i], -np.array(C2)[i]
    sq = sq_trunc(x)
    acc = (c0 << 24) + c1 * x - (c2n * (sq >> 17) + ((c2n * (sq & ((1 << 17) - 1))) >> 17))
    acc = np.maximum(acc, 0)
    return np.where(ta == Q - 1, 1 << 61, acc) if top else acc


def write_tables(C0, C1, C2, L, T):
    out = os.path.join(HERE, "..", "..", "translator", "src", "exact", "sfu_tables.rs")
    with open(out, "w") as f:
        f.write("// generated by corpus/silicon/fit_mufu.py from the H200 MUFU recordings; do not edit\n")
        f.write("//! Tables of the MUFU.SIN/COS model (`super::sfu`): fitted to NVIDIA silicon, see\n")
        f.write("//! corpus/silicon/RECORDED.md.\n\n")
        # signs are fixed (sin is increasing and concave on the quarter turn), so magnitudes are stored and
        # the evaluation needs no signed 64-bit arithmetic
        assert min(C0) >= 0 and min(C1) > 0 and max(C2) <= 0
        f.write("/// Per interval of 2^17 steps (t >> 17): C0 in 2^-37 units.\n")
        f.write("pub const SINCOS_C0: [u64; 64] = %s;\n" % fmt(C0))
        f.write("/// C1 in 2^-61 units per step.\n")
        f.write("pub const SINCOS_C1: [u64; 64] = %s;\n" % fmt(C1))
        f.write("/// -C2 in 2^-78 units per unit of the truncated square.\n")
        f.write("pub const SINCOS_C2_NEG: [u64; 64] = %s;\n" % fmt([-v for v in C2]))
        L0, L1, L2 = L
        assert min(L0) >= 0 and min(L1) > 0 and max(L2) <= 0
        f.write("/// LG2: T(m) ~ log2(1 + m 2^-23), the same three tables for its 64 pieces.\n")
        f.write("pub const LG2_C0: [u64; 64] = %s;\n" % fmt(L0))
        f.write("pub const LG2_C1: [u64; 64] = %s;\n" % fmt(L1))
        f.write("pub const LG2_C2_NEG: [u64; 64] = %s;\n" % fmt([-v for v in L2]))
        f.write("/// Added to T (2^-61 units) before rounding to 2^-36.\n")
        f.write("pub const LG2_EPS: u64 = %d;\n" % LG2_EPS)
        T0, T1, T2n = T
        assert min(T0) >= 0 and min(T1) > 0 and min(T2n) >= 0
        n = len(T0)
        f.write("/// TANH, per binade of |x| from 2^-8 on: its first piece | (the low fraction bits the unit ignores) << 8.\n")
        f.write("pub const TANH_BINADES: [u32; %d] = %s;\n" % (len(TANH_PIECES), fmt([b | (D << 8) for b, (_, D) in zip(tanh_bases()[0], TANH_PIECES)])))
        f.write("/// TANH: |tanh| on %d pieces over [2^-8, 8) (`TANH_PIECES` in fit_mufu.py): C0 in 2^-37 units.\n" % n)
        f.write("pub const TANH_C0: [u64; %d] = %s;\n" % (n, fmt(T0)))
        f.write("/// C1 in 2^-61 units per step of the piece's input.\n")
        f.write("pub const TANH_C1: [u64; %d] = %s;\n" % (n, fmt(T1)))
        f.write("/// -C2 in 2^-78 units per unit of the truncated square.\n")
        f.write("pub const TANH_C2_NEG: [u64; %d] = %s;\n" % (n, fmt(T2n)))


def fmt(v):
    lines, line = [], ""
    for x in v:
        s = "%d, " % x
        if len(line) + len(s) > 110:
            lines.append(line.rstrip())
            line = ""
        line += s
    lines.append(line.rstrip())
    return "[\n    " + "\n    ".join(lines) + "\n]"


def to_f32_rn(acc, neg, rz=False):
    out = np.zeros(acc.shape, dtype=np.uint32)
    for j, a in enumerate(acc.tolist()):
        if a <= 0:
            out[j] = 0
            continue
        e = a.bit_length() - 1
        sh = e - 23
        m = a >> sh
        rem = a - (m << sh)
        half = 1 << (sh - 1)
        if not rz and (rem > half or (rem == half and (m & 1))):
            m += 1
        if m == 1 << 24:
            m >>= 1
            e += 1
        out[j] = ((e - 61 + 127) << 23) | (m & 0x7FFFFF)
    return out | np.where(neg, np.uint32(0x80000000), np.uint32(0))


def model(C, x, cos):
    """The whole MUFU.SIN/COS model on input words x (finite, denormals flushed by the caller)."""
    x = np.asarray(x, dtype=np.uint32)
    e = ((x >> 23) & 0xFF).astype(np.int64)
    mant = ((x & 0x7FFFFF) | 0x800000).astype(np.int64)
    s = e - 125
    K = np.where(s >= 0, np.where(s >= 25, 0, (mant << np.clip(s, 0, 31)) & ((1 << 25) - 1)),
                 np.where(-s >= 32, 0, mant >> np.clip(-s, 0, 31)))
    K = np.where((x & 0x7FFFFFFF) == 0, 0, K) & ((1 << 25) - 1)
    quad = K >> 23
    t = K & (Q - 1)
    sx = (x >> 31) == 1
    if cos:
        mirror = (quad & 1) == 0
        neg = ((quad + 1) >> 1) & 1 == 1
    else:
        mirror = (quad & 1) == 1
        neg = ((quad >> 1) == 1) != sx
    ta = np.where(mirror, Q - 1 - t, t)
    return to_f32_rn(evaluate(*C, ta), neg)


def ulps(a, b):
    a = a.view(np.int32).astype(np.int64)
    b = b.view(np.int32).astype(np.int64)
    a = np.where(a < 0, -(a & 0x7FFFFFFF), a)
    b = np.where(b < 0, -(b & 0x7FFFFFFF), b)
    return np.abs(a - b)


def check(C, d):
    x = rec.inputs("sincos_misc")
    n = x.size
    o = np.fromfile(os.path.join(d, "sincos_misc.bin"), dtype="<u4")
    fin = ((x >> 23) & 0xFF) != 0xFF
    for name, want, cos in (("sin", o[:n], False), ("cos", o[n:], True)):
        got = model(C, x[fin], cos)
        e = ulps(got, want[fin])
        zs = np.sum(((got & 0x7FFFFFFF) == 0) & ((want[fin] & 0x7FFFFFFF) == 0) & (got != want[fin]))
        print("%s: %d inputs, max %d ulp, %d over 1 ulp, %d zero signs differ" % (name, fin.sum(), e.max(), (e > 1).sum(), zs))
    k = np.arange(0, Q, 4, dtype=np.int64)
    for name, cos in (("sin_q0", False), ("cos_q0", True)):
        want = np.fromfile(os.path.join(d, name + ".bin"), dtype="<u4")
        got = model(C, rec.inputs(name), cos)
        e = ulps(got, want)
        print("%s: max %d ulp, %d over 1 ulp" % (name, e.max(), (e > 1).sum()))


def check_lg2(L, d):
    x = rec.inputs("lg2")
    y = np.fromfile(os.path.join(d, "lg2.bin"), dtype="<u4")
    ok = (((x >> 23) & 0xFF) > 0) & (((x >> 23) & 0xFF) < 255) & ((x >> 31) == 0)
    e = ulps(lg2_model(L, x[ok]), y[ok])
    print("lg2: %d inputs, max %d ulp, %d over 1 ulp" % (ok.sum(), e.max(), (e > 1).sum()))


def write_recordings(d):
    """Compact recordings: every input of a subsample with silicon's outputs, one line each (hex words)."""
    n_misc = rec.inputs("sincos_misc").size
    sets = {
        "mufu_sincos.txt": [],
        "mufu_other.txt": [],
    }
    x = rec.inputs("sincos_misc")
    o = np.fromfile(os.path.join(d, "sincos_misc.bin"), dtype="<u4")
    pick = np.arange(0, n_misc, 16)
    sets["mufu_sincos.txt"] = [x[pick], o[:n_misc][pick], o[n_misc:][pick]]
    x = rec.inputs("sin_q0")
    s = np.fromfile(os.path.join(d, "sin_q0.bin"), dtype="<u4")
    c = np.fromfile(os.path.join(d, "cos_q0.bin"), dtype="<u4")
    pick = np.arange(0, x.size, 193)
    for j, a in enumerate([x[pick], s[pick], c[pick]]):
        sets["mufu_sincos.txt"][j] = np.concatenate([sets["mufu_sincos.txt"][j], a])
    with open(os.path.join(HERE, "mufu_sincos.txt"), "w") as f:
        f.write("# x sin cos: MUFU.SIN / MUFU.COS of x (revolutions) on an H200, hex words (RECORDED.md)\n")
        for a, b, c in zip(*sets["mufu_sincos.txt"]):
            f.write("%08x %08x %08x\n" % (a, b, c))
    with open(os.path.join(HERE, "mufu_other.txt"), "w") as f:
        f.write("# op x result: MUFU.<op> of x on an H200, hex words (RECORDED.md)\n")
        x = rec.inputs("tanh")
        y = np.fromfile(os.path.join(d, "tanh.bin"), dtype="<u4")
        for i in range(0, x.size, 193):
            f.write("tanh %08x %08x\n" % (x[i], y[i]))
        x = rec.inputs("lg2")
        y = np.fromfile(os.path.join(d, "lg2.bin"), dtype="<u4")
        for i in range(0, x.size, 193):
            f.write("lg2 %08x %08x\n" % (x[i], y[i]))
        x = rec.inputs("ex2_rcp_rsq_sqrt")
        y = np.fromfile(os.path.join(d, "ex2_rcp_rsq_sqrt.bin"), dtype="<u4").reshape(4, -1)
        for k, name in enumerate(["ex2", "rcp", "rsq", "sqrt"]):
            for i in range(0, x.size, 59):
                f.write("%s %08x %08x\n" % (name, x[i], y[k][i]))


if __name__ == "__main__":
    d = sys.argv[1]
    C = fit(d)
    L = fit_lg2(d)
    T = fit_tanh(d)
    write_tables(*C, L, T)
    check(C, d)
    check_lg2(L, d)
    check_tanh(T, d)
    write_recordings(d)
