//! Warp-synchronous instructions in the turns form (see `crate::control::turns`): SHFL, VOTE, VOTEU, MATCH,
//! REDUX, WARPSYNC, BSSY/BSYNC, BAR (SYNC, ARV, RED.POPC/AND/OR with ids and thread counts), B2R.RESULT, the
//! warp-divergence branches (BRA.DIV, BRA.CONV) and the mbarrier arrive (ATOMS.ARRIVE.64); the tensor-core
//! instructions (LDSM, MOVM, HMMA, IMMA, DMMA) through `super::tensor`, fed from the `xo` exchange array.
//!
//! Every exchange instruction starts a turn block, so the threads that run it this turn (the warp's *group*)
//! are exactly the threads that execute it together on SM86. Before the turn's second barrier each of them
//! publishes its operands ([`publish`]): the source value in `x0` (and `x1` for 64-bit MATCH) and in `xg`
//! bit 0 whether its guard holds (it takes part) and bit 1 its predicate operand (VOTE); a tensor instruction's
//! operand words (`tensor::operands`) go to `xo`, as wide as the program's widest. After the barrier the
//! lowering here reads the other lanes' slots. A lane that does not take part (not in the group, or guard
//! false, or outside the thread's `WARPSYNC.EXCLUSIVE` mask: `super::warp_exclusive`) is left out of ballots,
//! matches and reductions, as SM86 leaves out inactive threads.
//!
//! Semantics (PTX ISA `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `bar`/`barrier`; checked against
//! the silicon goldens of the corpus):
//! - SHFL: `c` packs the clamp (bits 4:0) and the segment mask (bits 12:8); `maxLane = (lane & seg) | (clamp
//!   & ~seg)`, `minLane = lane & seg`; UP reads `lane - b` if `>= maxLane`, DOWN `lane + b` and BFLY `lane ^ b`
//!   if `<= maxLane`, IDX `minLane | (b & ~seg)` if `<= maxLane`; otherwise the thread reads its own value. The
//!   predicate output says whether the source lane was in range. `b` is taken modulo 32.
//! - VOTE.ALL/ANY/EQ: the predicate result over the taking-part lanes; the register result is the ballot.
//! - MATCH.ANY: the lanes holding the same 32/64-bit value; MATCH.ALL: all of them if every lane agrees, else
//!   0, with the predicate saying which.
//! - REDUX: AND, OR, XOR, SUM, MIN, MAX (signed with `.S32`) over the taking-part lanes, into a UR.
//! - BAR: arrivals are counted per barrier id in threads; a barrier completes when its arrivals reach the
//!   thread count (or, without one, the number of threads of the block that have not exited); `.RED` sums
//!   its predicate operand, and `B2R.RESULT` reads the count (POPC) and the predicate (AND: all, OR: any).

use super::{tensor, Ctx};
use crate::error::TranslateError;
use crate::program::Inst;
use crate::spirv::{Id, LoopControl, MemorySemantics, Op, Scope};

/// `pc` a thread publishes once it has exited (also the dispatch loop's exit offset).
pub const PUBLISHED_EXITED: u32 = super::EXIT_PC;
/// `pc` a thread publishes while it waits at a block barrier.
pub const PUBLISHED_WAITING: u32 = u32::MAX - 1;

/// Thread status (`WarpState::status`).
pub const STATUS_RUNNING: u32 = 0;
pub const STATUS_EXITED: u32 = 1;
pub const STATUS_WAITING: u32 = 2;

/// Word layout of the control array (Workgroup).
pub mod ctl {
    /// Threads of the block that have not exited.
    pub const ALIVE: u32 = 0;
    /// Three progress flags, one per turn modulo 3.
    pub const PROGRESS: u32 = 1;
    /// Arrival counts per barrier id (16).
    pub const ARRIVED: u32 = 4;
    /// Sum of `.RED` predicates per barrier id.
    pub const REDUCED: u32 = 20;
    /// Expected thread count per barrier id (0: the whole block).
    pub const EXPECTED: u32 = 36;
    /// Words in the array.
    pub const WORDS: u32 = 52;
}

/// Ids of the turns form's per-thread and per-workgroup state.
#[derive(Debug, Clone, Copy)]
pub struct WarpState {
    /// Linear thread index in the block (value).
    pub tid: Id,
    /// Lane (tid & 31) and the warp's first linear index (values).
    pub lane: Id,
    pub base: Id,
    /// Threads in the block (spec-constant expression).
    pub total: Id,
    /// Function u32: the lanes running this turn (this thread's warp's group).
    pub group: Id,
    /// Function u32: lanes of the warp that exist and have not exited.
    pub live: Id,
    /// Function u32: status (`STATUS_*`).
    pub status: Id,
    /// Workgroup arrays of `total` words: published values, participation bits.
    pub x0: Id,
    pub x1: Id,
    pub xg: Id,
    /// Workgroup u32 array of `ctl::WORDS`.
    pub ctl: Id,
    /// Workgroup u32 pointer type.
    pub wg_ptr: Id,
    /// Function u32: barrier waited on, its expected count, its reduction (0 none, 1 POPC, 2 AND, 3 OR), the
    /// BAR's offset.
    pub bar_id: Id,
    pub bar_expected: Id,
    pub bar_op: Id,
    pub bar_pc: Id,
    /// Function u32 / bool: what `B2R.RESULT` reads.
    pub bar_count: Id,
    pub bar_pred: Id,
    /// Function bool: the thread trapped or failed an assert in this turn's block; it exits after the block.
    pub halted: Id,
    /// Function u32: the convergence barriers this thread left with `BREAK` (bit n for Bn).
    pub brk: Id,
    /// This turn's offset of the exchange arrays' half to read, and the index this thread writes its operands
    /// to (the other half) — values of the current turn.
    pub xr: Id,
    pub xw: Id,
    /// Function u32 per convergence barrier B0..B15 (0 = not yet created).
    pub bregs: [Id; 16],
    /// Workgroup array of the tensor instructions' operand words (`xo_words` a thread, double-buffered as
    /// `x0`; 0 when the program has none): word `w` of thread `i` in the half at `h` is `(h + i) * xo_words + w`.
    pub xo: Id,
    pub xo_words: u32,
    /// The thread's `WARPSYNC.EXCLUSIVE` state (`super::warp_exclusive`; only in kernels that have one).
    pub excl: Option<super::warp_exclusive::Exclusive>,
}

