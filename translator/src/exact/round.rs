//! The integer rounding core: a nonzero value `sign * mant * 2^(e - 63)` (with `mant` normalised, bit 63 set)
//! plus a sticky bit for anything below `mant`, rounded to a binary format in one of the four SM86 modes.
//!
//! Denormal results come from widening the shift (so they are rounded once, at their own precision); a carry
//! out of the significand moves into the exponent field by plain addition (largest denormal -> smallest normal,
//! largest significand -> next binade); overflow gives infinity or the largest finite value per mode and sign.
//! Pure integer arithmetic: exact on every device.

use super::{begin_helper, end_helper, mode, B};
use crate::spirv::{glsl, Id, Module, Op};

/// A binary floating-point format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Significand bits including the implicit one (f16: 11, bf16: 8, f32: 24, f64: 53).
    pub p: u32,
    /// Exponent bias (f16: 15, bf16: 127, f32: 127, f64: 1023).
    pub bias: i32,
    /// Total width in bits.
    pub width: u32,
    /// Helper-function key.
    pub key: &'static str,
}

pub const F16: Format = Format { p: 11, bias: 15, width: 16, key: "exact_round_f16" };
pub const BF16: Format = Format { p: 8, bias: 127, width: 16, key: "exact_round_bf16" };
pub const F32: Format = Format { p: 24, bias: 127, width: 32, key: "exact_round_f32" };
pub const F64: Format = Format { p: 53, bias: 1023, width: 64, key: "exact_round_f64" };

impl Format {
    /// Exponent of the smallest normal.
    pub fn emin(&self) -> i32 {
        1 - self.bias
    }
    /// Exponent of the largest finite value.
    pub fn emax(&self) -> i32 {
        self.bias
    }
    /// Bits of +infinity.
    pub fn inf(&self) -> u64 {
        ((2 * self.bias + 1) as u64) << (self.p - 1)
    }
    /// Bits of the canonical NaN SM86 writes (all ones but the sign).
    pub fn canonical_nan(&self) -> u64 {
        (u64::MAX >> (64 - self.width)) >> 1
    }
}

/// Packs the `flags` argument of the rounding helper: mode (bits 1:0), sign (bit 2), sticky (bit 3).
pub fn flags(b: &mut B<'_>, mode: Id, sign: Id, sticky: Id) -> Id {
    let four = b.c32(4);
    let eight = b.c32(8);
    let zero = b.c32(0);
    let s = b.sel32(sign, four, zero);
    let t = b.sel32(sticky, eight, zero);
    let f = b.i32(Op::BitwiseOr, mode, s);
    b.i32(Op::BitwiseOr, f, t)
}

/// Calls the rounding helper of `fmt`: `(mant: u64, e: i32 as u32, flags: u32) -> u64` bits (sign included,
/// zero-extended).
pub fn round(b: &mut B<'_>, fmt: Format, mant: Id, e: Id, flags: Id) -> Id {
    let f = b.m.helper(fmt.key, move |m| build(m, fmt));
    let ty = b.t.u64;
    b.call(ty, f, &[mant, e, flags])
}

