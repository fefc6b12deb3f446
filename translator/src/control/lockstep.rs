//! Whether a kernel's warps must run in lockstep because its lanes may communicate through shared memory.
//!
//! SM86 runs the lanes of a converged warp in lockstep: after a warp's `STS`, every lane's `LDS` sees what the
//! other lanes stored, and a load before the store does not see it. nvcc relies on that: a full-mask
//! `__syncwarp()` in converged code becomes a `NOP` (or nothing), and legacy "warp-synchronous" code (volatile
//! shared-memory reductions in the last warp) has no sync at all. A kernel with no warp instruction would then
//! get the cheap form, where every thread is an independent invocation and lanes of one warp race (lavapipe's
//! subgroups are 8 wide, so a warp spans four of them: 160 of 256 outputs were wrong, exit 0).
//!
//! The analysis is a forward may-dataflow over the program's blocks between block barriers (`BAR.SYNC 0`
//! reached by the whole block orders every lane's accesses, so it ends an interval). It is conservative and
//! syntactic: addresses are not compared, so any access pair below counts even when the lanes touch
//! different words. Inside one interval (no block barrier on some path between them), a kernel needs lockstep
//! when
//! - a shared load (or atomic) may follow a shared store, or a load may follow an atomic (read after write:
//!   the legacy idiom and every `__syncwarp()` exchange), or
//! - any shared access may follow another with a warp-sync point between them (an offset in
//!   `EIATTR_COOP_GROUP_INSTR_OFFSETS`, where nvcc records every `__syncwarp`, also the ones it dropped) and
//!   one of them writes: the write after read and write after write orders that `__syncwarp()` promises.
//!
//! Not counted, by choice (documented in docs/abi.md): an atomic after an atomic (each is atomic in every
//! form; which lane's goes first is not fixed on silicon either), a store after a load with no warp-sync
//! point between (racy under CUDA's own rules since Volta, and no known idiom relies on it), and global
//! memory (nearly every kernel loads after it stores globally; lanes exchanging through global memory within
//! a warp with only a dropped `__syncwarp()` are not detected). Generic `LD`/`ST`/`ATOM` may address shared
//! memory and count as shared.

use crate::program::{Exit, Inst, Program};
use std::collections::BTreeSet;

/// How an instruction touches shared memory (or may, through a generic address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Load,
    Store,
    Atomic,
}

/// `generic`: generic `LD`/`ST`/`ATOM` may address shared memory (the program reads the shared window).
fn access(i: &Inst, generic: bool) -> Option<Access> {
    if i.guard() == Some((7, true)) {
        return None; // `@!PT`: never runs (nvcc pads `LDGSTS` with `@!PT LDS RZ, [RZ]`)
    }
    match i.mnemonic {
        "LDS" | "LDSM" => Some(Access::Load),
        // LDGSTS writes shared memory (the copy's destination).
        "STS" | "LDGSTS" => Some(Access::Store),
        "ATOMS" => Some(Access::Atomic),
        "LD" if generic => Some(Access::Load),
        "ST" if generic => Some(Access::Store),
        "ATOM" if generic => Some(Access::Atomic),
        _ => None,
    }
}

/// Whether the program may form a generic pointer to shared memory: only from the shared window's generic
/// address, `c[0x0][0x18]` and `c[0x0][0x1c]` (a shared address from elsewhere, a parameter or another
/// launch, means nothing in this block). Conservative: any constant operand of bank 0 in 0x18..0x20 (ALU
/// operand forms 3 and 5, `ULDC`) and any `LDC` of bank 0 (its offset is a register) count.
fn reads_shared_window(prog: &Program) -> bool {
    prog.insts.iter().any(|i| {
        let (bank, offset) = (i.bits(54, 5), i.bits(38, 16));
        let cbuf = match i.mnemonic {
            "LDC" => return bank == 0,
            "ULDC" => true,
            _ => matches!((i.opcode() >> 9) & 7, 3 | 5) && i.opcode() & 0x1000 == 0,
        };
        cbuf && bank == 0 && (0x18..0x20).contains(&offset)
    })
}

