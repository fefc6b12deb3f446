//! Finding a class's register locations from its spread base word.
//!
//! Register fields (and the guard, bits 14:12) are locations by hypothesis. Every other register the
//! base word's row shows is looked for by single-bit flips of the other fields: a flip that moves it by
//! one power of two (`n` → `n ^ 2^k`) names the word bit holding bit `k` of its number. A register
//! whose flips land on the zero register (`P3` → `PT` for bit 2) cannot show some of its bits from
//! that base; those are found from a second base in which the bits already known make the number 0.
//! Registers no flip moves are fixed.

use super::observe::{marks, Observed, Site, Sites};
use super::prints;
use sassport_isa::*;
use std::collections::{BTreeMap, BTreeSet};

/// A flip of one word bit, and the listing row it gave.
pub struct Flip<'a> {
    pub bit: u8,
    pub obs: &'a Observed,
}

/// One register the row shows that no field explains: which file, number and half (read or write).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Target {
    pub file: RegFile,
    pub reg: u64,
    pub write: bool,
}

/// Register bit → (word bit, stored complemented).
pub type BitMap = BTreeMap<u32, (u8, bool)>;

pub fn is_guard(f: &Field) -> bool {
    f.name == "pg" && f.bits.len() == 1 && f.bits[0].lo == 12 && f.bits[0].hi == 15
}

/// The register file a field's value names, when the field is one register operand: a register field
/// as wide as its file's numbers (a 6-bit "predicate" field holds two predicates and is none), or a
/// 3-bit number printed `P<n>` / `UP<n>` (a carry-out predicate the probe saw as a number).
pub fn register_file(class: &Class, f: &Field) -> Option<RegFile> {
    if let FieldKind::Register(file @ (RegFile::Gpr | RegFile::Uniform | RegFile::Pred | RegFile::UniformPred)) = f.kind {
        return (f.width() == number_bits(file)).then_some(file);
    }
    if f.width() != 3 || is_guard(f) {
        return None;
    }
    let mut file = None;
    for p in class.variants.iter().flat_map(|v| &v.pieces) {
        let Piece::Field { field, render } = p else { continue };
        if *field != f.name {
            continue;
        }
        let Render::Number { rule, .. } = render else { return None };
        let prefix = rule.prefix.trim_start_matches([' ', ',', '!', '-', '|', '~']);
        let this = match prefix {
            "P" => RegFile::Pred,
            "UP" => RegFile::UniformPred,
            _ => return None,
        };
        if rule.format != NumberFormat::Dec || file.is_some_and(|f| f != this) {
            return None;
        }
        file = Some(this);
    }
    file
}

/// Fields whose bits the flips try: all but register operands, the guard and the scheduling fields.
pub fn is_flippable(class: &Class, f: &Field) -> bool {
    register_file(class, f).is_none() && !is_guard(f) && f.name != "sched" && f.name != "opex"
}

/// Whether a field holds one predicate register (a predicate operand, or the guard).
pub fn is_pred_like(class: &Class, f: &Field) -> bool {
    matches!(register_file(class, f), Some(RegFile::Pred | RegFile::UniformPred)) || is_guard(f)
}

/// The guard's register file: `@UP` guards uniform instructions.
pub fn guard_file(class: &Class) -> RegFile {
    let uniform = class.variants.iter().flat_map(|v| &v.pieces).any(|p| match p {
        Piece::Field { field, render: Render::Table { entries, .. } } if field == "pg" => {
            entries.iter().any(|(_, t)| t.contains("@UP") || t.contains("@!UP"))
        }
        _ => false,
    });
    if uniform {
        RegFile::UniformPred
    } else {
        RegFile::Pred
    }
}

/// The site a register field (or the guard) stands for.
pub fn field_site(class: &Class, f: &Field) -> Option<Site> {
    if is_guard(f) {
        return Some(Site { file: guard_file(class), location: Location::Bits { ranges: vec![BitRange { lo: 12, hi: 14 }], inverted: false } });
    }
    let file = register_file(class, f)?;
    Some(Site { file, location: Location::Bits { ranges: f.bits.clone(), inverted: false } })
}

