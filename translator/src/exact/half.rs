//! FP16 and BF16 fused multiply-add (HFMA2, and HADD2/HMUL2 through it), one half at a time.
//!
//! Native: nothing rounds here. The halves are widened to f64 in integer arithmetic (exact), the product of
//! two halves is exact in f64 (22 or 16 bits), the sum is rounded to odd with its TwoSum error
//! ([`super::fma32::odd_sum`]), and one integer rounding ([`super::round`]) gives the f16/bf16 result in
//! the mode: round-to-odd at 53 bits then rounding to 11 (8) bits is the correctly rounded fused result.

use super::convert::float_to_float;
use super::round::{Format, BF16, F16, F64};
use super::{begin_helper, end_helper, B};
use crate::spirv::{Id, Module, Op};

/// `round_mode(a * b + c)` of three halves of `fmt` (F16 or BF16) in the low 16 bits of u32s; the result in
/// the low 16 bits (NaN results are some NaN: callers canonicalise).
pub fn hfma(m: &mut Module, fmt: Format, a: Id, b: Id, c: Id, md: Id) -> Id {
    if m.soft_float64() {
        let mut bb = B::new(m);
        let (wa, wb, wc) = (widen(&mut bb, fmt, a), widen(&mut bb, fmt, b), widen(&mut bb, fmt, c));
        let r = crate::lower::soft_f64::fma(bb.m, fmt, wa, wb, wc, md);
        let mut bb = B::new(m);
        return bb.u32_of(r);
    }
    let key = if fmt == BF16 { "exact_hfma_bf16" } else { "exact_hfma_f16" };
    let f = m.helper(key, move |m| build(m, fmt));
    let mut bb = B::new(m);
    let ty = bb.t.u32;
    bb.call(ty, f, &[a, b, c, md])
}

/// A half of `fmt` (low 16 bits of a u32) widened to f64 bits exactly.
pub fn widen(b: &mut B<'_>, fmt: Format, h: Id) -> Id {
    let w = b.u64_of(h);
    let rn = b.c32(0);
    float_to_float(b, fmt, F64, w, rn, false)
}

fn build(m: &mut Module, fmt: Format) -> Id {
    let t = super::Tys::of(m);
    let (f, p) = begin_helper(m, t.u32, &[t.u32, t.u32, t.u32, t.u32]);
    let (a, bv, c, md) = (p[0], p[1], p[2], p[3]);
    let mut b = B { m, t };
    let wa = widen(&mut b, fmt, a);
    let wb = widen(&mut b, fmt, bv);
    let wc = widen(&mut b, fmt, c);
    let da = b.m.un(Op::Bitcast, t.f64, wa);
    let db = b.m.un(Op::Bitcast, t.f64, wb);
    let dc = b.m.un(Op::Bitcast, t.f64, wc);
    let s = super::fma32::odd_sum(&mut b, da, db, dc, md);
    let bits = b.m.un(Op::Bitcast, t.u64, s);
    let r = float_to_float(&mut b, F64, fmt, bits, md, false);
    let r = b.u32_of(r);
    end_helper(b.m, r);
    f
}

/// The formats this module serves.
pub const FORMATS: [Format; 2] = [F16, BF16];