/// What may have happened since the last block barrier, along some path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct State {
    load: bool,
    store: bool,
    atomic: bool,
    /// The same, before a warp-sync point of this interval.
    synced_load: bool,
    synced_write: bool,
}

impl State {
    fn join(self, o: State) -> State {
        State {
            load: self.load | o.load,
            store: self.store | o.store,
            atomic: self.atomic | o.atomic,
            synced_load: self.synced_load | o.synced_load,
            synced_write: self.synced_write | o.synced_write,
        }
    }

    /// Whether `a` may observe another lane's earlier access (see the module doc).
    fn conflicts(self, a: Access) -> bool {
        match a {
            Access::Load => self.store || self.atomic || self.synced_write,
            Access::Store => self.synced_load || self.synced_write,
            Access::Atomic => self.store || self.synced_load,
        }
    }

    fn after(mut self, a: Access) -> State {
        match a {
            Access::Load => self.load = true,
            Access::Store => self.store = true,
            Access::Atomic => self.atomic = true,
        }
        self
    }

    fn at_sync_point(mut self) -> State {
        self.synced_load |= self.load || self.atomic;
        self.synced_write |= self.store || self.atomic;
        self
    }
}

/// The shared accesses that may observe another lane's access of the same barrier interval (offsets in
/// order); empty when the kernel's threads can run independently. `sync_points`: the kernel's warp-sync
/// points (`EIATTR_COOP_GROUP_INSTR_OFFSETS`; empty without a cubin).
pub fn exchanges(prog: &Program, sync_points: &[u32]) -> BTreeSet<u32> {
    let sync: BTreeSet<u32> = sync_points.iter().copied().collect();
    analyse(prog, |offset| sync.contains(&offset))
}

/// Where warps as subgroups put a subgroup memory barrier ([`lane_fence`]): before every shared access that
/// may observe another lane's access of the interval (one of them a write, not both atomics), as though a
/// warp-sync point stood before every instruction. Lanes of a subgroup then see each other's earlier stores
/// and do not see later ones; the barrier also keeps the driver's compiler from moving a lane's access past
/// another one it cannot prove disjoint for the other lanes.
pub fn fence_points(prog: &Program) -> BTreeSet<u32> {
    analyse(prog, |_| true)
}

/// Orders this lane's earlier shared and global accesses before its later ones for the other lanes of its
/// subgroup (memory only: the lanes of a diverged warp need not all arrive; as `lower::subgroup` does at
/// `WARPSYNC`).
pub fn lane_fence(cx: &mut crate::lower::Ctx<'_>) {
    use crate::spirv::{MemorySemantics, Op, Scope};
    let scope = cx.u32c(Scope::Subgroup as u32);
    let sem = cx.u32c(
        (MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY | MemorySemantics::UNIFORM_MEMORY)
            .bits(),
    );
    cx.m.op_void(Op::MemoryBarrier, &[scope, sem]);
}