/// Whether a run of registers (one register, for predicates) starts at `reg` in `t`'s file and half.
fn has(o: &Observed, t: Target, reg: u64) -> bool {
    let Some(s) = super::observe::file_slot(t.file) else { return false };
    let set = if t.write { &o.write[s] } else { &o.read[s] };
    let single = matches!(t.file, RegFile::Pred | RegFile::UniformPred);
    set.contains(&reg) && (single || reg == 0 || !set.contains(&(reg - 1)))
}

/// The word bits holding `target`'s number, from flips of `base` (whose row is `base_obs`).
pub fn locate(base: u128, base_obs: &Observed, flips: &[Flip<'_>], t: Target) -> BitMap {
    let mut bits = BitMap::new();
    for f in flips {
        if has(f.obs, t, t.reg) {
            continue;
        }
        for k in 0..8u32 {
            let moved = t.reg ^ (1 << k);
            if super::observe::listed(t.file, moved) && has(f.obs, t, moved) && !has(base_obs, t, moved) {
                let word_bit = (base >> f.bit) & 1 == 1;
                let number_bit = (t.reg >> k) & 1 == 1;
                bits.entry(k).or_insert((f.bit, word_bit != number_bit));
            }
        }
    }
    bits
}

/// Bits a register number of `file` has.
pub fn number_bits(file: RegFile) -> u32 {
    match file {
        RegFile::Gpr => 8,
        RegFile::Uniform => 6,
        _ => 3,
    }
}

pub fn complete(file: RegFile, bits: &BitMap) -> bool {
    (0..number_bits(file)).all(|k| bits.contains_key(&k)) && bits.values().map(|v| v.1).collect::<BTreeSet<_>>().len() == 1
}

/// The base for a second look at a partly found target: its known bits set so that the number, with
/// any one of its other bits flipped, is still a register the listing shows (not the zero register,
/// not `UR0`..`UR3`) and not one the base row already marks (another operand's). `None` when no
/// setting does.
pub fn second_base(base: u128, base_obs: &Observed, t: Target, bits: &BitMap) -> Option<(u128, u64)> {
    let nb = number_bits(t.file);
    let known: Vec<u32> = bits.keys().copied().collect();
    let unknown: Vec<u32> = (0..nb).filter(|k| !bits.contains_key(k)).collect();
    let keep = unknown.iter().fold(0u64, |m, &k| m | 1 << k);
    for a in 0..1u64 << known.len() {
        let number = known.iter().enumerate().fold(t.reg & keep, |r, (i, &k)| r | ((a >> i) & 1) << k);
        let free = |r: u64| super::observe::listed(t.file, r) && (r == t.reg || !has(base_obs, t, r));
        let ok = super::observe::listed(t.file, number) && unknown.iter().all(|&k| free(number ^ 1 << k));
        if !ok {
            continue;
        }
        let mut w = base;
        for (i, &k) in known.iter().enumerate() {
            let (b, inverted) = bits[&k];
            let word_bit = ((a >> i) & 1 == 1) != inverted;
            w = (w & !(1u128 << b)) | (u128::from(word_bit) << b);
        }
        return Some((w, number));
    }
    None
}

/// The site for a completely located target.
pub fn bits_site(file: RegFile, bits: &BitMap) -> Site {
    let inverted = bits.values().any(|v| v.1);
    let mut ranges: Vec<BitRange> = Vec::new();
    for &(b, _) in bits.values() {
        match ranges.last_mut() {
            Some(r) if r.hi + 1 == b => r.hi = b,
            _ => ranges.push(BitRange { lo: b, hi: b }),
        }
    }
    Site { file, location: Location::Bits { ranges, inverted } }
}

/// The registers of the base row outside the field sites, as targets: the first register of each
/// run of one file and half (every predicate on its own), with the run's length.
pub fn targets(field_sites: &[Site], base: u128, base_obs: &Observed) -> Vec<(Target, u64)> {
    let sites = Sites { bits: field_sites.to_vec(), ..Sites::default() };
    let rest = sites.unexplained(base, base_obs);
    let mut out = Vec::new();
    for file in super::observe::FILES {
        let Some(slot) = super::observe::file_slot(file) else { continue };
        let single = matches!(file, RegFile::Pred | RegFile::UniformPred);
        for write in [false, true] {
            let set = if write { &rest.write[slot] } else { &rest.read[slot] };
            for &reg in set {
                let t = Target { file, reg, write };
                if has(&rest, t, reg) {
                    let len = if single { 1 } else { (reg..).take_while(|r| set.contains(r)).count() as u64 };
                    out.push((t, len));
                }
            }
        }
    }
    out
}

/// The class's sites once every target is either located (`found`) or fixed: the fixed registers
/// are the base row's marks outside the bits sites, grouped into runs of one file and direction.
pub fn finish(bits_sites: Vec<Site>, fixed_targets: &[Target], base: u128, base_obs: &Observed) -> Sites {
    let mut fixed_candidates = Observed::default();
    for t in fixed_targets {
        fixed_candidates.add(t.file, t.reg, if t.write { Direction::Write } else { Direction::Read });
    }
    // The operands as they are without the fixed registers (a call writes the predicate it reads).
    let operands = Sites { bits: bits_sites.clone(), ..Sites::default() };
    let mut scratch = Vec::new();
    let outs = operands.outcomes(base, &base_obs.minus(&fixed_candidates), &mut scratch);
    let mut fixed_marks = base_obs.clone();
    for (s, o) in bits_sites.iter().zip(outs) {
        if let Some(o) = o {
            fixed_marks = fixed_marks.minus(&marks(s, base, o));
        }
    }
    let mut fixed: Vec<Site> = Vec::new();
    let mut last: Option<(RegFile, u64, Direction)> = None;
    for (file, reg, d) in fixed_marks.registers() {
        let continues = matches!(last, Some((f, r, ld)) if f == file && r + 1 == reg && ld == d);
        if !continues {
            if let Ok(n) = u8::try_from(reg) {
                fixed.push(Site { file, location: Location::Fixed(n) });
            }
        }
        last = Some((file, reg, d));
    }
    Sites { bits: bits_sites, fixed, fixed_marks }
}

/// Whether a predicate field's sweep ever showed its register (a field that never does is no register
/// for the listing, e.g. a predicate `PT` only accepts).
pub fn shows(file: RegFile, base_obs: &Observed, sweep: &[(u64, &Observed)]) -> bool {
    let Some(s) = super::observe::file_slot(file) else { return false };
    sweep.is_empty()
        || sweep.iter().any(|(v, o)| {
            (o.read[s].contains(v) && !base_obs.read[s].contains(v)) || (o.write[s].contains(v) && !base_obs.write[s].contains(v))
        })
}

/// Sites a swept field's values name (optional carry-out predicates that the base word leaves off):
/// per file and half, bit assignments from field bits to register-number bits (all plain or all
/// complemented) under which every sampled value's register is one its row shows unexplained (or
/// one the listing cannot show); chosen greedily until they explain every such register.
/// `samples` are (value, unexplained marks, all operand marks): a register marked but explained is
/// another operand's, and says nothing.
pub fn from_values(f: &Field, samples: &[(u64, Observed, Observed)]) -> Vec<Site> {
    let mut sites = Vec::new();
    let width = f.width();
    for file in super::observe::FILES {
        let Some(slot) = super::observe::file_slot(file) else { continue };
        let nb = number_bits(file);
        // Ordered choices of `nb` field bits: keep the search small.
        let choices: f64 = (0..nb).map(|i| f64::from(width.saturating_sub(i))).product();
        if nb > width || choices > 50_000.0 {
            continue;
        }
        for write in [false, true] {
            let half = |o: &'_ Observed| if write { o.write[slot].clone() } else { o.read[slot].clone() };
            let sets: Vec<(u64, BTreeSet<u64>)> = samples.iter().map(|(v, o, _)| (*v, half(o))).collect();
            let taken: Vec<BTreeSet<u64>> = samples.iter().map(|(_, _, all)| half(all)).collect();
            if sets.iter().all(|(_, s)| s.is_empty()) {
                continue;
            }
            // (field bit per register bit, complemented, the (sample, register) pairs it explains)
            let mut candidates: Vec<Assignment> = Vec::new();
            for_each_assignment(width, nb, &mut |map: &[u32]| {
                for inverted in [false, true] {
                    let reg = |v: u64| {
                        map.iter().enumerate().fold(0u64, |r, (k, &j)| r | ((((v >> j) & 1) ^ u64::from(inverted)) << k))
                    };
                    let mut explains = BTreeSet::new();
                    let mut ok = true;
                    for (i, (v, set)) in sets.iter().enumerate() {
                        let r = reg(*v);
                        if !super::observe::listed(file, r) || (taken[i].contains(&r) && !set.contains(&r)) {
                            continue;
                        }
                        if !set.contains(&r) {
                            ok = false;
                            break;
                        }
                        explains.insert((i, r));
                    }
                    let distinct: BTreeSet<u64> = explains.iter().map(|e| e.1).collect();
                    if ok && distinct.len() >= 3 {
                        candidates.push((map.to_vec(), inverted, explains));
                    }
                }
            });
            let mut left: BTreeSet<(usize, u64)> =
                sets.iter().enumerate().flat_map(|(i, (_, s))| s.iter().map(move |&r| (i, r))).collect();
            loop {
                let best = candidates.iter().max_by_key(|c| c.2.intersection(&left).count());
                let Some((map, inverted, explains)) = best.filter(|c| c.2.intersection(&left).count() > 0) else { break };
                let word_bits: Vec<u8> = map.iter().filter_map(|&j| field_bit(f, j)).collect();
                let mut ranges: Vec<BitRange> = Vec::new();
                for b in word_bits {
                    match ranges.last_mut() {
                        Some(r) if r.hi + 1 == b => r.hi = b,
                        _ => ranges.push(BitRange { lo: b, hi: b }),
                    }
                }
                let site = Site { file, location: Location::Bits { ranges, inverted: *inverted } };
                if !sites.contains(&site) {
                    sites.push(site);
                }
                for e in explains {
                    left.remove(e);
                }
            }
        }
    }
    sites
}

/// A candidate reading of a swept field: field bit per register bit, whether the number is stored
/// complemented, and the (sample, register) pairs it explains.
type Assignment = (Vec<u32>, bool, BTreeSet<(usize, u64)>);

/// Calls `f` with every ordered choice of `n` distinct numbers below `width`.
fn for_each_assignment(width: u32, n: u32, f: &mut dyn FnMut(&[u32])) {
    fn go(width: u32, n: u32, cur: &mut Vec<u32>, f: &mut dyn FnMut(&[u32])) {
        if cur.len() as u32 == n {
            f(cur);
            return;
        }
        for j in 0..width {
            if !cur.contains(&j) {
                cur.push(j);
                go(width, n, cur, f);
                cur.pop();
            }
        }
    }
    go(width, n, &mut Vec::new(), f);
}

/// The word bit holding bit `j` of field `f`.
fn field_bit(f: &Field, j: u32) -> Option<u8> {
    let mut j = j;
    for r in &f.bits {
        if j < r.width() {
            return Some(r.lo + j as u8);
        }
        j -= r.width();
    }
    None
}

/// Register numbers the spread word gives general and uniform register fields.
const GPR_SPREAD: [u64; 7] = [32, 64, 96, 128, 160, 192, 224];
const UREG_SPREAD: [u64; 4] = [40, 46, 52, 58];

/// A legal word of the class, from its golden words, with register operands spread apart, predicate
/// operands at `PT`, the guard at `P6` and branch targets at the next instruction; fields that cannot take
/// their spread value keep theirs.
pub fn spread_word(table: &Table, class: &Class) -> Option<u128> {
    let starts: Vec<u128> = class.golden.iter().filter(|g| !g.text.is_empty()).map(|g| g.word).collect();
    for start in starts {
        if !prints(table, class, start) {
            continue;
        }
        let mut w = start;
        let (mut g, mut u) = (0, 0);
        for f in &class.fields {
            let value = match register_file(class, f) {
                Some(RegFile::Gpr) => {
                    g += 1;
                    GPR_SPREAD.get(g - 1).copied()
                }
                Some(RegFile::Uniform) => {
                    u += 1;
                    UREG_SPREAD.get(u - 1).copied()
                }
                // The guard at P6: a branch or exit stays conditional, so the words after it in a batch
                // are reached and listed.
                _ if is_guard(f) => Some(6),
                // Branch targets at the next instruction: nvdisasm follows targets, and some forms it
                // cannot place outside the function make it give up ("Function falls through").
                _ if f.kind == FieldKind::BranchTarget => Some(0),
                _ if is_pred_like(class, f) => Some(7),
                // Several predicates in one field (`UP0, UP1, `): all `PT`, so that none shares a
                // register with another; the sweeps find them.
                _ if matches!(f.kind, FieldKind::Register(RegFile::Pred | RegFile::UniformPred)) => Some((1u64 << f.width()) - 1),
                _ => None,
            };
            if let Some(v) = value {
                let t = f.insert(w, v);
                if prints(table, class, t) {
                    w = t;
                }
            }
        }
        return Some(w);
    }
    None
}

/// What a location-finding word is.
#[derive(Clone, Copy, Debug)]
pub enum Probe {
    /// A predicate field (or the guard) set to this predicate.
    PredSweep(usize, u64),
    /// The base with this bit flipped.
    Flip(u8),
}

/// The first look at a class's locations.
pub struct First {
    pub bits_sites: Vec<Site>,
    pub fixed: Vec<Target>,
    /// Targets only partly located, with the bits found.
    pub pending: Vec<(Target, BitMap)>,
    pub notes: Vec<String>,
}

/// Field sites (without predicate fields whose sweep never shows a register) and every other register
/// of the base row, located by flips where they can be.
pub fn first_look(class: &Class, base: u128, base_obs: &Observed, words: &[(Probe, u128, Option<Observed>)]) -> First {
    let mut bits_sites = Vec::new();
    for (fi, f) in class.fields.iter().enumerate() {
        let Some(site) = field_site(class, f) else { continue };
        if is_pred_like(class, f) {
            let sweep: Vec<(u64, &Observed)> = words
                .iter()
                .filter_map(|(p, _, o)| match (p, o) {
                    (Probe::PredSweep(i, v), Some(o)) if *i == fi => Some((*v, o)),
                    _ => None,
                })
                .collect();
            if !shows(site.file, base_obs, &sweep) {
                continue;
            }
        }
        bits_sites.push(site);
    }
    let flips: Vec<Flip<'_>> = words
        .iter()
        .filter_map(|(p, _, o)| match (p, o) {
            (Probe::Flip(b), Some(o)) => Some(Flip { bit: *b, obs: o }),
            _ => None,
        })
        .collect();
    let mut first = First { bits_sites: Vec::new(), fixed: Vec::new(), pending: Vec::new(), notes: Vec::new() };
    for (t, len) in targets(&bits_sites, base, base_obs) {
        let bits = locate(base, base_obs, &flips, t);
        if bits.is_empty() {
            first.fixed.extend((0..len).map(|i| Target { reg: t.reg + i, ..t }));
        } else if complete(t.file, &bits) {
            let site = bits_site(t.file, &bits);
            if !bits_sites.contains(&site) && !first.bits_sites.contains(&site) {
                first.bits_sites.push(site);
            }
        } else {
            first.pending.push((t, bits));
        }
    }
    bits_sites.append(&mut first.bits_sites);
    first.bits_sites = bits_sites;
    first
}

