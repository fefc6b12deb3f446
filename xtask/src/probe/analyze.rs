//! Per-class analysis: modifier table, operand fields, renders and print template.
//!
//! For each class: pick a legal base word; the *modifier bits* M are the bits whose flip changes the
//! mnemonic token (`IMAD.MOV.U32`); enumerating M gives the modifier table. For each legal modifier
//! value (capped), flip every other analysable bit and diff the token sequences: bits whose changes
//! touch the same place form one field (a *group*). Small groups are enumerated exhaustively (a value
//! table); large ones get a number rule fitted to sampled values. The template is the base text with each
//! changed place replaced by its field rendering. Modifier values whose operand templates differ become
//! print variants, keyed by the smallest subset of M that separates them.

use super::discover::{Found, OPEX_MASK};
use super::nvdisasm::{Nvdisasm, Outcome};
use super::rng::Rng;
use super::text::{diff_sites, split_at_gaps, tokenize, Site};
use anyhow::Result;
use sassport_isa::eval::{format_number, render_value, rule_number};
use sassport_isa::*;
use std::collections::{BTreeMap, BTreeSet};

/// Scheduling bits never printed and never part of an operand: 103:102 and 121:110.
const SCHED_CLEAR: u128 = (3 << 102) | (0xfff << 110);
/// Base words use opex 0x01 (stall 1, legal everywhere seen) and wait-mask bit 116, so that every
/// base prints ` ;` whatever the opex value.
/// Scoreboards 7/7 ("none", bits 115:110): some classes (BRA) reject anything else.
const BASE_OPEX: u128 = (1 << 105) | (1 << 116) | (0x3f << 110);
/// The scheduling bits that decide between ` ;` and `;`: nvdisasm prints `;` only when 103:102, 108:105
/// and 121:116 are zero and both scoreboards (115:110) are 7 ("none"); bits 104 and 127:125 play no part.
pub const SCHED_SPACE_BITS: [(u8, u8); 3] = [(102, 103), (105, 108), (110, 121)];
/// The `sched` field value (bits in the order above) that prints `;`: scoreboards 7/7, the rest zero.
pub const SCHED_NO_SPACE: u64 = 0x3f << 6;
/// Largest modifier group enumerated.
const MAX_M_BITS: usize = 13;
/// Largest modifier group enumerated jointly when it does not split at one place (65536 words a class).
const MAX_WIDE_BITS: usize = 16;
/// Modifier values analysed per class.
const MAX_M_VALUES: usize = 24;

/// A batch of words for one nvdisasm pass; word `i` sits at address `16 * i`.
#[derive(Default)]
pub struct Batch {
    pub words: Vec<u128>,
}

impl Batch {
    pub fn push(&mut self, w: u128) -> usize {
        self.words.push(w);
        self.words.len() - 1
    }
    pub fn run(&self, nv: &Nvdisasm) -> Result<Vec<Outcome>> {
        if self.words.is_empty() {
            return Ok(Vec::new());
        }
        let t = std::time::Instant::now();
        let out = nv.run(&self.words)?;
        println!("  nvdisasm pass: {} words, {:.1}s", self.words.len(), t.elapsed().as_secs_f64());
        Ok(out)
    }
}

pub fn addr_of(i: usize) -> u64 {
    16 * i as u64
}

/// Replaces an absolute branch target (the last hex number) by an address-independent token.
pub fn normalize(text: &str, addr: u64) -> String {
    let toks = tokenize(text);
    let Some(ti) = toks.iter().rposition(|t| t.starts_with("0x") && u64::from_str_radix(&t[2..], 16).is_ok()) else {
        return text.to_owned();
    };
    let v = u64::from_str_radix(&toks[ti][2..], 16).unwrap_or(0) as i64;
    let neg = ti > 0 && toks[ti - 1] == "-";
    let target = if neg { -v } else { v };
    let rel = target.wrapping_sub(addr as i64);
    let tok = if rel < 0 { format!("RELm{:x}", rel.unsigned_abs()) } else { format!("RELp{rel:x}") };
    let start = if neg { ti - 1 } else { ti };
    let mut out: String = toks[..start].concat();
    out.push_str(&tok);
    out.push_str(&toks[ti + 1..].concat());
    out
}

fn bits_of(mask: u128) -> Vec<u32> {
    (0..128).filter(|b| mask >> b & 1 == 1).collect()
}

fn insert_bits(word: u128, bits: &[u32], value: u64) -> u128 {
    let mut w = word;
    for (i, &b) in bits.iter().enumerate() {
        w = (w & !(1u128 << b)) | (u128::from(value >> i & 1) << b);
    }
    w
}

fn extract_bits(word: u128, bits: &[u32]) -> u64 {
    bits.iter().enumerate().fold(0, |v, (i, &b)| v | (((word >> b) & 1) as u64) << i)
}

/// Bit list → ranges (first least significant).
pub fn ranges(bits: &[u32]) -> Vec<BitRange> {
    let mut out: Vec<BitRange> = Vec::new();
    for &b in bits {
        match out.last_mut() {
            Some(r) if u32::from(r.hi) + 1 == b => r.hi = b as u8,
            _ => out.push(BitRange { lo: b as u8, hi: b as u8 }),
        }
    }
    out
}

/// Start and end token of the mnemonic (after an optional `@P0 ` guard).
fn mnemonic_region(toks: &[&str]) -> (usize, usize) {
    let mut k0 = 0;
    if toks.first() == Some(&"@") {
        k0 = toks.iter().position(|t| *t == " ").map_or(toks.len(), |p| p + 1);
    }
    let mut k1 = k0;
    while k1 < toks.len() && toks[k1] != " " && toks[k1] != ";" {
        k1 += 1;
    }
    (k0, k1)
}

fn mnemonic_text(text: &str) -> String {
    let toks = tokenize(text);
    let (a, b) = mnemonic_region(&toks);
    toks[a..b].concat()
}

/// Per-class working state.
struct Work {
    fi: usize,
    base: u128,
    base2: Option<u128>,
    pcrel: bool,
    flip: Vec<u32>,
    m_bits: Vec<u32>,
    mnemonic: String,
    /// Legal modifier values → modifier text.
    mods: BTreeMap<u64, String>,
    opex_legal: Vec<u64>,
    /// Reuse slots: (a representative opex value that sets only this slot, the values that set it).
    reuse_slots: Vec<(u64, BTreeSet<u64>)>,
    /// Analysed modifier values.
    analyses: Vec<MAnalysis>,
    notes: Vec<String>,
    /// Modifiers wider than [`MAX_M_BITS`], split at one place of the modifier text: the bits printed
    /// after that place, their own table (enumerated with `m_bits` at the base value), and the base's
    /// text after the place (stripped from `mods`). Printed as field `mods_b` right after `{mods}`.
    mods_b: Option<(Vec<u32>, BTreeMap<u64, String>, String)>,
    /// Modifiers wider than [`MAX_M_BITS`] that did not split at one place: enumerated jointly up to
    /// [`MAX_WIDE_BITS`] and left to `factor_mods` to split into parts.
    wide_joint: bool,
    /// Modifier values for which nvdisasm prints an empty line (no mnemonic, no operands).
    silent: BTreeSet<u64>,
}

struct MAnalysis {
    m: u64,
    word: u128,
    text: String,
    groups: Vec<Group>,
    /// Bits whose flip changed the mnemonic under this modifier value.
    conflicts: Vec<u32>,
    /// Bits whose flip made the word illegal and that are in no group.
    illegal_bits: Vec<u32>,
}

#[derive(Clone)]
struct Group {
    bits: Vec<u32>,
    sites: Vec<Site>,
    /// value → site texts (None: illegal).
    samples: BTreeMap<u64, Option<Vec<String>>>,
    exhaustive: bool,
    renders: Vec<Render>,
    kind: FieldKind,
    failed: bool,
    /// A `.reuse` slot driven by the opex field (bits are empty; renders precomputed).
    opex: bool,
    /// Split from a failed group that inserted at one place (`[R6.X4+0x10]`): never merged again.
    split: bool,
    /// Two dependent neighbours enumerated together (`merge_dependent_pairs`): never merged again.
    joint: bool,
    /// The all-ones value (RZ) printed differently around the field and was left out (see `rz_variants`).
    rz_dropped: bool,
}

/// Sorts `sites` and merges those that overlap or touch: no literal text separates them.
fn coalesce_sites(sites: &mut Vec<Site>) {
    sites.sort();
    let mut merged: Vec<Site> = Vec::with_capacity(sites.len());
    for s in sites.drain(..) {
        match merged.last_mut() {
            Some(l) if s.start <= l.end => l.end = l.end.max(s.end),
            _ => merged.push(s),
        }
    }
    *sites = merged;
}

/// Adds another group's (or part's) bits and sites to `bits` and `sites`: bits sorted, sites coalesced.
fn absorb<T: Ord>(bits: &mut Vec<T>, sites: &mut Vec<Site>, more_bits: Vec<T>, more_sites: Vec<Site>) {
    bits.extend(more_bits);
    bits.sort_unstable();
    sites.extend(more_sites);
    coalesce_sites(sites);
}

pub fn analyze_all(nv: &Nvdisasm, rng: &mut Rng, found: &[Found], only: &[String]) -> Result<Vec<Class>> {
    // Stage 1: legal base words.
    let mut batch = Batch::default();
    let mut cands: Vec<Vec<(usize, u128)>> = Vec::new();
    let wanted = |f: &Found| {
        only.is_empty()
            || only.iter().any(|o| {
                o.eq_ignore_ascii_case(&format!("{:#x}", f.opcode)) || o.eq_ignore_ascii_case(&format!("{:#06x}", f.opcode))
            })
    };
    for f in found {
        let mut v = Vec::new();
        if !wanted(f) {
            cands.push(v);
            continue;
        }
        // Reuse flag 125 (the fourth operand's; 124:122 are in the opex field) clear, so that the base
        // prints no `.reuse` and every reuse slot shows as an insertion.
        let mut words: Vec<u128> =
            f.samples.iter().take(8).map(|&s| (s & !OPEX_MASK & !SCHED_CLEAR & !(1 << 125)) | BASE_OPEX).collect();
        words.push(f.fixed_value | BASE_OPEX);
        let rz: u128 = (0xff_ffff << 16) | (0xff << 64) | (0x3ff << 81) | (7 << 12);
        words.push((rz & !f.fixed_mask & !OPEX_MASK & !SCHED_CLEAR) | f.fixed_value | BASE_OPEX);
        // Fallbacks: opex 0 (some classes accept nothing else).
        let fallback: Vec<u128> = words.iter().take(3).map(|&w| w & !OPEX_MASK).collect();
        for w in words.into_iter().chain(fallback) {
            v.push((batch.push(w), w));
        }
        cands.push(v);
    }
    let out = batch.run(nv)?;
    let mut works: Vec<Work> = Vec::new();
    for (fi, f) in found.iter().enumerate() {
        if !wanted(f) {
            continue;
        }
        // Legal candidates, those printing no NaN or infinity first (a float operand that is NaN hides its
        // mantissa bits from single flips: `+QNAN` whatever they hold).
        let mut legal: Vec<(bool, std::cmp::Reverse<usize>, u128)> = cands[fi]
            .iter()
            .filter_map(|(i, w)| {
                out[*i].text().map(|t| (t.contains("NAN") || t.contains("INF"), std::cmp::Reverse(tokenize(t).len()), *w))
            })
            .collect();
        legal.sort_by_key(|x| x.0);
        let legal: Vec<(bool, u128)> = legal.into_iter().map(|x| (x.0, x.2)).collect();
        let legal: Vec<u128> = legal.into_iter().map(|x| x.1).collect();
        let Some(&base) = legal.first() else {
            eprintln!("class {:#06x}/{}: no legal base word found", f.opcode, fi);
            continue;
        };
        let flip_mask = !(f.fixed_mask | OPEX_MASK | SCHED_CLEAR) & !0xfff;
        works.push(Work {
            fi,
            base,
            base2: legal.get(1).copied(),
            pcrel: false,
            flip: bits_of(flip_mask).into_iter().filter(|&b| b >= 12).collect(),
            m_bits: Vec::new(),
            mnemonic: String::new(),
            mods: BTreeMap::new(),
            opex_legal: Vec::new(),
            reuse_slots: Vec::new(),
            analyses: Vec::new(),
            notes: Vec::new(),
            mods_b: None,
            wide_joint: false,
            silent: BTreeSet::new(),
        });
    }

    // Stage 2: modifier bits and PC-relative detection.
    let mut batch = Batch::default();
    let mut idx: Vec<(usize, usize, Vec<usize>, Option<(usize, Vec<usize>)>)> = Vec::new();
    for w in &works {
        let b0 = batch.push(w.base);
        let b1 = batch.push(w.base);
        let f0: Vec<usize> = w.flip.iter().map(|&b| batch.push(w.base ^ (1u128 << b))).collect();
        let second = w.base2.map(|b2| {
            let i = batch.push(b2);
            (i, w.flip.iter().map(|&b| batch.push(b2 ^ (1u128 << b))).collect())
        });
        idx.push((b0, b1, f0, second));
    }
    let out = batch.run(nv)?;
    for (w, (b0, b1, f0, second)) in works.iter_mut().zip(&idx) {
        let t0 = out[*b0].text().unwrap_or("").to_owned();
        let t1 = out[*b1].text().unwrap_or("").to_owned();
        w.pcrel = t0 != t1;
        let mut m = BTreeSet::new();
        let mn = mnemonic_text(&t0);
        for (k, &bit) in w.flip.iter().enumerate() {
            if let Some(t) = out[f0[k]].text() {
                if mnemonic_text(t) != mn && !is_value_bit(&t0, t) {
                    m.insert(bit);
                }
            }
        }
        if let Some((i2, f2)) = second {
            if let Some(t2) = out[*i2].text() {
                let mn2 = mnemonic_text(t2);
                for (k, &bit) in w.flip.iter().enumerate() {
                    if let Some(t) = out[f2[k]].text() {
                        if mnemonic_text(t) != mn2 && !is_value_bit(t2, t) {
                            m.insert(bit);
                        }
                    }
                }
            }
        }
        w.m_bits = m.into_iter().collect();
    }
    joint_modifier_bits(nv, &mut works, found)?;

    // Stages 3-5, with one retry for classes whose operand flips changed the mnemonic.
    for round in 0..2 {
        let todo: Vec<usize> = (0..works.len())
            .filter(|&i| {
                round == 0 || works[i].analyses.iter().any(|a| !a.conflicts.is_empty())
            })
            .collect();
        if todo.is_empty() {
            break;
        }
        if round > 0 {
            for &i in &todo {
                let w = &mut works[i];
                let mut m: BTreeSet<u32> = w.m_bits.iter().copied().collect();
                for a in &w.analyses {
                    m.extend(a.conflicts.iter().copied());
                }
                w.m_bits = m.into_iter().collect();
                w.analyses.clear();
            }
        }
        split_wide_modifiers(nv, &mut works, &todo)?;
        modifier_stage(nv, &mut works, &todo)?;
        strip_wide_suffix(&mut works, &todo);
        operand_stage(nv, rng, &mut works, &todo)?;
        if round == 0 {
            promote_hidden_operands(nv, &mut works, &todo)?;
        }
        let conflicted = todo.iter().filter(|&&i| works[i].analyses.iter().any(|a| !a.conflicts.is_empty())).count();
        println!("  round {round}: {} classes analysed, {conflicted} with modifier conflicts", todo.len());
    }

    un_rz_bases(nv, rng, &mut works)?;
    rz_reshapes_neighbour(nv, &mut works)?;
    let n_orig = works.len();
    let clones = rz_clones(nv, rng, &mut works, found)?;
    let mut classes = Vec::new();
    for w in &works[..n_orig] {
        classes.push(build_class(&found[w.fi], w));
    }
    for (orig, mask, ci) in clones {
        let cc = build_class(&found[works[ci].fi], &works[ci]);
        merge_rz_variants(&mut classes[orig], cc, mask);
    }
    operand_value_variants(nv, &mut classes, &works[..n_orig])?;
    sched_rule(nv, &mut classes, &works[..n_orig])?;
    Ok(classes)
}

