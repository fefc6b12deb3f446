//! The decoder's data (`gen/src/generated/decode.rs`): for each opcode key its candidates — one per class
//! with that key, or for the rare class whose print variants check different fields one per variant —
//! with the bits that select each and the field values it accepts, in an order that decodes every word as
//! the table's does ([`general_first`]); and for each class the conditions that choose its print variant.
//! `gen/src/classify.rs` walks it.
//!
//! Written as text, one candidate a line, rather than through prettyplease, which would spread each
//! candidate over a dozen lines.

use super::emit::write_array;
use super::plan::{Bits, Check, ClassPlan, Plan};
use anyhow::{bail, Result};
use sassport_isa::Pattern;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The bits of the opcode key: 91 and 11:0.
const OPCODE_MASK: u128 = (1u128 << 91) | 0xfff;
/// Widest field a quick check (`gen/src/classify.rs`) tests through a 256-bit bitmap.
const QUICK_WIDTH: u32 = 8;
/// Shortest run of candidates or variant conditions testing the same bits that gets a gate.
const GATE_RUN: usize = 4;

/// The word bits an opcode key stands for.
fn key_bits(key: u16) -> u128 {
    (u128::from(key >> 12 & 1) << 91) | u128::from(key & 0xfff)
}

/// A quick check: its field's ranges (split at bit 64) and the index of its legal-value bitmap.
type Quick = (Vec<(u8, u8)>, usize);

/// One thing a word with a given opcode key can decode as: a class, or for a class whose variants check
/// different fields, one variant of it.
struct Candidate {
    mask: u128,
    value: u128,
    class: usize,
    /// The quick check, if one of the checks fits it.
    quick: Option<Quick>,
    /// Every other check.
    more: Vec<usize>,
}

/// `ranges` with any range crossing bit 64 split in two there (a small field reads one 64-bit half per range).
fn split_at_64(ranges: &[(u8, u8)]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    for &(lo, w) in ranges {
        if lo < 64 && lo + w > 64 {
            out.push((lo, 64 - lo));
            out.push((64, lo + w - 64));
        } else {
            out.push((lo, w));
        }
    }
    out
}

fn fits_quick(bits: &Bits) -> bool {
    bits.width() <= QUICK_WIDTH && split_at_64(&bits.ranges).len() <= 2
}

fn bitmap(check: &Check) -> [u64; 4] {
    let mut words = [0u64; 4];
    for &(lo, hi) in &check.legal {
        for v in lo..=hi.min(255) {
            words[(v / 64) as usize] |= 1 << (v % 64);
        }
    }
    words
}

/// Up to two `(lo, width)` ranges as the `[(lo, width); 2]` a small field takes (width 0: unused).
fn small_field(ranges: &[(u8, u8)]) -> String {
    let r = |i: usize| ranges.get(i).copied().unwrap_or((0, 0));
    format!("[({}, {}), ({}, {})]", r(0).0, r(0).1, r(1).0, r(1).1)
}

fn hex(v: u128) -> String {
    format!("{v:#x}")
}

/// Whether a variant condition can hold for a word of the class: a `when` contradicting the opcode key
/// or the fixed bits never selects its variant.
fn can_select(when: Pattern, fixed: Pattern, key: u16) -> bool {
    (when.value ^ key_bits(key)) & when.mask & OPCODE_MASK == 0 && (when.value ^ fixed.value) & when.mask & fixed.mask == 0
}

/// The `when` of variant `vi` as the decoder tests it (the last variant prints whatever no earlier one
/// takes).
fn when_of(class: &ClassPlan<'_>, vi: usize) -> Pattern {
    if vi + 1 == class.variants.len() {
        Pattern::ANY
    } else {
        class.variants[vi].when
    }
}

/// Whether every variant the class can print checks the same fields against the same values: then the
/// class alone decides legality and the decoder need not choose the variant.
fn checks_agree(class: &ClassPlan<'_>) -> bool {
    let checks_of = |vi: usize| -> BTreeSet<(&Bits, &[(u64, u64)])> {
        class.variants[vi].checks.iter().map(|c| (&c.bits, c.legal.as_slice())).collect()
    };
    let mut selectable =
        (0..class.variants.len()).filter(|&vi| can_select(when_of(class, vi), class.class.fixed, class.class.opcode));
    match selectable.next() {
        Some(first) => {
            let first = checks_of(first);
            selectable.all(|vi| checks_of(vi) == first)
        }
        None => true,
    }
}

