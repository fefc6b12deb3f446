//! MUFU.RCP64H / RSQ64H seeds without f64 arithmetic.
//!
//! The native lowering (`lower::mufu`) takes the high word of the f64 `1 / d` (`1 / sqrt(d)`) of `d = hi:0`;
//! nvcc refines the seed with DFMA Newton steps, so what decides the final quotient or root is that the
//! seed is close, and its exact bits matter only as far as silicon's do (not recorded yet:
//! docs/float-exactness.md). Here:
//! - RCP64H: the same value as the native path, exactly: `d`'s significand has 21 bits, so `2^73 / M` by
//!   two 64-bit divisions gives the quotient's 53 bits and the remainder its sticky bit, rounded to nearest
//!   by `crate::exact::round` (denormal results included).
//! - RSQ64H: the f32 `InverseSqrt` of the significand (exact in f32) with the exponent halved in integers;
//!   its high word is within one unit of the native seed's (the f32 result carries 24 bits, the high word 21).
//! Special inputs (zeros, denormals, infinities, NaNs, negatives) are selected by the caller.

use crate::exact::round::{self, F64};
use crate::exact::{mode, B};
use crate::spirv::{Id, Op};

/// `GLSL.std.450 InverseSqrt`.
const INVERSE_SQRT: u32 = 32;

/// High word of `round_nearest(1 / (hi:0))` for a normal `hi:0`.
pub fn rcp_hi(b: &mut B<'_>, hi: Id) -> Id {
    let (m, e) = significand(b, hi);
    let m64 = b.u64_of(m);
    let two63 = b.c64(1 << 63);
    let q1 = b.i64(Op::UDiv, two63, m64);
    let r1 = b.i64(Op::UMod, two63, m64);
    let k10 = b.c32(10);
    let n2 = b.i64(Op::ShiftLeftLogical, r1, k10);
    let q2 = b.i64(Op::UDiv, n2, m64);
    let r2 = b.i64(Op::UMod, n2, m64);
    let q = b.i64(Op::ShiftLeftLogical, q1, k10);
    let q = b.i64(Op::BitwiseOr, q, q2); // floor(2^73 / M), in (2^52, 2^53]
    let lz = b.clz64(q);
    let mant = b.shl64(q, lz);
    // value = q * 2^(20 - E - 73) = mant * 2^(e - 63) with e = 10 - lz - E.
    let k10i = b.c32(10);
    let e1 = b.i32(Op::ISub, k10i, lz);
    let er = b.i32(Op::ISub, e1, e);
    let z = b.c64(0);
    let sticky = b.b(Op::INotEqual, r2, z);
    let rn = b.c32(mode::RN);
    let f = b.cb(false);
    let fl = round::flags(b, rn, f, sticky);
    let r = round::round(b, F64, mant, er, fl);
    let rh = b.hi32(r);
    // The reciprocal has the operand's sign.
    let sgn = b.c32(0x8000_0000);
    let s = b.i32(Op::BitwiseAnd, hi, sgn);
    b.i32(Op::BitwiseOr, rh, s)
}

/// High word of `1 / sqrt(hi:0)` for a positive normal `hi:0`, through f32 (see the module note).
pub fn rsq_hi(b: &mut B<'_>, hi: Id) -> Id {
    let (m, e) = significand(b, hi);
    // d = M * 2^(E - 20); with E odd use 2M and E - 1, so the exponent halves exactly.
    let one = b.c32(1);
    let odd = b.i32(Op::BitwiseAnd, e, one);
    let z32 = b.c32(0);
    let is_odd = b.b(Op::INotEqual, odd, z32);
    let m2 = b.i32(Op::ShiftLeftLogical, m, one);
    let m = b.sel32(is_odd, m2, m);
    let e_even = b.i32(Op::ISub, e, odd);
    let f32t = b.t.f32;
    let mf = b.m.un(Op::ConvertUToF, f32t, m);
    let r = b.m.ext(f32t, INVERSE_SQRT, &[mf]);
    let rb = b.m.un(Op::Bitcast, b.t.u32, r);
    // 1/sqrt(d) = r * 2^((20 - E') / 2): r is an f32 near 2^-10..2^-11, normal; re-bias its exponent to f64.
    let k23 = b.c32(23);
    let k255 = b.c32(255);
    let ef = b.i32(Op::ShiftRightLogical, rb, k23);
    let ef = b.i32(Op::BitwiseAnd, ef, k255);
    let k20 = b.c32(20);
    let half = b.i32(Op::ISub, k20, e_even);
    let half = b.i32(Op::ShiftRightArithmetic, half, one);
    // f64 biased exponent: (ef - 127) + half + 1023.
    let k896 = b.c32(896);
    let e64 = b.i32(Op::IAdd, ef, k896);
    let e64 = b.i32(Op::IAdd, e64, half);
    let fmask = b.c32(0x7f_ffff);
    let frac = b.i32(Op::BitwiseAnd, rb, fmask);
    let k3 = b.c32(3);
    let fh = b.i32(Op::ShiftRightLogical, frac, k3);
    let eh = b.i32(Op::ShiftLeftLogical, e64, k20);
    b.i32(Op::BitwiseOr, eh, fh)
}

/// `M` (21 bits, implicit one included) and the unbiased exponent `E` of the normal double `hi:0`.
fn significand(b: &mut B<'_>, hi: Id) -> (Id, Id) {
    let k20 = b.c32(20);
    let k7ff = b.c32(0x7ff);
    let ex = b.i32(Op::ShiftRightLogical, hi, k20);
    let ex = b.i32(Op::BitwiseAnd, ex, k7ff);
    let k1023 = b.c32(1023);
    let e = b.i32(Op::ISub, ex, k1023);
    let fmask = b.c32(0xf_ffff);
    let f = b.i32(Op::BitwiseAnd, hi, fmask);
    let imp = b.c32(0x10_0000);
    (b.i32(Op::BitwiseOr, f, imp), e)
}
