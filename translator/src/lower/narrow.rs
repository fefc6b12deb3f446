//! Saturating integer narrowing: I2I (PTX `cvt.sat.{u8,s8,u16,s16}.s32`) and I2IP (PTX
//! `cvt.pack.sat.{u8,s8}.s32.b32`).
//!
//! I2I: destination type in bits 77:76 (0 U8, 1 S8, 2 U16, 3 S16), source the B slot, always S32 saturating;
//! the result is the clamped value as a 32-bit integer (sign-extended for signed types).
//! I2IP `.U8/.S8` (bit 78 clear, type in bits 77:76 as for I2I): `Rd = c << 16 | sat(a) << 8 | sat(b)` with
//! each saturated value's low byte, as PTX's `cvt.pack` defines (`a` the A slot, `b` the B slot, `c` the C
//! slot). The 2-bit forms (bit 78 set) are refused.

use super::Ctx;
use crate::error::TranslateError;
use crate::spirv::{Id, Op};

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "I2I" => i2i(cx)?,
        "I2IP" => i2ip(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Clamp range of destination type `ty` (0 U8, 1 S8, 2 U16, 3 S16).
fn range(ty: u32) -> (i32, i32) {
    match ty {
        0 => (0, 0xff),
        1 => (-0x80, 0x7f),
        2 => (0, 0xffff),
        _ => (-0x8000, 0x7fff),
    }
}

fn saturate(cx: &mut Ctx<'_>, v: Id, ty: u32) -> Id {
    let (lo, hi) = range(ty);
    let t = cx.t;
    let l = cx.u32c(lo as u32);
    let h = cx.u32c(hi as u32);
    let below = cx.m.bin(Op::SLessThan, t.bool, v, l);
    let above = cx.m.bin(Op::SGreaterThan, t.bool, v, h);
    let r = cx.sel(below, l, v);
    cx.sel(above, h, r)
}

fn i2i(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let ty = cx.inst.bits(76, 2);
    let v = cx.read(s.b)?;
    let r = saturate(cx, v, ty);
    cx.set_dst(r);
    Ok(())
}

fn i2ip(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    if cx.inst.bit(78) || cx.inst.bit(77) {
        return Err(cx.refuse("I2IP form other than .U8/.S8 not translated yet"));
    }
    let s = cx.abc()?;
    let ty = cx.inst.bits(76, 2);
    let a = cx.read(s.a)?;
    let b = cx.read(s.b)?;
    let c = cx.read(s.c)?;
    let sa = saturate(cx, a, ty);
    let sb = saturate(cx, b, ty);
    let ff = cx.u32c(0xff);
    let sa = cx.op2(Op::BitwiseAnd, sa, ff);
    let sb = cx.op2(Op::BitwiseAnd, sb, ff);
    let k8 = cx.u32c(8);
    let k16 = cx.u32c(16);
    let sa = cx.op2(Op::ShiftLeftLogical, sa, k8);
    let cc = cx.op2(Op::ShiftLeftLogical, c, k16);
    let r = cx.op2(Op::BitwiseOr, sa, sb);
    let r = cx.op2(Op::BitwiseOr, r, cc);
    cx.set_dst(r);
    Ok(())
}
