//! Control flow, third form: warps in turns, for kernels with warp-synchronous instructions on devices whose
//! subgroups cannot hold a 32-thread warp (lavapipe's are 8 wide).
//!
//! One invocation per CUDA thread, as in the other forms; warps are 32 consecutive linear thread ids (a partial
//! last warp has its missing lanes counted as exited). Each thread keeps a pc, as in the dispatch loop. The
//! kernel is one loop of *turns* that every invocation runs in uniform control flow:
//!
//! 1. barrier; **phase A** (reads only the shared scheduling state): the block has finished when no thread is
//!    alive; it is stuck when the previous turn made no progress (then every thread still alive records a
//!    fault of kind [`abi::FAULT_KIND_NO_PROGRESS`] with its pc, and the loop ends instead of hanging). A thread
//!    waiting at a block barrier is released when the barrier's arrivals reach its thread count. Each thread
//!    computes its warp's *group* (lane 0 of each warp does, for the whole warp): the lanes at the lowest published pc among the lanes that have not exited
//!    and are not waiting at a barrier, skipping a group whose lanes wait at a `BSYNC` or `WARPSYNC` for lanes
//!    outside it (then the next lowest pc is tried); a `WARPSYNC` does not wait for lanes parked at a `BSYNC`
//!    (silicon goes on without them: nvcc's slow paths sync the full mask while returned lanes wait at the
//!    loop's `BSYNC`).
//! 2. barrier; **phase B**: the group's threads run one *turn block* (switch on the pc, as in the dispatch
//!    loop) and the others wait, so a waiting thread writes nothing; every thread publishes its pc (or exited /
//!    waiting) and, when its next block starts with `BSYNC` or `WARPSYNC`, the lanes it waits for; when it
//!    starts with an exchange instruction (SHFL, VOTE, VOTEU, MATCH, REDUX, and the tensor-core LDSM, MOVM,
//!    HMMA, IMMA, DMMA), that instruction's operands, into
//!    the half of the double-buffered exchange arrays the next turn reads (its registers do not change while
//!    it waits, so it republishes the same values every turn).
//!
//! Turn blocks are the program's blocks split before every exchange instruction and before a memory access
//! that could observe another lane's access earlier in the same block (a load after a store, a store after
//! any access): SM86 runs a warp's lanes in lockstep, so lane 3's load after the warp's stores sees lane 7's
//! store; splitting puts a barrier between them. The turn's barriers order workgroup and global memory.
//!
//! `BSSY Bn` records the group in the thread's `Bn`; `BSYNC Bn` waits until every live lane of `Bn` is at that
//! `BSYNC`, except lanes that left `Bn` with `BREAK Bn` (each thread publishes the barriers it broke out of). `BRA.DIV`/`BRA.CONV` test whether the mask's live lanes are all in the group. Block barriers (`BAR`)
//! count arrivals per id in the workgroup's control words; thread 0 retires a completed barrier's count in
//! phase B of the turn that released it, so a barrier id can be reused.

use super::lower_terminator;
use crate::abi;
use crate::error::TranslateError;
use crate::lower::warp::{self, ctl, WarpState};
use crate::lower::{Ctx, EXIT_PC};
use crate::program::{Block, Exit, Inst, Program};
use crate::spirv::{Id, LoopControl, MemorySemantics, Op, Scope, StorageClass, Type};

/// Whether `prog` needs the turns form (it holds warp-synchronous instructions).
pub fn needs_turns(prog: &Program) -> bool {
    prog.insts.iter().any(warp::needs_turns)
}

/// How an instruction touches shared or global memory (local memory is private).
fn memory_access(i: &Inst) -> (bool, bool) {
    match i.mnemonic {
        "LDS" | "LDG" | "LD" | "LDSM" => (true, false),
        // LDGSTS writes its shared destination (lowered as a copy at the instruction).
        "STS" | "STG" | "ST" | "LDGSTS" => (false, true),
        "ATOMS" | "ATOMG" | "ATOM" | "RED" | "ARRIVES" => (true, true),
        _ => (false, false),
    }
}

/// The program's blocks split into turn blocks (see the module doc).
pub fn turn_blocks(prog: &Program) -> Vec<Block> {
    let mut out = Vec::new();
    for b in &prog.blocks {
        let first = prog.insts.partition_point(|i| i.offset < b.start);
        let insts: Vec<&Inst> = prog.insts[first..]
            .iter()
            .take_while(|i| i.offset < b.end)
            .collect();
        let mut start = b.start;
        let (mut loaded, mut stored) = (false, false);
        for (k, inst) in insts.iter().enumerate() {
            let (ld, st) = memory_access(inst);
            let hazard = (ld && stored) || (st && (stored || loaded));
            if k > 0 && (warp::is_exchange(inst) || inst.mnemonic == "WARPSYNC" || hazard) {
                out.push(Block {
                    start,
                    end: inst.offset,
                    exit: Exit::Fall,
                    successors: vec![inst.offset],
                });
                start = inst.offset;
                loaded = false;
                stored = false;
            }
            loaded |= ld;
            stored |= st;
        }
        out.push(Block {
            start,
            end: b.end,
            exit: b.exit,
            successors: b.successors.clone(),
        });
    }
    out
}