fn semantics_acq_rel_wg() -> u32 {
    (MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits()
}

impl WarpState {
    /// Pointer to `array[index]` of a Workgroup word array.
    pub fn at(&self, cx: &mut Ctx<'_>, array: Id, index: Id) -> Id {
        cx.m.access(self.wg_ptr, array, &[index])
    }

    /// Pointer to the read half of exchange array `array` at `index` (a linear thread id).
    pub fn xat(&self, cx: &mut Ctx<'_>, array: Id, index: Id) -> Id {
        let i = cx.op2(Op::IAdd, index, self.xr);
        cx.m.access(self.wg_ptr, array, &[i])
    }

    /// Pointer to control word `word + offset`.
    pub fn ctl_at(&self, cx: &mut Ctx<'_>, word: u32, offset: Option<Id>) -> Id {
        let w = cx.u32c(word);
        let i = match offset {
            Some(o) => cx.op2(Op::IAdd, w, o),
            None => w,
        };
        cx.m.access(self.wg_ptr, self.ctl, &[i])
    }
}

/// The convergence-barrier register `Bn` of this thread (a Function variable created on first use).
pub fn breg(cx: &mut Ctx<'_>, n: u32) -> Result<Id, TranslateError> {
    let Some(w) = cx.warp.as_mut() else {
        return Err(cx.refuse("convergence barrier outside the turns form"));
    };
    let slot = &mut w.bregs[(n & 15) as usize];
    if *slot == 0 {
        let zero = cx.m.c_u32(0);
        *slot = cx.m.local_var(cx.t.fn_u32, Some(zero));
    }
    Ok(*slot)
}

/// Ends the invocation after a trap or a failed assert. In the dispatch and structured forms it returns (what
/// follows in the block is unreachable); in the turns form every invocation must keep reaching the turn
/// barriers, so the thread is marked halted and exits after its block (the launch reports the fault; the rest
/// of the block still runs).
pub fn end_invocation(cx: &mut Ctx<'_>) {
    match cx.warp {
        Some(w) => {
            let yes = cx.m.c_bool(true);
            cx.m.store(w.halted, yes);
        }
        None => {
            super::subgroup::exited(cx);
            cx.m.op_void(Op::Return, &[]);
            let dead = cx.m.id();
            cx.m.label(dead);
        }
    }
}

/// Emits `for l in 0..n { body(l) }` (a structured loop; `body` ends in the block it is given).
pub fn emit_for(
    cx: &mut Ctx<'_>,
    n: u32,
    mut body: impl FnMut(&mut Ctx<'_>, Id) -> Result<(), TranslateError>,
) -> Result<(), TranslateError> {
    // Where the device leaves loops on its own after a shared iteration budget (lavapipe), a loop of at most
    // a warp's lanes is cheaper written out: a loop here runs every turn of the turns form and would spend
    // the budget 30 times faster than the kernel's own loops (`control::guard`).
    if cx.loops.unroll_lanes && n <= crate::abi::WARP_SIZE {
        for l in 0..n {
            let i = cx.u32c(l);
            body(cx, i)?;
        }
        return Ok(());
    }
    let t = cx.t;
    let zero = cx.u32c(0);
    let var = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(var, zero);
    let header = cx.m.id();
    let bodyl = cx.m.id();
    let cont = cx.m.id();
    let merge = cx.m.id();
    cx.m.branch(header);
    cx.m.label(header);
    let i = cx.m.load(t.u32, var);
    let nn = cx.u32c(n);
    let go = cx.m.bin(Op::ULessThan, t.bool, i, nn);
    cx.m.loop_merge(merge, cont, LoopControl::DONT_UNROLL);
    cx.m.branch_cond(go, bodyl, merge);
    cx.m.label(bodyl);
    body(cx, i)?;
    cx.m.branch(cont);
    cx.m.label(cont);
    let one = cx.u32c(1);
    let i2 = cx.op2(Op::IAdd, i, one);
    cx.m.store(var, i2);
    cx.m.branch(header);
    cx.m.label(merge);
    Ok(())
}

/// Whether `inst` exchanges values between the lanes of a warp (it must start a turn block).
pub fn is_exchange(inst: &Inst) -> bool {
    matches!(inst.mnemonic, "SHFL" | "VOTE" | "VOTEU" | "MATCH" | "REDUX")
        || tensor::is_tensor(inst.mnemonic)
        || is_r2ur_uniformity(inst)
        || is_divergence_branch(inst)
}

/// Words of tensor-instruction operands a thread publishes for `inst` (0 for other instructions).
pub fn exchange_words(inst: &Inst) -> u32 {
    if tensor::is_tensor(inst.mnemonic) {
        tensor::exchange_words(inst)
    } else {
        0
    }
}

/// `R2UR Pd, URd, Ra` with a predicate output: the UR gets the value of the lowest lane taking part and `Pd`
/// says whether the thread's `Ra` equals it (nvcc tests whether a `__sync` mask is uniform with it).
pub fn is_r2ur_uniformity(inst: &Inst) -> bool {
    inst.mnemonic == "R2UR" && inst.bits(81, 3) != 7
}

/// `BRA.DIV`/`BRA.CONV` on a uniform register: whether the threads that take part (guard and condition
/// true) are all of the mask's live lanes. Silicon evidence (corpus `vote_uniform_modes`): lanes whose
/// guard is false do not count as taking part, so a guard that differs between lanes makes the branch
/// divergent for the lanes that take it.
pub fn is_divergence_branch(inst: &Inst) -> bool {
    inst.mnemonic == "BRA" && inst.opcode() == 0x1947
}

/// Whether `inst` needs the turns form at all.
pub fn needs_turns(inst: &Inst) -> bool {
    match inst.mnemonic {
        // WARPSYNC alone orders nothing when each thread is its own invocation (nvcc's division and square
        // root slow paths hold one); with other warp instructions it is honoured.
        "SHFL" | "VOTE" | "VOTEU" | "MATCH" | "REDUX" | "B2R" => true,
        "R2UR" => is_r2ur_uniformity(inst),
        m if tensor::is_tensor(m) => true,
        // BRA.DIV / BRA.CONV on a uniform register (BRA.U on a uniform predicate is an ordinary branch).
        "BRA" => inst.opcode() == 0x1947,
        "BAR" => !is_block_barrier(inst),
        "ATOMS" => inst.opcode() == 0x1f8c && inst.bits(87, 4) == 9 || is_cast_spin64(inst),
        // An arrive on an mbarrier, like ATOMS.ARRIVE: its waiters spin (see `memory::arrives`).
        "ARRIVES" => true,
        _ => false,
    }
}

/// `ATOMS.CAST.SPIN.64` (nvcc's loop for 64-bit atomics on shared memory, also the fallback of generic 64-bit
/// atomics): translated with warps in turns or as subgroups only (`memory::shared_cast64`).
fn is_cast_spin64(inst: &Inst) -> bool {
    inst.opcode() & 0x1ff == 0x18d && inst.opcode() & 0x1000 == 0 && inst.bits(87, 4) == 3
        && matches!(inst.bits(73, 3), 2 | 5)
}

/// A plain, unguarded block-wide `BAR.SYNC 0` (no id register, no thread count, `.DEFER_BLOCKING` or not):
/// reached by every thread, so it is `OpControlBarrier` in any form.
pub fn is_block_barrier(inst: &Inst) -> bool {
    inst.mnemonic == "BAR"
        && inst.opcode() == 0x0b1d
        && inst.word.bits(32, 32) == 0
        && matches!(inst.word.high() & 0x7ff_ffff, 0x1_0000 | 0)
        && inst.guard().is_none()
}

/// The guard of the current instruction as a bool (true when unguarded).
fn guard(cx: &mut Ctx<'_>) -> Id {
    match cx.inst.guard() {
        Some((p, n)) => cx.pred(u32::from(p), n),
        None => cx.m.c_bool(true),
    }
}

/// End of a turn: a running thread publishes the operands of the exchange instruction its next block starts
/// with (see `WarpState::xw`).
pub fn publish(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let Some(w) = cx.warp else {
        return Err(cx.refuse("warp instruction outside the turns form"));
    };
    let t = cx.t;
    let i = cx.inst;
    let g = guard(cx);
    let gbit = cx.bool_to_u32(g);
    let mut bits = gbit;
    match i.mnemonic {
        "SHFL" | "REDUX" | "MATCH" => {
            let ra = i.bits(24, 8) as u8;
            let v = cx.reg(ra);
            let p = w.at(cx, w.x0, w.xw);
            cx.m.store(p, v);
            if i.mnemonic == "MATCH" && i.bit(73) {
                let v1 = cx.reg(ra.wrapping_add(1));
                let p1 = w.at(cx, w.x1, w.xw);
                cx.m.store(p1, v1);
            }
        }
        "VOTE" | "VOTEU" => {
            let p = cx.pred(i.bits(87, 3), i.bit(90));
            let pb = cx.bool_to_u32(p);
            let two = cx.u32c(2);
            let pb2 = cx.op2(Op::IMul, pb, two);
            bits = cx.op2(Op::BitwiseOr, bits, pb2);
        }
        "R2UR" => {
            let v = cx.reg(i.bits(24, 8) as u8);
            let p = w.at(cx, w.x0, w.xw);
            cx.m.store(p, v);
        }
        "BRA" => {
            // Taking part: the guard and the condition predicate.
            let c = branch_predicates(cx, &i);
            bits = cx.bool_to_u32(c);
        }
        m if tensor::is_tensor(m) => {
            let vals = tensor::operands(cx)?;
            if vals.len() as u32 > w.xo_words {
                return Err(cx.refuse("tensor operands wider than the kernel's exchange width"));
            }
            let k = cx.u32c(w.xo_words);
            let row = cx.op2(Op::IMul, w.xw, k);
            for (n, v) in vals.into_iter().enumerate() {
                let o = cx.u32c(n as u32);
                let i = cx.op2(Op::IAdd, row, o);
                let p = w.at(cx, w.xo, i);
                cx.m.store(p, v);
            }
        }
        _ => return Err(cx.refuse("not an exchange instruction")),
    }
    let _ = t;
    let p = w.at(cx, w.xg, w.xw);
    cx.m.store(p, bits);
    Ok(())
}

/// Lowers a warp instruction in phase B; `Ok(false)` for other mnemonics (or outside the turns form).
pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    if cx.warp.is_none() {
        return Ok(false);
    }
    match m {
        "SHFL" => shfl(cx)?,
        "VOTE" | "VOTEU" => vote(cx)?,
        "MATCH" => match_(cx)?,
        "REDUX" => redux(cx)?,
        "R2UR" if is_r2ur_uniformity(&cx.inst) => r2ur_uniformity(cx)?,
        // The wait happened in the scheduler (see `sync_mask`); `.EXCLUSIVE` narrows the thread's warp.
        "WARPSYNC" => {
            if let Some(e) = cx.warp.and_then(|w| w.excl) {
                e.warpsync(cx);
            }
        }
        "BSYNC" => {
            if let Some(e) = cx.warp.and_then(|w| w.excl) {
                e.bsync(cx)?;
            }
        }
        "BSSY" => {
            if cx.inst.bits(87, 4) != 7 {
                return Err(cx.refuse("BSSY with a predicate operand not translated yet"));
            }
            let w = cx.warp.expect("checked");
            let n = cx.inst.bits(16, 4);
            let b = breg(cx, n)?;
            let mut g = cx.m.load(cx.t.u32, w.group);
            if let Some(e) = w.excl {
                // Inside an exclusive region the barrier's lanes are the thread's warp, not the whole group.
                g = e.restrict(cx, g);
                e.bssy(cx)?;
            }
            cx.m.store(b, g);
            let k = cx.u32c(!(1u32 << n));
            let v = cx.m.load(cx.t.u32, w.brk);
            let v = cx.op2(Op::BitwiseAnd, v, k);
            cx.m.store(w.brk, v);
        }
        "BREAK" => {
            // The thread leaves convergence barrier Bn: threads at `BSYNC Bn` no longer wait for it.
            let w = cx.warp.expect("checked");
            let i = cx.inst;
            let n = i.bits(16, 4);
            let t = cx.t;
            let mut take = cx.m.c_bool(true);
            if i.bits(87, 3) != 7 || i.bit(90) {
                take = cx.pred(i.bits(87, 3), i.bit(90));
            }
            let bit = cx.u32c(1 << n);
            let zero = cx.u32c(0);
            let add = cx.sel(take, bit, zero);
            let v = cx.m.load(t.u32, w.brk);
            let v = cx.op2(Op::BitwiseOr, v, add);
            cx.m.store(w.brk, v);
        }
        "BMOV" => bmov(cx)?,
        "BAR" => bar(cx)?,
        "B2R" => b2r(cx)?,
        "ATOMS" if cx.inst.opcode() == 0x1f8c && cx.inst.bits(87, 4) == 9 => arrive(cx)?,
        m if tensor::is_tensor(m) => tensor_turns(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `BMOV.32[.CLEAR] Rd, Bn` / `BMOV.32 Bn, Rs|imm` in the turns form: ptxas saves a convergence barrier that a
/// callee reuses (`BMOV.32.CLEAR R22, B6` before the callee's `BSSY B6`, `BMOV.32 B6, R22` after its `BSYNC`).
/// A thread's view of Bn is its mask (`breg`) less its own lane once it left the barrier with BREAK (brk bit n):
/// the read gives that view, `.CLEAR` then empties the barrier, the write sets the mask and the thread's brk bit
/// from whether its lane is in the value. (SM86 keeps one warp-wide mask; lanes that broke differ only in their
/// own bit, which is the only bit a thread's restore looks at.)
fn bmov(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    if w.excl.is_some() {
        return Err(cx.refuse("BMOV in a kernel with WARPSYNC.EXCLUSIVE not translated yet"));
    }
    let i = cx.inst;
    let n = i.bits(24, 6);
    if n > 15 {
        return Err(cx.refuse("BMOV of a thread-state register (not a convergence barrier) not translated yet"));
    }
    let b = breg(cx, n)?;
    let t = cx.t;
    let one = cx.u32c(1);
    let me = cx.op2(Op::ShiftLeftLogical, one, w.lane);
    let nbit = cx.u32c(1 << n);
    let zero = cx.u32c(0);
    let brk = cx.m.load(t.u32, w.brk);
    match (i.opcode(), i.bit(84)) {
        (0x0355, clear) => {
            let mask = cx.m.load(t.u32, b);
            let left = cx.op2(Op::BitwiseAnd, brk, nbit);
            let left = cx.m.bin(Op::INotEqual, t.bool, left, zero);
            let not_me = cx.not(me);
            let without = cx.op2(Op::BitwiseAnd, mask, not_me);
            let v = cx.sel(left, without, mask);
            cx.set_reg(i.bits(16, 8) as u8, v);
            if clear {
                cx.m.store(b, zero);
                let keep = cx.u32c(!(1u32 << n));
                let v = cx.op2(Op::BitwiseAnd, brk, keep);
                cx.m.store(w.brk, v);
            }
        }
        (0x0356 | 0x0956, false) => {
            let v = if i.opcode() == 0x0356 { cx.reg(i.bits(32, 8) as u8) } else { cx.u32c(i.bits(32, 32)) };
            cx.m.store(b, v);
            let mine = cx.op2(Op::BitwiseAnd, v, me);
            let out = cx.m.bin(Op::IEqual, t.bool, mine, zero);
            let keep = cx.u32c(!(1u32 << n));
            let cleared = cx.op2(Op::BitwiseAnd, brk, keep);
            let set = cx.op2(Op::BitwiseOr, brk, nbit);
            let v = cx.sel(out, set, cleared);
            cx.m.store(w.brk, v);
        }
        _ => return Err(cx.refuse("BMOV form not translated yet")),
    }
    Ok(())
}

/// A tensor instruction in the turns form: other lanes' operand words come from the read half of `xo`.
fn tensor_turns(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    if w.xo_words == 0 {
        return Err(cx.refuse("tensor instruction without exchanged operands"));
    }
    let mut words = move |cx: &mut Ctx<'_>, word: u32, lane: Id| -> Id {
        let t = cx.t;
        let idx = cx.op2(Op::IAdd, w.base, lane);
        // A lane beyond a partial last warp reads the thread's own words.
        let exists = cx.m.bin(Op::ULessThan, t.bool, idx, w.total);
        let idx = cx.sel(exists, idx, w.tid);
        let i = cx.op2(Op::IAdd, idx, w.xr);
        let k = cx.u32c(w.xo_words);
        let i = cx.op2(Op::IMul, i, k);
        let o = cx.u32c(word);
        let i = cx.op2(Op::IAdd, i, o);
        let p = w.at(cx, w.xo, i);
        cx.m.load(t.u32, p)
    };
    tensor::lower(cx, w.lane, &mut words)
}

/// Emits `for l in 0..32 { if mask & (1 << l) != 0 { body(l, 1 << l) } }` over the lanes of a warp mask (a
/// u32 value).
pub fn for_lanes_in(
    cx: &mut Ctx<'_>,
    mask: Id,
    mut body: impl FnMut(&mut Ctx<'_>, Id, Id) -> Result<(), TranslateError>,
) -> Result<(), TranslateError> {
    let t = cx.t;
    emit_for(cx, 32, |cx, l| {
        let one = cx.u32c(1);
        let zero = cx.u32c(0);
        let bit = cx.op2(Op::ShiftLeftLogical, one, l);
        let inb = cx.op2(Op::BitwiseAnd, mask, bit);
        let c = cx.m.bin(Op::INotEqual, t.bool, inb, zero);
        let merge = cx.begin_if(c);
        body(cx, l, bit)?;
        cx.end_if(merge);
        Ok(())
    })
}

/// Runs `body(cx, lane, bit, index, xg)` for each lane of the running group: `bit` is the lane's bit in the
/// warp mask, `index` its workgroup-array index, `xg` the word it published in `xg` (bit 0: its guard held).
fn for_group_lanes(
    cx: &mut Ctx<'_>,
    w: WarpState,
    mut body: impl FnMut(&mut Ctx<'_>, Id, Id, Id, Id) -> Result<(), TranslateError>,
) -> Result<(), TranslateError> {
    let t = cx.t;
    let mut g = cx.m.load(t.u32, w.group);
    if let Some(e) = w.excl {
        // After WARPSYNC.EXCLUSIVE only the lanes of the thread's mask run the instruction with it.
        g = e.restrict(cx, g);
    }
    for_lanes_in(cx, g, |cx, l, bit| {
        let idx = cx.op2(Op::IAdd, w.base, l);
        let pg = w.xat(cx, w.xg, idx);
        let v = cx.m.load(t.u32, pg);
        body(cx, l, bit, idx, v)
    })
}

/// Mask of the group's lanes whose guard held for this instruction (published `xg` bit 0), and the mask
/// of those whose bit 1 is set.
fn gather_bits(cx: &mut Ctx<'_>, w: WarpState) -> Result<(Id, Id), TranslateError> {
    let t = cx.t;
    let zero = cx.u32c(0);
    let part = cx.m.local_var(t.fn_u32, Some(zero));
    let ones = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(part, zero);
    cx.m.store(ones, zero);
    for_group_lanes(cx, w, |cx, l, _, _, v| {
        let one = cx.u32c(1);
        let b0 = cx.op2(Op::BitwiseAnd, v, one);
        let two = cx.u32c(2);
        let b1 = cx.op2(Op::BitwiseAnd, v, two);
        let b1 = cx.op2(Op::ShiftRightLogical, b1, one);
        let b1 = cx.op2(Op::BitwiseAnd, b1, b0);
        let s0 = cx.op2(Op::ShiftLeftLogical, b0, l);
        let s1 = cx.op2(Op::ShiftLeftLogical, b1, l);
        let a = cx.m.load(t.u32, part);
        let a = cx.op2(Op::BitwiseOr, a, s0);
        cx.m.store(part, a);
        let o = cx.m.load(t.u32, ones);
        let o = cx.op2(Op::BitwiseOr, o, s1);
        cx.m.store(ones, o);
        Ok(())
    })?;
    let p = cx.m.load(t.u32, part);
    let o = cx.m.load(t.u32, ones);
    Ok((p, o))
}

fn vote(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    let (part, ballot) = gather_bits(cx, w)?;
    vote_results(cx, part, ballot)
}

/// VOTE/VOTEU's results from the lanes taking part (`part`) and those whose predicate holds (`ballot`).
pub(super) fn vote_results(cx: &mut Ctx<'_>, part: Id, ballot: Id) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let zero = cx.u32c(0);
    let p = match i.bits(72, 2) {
        0 => cx.m.bin(Op::IEqual, t.bool, ballot, part),
        1 => cx.m.bin(Op::INotEqual, t.bool, ballot, zero),
        2 => {
            let a = cx.m.bin(Op::IEqual, t.bool, ballot, part);
            let b = cx.m.bin(Op::IEqual, t.bool, ballot, zero);
            cx.m.bin(Op::LogicalOr, t.bool, a, b)
        }
        _ => return Err(cx.refuse("VOTE mode 3 is invalid")),
    };
    let pd = i.bits(81, 3);
    if i.mnemonic == "VOTEU" {
        let ur = i.bits(16, 6) as u8;
        cx.st.set_ureg(&mut cx.m, &t, ur, ballot);
        cx.st.set_upred(&mut cx.m, &t, pd as u8, p);
    } else {
        let rd = i.bits(16, 8) as u8;
        cx.set_reg(rd, ballot);
        cx.st.set_pred(&mut cx.m, &t, pd as u8, p);
    }
    Ok(())
}

fn match_(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    let t = cx.t;
    let i = cx.inst;
    let wide = i.bit(73);
    let ra = i.bits(24, 8) as u8;
    let mine0 = cx.reg(ra);
    let mine1 = if wide {
        cx.reg(ra.wrapping_add(1))
    } else {
        cx.u32c(0)
    };
    let zero = cx.u32c(0);
    let part = cx.m.local_var(t.fn_u32, Some(zero));
    let same = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(part, zero);
    cx.m.store(same, zero);
    for_group_lanes(cx, w, |cx, _, bit, idx, v| {
        let one = cx.u32c(1);
        let zero = cx.u32c(0);
        let b0 = cx.op2(Op::BitwiseAnd, v, one);
        let takes = cx.m.bin(Op::INotEqual, t.bool, b0, zero);
        let merge2 = cx.begin_if(takes);
        let a = cx.m.load(t.u32, part);
        let a = cx.op2(Op::BitwiseOr, a, bit);
        cx.m.store(part, a);
        let p0 = w.xat(cx, w.x0, idx);
        let v0 = cx.m.load(t.u32, p0);
        let mut eq = cx.m.bin(Op::IEqual, t.bool, v0, mine0);
        if wide {
            let p1 = w.xat(cx, w.x1, idx);
            let v1 = cx.m.load(t.u32, p1);
            let e1 = cx.m.bin(Op::IEqual, t.bool, v1, mine1);
            eq = cx.m.bin(Op::LogicalAnd, t.bool, eq, e1);
        }
        let add = cx.sel(eq, bit, zero);
        let s = cx.m.load(t.u32, same);
        let s = cx.op2(Op::BitwiseOr, s, add);
        cx.m.store(same, s);
        cx.end_if(merge2);
        Ok(())
    })?;
    let p = cx.m.load(t.u32, part);
    let s = cx.m.load(t.u32, same);
    match_results(cx, p, s)
}

/// MATCH's results from the lanes taking part (`p`) and those holding this thread's value (`s`).
pub(super) fn match_results(cx: &mut Ctx<'_>, p: Id, s: Id) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let any = i.bit(79);
    let zero = cx.u32c(0);
    let rd = i.bits(16, 8) as u8;
    if any {
        cx.set_reg(rd, s);
    } else {
        let all = cx.m.bin(Op::IEqual, t.bool, s, p);
        let v = cx.sel(all, p, zero);
        cx.set_reg(rd, v);
        cx.st.set_pred(&mut cx.m, &t, i.bits(81, 3) as u8, all);
    }
    Ok(())
}

/// The guard and the condition predicate (bits 89:87, negated by 90) of a branch, as one bool.
pub(super) fn branch_predicates(cx: &mut Ctx<'_>, i: &Inst) -> Id {
    let t = cx.t;
    let g = match i.guard() {
        Some((p, n)) => cx.pred(u32::from(p), n),
        None => cx.m.c_bool(true),
    };
    let (p, n) = (i.bits(87, 3), i.bit(90));
    if p == 7 && !n {
        g
    } else {
        let c = cx.pred(p, n);
        cx.m.bin(Op::LogicalAnd, t.bool, g, c)
    }
}

/// `R2UR Pd, URd, Ra` (see [`is_r2ur_uniformity`]), in turns: the lowest lane of the group whose guard held.
fn r2ur_uniformity(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    let t = cx.t;
    let (part, _) = gather_bits(cx, w)?;
    let glsl = cx.m.glsl();
    const FIND_I_LSB: u32 = 73;
    let first = cx.m.op(Op::ExtInst, t.u32, &[glsl, FIND_I_LSB, part]);
    let k31 = cx.u32c(31);
    let first = cx.op2(Op::BitwiseAnd, first, k31);
    let idx = cx.op2(Op::IAdd, w.base, first);
    let p = w.xat(cx, w.x0, idx);
    let v = cx.m.load(t.u32, p);
    uniformity_results(cx, v);
    Ok(())
}

/// R2UR's results once the taken value `first` is known: the UR, and whether this thread's `Ra` equals it.
pub(super) fn uniformity_results(cx: &mut Ctx<'_>, first: Id) {
    let t = cx.t;
    let i = cx.inst;
    let mine = cx.reg(i.bits(24, 8) as u8);
    let same = cx.m.bin(Op::IEqual, t.bool, mine, first);
    cx.st.set_ureg(&mut cx.m, &t, i.bits(16, 6) as u8, first);
    cx.st.set_pred(&mut cx.m, &t, i.bits(81, 3) as u8, same);
}

fn redux(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    let t = cx.t;
    let i = cx.inst;
    let op = i.bits(78, 3);
    let signed = i.bit(73);
    let Some(init) = redux_identity(op, signed) else {
        return Err(cx.refuse("REDUX operation is invalid"));
    };
    let initc = cx.u32c(init);
    let acc = cx.m.local_var(t.fn_u32, Some(initc));
    cx.m.store(acc, initc);
    for_group_lanes(cx, w, |cx, _, _, idx, v| {
        let one = cx.u32c(1);
        let zero = cx.u32c(0);
        let b0 = cx.op2(Op::BitwiseAnd, v, one);
        let takes = cx.m.bin(Op::INotEqual, t.bool, b0, zero);
        let merge2 = cx.begin_if(takes);
        let p0 = w.xat(cx, w.x0, idx);
        let x = cx.m.load(t.u32, p0);
        let a = cx.m.load(t.u32, acc);
        let r = redux_combine(cx, op, signed, a, x);
        cx.m.store(acc, r);
        cx.end_if(merge2);
        Ok(())
    })?;
    let r = cx.m.load(t.u32, acc);
    let ur = i.bits(16, 6) as u8;
    cx.st.set_ureg(&mut cx.m, &t, ur, r);
    Ok(())
}

/// The identity of REDUX operation `op` (bits 80:78: AND, OR, XOR, SUM, MIN, MAX; `signed`: `.S32`), or
/// `None` for an invalid operation.
pub(super) fn redux_identity(op: u32, signed: bool) -> Option<u32> {
    Some(match (op, signed) {
        (0, _) | (4, false) => u32::MAX,
        (4, true) => i32::MAX as u32,
        (5, true) => i32::MIN as u32,
        (1..=3, _) | (5, false) => 0,
        _ => return None,
    })
}

/// REDUX operation `op` applied to the running value `a` and a lane's `x`.
pub(super) fn redux_combine(cx: &mut Ctx<'_>, op: u32, signed: bool, a: Id, x: Id) -> Id {
    let t = cx.t;
    match op {
        0 => cx.op2(Op::BitwiseAnd, a, x),
        1 => cx.op2(Op::BitwiseOr, a, x),
        2 => cx.op2(Op::BitwiseXor, a, x),
        3 => cx.op2(Op::IAdd, a, x),
        _ => {
            let less = match (op, signed) {
                (4, false) => cx.m.bin(Op::ULessThan, t.bool, x, a),
                (4, true) => cx.m.bin(Op::SLessThan, t.bool, x, a),
                (_, false) => cx.m.bin(Op::UGreaterThan, t.bool, x, a),
                (_, true) => cx.m.bin(Op::SGreaterThan, t.bool, x, a),
            };
            cx.sel(less, x, a)
        }
    }
}

fn shfl(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    let t = cx.t;
    let i = cx.inst;
    let (src, ok) = shfl_source(cx, w.lane)?;
    let idx = cx.op2(Op::IAdd, w.base, src);
    // A source lane beyond a partial last warp reads the thread's own value.
    let exists = cx.m.bin(Op::ULessThan, t.bool, idx, w.total);
    let idx = cx.sel(exists, idx, w.tid);
    let p = w.xat(cx, w.x0, idx);
    let v = cx.m.load(t.u32, p);
    let rd = i.bits(16, 8) as u8;
    cx.set_reg(rd, v);
    cx.st.set_pred(&mut cx.m, &t, i.bits(81, 3) as u8, ok);
    Ok(())
}

/// SHFL's source lane for the thread in `lane` (its own lane when out of range) and whether the source was
/// in range (the predicate output).
pub(super) fn shfl_source(cx: &mut Ctx<'_>, lane: Id) -> Result<(Id, Id), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let (b, c) = match i.opcode() {
        0x0389 => {
            let b = cx.reg(i.bits(32, 8) as u8);
            let c = cx.reg(i.bits(64, 8) as u8);
            (b, c)
        }
        0x0589 => {
            let b = cx.reg(i.bits(32, 8) as u8);
            (b, cx.u32c(i.bits(40, 13)))
        }
        0x0989 => {
            let c = cx.reg(i.bits(64, 8) as u8);
            (cx.u32c(i.bits(53, 5)), c)
        }
        0x0f89 => (cx.u32c(i.bits(53, 5)), cx.u32c(i.bits(40, 13))),
        _ => return Err(cx.refuse("SHFL form not translated yet")),
    };
    let k31 = cx.u32c(31);
    let k8 = cx.u32c(8);
    let bval = cx.op2(Op::BitwiseAnd, b, k31);
    let clamp = cx.op2(Op::BitwiseAnd, c, k31);
    let seg = cx.op2(Op::ShiftRightLogical, c, k8);
    let seg = cx.op2(Op::BitwiseAnd, seg, k31);
    let nseg = cx.not(seg);
    let min_lane = cx.op2(Op::BitwiseAnd, lane, seg);
    let cl = cx.op2(Op::BitwiseAnd, clamp, nseg);
    let max_lane = cx.op2(Op::BitwiseOr, min_lane, cl);
    let (j, ok) = match i.bits(58, 2) {
        1 => {
            let j = cx.op2(Op::ISub, lane, bval);
            (j, cx.m.bin(Op::SGreaterThanEqual, t.bool, j, max_lane))
        }
        2 => {
            let j = cx.op2(Op::IAdd, lane, bval);
            (j, cx.m.bin(Op::SLessThanEqual, t.bool, j, max_lane))
        }
        3 => {
            let j = cx.op2(Op::BitwiseXor, lane, bval);
            (j, cx.m.bin(Op::SLessThanEqual, t.bool, j, max_lane))
        }
        _ => {
            let bn = cx.op2(Op::BitwiseAnd, bval, nseg);
            let j = cx.op2(Op::BitwiseOr, min_lane, bn);
            (j, cx.m.bin(Op::SLessThanEqual, t.bool, j, max_lane))
        }
    };
    let src = cx.sel(ok, j, lane);
    let src = cx.op2(Op::BitwiseAnd, src, k31);
    Ok((src, ok))
}

/// `BAR` operands: (barrier id, thread count or 0 for the whole block).
pub(super) fn bar_operands(cx: &mut Ctx<'_>) -> Result<(Id, Id), TranslateError> {
    let i = cx.inst;
    let k15 = cx.u32c(15);
    Ok(match i.opcode() {
        0x0b1d => (cx.u32c(i.bits(54, 4)), cx.u32c(i.bits(42, 12))),
        0x051d => {
            let r = cx.reg(i.bits(32, 8) as u8);
            (cx.op2(Op::BitwiseAnd, r, k15), cx.u32c(i.bits(42, 12)))
        }
        0x091d => {
            let r = cx.reg(i.bits(32, 8) as u8);
            (cx.u32c(i.bits(54, 4)), r)
        }
        _ => return Err(cx.refuse("barrier with register id and count not translated yet")),
    })
}

/// BAR: counts this thread's arrival (and its `.RED` predicate); SYNC and RED then wait.
fn bar(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    let t = cx.t;
    let i = cx.inst;
    let kind = i.bits(77, 2);
    if kind == 3 {
        return Err(cx.refuse("BAR.SCAN not translated yet"));
    }
    let (id, count) = bar_operands(cx)?;
    let scope = cx.u32c(Scope::Workgroup as u32);
    let relaxed = cx.u32c(0);
    let one = cx.u32c(1);
    let pa = w.ctl_at(cx, ctl::ARRIVED, Some(id));
    cx.m.op(Op::AtomicIAdd, t.u32, &[pa, scope, relaxed, one]);
    let pe = w.ctl_at(cx, ctl::EXPECTED, Some(id));
    cx.m.op(Op::AtomicExchange, t.u32, &[pe, scope, relaxed, count]);
    let op = if kind == 2 {
        let p = cx.pred(i.bits(87, 3), i.bit(90));
        let pv = cx.bool_to_u32(p);
        let pr = w.ctl_at(cx, ctl::REDUCED, Some(id));
        cx.m.op(Op::AtomicIAdd, t.u32, &[pr, scope, relaxed, pv]);
        1 + i.bits(74, 2)
    } else {
        0
    };
    if kind != 1 {
        let st = cx.u32c(STATUS_WAITING);
        cx.m.store(w.status, st);
        cx.m.store(w.bar_id, id);
        cx.m.store(w.bar_expected, count);
        let opc = cx.u32c(op);
        cx.m.store(w.bar_op, opc);
        let pc = cx.u32c(i.offset);
        cx.m.store(w.bar_pc, pc);
    }
    Ok(())
}

fn b2r(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let w = cx.warp.expect("checked");
    let t = cx.t;
    let i = cx.inst;
    if i.opcode() != 0x031c || i.bits(77, 2) != 2 {
        return Err(cx.refuse("B2R form not translated yet (only B2R.RESULT)"));
    }
    let v = cx.m.load(t.u32, w.bar_count);
    let p = cx.m.load(t.bool, w.bar_pred);
    cx.set_reg(i.bits(16, 8) as u8, v);
    cx.st.set_pred(&mut cx.m, &t, i.bits(81, 3) as u8, p);
    Ok(())
}

/// Phase A for a thread waiting at a barrier: released when the arrivals reach the expected count; then
/// `B2R.RESULT`'s values are set. Returns whether it was released (bool value).
pub fn try_release(cx: &mut Ctx<'_>, alive: Id) -> Id {
    let w = cx.warp.expect("turns form");
    let t = cx.t;
    let id = cx.m.load(t.u32, w.bar_id);
    let e = cx.m.load(t.u32, w.bar_expected);
    let zero = cx.u32c(0);
    let whole = cx.m.bin(Op::IEqual, t.bool, e, zero);
    let e = cx.sel(whole, alive, e);
    let pa = w.ctl_at(cx, ctl::ARRIVED, Some(id));
    let a = cx.m.load(t.u32, pa);
    let done = cx.m.bin(Op::UGreaterThanEqual, t.bool, a, e);
    let merge = cx.begin_if(done);
    let pr = w.ctl_at(cx, ctl::REDUCED, Some(id));
    let r = cx.m.load(t.u32, pr);
    let op = cx.m.load(t.u32, w.bar_op);
    let two = cx.u32c(2);
    let is_and = cx.m.bin(Op::IEqual, t.bool, op, two);
    let all = cx.m.bin(Op::IEqual, t.bool, r, e);
    let any = cx.m.bin(Op::INotEqual, t.bool, r, zero);
    let p = cx.m.select(t.bool, is_and, all, any);
    cx.m.store(w.bar_count, r);
    cx.m.store(w.bar_pred, p);
    let run = cx.u32c(STATUS_RUNNING);
    cx.m.store(w.status, run);
    cx.end_if(merge);
    done
}

/// The mask a thread at the start of the block of `first` waits for before it runs (BSYNC: its convergence
/// barrier; WARPSYNC: the operand), or `None` when the block does not wait.
pub fn sync_mask(cx: &mut Ctx<'_>, first: &Inst) -> Result<Option<Id>, TranslateError> {
    cx.inst = *first;
    let t = cx.t;
    let mask = match first.mnemonic {
        "BSYNC" => {
            let b = breg(cx, first.bits(16, 4))?;
            cx.m.load(t.u32, b)
        }
        "WARPSYNC" => match first.opcode() {
            0x0948 => cx.u32c(first.bits(32, 32)),
            0x0348 => cx.reg(first.bits(32, 8) as u8),
            0x1d48 => cx.st.ureg(&mut cx.m, &t, first.bits(32, 6) as u8),
            _ => return Err(cx.refuse("WARPSYNC form not translated yet")),
        },
        _ => return Ok(None),
    };
    let g = guard(cx);
    let extra = {
        let p = first.bits(87, 3);
        let n = first.bit(90);
        if p == 7 && !n {
            None
        } else {
            Some(cx.pred(p, n))
        }
    };
    let g = match extra {
        Some(e) => cx.m.bin(Op::LogicalAnd, t.bool, g, e),
        None => g,
    };
    let zero = cx.u32c(0);
    Ok(Some(cx.sel(g, mask, zero)))
}

/// `BRA.DIV` / `BRA.CONV` on a uniform register: whether the branch is taken (before its guard).
pub fn divergence_branch(cx: &mut Ctx<'_>, last: &Inst) -> Result<Id, TranslateError> {
    let t = cx.t;
    let mode = last.bits(32, 2) | (last.bits(85, 2) << 2);
    let ur = last.bits(24, 6) as u8;
    let mut mask = cx.st.ureg(&mut cx.m, &t, ur);
    if last.bit(30) {
        mask = cx.not(mask);
    }
    // The warp's live lanes, and those taking part (guard and condition true; see `is_divergence_branch`):
    // published in turns, a ballot as subgroups.
    let (live, taking) = match (cx.warp, cx.subgroup) {
        (Some(w), _) => {
            let live = cx.m.load(t.u32, w.live);
            let (g, _) = gather_bits(cx, w)?;
            (live, g)
        }
        (None, Some(sg)) => super::subgroup::divergence_lanes(cx, sg, last),
        (None, None) => {
            return Err(cx.refuse("BRA on a uniform register (warp divergence test) outside a warp form"))
        }
    };
    let ng = cx.not(taking);
    let a = cx.op2(Op::BitwiseAnd, mask, live);
    let outside = cx.op2(Op::BitwiseAnd, a, ng);
    let zero = cx.u32c(0);
    let diverged = cx.m.bin(Op::INotEqual, t.bool, outside, zero);
    match mode {
        2 => Ok(diverged),
        3 => Ok(cx.m.un(Op::LogicalNot, t.bool, diverged)),
        _ => Err(cx.refuse("uniform BRA form not translated yet")),
    }
}

/// `ATOMS.ARRIVE.64 Rd, [Ra + UR + imm]` (PTX `mbarrier.arrive`): returns the barrier's 64-bit state before
/// the arrival. The state word nvcc initialises is `{lo: 0x40000000 - count, hi: 0x80000000 - count}` and the
/// wait loop tests bit 31 of the high word (the phase) against the returned state: an arrival adds one to
/// the high word, and the arrival that completes the phase (low 31 bits wrap to 0) re-arms it with the count
/// the low word keeps (`0x80000000 - count = 0x40000000 + lo`).
pub(super) fn arrive(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let (lo, hi) = arrive_state(cx)?;
    let rd = cx.inst.bits(16, 8) as u8;
    if rd != 255 {
        cx.set_reg(rd, lo);
        cx.set_reg(rd.wrapping_add(1), hi);
    }
    Ok(())
}

/// The arrival of [`arrive`] at `[Ra (31:24) + UR (69:64) + imm24]`, returning the state words it saw (also
/// `ARRIVES.LDGSTSBAR.64`'s arrival, whose address fields are the same and which returns nothing).
pub(super) fn arrive_state(cx: &mut Ctx<'_>) -> Result<(Id, Id), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let ra = i.bits(24, 8) as u8;
    let ur = i.bits(64, 6) as u8;
    let mut a = cx.reg(ra);
    let u = cx.st.ureg(&mut cx.m, &t, ur);
    a = cx.op2(Op::IAdd, a, u);
    let off = super::memory::imm24(cx);
    if off != 0 {
        let k = cx.u32c(off as u32);
        a = cx.op2(Op::IAdd, a, k);
    }
    let (ptr, var, len, _) = super::memory::space(cx, super::memory::Space::Shared);
    let (ok, idx) = super::memory::space_check(cx, super::memory::Space::Shared, super::memory::Access::Atomic, a, 8, len);
    let zero = cx.u32c(0);
    let lo_v = cx.m.local_var(t.fn_u32, Some(zero));
    let hi_v = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(lo_v, zero);
    cx.m.store(hi_v, zero);
    let merge = cx.begin_if(ok);
    let plo = super::memory::space_ptr(cx, ptr, var, idx, 0);
    let phi = super::memory::space_ptr(cx, ptr, var, idx, 1);
    let scope = cx.u32c(Scope::Workgroup as u32);
    let sem = cx.u32c(semantics_acq_rel_wg());
    let relaxed = cx.u32c(0);
    let acquire = cx.u32c((MemorySemantics::ACQUIRE | MemorySemantics::WORKGROUP_MEMORY).bits());
    let lo = cx.m.op(Op::AtomicLoad, t.u32, &[plo, scope, acquire]);
    cx.m.store(lo_v, lo);
    // One atomic add on the high word; the arrival that completes the phase (its low 31 bits wrap to 0) adds
    // the re-arm count (a second atomic: no other thread of the phase can arrive in between).
    let one = cx.u32c(1);
    let old = cx.m.op(Op::AtomicIAdd, t.u32, &[phi, scope, sem, one]);
    cx.m.store(hi_v, old);
    let inc = cx.op2(Op::IAdd, old, one);
    let low31 = cx.u32c(0x7fff_ffff);
    let rest = cx.op2(Op::BitwiseAnd, inc, low31);
    let complete = cx.m.bin(Op::IEqual, t.bool, rest, zero);
    let m2 = cx.begin_if(complete);
    let base = cx.u32c(0x4000_0000);
    let rearm = cx.op2(Op::IAdd, base, lo);
    let rearm = cx.op2(Op::BitwiseAnd, rearm, low31);
    cx.m.op(Op::AtomicIAdd, t.u32, &[phi, scope, sem, rearm]);
    cx.end_if(m2);
    let _ = relaxed;
    cx.end_if(merge);
    let lo = cx.m.load(t.u32, lo_v);
    let hi = cx.m.load(t.u32, hi_v);
    Ok((lo, hi))
}
