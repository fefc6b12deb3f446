//! Address-space queries and traps: QSPC (PTX `isspacep`) and BPT.TRAP (`trap`).
//!
//! - `QSPC.E.{G,L,S} Pd, RZ, [Ra.64 + imm]` (space in bits 74:73: 0 global, 1 local, 2 shared; bit 72 `.E`,
//!   a 64-bit address; offset bits 63:40; predicate destination 83:81): an address is shared or local when
//!   its high word is that space's generic window (the translator's `c[0x0][0x18]`/`[0x20]` values, as the
//!   generic LD/ST dispatch decides), global otherwise. A register destination other than RZ is refused.
//! - `BPT.TRAP`: the kernel stops with a fault; the invocation writes the fault record
//!   ([`crate::abi::FaultRecord`]) with kind [`crate::abi::FAULT_KIND_TRAP`], its pc, address 0 and size 0,
//!   by the record's protocol, and returns. Other BPT forms (`.PAUSE`, debugger breakpoints) are refused.
//!
//! `LEPC` is lowered with the extern calls it serves (`externs`).

use super::memory::{LOCAL_WINDOW, SHARED_WINDOW};
use super::Ctx;
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::Op;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "QSPC" => qspc(cx)?,
        "BPT" => bpt(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn qspc(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let i = cx.inst;
    if i.opcode() != 0x03aa {
        return Err(cx.refuse("QSPC form not translated yet"));
    }
    if i.bits(16, 8) != 255 {
        return Err(cx.refuse("QSPC with a register destination not translated yet"));
    }
    let space = i.bits(73, 2);
    if space == 3 {
        return Err(cx.refuse("QSPC space 3 is not a space"));
    }
    let ra = i.bits(24, 8) as u8;
    let t = cx.t;
    let hi = if i.bit(72) {
        let off = ((i.bits(40, 24) << 8) as i32 >> 8) as i64;
        let a = cx.read64(super::Src::Reg(ra))?;
        let k = cx.m.c_u64(off as u64);
        let a = cx.m.bin(Op::IAdd, t.u64, a, k);
        cx.split64(a).1
    } else {
        // A 32-bit generic address is never in a window above 2^32.
        cx.u32c(0)
    };
    let sh = cx.u32c((SHARED_WINDOW >> 32) as u32);
    let lc = cx.u32c((LOCAL_WINDOW >> 32) as u32);
    let is_sh = cx.m.bin(Op::IEqual, t.bool, hi, sh);
    let is_lc = cx.m.bin(Op::IEqual, t.bool, hi, lc);
    let r = match space {
        0 => {
            let either = cx.m.bin(Op::LogicalOr, t.bool, is_sh, is_lc);
            cx.m.un(Op::LogicalNot, t.bool, either)
        }
        1 => is_lc,
        _ => is_sh,
    };
    cx.set_pred(i.bits(81, 3), r);
    Ok(())
}

fn bpt(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let i = cx.inst;
    // BPT.TRAP: bits 86:84 = 0b011 (nvdisasm on the corpus word); the PAUSE forms have bit 84 clear.
    if i.bits(84, 3) != 3 {
        return Err(cx.refuse("BPT form other than .TRAP not translated yet"));
    }
    let pc = cx.u32c(i.offset);
    let zero64 = cx.m.c_u64(0);
    let zero = cx.u32c(0);
    super::fault::record_fault(cx, abi::FAULT_KIND_TRAP, pc, zero64, zero);
    // The invocation ends here; what follows in the block is unreachable.
    super::warp::end_invocation(cx);
    Ok(())
}
