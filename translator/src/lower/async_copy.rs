//! Asynchronous global-to-shared copies: LDGSTS (PTX `cp.async`) and its group barriers LDGDEPBAR
//! (`cp.async.commit_group`) and `DEPBAR` (`cp.async.wait_group`, lowered with the inline no-ops of
//! `control`).
//!
//! Lowered as a synchronous copy at the LDGSTS itself: every later read of the destination, which PTX only
//! allows after the matching wait, sees the data, so the commit and the wait have nothing left to do.
//!
//! Bit fields (probed with nvdisasm on the corpus words): shared destination `[Rd 23:16 + imm 63:44 (signed
//! 20 bits)]`, global source `[Ra 31:24 (64-bit pair) + imm 43:32 (signed 12 bits)]`, size bits 74:73 (0: 4
//! bytes, 1: `.64`, 2: `.128`), bit 76 clear adds a uniform register (`+UR`, bits 69:64), bit 82 `.ZFILL`,
//! source predicate bits 89:87 negated by 90: when it is false the source is not read and the destination
//! is filled with zeros (nvcc's form of `cp.async` with `src-size` 0). Cache hints do not change values.

use super::memory::{self, Space};
use super::Ctx;
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::Op;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "LDGSTS" => ldgsts(cx)?,
        // Commit of the copies issued so far: already complete.
        "LDGDEPBAR" => {}
        _ => return Ok(false),
    }
    Ok(true)
}

fn ldgsts(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let i = cx.inst;
    if i.opcode() != 0x1fae {
        return Err(cx.refuse("LDGSTS form not translated yet"));
    }
    if !i.bit(76) {
        return Err(cx.refuse("LDGSTS with a uniform-register offset not translated yet"));
    }
    if i.bit(82) {
        return Err(cx.refuse("LDGSTS.ZFILL not translated yet"));
    }
    let bytes = match i.bits(73, 2) {
        0 => 4,
        1 => 8,
        2 => 16,
        _ => return Err(cx.refuse("LDGSTS size not translated yet")),
    };
    let t = cx.t;
    // Inputs first: the destination address register may be a source's pair.
    let rd = i.bits(16, 8) as u8;
    let soff = ((i.bits(44, 20) << 12) as i32 >> 12) as u32;
    let base = cx.reg(rd);
    let k = cx.u32c(soff);
    let saddr = cx.op2(Op::IAdd, base, k);
    let ra = i.bits(24, 8) as u8;
    let goff = ((i.bits(32, 12) << 20) as i32 >> 20) as i64;
    let g = cx.read64(super::Src::Reg(ra))?;
    let kg = cx.m.c_u64(goff as u64);
    let gaddr = cx.m.bin(Op::IAdd, t.u64, g, kg);
    let src_ok = cx.pred_at(87, 90);
    // Words read from the window when the source predicate holds (a checked load), zeros otherwise.
    let zero = cx.u32c(0);
    let mut words = Vec::new();
    let then = cx.m.id();
    let merge = cx.m.id();
    let entry = cx.m.id();
    cx.m.branch(entry);
    cx.m.label(entry);
    cx.m.selection_merge(merge);
    cx.m.branch_cond(src_ok, then, merge);
    cx.m.label(then);
    let (ok, idx) = memory::window_access(cx, gaddr, bytes, abi::FAULT_KIND_LOAD);
    let mut loaded = Vec::new();
    for k in 0..bytes / 4 {
        let p = memory::window_ptr(cx, idx, k);
        let w = cx.m.load(t.u32, p);
        loaded.push(cx.sel(ok, w, zero));
    }
    let then_end = cx.m.id();
    cx.m.branch(then_end);
    cx.m.label(then_end);
    cx.m.branch(merge);
    cx.m.label(merge);
    for w in loaded {
        words.push(cx.m.op(Op::Phi, t.u32, &[w, then_end, zero, entry]));
    }
    memory::space_store_at(cx, Space::Shared, saddr, bytes, &words)
}