fn instructions<'p>(prog: &'p Program, b: &Block) -> impl Iterator<Item = &'p Inst> {
    let first = prog.insts.partition_point(|i| i.offset < b.start);
    let end = b.end;
    prog.insts[first..]
        .iter()
        .take_while(move |i| i.offset < end)
}

fn barrier(cx: &mut Ctx<'_>) {
    let wg = cx.u32c(Scope::Workgroup as u32);
    let sem = cx.u32c(
        (MemorySemantics::ACQUIRE_RELEASE
            | MemorySemantics::WORKGROUP_MEMORY
            | MemorySemantics::UNIFORM_MEMORY)
            .bits(),
    );
    cx.m.op_void(Op::ControlBarrier, &[wg, wg, sem]);
}

/// Emits `switch (pc) { case block.start: f(block) ... default: dflt }` over `cases` (blocks with their
/// first instruction).
fn switch_on<'p>(
    cx: &mut Ctx<'_>,
    pc: Id,
    cases: &[&'p Block],
    mut f: impl FnMut(&mut Ctx<'_>, &'p Block) -> Result<(), TranslateError>,
    mut dflt: impl FnMut(&mut Ctx<'_>),
) -> Result<(), TranslateError> {
    let merge = cx.m.id();
    let default = cx.m.id();
    let labels: Vec<Id> = cases.iter().map(|_| cx.m.id()).collect();
    let table: Vec<(u32, Id)> = cases
        .iter()
        .zip(&labels)
        .map(|(b, l)| (b.start, *l))
        .collect();
    cx.m.selection_merge(merge);
    cx.m.switch(pc, default, &table);
    for (b, l) in cases.iter().zip(&labels) {
        cx.m.label(*l);
        f(cx, b)?;
        cx.m.branch(merge);
    }
    cx.m.label(default);
    dflt(cx);
    cx.m.branch(merge);
    cx.m.label(merge);
    Ok(())
}

/// A running thread whose block starts with an exchange instruction publishes that instruction's operands
/// (into the buffer the next turn reads).
fn publish_operands(
    cx: &mut Ctx<'_>,
    prog: &Program,
    exchange: &[&Block],
    pc_v: Id,
) -> Result<(), TranslateError> {
    if exchange.is_empty() {
        return Ok(());
    }
    let pc = cx.m.load(cx.t.u32, pc_v);
    switch_on(
        cx,
        pc,
        exchange,
        |cx, b| {
            let Some(first) = prog.inst_at(b.start) else {
                return Ok(());
            };
            cx.inst = *first;
            warp::publish(cx)
        },
        |_| {},
    )
}

/// Records a no-progress fault (kind, kernel, pc) in the fault record, as a trap does.
fn record_stuck(cx: &mut Ctx<'_>, pc: Id) {
    let zero64 = cx.m.c_u64(0);
    let zero = cx.u32c(0);
    crate::lower::fault::record_fault(cx, abi::FAULT_KIND_NO_PROGRESS, pc, zero64, zero);
}

/// Emits the whole kernel in the turns form (into the current function, which has just begun its first
/// block). `dims` are the spec constants of the block size. Returns the number of turn blocks.
pub fn emit_turns(
    cx: &mut Ctx<'_>,
    prog: &Program,
    dims: [Id; 3],
) -> Result<usize, TranslateError> {
    let t = cx.t;
    let blocks = turn_blocks(prog);

    // Sizes and identities.
    let sxy = cx.m.id();
    cx.m.global_inst(
        Op::SpecConstantOp,
        &[t.u32, sxy, Op::IMul as u32, dims[0], dims[1]],
    );
    let total = cx.m.id();
    cx.m.global_inst(
        Op::SpecConstantOp,
        &[t.u32, total, Op::IMul as u32, sxy, dims[2]],
    );
    let arr = cx.m.ty(Type::Array(t.u32, total, None));
    let arr_ptr = cx.m.t_ptr(StorageClass::Workgroup, arr);
    let wg_ptr = cx.m.t_ptr(StorageClass::Workgroup, t.u32);
    let array = |cx: &mut Ctx<'_>| cx.m.global_var(arr_ptr, StorageClass::Workgroup, None);
    let spc = array(cx);
    let ssync = array(cx);
    let sbrk = array(cx);
    // Exchanged operands, double-buffered by turn parity: a thread publishes at the end of a turn for the
    // exchange its next block starts with, and the group reads them in the next turn.
    let k2s = cx.u32c(2);
    let total2 = cx.m.id();
    cx.m.global_inst(
        Op::SpecConstantOp,
        &[t.u32, total2, Op::IMul as u32, total, k2s],
    );
    let arr2 = cx.m.ty(Type::Array(t.u32, total2, None));
    let arr2_ptr = cx.m.t_ptr(StorageClass::Workgroup, arr2);
    let x0 = cx.m.global_var(arr2_ptr, StorageClass::Workgroup, None);
    let x1 = cx.m.global_var(arr2_ptr, StorageClass::Workgroup, None);
    let xg = cx.m.global_var(arr2_ptr, StorageClass::Workgroup, None);
    // Tensor instructions' operand words (only in programs that have them): `xo_words` a thread, both halves.
    let xo_words = prog.insts.iter().map(warp::exchange_words).max().unwrap_or(0);
    let xo = if xo_words > 0 {
        let kw = cx.u32c(2 * xo_words);
        let len = cx.m.id();
        cx.m.global_inst(Op::SpecConstantOp, &[t.u32, len, Op::IMul as u32, total, kw]);
        let arr = cx.m.ty(Type::Array(t.u32, len, None));
        let ptr = cx.m.t_ptr(StorageClass::Workgroup, arr);
        cx.m.global_var(ptr, StorageClass::Workgroup, None)
    } else {
        0
    };
    // One word per warp: the group its lane 0 chose this turn, and its live lanes.
    let k31s = cx.u32c(31);
    let k5s = cx.u32c(5);
    let tw = cx.m.id();
    cx.m.global_inst(
        Op::SpecConstantOp,
        &[t.u32, tw, Op::IAdd as u32, total, k31s],
    );
    let nwarps = cx.m.id();
    cx.m.global_inst(
        Op::SpecConstantOp,
        &[t.u32, nwarps, Op::ShiftRightLogical as u32, tw, k5s],
    );
    let warr = cx.m.ty(Type::Array(t.u32, nwarps, None));
    let warr_ptr = cx.m.t_ptr(StorageClass::Workgroup, warr);
    let sgroup = cx.m.global_var(warr_ptr, StorageClass::Workgroup, None);
    let slive = cx.m.global_var(warr_ptr, StorageClass::Workgroup, None);
    let ctl_len = cx.u32c(ctl::WORDS);
    let ctl_arr = cx.m.ty(Type::Array(t.u32, ctl_len, None));
    let ctl_ptr = cx.m.t_ptr(StorageClass::Workgroup, ctl_arr);
    let ctl_var = cx.m.global_var(ctl_ptr, StorageClass::Workgroup, None);
    // Whether the host raised the abort word (thread 0 polls it; every thread reads this after a barrier, so
    // the whole block leaves the loop of turns in the same turn).
    let abort_seen = cx.m.global_var(wg_ptr, StorageClass::Workgroup, None);

    let tid = cx.linear_thread_index(dims);
    let k31 = cx.u32c(31);
    let lane = cx.op2(Op::BitwiseAnd, tid, k31);
    let nk31 = cx.u32c(!31);
    let base = cx.op2(Op::BitwiseAnd, tid, nk31);

    let zero = cx.u32c(0);
    let fvar = |cx: &mut Ctx<'_>| {
        let z = cx.m.c_u32(0);
        cx.m.local_var(t.fn_u32, Some(z))
    };
    let group = fvar(cx);
    let live = fvar(cx);
    let status = fvar(cx);
    let bar_id = fvar(cx);
    let bar_expected = fvar(cx);
    let bar_op = fvar(cx);
    let bar_pc = fvar(cx);
    let bar_count = fvar(cx);
    let fals = cx.m.c_bool(false);
    let bar_pred = cx.m.local_var(t.fn_bool, Some(fals));
    let active_v = cx.m.local_var(t.fn_bool, Some(fals));
    let released_v = cx.m.local_var(t.fn_bool, Some(fals));
    let halted = cx.m.local_var(t.fn_bool, Some(fals));
    let brk = fvar(cx);
    let turn_v = fvar(cx);
    let k16 = cx.u32c(16);
    let rel_arr = cx.m.ty(Type::Array(t.u32, k16, None));
    let rel_ptr = cx.m.t_ptr(StorageClass::Function, rel_arr);
    let rel_null = cx.m.c_null(rel_arr);
    let rel_e = cx.m.local_var(rel_ptr, Some(rel_null));
    let rel_r = cx.m.local_var(rel_ptr, Some(rel_null));
    cx.warp = Some(WarpState {
        tid,
        lane,
        base,
        total,
        group,
        live,
        status,
        x0,
        x1,
        xg,
        ctl: ctl_var,
        wg_ptr,
        bar_id,
        bar_expected,
        bar_op,
        bar_pc,
        bar_count,
        bar_pred,
        halted,
        brk,
        xr: zero,
        xw: tid,
        bregs: [0; 16],
        xo,
        xo_words,
        excl: crate::lower::warp_exclusive::Exclusive::for_program(cx, prog),
    });
    let w = cx.warp.expect("set");
    let pc_v = cx.next_pc;

    // Initial state.
    let scope = cx.u32c(Scope::Workgroup as u32);
    let relaxed = cx.u32c(0);
    let is0 = cx.m.bin(Op::IEqual, t.bool, tid, zero);
    let merge = cx.begin_if(is0);
    let p = w.ctl_at(cx, ctl::ALIVE, None);
    cx.m.store(p, total);
    cx.m.store(abort_seen, zero);
    warp::emit_for(cx, ctl::WORDS - 1, |cx, k| {
        let one = cx.u32c(1);
        let idx = cx.op2(Op::IAdd, k, one);
        let p = cx.m.access(wg_ptr, ctl_var, &[idx]);
        let zero = cx.u32c(0);
        cx.m.store(p, zero);
        Ok(())
    })?;
    cx.end_if(merge);
    let entry = cx.u32c(prog.entry);
    cx.m.store(pc_v, entry);
    let p = w.at(cx, spc, tid);
    cx.m.store(p, entry);
    let p = w.at(cx, ssync, tid);
    cx.m.store(p, zero);
    let p = w.at(cx, sbrk, tid);
    cx.m.store(p, zero);
    cx.m.store(turn_v, zero);
    let exchange: Vec<&Block> = blocks
        .iter()
        .filter(|b| prog.inst_at(b.start).is_some_and(warp::is_exchange))
        .collect();
    // Under a device loop limit, small warp kernels get the scheduler's lane loops written out: a turn then
    // spends ~4 iterations of the budget instead of ~140 (`control::guard`).
    cx.loops.unroll_lanes =
        cx.loops.limit.is_some() && exchange.len() <= super::guard::MAX_EXCHANGES_FOR_UNROLLED_LANES;
    publish_operands(cx, prog, &exchange, pc_v)?;
    barrier(cx);

    let header = cx.m.id();
    let body = cx.m.id();
    let cont = cx.m.id();
    let exit = cx.m.id();
    cx.m.branch(header);
    cx.m.label(header);
    cx.m.loop_merge(exit, cont, LoopControl::NONE);
    cx.m.branch(body);
    cx.m.label(body);
    barrier(cx);

    // ---- phase A ----
    let pa = w.ctl_at(cx, ctl::ALIVE, None);
    let alive = cx.m.load(t.u32, pa);
    let turn = cx.m.load(t.u32, turn_v);
    let k3 = cx.u32c(3);
    let one = cx.u32c(1);
    let two = cx.u32c(2);
    let t2 = cx.op2(Op::IAdd, turn, two);
    let prev_slot = cx.op2(Op::UMod, t2, k3);
    let t1 = cx.op2(Op::IAdd, turn, one);
    let next_slot = cx.op2(Op::UMod, t1, k3);
    let this_slot = cx.op2(Op::UMod, turn, k3);
    let parity = cx.op2(Op::BitwiseAnd, turn, one);
    let xr = cx.op2(Op::IMul, parity, total);
    let other = cx.op2(Op::BitwiseXor, parity, one);
    let wo = cx.op2(Op::IMul, other, total);
    let xw = cx.op2(Op::IAdd, wo, tid);
    if let Some(ws) = cx.warp.as_mut() {
        ws.xr = xr;
        ws.xw = xw;
    }
    let pp = w.ctl_at(cx, ctl::PROGRESS, Some(prev_slot));
    let acq = cx.u32c((MemorySemantics::ACQUIRE | MemorySemantics::WORKGROUP_MEMORY).bits());
    let wgs = cx.u32c(Scope::Workgroup as u32);
    let progress = cx.m.op(Op::AtomicLoad, t.u32, &[pp, wgs, acq]);
    let first_turn = cx.m.bin(Op::IEqual, t.bool, turn, zero);
    let none = cx.m.bin(Op::IEqual, t.bool, progress, zero);
    let not_first = cx.m.un(Op::LogicalNot, t.bool, first_turn);
    let stuck = cx.m.bin(Op::LogicalAnd, t.bool, not_first, none);
    let finished = cx.m.bin(Op::IEqual, t.bool, alive, zero);
    let quit = cx.m.bin(Op::LogicalOr, t.bool, finished, stuck);
    let seen = cx.m.load(t.u32, abort_seen);
    let aborted = cx.m.bin(Op::INotEqual, t.bool, seen, zero);
    let quit = cx.m.bin(Op::LogicalOr, t.bool, quit, aborted);
    let go_on = cx.m.id();
    let leave = cx.m.id();
    cx.m.selection_merge(go_on);
    cx.m.branch_cond(quit, leave, go_on);
    cx.m.label(leave);
    {
        let st = cx.m.load(t.u32, status);
        let exited = cx.u32c(warp::STATUS_EXITED);
        let alive_me = cx.m.bin(Op::INotEqual, t.bool, st, exited);
        let report = cx.m.bin(Op::LogicalAnd, t.bool, stuck, alive_me);
        let m2 = cx.begin_if(report);
        let waiting = cx.u32c(warp::STATUS_WAITING);
        let is_w = cx.m.bin(Op::IEqual, t.bool, st, waiting);
        let bpc = cx.m.load(t.u32, bar_pc);
        let pc = cx.m.load(t.u32, pc_v);
        let at = cx.sel(is_w, bpc, pc);
        record_stuck(cx, at);
        cx.end_if(m2);
        cx.m.branch(exit);
    }
    cx.m.label(go_on);

    let merge = cx.begin_if(is0);
    let pn = w.ctl_at(cx, ctl::PROGRESS, Some(next_slot));
    cx.m.store(pn, zero);
    // Thread 0 decides which barriers complete this turn; it retires their counts in phase B.
    warp::emit_for(cx, 16, |cx, id| {
        let pa = w.ctl_at(cx, ctl::ARRIVED, Some(id));
        let a = cx.m.load(t.u32, pa);
        let pe = w.ctl_at(cx, ctl::EXPECTED, Some(id));
        let e0 = cx.m.load(t.u32, pe);
        let zero = cx.u32c(0);
        let whole = cx.m.bin(Op::IEqual, t.bool, e0, zero);
        let e = cx.sel(whole, alive, e0);
        let some = cx.m.bin(Op::INotEqual, t.bool, a, zero);
        let reached = cx.m.bin(Op::UGreaterThanEqual, t.bool, a, e);
        let done = cx.m.bin(Op::LogicalAnd, t.bool, some, reached);
        let pr = w.ctl_at(cx, ctl::REDUCED, Some(id));
        let r = cx.m.load(t.u32, pr);
        let ev = cx.sel(done, e, zero);
        let rv = cx.sel(done, r, zero);
        let qe = cx.m.access(t.fn_u32, rel_e, &[id]);
        cx.m.store(qe, ev);
        let qr = cx.m.access(t.fn_u32, rel_r, &[id]);
        cx.m.store(qr, rv);
        Ok(())
    })?;
    cx.end_if(merge);

    // Barrier release.
    cx.m.store(released_v, fals);
    let st = cx.m.load(t.u32, status);
    let waiting = cx.u32c(warp::STATUS_WAITING);
    let is_w = cx.m.bin(Op::IEqual, t.bool, st, waiting);
    let merge = cx.begin_if(is_w);
    let r = warp::try_release(cx, alive);
    cx.m.store(released_v, r);
    cx.end_if(merge);

    // The warp's group, chosen by its lane 0 (every thread of the warp would choose the same).
    let k5 = cx.u32c(5);
    let warp_index = cx.op2(Op::ShiftRightLogical, tid, k5);
    let is_lead = cx.m.bin(Op::IEqual, t.bool, lane, zero);
    let lead = cx.begin_if(is_lead);
    let dead = fvar(cx);
    let excl = fvar(cx);
    let parked = fvar(cx);
    cx.m.store(dead, zero);
    cx.m.store(excl, zero);
    cx.m.store(parked, zero);
    cx.m.store(group, zero);
    let exited_pc = cx.u32c(warp::PUBLISHED_EXITED);
    let waiting_pc = cx.u32c(warp::PUBLISHED_WAITING);
    warp::emit_for(cx, 32, |cx, l| {
        let one = cx.u32c(1);
        let bit = cx.op2(Op::ShiftLeftLogical, one, l);
        let idx = cx.op2(Op::IAdd, base, l);
        let exists = cx.m.bin(Op::ULessThan, t.bool, idx, total);
        let idx = cx.sel(exists, idx, tid);
        let p = w.at(cx, spc, idx);
        let v = cx.m.load(t.u32, p);
        let gone = cx.m.bin(Op::IEqual, t.bool, v, exited_pc);
        let not_exists = cx.m.un(Op::LogicalNot, t.bool, exists);
        let gone = cx.m.bin(Op::LogicalOr, t.bool, gone, not_exists);
        let zero = cx.u32c(0);
        let dbit = cx.sel(gone, bit, zero);
        let d = cx.m.load(t.u32, dead);
        let d = cx.op2(Op::BitwiseOr, d, dbit);
        cx.m.store(dead, d);
        let blocked = cx.m.bin(Op::UGreaterThanEqual, t.bool, v, waiting_pc);
        let blocked = cx.m.bin(Op::LogicalOr, t.bool, blocked, gone);
        let ebit = cx.sel(blocked, bit, zero);
        let e = cx.m.load(t.u32, excl);
        let e = cx.op2(Op::BitwiseOr, e, ebit);
        cx.m.store(excl, e);
        // Running lanes whose next block starts with a BSYNC (parked there once they wait).
        let pb = w.at(cx, sbrk, idx);
        let bk = cx.m.load(t.u32, pb);
        let sixteen = cx.u32c(16);
        let nb = cx.op2(Op::ShiftRightLogical, bk, sixteen);
        let at_bsync = cx.m.bin(Op::INotEqual, t.bool, nb, zero);
        let running = cx.m.un(Op::LogicalNot, t.bool, blocked);
        let at_bsync = cx.m.bin(Op::LogicalAnd, t.bool, at_bsync, running);
        let pbit = cx.sel(at_bsync, bit, zero);
        let pk = cx.m.load(t.u32, parked);
        let pk = cx.op2(Op::BitwiseOr, pk, pbit);
        cx.m.store(parked, pk);
        Ok(())
    })?;
    {
        // while group == 0 && excl != all: try the lowest pc among the lanes not excluded.
        let gh = cx.m.id();
        let gb = cx.m.id();
        let gc = cx.m.id();
        let gm = cx.m.id();
        cx.m.branch(gh);
        cx.m.label(gh);
        let g = cx.m.load(t.u32, group);
        let e = cx.m.load(t.u32, excl);
        let gz = cx.m.bin(Op::IEqual, t.bool, g, zero);
        let all = cx.u32c(u32::MAX);
        let left = cx.m.bin(Op::INotEqual, t.bool, e, all);
        let go = cx.m.bin(Op::LogicalAnd, t.bool, gz, left);
        cx.m.loop_merge(gm, gc, LoopControl::DONT_UNROLL);
        cx.m.branch_cond(go, gb, gm);
        cx.m.label(gb);
        let minpc = fvar(cx);
        let maxc = cx.u32c(u32::MAX);
        cx.m.store(minpc, maxc);
        let ex = cx.m.load(t.u32, excl);
        // The lanes not excluded.
        let candidates = cx.not(ex);
        warp::for_lanes_in(cx, candidates, |cx, l, _| {
            let idx = cx.op2(Op::IAdd, base, l);
            let p = w.at(cx, spc, idx);
            let v = cx.m.load(t.u32, p);
            let cur = cx.m.load(t.u32, minpc);
            let lt = cx.m.bin(Op::ULessThan, t.bool, v, cur);
            let nv = cx.sel(lt, v, cur);
            cx.m.store(minpc, nv);
            Ok(())
        })?;
        let mp = cx.m.load(t.u32, minpc);
        let gv = fvar(cx);
        let uv = fvar(cx);
        let nv = fvar(cx);
        cx.m.store(nv, zero);
        cx.m.store(gv, zero);
        cx.m.store(uv, zero);
        warp::for_lanes_in(cx, candidates, |cx, l, bit| {
            let idx = cx.op2(Op::IAdd, base, l);
            let p = w.at(cx, spc, idx);
            let v = cx.m.load(t.u32, p);
            let here = cx.m.bin(Op::IEqual, t.bool, v, mp);
            let m4 = cx.begin_if(here);
            let g = cx.m.load(t.u32, gv);
            let g = cx.op2(Op::BitwiseOr, g, bit);
            cx.m.store(gv, g);
            let ps = w.at(cx, ssync, idx);
            let s = cx.m.load(t.u32, ps);
            let u = cx.m.load(t.u32, uv);
            let u = cx.op2(Op::BitwiseOr, u, s);
            cx.m.store(uv, u);
            let pb = w.at(cx, sbrk, idx);
            let bk = cx.m.load(t.u32, pb);
            let sixteen = cx.u32c(16);
            let nb = cx.op2(Op::ShiftRightLogical, bk, sixteen);
            let n0 = cx.m.load(t.u32, nv);
            let n1 = cx.op2(Op::BitwiseOr, n0, nb);
            cx.m.store(nv, n1);
            cx.end_if(m4);
            Ok(())
        })?;
        let g = cx.m.load(t.u32, gv);
        let u = cx.m.load(t.u32, uv);
        let d = cx.m.load(t.u32, dead);
        let gd = cx.op2(Op::BitwiseOr, g, d);
        let ngd = cx.not(gd);
        let missing = cx.op2(Op::BitwiseAnd, u, ngd);
        // A WARPSYNC does not wait for lanes parked at a BSYNC (SM86 goes on without them: they wait for
        // this group to reach the BSYNC, which it may never do); at a BSYNC, lanes that left the barrier with
        // BREAK are not waited for.
        let nb1 = cx.m.load(t.u32, nv);
        let at_bsync = cx.m.bin(Op::INotEqual, t.bool, nb1, zero);
        let pk = cx.m.load(t.u32, parked);
        let npk = cx.not(pk);
        let without_parked = cx.op2(Op::BitwiseAnd, missing, npk);
        let missing = cx.sel(at_bsync, missing, without_parked);
        let mv = fvar(cx);
        cx.m.store(mv, missing);
        let some_missing = cx.m.bin(Op::INotEqual, t.bool, missing, zero);
        let check = cx.m.bin(Op::LogicalAnd, t.bool, some_missing, at_bsync);
        let m5 = cx.begin_if(check);
        let one_c = cx.u32c(1);
        let n = cx.op2(Op::ISub, nb1, one_c);
        // Each lane clears only its own bit, so the lanes to look at are those missing at the start.
        warp::for_lanes_in(cx, missing, |cx, l, bit| {
            let one = cx.u32c(1);
            let zero = cx.u32c(0);
            let mm = cx.m.load(t.u32, mv);
            let idx = cx.op2(Op::IAdd, base, l);
            let exists = cx.m.bin(Op::ULessThan, t.bool, idx, total);
            let idx = cx.sel(exists, idx, tid);
            let pb = w.at(cx, sbrk, idx);
            let bk = cx.m.load(t.u32, pb);
            let b = cx.op2(Op::ShiftRightLogical, bk, n);
            let b = cx.op2(Op::BitwiseAnd, b, one);
            let left = cx.m.bin(Op::INotEqual, t.bool, b, zero);
            let nbit = cx.not(bit);
            let cleared = cx.op2(Op::BitwiseAnd, mm, nbit);
            let nm = cx.sel(left, cleared, mm);
            cx.m.store(mv, nm);
            Ok(())
        })?;
        cx.end_if(m5);
        let missing = cx.m.load(t.u32, mv);
        let ready = cx.m.bin(Op::IEqual, t.bool, missing, zero);
        let chosen = cx.sel(ready, g, zero);
        cx.m.store(group, chosen);
        let e2 = cx.op2(Op::BitwiseOr, ex, g);
        cx.m.store(excl, e2);
        cx.m.branch(gc);
        cx.m.label(gc);
        cx.m.branch(gh);
        cx.m.label(gm);
    }
    let d = cx.m.load(t.u32, dead);
    let nd = cx.not(d);
    let g = cx.m.load(t.u32, group);
    let pg = w.at(cx, sgroup, warp_index);
    cx.m.store(pg, g);
    let pl = w.at(cx, slive, warp_index);
    cx.m.store(pl, nd);
    cx.end_if(lead);
    barrier(cx);
    let pg = w.at(cx, sgroup, warp_index);
    let g = cx.m.load(t.u32, pg);
    cx.m.store(group, g);
    let pl = w.at(cx, slive, warp_index);
    let nd = cx.m.load(t.u32, pl);
    cx.m.store(live, nd);
    let gl = cx.op2(Op::ShiftRightLogical, g, lane);
    let gl = cx.op2(Op::BitwiseAnd, gl, one);
    let in_group = cx.m.bin(Op::INotEqual, t.bool, gl, zero);
    let st = cx.m.load(t.u32, status);
    let running = cx.u32c(warp::STATUS_RUNNING);
    let is_run = cx.m.bin(Op::IEqual, t.bool, st, running);
    let active = cx.m.bin(Op::LogicalAnd, t.bool, is_run, in_group);
    cx.m.store(active_v, active);

    // ---- phase B ----
    let released = cx.m.load(t.bool, released_v);
    let act = cx.m.load(t.bool, active_v);
    let progressed = cx.m.bin(Op::LogicalOr, t.bool, act, released);
    let merge = cx.begin_if(progressed);
    let pt = w.ctl_at(cx, ctl::PROGRESS, Some(this_slot));
    cx.m.op(Op::AtomicOr, t.u32, &[pt, scope, relaxed, one]);
    cx.end_if(merge);
    let merge = cx.begin_if(is0);
    warp::emit_for(cx, 16, |cx, id| {
        let qe = cx.m.access(t.fn_u32, rel_e, &[id]);
        let e = cx.m.load(t.u32, qe);
        let zero = cx.u32c(0);
        let done = cx.m.bin(Op::INotEqual, t.bool, e, zero);
        let m3 = cx.begin_if(done);
        let qr = cx.m.access(t.fn_u32, rel_r, &[id]);
        let r = cx.m.load(t.u32, qr);
        let pa = w.ctl_at(cx, ctl::ARRIVED, Some(id));
        cx.m.op(Op::AtomicISub, t.u32, &[pa, scope, relaxed, e]);
        let pr = w.ctl_at(cx, ctl::REDUCED, Some(id));
        cx.m.op(Op::AtomicISub, t.u32, &[pr, scope, relaxed, r]);
        cx.end_if(m3);
        Ok(())
    })?;
    cx.end_if(merge);

    let merge = cx.begin_if(act);
    let pc = cx.m.load(t.u32, pc_v);
    let all: Vec<&Block> = blocks.iter().collect();
    switch_on(
        cx,
        pc,
        &all,
        |cx, b| {
            let n = instructions(prog, b).count();
            for (k, inst) in instructions(prog, b).enumerate() {
                cx.inst = *inst;
                if k + 1 == n && b.exit == Exit::Control {
                    lower_terminator(cx, prog, b, inst)?;
                } else {
                    crate::lower::lower(cx)?;
                }
            }
            if b.exit == Exit::Fall {
                let n = cx.u32c(b.end);
                cx.m.store(cx.next_pc, n);
            }
            Ok(())
        },
        |cx| {
            let e = cx.u32c(EXIT_PC);
            cx.m.store(cx.next_pc, e);
        },
    )?;
    // A thread that trapped (or failed an assert) ends here.
    let h = cx.m.load(t.bool, halted);
    let m4 = cx.begin_if(h);
    let e = cx.u32c(EXIT_PC);
    cx.m.store(pc_v, e);
    cx.end_if(m4);
    let pc = cx.m.load(t.u32, pc_v);
    let exit_c = cx.u32c(EXIT_PC);
    let gone = cx.m.bin(Op::IEqual, t.bool, pc, exit_c);
    let m3 = cx.begin_if(gone);
    let ex = cx.u32c(warp::STATUS_EXITED);
    cx.m.store(status, ex);
    let pa = w.ctl_at(cx, ctl::ALIVE, None);
    cx.m.op(Op::AtomicISub, t.u32, &[pa, scope, relaxed, one]);
    cx.end_if(m3);
    cx.end_if(merge);

    // Publish.
    let st = cx.m.load(t.u32, status);
    let pc = cx.m.load(t.u32, pc_v);
    let is_run = cx.m.bin(Op::IEqual, t.bool, st, running);
    let exited_s = cx.u32c(warp::STATUS_EXITED);
    let is_ex = cx.m.bin(Op::IEqual, t.bool, st, exited_s);
    let other = cx.sel(is_ex, exited_pc, waiting_pc);
    let shown = cx.sel(is_run, pc, other);
    let p = w.at(cx, spc, tid);
    cx.m.store(p, shown);
    let syncs: Vec<&Block> = blocks
        .iter()
        .filter(|b| {
            prog.inst_at(b.start)
                .is_some_and(|i| matches!(i.mnemonic, "BSYNC" | "WARPSYNC"))
        })
        .collect();
    let sv = fvar(cx);
    let sbar = fvar(cx);
    cx.m.store(sbar, zero);
    cx.m.store(sv, zero);
    if !syncs.is_empty() {
        let merge = cx.begin_if(is_run);
        switch_on(
            cx,
            pc,
            &syncs,
            |cx, b| {
                let Some(first) = prog.inst_at(b.start) else {
                    return Ok(());
                };
                if first.mnemonic == "BSYNC" {
                    let n = cx.u32c((first.bits(16, 4) + 1) << 16);
                    cx.m.store(sbar, n);
                }
                if let Some(mask) = warp::sync_mask(cx, first)? {
                    cx.m.store(sv, mask);
                }
                Ok(())
            },
            |_| {},
        )?;
        cx.end_if(merge);
    }
    let m7 = cx.begin_if(is_run);
    publish_operands(cx, prog, &exchange, pc_v)?;
    cx.end_if(m7);
    let s = cx.m.load(t.u32, sv);
    let bk = cx.m.load(t.u32, brk);
    let sb = cx.m.load(t.u32, sbar);
    let bk = cx.op2(Op::BitwiseOr, bk, sb);
    let p = w.at(cx, sbrk, tid);
    cx.m.store(p, bk);
    let p = w.at(cx, ssync, tid);
    cx.m.store(p, s);
    let t1 = cx.op2(Op::IAdd, turn, one);
    cx.m.store(turn_v, t1);
    poll_abort(cx, is0, t1, abort_seen);
    cx.m.branch(cont);
    cx.m.label(cont);
    cx.m.branch(header);
    cx.m.label(exit);
    // Where the device leaves loops on its own: a loop of turns it cut fails the launch (every thread still
    // running reports its pc; the first report wins).
    if let Some(spent) = super::guard::budget_spent(cx) {
        let st = cx.m.load(t.u32, status);
        let exited = cx.u32c(warp::STATUS_EXITED);
        let running = cx.m.bin(Op::INotEqual, t.bool, st, exited);
        let report = cx.m.bin(Op::LogicalAnd, t.bool, spent, running);
        let m = cx.begin_if(report);
        let pc = cx.m.load(t.u32, pc_v);
        super::guard::record_loop_limit(cx, pc);
        cx.end_if(m);
    }
    cx.m.op_void(Op::Return, &[]);
    Ok(blocks.len())
}

/// Thread 0 reads the abort word every `guard::POLL_PERIOD / 16` turns into `abort_seen` (Workgroup), which
/// every thread reads after the next turn's first barrier.
fn poll_abort(cx: &mut Ctx<'_>, is0: Id, turn: Id, abort_seen: Id) {
    let t = cx.t;
    let mask = cx.u32c(super::guard::POLL_PERIOD / 16 - 1);
    let low = cx.op2(Op::BitwiseAnd, turn, mask);
    let zero = cx.u32c(0);
    let due = cx.m.bin(Op::IEqual, t.bool, low, zero);
    let due = cx.m.bin(Op::LogicalAnd, t.bool, due, is0);
    let m = cx.begin_if(due);
    let a = super::guard::abort_now(cx);
    let v = cx.bool_to_u32(a);
    cx.m.store(abort_seen, v);
    cx.end_if(m);
}
