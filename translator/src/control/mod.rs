//! Control flow, first form: the pc-dispatch loop.
//!
//! The kernel's `main` is one loop around a switch on `next_pc`, a Function variable holding the byte offset
//! (within the code section) of the next block; each basic block is one case. A block ends by storing its
//! successor's offset: the fall-through block, a branch target (`BRA`, with its guard and condition
//! predicate as a select), a call target (`CALL.REL`; the return address was already put in a register by
//! the caller's `MOV`, as SM86 code does), or a register value (`RET.REL Rn`, `BRX Rn`, `CALL Rn`: relative to
//! the function base the instruction names, or an `abi::code_address` for `CALL.ABS Rn`). A register value is
//! checked against the targets that instruction can have (return points, the jump table, the address-taken
//! functions); anything else records a control fault and leaves. `EXIT` stores [`EXIT_PC`], which leaves the
//! loop; the switch's default (unreachable after those checks) leaves too.
//!
//! `BSSY`, `BSYNC`, `BREAK`, `WARPSYNC`, `YIELD`, `NANOSLEEP` and `BMOV` (lowered in `lower::control_inline`) only order the threads of a warp; with one invocation per
//! thread and no warp instructions (kernels with those take the turns form, `turns`) they have nothing to do. `BAR.SYNC 0` reached by the
//! whole block (with `.DEFER_BLOCKING` or without) is `OpControlBarrier`; other barrier forms are refused.

pub mod counted;
pub mod guard;
pub mod lockstep;
pub mod structured;
pub mod turns;

use crate::error::TranslateError;
use crate::lower::{Ctx, EXIT_PC};
use crate::program::{is_indirect_call, Block, Exit, Inst, Program};
use crate::abi;
use crate::spirv::{Id, LoopControl, Op};

/// Instructions that end a block and are lowered by [`lower_terminator`], guard included.
pub fn is_control(m: &str) -> bool {
    crate::program::is_branch(m)
}

/// When a `BRA` or `EXIT` ending a block is taken, besides its guard (`None`: always): its second predicate
/// operand (bits 89:87, negated by 90), and for `BRA.U` its uniform predicate (bits 26:24, negated by 27), for
/// `BRA.DIV`/`BRA.CONV` the warp-divergence test of the turns or subgroup form.
pub fn branch_condition(cx: &mut Ctx<'_>, last: &Inst) -> Result<Option<Id>, TranslateError> {
    let t = cx.t;
    let p = last.bits(87, 3);
    let n = last.bit(90);
    let mut c = if p == 7 && !n { None } else { Some(cx.pred(p, n)) };
    let extra = match (last.mnemonic, last.opcode()) {
        ("BRA", 0x1547) => {
            let mut u = cx.st.upred(&mut cx.m, &t, last.bits(24, 3) as u8);
            if last.bit(27) {
                u = cx.m.un(Op::LogicalNot, t.bool, u);
            }
            Some(u)
        }
        ("BRA", op) if op & 0x1000 != 0 => Some(crate::lower::warp::divergence_branch(cx, last)?),
        _ => None,
    };
    if let Some(e) = extra {
        c = Some(match c {
            Some(p) => cx.m.bin(Op::LogicalAnd, t.bool, p, e),
            None => e,
        });
    }
    Ok(c)
}

/// Lowers the control instruction ending a block: stores the next offset into `next_pc`.
pub fn lower_terminator(cx: &mut Ctx<'_>, prog: &Program, block: &Block, last: &Inst) -> Result<(), TranslateError> {
    let t = cx.t;
    let fall = block.end;
    let guard = match last.guard() {
        Some((p, neg)) => Some(cx.pred(u32::from(p), neg)),
        None => None,
    };
    let taken = |cx: &mut Ctx<'_>, a: Option<u32>, b: Option<u32>| -> Option<u32> {
        match (a, b) {
            (Some(x), Some(y)) => Some(cx.m.bin(Op::LogicalAnd, t.bool, x, y)),
            (x, None) => x,
            (None, y) => y,
        }
    };
    let next = match last.mnemonic {
        "BRA" => {
            let target = last.branch_target() as u32;
            let c = branch_condition(cx, last)?;
            match taken(cx, guard, c) {
                None => cx.u32c(target),
                Some(tk) => {
                    let a = cx.u32c(target);
                    let b = cx.u32c(fall);
                    cx.sel(tk, a, b)
                }
            }
        }
        "EXIT" => {
            let c = branch_condition(cx, last)?;
            match taken(cx, guard, c) {
                None => cx.u32c(EXIT_PC),
                Some(tk) => {
                    let a = cx.u32c(EXIT_PC);
                    let b = cx.u32c(fall);
                    cx.sel(tk, a, b)
                }
            }
        }
        "CALL" => {
            // A predicated call (guard, and a second predicate operand where one is encoded) goes on at the
            // return point when not taken; ptxas also uses one as a loop's exit jump.
            let c = branch_condition(cx, last)?;
            let cond = taken(cx, guard, c);
            if last.opcode() == 0x0944 {
                let target = cx.u32c(last.branch_target() as u32);
                match cond {
                    None => target,
                    Some(tk) => {
                        let f = cx.u32c(fall);
                        cx.sel(tk, target, f)
                    }
                }
            } else if is_indirect_call(last) {
                if prog.call_targets.is_empty() {
                    return Err(cx.refuse("CALL through a register, and no function of the cubin has its address taken"));
                }
                let (sel, value) = indirect_target(cx, prog, last)?;
                checked_target(cx, sel, value, &prog.call_targets, cond, fall)
            } else {
                return Err(cx.refuse("absolute CALL to an immediate address not translated yet"));
            }
        }
        "RET" | "BRX" => {
            // RET.REL Rn / BRX Rn: the register holds an offset from the function base the instruction
            // encodes (return addresses put there by the caller; jump-table entries for BRX, whose targets
            // the cubin lists and the CFG made block starts). Anything else is a control fault.
            if !matches!(last.opcode(), 0x0950 | 0x0949) {
                return Err(cx.refuse("form not translated yet"));
            }
            let (sel, value) = indirect_target(cx, prog, last)?;
            // RET: the return points; BRX: the cubin's jump tables (without one, any block start).
            let starts: Vec<u32>;
            let known: &[u32] = if last.mnemonic == "RET" {
                &prog.return_points
            } else if !prog.branch_targets.is_empty() {
                &prog.branch_targets
            } else {
                starts = prog.blocks.iter().map(|b| b.start).collect();
                &starts
            };
            checked_target(cx, sel, value, known, guard, fall)
        }
        _ => return Err(cx.refuse("not translated yet")),
    };
    cx.m.store(cx.next_pc, next);
    Ok(())
}

