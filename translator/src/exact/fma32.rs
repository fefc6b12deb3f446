//! FP32 add, multiply and fused multiply-add in any rounding mode, through exact f64 steps.
//!
//! Native: the f32 -> f64 widening (exact), the f64 product of two widened f32 values (24 x 24 bits: exact),
//! the f64 sum and its TwoSum error (exact in round-to-nearest f64 arithmetic, which Vulkan requires correctly
//! rounded). Emulated: the round-to-odd fix-up of the sum and the single f64 -> f32 rounding ([`super::round`]),
//! which is where the mode applies. Round-to-odd at 53 bits followed by one rounding to 24 bits equals the
//! direct rounding of the exact value in every mode (p + 2 <= 53), denormal f32 results included (they have
//! even fewer bits).
//!
//! Zero signs: an exact zero sum of opposite-signed operands is +0, except -0 in round-down (IEEE 754 6.3);
//! f64 arithmetic gives the round-to-nearest sign, the helper fixes round-down.

use super::decode::decode;
use super::round::{self, F32, F64};
use super::{begin_helper, end_helper, mode, B};
use crate::spirv::{Id, Module, Op};

/// `round_mode(a * b + c)` of three f32 (as u32 bits); NaN results are some NaN (callers canonicalise).
pub fn ffma(m: &mut Module, a: Id, b: Id, c: Id, md: Id) -> Id {
    if m.soft_float64() {
        return crate::lower::soft_f64::ffma(m, a, b, c, md);
    }
    let f = m.helper("exact_ffma_f32", build_ffma);
    let mut bb = B::new(m);
    let ty = bb.t.u32;
    bb.call(ty, f, &[a, b, c, md])
}

/// `round_mode(a + b)` of two f32 bits.
pub fn fadd(m: &mut Module, a: Id, b: Id, md: Id) -> Id {
    let one = m.c_u32(0x3f80_0000);
    ffma(m, a, one, b, md)
}

/// `round_mode(a * b)` of two f32 bits: the f64 product is exact, one rounding to f32.
pub fn fmul(m: &mut Module, a: Id, b: Id, md: Id) -> Id {
    if m.soft_float64() {
        return crate::lower::soft_f64::fmul_scaled(m, a, b, 0, md);
    }
    let mut bb = B::new(m);
    let t = bb.t;
    let wa = bb.widen_f32(a);
    let wb = bb.widen_f32(b);
    let da = bb.m.un(Op::Bitcast, t.f64, wa);
    let db = bb.m.un(Op::Bitcast, t.f64, wb);
    let p = bb.fx(Op::FMul, t.f64, da, db);
    let bits = bb.m.un(Op::Bitcast, t.u64, p);
    f64_to_f32(bb.m, bits, md)
}

/// An f64 (u64 bits) rounded to f32 bits in `mode`; NaN gives 0x7fffffff.
pub fn f64_to_f32(m: &mut Module, bits: Id, md: Id) -> Id {
    let f = m.helper("exact_f64_to_f32", build_f64_to_f32);
    let mut bb = B::new(m);
    let ty = bb.t.u32;
    bb.call(ty, f, &[bits, md])
}

fn build_f64_to_f32(m: &mut Module) -> Id {
    let t = super::Tys::of(m);
    let (f, p) = begin_helper(m, t.u32, &[t.u64, t.u32]);
    let (bits, md) = (p[0], p[1]);
    let mut b = B { m, t };
    let d = decode(&mut b, F64, bits, false);
    let f0 = b.cb(false);
    let fl = round::flags(&mut b, md, d.sign, f0);
    let r = round::round(&mut b, F32, d.mant, d.e, fl);
    let r = b.u32_of(r);
    let sbit = b.c32(0x8000_0000);
    let z = b.c32(0);
    let s = b.sel32(d.sign, sbit, z);
    let infb = b.c32(0x7f80_0000);
    let inf = b.i32(Op::BitwiseOr, s, infb);
    let nan = b.c32(0x7fff_ffff);
    let r = b.sel32(d.zero, s, r);
    let r = b.sel32(d.inf, inf, r);
    let r = b.sel32(d.nan, nan, r);
    end_helper(b.m, r);
    f
}

fn build_ffma(m: &mut Module) -> Id {
    let t = super::Tys::of(m);
    let (f, p) = begin_helper(m, t.u32, &[t.u32, t.u32, t.u32, t.u32]);
    let (a, bv, c, md) = (p[0], p[1], p[2], p[3]);
    let mut b = B { m, t };
    let wide = |b: &mut B<'_>, v: Id| {
        let w = b.widen_f32(v);
        b.m.un(Op::Bitcast, t.f64, w)
    };
    let da = wide(&mut b, a);
    let db = wide(&mut b, bv);
    let dc = wide(&mut b, c);
    let s = odd_sum(&mut b, da, db, dc, md);
    let bits = b.m.un(Op::Bitcast, t.u64, s);
    let r = f64_to_f32(b.m, bits, md);
    end_helper(b.m, r);
    f
}