/// An RZ register can reshape a neighbouring operand only when that operand is not zero (`a[URZ]` but
/// `a[0x1c4]`, not `a[URZ+0x1c4]`): the base word (offset zero) shows nothing. For each register group
/// (a number rendered `R..`/`UR..` with an `RZ`/`URZ` special) and each single-site number group within two
/// tokens of it, the word with the register all ones and the neighbour at a non-zero value is printed;
/// when the text differs from what the two renders predict, the register is marked for an RZ variant
/// (`rz_clones` analyses the class again with the register RZ).
fn rz_reshapes_neighbour(nv: &Nvdisasm, works: &mut [Work]) -> Result<()> {
    let mut batch = Batch::default();
    // (work, analysis, register group, predicted text, batch index)
    let mut plan: Vec<(usize, usize, usize, String, usize)> = Vec::new();
    for (wi, w) in works.iter().enumerate() {
        if w.pcrel {
            continue;
        }
        for (ai, a) in w.analyses.iter().enumerate() {
            let toks = tokenize(&a.text);
            for (gi, g) in a.groups.iter().enumerate() {
                let [Render::Number { rule, specials }] = g.renders.as_slice() else { continue };
                let ones = (1u64 << g.bits.len().min(63)) - 1;
                let rz = specials.iter().any(|sp| sp.0 == ones && matches!(&sp.1, Special::Text(t) if t.ends_with("RZ")));
                if g.failed || g.rz_dropped || g.sites.len() != 1 || !rule.prefix.ends_with('R') || !rz {
                    continue;
                }
                for (hi, h) in a.groups.iter().enumerate() {
                    let [Render::Number { .. }] = h.renders.as_slice() else { continue };
                    if hi == gi || h.failed || h.opex || h.sites.len() != 1 || h.bits.len() < 4 {
                        continue;
                    }
                    let (x, y) = (g.sites[0], h.sites[0]);
                    // Tokens between the two, not counting a modifier that prints nothing at zero (`.X4` in
                    // `[RZ.X4+UR4]`): the register and its neighbour are adjacent once it is off.
                    let (gap_from, gap_to) = if x.end <= y.start { (x.end, y.start) } else { (y.end, x.start) };
                    let silent_between: usize = a
                        .groups
                        .iter()
                        .enumerate()
                        .filter(|&(ki, k)| ki != gi && ki != hi && is_silent_at_zero(k))
                        .flat_map(|(_, k)| k.sites.iter())
                        .filter(|z| gap_from <= z.start && z.end <= gap_to)
                        .map(|z| z.end - z.start)
                        .sum();
                    let gap = x.start.abs_diff(y.end).min(y.start.abs_diff(x.end)).saturating_sub(silent_between);
                    if gap > 2 || x.conflicts(&y) || (x.start < y.end && y.start < x.end) {
                        continue;
                    }
                    let v = 0x10u64.min((1u64 << h.bits.len().min(63)) - 1);
                    let word = insert_bits(insert_bits(a.word, &g.bits, ones), &h.bits, v);
                    let rg = render_value(&g.renders[0], ones, g.bits.len() as u32, 0);
                    let rh = render_value(&h.renders[0], v, h.bits.len() as u32, 0);
                    let (Some(rg), Some(rh)) = (rg, rh) else { continue };
                    let mut parts = vec![(x, rg), (y, rh)];
                    if let Some(predicted) = splice(&toks, &mut parts.clone()) {
                        plan.push((wi, ai, gi, predicted, batch.push(word)));
                    }
                    // The register may vanish only while a modifier printed with it is off: `[UR4]` but
                    // `[RZ.X4+UR4]` (LDS). The base's modifier can be on, so the words are asked again with
                    // every non-zero single-site neighbour of the register that prints nothing at zero set
                    // to zero.
                    let mut quiet = word;
                    for (ki, k) in a.groups.iter().enumerate() {
                        if ki == gi || ki == hi || !is_silent_at_zero(k) {
                            continue;
                        }
                        let z = k.sites[0];
                        let touches = z.start.abs_diff(x.end).min(x.start.abs_diff(z.end)) == 0;
                        if touches && extract_bits(word, &k.bits) != 0 {
                            quiet = insert_bits(quiet, &k.bits, 0);
                            parts.push((z, String::new()));
                        }
                    }
                    if quiet != word {
                        if let Some(predicted) = splice(&toks, &mut parts) {
                            plan.push((wi, ai, gi, predicted, batch.push(quiet)));
                        }
                    }
                }
            }
        }
    }
    if plan.is_empty() {
        return Ok(());
    }
    let out = batch.run(nv)?;
    let mut marked = 0;
    for (wi, ai, gi, predicted, k) in plan {
        let Some(t) = out[k].text() else { continue };
        // The mnemonic may depend on the register (`IMAD.MOV`): compare the operands only.
        let t = with_mnemonic(t, &mnemonic_text(&predicted));
        if t != predicted {
            let g = &mut works[wi].analyses[ai].groups[gi];
            if !g.rz_dropped {
                g.rz_dropped = true;
                marked += 1;
            }
        }
    }
    println!("  RZ reshaping a neighbour: {marked} registers get an RZ variant");
    Ok(())
}

/// A single-site group (a modifier such as `.X4`) that prints nothing when its bits are zero.
fn is_silent_at_zero(k: &Group) -> bool {
    let [render] = k.renders.as_slice() else { return false };
    !k.failed && !k.opex && k.sites.len() == 1 && render_value(render, 0, k.bits.len() as u32, 0).is_some_and(|t| t.is_empty())
}

/// The base tokens with each site replaced by its text; None when two sites overlap.
fn splice(toks: &[&str], parts: &mut [(Site, String)]) -> Option<String> {
    parts.sort_by_key(|p| (p.0.start, p.0.end));
    let mut out = String::new();
    let mut at = 0;
    for (site, text) in parts.iter() {
        if site.start < at {
            return None;
        }
        out.push_str(&toks[at..site.start].concat());
        out.push_str(text);
        at = site.end;
    }
    out.push_str(&toks[at..].concat());
    Some(out)
}

/// A base word whose register operand is RZ can hide how that operand prints: `[URZ]`, but
/// `[RZ.X4+URZ]` and `[R2.X4+URZ]` (the scale prints with the register), or a whole `[R1+0x10]` operand
/// that never splits. For classes where a register byte of the base (23:16, 31:24, 39:32, 71:64) is all
/// ones and either a group failed or that register vanishes at a place another field prints too, the class
/// is analysed again with those bytes zero (R0); the new analysis is kept unless it fails more
/// groups or its base is illegal. (`rz_clones` then analyses the RZ case as its own variant.)
fn un_rz_bases(nv: &Nvdisasm, rng: &mut Rng, works: &mut [Work]) -> Result<()> {
    let failed = |w: &Work| w.analyses.iter().flat_map(|a| a.groups.iter()).filter(|g| g.failed).count();
    let mut todo = Vec::new();
    let mut saved: Vec<(usize, u128, BTreeMap<u64, String>, Vec<u64>, Vec<(u64, BTreeSet<u64>)>, Vec<MAnalysis>, String)> = Vec::new();
    for (i, w) in works.iter_mut().enumerate() {
        let Some(a) = w.analyses.first() else { continue };
        let mut bytes = Vec::new();
        for lo in [16u32, 24, 32, 64] {
            let bits: Vec<u32> = (lo..lo + 8).collect();
            if !bits.iter().all(|b| w.flip.contains(b) && !w.m_bits.contains(b)) || extract_bits(w.base, &bits) != 0xff {
                continue;
            }
            let vanishes_with_company = a.groups.iter().any(|g| {
                g.bits == bits
                    && g.renders.iter().any(|r| matches!(r, Render::Number { specials, .. } if specials.iter().any(|sp| sp.0 == 0xff && sp.1 == Special::Text(String::new()))))
                    && a.groups.iter().any(|h| h.bits != g.bits && h.sites.iter().any(|x| g.sites.iter().any(|y| x.start == y.start)))
            });
            let any_failed = w.analyses.iter().any(|a| a.groups.iter().any(|g| g.failed));
            if vanishes_with_company || any_failed {
                bytes.push(bits);
            }
        }
        if bytes.is_empty() {
            continue;
        }
        saved.push((i, w.base, std::mem::take(&mut w.mods), w.opex_legal.clone(), w.reuse_slots.clone(), std::mem::take(&mut w.analyses), w.mnemonic.clone()));
        // Zero: R0 for a register, and no offset for an immediate that shares the byte.
        for bits in &bytes {
            w.base = insert_bits(w.base, bits, 0);
        }
        todo.push(i);
    }
    if todo.is_empty() {
        return Ok(());
    }
    modifier_stage(nv, works, &todo)?;
    strip_wide_suffix(works, &todo);
    operand_stage(nv, rng, works, &todo)?;
    let mut kept = 0;
    for (i, base, mods, opex, reuse, analyses, mnemonic) in saved {
        let old_failed = analyses.iter().flat_map(|a| a.groups.iter()).filter(|g| g.failed).count();
        let w = &mut works[i];
        let worse = w.mods.is_empty()
            || w.analyses.is_empty()
            || w.mnemonic != mnemonic
            || failed(w) > old_failed
            || w.analyses.iter().any(|a| !a.conflicts.is_empty());
        if worse {
            w.base = base;
            w.mods = mods;
            w.opex_legal = opex;
            w.reuse_slots = reuse;
            w.analyses = analyses;
            w.mnemonic = mnemonic;
        } else {
            kept += 1;
        }
    }
    println!("  RZ bases: {} classes analysed again with registers other than RZ, {kept} kept", todo.len());
    Ok(())
}

/// Classes without scoreboards (fixed-latency ALU ops) print `;` whatever bits 115:110 hold; the others
/// print ` ;` unless those are 7/7. One word per class (scheduling bits zero, scoreboards 0/0) decides;
/// for the first kind the `sched` field drops 115:110 again.
fn sched_rule(nv: &Nvdisasm, classes: &mut [Class], works: &[Work]) -> Result<()> {
    let clear: u128 = (3 << 102) | (0xf << 105) | (0xfff << 110);
    let mut batch = Batch::default();
    // The base word first, then each analysed modifier value's word (the base may print an empty line).
    let idx: Vec<Vec<usize>> = works
        .iter()
        .map(|w| std::iter::once(w.base).chain(w.analyses.iter().map(|a| a.word)).map(|x| batch.push(x & !clear)).collect())
        .collect();
    let out = batch.run(nv)?;
    let mut ignored = 0;
    for ((c, _), ks) in classes.iter_mut().zip(works).zip(&idx) {
        let Some(t) = ks.iter().filter_map(|&k| out[k].text()).find(|t| t.ends_with(';')) else { continue };
        if t.ends_with(" ;") {
            continue;
        }
        let Some(f) = c.fields.iter_mut().find(|f| f.name == "sched") else { continue };
        f.bits = vec![BitRange { lo: 102, hi: 103 }, BitRange { lo: 105, hi: 108 }, BitRange { lo: 116, hi: 121 }];
        for v in c.variants.iter_mut() {
            for p in v.pieces.iter_mut() {
                if let Piece::Field { field, render: Render::Table { entries, .. } } = p {
                    if field == "sched" {
                        *entries = vec![(0, String::new())];
                    }
                }
            }
        }
        ignored += 1;
    }
    println!("  sched: {ignored} classes ignore the scoreboards for the space before ';'");
    Ok(())
}

/// Registers whose RZ value reshapes the operand text around them (`[R1+0xc]`, `[0xc]`, `[RZ]`): for each
/// (class, register) where that happened and the RZ words reach this class (no earlier class of the
/// opcode takes them), the class is analysed again on a base word with the register RZ and its bits held
/// fixed. Returns (original work, register mask, clone work).
fn rz_clones(nv: &Nvdisasm, rng: &mut Rng, works: &mut Vec<Work>, found: &[Found]) -> Result<Vec<(usize, u128, usize)>> {
    let mut plan = Vec::new();
    for (i, w) in works.iter().enumerate() {
        let mut masks: BTreeSet<u128> = BTreeSet::new();
        for a in &w.analyses {
            for g in &a.groups {
                if g.rz_dropped && !g.failed {
                    masks.insert(g.bits.iter().fold(0u128, |m, &b| m | 1u128 << b));
                }
            }
        }
        for mask in masks {
            let cb = w.base | mask;
            let f = &found[w.fi];
            let taken_earlier = found[..w.fi]
                .iter()
                .any(|g| g.opcode == f.opcode && cb & g.fixed_mask == g.fixed_value);
            if !taken_earlier {
                plan.push((i, mask, cb));
            }
        }
    }
    let mut out = Vec::new();
    let first = works.len();
    for &(i, mask, cb) in &plan {
        let w = &works[i];
        let clone = Work {
            fi: w.fi,
            base: cb,
            base2: None,
            pcrel: w.pcrel,
            flip: w.flip.iter().copied().filter(|&b| mask >> b & 1 == 0).collect(),
            m_bits: w.m_bits.clone(),
            mnemonic: String::new(),
            mods: BTreeMap::new(),
            opex_legal: Vec::new(),
            reuse_slots: Vec::new(),
            analyses: Vec::new(),
            notes: Vec::new(),
            mods_b: w.mods_b.clone(),
            wide_joint: w.wide_joint,
            silent: BTreeSet::new(),
        };
        out.push((i, mask, works.len()));
        works.push(clone);
    }
    if out.is_empty() {
        return Ok(out);
    }
    let todo: Vec<usize> = (first..works.len()).collect();
    modifier_stage(nv, works, &todo)?;
    operand_stage(nv, rng, works, &todo)?;
    println!("  RZ variants: {} registers re-analysed", todo.len());
    // Keep clones whose base printed and whose mnemonic agrees with the original's.
    Ok(out
        .into_iter()
        .filter(|&(i, _, ci)| !works[ci].mods.is_empty() && !works[ci].analyses.is_empty() && works[ci].mnemonic == works[i].mnemonic)
        .collect())
}

/// Prepends the clone class's variants, each also requiring the register `mask` to be all ones, to
/// `class`; clone fields with the same bits and kind as an existing field take its name, others get a
/// fresh one.
fn merge_rz_variants(class: &mut Class, clone: Class, mask: u128) {
    let mut rename: BTreeMap<String, String> = BTreeMap::new();
    for f in &clone.fields {
        if let Some(e) = class.fields.iter().find(|e| e.bits == f.bits && e.kind == f.kind) {
            rename.insert(f.name.clone(), e.name.clone());
            continue;
        }
        let mut name = format!("{}z", f.name);
        while class.fields.iter().any(|e| e.name == name) {
            name.push('z');
        }
        rename.insert(f.name.clone(), name.clone());
        class.fields.push(Field { name, bits: f.bits.clone(), kind: f.kind });
    }
    let mut variants: Vec<Variant> = clone
        .variants
        .into_iter()
        .map(|v| Variant {
            when: Pattern { mask: v.when.mask | mask, value: v.when.value | mask },
            pieces: v
                .pieces
                .into_iter()
                .map(|p| match p {
                    Piece::Field { field, render } => Piece::Field { field: rename.get(&field).cloned().unwrap_or(field), render },
                    t => t,
                })
                .collect(),
        })
        .collect();
    variants.append(&mut class.variants);
    class.variants = variants;
}