/// Emits the whole dispatch loop into the current function (which has just begun its first block).
pub fn emit_dispatch(cx: &mut Ctx<'_>, prog: &Program) -> Result<(), TranslateError> {
    let header = cx.m.id();
    let body = cx.m.id();
    let sw_merge = cx.m.id();
    let cont = cx.m.id();
    let merge = cx.m.id();
    let default = cx.m.id();
    let entry = cx.u32c(prog.entry);
    cx.m.store(cx.next_pc, entry);
    cx.m.branch(header);
    cx.m.label(header);
    cx.m.loop_merge(merge, cont, LoopControl::NONE);
    cx.m.branch(body);
    cx.m.label(body);
    guard::poll_or_break(cx, merge);
    let t = cx.t;
    let pc = cx.m.load(t.u32, cx.next_pc);
    let labels: Vec<u32> = prog.blocks.iter().map(|_| cx.m.id()).collect();
    let cases: Vec<(u32, u32)> = prog.blocks.iter().zip(&labels).map(|(b, l)| (b.start, *l)).collect();
    crate::lower::shared_fma::begin_dispatch(cx, prog, sw_merge);
    cx.m.selection_merge(sw_merge);
    let switch_at = cx.m.switch_extensible(pc, default, &cases);
    for (block, label) in prog.blocks.iter().zip(&labels) {
        cx.m.label(*label);
        let first = prog.insts.partition_point(|i| i.offset < block.start);
        for inst in prog.insts[first..].iter().take_while(|i| i.offset < block.end) {
            cx.inst = *inst;
            let is_last = inst.offset + 16 >= block.end;
            if is_last && block.exit == Exit::Control {
                lower_terminator(cx, prog, block, inst)?;
            } else {
                crate::lower::lower(cx)?;
            }
        }
        if block.exit == Exit::Fall {
            let n = cx.u32c(block.end);
            cx.m.store(cx.next_pc, n);
        }
        cx.m.branch(sw_merge);
    }
    cx.m.label(default);
    let exit = cx.u32c(EXIT_PC);
    cx.m.store(cx.next_pc, exit);
    cx.m.branch(sw_merge);
    cx.m.label(sw_merge);
    crate::lower::shared_fma::emit_body(cx);
    cx.m.branch(cont);
    cx.m.label(cont);
    let pc2 = cx.m.load(t.u32, cx.next_pc);
    let exit = cx.u32c(EXIT_PC);
    let done = cx.m.bin(Op::IEqual, t.bool, pc2, exit);
    cx.m.branch_cond(done, merge, header);
    cx.m.label(merge);
    // Left because the host asked: stop. Otherwise, where the device leaves loops on its own, check that it
    // did not cut this one (the pc is the block that would have run next).
    let aborted = guard::aborted_at_merge(cx);
    let go_on = cx.begin_if(aborted);
    cx.m.op_void(Op::Return, &[]);
    cx.m.label(go_on);
    if let Some(spent) = guard::budget_spent(cx) {
        let m = cx.begin_if(spent);
        let pc = cx.m.load(t.u32, cx.next_pc);
        guard::record_loop_limit(cx, pc);
        cx.end_if(m);
    }
    crate::lower::attribute::at_exit(cx);
    cx.m.op_void(Op::Return, &[]);
    let continuations = crate::lower::shared_fma::end_dispatch(cx);
    if !cx.m.add_switch_cases(switch_at, &continuations) {
        return Err(TranslateError::Limit { kernel: cx.section.into(), reason: "dispatch switch too large".into() });
    }
    Ok(())
}

