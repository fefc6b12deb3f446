//! Generic-address atomics: `ATOM` (opcode 0x38a, compare-and-swap 0x38b), which nvcc emits where it cannot
//! tell whether a pointer is shared or global (`atomicAdd(p, v)` through a pointer that may be either).
//!
//! The address's high word picks the space at run time, as for generic LD/ST (`memory::generic`): the shared
//! window runs the operation on the workgroup's shared words, anything else goes to the global window, whose
//! check records a fault for addresses outside it (local memory included: PTX leaves atomics on local
//! addresses undefined). Fields are ATOMG's: type 75:73, operation 90:87, `.E` (64-bit address) 72, address
//! `[Ra + imm24]`, data `Rb` (the comparand for CAS) and `Rc` (CAS's new value), result `Rd`.
//!
//! 64-bit operations on generic addresses come with a predicate output (`ATOM.E.ADD.64 P0, RZ, [R4.64], R6`)
//! that says whether the operation was done: the hardware does them on global memory only, and for a false
//! predicate nvcc's code tests the space itself (`QSPC`) and runs a compare-and-swap loop on shared memory
//! (`ATOMS.CAST.SPIN.64`) or a plain load and store on local memory. So a shared (or local) address sets the
//! predicate false and leaves memory alone, and the program's fallback does the work, as on silicon.

use super::memory::{self, AtomicKind, Space};
use super::{Ctx, Src};
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::{Id, Op, Scope};

pub(super) fn lower(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let cas = cx.inst.opcode() & 0x1ff == 0x18b;
    if cas && cx.inst.bit(87) {
        return Err(cx.refuse("generic ATOM.CAST not translated yet"));
    }
    let (bytes, signed, float) = memory::atomic_type(cx)?;
    let kind = if cas { AtomicKind::Cas } else { memory::atomic_kind(cx, cx.inst.bits(87, 4), bytes, signed, float)? };
    let wide = bytes == 8;
    if wide && !matches!(kind, AtomicKind::Native(_) | AtomicKind::Cas | AtomicKind::FAdd64) {
        return Err(cx.refuse("64-bit INC/DEC not translated yet"));
    }
    let pout = cx.inst.bits(81, 3);
    if wide && pout == 7 {
        return Err(cx.refuse("64-bit generic ATOM without its done predicate not translated yet"));
    }
    let rb = cx.inst.bits(32, 8) as u8;
    let rc = cx.inst.bits(64, 8) as u8;
    let v = if wide { cx.read64(Src::Reg(rb))? } else { cx.reg(rb) };
    let newv = match (cas, wide) {
        (false, _) => 0,
        (true, false) => cx.reg(rc),
        (true, true) => cx.read64(Src::Reg(rc))?,
    };
    let addr = memory::global_addr(cx)?;
    let t = cx.t;
    let (lo, hi) = cx.split64(addr);
    let sh = cx.u32c((memory::SHARED_WINDOW >> 32) as u32);
    let is_shared = cx.m.bin(Op::IEqual, t.bool, hi, sh);
    let ty = if wide { t.u64 } else { t.u32 };
    let zero = if wide { cx.m.c_u64(0) } else { cx.u32c(0) };
    let shared_block = cx.m.id();
    let global_block = cx.m.id();
    let merge = cx.m.id();
    cx.m.selection_merge(merge);
    cx.m.branch_cond(is_shared, shared_block, global_block);
    cx.m.label(shared_block);
    let (shared_result, shared_done) = if wide {
        // Not done: the program's fallback runs (see the module doc).
        (zero, cx.m.c_bool(false))
    } else {
        (shared_op(cx, kind, lo, v, newv), cx.m.c_bool(true))
    };
    let shared_end = cx.m.current_block().unwrap_or(shared_block);
    cx.m.branch(merge);
    cx.m.label(global_block);
    let global_result = global_op(cx, kind, addr, bytes, v, newv)?;
    let global_end = cx.m.current_block().unwrap_or(global_block);
    cx.m.branch(merge);
    cx.m.label(merge);
    let result = cx.m.op(Op::Phi, ty, &[shared_result, shared_end, global_result, global_end]);
    let t_true = cx.m.c_bool(true);
    let done = cx.m.op(Op::Phi, t.bool, &[shared_done, shared_end, t_true, global_end]);
    let rd = memory::dst_regs(cx);
    if wide {
        cx.write64(rd, result);
    } else {
        cx.set_reg(rd, result);
    }
    if pout != 7 {
        cx.set_pred(pout, done);
    }
    Ok(())
}

/// A 32-bit atomic on the shared word at byte address `a`; out of range it faults and reads 0 (as ATOMS).
fn shared_op(cx: &mut Ctx<'_>, kind: AtomicKind, a: Id, v: Id, newv: Id) -> Id {
    let t = cx.t;
    let (ptr, var, len, _) = memory::space(cx, Space::Shared);
    let (ok, idx) = memory::space_check(cx, Space::Shared, memory::Access::Atomic, a, 4, len);
    let zero = cx.u32c(0);
    let before = cx.m.current_block().unwrap_or(0);
    let then = cx.m.id();
    let merge = cx.m.id();
    cx.m.selection_merge(merge);
    cx.m.branch_cond(ok, then, merge);
    cx.m.label(then);
    let p = memory::space_ptr(cx, ptr, var, idx, 0);
    let r = memory::emit_atomic(cx, kind, t.u32, p, v, newv, Scope::Workgroup as u32);
    let then_end = cx.m.current_block().unwrap_or(then);
    cx.m.branch(merge);
    cx.m.label(merge);
    cx.m.op(Op::Phi, t.u32, &[r, then_end, zero, before])
}

/// The atomic on the global window at `addr` (`bytes` 4 or 8); outside the window it faults and reads 0.
pub(super) fn global_op(
    cx: &mut Ctx<'_>,
    kind: AtomicKind,
    addr: Id,
    bytes: u32,
    v: Id,
    newv: Id,
) -> Result<Id, TranslateError> {
    let t = cx.t;
    let wide = bytes == 8;
    let (ok, idx) = memory::window_access(cx, addr, bytes, abi::FAULT_KIND_ATOMIC);
    let ty = if wide { t.u64 } else { t.u32 };
    let zero = if wide { cx.m.c_u64(0) } else { cx.u32c(0) };
    let before = cx.m.current_block().unwrap_or(0);
    let then = cx.m.id();
    let merge = cx.m.id();
    cx.m.selection_merge(merge);
    cx.m.branch_cond(ok, then, merge);
    cx.m.label(then);
    if wide && !cx.float.int64_atomics {
        let r = super::soft_atomic64::global(cx, kind, idx, v, newv)?;
        let then_end = cx.m.current_block().unwrap_or(then);
        cx.m.branch(merge);
        cx.m.label(merge);
        return Ok(cx.m.op(Op::Phi, ty, &[r, then_end, zero, before]));
    }
    let p = if wide {
        memory::window64_word(cx, idx)
    } else {
        memory::window_ptr(cx, idx, 0)
    };
    let r = memory::emit_atomic(cx, kind, ty, p, v, newv, Scope::Device as u32);
    let then_end = cx.m.current_block().unwrap_or(then);
    cx.m.branch(merge);
    cx.m.label(merge);
    Ok(cx.m.op(Op::Phi, ty, &[r, then_end, zero, before]))
}
