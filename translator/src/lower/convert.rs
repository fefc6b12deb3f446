//! Conversions: I2F, I2FP, F2I, F2F, FRND, F2FP — every width, signedness and rounding mode, exact.
//!
//! Fields (read from nvdisasm's listings of the corpus): rounding 79:78 (0 RN, 1 RM/FLOOR, 2 RP/CEIL,
//! 3 RZ/TRUNC); destination size 76:75 and source size 85:84 (I2F: 0 = 8, 1 = 16, 2 = 32, 3 = 64 bits; an 8-
//! or 16-bit source is the register's byte or half named by bits 61:60, `.B1`..`.B3` / `.H1`); I2F's source
//! signedness bit 74; F2I's destination signedness bit 72 and `.NTZ` bit 77; `.FTZ` bit 80; the B slot's
//! `|x|` and `-x` bits 62/63 on float sources (checked with nvdisasm on patched F2F.F16.F64 words). F2FP: see
//! [`f2fp`].
//!
//! Exactness: all of these are integer arithmetic through `crate::exact` (native conversions round only to
//! nearest or toward zero, leave out-of-range and NaN results undefined and may flush denormals).
//! SM86 rules: F2I saturates to the destination range and gives 0 for NaN with `.NTZ`, else the most negative
//! value's bits; float results write canonical NaNs (all ones but the sign); `.FTZ` flushes denormal inputs
//! and results (sign kept).

