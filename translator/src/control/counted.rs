//! Loops that end by themselves within a small, known number of iterations, so that they need no abort poll
//! (`control::guard`): a one-block loop whose back edge is taken only while a counter, stepped by a constant
//! once per iteration, stays below a constant (`for (i = 0; i < 500 && ...; ++i)` as nvcc emits it:
//! `IADD3 R9, R9, 0x1, RZ`, `ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT`, `@P0 BRA P1, top`).
//!
//! Why it matters: on NVIDIA the poll's count and test cost a tight loop a third of its time (the corpus's
//! Collatz loop ran 1.5x slower, docs/device-quirks.md). A loop found here runs at most
//! [`MAX_UNPOLLED_TRIPS`] iterations each time it is entered; a loop around it is more than one block, so it
//! keeps its poll, and an abort still ends the launch within `POLL_PERIOD` x that many iterations.
//!
//! Only unsigned comparisons against an immediate bound a counter whatever its value on entry (an entry
//! value at or past the bound leaves after one iteration; stepping up cannot wrap back below the bound
//! without passing it). Anything else — signed compares, register bounds, counters written twice or under a
//! guard, calls, instructions whose register writes the table does not know — keeps the poll.

use crate::program::head::Head;
use crate::program::Inst;
use sassport_gen::{Pred, Reg, RegFile, Src, TargetStyle, View};

/// Most iterations a loop may run per entry to go without an abort poll.
pub const MAX_UNPOLLED_TRIPS: u32 = 1 << 16;

/// What a predicate literal being true says about a counter register: `reg < bound` (unsigned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Below {
    reg: Reg,
    /// Exclusive bound.
    bound: u64,
}

/// The most iterations per entry of the one-block loop `insts` (its last instruction branches back to
/// `start`, the block's first offset), when its back edge is bounded by a counter as described above.
pub fn trip_bound(start: u32, insts: &[Inst]) -> Option<u32> {
    let (last, body) = insts.split_last()?;
    let bra = sassport_gen::decode(last.word).ok()?;
    let View::Bra(v) = bra.view() else { return None };
    if header(&bra).as_str() != "BRA" || last.branch_target() != i64::from(start) {
        return None;
    }
    let second = v.target.and_then(|t| t.modifier).map(|m| (Pred((m & 7) as u8), m & 8 != 0));
    let guard = (v.guard.pred, v.guard.not);
    // The back edge is taken only when both literals hold; either one bounding a counter is enough.
    [guard, second.unwrap_or((Pred::PT, false))]
        .into_iter()
        .filter(|&(p, _)| p != Pred::PT)
        .filter_map(|(p, not)| {
            let below = literal_bound(body, p, not)?;
            let step = single_step(insts, below.reg)?;
            let trips = below.bound.div_ceil(step) + 2;
            u32::try_from(trips).ok().filter(|&n| n <= MAX_UNPOLLED_TRIPS)
        })
        .min()
}

/// The mnemonic with its modifiers as nvdisasm prints them (`ISETP.LT.U32.AND`), guard dropped.
fn header(inst: &sassport_gen::Instruction) -> Head {
    Head::of(inst)
}

/// What literal `p` (negated when `not`) being true at the end of `body` says about a counter, from the
/// instruction that last wrote `p`: an unguarded `ISETP.<cmp>.U32.AND p, PT, R, imm, acc`.
fn literal_bound(body: &[Inst], p: Pred, not: bool) -> Option<Below> {
    let writer = body.iter().rev().find_map(|i| {
        let d = sassport_gen::decode(i.word).ok()?;
        let writes = d.accesses()?.any(|a| a.file == RegFile::Pred && a.direction.writes() && a.registers().any(|r| r == p.0));
        writes.then_some(d)
    })?;
    let View::Isetp(v) = writer.view() else { return None };
    if v.guard.pred != Pred::PT || v.guard.not || v.dst.map(|d| d.src) != Some(Src::Pred(p, false)) {
        return None;
    }
    let head = header(&writer);
    let mods: Vec<&str> = head.modifiers().collect();
    if !mods.contains(&"U32") || !mods.contains(&"AND") || mods.contains(&"EX") {
        return None;
    }
    let (Some(Src::Reg(reg)), Some(Src::Imm(k))) = (v.a.map(|a| a.src), v.b.map(|b| b.src)) else { return None };
    let k = k & 0xffff_ffff;
    // p = cmp && acc: p true implies cmp. !p implies !cmp only when acc is plain PT.
    let acc_true = v.pred.is_some_and(|a| a.src == Src::Pred(Pred::PT, false) && !a.not);
    let cmp = mods.iter().find(|m| matches!(**m, "LT" | "LE" | "GT" | "GE"))?;
    let bound = match (*cmp, not) {
        ("LT", false) => k,
        ("LE", false) => k + 1,
        ("GE", true) if acc_true => k,
        ("GT", true) if acc_true => k + 1,
        _ => return None,
    };
    (reg != Reg::RZ).then_some(Below { reg, bound })
}