/// Operands that print only under a flag (`desc[UR6][R2.64]` when bit 101 is set): on the base word their
/// bits change nothing, so no group holds them. For each small group (at most two bits) and each of its
/// other values, the bits in no group are flipped again; if any now changes the text, the small group
/// is made modifier bits (a conflict), so that the retry analyses each of its values with its own
/// template.
fn promote_hidden_operands(nv: &Nvdisasm, works: &mut [Work], todo: &[usize]) -> Result<()> {
    let mut batch = Batch::default();
    let mut plan: Vec<(usize, Vec<u32>, usize, Vec<usize>)> = Vec::new();
    for &i in todo {
        let w = &works[i];
        let Some(a) = w.analyses.first() else { continue };
        let in_groups: BTreeSet<u32> = a.groups.iter().flat_map(|g| g.bits.iter().copied()).collect();
        let dead: Vec<u32> = w
            .flip
            .iter()
            .copied()
            .filter(|b| !w.m_bits.contains(b) && !in_groups.contains(b) && !a.illegal_bits.contains(b) && !a.conflicts.contains(b))
            .collect();
        if dead.is_empty() {
            continue;
        }
        for g in &a.groups {
            if g.opex || g.failed || g.bits.is_empty() || g.bits.len() > 2 {
                continue;
            }
            let base_v = extract_bits(a.word, &g.bits);
            for v in 0..1u64 << g.bits.len() {
                if v == base_v {
                    continue;
                }
                let word = insert_bits(a.word, &g.bits, v);
                let b0 = batch.push(word);
                let flips = dead.iter().map(|&d| batch.push(word ^ (1u128 << d))).collect();
                plan.push((i, g.bits.clone(), b0, flips));
            }
        }
    }
    if plan.is_empty() {
        return Ok(());
    }
    let out = batch.run(nv)?;
    let mut promoted = 0;
    for (i, bits, b0, flips) in plan {
        let Some(t0) = out[b0].text() else { continue };
        if flips.iter().any(|&k| out[k].text().is_some_and(|t| t != t0)) {
            if let Some(a) = works[i].analyses.first_mut() {
                if !bits.iter().all(|b| a.conflicts.contains(b)) {
                    a.conflicts.extend(bits.iter().copied());
                    promoted += 1;
                }
            }
        }
    }
    println!("  hidden operands: {promoted} flags made modifier bits");
    Ok(())
}

/// Joint modifier fields: bits whose single flip from the base is illegal although the oracle saw them
/// vary within the class (a two-bit field whose legal values are 01 and 10, as F2F's destination format
/// or F2FP's rounding 00/11). Flipping such bits in pairs reaches the other legal values; a pair whose
/// flip is legal and changes the mnemonic joins the modifier bits.
fn joint_modifier_bits(nv: &Nvdisasm, works: &mut [Work], found: &[Found]) -> Result<()> {
    const MAX_CANDIDATES: usize = 24;
    let mut batch = Batch::default();
    let mut single: Vec<Vec<(u32, usize)>> = Vec::new();
    for w in works.iter() {
        let varying = found[w.fi].varying;
        let cands: Vec<u32> =
            w.flip.iter().copied().filter(|&b| varying >> b & 1 == 1 && !w.m_bits.contains(&b)).collect();
        single.push(cands.iter().map(|&b| (b, batch.push(w.base ^ (1u128 << b)))).collect());
    }
    let out = batch.run(nv)?;
    let mut batch = Batch::default();
    let mut pairs: Vec<(usize, Vec<(u32, u32, usize)>)> = Vec::new();
    for (wi, w) in works.iter().enumerate() {
        let illegal: Vec<u32> =
            single[wi].iter().filter(|(_, k)| out[*k].text().is_none()).map(|(b, _)| *b).take(MAX_CANDIDATES).collect();
        if illegal.len() < 2 {
            continue;
        }
        let base = batch.push(w.base);
        let mut v = vec![(0, 0, base)];
        for (i, &a) in illegal.iter().enumerate() {
            for &b in &illegal[i + 1..] {
                v.push((a, b, batch.push(w.base ^ (1u128 << a) ^ (1u128 << b))));
            }
        }
        pairs.push((wi, v));
    }
    let out = batch.run(nv)?;
    for (wi, v) in pairs {
        let Some(t0) = out[v[0].2].text() else { continue };
        let mn0 = mnemonic_text(t0);
        let w = &mut works[wi];
        let mut m: BTreeSet<u32> = w.m_bits.iter().copied().collect();
        for &(a, b, k) in &v[1..] {
            if out[k].text().is_some_and(|t| mnemonic_text(t) != mn0) {
                m.insert(a);
                m.insert(b);
            }
        }
        w.m_bits = m.into_iter().collect();
    }
    Ok(())
}

/// Some modifiers depend on operand values: `IMAD.MOV.U32 R1, RZ, RZ, c[..]` but `IMAD.U32 R1, R2, R3, c[..]`;
/// `IMAD.SHL.U32 R9, R0, 0x4, RZ` (a power of two and RZ), `IMAD.IADD R9, R0, 0x1, R5`, `IMAD.MOV` for 0x0.
/// For single-variant classes with few modifier bits, the *conditions* are: each register operand all
/// ones (RZ), each immediate zero, one, a power of two or all ones. The modifier table is enumerated with
/// every operand at a plain value (the default) and under each condition; the conditions that change it
/// are combined (one value or "other" per field) and each combination whose table differs becomes a
/// variant `when` its fields hold those values, most specific first. A variant whose table equals that of
/// the variant its words would otherwise reach is dropped.
fn operand_value_variants(nv: &Nvdisasm, classes: &mut [Class], works: &[Work]) -> Result<()> {
    type Cond = (usize, u64); // (field index among the candidates, value)
    struct Plan {
        ci: usize,
        fields: Vec<Field>,
        plain: u128,
        conds: Vec<Cond>,
        /// Pairs of condition indices tested together (their words follow the singles' in `idx`).
        pairs: Vec<(usize, usize)>,
        idx: Vec<Vec<usize>>,
    }
    let m_values = |w: &Work| 1u64 << w.m_bits.len();
    let mut batch = Batch::default();
    let mut plans = Vec::new();
    for (ci, (c, w)) in classes.iter().zip(works).enumerate() {
        if c.variants.len() != 1 || w.m_bits.is_empty() || w.m_bits.len() > 8 || c.field("mods").is_none() || w.mods_b.is_some() {
            continue;
        }
        let fields: Vec<Field> = c
            .fields
            .iter()
            .filter(|f| match f.kind {
                FieldKind::Register(RegFile::Gpr) | FieldKind::Register(RegFile::Uniform) => true,
                FieldKind::Immediate => f.width() >= 6,
                _ => false,
            })
            .cloned()
            .collect();
        if fields.is_empty() {
            continue;
        }
        // Plain operand values: registers R1, R2, ... (never RZ); immediates 0x2b (no special value).
        let mut plain = w.base;
        let mut conds: Vec<Cond> = Vec::new();
        for (k, f) in fields.iter().enumerate() {
            let width = f.width();
            let ones = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
            if f.kind == FieldKind::Immediate {
                plain = f.insert(plain, 0x2b);
                conds.push((k, 0));
                for b in 0..width.min(64) {
                    conds.push((k, 1u64 << b));
                }
                conds.push((k, ones));
            } else {
                plain = f.insert(plain, k as u64 + 1);
                conds.push((k, ones));
            }
        }
        let mut words = vec![plain];
        words.extend(conds.iter().map(|&(k, v)| fields[k].insert(plain, v)));
        // Pairs of conditions on different fields (`IMAD.SHL` needs a power of two *and* RZ), when few.
        let mut pairs = Vec::new();
        for (i, &(ka, va)) in conds.iter().enumerate() {
            for (j, &(kb, vb)) in conds.iter().enumerate().skip(i + 1) {
                if ka != kb {
                    pairs.push((i, j, fields[kb].insert(fields[ka].insert(plain, va), vb)));
                }
            }
        }
        if (words.len() + pairs.len()) as u64 * m_values(w) > 30_000 {
            pairs.clear();
        }
        words.extend(pairs.iter().map(|p| p.2));
        let idx: Vec<Vec<usize>> = words
            .iter()
            .map(|&wd| (0..m_values(w)).map(|m| batch.push(insert_bits(wd, &w.m_bits, m))).collect())
            .collect();
        let pairs = pairs.into_iter().map(|(i, j, _)| (i, j)).collect();
        plans.push(Plan { ci, fields, plain, conds, pairs, idx });
    }
    let out = batch.run(nv)?;
    let table_of = |c: &Class, out: &[Outcome], ks: &[usize]| -> Option<Vec<(u64, String)>> {
        let mut e = Vec::new();
        for (m, &k) in ks.iter().enumerate() {
            if let Some(t) = out[k].text() {
                let mn = mnemonic_text(t);
                e.push((m as u64, mn.strip_prefix(c.mnemonic.as_str())?.to_owned()));
            }
        }
        Some(e)
    };
    // Second pass: every combination of the relevant conditions.
    let mut batch2 = Batch::default();
    struct Combo {
        ci: usize,
        fields: Vec<Field>,
        default: Vec<(u64, String)>,
        /// (field index, value) per specified field, and the word indices per modifier value.
        combos: Vec<(Vec<Cond>, Vec<usize>)>,
    }
    let mut combos_all = Vec::new();
    for p in &plans {
        let c = &classes[p.ci];
        let w = &works[p.ci];
        let Some(default) = table_of(c, &out, &p.idx[0]) else { continue };
        let singles: Vec<Option<Vec<(u64, String)>>> =
            (0..p.conds.len()).map(|i| table_of(c, &out, &p.idx[i + 1])).collect();
        let mut rel = vec![false; p.conds.len()];
        for (i, t) in singles.iter().enumerate() {
            rel[i] = t.as_ref().is_some_and(|t| *t != default);
        }
        for (n, &(i, j)) in p.pairs.iter().enumerate() {
            let Some(t) = table_of(c, &out, &p.idx[1 + p.conds.len() + n]) else { continue };
            if singles[j].as_ref().is_some_and(|s| *s != t) {
                rel[i] = true;
            }
            if singles[i].as_ref().is_some_and(|s| *s != t) {
                rel[j] = true;
            }
        }
        let relevant: Vec<Cond> = p.conds.iter().zip(&rel).filter(|(_, &r)| r).map(|(&cd, _)| cd).collect();
        let current = c.variants[0].pieces.iter().find_map(|pc| match pc {
            Piece::Field { field, render: Render::Table { entries, .. } } if field == "mods" => Some(entries.clone()),
            _ => None,
        });
        if relevant.is_empty() && current.as_ref() == Some(&default) {
            continue;
        }
        // Per field: its relevant values, then "other" (None).
        let mut per_field: BTreeMap<usize, Vec<Option<u64>>> = BTreeMap::new();
        for &(k, v) in &relevant {
            per_field.entry(k).or_default().push(Some(v));
        }
        for v in per_field.values_mut() {
            v.push(None);
        }
        let total: usize = per_field.values().map(Vec::len).product();
        let mut list: Vec<Vec<Cond>> = Vec::new();
        if total as u64 * m_values(w) <= 20_000 {
            let keys: Vec<usize> = per_field.keys().copied().collect();
            let mut counter = vec![0usize; keys.len()];
            loop {
                let combo: Vec<Cond> = keys
                    .iter()
                    .zip(&counter)
                    .filter_map(|(k, &i)| per_field[k][i].map(|v| (*k, v)))
                    .collect();
                if !combo.is_empty() {
                    list.push(combo);
                }
                let mut j = 0;
                while j < keys.len() {
                    counter[j] += 1;
                    if counter[j] < per_field[&keys[j]].len() {
                        break;
                    }
                    counter[j] = 0;
                    j += 1;
                }
                if j == keys.len() {
                    break;
                }
            }
        } else {
            list = relevant.iter().map(|&cd| vec![cd]).collect();
        }
        let mut combos = Vec::new();
        for combo in list {
            let wd = combo.iter().fold(p.plain, |wd, &(k, v)| p.fields[k].insert(wd, v));
            let ks = (0..m_values(w)).map(|m| batch2.push(insert_bits(wd, &w.m_bits, m))).collect();
            combos.push((combo, ks));
        }
        combos_all.push(Combo { ci: p.ci, fields: p.fields.clone(), default, combos });
    }
    let out2 = batch2.run(nv)?;
    for cb in combos_all {
        let c = &mut classes[cb.ci];
        // (conditions, table), most specific first.
        let mut vars: Vec<(Vec<Cond>, Vec<(u64, String)>)> = Vec::new();
        for (combo, ks) in &cb.combos {
            if let Some(t) = table_of(c, &out2, ks) {
                vars.push((combo.clone(), t));
            }
        }
        vars.sort_by_key(|(combo, _)| std::cmp::Reverse(combo.len()));
        vars.push((Vec::new(), cb.default.clone()));
        // Drop a variant when the next variant its words would reach prints the same.
        let subset = |a: &[Cond], b: &[Cond]| a.iter().all(|x| b.contains(x));
        let mut i = 0;
        while i + 1 < vars.len() {
            let next = (i + 1..vars.len()).find(|&j| subset(&vars[j].0, &vars[i].0));
            if next.is_some_and(|j| vars[j].1 == vars[i].1) {
                vars.remove(i);
                i = 0;
            } else {
                i += 1;
            }
        }
        let with_mods = |pieces: &[Piece], entries: &[(u64, String)]| -> Vec<Piece> {
            pieces
                .iter()
                .map(|p| match p {
                    Piece::Field { field, .. } if field == "mods" => {
                        Piece::Field { field: "mods".into(), render: Render::Table { entries: entries.to_vec(), default: None } }
                    }
                    other => other.clone(),
                })
                .collect()
        };
        let base_pieces = c.variants[0].pieces.clone();
        c.variants = vars
            .iter()
            .map(|(combo, t)| {
                let when = combo.iter().fold(Pattern::ANY, |p, &(k, v)| {
                    let f = &cb.fields[k];
                    Pattern { mask: p.mask | f.mask(), value: p.value | f.insert(0, v) }
                });
                Variant { when, pieces: with_mods(&base_pieces, t) }
            })
            .collect();
    }
    Ok(())
}