use super::{Ctx, Src};
use crate::error::TranslateError;
use crate::exact::convert::{f2i_cfg, float_to_float, float_to_int, int_to_float};
use crate::exact::decode::decode;
use crate::exact::round::{Format, BF16, F16, F32, F64};
use crate::exact::B;
use crate::spirv::{Id, Op};

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "I2F" | "I2FP" => i2f(cx)?,
        "F2I" => f2i(cx)?,
        "FRND" => frnd(cx)?,
        "F2F" => f2f(cx)?,
        "F2FP" => f2fp(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn format(cx: &Ctx<'_>, code: u32) -> Result<Format, TranslateError> {
    match code {
        1 => Ok(F16),
        2 => Ok(F32),
        3 => Ok(F64),
        _ => Err(cx.refuse("8-bit float format")),
    }
}

/// Reads a float source of `fmt` as u64 bits (16/32-bit values from the low bits of a register), with the
/// B slot's abs/neg modifiers applied to the sign bit.
pub(super) fn read_float(
    cx: &mut Ctx<'_>,
    s: Src,
    fmt: Format,
    abs: bool,
    neg: bool,
) -> Result<Id, TranslateError> {
    read_float_at(cx, s, fmt, abs, neg, 0)
}

/// [`read_float`] of the bits from `shift` up (16 for a `.H1` half select).
fn read_float_at(cx: &mut Ctx<'_>, s: Src, fmt: Format, abs: bool, neg: bool, shift: u32) -> Result<Id, TranslateError> {
    let t = cx.t;
    let mut v = if fmt.width == 64 {
        cx.read64(s)?
    } else {
        let mut r = cx.read(s)?;
        if shift != 0 {
            let k = cx.u32c(shift);
            r = cx.op2(Op::ShiftRightLogical, r, k);
        }
        let r = cx.m.un(Op::UConvert, t.u64, r);
        let mask = cx.m.c_u64((1u64 << fmt.width) - 1);
        cx.m.bin(Op::BitwiseAnd, t.u64, r, mask)
    };
    let sb = 1u64 << (fmt.width - 1);
    if abs {
        let k = cx.m.c_u64(!sb);
        v = cx.m.bin(Op::BitwiseAnd, t.u64, v, k);
    }
    if neg {
        let k = cx.m.c_u64(sb);
        v = cx.m.bin(Op::BitwiseXor, t.u64, v, k);
    }
    Ok(v)
}

/// Writes a result of `width` bits held in a u64: a register pair for 64 bits, else one register.
fn write(cx: &mut Ctx<'_>, width: u32, v: Id) {
    if width == 64 {
        cx.set_dst64(v);
    } else {
        let lo = cx.m.un(Op::UConvert, cx.t.u32, v);
        cx.set_dst(lo);
    }
}

fn i2f(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let rnd = cx.inst.bits(78, 2);
    let signed = cx.inst.bit(74);
    let dst = format(cx, cx.inst.bits(75, 2))?;
    let src = cx.inst.bits(84, 2);
    let t = cx.t;
    // The integer as a u64, sign-extended when signed. 8- and 16-bit sources are a byte (`.B1`..`.B3`) or
    // half (`.H1`) of the register, selected by bits 61:60 in the register form.
    let select = source_select(cx, src)?;
    let v = match src {
        3 => cx.read64(s.b)?,
        0..=2 => {
            let r = cx.read(s.b)?;
            let bits = 8u32 << src;
            let r = if bits == 32 {
                r
            } else {
                let op = if signed { Op::BitFieldSExtract } else { Op::BitFieldUExtract };
                let at = cx.u32c(select * bits);
                let w = cx.u32c(bits);
                cx.m.op(op, t.u32, &[r, at, w])
            };
            if signed {
                cx.m.un(Op::SConvert, t.u64, r)
            } else {
                cx.m.un(Op::UConvert, t.u64, r)
            }
        }
        _ => unreachable!("two-bit field"),
    };
    let md = cx.u32c(rnd);
    let mut b = B::new(&mut cx.m);
    let (mag, sign) = if signed {
        let neg = b.neg64(v);
        let nv = b.m.un(Op::SNegate, t.u64, v);
        (b.sel64(neg, nv, v), neg)
    } else {
        (v, b.cb(false))
    };
    let r = int_to_float(&mut b, dst, mag, sign, md);
    write(cx, dst.width, r);
    Ok(())
}

/// The byte or half of the source register an 8- or 16-bit source reads (bits 61:60 of the register form:
/// `.B1`..`.B3` for bytes, `.H1` for halves, as nvdisasm prints them); 0 for other forms and widths, where
/// the bits are no field (nvdisasm prints nothing for them). Source size codes: 0 8, 1 16, 2 32, 3 64 bits.
fn source_select(cx: &Ctx<'_>, size: u32) -> Result<u32, TranslateError> {
    let select = if cx.form() == 1 && size < 2 { cx.inst.bits(60, 2) } else { 0 };
    match (size, select) {
        (1, 2 | 3) => Err(cx.refuse("invalid half select")),
        _ => Ok(select),
    }
}

fn f2i(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let rnd = cx.inst.bits(78, 2);
    let signed = cx.inst.bit(72);
    let ntz = cx.inst.bit(77);
    let ftz = cx.inst.bit(80);
    // Destination width code 0 8, 1 16, 2 32, 3 64 bits: the result saturated to that range, in the register
    // as the helper's two's-complement low word (as for 16 bits).
    let dst = cx.inst.bits(75, 2);
    let src = format(cx, cx.inst.bits(84, 2))?;
    let v = read_float(cx, s.b, src, s.abs[1], s.neg[1])?;
    let cfg = cx.u32c(f2i_cfg(rnd, dst, signed, ntz, ftz));
    let r = float_to_int(&mut cx.m, src, v, cfg);
    write(cx, if dst == 3 { 64 } else { 32 }, r);
    Ok(())
}

/// FRND: rounding to an integral value in the source format, in integer arithmetic: values with no fraction
/// bits (and NaN, ±inf) pass through, others are rounded as integers (|q| <= 2^p, exact back in the format);
/// a zero result keeps the input's sign (IEEE roundToIntegral).
fn frnd(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let rnd = cx.inst.bits(78, 2);
    let ftz = cx.inst.bit(80);
    let src = format(cx, cx.inst.bits(84, 2))?;
    let dst = format(cx, cx.inst.bits(75, 2))?;
    if src != dst {
        return Err(cx.refuse("FRND between formats not translated yet"));
    }
    let v = read_float(cx, s.b, src, s.abs[1], s.neg[1])?;
    let r = round_integral(cx, src, v, rnd, ftz);
    write(cx, src.width, r);
    Ok(())
}

/// Rounds float bits `v` of `fmt` to an integral value in mode `rnd`; canonical NaN; `ftz` flushes a
/// denormal input to zero.
pub(super) fn round_integral(cx: &mut Ctx<'_>, fmt: Format, v: Id, rnd: u32, ftz: bool) -> Id {
    let cfg = cx.u32c(f2i_cfg(rnd, 3, true, true, ftz));
    let q = float_to_int(&mut cx.m, fmt, v, cfg);
    let md = cx.u32c(0);
    let mut b = B::new(&mut cx.m);
    let t = b.t;
    let d = decode(&mut b, fmt, v, ftz);
    let z = b.c64(0);
    let neg = b.neg64(q);
    let nq = b.m.un(Op::SNegate, t.u64, q);
    let mag = b.sel64(neg, nq, q);
    let r = int_to_float(&mut b, fmt, mag, neg, md);
    let sb = b.c64(1u64 << (fmt.width - 1));
    let sv = b.sel64(d.sign, sb, z);
    let mag_zero = b.b(Op::IEqual, mag, z);
    let r = b.sel64(mag_zero, sv, r);
    // Already integral: exponent of the last significand bit >= 0.
    let lim = b.c32(fmt.p - 1);
    let integral = b.b(Op::SGreaterThanEqual, d.e, lim);
    let nonzero = b.not(d.zero);
    let finite_int = b.and(integral, nonzero);
    let keep = b.or(finite_int, d.inf);
    let r = b.sel64(keep, v, r);
    let r = b.sel64(d.zero, sv, r);
    let nan = b.c64(fmt.canonical_nan());
    b.sel64(d.nan, nan, r)
}

fn f2f(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    if cx.inst.bit(77) {
        return Err(cx.refuse(".SAT not translated yet"));
    }
    let rnd = cx.inst.bits(78, 2);
    let ftz = cx.inst.bit(80);
    let src_code = cx.inst.bits(84, 2);
    let src = format(cx, src_code)?;
    let dst = format(cx, cx.inst.bits(75, 2))?;
    // An F16 source may be the register's high half (`.H1`, bits 61:60 of the register form).
    let select = source_select(cx, src_code)?;
    if src == dst {
        let v = read_float_at(cx, s.b, src, s.abs[1], s.neg[1], 16 * select)?;
        let r = round_integral(cx, src, v, rnd, ftz);
        write(cx, src.width, r);
        return Ok(());
    }
    let v = read_float_at(cx, s.b, src, s.abs[1], s.neg[1], 16 * select)?;
    let md = cx.u32c(rnd);
    let mut b = B::new(&mut cx.m);
    let r = float_to_float(&mut b, src, dst, v, md, ftz);
    // F32 -> F16: canonical NaN 0x7fff; from F64 and to wider formats the payload is kept (H200 goldens).
    let r = if dst.width == 16 && src == F32 {
        let r = b.u32_of(r);
        let r = canonical16(&mut b, dst, r);
        b.u64_of(r)
    } else {
        r
    };
    write(cx, dst.width, r);
    Ok(())
}

/// F2FP: two f32 values to f16 or bf16 halves. Fields (nvdisasm on patched words): `.RELU` 75, `.BF16` 76,
/// `.SATFINITE` 77, `.MERGE_C` 78, rounding 80:79 (0 RN, 3 RZ; 1 and 2 do not disassemble), 86 an invalid
/// format. `.PACK_AB`: A -> high half, B -> low half. `.MERGE_C` converts B into the low half and keeps the
/// A register's high half; nvcc emits it with A = RZ only (scalar conversions), the form translated here.
/// Per half (H200 recordings, corpus/silicon/cvt_sweep): rounded once from the exact f32 (f32 denormals are
/// not flushed: bf16 keeps them), NaN -> 0x7fff, `.RELU` makes every result with the sign bit set +0
/// (-0 and -inf included), `.SATFINITE` turns ±inf and overflow into ±largest finite.
fn f2fp(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let i = cx.inst;
    if i.bit(86) {
        return Err(cx.refuse("F2FP with an invalid format"));
    }
    let relu = i.bit(75);
    let dst = if i.bit(76) { BF16 } else { F16 };
    let satfinite = i.bit(77);
    let merge_c = i.bit(78);
    let rnd = i.bits(79, 2);
    if rnd == 1 || rnd == 2 {
        return Err(cx.refuse("F2FP with rounding toward an infinity"));
    }
    if merge_c && !matches!(s.a, Src::Reg(255)) {
        return Err(
            cx.refuse("F2FP.MERGE_C with a merge register other than RZ not translated yet")
        );
    }
    let a = if merge_c {
        None
    } else {
        Some(read_float(cx, s.a, F32, s.abs[0], s.neg[0])?)
    };
    let bb = read_float(cx, s.b, F32, s.abs[1], s.neg[1])?;
    let md = cx.u32c(rnd);
    let mut b = B::new(&mut cx.m);
    let lo = pack_half(&mut b, dst, bb, md, relu, satfinite);
    let r = match a {
        Some(a) => {
            let hi = pack_half(&mut b, dst, a, md, relu, satfinite);
            let k16 = b.c32(16);
            let hi = b.i32(Op::ShiftLeftLogical, hi, k16);
            b.i32(Op::BitwiseOr, hi, lo)
        }
        None => lo,
    };
    cx.set_dst(r);
    Ok(())
}

/// One F2FP half: f32 bits (u64) rounded to `dst` in mode `md`, with `.RELU` and `.SATFINITE`; u32 bits.
fn pack_half(b: &mut B<'_>, dst: Format, v: Id, md: Id, relu: bool, satfinite: bool) -> Id {
    let r = float_to_float(b, F32, dst, v, md, false);
    let r = b.u32_of(r);
    let absm = b.c32(0x7fff);
    let mag = b.i32(Op::BitwiseAnd, r, absm);
    let inf = b.c32(dst.inf() as u32);
    let nan = b.b(Op::UGreaterThan, mag, inf);
    let mut r = r;
    if satfinite {
        let is_inf = b.b(Op::IEqual, mag, inf);
        let k1 = b.c32(1);
        let max = b.i32(Op::ISub, r, k1); // ±inf - 1 ulp: ±largest finite, sign kept
        r = b.sel32(is_inf, max, r);
    }
    if relu {
        let sgn = b.c32(0x8000);
        let sb = b.i32(Op::BitwiseAnd, r, sgn);
        let z = b.c32(0);
        let neg = b.b(Op::INotEqual, sb, z);
        r = b.sel32(neg, z, r);
    }
    // F2FP writes the canonical NaN 0x7fff (H200 goldens), unlike F2F.
    b.sel32(nan, absm, r)
}

/// Half bits (low 16) with a NaN replaced by 0x7fff.
fn canonical16(b: &mut B<'_>, fmt: Format, v: Id) -> Id {
    let absm = b.c32(0x7fff);
    let a = b.i32(Op::BitwiseAnd, v, absm);
    let inf = b.c32(fmt.inf() as u32);
    let nan = b.b(Op::UGreaterThan, a, inf);
    b.sel32(nan, absm, v)
}
