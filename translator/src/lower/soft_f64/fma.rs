//! The integer fused multiply-add behind soft double: f64 operands (bits), one rounding to f64, f32, f16 or
//! bf16 in any SM86 mode, with no float type anywhere.
//!
//! The finite path is the 128-bit one of `crate::exact::fma64` (exact 53 x 53-bit product from 32-bit
//! partial products, addend aligned in a 128-bit window with its shifted-out bits jammed into a sticky bit,
//! normalised, rounded once by `crate::exact::round` at the result format's precision, denormal results and
//! overflow per mode included). The special operands, which the native helper leaves to f64 arithmetic, are
//! integer selects here (IEEE 754 7.2 and 6.3): a NaN operand or `0 * inf` or `inf - inf` gives a NaN (the
//! callers choose SM86's), an infinite product or addend is the result, a zero product gives the addend
//! (rounded to the result format, exact for the callers' widened values) or, with a zero addend, the zero
//! whose sign is the product's and the addend's AND (OR in round-down). An exact cancellation is +0, -0 in
//! round-down.

use crate::exact::decode::decode;
use crate::exact::fma64::{add128, clz128, less128, mul53, sel128, shl128, shr128, sub128};
use crate::exact::round::{self, Format, BF16, F16, F32, F64};
use crate::exact::{begin_helper, end_helper, mode, Tys, B};
use crate::spirv::{glsl, Id, Module, Op};

/// Bit 2 of the `md` argument: multiply only (no addend; a zero product keeps its own sign).
pub const MUL_ONLY: u32 = 4;

/// `round_fmt(a * b + c)` of three f64 (u64 bits): the result in `fmt` bits (zero-extended u64); `md` is the
/// mode, optionally `| MUL_ONLY`. NaN results are `fmt`'s canonical NaN.
pub fn fma(m: &mut Module, fmt: Format, a: Id, b: Id, c: Id, md: Id) -> Id {
    call(m, fmt, false, a, b, c, md)
}

/// [`fma`] with one rounding line broken on purpose (the finite path rounds toward zero whatever the mode),
/// under its own helper name: for the reference test to show that it catches a wrong rounding. Never
/// emitted by the translator.
#[doc(hidden)]
pub fn fma_mutant_for_tests(m: &mut Module, fmt: Format, a: Id, b: Id, c: Id, md: Id) -> Id {
    call(m, fmt, true, a, b, c, md)
}

fn call(m: &mut Module, fmt: Format, mutant: bool, a: Id, b: Id, c: Id, md: Id) -> Id {
    let key = match (fmt, mutant) {
        (F64, false) => "soft_fma_f64",
        (F32, false) => "soft_fma_f32",
        (F16, false) => "soft_fma_f16",
        (BF16, false) => "soft_fma_bf16",
        (_, false) => "soft_fma_other",
        (_, true) => "soft_fma_mutant",
    };
    let f = m.helper(key, move |m| build(m, fmt, mutant));
    let mut bb = B::new(m);
    let ty = bb.t.u64;
    bb.call(ty, f, &[a, b, c, md])
}

fn build(m: &mut Module, fmt: Format, mutant: bool) -> Id {
    let t = Tys::of(m);
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
    let k63 = b.c32(63);
    let chi = b.i64(Op::ShiftRightLogical, dc.mant, one32);
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
    let d = b.m.ext(t.u32, glsl::UMIN, &[d, k200]);
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
    let round_md = if mutant { b.c32(mode::RZ) } else { md };
    let fl = round::flags(&mut b, round_md, rsign, sticky);
    let rounded = round::round(&mut b, fmt, rn.0, er, fl);
    // Exact cancellation: +0, or -0 when rounding down.
    let rz = b.b(Op::IEqual, r.0, z64);
    let rz2 = b.b(Op::IEqual, r.1, z64);
    let rzero = b.and(rz, rz2);
    let sgn = b.c64(1u64 << (fmt.width - 1));
    let zres = b.sel64(is_rm, sgn, z64);
    let res = b.sel64(rzero, zres, rounded);
    let res = specials(&mut b, fmt, &[da, db, dc], ps, md, mul_only, res);
    end_helper(b.m, res);
    f
}

/// The special operands of [`build`] over its finite result `res`, in integer selects.
fn specials(
    b: &mut B<'_>,
    fmt: Format,
    d: &[crate::exact::decode::Decoded; 3],
    ps: Id,
    md: Id,
    mul_only: Id,
    res: Id,
) -> Id {
    let [da, db, dc] = *d;
    let z64 = b.c64(0);
    let sgn = b.c64(1u64 << (fmt.width - 1));
    let inf = b.c64(fmt.inf());
    let nan = b.c64(fmt.canonical_nan());
    let rm = b.c32(mode::RM);
    let is_rm = b.b(Op::IEqual, md, rm);
    let not_mul = b.not(mul_only);
    // Zero product (finite factors): the addend exactly (rounded into fmt), or a zero with IEEE's sign.
    let psb = b.sel64(ps, sgn, z64);
    let csb = b.sel64(dc.sign, sgn, z64);
    let both = b.i64(Op::BitwiseAnd, psb, csb);
    let either = b.i64(Op::BitwiseOr, psb, csb);
    let zz = b.sel64(is_rm, either, both);
    let f0 = b.cb(false);
    let cfl = round::flags(b, md, dc.sign, f0);
    let c_in_fmt = round::round(b, fmt, dc.mant, dc.e, cfl);
    let zprod = b.sel64(dc.zero, zz, c_in_fmt);
    let zprod = b.sel64(mul_only, psb, zprod);
    let pzero = b.or(da.zero, db.zero);
    let res = b.sel64(pzero, zprod, res);
    // An infinite addend with finite factors is the result.
    let cinf_v = b.i64(Op::BitwiseOr, csb, inf);
    let c_inf = b.and(dc.inf, not_mul);
    let res = b.sel64(c_inf, cinf_v, res);
    // An infinite factor: an infinite product (NaN with a zero factor, or against an opposite infinity).
    let pinf_v = b.i64(Op::BitwiseOr, psb, inf);
    let ab_inf = b.or(da.inf, db.inf);
    let res = b.sel64(ab_inf, pinf_v, res);
    let inf_zero = b.and(ab_inf, pzero);
    let opposite = b.b(Op::LogicalNotEqual, dc.sign, ps);
    let inf_inf = b.and(ab_inf, c_inf);
    let inf_inf = b.and(inf_inf, opposite);
    let c_nan = b.and(dc.nan, not_mul);
    let any_nan = b.or(da.nan, db.nan);
    let any_nan = b.or(any_nan, c_nan);
    let invalid = b.or(inf_zero, inf_inf);
    let is_nan = b.or(any_nan, invalid);
    b.sel64(is_nan, nan, res)
}