/// The target of a register-indirect control transfer ending in `last`: (selector, value). The selector is the
/// section offset to compare with known targets (u32; `u32::MAX`, never a target, when the value is no offset
/// of this section); the value is the 64-bit target reported by a control fault.
///
/// - `BRX Rn` and `RET.REL Rn`: the 32-bit register plus the base the instruction encodes (the function the
///   return address or table entry is relative to).
/// - `RET.ABS Rn, imm`: like `CALL.ABS Rn, imm` below (the return addresses of linked `-rdc` code).
/// - `CALL.REL Rn`: the 64-bit register pair plus the encoded base; only values below 2^32 are offsets.
/// - `CALL.ABS Rn, imm`: the register pair plus the immediate is an absolute code address
///   ([`abi::code_address`]); it names this program's code only with this section's index in bits 47:32.
pub fn indirect_target(cx: &mut Ctx<'_>, prog: &Program, last: &Inst) -> Result<(Id, Id), TranslateError> {
    let t = cx.t;
    let ra = last.bits(24, 8) as u8;
    let lo = cx.reg(ra);
    match last.opcode() {
        // RET.ABS Rn, imm (bit 85): the register pair plus the immediate is an absolute code address, as the
        // relocated return addresses of `-rdc` code are (`MOV R20, 32@lo((f + .L_x_1@srel))`, `cubin::link`).
        0x0950 if last.bit(85) => {
            let hi = if ra >= 254 { cx.u32c(0) } else { cx.reg(ra + 1) };
            let r = cx.pack64(lo, hi);
            let imm = (last.word.signed_bits(34, 48) << 2) as u64;
            let k = cx.m.c_u64(imm);
            let value = cx.m.bin(Op::IAdd, t.u64, r, k);
            let (vlo, vhi) = cx.split64(value);
            let want = cx.u32c((abi::code_address(prog.code_section, 0) >> 32) as u32);
            let ours = cx.m.bin(Op::IEqual, t.bool, vhi, want);
            let none = cx.u32c(u32::MAX);
            let sel = cx.sel(ours, vlo, none);
            Ok((sel, value))
        }
        0x0949 | 0x0950 => {
            let base = cx.u32c(last.branch_target() as u32);
            let sel = cx.op2(Op::IAdd, lo, base);
            let value = cx.m.un(Op::UConvert, t.u64, sel);
            Ok((sel, value))
        }
        0x0343 | 0x0344 => {
            let hi = if ra >= 254 { cx.u32c(0) } else { cx.reg(ra + 1) };
            let r = cx.pack64(lo, hi);
            let (add, expect_hi) = if last.opcode() == 0x0344 {
                (last.branch_target() as u64, 0u32)
            } else {
                let imm = (last.word.signed_bits(34, 48) << 2) as u64;
                (imm, (abi::code_address(prog.code_section, 0) >> 32) as u32)
            };
            let k = cx.m.c_u64(add);
            let value = cx.m.bin(Op::IAdd, t.u64, r, k);
            let (vlo, vhi) = cx.split64(value);
            let want = cx.u32c(expect_hi);
            let ours = cx.m.bin(Op::IEqual, t.bool, vhi, want);
            let none = cx.u32c(u32::MAX);
            let sel = cx.sel(ours, vlo, none);
            Ok((sel, value))
        }
        _ => Err(cx.refuse("indirect control transfer form not translated yet")),
    }
}

/// `next_pc` for an indirect transfer to `sel` (taken when `guard` holds, else `fall`): the target when it is
/// one of `known`, else a control fault and [`EXIT_PC`].
fn checked_target(cx: &mut Ctx<'_>, sel: Id, value: Id, known: &[u32], guard: Option<Id>, fall: u32) -> Id {
    let t = cx.t;
    let mut ok = cx.m.c_bool(false);
    for &k in known {
        let kc = cx.u32c(k);
        let eq = cx.m.bin(Op::IEqual, t.bool, sel, kc);
        ok = cx.m.bin(Op::LogicalOr, t.bool, ok, eq);
    }
    let fine = match guard {
        None => ok,
        Some(g) => {
            let ng = cx.m.un(Op::LogicalNot, t.bool, g);
            cx.m.bin(Op::LogicalOr, t.bool, ng, ok)
        }
    };
    let bad = cx.m.un(Op::LogicalNot, t.bool, fine);
    let merge = cx.begin_if(bad);
    control_fault(cx, value);
    cx.end_if(merge);
    let target = match guard {
        None => sel,
        Some(g) => {
            let f = cx.u32c(fall);
            cx.sel(g, sel, f)
        }
    };
    let exit = cx.u32c(EXIT_PC);
    cx.sel(fine, target, exit)
}

/// Records a control fault ([`abi::FAULT_KIND_CONTROL`]) at the current instruction with target `value` (u64).
/// The caller stops the invocation.
pub fn control_fault(cx: &mut Ctx<'_>, value: Id) {
    let pc = cx.u32c(cx.inst.offset);
    let zero = cx.u32c(0);
    crate::lower::fault::record_fault(cx, abi::FAULT_KIND_CONTROL, pc, value, zero);
}
