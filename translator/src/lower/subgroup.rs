//! Warp-synchronous instructions on 32-wide subgroups: the fast path of issue 7, for devices whose subgroups
//! hold a whole warp (NVIDIA; others through subgroup-size control). The kernel keeps the structured form
//! (Beyond Relooper, reconverging at the `BSYNC`s) and each warp is one subgroup, so an instruction that
//! exchanges values between lanes is one subgroup operation over the invocations that reach it together —
//! the threads SM86 runs it with. Semantics are those of the turns form (`super::warp`, whose doc lists them);
//! only the transport differs:
//! - SHFL: `OpGroupNonUniformShuffle` from the lane the turns form computes (out of range, or beyond a partial
//!   last warp: the thread's own value).
//! - VOTE/VOTEU: `OpGroupNonUniformBallot` of the predicate and of `true` (the lanes taking part).
//! - MATCH: `.ALL` one shuffle from the lowest lane and a ballot; `.ANY` one shuffle and ballot per distinct
//!   value (per taking-part lane where WARPSYNC.EXCLUSIVE masks differ), comparing 32 or 64 bits.
//! - REDUX: `OpGroupNonUniform{BitwiseAnd,BitwiseOr,BitwiseXor,IAdd,UMin,SMin,UMax,SMax}` (Reduce).
//! - BRA.DIV/BRA.CONV: the mask's existing lanes that are not in the ballot of the branch's guard and
//!   condition (lanes that exited count as diverged: nvcc's divergent path waits for the mask and then runs
//!   the same operation, so both answers give the same results).
//! - LDSM, MOVM, HMMA, IMMA, DMMA: the fragment semantics of `super::tensor`, reading other lanes' operand
//!   words with shuffles of this thread's operand registers.
//! - WARPSYNC, and LDSM before it reads: a subgroup-scope memory barrier, so a lane sees the shared-memory
//!   stores the other lanes made before (lockstep on SM86, not promised by Vulkan). `WARPSYNC.EXCLUSIVE`
//!   narrows the lanes that take part to the thread's mask until `BSYNC` (`super::warp_exclusive`): in such
//!   kernels VOTE, MATCH, R2UR and the divergence branches mask their ballots, and REDUX is one shuffle from
//!   each active lane combined over the mask.
//! - R2UR with a predicate output: `OpGroupNonUniformBroadcastFirst`, the predicate saying whether the
//!   thread's value equals it.
//! - BAR.SYNC 0 for the whole block, unguarded: `OpControlBarrier`. BAR.RED for the whole block
//!   (`__syncthreads_count/and/or`): an atomic sum between two barriers, double-buffered so that the next
//!   reduction never meets a stale sum. Named, counted or guarded barriers, BAR.ARV and counted BAR.RED,
//!   which only some warps reach: a workgroup word per barrier id holding the arrivals (bits 15:0) and a
//!   generation (bits 31:16), plus two `.RED` sums per id by generation parity; the arrival that completes a
//!   generation starts the next and waiting threads spin until the generation moves (bounded: after
//!   [`SPIN_LIMIT`] polls the launch ends with a no-progress fault instead of hanging the device). A barrier
//!   without a thread count expects the threads of the block that have not exited: an exiting thread counts
//!   itself out in a workgroup word first (a named barrier reads it when a thread arrives, so a thread that
//!   exits while others already wait there is not seen by them).
//!
//! Lane numbering: the lane of a thread is its linear thread index modulo 32 (what `SR_LANEID` reads) and
//! must be its subgroup invocation id. Every driver we know lays invocations out that way, but Vulkan does not
//! promise it, so the entry checks it and a launch where it does not hold ends with a subgroup-layout fault
//! (`abi::FAULT_KIND_SUBGROUP_LAYOUT`) rather than shuffling between the wrong threads.

use super::Ctx;
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::{BuiltIn, Capability, Decoration, Id, LoopControl, MemorySemantics, Op, Scope, StorageClass, Type};

/// Polls of a named barrier's word before the launch gives up with a no-progress fault.
pub const SPIN_LIMIT: u32 = 1 << 24;

/// `VkSubgroupFeatureFlags` bits the fast path needs (basic, vote, arithmetic, ballot, shuffle).
pub const REQUIRED_OPERATIONS: u32 = 0x1 | 0x2 | 0x4 | 0x8 | 0x10;

/// Word layout of the fast path's workgroup control array.
mod ctl {
    /// Two `.RED` sums (double-buffered by the thread's reduction parity).
    pub const REDUCED: u32 = 0;
    /// One word per barrier id (16): arrivals in bits 15:0, generation in bits 31:16.
    pub const NAMED: u32 = 2;
    /// Two `.RED` sums per barrier id (by generation parity) for counted reductions.
    pub const NAMED_SUMS: u32 = 18;
    /// Threads of the block that have exited.
    pub const EXITED: u32 = 50;
    pub const WORDS: u32 = 51;
}

