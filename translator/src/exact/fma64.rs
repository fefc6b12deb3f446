//! FP64 fused multiply-add in any rounding mode, in 128-bit integer arithmetic (u64 pairs).
//!
//! `GLSL.std.450 Fma` is not fused on lavapipe and no wider float type exists, so DFMA (and DADD/DMUL in the
//! directed modes) is emulated: the 53 x 53-bit product is formed exactly from 32-bit partial products, the
//! addend is aligned to it in a 128-bit window whose shifted-out bits are jammed into a sticky bit (safe: bits
//! are lost only when the exponents differ by 2 or more, and then at most one bit cancels, far above the
//! sticky position), the sum is normalised and rounded once by [`super::round`] at 53 bits, denormals and
//! overflow included. Infinities, NaNs and zero products go through native f64 arithmetic, which is exact for
//! them; the zero sign of an exact zero sum follows IEEE 754 6.3 in every mode.

use super::decode::decode;
use super::round::{self, F64};
use super::{begin_helper, end_helper, mode, B};
use crate::spirv::{Id, Module, Op};

/// Bit 2 of the `md` argument: multiply only (no addend; a zero product keeps its own sign).
pub const MUL_ONLY: u32 = 4;

/// `round_mode(a * b + c)` of three f64 (u64 bits); `md` is the mode, optionally `| MUL_ONLY`. NaN results are
/// some NaN (callers canonicalise).
pub fn dfma(m: &mut Module, a: Id, b: Id, c: Id, md: Id) -> Id {
    if m.soft_float64() {
        // No Float64 on the target: the all-integer core (special operands in integer selects too).
        return crate::lower::soft_f64::dfma(m, a, b, c, md);
    }
    let f = m.helper("exact_dfma", build);
    let mut bb = B::new(m);
    let ty = bb.t.u64;
    bb.call(ty, f, &[a, b, c, md])
}

/// A 128-bit value as (hi, lo) (also the soft-double FMA's: `lower::soft_f64::fma`).
pub(crate) type W = (Id, Id);

pub(crate) fn shr128(b: &mut B<'_>, v: W, d: Id) -> (W, Id) {
    let (hi, lo) = v;
    let k64 = b.c32(64);
    let r1 = b.shr64(lo, d);
    let inv = b.i32(Op::ISub, k64, d);
    let r2 = b.shl64(hi, inv);
    let dm = b.i32(Op::ISub, d, k64);
    let r3 = b.shr64(hi, dm);
    let lo2 = b.i64(Op::BitwiseOr, r1, r2);
    let lo2 = b.i64(Op::BitwiseOr, lo2, r3);
    let hi2 = b.shr64(hi, d);
    // Lost bits: lo & mask(d), hi & mask(d - 64) when d > 64.
    let one = b.c64(1);
    let z = b.c64(0);
    let ml = b.shl64(one, d);
    let ml = b.i64(Op::ISub, ml, one);
    let mh = b.shl64(one, dm);
    let mh = b.i64(Op::ISub, mh, one);
    let gt64 = b.b(Op::UGreaterThan, d, k64);
    let mh = b.sel64(gt64, mh, z);
    let l1 = b.i64(Op::BitwiseAnd, lo, ml);
    let l2 = b.i64(Op::BitwiseAnd, hi, mh);
    let lost = b.i64(Op::BitwiseOr, l1, l2);
    let sticky = b.b(Op::INotEqual, lost, z);
    ((hi2, lo2), sticky)
}

pub(crate) fn shl128(b: &mut B<'_>, v: W, s: Id) -> W {
    let (hi, lo) = v;
    let k64 = b.c32(64);
    let h1 = b.shl64(hi, s);
    let inv = b.i32(Op::ISub, k64, s);
    let h2 = b.shr64(lo, inv);
    let sm = b.i32(Op::ISub, s, k64);
    let h3 = b.shl64(lo, sm);
    let hi2 = b.i64(Op::BitwiseOr, h1, h2);
    let hi2 = b.i64(Op::BitwiseOr, hi2, h3);
    let lo2 = b.shl64(lo, s);
    (hi2, lo2)
}

pub(crate) fn clz128(b: &mut B<'_>, v: W) -> Id {
    let zh = b.clz64(v.0);
    let zl = b.clz64(v.1);
    let k64 = b.c32(64);
    let zl = b.i32(Op::IAdd, zl, k64);
    let z = b.c64(0);
    let hz = b.b(Op::IEqual, v.0, z);
    b.sel32(hz, zl, zh)
}

pub(crate) fn add128(b: &mut B<'_>, x: W, y: W) -> W {
    let lo = b.i64(Op::IAdd, x.1, y.1);
    let c = b.b(Op::ULessThan, lo, x.1);
    let one = b.c64(1);
    let z = b.c64(0);
    let c = b.sel64(c, one, z);
    let hi = b.i64(Op::IAdd, x.0, y.0);
    let hi = b.i64(Op::IAdd, hi, c);
    (hi, lo)
}