/// Modifier bits beyond [`MAX_M_BITS`] (ATOMG's 16: `.E.MAX.STRONG.SYS`): single flips from the base
/// locate each bit's place in the modifier text; the bits split at the place that leaves at most
/// `MAX_M_BITS` on each side (every bit's changes wholly before or wholly after it). The bits after it
/// go to `mods_b` with their own table; the rest stay in `m_bits`. Without such a place the modifier
/// bits are truncated as before.
fn split_wide_modifiers(nv: &Nvdisasm, works: &mut [Work], todo: &[usize]) -> Result<()> {
    let wide: Vec<usize> =
        todo.iter().copied().filter(|&i| works[i].m_bits.len() > MAX_M_BITS && works[i].mods_b.is_none()).collect();
    if wide.is_empty() {
        return Ok(());
    }
    let mut batch = Batch::default();
    let plan: Vec<(usize, usize, Vec<usize>)> = wide
        .iter()
        .map(|&i| {
            let w = &works[i];
            (i, batch.push(w.base), w.m_bits.iter().map(|&b| batch.push(w.base ^ (1u128 << b))).collect())
        })
        .collect();
    let out = batch.run(nv)?;
    let mut second = Batch::default();
    let mut plan2 = Vec::new();
    for (i, b0, flips) in plan {
        let w = &mut works[i];
        let Some(t0) = out[b0].text() else { continue };
        let mn0 = mnemonic_text(t0);
        let toks_b = tokenize(&mn0);
        // Per bit: the span of tokens it changes (None: no visible change from the base).
        let spans: Vec<Option<(usize, usize)>> = flips
            .iter()
            .map(|&k| {
                let t = out[k].text()?;
                let mn = mnemonic_text(t);
                let sites = diff_sites(&toks_b, &tokenize(&mn));
                let lo = sites.iter().map(|s| s.start).min()?;
                let hi = sites.iter().map(|s| s.end).max()?;
                Some((lo, hi))
            })
            .collect();
        let mut best: Option<(usize, Vec<u32>, Vec<u32>)> = None;
        for p in 1..toks_b.len() {
            let (mut a, mut b, mut loose) = (Vec::new(), Vec::new(), Vec::new());
            let mut ok = true;
            for (j, sp) in spans.iter().enumerate() {
                match sp {
                    Some((lo, hi)) if *hi <= p && *lo < p => a.push(w.m_bits[j]),
                    Some((lo, _)) if *lo >= p => b.push(w.m_bits[j]),
                    Some(_) => ok = false,
                    None => loose.push(w.m_bits[j]),
                }
            }
            // Bits without a visible single flip join the side with room (the first side first).
            for l in loose {
                if a.len() < MAX_M_BITS {
                    a.push(l);
                } else {
                    b.push(l);
                }
            }
            if !ok || a.is_empty() || b.is_empty() || a.len() > MAX_M_BITS || b.len() > MAX_M_BITS {
                continue;
            }
            if best.as_ref().is_none_or(|(_, ba, bb)| a.len().max(b.len()) < ba.len().max(bb.len())) {
                best = Some((p, a, b));
            }
        }
        if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
            eprintln!("wide {:#06x}: {} bits, base {mn0:?}, split {:?}", crate::probe::discover::opcode_of(w.base), w.m_bits.len(), best.as_ref().map(|b| b.0));
            for (j, sp) in spans.iter().enumerate() {
                let t = out[flips[j]].text().map(mnemonic_text);
                eprintln!("  bit {}: {sp:?} {t:?}", w.m_bits[j]);
            }
        }
        let Some((p, mut a, mut b)) = best else {
            w.wide_joint = w.m_bits.len() <= MAX_WIDE_BITS;
            continue;
        };
        a.sort_unstable();
        b.sort_unstable();
        let prefix = toks_b[..p].concat();
        let suffix = toks_b[p..].concat();
        let words: Vec<usize> = (0..1u64 << b.len()).map(|v| second.push(insert_bits(w.base, &b, v))).collect();
        w.flip.retain(|x| !b.contains(x));
        w.m_bits = a;
        plan2.push((i, b, prefix, suffix, words));
    }
    let out = second.run(nv)?;
    for (i, b, prefix, suffix, words) in plan2 {
        let mut table = BTreeMap::new();
        let mut ok = true;
        for (v, &k) in words.iter().enumerate() {
            if let Some(t) = out[k].text() {
                match mnemonic_text(t).strip_prefix(prefix.as_str()) {
                    Some(rest) => {
                        table.insert(v as u64, rest.to_owned());
                    }
                    None => ok = false,
                }
            }
        }
        let w = &mut works[i];
        if ok && !table.is_empty() {
            w.mods_b = Some((b, table, suffix));
        } else {
            // Fall back: enumerate every modifier bit jointly when few enough (then factored), else keep
            // the first bits only, the rest fixed at the base.
            w.notes.push("wide modifiers did not split".into());
            w.flip.extend(b.iter().copied());
            w.flip.sort_unstable();
            w.m_bits.extend(b);
            w.m_bits.sort_unstable();
            w.wide_joint = w.m_bits.len() <= MAX_WIDE_BITS;
        }
    }
    Ok(())
}

/// Removes the `mods_b` part of the base text from the end of every `mods` entry (entries that do not end
/// with it keep their text: the check will count them).
fn strip_wide_suffix(works: &mut [Work], todo: &[usize]) {
    for &i in todo {
        let w = &mut works[i];
        let Some((_, _, suffix)) = &w.mods_b else { continue };
        if suffix.is_empty() {
            continue;
        }
        for t in w.mods.values_mut() {
            if let Some(head) = t.strip_suffix(suffix.as_str()) {
                *t = head.to_owned();
            }
        }
    }
}

/// Enumerates the modifier bits and the opex field on the base word.
fn modifier_stage(nv: &Nvdisasm, works: &mut [Work], todo: &[usize]) -> Result<()> {
    let mut batch = Batch::default();
    let mut plan: Vec<(usize, Vec<usize>, Vec<usize>)> = Vec::new();
    for &i in todo {
        let w = &mut works[i];
        let cap = if w.wide_joint { MAX_WIDE_BITS } else { MAX_M_BITS };
        if w.m_bits.len() > cap {
            w.notes.push(format!("{} modifier bits; only {cap} enumerated", w.m_bits.len()));
            w.m_bits.truncate(cap);
        }
        let mw: Vec<usize> =
            (0..1u64 << w.m_bits.len()).map(|m| batch.push(insert_bits(w.base, &w.m_bits, m))).collect();
        let ow: Vec<usize> = (0..256u64)
            .map(|v| {
                let bits = (u128::from(v & 0x1f) << 105) | (u128::from(v >> 5) << 122);
                batch.push((w.base & !OPEX_MASK) | bits)
            })
            .collect();
        plan.push((i, mw, ow));
    }
    let out = batch.run(nv)?;
    let mut second = Batch::default();
    let mut plan2: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, mw, ow) in plan {
        let w = &mut works[i];
        let base_m = extract_bits(w.base, &w.m_bits);
        let base_text = out[mw[base_m as usize]].text().unwrap_or("").to_owned();
        let base_mn = mnemonic_text(&base_text);
        w.mnemonic = base_mn.split('.').next().unwrap_or("").to_owned();
        let mut mods = BTreeMap::new();
        let mut all_prefixed = true;
        let mut texts = BTreeMap::new();
        for (m, &k) in mw.iter().enumerate() {
            if let Some(t) = out[k].text() {
                let mn = mnemonic_text(t);
                if !mn.starts_with(&w.mnemonic) {
                    all_prefixed = false;
                }
                texts.insert(m as u64, mn);
            }
        }
        if !all_prefixed {
            w.mnemonic.clear();
        }
        for (m, mn) in texts {
            mods.insert(m, mn[w.mnemonic.len()..].to_owned());
        }
        w.mods = mods;
        w.silent = mw.iter().enumerate().filter(|(_, &k)| out[k].text() == Some("")).map(|(m, _)| m as u64).collect();
        w.opex_legal = ow.iter().enumerate().filter(|(_, &k)| out[k].text().is_some()).map(|(v, _)| v as u64).collect();
        // Reuse slots, from the modifier value that prints the most operands (the base's value may print
        // few or none: some classes print an empty line for some modifier values).
        let base_opex = ((w.base >> 105) & 0x1f) as usize | (((w.base >> 122) & 7) as usize) << 5;
        let richness = |t: &str| (t.matches(", ").count(), t.len());
        let rich_m = mw
            .iter()
            .enumerate()
            .filter_map(|(m, &k)| out[k].text().map(|t| (richness(t), std::cmp::Reverse(m as u64 != base_m), m as u64)))
            .max()
            .map_or(base_m, |x| x.2);
        let base_rich = out[mw[base_m as usize]].text().map(richness);
        if rich_m != base_m && out[mw[rich_m as usize]].text().map(richness) > base_rich {
            let word = insert_bits(w.base, &w.m_bits, rich_m);
            let idx: Vec<usize> = (0..256u64)
                .map(|v| {
                    let bits = (u128::from(v & 0x1f) << 105) | (u128::from(v >> 5) << 122);
                    second.push((word & !OPEX_MASK) | bits)
                })
                .collect();
            plan2.push((i, idx));
        } else {
            let texts: Vec<Option<&str>> = ow.iter().map(|&k| out[k].text()).collect();
            w.reuse_slots = reuse_slots(&texts, base_opex, &w.opex_legal);
        }
    }
    let out = second.run(nv)?;
    for (i, idx) in plan2 {
        let w = &mut works[i];
        let base_opex = ((w.base >> 105) & 0x1f) as usize | (((w.base >> 122) & 7) as usize) << 5;
        let texts: Vec<Option<&str>> = idx.iter().map(|&k| out[k].text()).collect();
        w.reuse_slots = reuse_slots(&texts, base_opex, &w.opex_legal);
    }
    Ok(())
}

/// Where `.reuse` was inserted into `base` to give `with`: byte offsets into `base`, or `None` when
/// `with` is not `base` with only `.reuse` insertions (an existing `.reuse` of `base` matches itself).
fn reuse_insertions(base: &str, with: &str) -> Option<Vec<usize>> {
    let (b, t) = (base.as_bytes(), with.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut at = Vec::new();
    while i < t.len() {
        if j < b.len() && t[i] == b[j] && !(t[i..].starts_with(b".reuse") && !b[j..].starts_with(b".reuse")) {
            i += 1;
            j += 1;
        } else if t[i..].starts_with(b".reuse") {
            at.push(j);
            i += 6;
        } else {
            return None;
        }
    }
    (j == b.len()).then_some(at)
}

/// The token index of each `.reuse` insertion point (see [`reuse_insertions`]).
fn reuse_sites(base: &str, with: &str) -> Option<Vec<Site>> {
    let at = reuse_insertions(base, with)?;
    Some(at.into_iter().map(|j| tokenize(&base[..j]).len()).map(|k| Site { start: k, end: k }).collect())
}

/// Reuse slots from the texts of one word under every opex value (`texts[v]`): the opex values whose only
/// effect is inserting `.reuse` after operands, grouped by insertion point; each slot is (a
/// representative value that sets only this slot, every value that sets it).
fn reuse_slots(texts: &[Option<&str>], base_opex: usize, legal: &[u64]) -> Vec<(u64, BTreeSet<u64>)> {
    let Some(t0) = texts.get(base_opex).copied().flatten() else { return Vec::new() };
    let mut slots: BTreeMap<usize, (Option<u64>, BTreeSet<u64>)> = BTreeMap::new();
    for &v in legal {
        let Some(t) = texts.get(v as usize).copied().flatten() else { continue };
        // Only insertions, each of exactly `.reuse`.
        let Some(sites) = reuse_sites(t0, t) else { continue };
        for s in &sites {
            let e = slots.entry(s.start).or_insert((None, BTreeSet::new()));
            if sites.len() == 1 && e.0.is_none() {
                e.0 = Some(v);
            }
            e.1.insert(v);
        }
    }
    // A representative must set its slot alone.
    slots.into_values().filter_map(|(rep, vals)| Some((rep?, vals))).collect()
}

/// Flips operand bits under each analysed modifier value, groups them, and renders each group.
fn operand_stage(nv: &Nvdisasm, rng: &mut Rng, works: &mut [Work], todo: &[usize]) -> Result<()> {
    // Flip pass.
    let mut batch = Batch::default();
    struct Plan {
        wi: usize,
        m: u64,
        word: u128,
        base_idx: usize,
        flips: Vec<(u32, usize)>,
        reuse: Vec<usize>,
    }
    let mut plans: Vec<Plan> = Vec::new();
    for &i in todo {
        let w = &works[i];
        let base_m = extract_bits(w.base, &w.m_bits);
        let mut ms: Vec<u64> = w.mods.keys().copied().collect();
        if ms.len() > MAX_M_VALUES {
            // Keep the base's value and a deterministic spread of the rest.
            let mut keep = vec![base_m];
            let mut rest: Vec<u64> = ms.iter().copied().filter(|&m| m != base_m).collect();
            while keep.len() < MAX_M_VALUES && !rest.is_empty() {
                let k = rng.below(rest.len() as u64) as usize;
                keep.push(rest.swap_remove(k));
            }
            keep.sort_unstable();
            ms = keep;
        }
        let flip: Vec<u32> = w.flip.iter().copied().filter(|b| !w.m_bits.contains(b)).collect();
        for m in ms {
            let word = insert_bits(w.base, &w.m_bits, m);
            let base_idx = batch.push(word);
            let flips = flip.iter().map(|&b| (b, batch.push(word ^ (1u128 << b)))).collect();
            let reuse = w
                .reuse_slots
                .iter()
                .map(|(rep, _)| {
                    let bits = (u128::from(rep & 0x1f) << 105) | (u128::from(rep >> 5) << 122);
                    batch.push((word & !OPEX_MASK) | bits)
                })
                .collect();
            plans.push(Plan { wi: i, m, word, base_idx, flips, reuse });
        }
    }
    let out = batch.run(nv)?;
    let norm = |k: usize, pcrel: bool| -> Option<String> {
        out[k].text().map(|t| if pcrel { normalize(t, addr_of(k)) } else { t.to_owned() })
    };

    // Group bits by the places they change.
    let mut analyses: Vec<(usize, MAnalysis)> = Vec::new();
    for p in &plans {
        let w = &works[p.wi];
        let Some(t0) = norm(p.base_idx, w.pcrel) else { continue };
        let toks0 = tokenize(&t0);
        let (k0, k1) = mnemonic_region(&toks0);
        let mn_site = Site { start: k0, end: k1 };
        let mut bit_sites: Vec<(u32, Vec<Site>)> = Vec::new();
        let mut conflicts = Vec::new();
        let mut illegal_bits = Vec::new();
        let debug = std::env::var("SASSPORT_PROBE_DEBUG_OPCODE").ok().is_some_and(|o| o == format!("{:#06x}", crate::probe::discover::opcode_of(w.base)));
        if debug {
            eprintln!("debug m={} base {:#034x}: {t0}", p.m, p.word);
        }
        for &(b, k) in &p.flips {
            if debug {
                eprintln!("  flip {b}: {:?}", norm(k, w.pcrel));
            }
            match norm(k, w.pcrel) {
                None => illegal_bits.push(b),
                Some(t) => {
                    if t == t0 {
                        continue;
                    }
                    // An operand whose value the mnemonic depends on: keep its operand change only.
                    let t = if mnemonic_text(&t) != mnemonic_text(&t0) && is_value_bit(&t0, &t) {
                        with_mnemonic(&t, &toks0[k0..k1].concat())
                    } else {
                        t
                    };
                    let toks = tokenize(&t);
                    let sites = diff_sites(&toks0, &toks);
                    if mnemonic_text(&t) != mnemonic_text(&t0) || sites.iter().any(|s| s.conflicts(&mn_site) || (s.start < k1 && s.end > k0)) {
                        conflicts.push(b);
                        continue;
                    }
                    bit_sites.push((b, sites));
                }
            }
        }
        // Union-find over conflicting sites.
        let n = bit_sites.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut Vec<usize>, x: usize) -> usize {
            let mut r = x;
            while p[r] != r {
                r = p[r];
            }
            let mut y = x;
            while p[y] != r {
                let nx = p[y];
                p[y] = r;
                y = nx;
            }
            r
        }
        for a in 0..n {
            for b in a + 1..n {
                // The guard (`@P0 `, `@!PT `, nothing for PT) is one field whatever its sites.
                let guard = (12..=15).contains(&bit_sites[a].0) && (12..=15).contains(&bit_sites[b].0);
                let hit = guard
                    || bit_sites[a].1.iter().any(|sa| bit_sites[b].1.iter().any(|sb| sa.conflicts(sb) || sa == sb));
                if hit {
                    let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                    parent[ra] = rb;
                }
            }
        }
        let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for a in 0..n {
            let r = find(&mut parent, a);
            by_root.entry(r).or_default().push(a);
        }
        let mut groups = Vec::new();
        for members in by_root.values() {
            let mut bits: Vec<u32> = members.iter().map(|&a| bit_sites[a].0).collect();
            bits.sort_unstable();
            let mut sites: Vec<Site> = members.iter().flat_map(|&a| bit_sites[a].1.iter().copied()).collect();
            coalesce_sites(&mut sites);
            groups.push(Group {
                bits,
                sites,
                samples: BTreeMap::new(),
                exhaustive: false,
                renders: Vec::new(),
                kind: FieldKind::Other,
                failed: false,
                opex: false,
                split: false,
                joint: false,
                rz_dropped: false,
            });
        }
        // Different groups' merged sites may now touch; merge such groups too (rare).
        let mut groups = merge_touching(groups);
        // Reuse slots: one insertion site each, rendered from the opex field.
        for (slot, &k) in p.reuse.iter().enumerate() {
            let Some(t) = norm(k, w.pcrel) else { continue };
            let toks = tokenize(&t);
            let sites = diff_sites(&toks0, &toks);
            if debug {
                eprintln!("  reuse slot {slot}: {t} sites {sites:?}; groups {:?}", groups.iter().map(|g| (&g.bits, &g.sites)).collect::<Vec<_>>());
            }
            let [site] = sites.as_slice() else { continue };
            // The token diff may align `R8.reuse.H0_H0` as `R8.` + `reuse.` + `H0_H0` (inside the
            // swizzle); the insertion point is where `.reuse` starts.
            let site = &match reuse_sites(&t0, &t).as_deref() {
                Some([one]) => *one,
                _ => *site,
            };
            // `.reuse` sticks to its register: it may share an insertion point with an optional operand
            // (printed after it), but never fall inside another field's text.
            if site.start != site.end || groups.iter().any(|g| g.sites.iter().any(|s| s.start != s.end && s.conflicts(site))) {
                continue;
            }
            let on = &w.reuse_slots[slot].1;
            let entries =
                w.opex_legal.iter().map(|&v| (v, if on.contains(&v) { ".reuse".to_owned() } else { String::new() })).collect();
            groups.push(Group {
                bits: Vec::new(),
                sites: vec![*site],
                samples: BTreeMap::new(),
                exhaustive: true,
                renders: vec![Render::Table { entries, default: None }],
                kind: FieldKind::Modifier,
                failed: false,
                opex: true,
                split: false,
                joint: false,
                rz_dropped: false,
            });
        }
        let illegal_bits = illegal_bits.into_iter().filter(|b| !groups.iter().any(|g| g.bits.contains(b))).collect();
        analyses.push((
            p.wi,
            MAnalysis { m: p.m, word: p.word, text: t0, groups, conflicts, illegal_bits },
        ));
    }

    // Value passes: sampled values first, exhaustive enumeration where no rule fits.
    for pass in 0..2 {
        if pass == 1 {
            merge_dependent_pairs(nv, &mut analyses, works)?;
            for (wi, a) in analyses.iter_mut() {
                if debug_opcode(works[*wi].base) {
                    let gs: Vec<(&Vec<u32>, bool, &Vec<Site>)> = a.groups.iter().map(|g| (&g.bits, g.failed, &g.sites)).collect();
                    eprintln!("before pass 1, m={}: {gs:?}", a.m);
                }
                split_failed_insertions(&mut a.groups);
                merge_failed_neighbours(&mut a.groups);
                if debug_opcode(works[*wi].base) {
                    let gs: Vec<(&Vec<u32>, bool, &Vec<Site>)> = a.groups.iter().map(|g| (&g.bits, g.failed, &g.sites)).collect();
                    eprintln!("merged, m={}: {gs:?}", a.m);
                }
            }
        }
        let mut batch = Batch::default();
        let mut vplan: Vec<(usize, usize, Vec<(u64, usize)>)> = Vec::new();
        for (ai, (wi, a)) in analyses.iter().enumerate() {
            let _ = wi;
            for (gi, g) in a.groups.iter().enumerate() {
                if g.opex {
                    continue;
                }
                let k = g.bits.len();
                let values: Vec<u64> = if pass == 0 {
                    sample_values(k, rng)
                } else if g.failed && k <= 10 && (!g.exhaustive || g.rz_dropped) {
                    (0..1u64 << k).collect()
                } else if g.failed && !g.exhaustive && g.samples.is_empty() {
                    sample_values(k, rng)
                } else {
                    continue;
                };
                let v = values.into_iter().map(|v| (v, batch.push(insert_bits(a.word, &g.bits, v)))).collect();
                vplan.push((ai, gi, v));
            }
        }
        let out = batch.run(nv)?;
        for (ai, gi, vals) in vplan {
            let pcrel = works[analyses[ai].0].pcrel;
            let a = &mut analyses[ai].1;
            let toks0 = tokenize(&a.text);
            let (k0, k1) = mnemonic_region(&toks0);
            let mut others: Vec<Site> = vec![Site { start: k0, end: k1 }];
            for (gj, h) in a.groups.iter().enumerate() {
                if gj != gi {
                    others.extend(h.sites.iter().copied());
                }
            }
            let g = &mut a.groups[gi];
            // A value may change the mnemonic as well as its own place (`IMAD.MOV.U32` when an operand is
            // RZ): the modifier table records that (see `operand_value_variants`); here the operand text
            // counts, so the base mnemonic is put back before splitting.
            let base_mn = toks0[k0..k1].concat();
            let raw: Vec<(u64, Option<String>)> = vals
                .iter()
                .map(|&(v, k)| {
                    let t = out[k].text().map(|t| if pcrel { normalize(t, addr_of(k)) } else { t.to_owned() });
                    (v, t.map(|t| with_mnemonic(&t, &base_mn)))
                })
                .collect();
            // A register whose RZ value dropped out in pass 0 and did not render is widened instead.
            let ok = extract(g, &raw, &toks0, &others, pass == 0);
            g.exhaustive = vals.len() as u64 == 1u64 << g.bits.len();
            g.failed = !ok;
            if ok {
                match render_group(g, pcrel) {
                    Some(r) => {
                        g.renders = r;
                        g.failed = false;
                    }
                    None => g.failed = true,
                }
            }
        }
    }
    for (wi, a) in analyses {
        if debug_opcode(works[wi].base) {
            eprintln!("groups m={} {}", a.m, a.text);
            for g in &a.groups {
                let samples: Vec<String> =
                    g.samples.iter().take(12).map(|(v, t)| format!("{v}:{t:?}")).collect();
                eprintln!(
                    "  bits {:?} sites {:?} failed {} exhaustive {} opex {} renders {:?}\n    samples {}",
                    g.bits, g.sites, g.failed, g.exhaustive, g.opex, g.renders, samples.join(" ")
                );
            }
        }
        works[wi].analyses.push(a);
    }
    Ok(())
}

