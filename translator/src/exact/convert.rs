//! Conversions in every rounding mode, in integer arithmetic: integer -> float, float -> integer (with SM86's
//! saturation and NaN rules) and float -> float.
//!
//! Native SPIR-V conversions (`OpConvertFToS`, `OpFConvert`, ...) round toward zero or to nearest only, leave
//! out-of-range and NaN results undefined and may flush denormals, so none of them is used here.

use super::decode::{decode, Decoded};
use super::round::{self, Format};
use super::{begin_helper, end_helper, B};
use crate::spirv::{glsl, Id, Module, Op};

/// An integer magnitude `mag` (u64) with `sign` (bool) rounded to `fmt` in mode `md`; u64 bits. Zero gives +0.
pub fn int_to_float(b: &mut B<'_>, fmt: Format, mag: Id, sign: Id, md: Id) -> Id {
    let lz = b.clz64(mag);
    let mant = b.shl64(mag, lz);
    let k63 = b.c32(63);
    let e = b.i32(Op::ISub, k63, lz);
    let f0 = b.cb(false);
    let fl = round::flags(b, md, sign, f0);
    let r = round::round(b, fmt, mant, e, fl);
    let z = b.c64(0);
    let is0 = b.b(Op::IEqual, mag, z);
    b.sel64(is0, z, r)
}

/// Float -> integer configuration (the `cfg` argument of the helpers): mode (bits 1:0), destination width
/// code (bits 3:2: 1 = 16, 2 = 32, 3 = 64 bits), signed (bit 4), NaN to zero (bit 5), flush denormal inputs
/// (bit 6).
pub fn f2i_cfg(mode: u32, width_code: u32, signed: bool, ntz: bool, ftz: bool) -> u32 {
    mode | (width_code << 2) | (u32::from(signed) << 4) | (u32::from(ntz) << 5) | (u32::from(ftz) << 6)
}

/// A float of `fmt` (u64 bits) to an integer per `cfg` (a u32 constant or value, see [`f2i_cfg`]); the
/// result is the integer's two's-complement bits in a u64 (take the low word for 16/32-bit destinations).
///
/// SM86 rules: results are rounded in the mode, then saturated to the destination range (negative values to
/// 0 for unsigned ones; ±inf to the range ends); NaN gives 0 with `.NTZ`, else the most negative value's
/// bits (`1 << (width - 1)`), as the H200 goldens record for 64-bit destinations.
pub fn float_to_int(m: &mut Module, fmt: Format, bits: Id, cfg: Id) -> Id {
    let key = match fmt.width {
        16 => "exact_f2i_f16",
        32 => "exact_f2i_f32",
        _ => "exact_f2i_f64",
    };
    let f = m.helper(key, move |m| build_f2i(m, fmt));
    let mut b = B::new(m);
    let ty = b.t.u64;
    b.call(ty, f, &[bits, cfg])
}

fn field(b: &mut B<'_>, v: Id, lo: u32, width: u32) -> Id {
    let s = b.c32(lo);
    let x = b.i32(Op::ShiftRightLogical, v, s);
    let mk = b.c32((1 << width) - 1);
    b.i32(Op::BitwiseAnd, x, mk)
}

