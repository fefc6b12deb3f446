//! The fault-record protocol of `docs/abi.md`, emitted once per module as a helper function that every
//! faulting lowering calls: window accesses out of range, traps, control transfers to unknown targets,
//! failed assertions and warps that can make no progress.

use super::Ctx;
use crate::abi;
use crate::spirv::{FunctionControl, Id, Module, Op, Scope, Type};
use crate::state::Types;

/// Records a fault of `kind` at `pc` with `address` (u64) and `size` (u32): the fault count is incremented and
/// the first invocation to claim the flag writes the details.
pub fn record_fault(cx: &mut Ctx<'_>, kind: u32, pc: Id, address: Id, size: Id) {
    let f = record_fault_fn(cx);
    let kind = cx.u32c(kind);
    let void = cx.t.void;
    cx.m.op(Op::FunctionCall, void, &[f, kind, pc, address, size]);
}

/// Emits (once) `void record_fault(u32 kind, u32 pc, u64 address, u32 size)`, for helpers that call it from
/// their own bodies.
pub fn record_fault_fn(cx: &mut Ctx<'_>) -> Id {
    let t = cx.t;
    let lv = cx.st.uniform(&mut cx.m, 0, 2);
    let win = cx.st.window_form(&mut cx.m, &t);
    cx.m.helper("record_fault", move |m| build(m, &t, lv, win))
}

fn build(m: &mut Module, t: &Types, lv: Id, win: crate::state::window::Window) -> Id {
    let fty = m.ty(Type::Function(t.void, [t.u32, t.u32, t.u64, t.u32]));
    let f = m.begin_function(t.void, fty, FunctionControl::NONE);
    let kind = m.param(t.u32);
    let pc = m.param(t.u32);
    let address = m.param(t.u64);
    let size = m.param(t.u32);
    let entry = m.id();
    m.label(entry);
    let lvw = |m: &mut Module, w: u32| {
        let zero = m.c_u32(0);
        let v = m.c_u32(w / 4);
        let c = m.c_u32(w % 4);
        let p = m.access(t.uniform_u32, lv, &[zero, v, c]);
        m.load(t.u32, p)
    };
    let fw = lvw(m, abi::launch_word::FAULT_RECORD_WORD);
    let word = |m: &mut Module, k: u32| {
        let kc = m.c_u32(k);
        let i = m.bin(Op::IAdd, t.u32, fw, kc);
        win.record(m, t, i)
    };
    let scope = m.c_u32(Scope::Device as u32);
    let relaxed = m.c_u32(0);
    let one = m.c_u32(1);
    let zero = m.c_u32(0);
    let pcount = word(m, abi::fault_word::COUNT);
    m.op(Op::AtomicIAdd, t.u32, &[pcount, scope, relaxed, one]);
    let pflag = word(m, abi::fault_word::FLAG);
    let prev = m.op(Op::AtomicCompareExchange, t.u32, &[pflag, scope, relaxed, relaxed, one, zero]);
    let first = m.bin(Op::IEqual, t.bool, prev, zero);
    let write = m.id();
    let after = m.id();
    m.selection_merge(after);
    m.branch_cond(first, write, after);
    m.label(write);
    let kid = lvw(m, abi::launch_word::KERNEL_ID);
    let k32 = m.c_u32(32);
    let alo = m.un(Op::UConvert, t.u32, address);
    let ahi64 = m.bin(Op::ShiftRightLogical, t.u64, address, k32);
    let ahi = m.un(Op::UConvert, t.u32, ahi64);
    for (k, v) in [
        (abi::fault_word::KIND, kind),
        (abi::fault_word::KERNEL_ID, kid),
        (abi::fault_word::PC, pc),
        (abi::fault_word::ADDRESS, alo),
        (abi::fault_word::ADDRESS + 1, ahi),
        (abi::fault_word::SIZE, size),
    ] {
        let p = word(m, k);
        m.store(p, v);
    }
    m.branch(after);
    m.label(after);
    m.op_void(Op::Return, &[]);
    m.end_function();
    f
}