/// Whether `SASSPORT_PROBE_DEBUG_OPCODE` (e.g. `0x0235`) names this word's opcode.
fn debug_opcode(word: u128) -> bool {
    std::env::var("SASSPORT_PROBE_DEBUG_OPCODE")
        .ok()
        .is_some_and(|o| o == format!("{:#06x}", crate::probe::discover::opcode_of(word)))
}

/// Whether a flip that changed the mnemonic from `base` to `flipped` is an operand bit whose value the
/// mnemonic depends on (`IMAD.SHL.U32 R9, R0, 0x4, RZ` → `IMAD.U32 R9, R0, 0x5, RZ`; `IMAD.MOV.U32` when an
/// operand is RZ): outside the mnemonic exactly one token changed, and one side is a special value (RZ,
/// URZ, zero, one or a power of two). Such bits belong to operand fields, not to the modifier bits;
/// [`operand_value_variants`] records the mnemonic's dependence.
fn is_value_bit(base: &str, flipped: &str) -> bool {
    let a = tokenize(base);
    let b = tokenize(flipped);
    let (a0, a1) = mnemonic_region(&a);
    let (b0, b1) = mnemonic_region(&b);
    let (ra, rb) = (&a[a1..], &b[b1..]);
    if a[..a0] != b[..b0] {
        return false;
    }
    // The changed middle: at most a sign and a number on each side.
    let pre = ra.iter().zip(rb).take_while(|(x, y)| x == y).count();
    let suf = ra[pre..].iter().rev().zip(rb[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&ra[pre..ra.len() - suf], &rb[pre..rb.len() - suf]);
    if ma.is_empty() || mb.is_empty() || ma.len() > 2 || mb.len() > 2 {
        return false;
    }
    let special = |t: &str| -> bool {
        if t == "RZ" || t == "URZ" {
            return true;
        }
        let (neg, hex) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t),
        };
        let Some(h) = hex.strip_prefix("0x") else { return false };
        match u64::from_str_radix(h, 16) {
            Ok(v) => !neg && (v == 0 || v.is_power_of_two()),
            Err(_) => false,
        }
    };
    ma.iter().chain(mb).any(|t| special(t))
}

/// `text` with its mnemonic token (after the guard) replaced by `mnemonic`.
fn with_mnemonic(text: &str, mnemonic: &str) -> String {
    let toks = tokenize(text);
    let (a, b) = mnemonic_region(&toks);
    format!("{}{mnemonic}{}", toks[..a].concat(), toks[b..].concat())
}

/// Two small neighbouring fields that are not independent (`, !P3` but nothing for a plain `PT`: the
/// negation and the predicate together decide whether the optional operand prints): every joint value
/// of each adjacent pair of fitted groups with at most four bits together is printed; when a text
/// differs from what the two renders give, the pair becomes one group (enumerated jointly in pass 1).
fn merge_dependent_pairs(nv: &Nvdisasm, analyses: &mut [(usize, MAnalysis)], works: &[Work]) -> Result<()> {
    let mut batch = Batch::default();
    let mut plan: Vec<(usize, usize, usize, Vec<(u64, u64, usize)>)> = Vec::new();
    for (ai, (wi, a)) in analyses.iter().enumerate() {
        if works[*wi].pcrel {
            continue;
        }
        for i in 0..a.groups.len() {
            for j in i + 1..a.groups.len() {
                let (g, h) = (&a.groups[i], &a.groups[j]);
                if g.opex || h.opex || g.failed || h.failed || g.bits.is_empty() || h.bits.is_empty() {
                    continue;
                }
                if g.bits.len() + h.bits.len() > 4 || g.renders.len() != 1 || h.renders.len() != 1 {
                    continue;
                }
                if g.sites.len() != 1 || h.sites.len() != 1 {
                    continue;
                }
                let (x, y) = (g.sites[0], h.sites[0]);
                // In print order; an insertion before a span that starts at the same place (`!` before `PT, `).
                let (p, q) = if (x.start, x.end) <= (y.start, y.end) { (x, y) } else { (y, x) };
                if p.end > q.start || x == y {
                    continue;
                }
                let adjacent = g.sites.iter().any(|x| h.sites.iter().any(|y| x.end == y.start || y.end == x.start));
                if !adjacent {
                    continue;
                }
                let mut v = Vec::new();
                for x in 0..1u64 << g.bits.len() {
                    for y in 0..1u64 << h.bits.len() {
                        let wd = insert_bits(insert_bits(a.word, &g.bits, x), &h.bits, y);
                        v.push((x, y, batch.push(wd)));
                    }
                }
                plan.push((ai, i, j, v));
            }
        }
    }
    if plan.is_empty() {
        return Ok(());
    }
    let out = batch.run(nv)?;
    let mut merges: Vec<(usize, usize, usize)> = Vec::new();
    for (ai, i, j, v) in plan {
        let a = &analyses[ai].1;
        let (g, h) = (&a.groups[i], &a.groups[j]);
        let toks0 = tokenize(&a.text);
        let (first, second, swap) = if (g.sites[0].start, g.sites[0].end) <= (h.sites[0].start, h.sites[0].end) {
            (g, h, false)
        } else {
            (h, g, true)
        };
        if first.sites[0].end > second.sites[0].start {
            continue;
        }
        let dependent = v.iter().any(|&(x, y, k)| {
            let (vf, vs) = if swap { (y, x) } else { (x, y) };
            let rf = render_value(&first.renders[0], vf, first.bits.len() as u32, 0);
            let rs = render_value(&second.renders[0], vs, second.bits.len() as u32, 0);
            let predicted = match (rf, rs) {
                (Some(rf), Some(rs)) => Some(format!(
                    "{}{rf}{}{rs}{}",
                    toks0[..first.sites[0].start].concat(),
                    toks0[first.sites[0].end..second.sites[0].start].concat(),
                    toks0[second.sites[0].end..].concat()
                )),
                _ => None,
            };
            predicted.as_deref() != out[k].text()
        });
        if dependent {
            merges.push((ai, i, j));
        }
    }
    // Merges of one analysis: disjoint pairs, highest index first so that removals keep the rest valid.
    merges.sort_by(|a, b| b.cmp(a));
    let mut used: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut chosen: Vec<(usize, usize, usize)> = Vec::new();
    for (ai, i, j) in merges {
        if used.contains(&(ai, i)) || used.contains(&(ai, j)) {
            continue;
        }
        used.insert((ai, i));
        used.insert((ai, j));
        chosen.push((ai, i, j));
    }
    // Remove higher indices first within each analysis.
    chosen.sort_by(|a, b| (a.0, std::cmp::Reverse(a.2)).cmp(&(b.0, std::cmp::Reverse(b.2))));
    for (ai, i, j) in chosen {
        let groups = &mut analyses[ai].1.groups;
        let h = groups.remove(j);
        let g = &mut groups[i];
        absorb(&mut g.bits, &mut g.sites, h.bits, h.sites);
        g.exhaustive = false;
        g.failed = true;
        g.joint = true;
        g.samples.clear();
        g.renders.clear();
    }
    Ok(())
}

/// Two fields printed at one insertion point (`[R6.X4+0x10]`: the scale and the offset both print after
/// the register) form one group that no rule fits. A failed group whose sites are all insertion points
/// and whose bits form separate runs is split into one group per run, analysed again; at one place they
/// print in the order `build_class` gives (modifiers starting with `.` first).
fn split_failed_insertions(groups: &mut Vec<Group>) {
    let mut out = Vec::new();
    for g in groups.drain(..) {
        let runs = ranges(&g.bits);
        if !g.failed || g.opex || g.split || g.joint || runs.len() < 2 || g.sites.iter().any(|s| s.start != s.end) {
            out.push(g);
            continue;
        }
        for r in runs {
            out.push(Group {
                bits: (u32::from(r.lo)..=u32::from(r.hi)).collect(),
                sites: g.sites.clone(),
                samples: BTreeMap::new(),
                exhaustive: false,
                renders: Vec::new(),
                kind: FieldKind::Other,
                failed: true,
                opex: false,
                split: true,
                joint: false,
                rz_dropped: false,
            });
        }
    }
    *groups = out;
}

