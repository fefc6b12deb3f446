//! Operands of the instruction being lowered, read from its typed view (`sassport_gen::View`: slots,
//! kinds and flags from the table's templates and access rules, names from `isa/roles.txt`) instead of
//! word bits. Handlers that use these name their operands (`a`, `b`, `pred`); a view operand of a kind
//! the handler does not lower is refused by name.

use super::{Ctx, Src};
use crate::error::TranslateError;
use crate::spirv::{Id, Op};
use sassport_gen::{Operand, Src as ViewSrc, View};

/// The typed view of the instruction being lowered.
pub(super) fn view(cx: &Ctx<'_>) -> Result<View, TranslateError> {
    sassport_gen::decode(cx.inst.word)
        .map(|i| i.view())
        .map_err(|e| cx.refuse(format!("word does not decode: {e}")))
}

fn operand(cx: &Ctx<'_>, v: &View, name: &str) -> Result<Operand, TranslateError> {
    v.operand(name)
        .ok_or_else(|| cx.refuse(format!("this form has no operand `{name}`")))
}

/// Source operand `name` as a lowering source slot: a register, uniform register, 32-bit immediate (its raw
/// bits) or constant `c[bank][offset]`.
pub(super) fn source(cx: &Ctx<'_>, v: &View, name: &str) -> Result<Src, TranslateError> {
    let o = operand(cx, v, name)?;
    match o.src {
        ViewSrc::Reg(r) => Ok(Src::Reg(r.0)),
        ViewSrc::UReg(r) => Ok(Src::UReg(r.0)),
        ViewSrc::Imm(x) => Ok(Src::Imm(x as u32)),
        // The 16-bit offset field is an unsigned address in the 64 KiB bank; nvdisasm prints offsets of
        // 0x8000 and above as negative (`c[0x0][-0x8000]`: a 32 KiB kernel parameter block's upper half).
        ViewSrc::Cbuf { bank, ubank: None, offset, index: None } => u32::try_from(i64::from(offset).rem_euclid(1 << 16))
            .map(|off| Src::CBuf(bank, off))
            .map_err(|_| cx.refuse(format!("constant offset of operand `{name}` out of range"))),
        ViewSrc::Cbuf { .. } => Err(cx.refuse(format!(
            "operand `{name}`: constant with a uniform-register bank or a register index not translated yet"
        ))),
        _ => Err(cx.refuse(format!("operand `{name}` of this kind not translated yet"))),
    }
}

/// Predicate operand `name`: its register number, whether it is negated (`!`), and whether it is a `UP`.
pub(super) fn predicate_parts(
    cx: &Ctx<'_>,
    v: &View,
    name: &str,
) -> Result<(u8, bool, bool), TranslateError> {
    let o = operand(cx, v, name)?;
    match o.src {
        ViewSrc::Pred(p, n) => Ok((p.0, o.not ^ n, false)),
        ViewSrc::UPred(p, n) => Ok((p.0, o.not ^ n, true)),
        _ => Err(cx.refuse(format!("operand `{name}` is not a predicate"))),
    }
}

/// The value of predicate operand `name` with its `!` applied (a `UP` on the uniform datapath).
pub(super) fn predicate(cx: &mut Ctx<'_>, v: &View, name: &str) -> Result<Id, TranslateError> {
    let (p, not, uniform) = predicate_parts(cx, v, name)?;
    if !uniform {
        return Ok(cx.pred(u32::from(p), not));
    }
    let t = cx.t;
    let u = cx.st.upred(&mut cx.m, &t, p);
    Ok(if not {
        cx.m.un(Op::LogicalNot, t.bool, u)
    } else {
        u
    })
}

/// The register number of optional predicate operand `name` (`PT`, 7, where the form or word has none).
pub(super) fn optional_predicate(cx: &Ctx<'_>, v: &View, name: &str) -> Result<u8, TranslateError> {
    match v.operand(name) {
        None => Ok(7),
        Some(_) => predicate_parts(cx, v, name).map(|p| p.0),
    }
}

/// Immediate operand `name`'s value (the field's bits as the view scales them).
pub(super) fn immediate(cx: &Ctx<'_>, v: &View, name: &str) -> Result<u64, TranslateError> {
    match operand(cx, v, name)?.src {
        ViewSrc::Imm(x) => Ok(x),
        _ => Err(cx.refuse(format!("operand `{name}` is not an immediate"))),
    }
}

/// Whether source operand `name` is negated: `-` (arithmetic) or, in `.X` forms, `~` (bitwise).
pub(super) fn negated(cx: &Ctx<'_>, v: &View, name: &str) -> Result<bool, TranslateError> {
    operand(cx, v, name).map(|o| o.neg || o.not)
}