/// Ids of the fast path's per-thread and per-workgroup state.
#[derive(Debug, Clone, Copy)]
pub struct SubgroupState {
    /// This thread's lane (value).
    pub lane: Id,
    /// The lanes of this thread's warp that exist in the block (value; less than 32 only in a partial last
    /// warp).
    pub exists: Id,
    /// Threads in the block (spec-constant expression).
    pub total: Id,
    /// Workgroup u32 array of `ctl::WORDS`, zero-initialised, and the Workgroup u32 pointer type.
    ctl: Id,
    wg_ptr: Id,
    /// Function u32: which of the two `.RED` sums this thread's next reduction uses.
    red_parity: Id,
    /// Function u32 / bool: what `B2R.RESULT` reads.
    bar_count: Id,
    bar_pred: Id,
    /// The thread's `WARPSYNC.EXCLUSIVE` state (`super::warp_exclusive`; only in kernels that have one).
    excl: Option<super::warp_exclusive::Exclusive>,
}

/// Whether the device can run warps as subgroups: 32-wide subgroups (by default or through subgroup-size
/// control) with every operation the fast path uses, in compute shaders.
pub fn device_supports(p: &abi::DeviceProfile) -> bool {
    let size = p.subgroup_size == abi::WARP_SIZE
        || (p.subgroup_size_control && p.min_subgroup_size <= abi::WARP_SIZE && abi::WARP_SIZE <= p.max_subgroup_size);
    size && p.subgroup_operations & REQUIRED_OPERATIONS == REQUIRED_OPERATIONS
}

/// A target known only to hold a warp in a subgroup: 32-wide subgroups with the operations the subgroup form
/// uses, and the float modes a translation without a device assumes (every desktop driver offers them). For
/// offline translation (`sassport translate --warp-subgroups`) and tests; a runtime gives its device's profile.
pub fn warp_subgroup_profile() -> abi::DeviceProfile {
    abi::DeviceProfile {
        subgroup_size: abi::WARP_SIZE,
        min_subgroup_size: abi::WARP_SIZE,
        max_subgroup_size: abi::WARP_SIZE,
        subgroup_operations: REQUIRED_OPERATIONS,
        float_controls: abi::FloatControls { signed_zero_inf_nan_preserve: [true; 3], ..Default::default() },
        ..Default::default()
    }
}

fn builtin_u32(cx: &mut Ctx<'_>, b: BuiltIn) -> Id {
    let t = cx.t;
    let ptr = cx.m.t_ptr(StorageClass::Input, t.u32);
    let var = cx.m.global_var(ptr, StorageClass::Input, None);
    cx.m.decorate(var, Decoration::BuiltIn, &[b as u32]);
    cx.m.load(t.u32, var)
}

fn spec_op(cx: &mut Ctx<'_>, op: Op, a: Id, b: Id) -> Id {
    let t = cx.t;
    let id = cx.m.id();
    cx.m.global_inst(Op::SpecConstantOp, &[t.u32, id, op as u32, a, b]);
    id
}