fn build_f2i(m: &mut Module, fmt: Format) -> Id {
    let t = super::Tys::of(m);
    let (f, p) = begin_helper(m, t.u64, &[t.u64, t.u32]);
    let (bits, cfg) = (p[0], p[1]);
    let mut b = B { m, t };
    let md = field(&mut b, cfg, 0, 2);
    let wc = field(&mut b, cfg, 2, 2);
    let signed = field(&mut b, cfg, 4, 1);
    let ntz = field(&mut b, cfg, 5, 1);
    let ftz = field(&mut b, cfg, 6, 1);
    let zero = b.c32(0);
    let signed = b.b(Op::INotEqual, signed, zero);
    let ntz = b.b(Op::INotEqual, ntz, zero);
    let ftz = b.b(Op::INotEqual, ftz, zero);
    let d: Decoded = decode(&mut b, fmt, bits, false);
    let flushed = b.and(d.denormal, ftz);
    let is_zero = b.or(d.zero, flushed);

    // Integer part and rounding: value = mant * 2^(e - 63); shift s = 63 - e, clamped to [0, 65].
    let k63 = b.c32(63);
    let big = b.b(Op::SGreaterThan, d.e, k63); // |value| >= 2^64
    let s = b.i32(Op::ISub, k63, d.e);
    let k65 = b.c32(65);
    let s = b.m.ext(t.u32, glsl::SMAX, &[s, zero]);
    let s = b.m.ext(t.u32, glsl::SMIN, &[s, k65]);
    let q = b.shr64(d.mant, s);
    let one64 = b.c64(1);
    let z64 = b.c64(0);
    let ones = b.c64(u64::MAX);
    let low = b.shl64(one64, s);
    let mask = b.i64(Op::ISub, low, one64);
    let k64 = b.c32(64);
    let wide = b.b(Op::UGreaterThanEqual, s, k64);
    let mask = b.sel64(wide, ones, mask);
    let rem = b.i64(Op::BitwiseAnd, d.mant, mask);
    let one32 = b.c32(1);
    let sm1 = b.i32(Op::ISub, s, one32);
    let half = b.shl64(one64, sm1);
    let s_pos = b.b(Op::UGreaterThanEqual, s, one32);
    let s_le = b.b(Op::ULessThanEqual, s, k64);
    let reach = b.and(s_pos, s_le);
    let gt = b.b(Op::UGreaterThan, rem, half);
    let eq = b.b(Op::IEqual, rem, half);
    let above = b.and(gt, reach);
    let tie = b.and(eq, reach);
    let inexact = b.b(Op::INotEqual, rem, z64);
    let qodd = b.i64(Op::BitwiseAnd, q, one64);
    let qodd = b.b(Op::INotEqual, qodd, z64);
    let tie_odd = b.and(tie, qodd);
    let up_rn = b.or(above, tie_odd);
    let nsign = b.not(d.sign);
    let up_rm = b.and(inexact, d.sign);
    let up_rp = b.and(inexact, nsign);
    let is_rn = b.b(Op::IEqual, md, zero);
    let k1 = b.c32(super::mode::RM);
    let is_rm = b.b(Op::IEqual, md, k1);
    let k2 = b.c32(super::mode::RP);
    let is_rp = b.b(Op::IEqual, md, k2);
    let f0 = b.cb(false);
    let up = b.selb(is_rp, up_rp, f0);
    let up = b.selb(is_rm, up_rm, up);
    let up = b.selb(is_rn, up_rn, up);
    let inc = b.sel64(up, one64, z64);
    let q = b.i64(Op::IAdd, q, inc);
    let q = b.sel64(is_zero, z64, q);

    // Range of the destination: width w = 8 << wc.
    let k8 = b.c32(8);
    let w = b.i32(Op::ShiftLeftLogical, k8, wc);
    let wm1 = b.i32(Op::ISub, w, one32);
    let top = b.shl64(one64, wm1); // 2^(w-1)
    let full = b.shl64(one64, w); // 2^w (0 for w = 64)
    let umax = b.i64(Op::ISub, full, one64); // 2^w - 1 (all ones for w = 64)
    let smax = b.i64(Op::ISub, top, one64);
    let pos_max = b.sel64(signed, smax, umax);
    let neg_max = b.sel64(signed, top, z64); // largest magnitude of a negative result
    let lim = b.sel64(d.sign, neg_max, pos_max);
    let over = b.b(Op::UGreaterThan, q, lim);
    let over = b.or(over, big);
    let over = b.or(over, d.inf);
    let q = b.sel64(over, lim, q);
    let neg = b.m.un(Op::SNegate, t.u64, q);
    let r = b.sel64(d.sign, neg, q);
    let nan_v = b.sel64(ntz, z64, top);
    let r = b.sel64(d.nan, nan_v, r);
    end_helper(b.m, r);
    f
}

/// A float of `src` (u64 bits) rounded to `dst` in mode `md`; u64 bits. `ftz` flushes denormal inputs and
/// results to zero (sign kept). A NaN stays a NaN: quiet bit set, sign and leading payload bits kept.
pub fn float_to_float(b: &mut B<'_>, src: Format, dst: Format, bits: Id, md: Id, ftz: bool) -> Id {
    let d = decode(b, src, bits, ftz);
    let f0 = b.cb(false);
    let fl = round::flags(b, md, d.sign, f0);
    let r = round::round(b, dst, d.mant, d.e, fl);
    let r = if ftz { flush(b, dst, r) } else { r };
    let z = b.c64(0);
    let sb = b.c64(1u64 << (dst.width - 1));
    let s = b.sel64(d.sign, sb, z);
    let infb = b.c64(dst.inf());
    let inf = b.i64(Op::BitwiseOr, s, infb);
    // NaN: quieted, sign and the top fraction bits kept (what the H200 goldens show for F2F).
    let fmask = b.c64((1u64 << (src.p - 1)) - 1);
    let frac = b.i64(Op::BitwiseAnd, bits, fmask);
    let payload = if dst.p >= src.p {
        let k = b.c32(dst.p - src.p);
        b.i64(Op::ShiftLeftLogical, frac, k)
    } else {
        let k = b.c32(src.p - dst.p);
        b.i64(Op::ShiftRightLogical, frac, k)
    };
    let quiet = b.c64(dst.inf() | (1u64 << (dst.p - 2)));
    let nan = b.i64(Op::BitwiseOr, s, quiet);
    let nan = b.i64(Op::BitwiseOr, nan, payload);
    let r = b.sel64(d.zero, s, r);
    let r = b.sel64(d.inf, inf, r);
    b.sel64(d.nan, nan, r)
}

/// Flushes denormal bits of `fmt` (u64) to a zero of the same sign.
pub fn flush(b: &mut B<'_>, fmt: Format, v: Id) -> Id {
    let em = b.c64(fmt.inf());
    let ex = b.i64(Op::BitwiseAnd, v, em);
    let z = b.c64(0);
    let den = b.b(Op::IEqual, ex, z);
    let sb = b.c64(1u64 << (fmt.width - 1));
    let s = b.i64(Op::BitwiseAnd, v, sb);
    b.sel64(den, s, v)
}
