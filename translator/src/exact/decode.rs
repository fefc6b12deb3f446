//! Float bits to sign, class and a normalised significand (inline integer code).

use super::round::Format;
use super::B;
use crate::spirv::{Id, Op};

/// A decoded float: `value = (-1)^sign * mant * 2^(e - 63)` for finite nonzero values.
#[derive(Debug, Clone, Copy)]
pub struct Decoded {
    pub sign: Id,
    pub nan: Id,
    pub inf: Id,
    /// Zero (including a denormal flushed by `ftz`).
    pub zero: Id,
    /// Denormal input (before any flush).
    pub denormal: Id,
    /// Normalised significand (bit 63 set) of finite nonzero values; unspecified otherwise.
    pub mant: Id,
    /// Exponent of bit 63 of `mant` (i32 in a u32).
    pub e: Id,
}

/// Decodes `bits` (a u64 holding a value of `fmt` in its low bits). With `ftz`, denormals count as zero.
pub fn decode(b: &mut B<'_>, fmt: Format, bits: Id, ftz: bool) -> Decoded {
    let frac_bits = fmt.p - 1;
    let ebits = fmt.width - fmt.p;
    let sign_sh = b.c32(fmt.width - 1);
    let s = b.i64(Op::ShiftRightLogical, bits, sign_sh);
    let one = b.c64(1);
    let s = b.i64(Op::BitwiseAnd, s, one);
    let z64 = b.c64(0);
    let sign = b.b(Op::INotEqual, s, z64);
    let fs = b.c32(frac_bits);
    let ex = b.i64(Op::ShiftRightLogical, bits, fs);
    let emask = b.c64((1u64 << ebits) - 1);
    let ex = b.i64(Op::BitwiseAnd, ex, emask);
    let ex = b.u32_of(ex);
    let fmask = b.c64((1u64 << frac_bits) - 1);
    let frac = b.i64(Op::BitwiseAnd, bits, fmask);
    let emax_field = b.c32((1u32 << ebits) - 1);
    let zero = b.c32(0);
    let e_all = b.b(Op::IEqual, ex, emax_field);
    let f_zero = b.b(Op::IEqual, frac, z64);
    let f_nz = b.not(f_zero);
    let nan = b.and(e_all, f_nz);
    let inf = b.and(e_all, f_zero);
    let e_zero = b.b(Op::IEqual, ex, zero);
    let denormal = b.and(e_zero, f_nz);
    let is_zero = if ftz { e_zero } else { b.and(e_zero, f_zero) };
    // Significand with its implicit bit, and the exponent of its bit 0.
    let imp = b.c64(1u64 << frac_bits);
    let with_imp = b.i64(Op::BitwiseOr, frac, imp);
    let sig = b.sel64(e_zero, frac, with_imp);
    let one32 = b.c32(1);
    let ex1 = b.sel32(e_zero, one32, ex);
    let off = b.c32((fmt.bias + frac_bits as i32) as u32);
    let e0 = b.i32(Op::ISub, ex1, off);
    let lz = b.clz64(sig);
    let mant = b.shl64(sig, lz);
    let k63 = b.c32(63);
    let e = b.i32(Op::IAdd, e0, k63);
    let e = b.i32(Op::ISub, e, lz);
    Decoded { sign, nan, inf, zero: is_zero, denormal, mant, e }
}

/// Decodes a u32 holding an f32 (or f16/bf16 in its low bits).
pub fn decode32(b: &mut B<'_>, fmt: Format, bits: Id, ftz: bool) -> Decoded {
    let w = b.u64_of(bits);
    decode(b, fmt, w, ftz)
}