/// Emits the fast path's state at the kernel's entry (in the current block) and the lane-layout check, and
/// installs it in `cx`. `dims` are the block-size spec constants.
pub fn setup(cx: &mut Ctx<'_>, dims: [Id; 3], prog: &crate::program::Program) {
    let t = cx.t;
    for c in [
        Capability::GroupNonUniform,
        Capability::GroupNonUniformVote,
        Capability::GroupNonUniformArithmetic,
        Capability::GroupNonUniformBallot,
        Capability::GroupNonUniformShuffle,
    ] {
        cx.m.capability(c);
    }
    let sxy = spec_op(cx, Op::IMul, dims[0], dims[1]);
    let total = spec_op(cx, Op::IMul, sxy, dims[2]);
    let k = cx.u32c(ctl::WORDS);
    let arr = cx.m.ty(Type::Array(t.u32, k, None));
    let arr_ptr = cx.m.t_ptr(StorageClass::Workgroup, arr);
    let null = cx.m.c_null(arr);
    let ctl = cx.m.global_var(arr_ptr, StorageClass::Workgroup, Some(null));
    let wg_ptr = cx.m.t_ptr(StorageClass::Workgroup, t.u32);

    let lane = builtin_u32(cx, BuiltIn::SubgroupLocalInvocationId);
    let sid = builtin_u32(cx, BuiltIn::SubgroupId);
    let tid = cx.linear_thread_index(dims);
    let k32 = cx.u32c(32);
    let base = cx.op2(Op::IMul, sid, k32);
    let expect = cx.op2(Op::IAdd, base, lane);
    let bad = cx.m.bin(Op::INotEqual, t.bool, tid, expect);
    // A thread whose lane is not its subgroup invocation records the fault and ends.
    let fault = cx.m.id();
    let ok = cx.m.id();
    cx.m.selection_merge(ok);
    cx.m.branch_cond(bad, fault, ok);
    cx.m.label(fault);
    let pc = cx.u32c(cx.inst.offset);
    let addr = cx.m.c_u64(0);
    let size = cx.u32c(0);
    super::fault::record_fault(cx, abi::FAULT_KIND_SUBGROUP_LAYOUT, pc, addr, size);
    cx.m.op_void(Op::Return, &[]);
    cx.m.label(ok);

    // Lanes of a partial last warp: min(total - base, 32) of them.
    let rest = cx.op2(Op::ISub, total, base);
    let full = cx.m.bin(Op::UGreaterThanEqual, t.bool, rest, k32);
    let one = cx.u32c(1);
    let some = cx.op2(Op::ShiftLeftLogical, one, rest);
    let some = cx.op2(Op::ISub, some, one);
    let all = cx.u32c(u32::MAX);
    let exists = cx.sel(full, all, some);

    let zero = cx.m.c_u32(0);
    let red_parity = cx.m.local_var(t.fn_u32, Some(zero));
    let bar_count = cx.m.local_var(t.fn_u32, Some(zero));
    let fals = cx.m.c_bool(false);
    let bar_pred = cx.m.local_var(t.fn_bool, Some(fals));
    let excl = super::warp_exclusive::Exclusive::for_program(cx, prog);
    cx.subgroup = Some(SubgroupState { lane, exists, total, ctl, wg_ptr, red_parity, bar_count, bar_pred, excl });
}

