//! Control flow, first form: the pc-dispatch loop.
//!
//! The kernel's `main` is one loop around a switch on `next_pc`, a Function variable holding the byte offset
//! (within the code section) of the next block; each basic block is one case. A block ends by storing its
//! successor's offset: the fall-through block, a branch target (`BRA`, with its guard and condition
//! predicate as a select), a call target (`CALL.REL`; the return address was already put in a register by
//! the caller's `MOV`, as SM86 code does), or a register value (`RET.REL Rn`, relative to the function base
//! the instruction names). `EXIT` stores [`EXIT_PC`], which leaves the loop. An offset that is no block's
//! start (a corrupted return address) also exits, through the switch's default.
//!
//! `BSSY`, `BSYNC`, `BREAK`, `WARPSYNC`, `YIELD`, `NANOSLEEP` and `BMOV` only order the threads of a warp; with one invocation per
//! thread and no warp instructions (those are refused) they have nothing to do. `BAR.SYNC 0` reached by the
//! whole block is `OpControlBarrier`; other barrier forms are refused.

pub mod structured;

use crate::error::TranslateError;
use crate::lower::{Ctx, EXIT_PC};
use crate::program::{Block, Exit, Inst, Program};
use crate::spirv::{LoopControl, MemorySemantics, Op, Scope};

/// Instructions that end a block and are lowered by [`lower_terminator`], guard included.
pub fn is_control(m: &str) -> bool {
    crate::program::is_branch(m)
}

/// Block-internal control instructions with no effect on one thread's state, and barriers.
pub fn lower_inline(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "NOP" | "BSSY" | "BSYNC" | "BREAK" | "WARPSYNC" | "YIELD" | "DEPBAR" | "NANOSLEEP" => Ok(true),
        "BMOV" => {
            // Saving a convergence barrier (`BMOV.32 Rd, Bn`) reads an empty mask; restoring one is a no-op:
            // with one invocation per thread there is no warp state to keep.
            match cx.inst.opcode() {
                0x0355 => {
                    let rd = cx.inst.bits(16, 8) as u8;
                    let zero = cx.u32c(0);
                    cx.set_reg(rd, zero);
                    Ok(true)
                }
                0x0356 => Ok(true),
                _ => Err(cx.refuse("BMOV form not translated yet")),
            }
        }
        "BAR" => {
            // Only `BAR.SYNC 0` without a thread count (the form nvcc emits for __syncthreads()).
            let i = cx.inst;
            let plain = i.word.bits(32, 32) == 0 && (i.word.high() & 0x7ff_ffff) == 0x1_0000;
            if !plain {
                return Err(cx.refuse("barrier form not translated yet (named, counted, arrive or reduction)"));
            }
            if i.guard().is_some() {
                return Err(cx.refuse("predicated barrier not translated yet"));
            }
            let wg = cx.u32c(Scope::Workgroup as u32);
            let sem = cx.u32c((MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits());
            cx.m.op_void(Op::ControlBarrier, &[wg, wg, sem]);
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Lowers the control instruction ending a block: stores the next offset into `next_pc`.
pub fn lower_terminator(cx: &mut Ctx<'_>, block: &Block, last: &Inst) -> Result<(), TranslateError> {
    let t = cx.t;
    let fall = block.end;
    let guard = match last.guard() {
        Some((p, neg)) => Some(cx.pred(u32::from(p), neg)),
        None => None,
    };
    // Second predicate operand of BRA/EXIT (bits 89:87, negated by 90).
    let cond_pred = |cx: &mut Ctx<'_>| -> Option<crate::spirv::Id> {
        let p = last.bits(87, 3);
        let n = last.bit(90);
        if p == 7 && !n {
            None
        } else {
            Some(cx.pred(p, n))
        }
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
            if last.opcode() & 0x1000 != 0 {
                return Err(cx.refuse("BRA on a uniform register (warp divergence test) not translated yet"));
            }
            let target = last.branch_target() as u32;
            let c = cond_pred(cx);
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
            let c = cond_pred(cx);
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
            if last.opcode() != 0x0944 {
                return Err(cx.refuse("indirect or absolute CALL not translated yet"));
            }
            if guard.is_some() {
                return Err(cx.refuse("predicated CALL not translated yet"));
            }
            cx.u32c(last.branch_target() as u32)
        }
        "RET" | "BRX" => {
            // RET.REL Rn / BRX Rn: the register holds an offset from the function base the instruction
            // encodes (return addresses put there by the caller; jump-table entries for BRX, whose targets
            // the cubin lists and the CFG made block starts).
            if !matches!(last.opcode(), 0x0950 | 0x0949) {
                return Err(cx.refuse("form not translated yet"));
            }
            let ra = last.bits(24, 8) as u8;
            let r = cx.reg(ra);
            let base = cx.u32c(last.branch_target() as u32);
            let target = cx.op2(Op::IAdd, r, base);
            match guard {
                None => target,
                Some(g) => {
                    let b = cx.u32c(fall);
                    cx.sel(g, target, b)
                }
            }
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
    let t = cx.t;
    let pc = cx.m.load(t.u32, cx.next_pc);
    let labels: Vec<u32> = prog.blocks.iter().map(|_| cx.m.id()).collect();
    let cases: Vec<(u32, u32)> = prog.blocks.iter().zip(&labels).map(|(b, l)| (b.start, *l)).collect();
    cx.m.selection_merge(sw_merge);
    cx.m.switch(pc, default, &cases);
    for (block, label) in prog.blocks.iter().zip(&labels) {
        cx.m.label(*label);
        let first = prog.insts.partition_point(|i| i.offset < block.start);
        for inst in prog.insts[first..].iter().take_while(|i| i.offset < block.end) {
            cx.inst = *inst;
            let is_last = inst.offset + 16 >= block.end;
            if is_last && block.exit == Exit::Control {
                lower_terminator(cx, block, inst)?;
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
    cx.m.branch(cont);
    cx.m.label(cont);
    let pc2 = cx.m.load(t.u32, cx.next_pc);
    let exit = cx.u32c(EXIT_PC);
    let done = cx.m.bin(Op::IEqual, t.bool, pc2, exit);
    cx.m.branch_cond(done, merge, header);
    cx.m.label(merge);
    cx.m.op_void(Op::Return, &[]);
    Ok(())
}
