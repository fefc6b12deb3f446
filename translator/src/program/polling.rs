//! Whether a kernel waits for other blocks: a loop that reads global memory with a strong load
//! (`LD`/`LDG` `.STRONG.*`/`.MMIO`, what PTX's `ld.volatile`, `ld.relaxed` and `ld.acquire` become) or sleeps
//! (`NANOSLEEP`). CUB's decoupled look-back (single-pass scans, onesweep radix sort, `DeviceSelect`) spins
//! like this on the tile states earlier blocks publish, as any hand-written inter-block flag wait does.
//!
//! Such a kernel makes progress on NVIDIA hardware because blocks start in ascending order and a started block
//! keeps running; Vulkan promises neither (lavapipe's loop limit also cuts a spin that waits on a block still
//! running on another thread), so the runtime dispatches these kernels' blocks one at a time in ascending
//! order (`docs/block-order.md`). A loop whose atomics return values and which reads nothing else waits too
//! (`while (atomicCAS(lock, 0, 1))`, `while (!atomicAdd(flag, 0))`). A loop with weak loads (histograms and
//! grid-stride loops, atomics or not) is not a wait: serialising it would cost parallelism for nothing.

use super::{Inst, Program};
use std::collections::{BTreeMap, BTreeSet};

/// Offset of the first instruction, inside a loop, that waits on other blocks' writes; `None` when no loop
/// does. A back edge is an edge to a block at or before its source; its loop is every block that reaches the
/// source without passing the target (more than the natural loop where the target does not dominate the
/// source, which only errs towards ordering).
pub fn first_polling_instruction(program: &Program) -> Option<u32> {
    // (block start, offset, kind) of every instruction that may wait; most kernels have none and stop here.
    let marks: Vec<(u32, u32, Mark)> = program
        .insts
        .iter()
        .filter_map(|i| Some((block_of(program, i.offset)?, i.offset, mark(i)?)))
        .collect();
    if !marks.iter().any(|m| m.2 != Mark::WeakLoad) {
        return None;
    }
    let mut predecessors: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for b in &program.blocks {
        for &s in &b.successors {
            predecessors.entry(s).or_default().push(b.start);
        }
    }
    let mut found: Option<u32> = None;
    for latch in &program.blocks {
        for &head in latch.successors.iter().filter(|&&s| s <= latch.start) {
            let body = loop_body(&predecessors, head, latch.start);
            let inside: Vec<&(u32, u32, Mark)> =
                marks.iter().filter(|m| body.contains(&m.0)).collect();
            let weak = inside.iter().any(|m| m.2 == Mark::WeakLoad);
            let first = inside
                .iter()
                .filter(|m| m.2 == Mark::Wait || (m.2 == Mark::AtomicResult && !weak))
                .map(|m| m.1)
                .min();
            found = found.into_iter().chain(first).min();
        }
    }
    found
}

/// What an instruction says about the loop holding it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// A strong global load or a sleep: the loop waits.
    Wait,
    /// An atomic whose result is read (`ATOMG`, `ATOM`): a wait when the loop reads nothing else
    /// (`while (atomicCAS(lock, 0, 1))`, `while (!atomicAdd(flag, 0))`).
    AtomicResult,
    /// A weak global load: the loop works on data (grid-stride loops with atomics are not waits).
    WeakLoad,
}

/// Blocks from `head` to `latch`: `head` and every block reaching `latch` backwards without passing `head`.
fn loop_body(predecessors: &BTreeMap<u32, Vec<u32>>, head: u32, latch: u32) -> BTreeSet<u32> {
    let mut body = BTreeSet::from([head]);
    let mut work = vec![latch];
    while let Some(b) = work.pop() {
        if body.insert(b) {
            work.extend(predecessors.get(&b).into_iter().flatten().copied());
        }
    }
    body
}

fn mark(inst: &Inst) -> Option<Mark> {
    match inst.mnemonic {
        "NANOSLEEP" => Some(Mark::Wait),
        "ATOMG" | "ATOM" => Some(Mark::AtomicResult),
        "LD" | "LDG" => {
            let d = sassport_gen::decode(inst.word).ok()?;
            let strong = super::head::Head::of(&d)
                .modifiers()
                .any(|m| m == "STRONG" || m == "MMIO");
            Some(if strong { Mark::Wait } else { Mark::WeakLoad })
        }
        _ => None,
    }
}

/// Start of the block holding `offset`.
fn block_of(program: &Program, offset: u32) -> Option<u32> {
    let i = program
        .blocks
        .partition_point(|b| b.start <= offset)
        .checked_sub(1)?;
    let b = program.blocks.get(i)?;
    (offset < b.end).then_some(b.start)
}