/// Counts an exiting thread out of block-wide barriers (no-op outside the subgroup form).
pub fn exited(cx: &mut Ctx<'_>) {
    let Some(sg) = cx.subgroup else { return };
    let t = cx.t;
    let p = ctl_at(cx, sg, ctl::EXITED, None);
    let scope = cx.u32c(Scope::Workgroup as u32);
    let release = cx.u32c((MemorySemantics::RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits());
    let one = cx.u32c(1);
    cx.m.op(Op::AtomicIAdd, t.u32, &[p, scope, release, one]);
}

/// Threads of the block that have not exited (as far as this thread can see now).
fn live_threads(cx: &mut Ctx<'_>, sg: SubgroupState) -> Id {
    let t = cx.t;
    let p = ctl_at(cx, sg, ctl::EXITED, None);
    let scope = cx.u32c(Scope::Workgroup as u32);
    let acquire = cx.u32c((MemorySemantics::ACQUIRE | MemorySemantics::WORKGROUP_MEMORY).bits());
    let gone = cx.m.op(Op::AtomicLoad, t.u32, &[p, scope, acquire]);
    cx.op2(Op::ISub, sg.total, gone)
}

fn scope_subgroup(cx: &mut Ctx<'_>) -> Id {
    cx.u32c(Scope::Subgroup as u32)
}

/// The ballot (lanes 0..32) of a bool over the invocations running this instruction.
fn ballot(cx: &mut Ctx<'_>, p: Id) -> Id {
    let t = cx.t;
    let s = scope_subgroup(cx);
    let v = cx.m.op(Op::GroupNonUniformBallot, t.uvec4, &[s, p]);
    cx.m.op(Op::CompositeExtract, t.u32, &[v, 0])
}

/// Lanes running this instruction (whose guard held).
fn active(cx: &mut Ctx<'_>) -> Id {
    let yes = cx.m.c_bool(true);
    ballot(cx, yes)
}

fn shuffle(cx: &mut Ctx<'_>, v: Id, lane: Id) -> Id {
    let t = cx.t;
    let s = scope_subgroup(cx);
    cx.m.op(Op::GroupNonUniformShuffle, t.u32, &[s, v, lane])
}

/// Lowers a warp instruction on subgroups; `Ok(false)` for other mnemonics (or outside the fast path).
pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    let Some(sg) = cx.subgroup else {
        return Ok(false);
    };
    match m {
        "SHFL" => shfl(cx, sg)?,
        "VOTE" | "VOTEU" => vote(cx, sg)?,
        "MATCH" => match_(cx, sg)?,
        "REDUX" if sg.excl.is_some() => redux_exclusive(cx)?,
        "REDUX" => redux(cx)?,
        "BAR" => bar(cx, sg)?,
        "B2R" => {
            let i = cx.inst;
            if i.opcode() != 0x031c || i.bits(77, 2) != 2 {
                return Err(cx.refuse("B2R form not translated yet (only B2R.RESULT)"));
            }
            let t = cx.t;
            let v = cx.m.load(t.u32, sg.bar_count);
            let p = cx.m.load(t.bool, sg.bar_pred);
            cx.set_reg(i.bits(16, 8) as u8, v);
            cx.st.set_pred(&mut cx.m, &t, i.bits(81, 3) as u8, p);
        }
        "ATOMS" if cx.inst.opcode() == 0x1f8c && cx.inst.bits(87, 4) == 9 => super::warp::arrive(cx)?,
        "WARPSYNC" => {
            lane_memory_barrier(cx);
            if let Some(e) = sg.excl {
                e.warpsync(cx);
            }
        }
        // BSSY's predicate operand (bits 90:87, `BSSY Pn, Bn`) has no model; the turns form refuses it too.
        "BSSY" if cx.inst.bits(87, 4) != 7 => return Err(cx.refuse("BSSY with a predicate operand not translated yet")),
        "BSSY" if sg.excl.is_some() => sg.excl.expect("checked").bssy(cx)?,
        // A convergence barrier moved through a register would carry the exclusive state the model keeps.
        "BMOV" if sg.excl.is_some() => {
            return Err(cx.refuse("BMOV in a kernel with WARPSYNC.EXCLUSIVE not translated yet"))
        }
        "BSYNC" if sg.excl.is_some() => sg.excl.expect("checked").bsync(cx)?,
        m if super::tensor::is_tensor(m) => {
            if m == "LDSM" {
                // LDSM reads rows other lanes may just have stored (nvcc drops a full-warp __syncwarp).
                lane_memory_barrier(cx);
            }
            // Other lanes' operand words: shuffles of this thread's operand registers.
            let ops = super::tensor::operands(cx)?;
            let mut words = |cx: &mut Ctx<'_>, word: u32, lane: Id| -> Id {
                match ops.get(word as usize) {
                    Some(&v) => shuffle(cx, v, lane),
                    None => cx.u32c(0),
                }
            };
            super::tensor::lower(cx, sg.lane, &mut words)?;
        }
        "R2UR" if super::warp::is_r2ur_uniformity(&cx.inst) => {
            let t = cx.t;
            let v = cx.reg(cx.inst.bits(24, 8) as u8);
            let first = match sg.excl {
                // The lowest lane of the thread's exclusive warp.
                Some(e) => {
                    let part = active(cx);
                    let part = e.restrict(cx, part);
                    let glsl = cx.m.glsl();
                    const FIND_I_LSB: u32 = 73;
                    let lane = cx.m.op(Op::ExtInst, t.u32, &[glsl, FIND_I_LSB, part]);
                    let k31 = cx.u32c(31);
                    let lane = cx.op2(Op::BitwiseAnd, lane, k31);
                    shuffle(cx, v, lane)
                }
                None => {
                    let s = scope_subgroup(cx);
                    cx.m.op(Op::GroupNonUniformBroadcastFirst, t.u32, &[s, v])
                }
            };
            super::warp::uniformity_results(cx, first);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Orders this lane's shared and global memory accesses before its later ones for the other lanes of the
/// subgroup (SM86 runs a warp's lanes in lockstep, so a lane sees what the others stored before; Vulkan does
/// not promise it without a barrier). Memory only: the lanes need not all arrive.
fn lane_memory_barrier(cx: &mut Ctx<'_>) {
    let scope = cx.u32c(Scope::Subgroup as u32);
    let sem = cx.u32c(
        (MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY | MemorySemantics::UNIFORM_MEMORY).bits(),
    );
    cx.m.op_void(Op::MemoryBarrier, &[scope, sem]);
}

fn shfl(cx: &mut Ctx<'_>, sg: SubgroupState) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let (src, ok) = super::warp::shfl_source(cx, sg.lane)?;
    let one = cx.u32c(1);
    let zero = cx.u32c(0);
    let bit = cx.op2(Op::ShiftLeftLogical, one, src);
    let there = cx.op2(Op::BitwiseAnd, sg.exists, bit);
    let there = cx.m.bin(Op::INotEqual, t.bool, there, zero);
    let src = cx.sel(there, src, sg.lane);
    let v = cx.reg(i.bits(24, 8) as u8);
    let r = shuffle(cx, v, src);
    cx.set_reg(i.bits(16, 8) as u8, r);
    cx.st.set_pred(&mut cx.m, &t, i.bits(81, 3) as u8, ok);
    Ok(())
}

fn vote(cx: &mut Ctx<'_>, sg: SubgroupState) -> Result<(), TranslateError> {
    let i = cx.inst;
    let p = cx.pred(i.bits(87, 3), i.bit(90));
    let mut part = active(cx);
    let mut ones = ballot(cx, p);
    if let Some(e) = sg.excl {
        part = e.restrict(cx, part);
        ones = e.restrict(cx, ones);
    }
    super::warp::vote_results(cx, part, ones)
}

fn match_(cx: &mut Ctx<'_>, sg: SubgroupState) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let ra = i.bits(24, 8) as u8;
    let mine = MatchValue { lo: cx.reg(ra), hi: if i.bit(73) { Some(cx.reg(ra.wrapping_add(1))) } else { None } };
    let active = active(cx);
    let Some(e) = sg.excl else {
        let s = match_uniform(cx, mine, active)?;
        return super::warp::match_results(cx, active, s);
    };
    // After WARPSYNC.EXCLUSIVE only the lanes of the thread's mask count. When every running lane's mask
    // holds all running lanes (the usual case: the mask is a ballot), that is the plain match.
    let part = e.restrict(cx, active);
    let zero = cx.u32c(0);
    let same = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(same, zero);
    let whole = cx.m.bin(Op::IEqual, t.bool, part, active);
    let s = scope_subgroup(cx);
    let uniform = cx.m.op(Op::GroupNonUniformAll, t.bool, &[s, whole]);
    let merge = cx.begin_if(uniform);
    let r = match_uniform(cx, mine, active)?;
    cx.m.store(same, r);
    cx.end_if(merge);
    let split = cx.m.un(Op::LogicalNot, t.bool, uniform);
    let merge = cx.begin_if(split);
    let r = match_lanes(cx, mine, active, part)?;
    cx.m.store(same, r);
    cx.end_if(merge);
    let r = cx.m.load(t.u32, same);
    super::warp::match_results(cx, part, r)
}

/// This thread's MATCH operand: 32 bits, or 64 (`.U64`, the register pair).
#[derive(Clone, Copy)]
struct MatchValue {
    lo: Id,
    hi: Option<Id>,
}

impl MatchValue {
    /// Whether lane `l`'s value equals this thread's (every running invocation must run it: shuffles).
    fn equals_lane(self, cx: &mut Ctx<'_>, l: Id) -> Id {
        let t = cx.t;
        let v0 = shuffle(cx, self.lo, l);
        let mut eq = cx.m.bin(Op::IEqual, t.bool, v0, self.lo);
        if let Some(hi) = self.hi {
            let v1 = shuffle(cx, hi, l);
            let e1 = cx.m.bin(Op::IEqual, t.bool, v1, hi);
            eq = cx.m.bin(Op::LogicalAnd, t.bool, eq, e1);
        }
        eq
    }
}

/// The running lanes holding this thread's value, when all of them take part. `.ALL` only asks whether that
/// is every lane, which the lanes equal to the lowest lane's value tell (one shuffle and a ballot). `.ANY`:
/// one round per distinct value, each matching the lowest lane not yet matched (the lane-by-lane loop cost
/// the H200 32 shuffles per MATCH in `vote_loop_break`). Written-out lane loops keep the lane-by-lane form.
fn match_uniform(cx: &mut Ctx<'_>, mine: MatchValue, active: Id) -> Result<Id, TranslateError> {
    let t = cx.t;
    let glsl = cx.m.glsl();
    const FIND_I_LSB: u32 = 73;
    if !cx.inst.bit(79) {
        let first = cx.m.op(Op::ExtInst, t.u32, &[glsl, FIND_I_LSB, active]);
        let eq = mine.equals_lane(cx, first);
        return Ok(ballot(cx, eq));
    }
    if cx.loops.unroll_lanes {
        return match_lanes(cx, mine, active, active);
    }
    let zero = cx.u32c(0);
    let pending = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(pending, active);
    let same = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(same, zero);
    let (header, body, cont, merge) = (cx.m.id(), cx.m.id(), cx.m.id(), cx.m.id());
    cx.m.branch(header);
    cx.m.label(header);
    let left = cx.m.load(t.u32, pending);
    let go = cx.m.bin(Op::INotEqual, t.bool, left, zero);
    cx.m.loop_merge(merge, cont, LoopControl::DONT_UNROLL);
    cx.m.branch_cond(go, body, merge);
    cx.m.label(body);
    // `pending` is the same in every running invocation, so the round count is uniform.
    let lead = cx.m.op(Op::ExtInst, t.u32, &[glsl, FIND_I_LSB, left]);
    let eq = mine.equals_lane(cx, lead);
    let group = ballot(cx, eq);
    let old = cx.m.load(t.u32, same);
    let mine_now = cx.sel(eq, group, old);
    cx.m.store(same, mine_now);
    let rest = cx.m.un(Op::Not, t.u32, group);
    let left2 = cx.op2(Op::BitwiseAnd, left, rest);
    cx.m.store(pending, left2);
    cx.m.branch(cont);
    cx.m.label(cont);
    cx.m.branch(header);
    cx.m.label(merge);
    Ok(cx.m.load(t.u32, same))
}

/// The lanes of `part` holding this thread's value, one shuffle per active lane (32 at most; every
/// invocation runs every shuffle, the same set in each, so every one reaches each shuffle).
fn match_lanes(cx: &mut Ctx<'_>, mine: MatchValue, active: Id, part: Id) -> Result<Id, TranslateError> {
    let t = cx.t;
    let zero = cx.u32c(0);
    let same = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(same, zero);
    super::warp::for_lanes_in(cx, active, |cx, l, bit| {
        let zero = cx.u32c(0);
        let mut eq = mine.equals_lane(cx, l);
        if part != active {
            let inp = cx.op2(Op::BitwiseAnd, part, bit);
            let inp = cx.m.bin(Op::INotEqual, t.bool, inp, zero);
            eq = cx.m.bin(Op::LogicalAnd, t.bool, eq, inp);
        }
        let add = cx.sel(eq, bit, zero);
        let s = cx.m.load(t.u32, same);
        let s = cx.op2(Op::BitwiseOr, s, add);
        cx.m.store(same, s);
        Ok(())
    })?;
    Ok(cx.m.load(t.u32, same))
}

fn redux(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let v = cx.reg(i.bits(24, 8) as u8);
    let r = reduce_subgroup(cx, i.bits(78, 3), i.bit(73), v)?;
    cx.st.set_ureg(&mut cx.m, &t, i.bits(16, 6) as u8, r);
    Ok(())
}

/// REDUX operation `op` (bits 80:78; `signed` by bit 73) of `v` over the subgroup's active invocations.
fn reduce_subgroup(cx: &mut Ctx<'_>, op: u32, signed: bool, v: Id) -> Result<Id, TranslateError> {
    let t = cx.t;
    let op = match (op, signed) {
        (0, _) => Op::GroupNonUniformBitwiseAnd,
        (1, _) => Op::GroupNonUniformBitwiseOr,
        (2, _) => Op::GroupNonUniformBitwiseXor,
        (3, _) => Op::GroupNonUniformIAdd,
        (4, false) => Op::GroupNonUniformUMin,
        (4, true) => Op::GroupNonUniformSMin,
        (5, false) => Op::GroupNonUniformUMax,
        (5, true) => Op::GroupNonUniformSMax,
        _ => return Err(cx.refuse("REDUX operation is invalid")),
    };
    let s = scope_subgroup(cx);
    const REDUCE: u32 = 0;
    Ok(cx.m.op(op, t.u32, &[s, REDUCE, v]))
}

/// REDUX in a kernel with `WARPSYNC.EXCLUSIVE`: over the active lanes within the thread's mask. When every
/// running lane's mask holds all running lanes (a warp-uniform mask: `__reduce_add_sync(__activemask(), x)`,
/// a ballot), that is the subgroup's own reduction; otherwise one shuffle from each active lane (all
/// invocations run every shuffle; each combines only its mask's lanes). The shuffles made the H200 run
/// `vote_loop_break` 3.1x slower than its plain REDUX did before the model.
fn redux_exclusive(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let sg = cx.subgroup.expect("checked");
    let e = sg.excl.expect("checked");
    let t = cx.t;
    let i = cx.inst;
    let (op, signed) = (i.bits(78, 3), i.bit(73));
    let Some(init) = super::warp::redux_identity(op, signed) else {
        return Err(cx.refuse("REDUX operation is invalid"));
    };
    let v = cx.reg(i.bits(24, 8) as u8);
    let active = active(cx);
    let part = e.restrict(cx, active);
    let initc = cx.u32c(init);
    let acc = cx.m.local_var(t.fn_u32, Some(initc));
    cx.m.store(acc, initc);
    let whole = cx.m.bin(Op::IEqual, t.bool, part, active);
    let s = scope_subgroup(cx);
    let uniform = cx.m.op(Op::GroupNonUniformAll, t.bool, &[s, whole]);
    let merge = cx.begin_if(uniform);
    let r = reduce_subgroup(cx, op, signed, v)?;
    cx.m.store(acc, r);
    cx.end_if(merge);
    let split = cx.m.un(Op::LogicalNot, t.bool, uniform);
    let merge = cx.begin_if(split);
    super::warp::for_lanes_in(cx, active, |cx, l, bit| {
        let x = shuffle(cx, v, l);
        let a = cx.m.load(t.u32, acc);
        let r = super::warp::redux_combine(cx, op, signed, a, x);
        let zero = cx.u32c(0);
        let inp = cx.op2(Op::BitwiseAnd, part, bit);
        let inp = cx.m.bin(Op::INotEqual, t.bool, inp, zero);
        let r = cx.sel(inp, r, a);
        cx.m.store(acc, r);
        Ok(())
    })?;
    cx.end_if(merge);
    let r = cx.m.load(t.u32, acc);
    cx.st.set_ureg(&mut cx.m, &t, i.bits(16, 6) as u8, r);
    Ok(())
}

/// For `BRA.DIV`/`BRA.CONV` (`warp::divergence_branch`): the warp's existing lanes (exited lanes count as
/// live: see the module doc) and the ballot of the lanes taking part (guard and condition true).
pub(super) fn divergence_lanes(cx: &mut Ctx<'_>, sg: SubgroupState, last: &crate::program::Inst) -> (Id, Id) {
    let taking = super::warp::branch_predicates(cx, last);
    let mut lanes = ballot(cx, taking);
    if let Some(e) = sg.excl {
        lanes = e.restrict(cx, lanes);
    }
    (sg.exists, lanes)
}

fn ctl_at(cx: &mut Ctx<'_>, sg: SubgroupState, word: u32, offset: Option<Id>) -> Id {
    let w = cx.u32c(word);
    let i = match offset {
        Some(o) => cx.op2(Op::IAdd, w, o),
        None => w,
    };
    cx.m.access(sg.wg_ptr, sg.ctl, &[i])
}

fn block_barrier(cx: &mut Ctx<'_>) {
    let wg = cx.u32c(Scope::Workgroup as u32);
    let sem = cx.u32c((MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits());
    cx.m.op_void(Op::ControlBarrier, &[wg, wg, sem]);
}

/// BAR: SYNC, ARV and RED (POPC, AND, OR), with barrier ids and thread counts (see the module doc).
fn bar(cx: &mut Ctx<'_>, sg: SubgroupState) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let kind = i.bits(77, 2);
    if kind == 3 {
        return Err(cx.refuse("BAR.SCAN not translated yet"));
    }
    // Unguarded block-wide SYNC and RED are reached by every thread (OpControlBarrier); the rest count
    // arrivals in a workgroup word, which threads may reach apart.
    if super::warp::is_block_barrier(&i) {
        block_barrier(cx);
        return Ok(());
    }
    let guarded = i.guard().is_some();
    let (id, count) = super::warp::bar_operands(cx)?;
    let whole_block = !guarded && i.opcode() == 0x0b1d && i.bits(42, 12) == 0;
    if kind == 2 && whole_block {
        return reduction(cx, sg);
    }
    let zero = cx.u32c(0);
    let whole = cx.m.bin(Op::IEqual, t.bool, count, zero);
    let live = live_threads(cx, sg);
    let expected = cx.sel(whole, live, count);
    // Named or counted: the barrier's word, arrivals in bits 15:0 and generation in 31:16. A `.RED` adds its
    // predicate to the sum of its generation's parity before arriving; the arrival that completes a
    // generation clears the next one's sum, then moves the generation.
    let word = ctl_at(cx, sg, ctl::NAMED, Some(id));
    let scope = cx.u32c(Scope::Workgroup as u32);
    let acq_rel = cx.u32c((MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits());
    let acquire = cx.u32c((MemorySemantics::ACQUIRE | MemorySemantics::WORKGROUP_MEMORY).bits());
    let relaxed = cx.u32c(0);
    let one = cx.u32c(1);
    let k16 = cx.u32c(16);
    let two = cx.u32c(2);
    let sum_at = |cx: &mut Ctx<'_>, generation: Id| {
        let parity = cx.op2(Op::BitwiseAnd, generation, one);
        let base = cx.op2(Op::IMul, id, two);
        let at = cx.op2(Op::IAdd, base, parity);
        ctl_at(cx, sg, ctl::NAMED_SUMS, Some(at))
    };
    if kind == 2 {
        let before = cx.m.op(Op::AtomicLoad, t.u32, &[word, scope, acquire]);
        let g = cx.op2(Op::ShiftRightLogical, before, k16);
        let sum = sum_at(cx, g);
        let p = cx.pred(i.bits(87, 3), i.bit(90));
        let pv = cx.bool_to_u32(p);
        cx.m.op(Op::AtomicIAdd, t.u32, &[sum, scope, acq_rel, pv]);
    }
    let old = cx.m.op(Op::AtomicIAdd, t.u32, &[word, scope, acq_rel, one]);
    let low = cx.u32c(0xffff);
    let arrived = cx.op2(Op::BitwiseAnd, old, low);
    let arrived = cx.op2(Op::IAdd, arrived, one);
    let generation = cx.op2(Op::ShiftRightLogical, old, k16);
    let completes = cx.m.bin(Op::IEqual, t.bool, arrived, expected);
    let merge = cx.begin_if(completes);
    if kind == 2 {
        let g1 = cx.op2(Op::IAdd, generation, one);
        let next_sum = sum_at(cx, g1);
        cx.m.op_void(Op::AtomicStore, &[next_sum, scope, relaxed, zero]);
    }
    let next = cx.u32c(0x1_0000);
    let step = cx.op2(Op::ISub, next, expected);
    cx.m.op(Op::AtomicIAdd, t.u32, &[word, scope, acq_rel, step]);
    cx.end_if(merge);
    if kind == 1 {
        return Ok(());
    }
    // Wait until the generation this thread arrived in has completed.
    let polls = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(polls, zero);
    let header = cx.m.id();
    let body = cx.m.id();
    let cont = cx.m.id();
    let exit = cx.m.id();
    cx.m.branch(header);
    cx.m.label(header);
    cx.m.loop_merge(exit, cont, LoopControl::NONE);
    cx.m.branch(body);
    cx.m.label(body);
    let now = cx.m.op(Op::AtomicLoad, t.u32, &[word, scope, acquire]);
    let now_gen = cx.op2(Op::ShiftRightLogical, now, k16);
    let waiting = cx.m.bin(Op::IEqual, t.bool, now_gen, generation);
    let n = cx.m.load(t.u32, polls);
    let n1 = cx.op2(Op::IAdd, n, one);
    cx.m.store(polls, n1);
    let limit = cx.u32c(SPIN_LIMIT);
    let patient = cx.m.bin(Op::ULessThan, t.bool, n1, limit);
    let go_on = cx.m.bin(Op::LogicalAnd, t.bool, waiting, patient);
    cx.m.branch_cond(go_on, cont, exit);
    cx.m.label(cont);
    cx.m.branch(header);
    cx.m.label(exit);
    let stuck = cx.m.un(Op::LogicalNot, t.bool, patient);
    let stuck = cx.m.bin(Op::LogicalAnd, t.bool, stuck, waiting);
    let merge = cx.begin_if(stuck);
    let pc = cx.u32c(i.offset);
    let addr = cx.m.c_u64(0);
    super::fault::record_fault(cx, abi::FAULT_KIND_NO_PROGRESS, pc, addr, zero);
    super::warp::end_invocation(cx);
    cx.end_if(merge);
    if kind == 2 {
        let sum = sum_at(cx, generation);
        let r = cx.m.op(Op::AtomicLoad, t.u32, &[sum, scope, acquire]);
        reduction_results(cx, sg, r, expected);
    }
    Ok(())
}

/// What `B2R.RESULT` reads after a `.RED` whose predicates summed to `sum` over `expected` threads.
fn reduction_results(cx: &mut Ctx<'_>, sg: SubgroupState, sum: Id, expected: Id) {
    let t = cx.t;
    let zero = cx.u32c(0);
    let pred = if cx.inst.bits(74, 2) == 1 {
        cx.m.bin(Op::IEqual, t.bool, sum, expected)
    } else {
        cx.m.bin(Op::INotEqual, t.bool, sum, zero)
    };
    cx.m.store(sg.bar_count, sum);
    cx.m.store(sg.bar_pred, pred);
}

/// `BAR.RED.{POPC,AND,OR}` over the whole block: sum the predicate into this reduction's word, barrier, read
/// it and the threads still in the block (exited threads count themselves out before leaving), clear the
/// other word (the previous reduction's, whose readers have all passed this barrier's first half; every
/// thread clears it, as any may have exited), barrier. `B2R.RESULT` reads the count and the AND/OR predicate.
fn reduction(cx: &mut Ctx<'_>, sg: SubgroupState) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let p = cx.pred(i.bits(87, 3), i.bit(90));
    let pv = cx.bool_to_u32(p);
    let parity = cx.m.load(t.u32, sg.red_parity);
    let mine = ctl_at(cx, sg, ctl::REDUCED, Some(parity));
    let scope = cx.u32c(Scope::Workgroup as u32);
    let relaxed = cx.u32c(0);
    cx.m.op(Op::AtomicIAdd, t.u32, &[mine, scope, relaxed, pv]);
    block_barrier(cx);
    let sum = cx.m.op(Op::AtomicLoad, t.u32, &[mine, scope, relaxed]);
    let expected = live_threads(cx, sg);
    let one = cx.u32c(1);
    let other_parity = cx.op2(Op::BitwiseXor, parity, one);
    let zero = cx.u32c(0);
    let other = ctl_at(cx, sg, ctl::REDUCED, Some(other_parity));
    cx.m.op_void(Op::AtomicStore, &[other, scope, relaxed, zero]);
    block_barrier(cx);
    cx.m.store(sg.red_parity, other_parity);
    reduction_results(cx, sg, sum, expected);
    Ok(())
}