/// Quick checks and further checks, deduplicated across the table.
struct CheckTables<'p> {
    /// Bitmap 0 accepts every value: the quick check of candidates with none of their own.
    bitmaps: Vec<[u64; 4]>,
    bitmap_ids: BTreeMap<[u64; 4], usize>,
    /// Checks that do not fit a quick check: (bits, legal ranges).
    field_checks: Vec<(&'p Bits, &'p [(u64, u64)])>,
}

impl<'p> CheckTables<'p> {
    fn new() -> Self {
        CheckTables { bitmaps: vec![[u64::MAX; 4]], bitmap_ids: BTreeMap::from([([u64::MAX; 4], 0)]), field_checks: Vec::new() }
    }

    /// The first check that fits as the quick check, the others as further checks.
    fn split(&mut self, checks: &'p [Check]) -> (Option<Quick>, Vec<usize>) {
        let mut quick = None;
        let mut more = Vec::new();
        for check in checks {
            if quick.is_none() && fits_quick(&check.bits) {
                let words = bitmap(check);
                let next = self.bitmaps.len();
                let id = *self.bitmap_ids.entry(words).or_insert(next);
                if id == next {
                    self.bitmaps.push(words);
                }
                quick = Some((split_at_64(&check.bits.ranges), id));
            } else {
                let item = (&check.bits, check.legal.as_slice());
                let id = self.field_checks.iter().position(|c| *c == item).unwrap_or_else(|| {
                    self.field_checks.push(item);
                    self.field_checks.len() - 1
                });
                more.push(id);
            }
        }
        (quick, more)
    }
}

/// One entry of a class's variant choice: a variant's condition (bits beyond the class's fixed bits), or
/// a gate before a run of conditions testing the same bits.
#[derive(Clone, Copy)]
struct Choice {
    mask: u128,
    value: u128,
    variant: usize,
    /// For a gate, the length of the run it guards (0 for a condition).
    gate: usize,
}

/// The conditions that choose `class`'s variant, in order, runs of conditions testing the same bits
/// behind a gate (IMAD's 29 `RZ, <power of two>` variants); a word matching none prints the last variant.
fn variant_choices(class: &ClassPlan<'_>) -> Vec<Choice> {
    let fixed = class.class.fixed;
    let mut conditions: Vec<Choice> = Vec::new();
    for vi in 0..class.variants.len().saturating_sub(1) {
        let when = class.variants[vi].when;
        if !can_select(when, fixed, class.class.opcode) {
            continue;
        }
        // Bits the class fixes are known to match.
        let mask = when.mask & !fixed.mask & !OPCODE_MASK;
        conditions.push(Choice { mask, value: when.value & mask, variant: vi, gate: 0 });
        // A condition testing no bits takes every word that reaches it.
        if mask == 0 {
            break;
        }
    }
    let mut out = Vec::new();
    let mut rest = conditions.as_slice();
    while let Some(first) = rest.first() {
        let run = rest.iter().take_while(|c| c.mask == first.mask).count();
        if run >= GATE_RUN {
            // The bits every condition of the run wants the same way: a word without them skips the run.
            let differ = rest[..run].iter().fold(0u128, |d, c| d | (c.value ^ first.value));
            let common = first.mask & !differ;
            out.push(Choice { mask: common, value: first.value & common, variant: 0, gate: run });
        }
        out.extend_from_slice(&rest[..run]);
        rest = &rest[run..];
    }
    out
}

/// Whether some word matches both candidates.
fn overlap(a: &Candidate, b: &Candidate) -> bool {
    (a.value ^ b.value) & a.mask & b.mask == 0
}