pub(crate) fn sub128(b: &mut B<'_>, x: W, y: W) -> W {
    let lo = b.i64(Op::ISub, x.1, y.1);
    let br = b.b(Op::ULessThan, x.1, y.1);
    let one = b.c64(1);
    let z = b.c64(0);
    let br = b.sel64(br, one, z);
    let hi = b.i64(Op::ISub, x.0, y.0);
    let hi = b.i64(Op::ISub, hi, br);
    (hi, lo)
}

pub(crate) fn less128(b: &mut B<'_>, x: W, y: W) -> Id {
    let hl = b.b(Op::ULessThan, x.0, y.0);
    let he = b.b(Op::IEqual, x.0, y.0);
    let ll = b.b(Op::ULessThan, x.1, y.1);
    let t = b.and(he, ll);
    b.or(hl, t)
}

pub(crate) fn sel128(b: &mut B<'_>, c: Id, x: W, y: W) -> W {
    (b.sel64(c, x.0, y.0), b.sel64(c, x.1, y.1))
}

/// Exact 53 x 53-bit product (inputs < 2^53) as 128 bits.
pub(crate) fn mul53(b: &mut B<'_>, x: Id, y: Id) -> W {
    let k32 = b.c32(32);
    let m32 = b.c64(0xffff_ffff);
    let xl = b.i64(Op::BitwiseAnd, x, m32);
    let xh = b.i64(Op::ShiftRightLogical, x, k32);
    let yl = b.i64(Op::BitwiseAnd, y, m32);
    let yh = b.i64(Op::ShiftRightLogical, y, k32);
    let ll = b.i64(Op::IMul, xl, yl);
    let lh = b.i64(Op::IMul, xl, yh);
    let hl = b.i64(Op::IMul, xh, yl);
    let hh = b.i64(Op::IMul, xh, yh);
    let mid = b.i64(Op::IAdd, lh, hl); // < 2^54
    let ms = b.i64(Op::ShiftLeftLogical, mid, k32);
    let lo = b.i64(Op::IAdd, ll, ms);
    let c = b.b(Op::ULessThan, lo, ll);
    let one = b.c64(1);
    let z = b.c64(0);
    let c = b.sel64(c, one, z);
    let mh = b.i64(Op::ShiftRightLogical, mid, k32);
    let hi = b.i64(Op::IAdd, hh, mh);
    let hi = b.i64(Op::IAdd, hi, c);
    (hi, lo)
}