/// The constant step of counter `reg` when the block writes it exactly once, unguarded, as
/// `IADD3 reg, reg, imm, RZ` with 0 < imm < 2^31 (a call or an instruction of unknown accesses: `None`).
fn single_step(insts: &[Inst], reg: Reg) -> Option<u64> {
    let mut step = None;
    for i in insts {
        let d = sassport_gen::decode(i.word).ok()?;
        if d.mnemonic() == "CALL" {
            return None;
        }
        let writes = d.accesses()?.any(|a| a.file == RegFile::Gpr && a.direction.writes() && a.registers().any(|r| r == reg.0));
        if !writes {
            continue;
        }
        if step.is_some() || header(&d).as_str() != "IADD3" {
            return None;
        }
        // The operands from the text (identical to nvdisasm's): the generated view of IADD3's immediate
        // class misses its first source register (isa/roles.txt, issue 17).
        let text = d.text(0, TargetStyle::Absolute);
        if text.starts_with('@') {
            return None;
        }
        let ops: Vec<&str> = text.trim_end_matches([' ', ';']).split_once(' ')?.1.split(", ").map(|o| o.trim_end_matches(".reuse")).collect();
        let me = format!("R{}", reg.0);
        let imm = match ops.as_slice() {
            [dst, a, k, "RZ"] if *dst == me && *a == me => parse_imm(k)?,
            _ => return None,
        };
        step = Some(imm).filter(|&k| k > 0 && k < 1 << 31);
        step?;
    }
    step
}

/// A non-negative hexadecimal immediate as nvdisasm prints it (`0x1`); negative ones (`-0x1`) are refused.
fn parse_imm(text: &str) -> Option<u64> {
    u64::from_str_radix(text.strip_prefix("0x")?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sassport_gen::{Control, Word};

    fn inst(offset: u32, text: &str) -> Inst {
        let word: Word = sassport_gen::encode_text(text, u64::from(offset), Control::default()).expect(text);
        Inst { offset, word, mnemonic: sassport_gen::decode(word).expect(text).mnemonic() }
    }

    /// The Collatz loop of corpus/src/control.cu's `loops`, as nvcc 13.5 emits it.
    fn collatz(cmp: &str, bra: &str) -> Vec<Inst> {
        [
            "LOP3.LUT R4, R7, 0x1, RZ, 0xc0, !PT ;",
            "IADD3 R9, R9, 0x1, RZ ;",
            "ISETP.NE.U32.AND P0, PT, R4, 0x1, PT ;",
            "IMAD.MOV.U32 R4, RZ, RZ, 0x1 ;",
            cmp,
            "IMAD R4, R7, 0x3, R4 ;",
            "@P0 SHF.R.U32.HI R4, RZ, 0x1, R7 ;",
            "ISETP.NE.AND P0, PT, R4, 0x1, PT ;",
            "IMAD.MOV.U32 R7, RZ, RZ, R4 ;",
            bra,
        ]
        .iter()
        .enumerate()
        .map(|(k, t)| inst(0x1e0 + 16 * k as u32, t))
        .collect()
    }

    #[test]
    fn nvcc_counted_loop_is_bounded() {
        let l = collatz("ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA P1, 0x1e0 ;");
        assert_eq!(trip_bound(0x1e0, &l), Some(502));
        let l = collatz("ISETP.GE.U32.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA !P1, 0x1e0 ;");
        assert_eq!(trip_bound(0x1e0, &l), Some(502));
    }

    #[test]
    fn other_loops_keep_their_poll() {
        // Signed compare, a register bound, a negated AND with a live accumulator, a far bound, another target.
        for (cmp, bra) in [
            ("ISETP.LT.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA P1, 0x1e0 ;"),
            ("ISETP.LT.U32.AND P1, PT, R9, R5, PT ;", "@P0 BRA P1, 0x1e0 ;"),
            ("ISETP.GE.U32.AND P1, PT, R9, 0x1f4, P2 ;", "@P0 BRA !P1, 0x1e0 ;"),
            ("ISETP.LT.U32.AND P1, PT, R9, 0x7fffffff, PT ;", "@P0 BRA P1, 0x1e0 ;"),
            ("ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA P1, 0x100 ;"),
            ("ISETP.LT.U32.OR P1, PT, R9, 0x1f4, P3 ;", "@P0 BRA P1, 0x1e0 ;"),
            ("ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA 0x1e0 ;"),
        ] {
            assert_eq!(trip_bound(0x1e0, &collatz(cmp, bra)), None, "{cmp} {bra}");
        }
    }

    #[test]
    fn counter_written_twice_or_guarded_keeps_the_poll() {
        let mut l = collatz("ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA P1, 0x1e0 ;");
        l[3] = inst(0x210, "IMAD.MOV.U32 R9, RZ, RZ, 0x1 ;");
        assert_eq!(trip_bound(0x1e0, &l), None);
        let mut l = collatz("ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA P1, 0x1e0 ;");
        l[1] = inst(0x1f0, "@P2 IADD3 R9, R9, 0x1, RZ ;");
        assert_eq!(trip_bound(0x1e0, &l), None);
        let mut l = collatz("ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT ;", "@P0 BRA P1, 0x1e0 ;");
        l[1] = inst(0x1f0, "IADD3 R9, R9, -0x1, RZ ;");
        assert_eq!(trip_bound(0x1e0, &l), None);
    }
}