/// Merges each group whose text could not be split with a neighbouring small group (e.g. a predicate
/// whose PT value deletes the `, ` before it, so that its text cannot widen past the negation field's `!`):
/// the pair is then enumerated jointly. A lone bit just above or below a failed number of six bits or
/// more (its sign or low bit) always merges, repeatedly; otherwise each failed group takes its one nearest neighbour (sites at
/// most two tokens apart, the fewest bits on ties) and is not merged again, so that one stubborn field
/// does not swallow the whole operand list.
fn merge_failed_neighbours(groups: &mut Vec<Group>) {
    let gap = |a: &[Site], b: &[Site]| -> usize {
        a.iter()
            .flat_map(|x| b.iter().map(move |y| y.start.saturating_sub(x.end).max(x.start.saturating_sub(y.end))))
            .min()
            .unwrap_or(usize::MAX)
    };
    loop {
        let mut best: Option<(usize, usize, (u8, usize, usize))> = None;
        for i in 0..groups.len() {
            if !groups[i].failed || groups[i].opex || groups[i].split || groups[i].joint {
                continue;
            }
            for j in 0..groups.len() {
                if i == j || groups[j].opex || groups[j].split || groups[j].joint {
                    continue;
                }
                let lo = groups[i].bits.first().copied().unwrap_or(0);
                let hi = groups[i].bits.last().copied().unwrap_or(0);
                let number = groups[i].bits.len() >= 6;
                let edge =
                    number && groups[j].bits.len() == 1 && (groups[j].bits[0] == hi + 1 || groups[j].bits[0] + 1 == lo);
                if !edge && groups[i].bits.len() + groups[j].bits.len() > 8 {
                    continue;
                }
                let d = gap(&groups[i].sites, &groups[j].sites);
                if d > 2 {
                    continue;
                }
                let key = (u8::from(!edge), d, groups[j].bits.len());
                if best.as_ref().is_none_or(|b| key < b.2) {
                    best = Some((i, j, key));
                }
            }
            if best.is_some() {
                break;
            }
        }
        let Some((i, j, (not_edge, _, _))) = best else { return };
        let h = groups.remove(j);
        let i = if j < i { i - 1 } else { i };
        let g = &mut groups[i];
        absorb(&mut g.bits, &mut g.sites, h.bits, h.sites);
        g.exhaustive = false;
        g.failed = true;
        g.joint = not_edge == 1;
        g.samples.clear();
    }
}

/// Splits each sample text at the literal text around the group's sites; when that fails, retries with
/// the sites widened by a token or two (a default value may delete the `.` before a modifier too), then
/// widened to the whole operand and the `, ` before it (`, ???10` vanishes when the field is all ones).
fn extract(g: &mut Group, raw: &[(u64, Option<String>)], toks0: &[&str], others: &[Site], allow_drop: bool) -> bool {
    let mut widths = vec![(0usize, 0usize), (1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (2, 2)];
    if let Some(s) = g.sites.first() {
        // The operand's token run; the `, ` before it, or for a first operand the `, ` after it.
        let op_start = (0..s.start).rev().take(8).find(|&i| matches!(toks0[i], "," | " ")).map(|i| i + 1);
        let op_end = (s.end..toks0.len()).take(8).find(|&i| matches!(toks0[i], "," | " " | ";"));
        if let (Some(a), Some(b)) = (op_start, op_end) {
            let mut more = Vec::new();
            if a >= 2 && toks0[a - 2] == "," {
                more.push((s.start - (a - 2), b - s.end));
            }
            if toks0.get(b) == Some(&",") && toks0.get(b + 1) == Some(&" ") {
                more.push((s.start - a, b + 2 - s.end));
            }
            for m in more {
                if !widths.contains(&m) {
                    widths.push(m);
                }
            }
        }
    }
    for (l, r) in widths {
        let mut sites: Vec<Site> = Vec::new();
        for s in &g.sites {
            let w = Site { start: s.start.saturating_sub(l), end: (s.end + r).min(toks0.len()) };
            match sites.last_mut() {
                Some(p) if w.start <= p.end => p.end = p.end.max(w.end),
                _ => sites.push(w),
            }
        }
        let clash = sites.iter().any(|a| others.iter().any(|b| a.conflicts(b) || (a.start < b.end && b.start < a.end)));
        // Never swallow the scheduling space of the closing ` ;`.
        let n = toks0.len();
        let tail_space = n >= 2 && toks0[n - 2] == " " && toks0[n - 1] == ";";
        let swallows = tail_space && sites.iter().any(|a| a.start <= n - 2 && a.end > n - 2);
        if (l, r) != (0, 0) && (clash || swallows) {
            continue;
        }
        let gaps = gaps_for(toks0, &sites);
        let mut samples = BTreeMap::new();
        let mut ok = true;
        let mut dropped = false;
        // A register whose all-ones value (RZ, URZ) reshapes its neighbours (`[R1+0xc]` but `[0xc]`) is
        // split without that value; `rz_variants` analyses the class again with the register RZ.
        let width = g.bits.len();
        let ones = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        for (v, t) in raw {
            match t {
                None => {
                    samples.insert(*v, None);
                }
                Some(t) => match split_at_gaps(t, &gaps) {
                    Some(parts) => {
                        samples.insert(*v, Some(parts));
                    }
                    None if allow_drop && (l, r) == (0, 0) && (6..=8).contains(&width) && *v == ones && !g.split => {
                        dropped = true;
                    }
                    None => {
                        ok = false;
                        break;
                    }
                },
            }
        }
        if ok {
            g.sites = sites;
            g.samples = samples;
            g.rz_dropped = dropped;
            return true;
        }
    }
    false
}

fn merge_touching(mut groups: Vec<Group>) -> Vec<Group> {
    loop {
        let mut merged = false;
        'outer: for i in 0..groups.len() {
            for j in i + 1..groups.len() {
                let touch = groups[i].sites.iter().any(|a| {
                    groups[j].sites.iter().any(|b| a.conflicts(b) || a == b || (a.start < b.end && b.start < a.end))
                });
                if touch {
                    let g = groups.remove(j);
                    let h = &mut groups[i];
                    absorb(&mut h.bits, &mut h.sites, g.bits, g.sites);
                    merged = true;
                    break 'outer;
                }
            }
        }
        if !merged {
            return groups;
        }
    }
}

fn gaps_for(toks: &[&str], sites: &[Site]) -> Vec<String> {
    let mut gaps = Vec::new();
    let mut pos = 0;
    for s in sites {
        gaps.push(toks[pos..s.start].concat());
        pos = s.end;
    }
    gaps.push(toks[pos..].concat());
    gaps
}

fn sample_values(k: usize, rng: &mut Rng) -> Vec<u64> {
    if k <= 6 {
        return (0..1u64 << k).collect();
    }
    let ones: u64 = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    let mut v: BTreeSet<u64> = BTreeSet::new();
    v.insert(0);
    v.insert(ones);
    v.insert(ones - 1);
    for i in 0..k {
        v.insert(1u64 << i);
        v.insert(ones ^ (1u64 << i));
    }
    for _ in 0..12 {
        v.insert(rng.next_u64() & ones);
    }
    // Small values: enum-like fields and register numbers.
    for s in 0..8u64.min(ones) {
        v.insert(s);
    }
    v.into_iter().collect()
}

/// Fits a render per site from the group's samples.
fn render_group(g: &mut Group, pcrel: bool) -> Option<Vec<Render>> {
    let nsites = g.sites.len();
    let width = g.bits.len() as u32;
    let mut renders = Vec::new();
    for s in 0..nsites {
        let samples: Vec<(u64, Option<&str>)> =
            g.samples.iter().map(|(v, t)| (*v, t.as_ref().map(|p| p[s].as_str()))).collect();
        let fitted = fit_number(&samples, width, pcrel, g.exhaustive);
        match fitted {
            Some(r) => renders.push(r),
            None if g.exhaustive => {
                let entries = samples.iter().filter_map(|(v, t)| t.map(|t| (*v, t.to_owned()))).collect();
                renders.push(Render::Table { entries, default: None });
            }
            None => return None,
        }
    }
    g.kind = infer_kind(&renders);
    if g.rz_dropped {
        // Printed by the RZ variant; the register's own name for completeness.
        let ones = (1u64 << width) - 1;
        for r in renders.iter_mut() {
            if let Render::Number { rule, specials } = r {
                let name = match rule.prefix.as_str() {
                    "R" => "RZ",
                    "UR" => "URZ",
                    _ => return None,
                };
                specials.retain(|sp| sp.0 != ones);
                specials.push((ones, Special::Text(name.into())));
                specials.sort_by_key(|sp| sp.0);
            } else {
                return None;
            }
        }
    }
    Some(renders)
}

fn infer_kind(renders: &[Render]) -> FieldKind {
    for r in renders {
        match r {
            Render::Number { rule, .. } => {
                if rule.pc_relative {
                    return FieldKind::BranchTarget;
                }
                if rule.format == NumberFormat::Dec {
                    match rule.prefix.as_str() {
                        "R" => return FieldKind::Register(RegFile::Gpr),
                        "UR" => return FieldKind::Register(RegFile::Uniform),
                        "P" | "!P" => return FieldKind::Register(RegFile::Pred),
                        "UP" | "!UP" => return FieldKind::Register(RegFile::UniformPred),
                        "B" => return FieldKind::Register(RegFile::Barrier),
                        _ => {}
                    }
                }
                return FieldKind::Immediate;
            }
            Render::Table { entries, .. } => {
                let texts: Vec<&str> = entries.iter().map(|e| e.1.as_str()).filter(|t| !t.is_empty()).collect();
                let is = |p: &str| !texts.is_empty() && texts.iter().all(|t| t.trim_start_matches('!').starts_with(p));
                if is("UP") {
                    return FieldKind::Register(RegFile::UniformPred);
                }
                if is("P") && texts.iter().any(|t| t.ends_with("PT")) {
                    return FieldKind::Register(RegFile::Pred);
                }
            }
        }
    }
    FieldKind::Modifier
}

/// Tries number rules against the samples; specials allowed for at most three values (or illegal values).
fn fit_number(samples: &[(u64, Option<&str>)], width: u32, pcrel: bool, exhaustive: bool) -> Option<Render> {
    let legal: Vec<(u64, &str)> = samples.iter().filter_map(|(v, t)| t.map(|t| (*v, t))).collect();
    if legal.len() < 4 {
        return None;
    }
    let illegal: Vec<u64> = samples.iter().filter(|(_, t)| t.is_none()).map(|(v, _)| *v).collect();
    if illegal.len() > 4 {
        return None;
    }
    let mut candidates: Vec<NumberRule> = Vec::new();
    if pcrel {
        for shift in 0..5 {
            candidates.push(NumberRule { signed: true, shift, pc_relative: true, ..NumberRule::plain(NumberFormat::SignedHex) });
        }
    }
    for shift in 0..4u8 {
        candidates.push(NumberRule { shift, ..NumberRule::plain(NumberFormat::Dec) });
        candidates.push(NumberRule { shift, ..NumberRule::plain(NumberFormat::Hex) });
        candidates.push(NumberRule { signed: true, shift, ..NumberRule::plain(NumberFormat::SignedHex) });
        candidates.push(NumberRule { signed: true, shift, ..NumberRule::plain(NumberFormat::OffsetHex) });
        candidates.push(NumberRule { shift, ..NumberRule::plain(NumberFormat::OffsetHex) });
        candidates.push(NumberRule { signed: true, shift, ..NumberRule::plain(NumberFormat::Dec) });
    }
    if width == 32 {
        candidates.push(NumberRule::plain(NumberFormat::F32));
        candidates.push(NumberRule::plain(NumberFormat::F64Hi));
    }
    if width == 16 {
        candidates.push(NumberRule::plain(NumberFormat::F16));
        // bfloat16: the high half of an f32.
        candidates.push(NumberRule { shift: 16, ..NumberRule::plain(NumberFormat::F32) });
    }
    if width == 64 {
        candidates.push(NumberRule::plain(NumberFormat::F64));
    }
    let mut best: Option<(usize, Render)> = None;
    for rule in candidates {
        let fmt = |v: u64| -> String {
            if rule.pc_relative {
                let n = rule_number(&NumberRule { pc_relative: false, ..rule.clone() }, v, width, 0) + 16;
                if n < 0 {
                    format!("RELm{:x}", n.unsigned_abs())
                } else {
                    format!("RELp{n:x}")
                }
            } else {
                format_number(rule.format, rule_number(&rule, v, width, 0))
            }
        };
        // Affixes from the first sample whose number is non-empty and found in its text.
        let mut affix = None;
        for &(v, t) in &legal {
            let f = fmt(v);
            if f.is_empty() {
                continue;
            }
            if let Some(pos) = t.rfind(&f) {
                affix = Some((t[..pos].to_owned(), t[pos + f.len()..].to_owned()));
                break;
            }
        }
        let Some((prefix, suffix)) = affix else { continue };
        let mut specials: Vec<(u64, Special)> = Vec::new();
        let mut matches = 0;
        for &(v, t) in &legal {
            let f = fmt(v);
            let want = if f.is_empty() { String::new() } else { format!("{prefix}{f}{suffix}") };
            if want == t {
                matches += 1;
            } else {
                specials.push((v, Special::Text(t.to_owned())));
            }
        }
        if specials.len() > 3 || matches < 4 {
            continue;
        }
        // Exhaustive tables may keep a few illegal values; sampled ones must have none unexplained.
        if !exhaustive && !illegal.is_empty() {
            continue;
        }
        for &v in &illegal {
            specials.push((v, Special::Illegal));
        }
        specials.sort_by_key(|s| s.0);
        let mut rule = rule.clone();
        rule.prefix = prefix;
        rule.suffix = suffix;
        let score = specials.len();
        if best.as_ref().is_none_or(|(s, _)| score < *s) {
            best = Some((score, Render::Number { rule, specials }));
            if score == 0 {
                break;
            }
        }
    }
    best.map(|b| b.1)
}

