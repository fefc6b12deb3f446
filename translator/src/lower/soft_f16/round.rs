//! f16 <-> f32 bit conversions in 32-bit integer arithmetic (inline code): exact widening, and rounding of
//! f32 bits to f16 bits to nearest even with f16 denormals and overflow to infinity.

use crate::exact::B;
use crate::spirv::Op;
use crate::spirv::{glsl, Id};

/// f16 bits (low 16 bits of a u32) widened to f32 bits; exact (an f16 denormal is a normal f32).
pub fn widen_f16(b: &mut B<'_>, h: Id) -> Id {
    let k = |b: &mut B<'_>, v: u32| b.c32(v);
    let sgn = k(b, 0x8000);
    let s = b.i32(Op::BitwiseAnd, h, sgn);
    let k16 = k(b, 16);
    let s = b.i32(Op::ShiftLeftLogical, s, k16);
    let absm = k(b, 0x7fff);
    let a = b.i32(Op::BitwiseAnd, h, absm);
    let k10 = k(b, 10);
    let e = b.i32(Op::ShiftRightLogical, a, k10);
    let fm = k(b, 0x3ff);
    let frac = b.i32(Op::BitwiseAnd, a, fm);
    let k13 = k(b, 13);
    // Normal: the exponent rebiased by 127 - 15 = 112 (0x1c000 << 13 = 112 << 23).
    let sh = b.i32(Op::ShiftLeftLogical, a, k13);
    let rebias = k(b, 112 << 23);
    let normal = b.i32(Op::IAdd, sh, rebias);
    // Infinity or NaN: exponent 255, the fraction kept.
    let top = k(b, 0x7f80_0000);
    let fsh = b.i32(Op::ShiftLeftLogical, frac, k13);
    let special = b.i32(Op::BitwiseOr, top, fsh);
    // Denormal frac * 2^-24: with msb the fraction's top bit, exponent msb - 24 + 127 and the bits below
    // the top shifted up to the 23-bit field.
    let msb = b.m.ext(b.t.u32, glsl::FIND_UMSB, &[frac]);
    let k23 = k(b, 23);
    let up = b.i32(Op::ISub, k23, msb);
    let k31 = k(b, 31);
    let up = b.m.ext(b.t.u32, glsl::UMIN, &[up, k31]);
    let fd = b.i32(Op::ShiftLeftLogical, frac, up);
    let fmask = k(b, 0x7f_ffff);
    let fd = b.i32(Op::BitwiseAnd, fd, fmask);
    let k103 = k(b, 103);
    let ed = b.i32(Op::IAdd, msb, k103);
    let ed = b.i32(Op::ShiftLeftLogical, ed, k23);
    let denormal = b.i32(Op::BitwiseOr, ed, fd);
    let zero = k(b, 0);
    let k31e = k(b, 31);
    let is_top = b.b(Op::IEqual, e, k31e);
    let is_low = b.b(Op::IEqual, e, zero);
    let is_zero = b.b(Op::IEqual, a, zero);
    let r = b.sel32(is_top, special, normal);
    let r = b.sel32(is_low, denormal, r);
    let r = b.sel32(is_zero, zero, r);
    b.i32(Op::BitwiseOr, r, s)
}

/// Finite f32 bits rounded to f16 bits, to nearest even (low 16 bits; sign kept, also for results that
/// underflow to zero; 65520 and above overflow to infinity). NaN inputs give 0x7fff. `no_ties_even`: the
/// test mutant (normal ties rounded down).
pub fn f32_to_f16(b: &mut B<'_>, x: Id, no_ties_even: bool) -> Id {
    let k = |b: &mut B<'_>, v: u32| b.c32(v);
    let k16 = k(b, 16);
    let hi = b.i32(Op::ShiftRightLogical, x, k16);
    let sgn = k(b, 0x8000);
    let s = b.i32(Op::BitwiseAnd, hi, sgn);
    let absm = k(b, 0x7fff_ffff);
    let a = b.i32(Op::BitwiseAnd, x, absm);
    // Normal f16 results (|x| >= 2^-14): drop 13 bits, ties to even; a carry moves into the exponent.
    let k13 = k(b, 13);
    let one = k(b, 1);
    let lsb = b.i32(Op::ShiftRightLogical, a, k13);
    let lsb = b.i32(Op::BitwiseAnd, lsb, one);
    let bias = k(b, 0xfff);
    let r = b.i32(Op::IAdd, a, bias);
    let r = if no_ties_even { r } else { b.i32(Op::IAdd, r, lsb) };
    let r = b.i32(Op::ShiftRightLogical, r, k13);
    let rebias = k(b, 112 << 10);
    let normal = b.i32(Op::ISub, r, rebias);
    // Denormal results: significand M (24 bits) times 2^(e - 150) is q = M >> (126 - e) units of 2^-24 with
    // a remainder; sh >= 14 here, and sh > 24 leaves less than half a unit (0, ties included: 0 is even).
    let k23 = k(b, 23);
    let e = b.i32(Op::ShiftRightLogical, a, k23);
    let fm = k(b, 0x7f_ffff);
    let frac = b.i32(Op::BitwiseAnd, a, fm);
    let hid = k(b, 0x80_0000);
    let mant = b.i32(Op::BitwiseOr, frac, hid);
    let k126 = k(b, 126);
    let sh = b.i32(Op::ISub, k126, e);
    let k24 = k(b, 24);
    let shc = b.m.ext(b.t.u32, glsl::UMIN, &[sh, k24]);
    let q = b.i32(Op::ShiftRightLogical, mant, shc);
    let unit = b.i32(Op::ShiftLeftLogical, one, shc);
    let rmask = b.i32(Op::ISub, unit, one);
    let rem = b.i32(Op::BitwiseAnd, mant, rmask);
    let half = b.i32(Op::ShiftRightLogical, unit, one);
    let above = b.b(Op::UGreaterThan, rem, half);
    let tie = b.b(Op::IEqual, rem, half);
    let qodd = b.i32(Op::BitwiseAnd, q, one);
    let zero = k(b, 0);
    let odd = b.b(Op::INotEqual, qodd, zero);
    let tie_up = b.and(tie, odd);
    let inc = b.or(above, tie_up);
    let inc = b.bool_u32(inc);
    let den = b.i32(Op::IAdd, q, inc);
    let too_small = b.b(Op::UGreaterThan, sh, k24);
    let den = b.sel32(too_small, zero, den);
    let min_normal = k(b, 0x3880_0000);
    let is_den = b.b(Op::ULessThan, a, min_normal);
    let r = b.sel32(is_den, den, normal);
    let ovf = k(b, 0x477f_f000);
    let big = b.b(Op::UGreaterThanEqual, a, ovf);
    let inf = k(b, 0x7c00);
    let r = b.sel32(big, inf, r);
    let r = b.i32(Op::BitwiseOr, r, s);
    let top = k(b, 0x7f80_0000);
    let nan = b.b(Op::UGreaterThan, a, top);
    let qnan = k(b, 0x7fff);
    b.sel32(nan, qnan, r)
}