/// The candidates in an order that decodes every word the same (the first match in table order is still
/// the first match), the ones testing fewest bits as early as that allows.
///
/// A candidate may go before earlier ones it shares no word with: for such a word none of those match.
/// Testing few bits, it is a key's general form (`LDG R0, [R2.64]` rather than the `[RZ+UR4]` form the
/// table tries first), the one most words have, and the decoder's fast path takes a key's first candidate.
fn general_first(candidates: Vec<Candidate>) -> Vec<Candidate> {
    let mut rest: Vec<Option<Candidate>> = candidates.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(rest.len());
    loop {
        // Candidates every earlier candidate they share words with is already placed before.
        let ready = (0..rest.len()).filter(|&i| {
            rest[i].as_ref().is_some_and(|c| rest[..i].iter().flatten().all(|earlier| !overlap(earlier, c)))
        });
        let Some(next) = ready.min_by_key(|&i| (rest[i].as_ref().map_or(u32::MAX, |c| c.mask.count_ones()), i)) else {
            break;
        };
        out.extend(rest[next].take());
    }
    out
}

/// The text of `decode.rs` (without the generated-file header).
pub fn module_text(plan: &Plan<'_>) -> Result<String> {
    let mut checks = CheckTables::new();
    let mut per_key: BTreeMap<u16, Vec<Candidate>> = BTreeMap::new();
    for (&key, members) in &plan.opcodes {
        let candidates = per_key.entry(key).or_default();
        for &ci in members {
            let class = &plan.classes[ci];
            let fixed = &class.class.fixed;
            let fixed_mask = fixed.mask & !OPCODE_MASK;
            let fixed_value = fixed.value & fixed_mask;
            if checks_agree(class) {
                // One candidate for the class: every word with its fixed bits is one of its variants (the
                // last takes whatever no earlier one does), and all of them check the same fields.
                let (quick, more) = match (0..class.variants.len()).find(|&vi| can_select(when_of(class, vi), *fixed, key)) {
                    Some(vi) => checks.split(&class.variants[vi].checks),
                    None => (None, Vec::new()),
                };
                candidates.push(Candidate { mask: fixed_mask, value: fixed_value, class: ci, quick, more });
            } else {
                // One candidate per variant: which variant the word selects decides which checks apply.
                for (vi, variant) in class.variants.iter().enumerate() {
                    let when = when_of(class, vi);
                    if !can_select(when, *fixed, key) {
                        continue;
                    }
                    let mask = (fixed.mask | when.mask) & !OPCODE_MASK;
                    let value = (fixed.value & fixed.mask | when.value & when.mask) & mask;
                    let (quick, more) = checks.split(&variant.checks);
                    candidates.push(Candidate { mask, value, class: ci, quick, more });
                    if when.mask == 0 {
                        break;
                    }
                }
            }
            // A class testing no bits beyond the key takes every word that reaches it.
            if fixed_mask == 0 {
                break;
            }
        }
    }
    let per_key: BTreeMap<u16, Vec<Candidate>> = per_key.into_iter().map(|(key, c)| (key, general_first(c))).collect();

    // The field most quick checks test: the decoder extracts it once per word with constant shifts.
    let mut quick_uses: BTreeMap<&[(u8, u8)], usize> = BTreeMap::new();
    for c in per_key.values().flatten() {
        if let Some((ranges, _)) = &c.quick {
            *quick_uses.entry(ranges.as_slice()).or_default() += 1;
        }
    }
    let common: Vec<(u8, u8)> = quick_uses
        .iter()
        .max_by_key(|(ranges, n)| (**n, std::cmp::Reverse(**ranges)))
        .map(|(r, _)| r.to_vec())
        .unwrap_or_default();

    let mut out = String::new();
    out.push_str(
        "//! Decoder data: for each 13-bit opcode key (word bit 91 as bit 12, then bits 11:0) its candidates,\n\
         //! one per class (or, for a class whose print variants check different fields, one per variant),\n\
         //! each with the further bits that select it and the field values it accepts; and for each class the\n\
         //! conditions that choose its print variant. `crate::classify` reads it.\n\
         #![allow(clippy::all)]\n\n\
         use super::classes::ClassId;\n\
         use crate::classify::{by_value, Candidate, Checks, Choice, FieldCheck, QuickCheck, Variants, END, NEXT};\n\
         use crate::render::Bits;\n\n",
    );

    // The further checks of all candidates, run after run, and each distinct run's start.
    let (mut more_flat, mut more_runs, mut more_starts): (Vec<usize>, Vec<Vec<usize>>, Vec<usize>) = Default::default();
    // Candidate 0 matches no word (value outside its mask): unused keys point at it.
    let mut first = vec![0u16; 8192];
    let mut lines = Vec::new();
    let first_class = plan.classes.first().map_or("", |c| c.class.name.as_str());
    lines.push(format!("    // Unused keys: matches no word.\n    Candidate::new(0x0, 0x1, ClassId::{first_class}, END, QuickCheck::ALL, Checks::NONE),"));
    let mut index = 1usize;
    for (key, candidates) in &per_key {
        if candidates.is_empty() {
            continue;
        }
        let first_index = index;
        let mut k = 0;
        while k < candidates.len() {
            // A run of candidates testing the same bits, at least GATE_RUN long, gets a gate before it: the
            // bits they all want the same way. A word without them skips the whole run in one compare.
            let run = candidates[k..].iter().take_while(|c| c.mask == candidates[k].mask).count();
            if run >= GATE_RUN {
                let differ = candidates[k..k + run].iter().fold(0u128, |d, c| d | (c.value ^ candidates[k].value));
                let common = candidates[k].mask & !differ;
                let end = if k + run == candidates.len() { "END" } else { "NEXT" };
                lines.push(format!(
                    "{}    Candidate::gate({}, {}, {run}, {end}),",
                    if k == 0 { format!("    // {key:#06x}\n") } else { String::new() },
                    hex(common),
                    hex(candidates[k].value & common)
                ));
                index += 1;
            }
            for (j, c) in candidates[k..k + run].iter().enumerate() {
                let class = &plan.classes[c.class];
                let end = if k + j + 1 == candidates.len() { "END" } else { "NEXT" };
                let quick = match &c.quick {
                    None => "QuickCheck::ALL".to_owned(),
                    Some((ranges, id)) if *ranges == common => format!("QuickCheck::common({id})"),
                    Some((ranges, id)) => format!("QuickCheck::new({}, {id})", small_field(ranges)),
                };
                let more = if c.more.is_empty() {
                    "Checks::NONE".to_owned()
                } else {
                    // Runs are shared: the same list of checks appears once.
                    let start = match more_runs.iter().position(|r| *r == c.more) {
                        Some(r) => more_starts[r],
                        None => {
                            more_runs.push(c.more.clone());
                            more_starts.push(more_flat.len());
                            more_flat.extend(c.more.iter().copied());
                            more_flat.len() - c.more.len()
                        }
                    };
                    format!("Checks::at({start}, {})", c.more.len())
                };
                let comment = if index == first_index { format!("    // {key:#06x}\n") } else { String::new() };
                lines.push(format!(
                    "{comment}    Candidate::new({}, {}, ClassId::{}, {end}, {quick}, {more}),",
                    hex(c.mask),
                    hex(c.value),
                    class.class.name
                ));
                index += 1;
            }
            k += run;
        }
        first[usize::from(*key)] = first_index as u16;
    }
    if index > usize::from(u16::MAX) {
        // Keys index candidates with u16; the table has about a thousand.
        bail!("{index} decoder candidates do not fit a u16 index");
    }

    out.push_str("/// The field most quick checks test (`QuickCheck::common`).\n");
    let _ = writeln!(out, "pub(crate) const COMMON_QUICK: [(u8, u8); 2] = {};\n", small_field(&common));
    out.push_str("/// Opcode key → index in `CANDIDATES` of its first candidate (0 for keys no class uses).\n");
    write_array(&mut out, "FIRST", "u16", &first.iter().map(|i| i.to_string()).collect::<Vec<_>>());

    if checks.bitmaps.len() > 64 {
        // The decoder looks the bitmaps up by value, one bit of a u64 each.
        bail!("{} legal-value bitmaps (at most 64)", checks.bitmaps.len());
    }
    out.push_str("/// Legal-value bitmaps of quick checks (bit `v` set: value `v` is legal); bitmap 0 accepts all.\n");
    let _ = writeln!(out, "const BITMAPS: [[u64; 4]; {}] = [", checks.bitmaps.len());
    for b in &checks.bitmaps {
        let _ = writeln!(out, "    [{:#x}, {:#x}, {:#x}, {:#x}],", b[0], b[1], b[2], b[3]);
    }
    out.push_str("];\n");
    out.push_str("/// The bitmaps by value: bit `b` of `LEGAL[v]` set when bitmap `b` holds `v`.\n");
    out.push_str("pub(crate) static LEGAL: [u64; 256] = by_value(&BITMAPS);\n\n");

    for (i, (bits, legal)) in checks.field_checks.iter().enumerate() {
        let ranges = bits.ranges.iter().map(|(lo, w)| format!("({lo}, {w})")).collect::<Vec<_>>().join(", ");
        let legal = legal.iter().map(|(lo, hi)| format!("({lo:#x}, {hi:#x})")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(
            out,
            "const FIELD_CHECK_{i}: FieldCheck = FieldCheck {{ bits: Bits {{ ranges: &[{ranges}], width: {} }}, legal: &[{legal}] }};",
            bits.width()
        );
    }
    if !checks.field_checks.is_empty() {
        out.push('\n');
    }
    if more_flat.len() > usize::from(u16::MAX) || more_runs.iter().any(|r| r.len() > usize::from(u8::MAX)) {
        bail!("{} further checks do not fit the candidates' u16 index and u8 run length", more_flat.len());
    }
    out.push_str("/// The further legality checks of candidates, as runs (`Checks::at(start, len)`).\n");
    let _ = writeln!(out, "pub(crate) static MORE_CHECKS: [FieldCheck; {}] = [", more_flat.len());
    for chunk in more_flat.chunks(8) {
        let names: Vec<String> = chunk.iter().map(|m| format!("FIELD_CHECK_{m}")).collect();
        let _ = writeln!(out, "    {},", names.join(", "));
    }
    out.push_str("];\n\n");

    out.push_str("/// Every opcode key's candidates, in an order that decodes each word as the table's order does, the last\n");
    out.push_str("/// marked `END`: `Candidate::new(mask, value, class, END/NEXT, quick check, further checks)`.\n");
    let _ = writeln!(out, "pub(crate) static CANDIDATES: [Candidate; {index}] = [");
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("];\n\n");

    // Variant choice, per class in class order.
    let mut choice_lines = Vec::new();
    let mut variants = Vec::new();
    let mut at = 0usize;
    for class in &plan.classes {
        let choices = variant_choices(class);
        let last = class.variants.len() - 1;
        if last > usize::from(u8::MAX) {
            bail!("class {} has {} print variants (at most 256)", class.class.name, class.variants.len());
        }
        variants.push(format!("    Variants::new({at}, {}, {last}), // {}", choices.len(), class.class.name));
        for (j, c) in choices.iter().enumerate() {
            let comment = if j == 0 { format!("    // {}\n", class.class.name) } else { String::new() };
            choice_lines.push(if c.gate > 0 {
                format!("{comment}    Choice::gate({}, {}, {}),", hex(c.mask), hex(c.value), c.gate)
            } else {
                format!("{comment}    Choice::new({}, {}, {}),", hex(c.mask), hex(c.value), c.variant)
            });
        }
        at += choices.len();
    }
    if at > usize::from(u16::MAX) {
        bail!("{at} variant conditions do not fit a u16 index");
    }
    out.push_str("/// Per class (in `ClassId` order), its run of `CHOICES` and the variant a word matching none of them prints.\n");
    let _ = writeln!(out, "pub(crate) static VARIANTS: [Variants; {}] = [", variants.len());
    for line in variants {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("];\n\n");
    out.push_str("/// Variant conditions beyond the class's fixed bits, first match wins, runs behind gates:\n");
    out.push_str("/// `Choice::new(mask, value, variant)`, `Choice::gate(mask, value, run length)`.\n");
    let _ = writeln!(out, "pub(crate) static CHOICES: [Choice; {at}] = [");
    for line in choice_lines {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("];\n");
    Ok(out)
}