/// Turns the analyses into one table class.
fn build_class(f: &Found, w: &Work) -> Class {
    let mut fields: Vec<Field> = Vec::new();
    let mut names: BTreeMap<Vec<u32>, String> = BTreeMap::new();
    let mut counters: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut name_for = |bits: &[u32], kind: FieldKind, fields: &mut Vec<Field>| -> String {
        if let Some(n) = names.get(bits) {
            return n.clone();
        }
        let prefix: &'static str = if bits == [12, 13, 14, 15] {
            "pg"
        } else {
            match kind {
                FieldKind::Register(RegFile::Gpr) => "r",
                FieldKind::Register(RegFile::Uniform) => "ur",
                FieldKind::Register(RegFile::Pred) => "p",
                FieldKind::Register(RegFile::UniformPred) => "up",
                FieldKind::Register(RegFile::Barrier) => "b",
                FieldKind::Immediate => "imm",
                FieldKind::ConstBank => "cb",
                FieldKind::ConstOffset => "co",
                FieldKind::BranchTarget => "target",
                FieldKind::Modifier => "m",
                FieldKind::Other => "x",
            }
        };
        let n = counters.entry(prefix).or_insert(0);
        let name = if prefix == "pg" { "pg".to_owned() } else { format!("{prefix}{n}") };
        *n += 1;
        names.insert(bits.to_vec(), name.clone());
        fields.push(Field { name: name.clone(), bits: ranges(bits), kind });
        name
    };
    let mods_field = Field { name: "mods".into(), bits: ranges(&w.m_bits), kind: FieldKind::Modifier };
    let sched_bits: Vec<BitRange> = SCHED_SPACE_BITS.iter().map(|&(lo, hi)| BitRange { lo, hi }).collect();
    let sched_field = Field { name: "sched".into(), bits: sched_bits, kind: FieldKind::Other };
    let opex_field = Field {
        name: "opex".into(),
        bits: vec![BitRange { lo: 105, hi: 109 }, BitRange { lo: 122, hi: 124 }],
        kind: FieldKind::Other,
    };
    let mods_render = Render::Table { entries: w.mods.iter().map(|(m, t)| (*m, t.clone())).collect(), default: None };
    let factored = factor_mods(w);

    // Per analysed modifier value: pieces with group fields identified by their bits.
    let mut per_m: Vec<(u64, Vec<Piece>, String)> = Vec::new();
    for a in &w.analyses {
        let toks = tokenize(&a.text);
        let (k0, k1) = mnemonic_region(&toks);
        // (site, (group, site index, the render printed there)); the mnemonic has no group.
        type Who = Option<(usize, usize, Option<Render>)>;
        let mut sites: Vec<(Site, Who)> = vec![(Site { start: k0, end: k1 }, None)];
        for (gi, g) in a.groups.iter().enumerate() {
            for (si, s) in g.sites.iter().enumerate() {
                let render = g.renders.get(si).cloned();
                // A closing bar joined to what follows it in one table (`|.H1_H1`, when the abs bit and the
                // swizzle form one group) prints as two pieces, so that `.reuse` can go between them.
                if let (false, true, Some((bar, rest))) = (g.opex, s.start == s.end, render.as_ref().and_then(split_bar)) {
                    sites.push((*s, Some((gi, si, Some(bar)))));
                    sites.push((*s, Some((gi, si, Some(rest)))));
                    continue;
                }
                sites.push((*s, Some((gi, si, render))));
            }
        }
        // At one insertion point: an absolute-value bar, then `.reuse`, then anything else (`|R2|.reuse, 0x1`).
        let rank = |who: &Who| -> u8 {
            match who {
                None => 2,
                Some((gi, _, render)) => {
                    let g = &a.groups[*gi];
                    let bar = render.as_ref().is_some_and(|r| {
                        matches!(r, Render::Table { entries, .. } if entries.iter().all(|e| e.1.is_empty() || e.1 == "|"))
                    });
                    // Modifiers (`.X4`) before other insertions (`+0x10`) at one place.
                    let dotted = render.as_ref().is_some_and(|r| match r {
                        Render::Table { entries, .. } => entries.iter().all(|e| e.1.is_empty() || e.1.starts_with('.')),
                        Render::Number { .. } => false,
                    });
                    // A whole optional operand (`P1, P4, ` ending in a separator) before a sign (`-R175`).
                    let operand = render.as_ref().is_some_and(|r| match r {
                        Render::Table { entries, .. } => {
                            entries.iter().any(|e| !e.1.is_empty()) && entries.iter().all(|e| e.1.is_empty() || e.1.ends_with(", "))
                        }
                        Render::Number { rule, .. } => rule.suffix.ends_with(", "),
                    });
                    // A register before an offset at one place (`[R2.64+UR4+0x10]`).
                    let register = render.as_ref().is_some_and(|r| {
                        matches!(r, Render::Number { rule, .. } if rule.format == NumberFormat::Dec && rule.prefix.ends_with('R'))
                    });
                    if operand {
                        0
                    } else if g.opex {
                        2
                    } else if bar {
                        1
                    } else if dotted {
                        3
                    } else if register {
                        4
                    } else {
                        5
                    }
                }
            }
        };
        sites.sort_by_key(|(s, who)| (s.start, s.end, rank(who)));
        let mut pieces: Vec<Piece> = Vec::new();
        let mut pos = 0;
        let push_text = |pieces: &mut Vec<Piece>, t: String| {
            if t.is_empty() {
                return;
            }
            if let Some(Piece::Text(prev)) = pieces.last_mut() {
                prev.push_str(&t);
            } else {
                pieces.push(Piece::Text(t));
            }
        };
        for (s, who) in &sites {
            if s.start < pos {
                continue; // overlapping site (should not happen)
            }
            push_text(&mut pieces, toks[pos..s.start].concat());
            match who {
                None if w.m_bits.is_empty() => {
                    let only = w.mods.get(&0).cloned().unwrap_or_default();
                    push_text(&mut pieces, format!("{}{only}", w.mnemonic));
                }
                None => {
                    push_text(&mut pieces, w.mnemonic.clone());
                    match &factored {
                        Some((parts, _)) => {
                            for p in parts {
                                match p {
                                    Piece::Text(t) => push_text(&mut pieces, t.clone()),
                                    other => pieces.push(other.clone()),
                                }
                            }
                        }
                        None => pieces.push(Piece::Field { field: "mods".into(), render: mods_render.clone() }),
                    }
                    if let Some((_, table, _)) = &w.mods_b {
                        let entries = table.iter().map(|(v, t)| (*v, t.clone())).collect();
                        pieces.push(Piece::Field { field: "mods_b".into(), render: Render::Table { entries, default: None } });
                    }
                }
                Some((gi, _, render)) => {
                    let g = &a.groups[*gi];
                    if g.opex {
                        pieces.push(Piece::Field { field: "opex".into(), render: g.renders[0].clone() });
                    } else if let (false, Some(render)) = (g.failed, render) {
                        let name = name_for(&g.bits, g.kind, &mut fields);
                        pieces.push(Piece::Field { field: name, render: render.clone() });
                    } else {
                        // Unresolved: print the base text (the check will count this class as partial).
                        push_text(&mut pieces, toks[s.start..s.end].concat());
                    }
                }
            }
            pos = s.end;
        }
        let tail = toks[pos..].concat();
        if let Some(head) = tail.strip_suffix(" ;") {
            push_text(&mut pieces, head.to_owned());
            pieces.push(Piece::Field {
                field: "sched".into(),
                render: Render::Table { entries: vec![(SCHED_NO_SPACE, String::new())], default: Some(" ".into()) },
            });
            push_text(&mut pieces, ";".into());
        } else {
            push_text(&mut pieces, tail);
        }
        let legal: Vec<(u64, String)> = w.opex_legal.iter().map(|&v| (v, String::new())).collect();
        let has_reuse = a.groups.iter().any(|g| g.opex);
        if !has_reuse && !legal.is_empty() && legal.len() < 256 {
            pieces.push(Piece::Field { field: "opex".into(), render: Render::Table { entries: legal, default: None } });
        }
        let sig = format!("{pieces:?}");
        per_m.push((a.m, pieces, sig));
    }

    // Variants: the smallest subset of modifier bits that separates distinct templates.
    let mut variants: Vec<Variant> = Vec::new();
    let distinct: BTreeSet<&String> = per_m.iter().map(|p| &p.2).collect();
    if distinct.len() <= 1 {
        if let Some((_, pieces, _)) = per_m.first() {
            variants.push(Variant { when: Pattern::ANY, pieces: pieces.clone() });
        }
    } else {
        let nm = w.m_bits.len();
        let mut sel: Vec<usize> = (0..nm).collect();
        // Every legal modifier value that prints an empty line must stay apart from every one that prints
        // something, analysed or not (a class analyses at most MAX_M_VALUES of them).
        let silent_sig: Option<&String> = per_m.iter().find(|p| w.silent.contains(&p.0)).map(|p| &p.2);
        let separates = |sel: &[usize]| -> bool {
            let mut seen: BTreeMap<u64, &String> = BTreeMap::new();
            for (m, _, sig) in &per_m {
                let key = sel.iter().fold(0u64, |k, &i| k | (m >> i & 1) << i);
                if let Some(prev) = seen.insert(key, sig) {
                    if prev != sig {
                        return false;
                    }
                }
            }
            if silent_sig.is_some() {
                let mut loud: BTreeMap<u64, bool> = BTreeMap::new();
                for m in w.mods.keys() {
                    let key = sel.iter().fold(0u64, |k, &i| k | (m >> i & 1) << i);
                    let quiet = w.silent.contains(m);
                    if *loud.entry(key).or_insert(!quiet) == quiet {
                        return false;
                    }
                }
            }
            true
        };
        // The fewest bits that separate the analysed values: one bit, then two, else greedy removal.
        // (Greedy removal alone may keep bits that only separate the sampled values by chance.)
        let small = (0..nm)
            .map(|i| vec![i])
            .find(|t| separates(t))
            .or_else(|| (0..nm).flat_map(|i| (i + 1..nm).map(move |j| vec![i, j])).find(|t| separates(t)));
        match small {
            Some(t) => sel = t,
            None => {
                for i in (0..nm).rev() {
                    let trial: Vec<usize> = sel.iter().copied().filter(|&x| x != i).collect();
                    if separates(&trial) {
                        sel = trial;
                    }
                }
            }
        }
        // Default: the template of the most modifier values.
        let mut count: BTreeMap<&String, usize> = BTreeMap::new();
        for p in &per_m {
            // An empty line is never the default when anything else is analysed: its values get variants.
            if Some(&p.2) != silent_sig {
                *count.entry(&p.2).or_insert(0) += 1;
            }
        }
        let default_sig = count.iter().max_by_key(|(s, c)| (**c, std::cmp::Reverse(**s))).map(|(s, _)| (*s).clone());
        let mut keys_done = BTreeSet::new();
        let sel_mask: u128 = sel.iter().fold(0, |m, &i| m | 1u128 << w.m_bits[i]);
        for (m, pieces, sig) in &per_m {
            if Some(sig) == default_sig.as_ref() {
                continue;
            }
            let key = sel.iter().fold(0u64, |k, &i| k | (m >> i & 1) << i);
            if !keys_done.insert(key) {
                continue;
            }
            let value: u128 = sel.iter().fold(0, |v, &i| v | u128::from(m >> i & 1) << w.m_bits[i]);
            variants.push(Variant { when: Pattern { mask: sel_mask, value }, pieces: pieces.clone() });
        }
        if let Some(quiet) = per_m.iter().find(|p| w.silent.contains(&p.0)).map(|p| p.1.clone()) {
            for m in &w.silent {
                let key = sel.iter().fold(0u64, |k, &i| k | (m >> i & 1) << i);
                if keys_done.insert(key) {
                    let value: u128 = sel.iter().fold(0, |v, &i| v | u128::from(m >> i & 1) << w.m_bits[i]);
                    variants.push(Variant { when: Pattern { mask: sel_mask, value }, pieces: quiet.clone() });
                }
            }
        }
        if let Some((_, pieces, _)) = per_m.iter().find(|p| Some(&p.2) == default_sig.as_ref()) {
            variants.push(Variant { when: Pattern::ANY, pieces: pieces.clone() });
        }
    }
    if variants.is_empty() {
        variants.push(Variant { when: Pattern::ANY, pieces: vec![Piece::Text(String::new())] });
    }
    let used: BTreeSet<&str> = variants
        .iter()
        .flat_map(|v| v.pieces.iter())
        .filter_map(|p| if let Piece::Field { field, .. } = p { Some(field.as_str()) } else { None })
        .collect();
    let mut all_fields = Vec::new();
    if used.contains("mods") {
        all_fields.push(mods_field);
    }
    if let Some((bits, _, _)) = w.mods_b.as_ref().filter(|_| used.contains("mods_b")) {
        all_fields.push(Field { name: "mods_b".into(), bits: ranges(bits), kind: FieldKind::Modifier });
    }
    if let Some((_, mfields)) = &factored {
        all_fields.extend(mfields.iter().filter(|f| used.contains(f.name.as_str())).cloned());
    }
    all_fields.extend(fields);
    if used.contains("sched") {
        all_fields.push(sched_field);
    }
    if used.contains("opex") {
        all_fields.push(opex_field);
    }
    // Reserved bits: flips that made every analysed word illegal and belong to no field.
    let mut reserved: u128 = 0;
    if let Some(first) = w.analyses.first() {
        let mut common: BTreeSet<u32> = first.illegal_bits.iter().copied().collect();
        for a in &w.analyses[1..] {
            let s: BTreeSet<u32> = a.illegal_bits.iter().copied().collect();
            common = common.intersection(&s).copied().collect();
        }
        let in_fields: u128 = all_fields.iter().filter(|f| f.name != "sched" && f.name != "opex").fold(0, |m, f| m | f.mask());
        for b in common {
            if (in_fields >> b) & 1 == 0 && !(105..=109).contains(&b) && !(122..=124).contains(&b) {
                reserved |= 1u128 << b;
            }
        }
    }
    let name = class_name(&w.mnemonic, f.opcode);
    Class {
        name,
        mnemonic: if w.mnemonic.is_empty() { common_mnemonic(&w.mods) } else { w.mnemonic.clone() },
        opcode: f.opcode,
        fixed: Pattern { mask: f.fixed_mask | reserved, value: (f.fixed_value | (w.base & reserved)) & (f.fixed_mask | reserved) },
        fields: all_fields,
        variants,
        accesses: Accesses::default(),
        uses: Vec::new(),
        golden: Vec::new(),
    }
}

/// A value table whose texts start with an optional closing bar followed by more (`|.H1_H1`, `.F32`, `|`),
/// split into the bar table and the rest table; `None` unless some value has both.
fn split_bar(render: &Render) -> Option<(Render, Render)> {
    let Render::Table { entries, default } = render else { return None };
    if default.is_some() || !entries.iter().any(|e| e.1.len() > 1 && e.1.starts_with('|')) {
        return None;
    }
    let bar = entries.iter().map(|(v, t)| (*v, if t.starts_with('|') { "|".to_owned() } else { String::new() })).collect();
    let rest = entries.iter().map(|(v, t)| (*v, t.strip_prefix('|').unwrap_or(t).to_owned())).collect();
    Some((Render::Table { entries: bar, default: None }, Render::Table { entries: rest, default: None }))
}

/// The mnemonic of a class whose modifier table carries it (the template prints the whole token from the
/// table, e.g. `F2FP.PACK_AB`, because some values print nothing): the first token every non-empty value
/// shares, or nothing when they disagree. It only names the class; printing does not use it.
fn common_mnemonic(mods: &BTreeMap<u64, String>) -> String {
    let mut firsts = mods.values().filter(|t| !t.is_empty()).map(|t| t.split(['.', ' ']).next().unwrap_or(""));
    match firsts.next() {
        Some(first) if firsts.all(|t| t == first) => first.to_owned(),
        _ => String::new(),
    }
}

fn class_name(mnemonic: &str, opcode: u16) -> String {
    let m: String = mnemonic.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let m = if m.is_empty() || !m.starts_with(|c: char| c.is_ascii_alphabetic()) { format!("X{m}") } else { m };
    format!("{m}_{opcode:#06x}")
}