/// The forward may-dataflow of the module doc; `sync_at(offset)`: a warp-sync point stands at `offset`.
fn analyse(prog: &Program, sync_at: impl Fn(u32) -> bool) -> BTreeSet<u32> {
    let index: std::collections::HashMap<u32, usize> =
        prog.blocks.iter().enumerate().map(|(k, b)| (b.start, k)).collect();
    let mut entry = vec![None::<State>; prog.blocks.len()];
    let mut work: Vec<usize> = Vec::new();
    let starts = std::iter::once(prog.entry).chain(prog.call_targets.iter().copied());
    for s in starts {
        if let Some(&k) = index.get(&s) {
            entry[k] = Some(State::default());
            work.push(k);
        }
    }
    let generic = reads_shared_window(prog);
    let mut found = BTreeSet::new();
    while let Some(k) = work.pop() {
        let b = &prog.blocks[k];
        let mut st = entry[k].unwrap_or_default();
        for i in block_insts(prog, b.start, b.end) {
            if sync_at(i.offset) {
                st = st.at_sync_point();
            }
            if crate::lower::warp::is_block_barrier(i) {
                st = State::default();
            } else if let Some(a) = access(i, generic) {
                if st.conflicts(a) {
                    found.insert(i.offset);
                }
                st = st.after(a);
            }
        }
        let is_call = last_mnemonic(prog, k) == Some("CALL");
        for &s in &b.successors {
            flow(&mut entry, &mut work, &index, s, st);
        }
        match last_mnemonic(prog, k) {
            // The callee's accesses join the state at the return point; its RET has no edges (the analysis
            // is context-insensitive inside callees, but one caller's accesses do not return to another's).
            _ if is_call => {
                let after = callee_effect(prog, &index, &b.successors, generic, &sync_at).applied_to(st);
                flow(&mut entry, &mut work, &index, b.end, after);
            }
            Some("BRX" | "JMX") => {
                for &s in &prog.branch_targets {
                    flow(&mut entry, &mut work, &index, s, st);
                }
            }
            _ => {}
        }
    }
    found
}

fn block_insts(prog: &Program, start: u32, end: u32) -> impl Iterator<Item = &Inst> {
    let first = prog.insts.partition_point(|i| i.offset < start);
    prog.insts[first..].iter().take_while(move |i| i.offset < end)
}

fn last_mnemonic(prog: &Program, k: usize) -> Option<&'static str> {
    let b = &prog.blocks[k];
    if b.exit != Exit::Control {
        return None;
    }
    block_insts(prog, b.start, b.end).last().map(|i| i.mnemonic)
}

/// Joins `st` into the entry state of the block at `to`, queueing it when that changed.
fn flow(
    entry: &mut [Option<State>],
    work: &mut Vec<usize>,
    index: &std::collections::HashMap<u32, usize>,
    to: u32,
    st: State,
) {
    let Some(&j) = index.get(&to) else { return };
    let joined = entry[j].map_or(st, |e| e.join(st));
    if entry[j] != Some(joined) {
        entry[j] = Some(joined);
        work.push(j);
    }
}

/// What a call may add to the state: every access reachable from its callees' entries (nested calls
/// included; barriers inside are ignored, which only adds), and whether a warp-sync point is among them.
#[derive(Debug, Clone, Copy, Default)]
struct Effect {
    load: bool,
    store: bool,
    atomic: bool,
    sync: bool,
}

impl Effect {
    fn applied_to(self, st: State) -> State {
        let mut st = State { load: st.load | self.load, store: st.store | self.store, atomic: st.atomic | self.atomic, ..st };
        if self.sync {
            st = st.at_sync_point();
        }
        st
    }
}

fn callee_effect(
    prog: &Program,
    index: &std::collections::HashMap<u32, usize>,
    callees: &[u32],
    generic: bool,
    sync_at: &impl Fn(u32) -> bool,
) -> Effect {
    let mut e = Effect::default();
    let mut seen = vec![false; prog.blocks.len()];
    let mut work: Vec<usize> = callees.iter().filter_map(|c| index.get(c).copied()).collect();
    while let Some(k) = work.pop() {
        if std::mem::replace(&mut seen[k], true) {
            continue;
        }
        let b = &prog.blocks[k];
        for i in block_insts(prog, b.start, b.end) {
            e.sync |= sync_at(i.offset);
            match access(i, generic) {
                Some(Access::Load) => e.load = true,
                Some(Access::Store) => e.store = true,
                Some(Access::Atomic) => e.atomic = true,
                None => {}
            }
        }
        let mut next = b.successors.clone();
        match last_mnemonic(prog, k) {
            Some("CALL") => next.push(b.end),
            Some("BRX" | "JMX") => next.extend_from_slice(&prog.branch_targets),
            _ => {}
        }
        work.extend(next.iter().filter_map(|s| index.get(s).copied()));
    }
    e
}