fn build(m: &mut Module, fmt: Format) -> Id {
    let t = super::Tys::of(m);
    let (f, p) = begin_helper(m, t.u64, &[t.u64, t.u32, t.u32]);
    let (mant, e, flags) = (p[0], p[1], p[2]);
    let mut b = B { m, t };
    let three = b.c32(3);
    let md = b.i32(Op::BitwiseAnd, flags, three);
    let four = b.c32(4);
    let sbit = b.i32(Op::BitwiseAnd, flags, four);
    let zero = b.c32(0);
    let sign = b.b(Op::INotEqual, sbit, zero);
    let eight = b.c32(8);
    let stbit = b.i32(Op::BitwiseAnd, flags, eight);
    let sticky = b.b(Op::INotEqual, stbit, zero);

    // Shift that leaves p significant bits (more for denormal results), clamped to 65.
    let emin = b.c32(fmt.emin() as u32);
    let denorm = b.b(Op::SLessThan, e, emin);
    let extra = b.i32(Op::ISub, emin, e);
    let extra = b.sel32(denorm, extra, zero);
    let k65 = b.c32(65);
    let extra = b.m.ext(t.u32, glsl::UMIN, &[extra, k65]);
    let base_shift = b.c32(64 - fmt.p);
    let s = b.i32(Op::IAdd, base_shift, extra);
    let s = b.m.ext(t.u32, glsl::UMIN, &[s, k65]);
    let q = b.shr64(mant, s);
    // rem = mant & ((1 << s) - 1), all of mant when s >= 64.
    let one64 = b.c64(1);
    let ones = b.c64(u64::MAX);
    let low = b.shl64(one64, s);
    let mask = b.i64(Op::ISub, low, one64);
    let k64 = b.c32(64);
    let wide = b.b(Op::UGreaterThanEqual, s, k64);
    let mask = b.sel64(wide, ones, mask);
    let rem = b.i64(Op::BitwiseAnd, mant, mask);
    // half = 1 << (s - 1) for s <= 64; for s == 65 nothing reaches half.
    let one32 = b.c32(1);
    let sm1 = b.i32(Op::ISub, s, one32);
    let half = b.shl64(one64, sm1);
    let z64 = b.c64(0);
    let reach = b.b(Op::ULessThanEqual, s, k64);
    let gt = b.b(Op::UGreaterThan, rem, half);
    let eq = b.b(Op::IEqual, rem, half);
    let eq_st = b.and(eq, sticky);
    let above = b.or(gt, eq_st);
    let above = b.and(above, reach);
    let nst = b.not(sticky);
    let tie = b.and(eq, nst);
    let tie = b.and(tie, reach);
    let rem_nz = b.b(Op::INotEqual, rem, z64);
    let inexact = b.or(rem_nz, sticky);
    let qodd = b.i64(Op::BitwiseAnd, q, one64);
    let qodd = b.b(Op::INotEqual, qodd, z64);
    let tie_odd = b.and(tie, qodd);
    let up_rn = b.or(above, tie_odd);
    let nsign = b.not(sign);
    let up_rm = b.and(inexact, sign);
    let up_rp = b.and(inexact, nsign);
    let is_rn = b.b(Op::IEqual, md, zero);
    let k1 = b.c32(mode::RM);
    let is_rm = b.b(Op::IEqual, md, k1);
    let k2 = b.c32(mode::RP);
    let is_rp = b.b(Op::IEqual, md, k2);
    let f0 = b.cb(false);
    let up = b.selb(is_rp, up_rp, f0);
    let up = b.selb(is_rm, up_rm, up);
    let up = b.selb(is_rn, up_rn, up);
    let inc = b.sel64(up, one64, z64);
    let q = b.i64(Op::IAdd, q, inc);

    // Exponent field: (e + bias - 1) << (p - 1), e clamped so the shift cannot wrap.
    let emax1 = b.c32((fmt.emax() + 1) as u32);
    let ec = b.m.ext(t.u32, glsl::SMIN, &[e, emax1]);
    let bm1 = b.c32((fmt.bias - 1) as u32);
    let ef = b.i32(Op::IAdd, ec, bm1);
    let ef = b.sel32(denorm, zero, ef);
    let ef = b.u64_of(ef);
    let pm1 = b.c32(fmt.p - 1);
    let ebase = b.i64(Op::ShiftLeftLogical, ef, pm1);
    let mag = b.i64(Op::IAdd, ebase, q);
    // Overflow: infinity when the mode rounds away from zero in the value's direction, else the largest finite.
    let inf = b.c64(fmt.inf());
    let maxf = b.c64(fmt.inf() - 1);
    let over = b.b(Op::UGreaterThanEqual, mag, inf);
    let rm_neg = b.and(is_rm, sign);
    let rp_pos = b.and(is_rp, nsign);
    let to_inf = b.or(is_rn, rm_neg);
    let to_inf = b.or(to_inf, rp_pos);
    let ovf = b.sel64(to_inf, inf, maxf);
    let mag = b.sel64(over, ovf, mag);
    let sb = b.c64(1u64 << (fmt.width - 1));
    let sv = b.sel64(sign, sb, z64);
    let r = b.i64(Op::BitwiseOr, mag, sv);
    end_helper(b.m, r);
    f
}