fn build(m: &mut Module) -> Id {
    let t = super::Tys::of(m);
    let (f, p) = begin_helper(m, t.u64, &[t.u64, t.u64, t.u64, t.u32]);
    let (a, bv, c, mdf) = (p[0], p[1], p[2], p[3]);
    let mut b = B { m, t };
    let three = b.c32(3);
    let md = b.i32(Op::BitwiseAnd, mdf, three);
    let k4 = b.c32(MUL_ONLY);
    let mo = b.i32(Op::BitwiseAnd, mdf, k4);
    let zero32 = b.c32(0);
    let mul_only = b.b(Op::INotEqual, mo, zero32);
    let da = decode(&mut b, F64, a, false);
    let db = decode(&mut b, F64, bv, false);
    let dc = decode(&mut b, F64, c, false);
    let c_absent = b.or(dc.zero, mul_only);
    let rm = b.c32(mode::RM);
    let is_rm = b.b(Op::IEqual, md, rm);

    // Product sign, significands (53 bits) and exact product normalised to bit 126 (bit 127 is headroom).
    let ps = b.b(Op::LogicalNotEqual, da.sign, db.sign);
    let k11 = b.c32(11);
    let ma = b.i64(Op::ShiftRightLogical, da.mant, k11);
    let mb = b.i64(Op::ShiftRightLogical, db.mant, k11);
    let prod = mul53(&mut b, ma, mb); // in [2^104, 2^106)
    let k41 = b.c32(41);
    let top = b.i64(Op::ShiftRightLogical, prod.0, k41); // bit 105
    let one64 = b.c64(1);
    let top = b.i64(Op::BitwiseAnd, top, one64);
    let z64 = b.c64(0);
    let top = b.b(Op::INotEqual, top, z64);
    let k21 = b.c32(21);
    let k22 = b.c32(22);
    let sh = b.sel32(top, k21, k22);
    let pw = shl128(&mut b, prod, sh);
    let ep = b.i32(Op::IAdd, da.e, db.e);
    let one32 = b.c32(1);
    let ep1 = b.i32(Op::IAdd, ep, one32);
    let ep = b.sel32(top, ep1, ep); // exponent of bit 126
                                    // Addend at bit 126.
    let k1 = b.c32(1);
    let k63 = b.c32(63);
    let chi = b.i64(Op::ShiftRightLogical, dc.mant, k1);
    let clo = b.i64(Op::ShiftLeftLogical, dc.mant, k63);
    let cw = (chi, clo);
    let ec = dc.e;
    // Align the smaller exponent to the larger.
    let p_big = b.b(Op::SGreaterThanEqual, ep, ec);
    let big = sel128(&mut b, p_big, pw, cw);
    let small = sel128(&mut b, p_big, cw, pw);
    let eb = b.sel32(p_big, ep, ec);
    let es = b.sel32(p_big, ec, ep);
    let d = b.i32(Op::ISub, eb, es);
    let k200 = b.c32(200);
    let d = b.m.ext(t.u32, crate::spirv::glsl::UMIN, &[d, k200]);
    let (small, st) = shr128(&mut b, small, d);
    let jam = b.sel64(st, one64, z64);
    let small = (small.0, b.i64(Op::BitwiseOr, small.1, jam));
    let sign_big = b.selb(p_big, ps, dc.sign);
    let sign_small = b.selb(p_big, dc.sign, ps);
    // Without an addend the product alone is rounded.
    let zw = (z64, z64);
    let small = sel128(&mut b, c_absent, zw, small);
    let big = sel128(&mut b, c_absent, pw, big);
    let eb = b.sel32(c_absent, ep, eb);
    let sign_big = b.selb(c_absent, ps, sign_big);
    let sub = b.b(Op::LogicalNotEqual, sign_big, sign_small);
    let f0 = b.cb(false);
    let sub = b.selb(c_absent, f0, sub);
    let sum = add128(&mut b, big, small);
    let diff = sub128(&mut b, big, small);
    let flip = less128(&mut b, big, small);
    let ndiff = sub128(&mut b, small, big);
    let diff = sel128(&mut b, flip, ndiff, diff);
    let r = sel128(&mut b, sub, diff, sum);
    let flip = b.and(flip, sub);
    let nsb = b.not(sign_big);
    let rsign = b.selb(flip, nsb, sign_big);
    // Normalise: MSB to bit 127; its exponent is eb + 1 - lz.
    let lz = clz128(&mut b, r);
    let rn = shl128(&mut b, r, lz);
    let eb1 = b.i32(Op::IAdd, eb, one32);
    let er = b.i32(Op::ISub, eb1, lz);
    let sticky = b.b(Op::INotEqual, rn.1, z64);
    let fl = round::flags(&mut b, md, rsign, sticky);
    let rounded = round::round(&mut b, F64, rn.0, er, fl);
    // Exact cancellation: +0, or -0 when rounding down.
    let rz = b.b(Op::IEqual, r.0, z64);
    let rz2 = b.b(Op::IEqual, r.1, z64);
    let rzero = b.and(rz, rz2);
    let negz = b.c64(1u64 << 63);
    let zres = b.sel64(is_rm, negz, z64);
    let res = b.sel64(rzero, zres, rounded);

    // Special operands: NaN, infinities, zero factors: native f64 arithmetic is exact for them.
    let fa = b.m.un(Op::Bitcast, t.f64, a);
    let fb = b.m.un(Op::Bitcast, t.f64, bv);
    let fc = b.m.un(Op::Bitcast, t.f64, c);
    let fp = b.fx(Op::FMul, t.f64, fa, fb);
    let fs = b.fx(Op::FAdd, t.f64, fp, fc);
    let nat = b.m.un(Op::Bitcast, t.u64, fs);
    let pbits = b.m.un(Op::Bitcast, t.u64, fp);
    // Zero product: the result is c exactly, or a zero whose sign follows the mode (or the product alone).
    let sgn = b.c64(1u64 << 63);
    let psb = b.i64(Op::BitwiseAnd, pbits, sgn);
    let csb = b.i64(Op::BitwiseAnd, c, sgn);
    let both = b.i64(Op::BitwiseAnd, psb, csb);
    let either = b.i64(Op::BitwiseOr, psb, csb);
    let zz = b.sel64(is_rm, either, both);
    let zz = b.sel64(mul_only, psb, zz);
    let c_or = b.sel64(mul_only, psb, c);
    let zprod_res = b.sel64(dc.zero, zz, c_or);
    // NaN or infinite factors, or a NaN addend: native arithmetic (an infinite product is exact; NaN results
    // are fixed up by the caller). An infinite addend with finite factors is the result itself (the exact
    // product is finite, even when its f64 rounding would overflow).
    let pzero = b.or(da.zero, db.zero);
    let not_mul = b.not(mul_only);
    let ab_special = b.or(da.nan, db.nan);
    let ab_inf = b.or(da.inf, db.inf);
    let ab_special = b.or(ab_special, ab_inf);
    let c_nan = b.and(dc.nan, not_mul);
    let special = b.or(ab_special, c_nan);
    let c_inf = b.and(dc.inf, not_mul);
    let nat_mul = b.sel64(mul_only, pbits, nat);
    let res = b.sel64(pzero, zprod_res, res);
    let res = b.sel64(c_inf, c, res);
    let res = b.sel64(special, nat_mul, res);
    end_helper(b.m, res);
    f
}
