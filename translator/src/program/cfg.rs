//! Reachability walk, leaders and basic blocks.

use super::{is_branch, Disassembler, Inst, Program};
use crate::error::{display_name, TranslateError};
use sassport_gen::{Word, WORD_BYTES};
use std::collections::BTreeSet;

/// How control leaves a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Falls through to the next block (which starts at `Block::end`).
    Fall,
    /// Ends in a control instruction (`BRA`, `EXIT`, `RET`, `CALL`): the lowering reads it.
    Control,
}

/// A basic block: instructions at `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub start: u32,
    pub end: u32,
    pub exit: Exit,
    /// Offsets control may continue at (static edges; `RET` targets are resolved at run time).
    pub successors: Vec<u32>,
}

fn word_at(code: &[u8], offset: u32) -> Option<Word> {
    let start = offset as usize;
    let bytes = code.get(start..start.checked_add(WORD_BYTES)?)?;
    let mut b = [0u8; WORD_BYTES];
    b.copy_from_slice(bytes);
    Some(Word::from_le_bytes(b))
}

pub(super) fn build(
    section: &str,
    code: &[u8],
    entry: u32,
    indirect_targets: &[u32],
    call_targets: &[u32],
    dis: &dyn Disassembler,
) -> Result<Program, TranslateError> {
    let len = code.len();
    let target_ok = |t: i64| t >= 0 && (t as usize) < len && t % 16 == 0;
    // Decoded instructions by word index (offsets are 16-byte aligned and within the code).
    let mut slots: Vec<Option<Inst>> = vec![None; len / WORD_BYTES];
    let mut leaders: BTreeSet<u32> = BTreeSet::new();
    let mut return_points: BTreeSet<u32> = BTreeSet::new();
    let mut work = vec![entry];
    leaders.insert(entry);
    if !target_ok(i64::from(entry)) {
        return Err(TranslateError::FallsOffCode { section: section.into(), offset: entry });
    }
    for &t in indirect_targets {
        if !target_ok(i64::from(t)) {
            return Err(TranslateError::BadTarget {
                name: "BRX".into(),
                section: section.into(),
                offset: entry,
                target: i64::from(t),
            });
        }
        leaders.insert(t);
        work.push(t);
    }

    // Address-taken functions are walked only once a register-indirect CALL shows they can be reached.
    let mut indirect_call = false;
    while let Some(start) = work.pop() {
        let mut at = start;
        loop {
            if slots.get((at / 16) as usize).is_some_and(|s| s.is_some()) {
                break;
            }
            let Some(word) = word_at(code, at) else {
                return Err(TranslateError::FallsOffCode { section: section.into(), offset: at });
            };
            let mnemonic = dis.mnemonic(u64::from(at), word).map_err(|reason| TranslateError::Undecodable {
                section: section.into(),
                offset: at,
                word: word.0,
                reason,
            })?;
            let inst = Inst { offset: at, word, mnemonic };
            if let Some(slot) = slots.get_mut((at / 16) as usize) {
                *slot = Some(inst);
            }
            let next = at + WORD_BYTES as u32;
            let guarded = inst.guard().is_some();
            let target = |leaders: &mut BTreeSet<u32>, work: &mut Vec<u32>| -> Result<(), TranslateError> {
                let t = inst.branch_target();
                if !target_ok(t) {
                    return Err(TranslateError::BadTarget {
                        name: display_name(word, mnemonic),
                        section: section.into(),
                        offset: at,
                        target: t,
                    });
                }
                leaders.insert(t as u32);
                work.push(t as u32);
                Ok(())
            };
            match mnemonic {
                // Uniform-operand BRA (BRA.DIV/.CONV on a UR) is a warp-divergence test: taken or not at run
                // time, so both its target and the next instruction are reachable.
                "BRA" => target(&mut leaders, &mut work)?,
                "CALL" if inst.opcode() == 0x0944 => {
                    target(&mut leaders, &mut work)?;
                    return_points.insert(next);
                }
                "CALL" if is_indirect_call(&inst) => {
                    if !indirect_call {
                        indirect_call = true;
                        for &t in call_targets {
                            if !target_ok(i64::from(t)) {
                                return Err(TranslateError::BadTarget {
                                    name: display_name(word, mnemonic),
                                    section: section.into(),
                                    offset: at,
                                    target: i64::from(t),
                                });
                            }
                            leaders.insert(t);
                            work.push(t);
                        }
                    }
                    return_points.insert(next);
                }
                "BSSY" => target(&mut leaders, &mut work)?,
                "BSYNC" => {
                    leaders.insert(at);
                }
                _ => {}
            }
            let ends = is_branch(mnemonic) || matches!(mnemonic, "BAR" | "WARPSYNC");
            if ends {
                leaders.insert(next);
            }
            // Continue linearly unless control never falls through.
            let stops = match mnemonic {
                "BRA" if inst.opcode() & 0x1000 != 0 => false,
                "BRA" | "EXIT" | "RET" | "BRX" | "JMP" | "JMX" => !guarded && !bra_has_condition(&inst),
                "CALL" => false,
                _ => false,
            };
            if stops {
                break;
            }
            if mnemonic == "CALL" {
                // The return point is reached through RET; walk it as its own start.
                work.push(next);
                break;
            }
            at = next;
        }
    }

    // Split into blocks.
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    let mut prev_end: Option<u32> = None;
    let insts: Vec<Inst> = slots.into_iter().flatten().collect();
    for inst in &insts {
        let off = inst.offset;
        let contiguous = prev_end == Some(off);
        if current.is_some() && (leaders.contains(&off) || !contiguous) {
            if let Some(mut b) = current.take() {
                if contiguous {
                    b.exit = Exit::Fall;
                    b.successors = vec![off];
                }
                blocks.push(b);
            }
        }
        let b = current.get_or_insert_with(|| Block { start: off, end: off, exit: Exit::Fall, successors: Vec::new() });
        b.end = off + WORD_BYTES as u32;
        prev_end = Some(b.end);
        let m = inst.mnemonic;
        if is_branch(m) {
            let mut succ = Vec::new();
            let guarded = inst.guard().is_some() || bra_has_condition(inst) || (m == "BRA" && inst.opcode() & 0x1000 != 0);
            match m {
                "BRA" => {
                    succ.push(inst.branch_target() as u32);
                    if guarded {
                        succ.push(b.end);
                    }
                }
                "CALL" if inst.opcode() == 0x0944 => succ.push(inst.branch_target() as u32),
                "CALL" if is_indirect_call(inst) => succ.extend_from_slice(call_targets),
                _ if guarded => succ.push(b.end),
                _ => {}
            }
            b.exit = Exit::Control;
            b.successors = succ;
            if let Some(done) = current.take() {
                blocks.push(done);
            }
            prev_end = None;
        }
    }
    if let Some(b) = current.take() {
        // The walk only stops at a non-falling instruction or at known code, so a trailing open block falls
        // into an instruction that was decoded from another start.
        let end = b.end;
        let mut b = b;
        b.successors = vec![end];
        blocks.push(b);
    }
    Ok(Program {
        section: section.into(),
        entry,
        insts,
        blocks,
        return_points: return_points.into_iter().collect(),
        call_targets: if indirect_call { call_targets.to_vec() } else { Vec::new() },
        branch_targets: indirect_targets.iter().copied().collect::<BTreeSet<u32>>().into_iter().collect(),
        code_section: 0,
    })
}

/// `CALL.REL Rn` (0x0344) or `CALL.ABS Rn` (0x0343): a call through a register.
pub(crate) fn is_indirect_call(inst: &Inst) -> bool {
    inst.mnemonic == "CALL" && matches!(inst.opcode(), 0x0343 | 0x0344)
}

/// `BRA Pn, target` (bits 89:87 not PT or negated by 90): a branch with a condition besides its guard.
pub(crate) fn bra_has_condition(inst: &Inst) -> bool {
    matches!(inst.mnemonic, "BRA" | "EXIT") && (inst.bits(87, 3) != 7 || inst.bit(90))
}