/// `p = a * b` (exact), then `p + c` rounded to odd in f64, with the IEEE zero sign for mode `md`.
pub(crate) fn odd_sum(b: &mut B<'_>, da: Id, db: Id, dc: Id, md: Id) -> Id {
    let t = b.t;
    let p = b.fx(Op::FMul, t.f64, da, db);
    let s = b.fx(Op::FAdd, t.f64, p, dc);
    // TwoSum: err = (p - (s - bb)) + (c - bb), bb = s - p.
    let bb = b.fx(Op::FSub, t.f64, s, p);
    let sb = b.fx(Op::FSub, t.f64, s, bb);
    let e1 = b.fx(Op::FSub, t.f64, p, sb);
    let e2 = b.fx(Op::FSub, t.f64, dc, bb);
    let err = b.fx(Op::FAdd, t.f64, e1, e2);
    let zero = b.m.constant(t.f64, 0, true);
    let nz = b.b(Op::FUnordNotEqual, err, zero);
    let s_inf = b.m.un(Op::IsInf, t.bool, s);
    let s_nan = b.m.un(Op::IsNan, t.bool, s);
    let e_nan = b.m.un(Op::IsNan, t.bool, err);
    let bad = b.or(s_inf, s_nan);
    let bad = b.or(bad, e_nan);
    let finite = b.not(bad);
    let inexact = b.and(nz, finite);
    let bits = b.m.un(Op::Bitcast, t.u64, s);
    let one = b.c64(1);
    let low = b.i64(Op::BitwiseAnd, bits, one);
    let z64 = b.c64(0);
    let even = b.b(Op::IEqual, low, z64);
    // Same signs of err and s: the exact value is larger in magnitude than s.
    let err_bits = b.m.un(Op::Bitcast, t.u64, err);
    let sx = b.i64(Op::BitwiseXor, err_bits, bits);
    let opposite = b.neg64(sx);
    let same = b.not(opposite);
    let up = b.i64(Op::IAdd, bits, one);
    let down = b.i64(Op::ISub, bits, one);
    let moved = b.sel64(same, up, down);
    let fix = b.and(inexact, even);
    let odd = b.sel64(fix, moved, bits);
    // Exact zero: sign(p) & sign(c), or sign(p) | sign(c) in round-down (IEEE 754 6.3), in integer
    // arithmetic: a driver may fold `p + 0.0` to p when the zero is a constant (lavapipe does, even with
    // SignedZeroInfNanPreserve: `FFMA R7, R0, R7, RZ` with R0 = -0 gave -0; silicon +0). sign(p) is
    // sign(a) ^ sign(b) (a zero product of f32 factors is exact, and so is a cancelling sum's product).
    let ab = b.m.un(Op::Bitcast, t.u64, da);
    let bb_bits = b.m.un(Op::Bitcast, t.u64, db);
    let pb = b.i64(Op::BitwiseXor, ab, bb_bits);
    let cbits = b.m.un(Op::Bitcast, t.u64, dc);
    let either = b.i64(Op::BitwiseOr, pb, cbits);
    let both = b.i64(Op::BitwiseAnd, pb, cbits);
    let sgn = b.c64(1u64 << 63);
    let neg0 = b.i64(Op::BitwiseAnd, either, sgn);
    let nearest0 = b.i64(Op::BitwiseAnd, both, sgn);
    let absm = b.c64(u64::MAX >> 1);
    let mag = b.i64(Op::BitwiseAnd, bits, absm);
    let is_zero = b.b(Op::IEqual, mag, z64);
    let rm = b.c32(mode::RM);
    let is_rm = b.b(Op::IEqual, md, rm);
    let zero = b.sel64(is_rm, neg0, nearest0);
    let odd = b.sel64(is_zero, zero, odd);
    b.m.un(Op::Bitcast, t.f64, odd)
}

/// FFMA `.FMZ`: a zero factor (either sign) makes both factors +0, so `0 * inf` and `0 * NaN` give a +0
/// product (the D3D multiply rule; not covered by silicon goldens: nvcc does not emit `.FMZ` for CUDA code).
pub fn fmz(m: &mut Module, a: Id, b: Id) -> (Id, Id) {
    let mut bb = B::new(m);
    let abs = bb.c32(0x7fff_ffff);
    let z = bb.c32(0);
    let aa = bb.i32(Op::BitwiseAnd, a, abs);
    let ba = bb.i32(Op::BitwiseAnd, b, abs);
    let az = bb.b(Op::IEqual, aa, z);
    let bz = bb.b(Op::IEqual, ba, z);
    let any = bb.or(az, bz);
    (bb.sel32(any, z, a), bb.sel32(any, z, b))
}