/// Splits the modifier table into independent parts (`.E` `.64` `.STRONG.GPU` ...) when the parts
/// reproduce every enumerated modifier text exactly; `None` keeps the joint table. Returns the pieces
/// that replace the joint `{mods}` and the part fields (`mods0`, `mods1`, ...).
fn factor_mods(w: &Work) -> Option<(Vec<Piece>, Vec<Field>)> {
    let n = w.m_bits.len();
    if n < 4 {
        { if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() { eprintln!("factor {}: few bits", w.mnemonic); } return None; }
    }
    let mb = extract_bits(w.base, &w.m_bits);
    let t_b = w.mods.get(&mb)?;
    let toks_b = tokenize(t_b);
    // Sites of each modifier bit flipped from the base value.
    let mut bit_sites: Vec<(usize, Vec<Site>)> = Vec::new();
    let mut siteless = Vec::new();
    for i in 0..n {
        match w.mods.get(&(mb ^ (1 << i))) {
            Some(t) if t != t_b => bit_sites.push((i, diff_sites(&toks_b, &tokenize(t)))),
            _ => siteless.push(i),
        }
    }
    let k = bit_sites.len();
    let mut parent: Vec<usize> = (0..k).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        r
    }
    for a in 0..k {
        for b in a + 1..k {
            let hit = bit_sites[a].1.iter().any(|x| bit_sites[b].1.iter().any(|y| x.conflicts(y) || x == y || (x.start < y.end && y.start < x.end)));
            if hit {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                parent[ra] = rb;
            }
        }
    }
    let mut groups: BTreeMap<usize, (Vec<usize>, Vec<Site>)> = BTreeMap::new();
    for a in 0..k {
        let r = find(&mut parent, a);
        let e = groups.entry(r).or_default();
        e.0.push(bit_sites[a].0);
        e.1.extend(bit_sites[a].1.iter().copied());
    }
    if groups.len() < 2 {
        { if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() { eprintln!("factor {}: one group", w.mnemonic); } return None; }
    }
    // Merge sites within groups; give up if groups' sites touch.
    let mut parts: Vec<(Vec<usize>, Vec<Site>)> = Vec::new();
    for (_, (mut bits, mut sites)) in groups {
        bits.sort_unstable();
        coalesce_sites(&mut sites);
        parts.push((bits, sites));
    }
    // Widen each part's sites to whole `.WORD` modifiers so that defaults (empty text) split cleanly.
    let is_dot = |i: usize| toks_b.get(i) == Some(&".");
    let every: Vec<Site> = parts.iter().flat_map(|(_, ss)| ss.iter().copied()).collect();
    for (_, sites) in parts.iter_mut() {
        for st in sites.iter_mut() {
            let crowded = every.iter().any(|o| o != st && (o.end == st.start || o.start == st.start));
            if st.start < st.end && st.start > 0 && is_dot(st.start - 1) && !is_dot(st.start) && !crowded {
                st.start -= 1;
            }
        }
    }
    // Parts whose sites overlap or meet at one point (an insertion right before another part's text, whose
    // boundary the gap-splitting cannot find) become one part.
    let all: Vec<(Site, usize)> = loop {
        let all = sites_in_order(&parts);
        let clash = all.windows(2).find(|w2| {
            w2[0].1 != w2[1].1
                && (w2[0].0.end > w2[1].0.start || (w2[0].0.start == w2[1].0.start && w2[0].0.end == w2[1].0.start))
        });
        let Some(w2) = clash else { break all };
        let (a, b) = (w2[0].1.min(w2[1].1), w2[0].1.max(w2[1].1));
        let other = parts.remove(b);
        let (bits, sites) = &mut parts[a];
        absorb(bits, sites, other.0, other.1);
        if parts.len() < 2 {
            if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
                eprintln!("factor {}: sites overlap", w.mnemonic);
            }
            return None;
        }
    };
    // Siteless bits (their flip from the base is illegal or invisible) join the first part that keeps
    // every legal modifier value splittable and consistent.
    let mut tables = build_part_tables(w, &toks_b, &parts, &all);
    for &sb in &siteless {
        let mut placed = false;
        for pi in 0..parts.len() {
            let mut trial = parts.clone();
            trial[pi].0.push(sb);
            trial[pi].0.sort_unstable();
            if let Some(t) = build_part_tables(w, &toks_b, &trial, &all) {
                parts = trial;
                tables = Some(t);
                placed = true;
                break;
            }
        }
        if !placed {
            { if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() { eprintln!("factor {}: siteless unplaced", w.mnemonic); } return None; }
        }
    }
    // Dependent parts: merge neighbours (in print order, absorbing the text between them) until the
    // parts split every legal text consistently.
    let dbg = std::env::var_os("SASSPORT_PROBE_DEBUG").is_some();
    if dbg {
        let named: Vec<(Vec<u32>, &Vec<Site>)> =
            parts.iter().map(|(b, s)| (b.iter().map(|&j| w.m_bits[j]).collect(), s)).collect();
        eprintln!("factor {} base {t_b:?}: parts {named:?}, consistent {}", w.mnemonic, tables.is_some());
    }
    let (parts, all, tables) = match tables {
        Some(t) => (parts, all, Some(t)),
        None => match factor_by_variation(w, &toks_b, parts.clone()).or_else(|| merge_conflicting_parts(w, &toks_b, parts.clone())) {
            Some((p, a, t)) => (p, a, Some(t)),
            None => merge_parts_until_consistent(w, &toks_b, parts),
        },
    };
    let Some(tables) = tables else { if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() { eprintln!("factor {}: tables", w.mnemonic); } return None; };
    let mut pieces = Vec::new();
    let mut pos = 0;
    for (site, pi) in &all {
        let lit = toks_b[pos..site.start].concat();
        if !lit.is_empty() {
            pieces.push(Piece::Text(lit));
        }
        let si = parts[*pi].1.iter().position(|s| s == site)?;
        let entries = tables[*pi].iter().map(|(v, t)| (*v, t[si].clone())).collect();
        pieces.push(Piece::Field { field: format!("mods{pi}"), render: Render::Table { entries, default: None } });
        pos = site.end;
    }
    let lit = toks_b[pos..].concat();
    if !lit.is_empty() {
        pieces.push(Piece::Text(lit));
    }
    let fields = parts
        .iter()
        .enumerate()
        .map(|(pi, (bits, _))| {
            let word_bits: Vec<u32> = bits.iter().map(|&j| w.m_bits[j]).collect();
            Field { name: format!("mods{pi}"), bits: ranges(&word_bits), kind: FieldKind::Modifier }
        })
        .collect();
    Some((pieces, fields))
}

/// Part tables read from modifier values that differ from the base in one part only, where the other
/// parts print their base text, so that parts printed next to each other with no literal text between
/// them (`.1D` `.EF` `.INVALID0` `.IGN`) still split unambiguously. A part value that is legal only
/// together with other non-base values is read once the others are known. Every legal modifier value
/// must then print as the parts predict; on a mismatch the two non-base parts nearest the first
/// difference are merged and the parts read again. `None` if they never agree.
fn factor_by_variation(w: &Work, toks_b: &[&str], mut parts: Parts) -> Option<(Parts, Vec<(Site, usize)>, Vec<BTreeMap<u64, Vec<String>>>)> {
    let base_m = extract_bits(w.base, &w.m_bits);
    let sub = |m: u64, bits: &[usize]| -> u64 { bits.iter().enumerate().fold(0, |v, (j, &b)| v | (m >> b & 1) << j) };
    let dbg = std::env::var_os("SASSPORT_PROBE_DEBUG").is_some();
    for _ in 0..16 {
        let all = sites_in_order(&parts);
        let sites: Vec<Site> = all.iter().map(|x| x.0).collect();
        let gaps = gaps_for(toks_b, &sites);
        let base_texts: Vec<String> = sites.iter().map(|st| toks_b[st.start..st.end].concat()).collect();
        let mut tables: Vec<BTreeMap<u64, Vec<String>>> = vec![BTreeMap::new(); parts.len()];
        for (pi, (bits, _)) in parts.iter().enumerate() {
            let mine: Vec<String> = all.iter().zip(&base_texts).filter(|((_, p), _)| *p == pi).map(|(_, t)| t.clone()).collect();
            tables[pi].insert(sub(base_m, bits), mine);
        }
        // Read part values from texts whose other parts are all known, until nothing new is learnt.
        loop {
            let mut learnt = false;
            for (&m, text) in &w.mods {
                let unknown: Vec<usize> =
                    (0..parts.len()).filter(|&pi| !tables[pi].contains_key(&sub(m, &parts[pi].0))).collect();
                let [pi] = unknown.as_slice() else { continue };
                // Literal text around part `pi`'s sites: gaps plus the other parts' known texts.
                let mut lits: Vec<String> = vec![gaps[0].clone()];
                let mut seen: BTreeMap<usize, usize> = BTreeMap::new();
                for (k, (_, p)) in all.iter().enumerate() {
                    let n = seen.entry(*p).or_insert(0);
                    if *p == *pi {
                        lits.push(gaps[k + 1].clone());
                    } else {
                        let t = &tables[*p][&sub(m, &parts[*p].0)][*n];
                        if let Some(l) = lits.last_mut() {
                            l.push_str(t);
                            l.push_str(&gaps[k + 1]);
                        }
                    }
                    *n += 1;
                }
                let Some(pieces) = split_at_gaps(text, &lits) else { continue };
                tables[*pi].insert(sub(m, &parts[*pi].0), pieces);
                learnt = true;
            }
            if !learnt {
                break;
            }
        }
        // Check every legal value; find the first that prints otherwise.
        let mut bad: Option<(u64, usize)> = None;
        for (&m, text) in &w.mods {
            let mut pred = gaps[0].clone();
            let mut seen: BTreeMap<usize, usize> = BTreeMap::new();
            let mut known = true;
            for (k, (_, p)) in all.iter().enumerate() {
                let n = seen.entry(*p).or_insert(0);
                match tables[*p].get(&sub(m, &parts[*p].0)) {
                    Some(t) => pred.push_str(&t[*n]),
                    None => known = false,
                }
                *n += 1;
                pred.push_str(&gaps[k + 1]);
            }
            if !known || pred != *text {
                let at = pred.bytes().zip(text.bytes()).take_while(|(a, b)| a == b).count();
                bad = Some((m, at));
                break;
            }
        }
        let Some((m, at)) = bad else { return Some((parts, all, tables)) };
        // The non-base parts of `m`, in print order, nearest the first difference first.
        let mut pos = gaps[0].len();
        let mut near: Vec<(usize, usize)> = Vec::new();
        for (k, (_, p)) in all.iter().enumerate() {
            if sub(m, &parts[*p].0) != sub(base_m, &parts[*p].0) && !near.iter().any(|x| x.1 == *p) {
                near.push((pos.abs_diff(at), *p));
            }
            pos += base_texts[k].len() + gaps[k + 1].len();
        }
        near.sort_unstable();
        if dbg {
            eprintln!("  variation: {:?} mispredicted at {at}; non-base parts {near:?}", w.mods.get(&m));
        }
        let (a, b) = match near.as_slice() {
            [x, y, ..] => (x.1.min(y.1), x.1.max(y.1)),
            // One non-base part that reads two ways: merge it with a neighbour in print order.
            [x] => {
                let k = all.iter().position(|(_, p)| *p == x.1)?;
                let other = all.get(k + 1).or_else(|| k.checked_sub(1).and_then(|j| all.get(j))).map(|y| y.1)?;
                if other == x.1 {
                    return None;
                }
                (x.1.min(other), x.1.max(other))
            }
            [] => return None,
        };
        let other = parts.remove(b);
        let (bits, sites) = &mut parts[a];
        absorb(bits, sites, other.0, other.1);
        if parts.len() < 2 {
            return None;
        }
    }
    None
}

/// Splits every legal modifier text at the literal text between all parts' sites and records, per part,
/// value → site texts. `None` when a text does not split or a part value prints two different ways
/// (the parts are not independent).
fn build_part_tables(
    w: &Work,
    toks_b: &[&str],
    parts: &[(Vec<usize>, Vec<Site>)],
    all: &[(Site, usize)],
) -> Option<Vec<BTreeMap<u64, Vec<String>>>> {
    let sites: Vec<Site> = all.iter().map(|x| x.0).collect();
    let gaps = gaps_for(toks_b, &sites);
    let mut tables: Vec<BTreeMap<u64, Vec<String>>> = vec![BTreeMap::new(); parts.len()];
    let sub = |m: u64, bits: &[usize]| -> u64 { bits.iter().enumerate().fold(0, |v, (j, &b)| v | (m >> b & 1) << j) };
    for (&m, text) in &w.mods {
        let pieces = split_at_gaps(text, &gaps)?;
        for (pi, (bits, psites)) in parts.iter().enumerate() {
            let v = sub(m, bits);
            let mine: Vec<String> = psites
                .iter()
                .map(|ps| all.iter().position(|(s, _)| s == ps).map(|k| pieces[k].clone()))
                .collect::<Option<_>>()?;
            match tables[pi].get(&v) {
                Some(prev) if *prev != mine => {
                    // Remember who disagreed, for conflict-directed merging.
                    let first = w.mods.iter().find(|(mm, _)| sub(**mm, bits) == v).map(|(mm, _)| *mm).unwrap_or(m);
                    LAST_CONFLICT.with(|c| c.set(Some((pi, first, m))));
                    return None;
                }
                Some(_) => {}
                None => {
                    tables[pi].insert(v, mine);
                }
            }
        }
    }
    Some(tables)
}

type Parts = Vec<(Vec<usize>, Vec<Site>)>;

thread_local! {
    /// The last inconsistency `build_part_tables` met: (part, modifier value, modifier value).
    static LAST_CONFLICT: std::cell::Cell<Option<(usize, u64, u64)>> = const { std::cell::Cell::new(None) };
}

/// Merges the parts that make one part print two ways, until consistent; `None` if they never are.
fn merge_conflicting_parts(w: &Work, toks_b: &[&str], mut parts: Parts) -> Option<(Parts, Vec<(Site, usize)>, Vec<BTreeMap<u64, Vec<String>>>)> {
    let sub = |m: u64, bits: &[usize]| -> u64 { bits.iter().enumerate().fold(0, |v, (j, &b)| v | (m >> b & 1) << j) };
    for _ in 0..16 {
        let all = sites_in_order(&parts);
        LAST_CONFLICT.with(|c| c.set(None));
        if let Some(t) = build_part_tables(w, toks_b, &parts, &all) {
            return Some((parts, all, t));
        }
        let (pi, m1, m2) = LAST_CONFLICT.with(|c| c.get())?;
        if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
            eprintln!("  conflict in part {pi}: {:?} vs {:?}", w.mods.get(&m1), w.mods.get(&m2));
        }
        let pj = (0..parts.len())
            .filter(|&j| j != pi && sub(m1, &parts[j].0) != sub(m2, &parts[j].0))
            .min_by_key(|&j| parts[j].0.len())?;
        let other = parts[pj].clone();
        parts[pi].0.extend(other.0);
        parts[pi].0.sort_unstable();
        parts[pi].1.extend(other.1);
        parts[pi].1.sort();
        parts.remove(pj);
    }
    None
}

fn sites_in_order(parts: &Parts) -> Vec<(Site, usize)> {
    let mut v: Vec<(Site, usize)> = parts.iter().enumerate().flat_map(|(pi, (_, ss))| ss.iter().map(move |s| (*s, pi))).collect();
    v.sort_by_key(|(s, _)| (s.start, s.end));
    v
}

fn merge_parts_until_consistent(
    w: &Work,
    toks_b: &[&str],
    mut parts: Parts,
) -> (Parts, Vec<(Site, usize)>, Option<Vec<BTreeMap<u64, Vec<String>>>>) {
    while parts.len() > 1 {
        let order = sites_in_order(&parts);
        let mut done = None;
        for k in 0..order.len().saturating_sub(1) {
            let (a, b) = (order[k].1, order[k + 1].1);
            if a == b {
                continue;
            }
            let mut trial: Parts = Vec::new();
            let mut merged = (Vec::new(), Vec::new());
            for (pi, p) in parts.iter().enumerate() {
                if pi == a || pi == b {
                    merged.0.extend(p.0.iter().copied());
                    merged.1.extend(p.1.iter().copied());
                } else {
                    trial.push(p.clone());
                }
            }
            merged.0.sort_unstable();
            let lo = merged.1.iter().map(|s| s.start).min().unwrap_or(0);
            let hi = merged.1.iter().map(|s| s.end).max().unwrap_or(0);
            // One span from the first to the last site, unless another part lies inside it.
            let inside = trial.iter().any(|p| p.1.iter().any(|s| s.start >= lo && s.end <= hi && !(s.start == hi || s.end == lo)));
            if inside {
                continue;
            }
            merged.1 = vec![Site { start: lo, end: hi }];
            trial.push(merged);
            let all = sites_in_order(&trial);
            if let Some(t) = build_part_tables(w, toks_b, &trial, &all) {
                return (trial, all, Some(t));
            }
            if done.is_none() {
                done = Some(trial);
            }
        }
        match done {
            Some(t) => parts = t,
            None => break,
        }
    }
    let all = sites_in_order(&parts);
    (parts, all, None)
}
