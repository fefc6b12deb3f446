//! Whether a kernel waits for other blocks: a loop that reads global memory with a strong load
//! (`LD`/`LDG` `.STRONG.*`/`.MMIO`, what PTX's `ld.volatile`, `ld.relaxed` and `ld.acquire` become) or sleeps
//! (`NANOSLEEP`). CUB's decoupled look-back (single-pass scans, onesweep radix sort, `DeviceSelect`) spins
//! like this on the tile states earlier blocks publish, as any hand-written inter-block flag wait does.
//!
//! Such a kernel makes progress on NVIDIA hardware because blocks start in ascending order and a started block
//! keeps running; Vulkan promises neither (lavapipe's loop limit also cuts a spin that waits on a block still
//! running on another thread), so the runtime dispatches these kernels' blocks one at a time in ascending
//! order (`docs/block-order.md`). A loop with weak loads only, or atomics only (histograms, grid-stride
//! accumulation), is not a wait: serialising it would cost parallelism for nothing.

use super::{Inst, Program};
use std::collections::{BTreeMap, BTreeSet};

/// Offset of the first instruction, inside a loop, that waits on other blocks' writes; `None` when no loop
/// does. A back edge is an edge to a block at or before its source; its loop is every block that reaches the
/// source without passing the target (more than the natural loop where the target does not dominate the
/// source, which only errs towards ordering).
pub fn first_polling_instruction(program: &Program) -> Option<u32> {
    // (block start, offset) of every waiting instruction; most kernels have none and stop here.
    let waits: Vec<(u32, u32)> = program
        .insts
        .iter()
        .filter(|i| waits(i))
        .filter_map(|i| Some((block_of(program, i.offset)?, i.offset)))
        .collect();
    if waits.is_empty() {
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
            let first = waits
                .iter()
                .filter(|(b, _)| body.contains(b))
                .map(|&(_, pc)| pc)
                .min();
            found = found.into_iter().chain(first).min();
        }
    }
    found
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

/// A strong global load or a sleep.
fn waits(inst: &Inst) -> bool {
    match inst.mnemonic {
        "NANOSLEEP" => true,
        "LD" | "LDG" => {
            let Ok(d) = sassport_gen::decode(inst.word) else {
                return false;
            };
            super::head::Head::of(&d)
                .modifiers()
                .any(|m| m == "STRONG" || m == "MMIO")
        }
        _ => false,
    }
}
