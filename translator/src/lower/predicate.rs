//! Predicate-register moves: P2R (predicates into a register byte) and R2P (a register byte into predicates).
//!
//! `P2R Rd, PR, Ra, mask` (byte select `.B1..B3`, bits 77:76): `Rd = Ra & !(mask << 8n) | (PR << 8n) & (mask
//! << 8n)` where PR bit i is Pi (i < 7) and bit 7 reads as 0. `R2P PR, Ra.Bn, mask`: for every bit i < 7 set
//! in mask, Pi takes bit i of Ra's byte n. The mask is the B slot (register or immediate form).
//!
//! On the uniform datapath (`cx.uniform`) the same two are UP2UR and UR2UP: UP0..UP6 into/out of a UR byte.
//!
//! PLOP3 on register signs (opcode 0x21f, `PLOP3.LUT P0, P1, Ra.SIGN, Rb.SIGN, Rc.SIGN, lut0, lut1`): the
//! three inputs are the sign bits of Ra (31:24), Rb (39:32) and Rc (71:64); P0 (83:81) takes lut0 (79:72) of
//! them and P1 (86:84) lut1 (23:16), as the predicate form does with predicates.

use super::Ctx;
use crate::error::TranslateError;
use crate::spirv::Op;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "P2R" => p2r(cx)?,
        "R2P" => r2p(cx)?,
        "PLOP3" if !cx.uniform && cx.base_op() == 0x01f => plop3_signs(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn p2r(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let shift = 8 * cx.inst.bits(76, 2);
    let a = cx.read(s.a)?;
    let mask = cx.read(s.b)?;
    let mut pr = cx.u32c(0);
    for p in 0..7 {
        let v = any_pred(cx, p);
        let bit = cx.u32c(1 << p);
        let zero = cx.u32c(0);
        let b = cx.sel(v, bit, zero);
        pr = cx.op2(Op::BitwiseOr, pr, b);
    }
    let sh = cx.u32c(shift);
    let m = cx.op2(Op::ShiftLeftLogical, mask, sh);
    let prs = cx.op2(Op::ShiftLeftLogical, pr, sh);
    let keep = cx.not(m);
    let kept = cx.op2(Op::BitwiseAnd, a, keep);
    let new = cx.op2(Op::BitwiseAnd, prs, m);
    let r = cx.op2(Op::BitwiseOr, kept, new);
    cx.set_dst(r);
    Ok(())
}

/// Predicate `p` of the datapath being lowered: UPp on the uniform one, Pp otherwise.
fn any_pred(cx: &mut Ctx<'_>, p: u32) -> crate::spirv::Id {
    if cx.uniform {
        cx.st.upred(&mut cx.m, &cx.t, p as u8)
    } else {
        cx.pred(p, false)
    }
}

fn r2p(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let shift = 8 * cx.inst.bits(76, 2);
    let a = cx.read(s.a)?;
    let mask = cx.read(s.b)?;
    let sh = cx.u32c(shift);
    let byte = cx.op2(Op::ShiftRightLogical, a, sh);
    let t = cx.t;
    let zero = cx.u32c(0);
    // Read every old predicate before writing any.
    let old: Vec<_> = (0..7).map(|p| any_pred(cx, p)).collect();
    for (p, old) in old.into_iter().enumerate() {
        let bit = cx.u32c(1 << p);
        let in_mask = cx.op2(Op::BitwiseAnd, mask, bit);
        let sel = cx.m.bin(Op::INotEqual, t.bool, in_mask, zero);
        let val = cx.op2(Op::BitwiseAnd, byte, bit);
        let v = cx.m.bin(Op::INotEqual, t.bool, val, zero);
        let r = cx.m.select(t.bool, sel, v, old);
        cx.set_pred(p as u32, r);
    }
    Ok(())
}

fn plop3_signs(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let i = cx.inst;
    let ra = i.bits(24, 8) as u8;
    let rb = i.bits(32, 8) as u8;
    let rc = i.bits(64, 8) as u8;
    let a = cx.reg(ra);
    let b = cx.reg(rb);
    let c = cx.reg(rc);
    let sign = cx.u32c(0x8000_0000);
    let zero = cx.u32c(0);
    let t = cx.t;
    let mut outs = Vec::new();
    for (d, lut) in [(i.bits(81, 3), i.bits(72, 8)), (i.bits(84, 3), i.bits(16, 8))] {
        if d != 7 {
            let v = super::integer::lop3_value(cx, lut, a, b, c);
            let s = cx.op2(Op::BitwiseAnd, v, sign);
            outs.push((d, cx.m.bin(Op::INotEqual, t.bool, s, zero)));
        }
    }
    for (d, p) in outs {
        cx.set_pred(d, p);
    }
    Ok(())
}
