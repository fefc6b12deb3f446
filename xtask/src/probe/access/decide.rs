//! What decides a class's access widths and directions: single-field sweeps, fields that only decide
//! away from the base, which of their bits decide which location, and every combination of those bits.

use super::observe::{Observed, Outcome};
use super::{prints, Study};
use crate::probe::rng::Rng;
use sassport_isa::*;
use std::collections::{BTreeMap, BTreeSet};

/// Values tried per modifier field in the single-field sweeps, per field in the joint enumeration,
/// and joint combinations per class (sampled beyond these).
pub const FIELD_VALUES: usize = 512;
const JOINT_FIELD_VALUES: usize = 8192;
const JOINT_WORDS: usize = 16384;

/// Fields the sweeps vary: modifiers, small numbers, and register fields that are no one operand (a
/// 6-bit field of two predicates).
pub fn is_swept(class: &Class, f: &Field) -> bool {
    if super::locate::register_file(class, f).is_some() || super::locate::is_guard(f) || f.name == "sched" || f.name == "opex" {
        return false;
    }
    match f.kind {
        FieldKind::Modifier | FieldKind::Register(_) => true,
        FieldKind::Immediate | FieldKind::Other => f.width() <= 8,
        _ => false,
    }
}

/// The values worth trying in a field: every table entry and special of its renders; a few more
/// for numbers. At most `cap`, sampled at random.
pub fn field_values(class: &Class, f: &Field, rng: &mut Rng, cap: usize) -> Vec<u64> {
    let mut values = BTreeSet::new();
    let mut numeric = false;
    for p in class.variants.iter().flat_map(|v| &v.pieces) {
        let Piece::Field { field, render } = p else { continue };
        if *field != f.name {
            continue;
        }
        match render {
            Render::Table { entries, default } => {
                values.extend(entries.iter().map(|e| e.0));
                numeric |= default.is_some();
            }
            Render::Number { specials, .. } => {
                values.extend(specials.iter().map(|e| e.0));
                numeric = true;
            }
        }
    }
    let max = if f.width() >= 64 { u64::MAX } else { (1u64 << f.width()) - 1 };
    if numeric {
        values.extend([0, 1, max]);
        for _ in 0..4 {
            values.insert(rng.next_u64() & max);
        }
    }
    let mut v: Vec<u64> = values.into_iter().filter(|&x| x <= max).collect();
    if v.len() <= cap {
        return v;
    }
    // A random sample: evenly spaced values share their low bits (every eighth of a 12-bit
    // modifier field has the same size bits) and would hide what those bits decide.
    for i in 0..cap {
        let j = i + rng.below((v.len() - i) as u64) as usize;
        v.swap(i, j);
    }
    v.truncate(cap);
    v.sort_unstable();
    v
}

/// Whether two outcome lists differ where both say something.
pub fn differs(a: &[Option<Outcome>], b: &[Option<Outcome>]) -> bool {
    a.iter().zip(b).any(|(x, y)| matches!((x, y), (Some(x), Some(y)) if x != y))
}

/// Legal words with random values of the deciding fields (the base's elsewhere).
pub fn joint_samples(table: &Table, class: &Class, s: &Study, rng: &mut Rng, n: usize) -> Vec<u128> {
    let values: Vec<(usize, Vec<u64>)> =
        s.deciding.iter().map(|&fi| (fi, field_values(class, &class.fields[fi], rng, JOINT_FIELD_VALUES))).collect();
    random_words(table, class, s.base, &values, rng, n, false)
}

/// Words for checking fitted rules: the base with every swept field at a random one of its values
/// (the deciding fields and the others together), at most `n`, legal ones only, in word order.
pub fn check_words(table: &Table, class: &Class, s: &Study, rng: &mut Rng, n: usize) -> Vec<u128> {
    let values: Vec<(usize, Vec<u64>)> = class
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| is_swept(class, f))
        .map(|(fi, f)| (fi, field_values(class, f, rng, JOINT_FIELD_VALUES)))
        .collect();
    let mut words = random_words(table, class, s.base, &values, rng, n, true);
    words.sort_unstable();
    words
}

/// Up to `n` distinct legal words, each `base` with every field of `values` set to a random one of its
/// values, in the order drawn (`4n` draws at most); `base` itself among them only if `keep_base`.
fn random_words(table: &Table, class: &Class, base: u128, values: &[(usize, Vec<u64>)], rng: &mut Rng, n: usize, keep_base: bool) -> Vec<u128> {
    let values: Vec<&(usize, Vec<u64>)> = values.iter().filter(|(_, v)| !v.is_empty()).collect();
    let mut out = Vec::new();
    if values.is_empty() {
        return out;
    }
    for _ in 0..n * 4 {
        let mut w = base;
        for (fi, v) in &values {
            w = class.fields[*fi].insert(w, v[rng.below(v.len() as u64) as usize]);
        }
        if (keep_base || w != base) && prints(table, class, w) && !out.contains(&w) {
            out.push(w);
            if out.len() == n {
                break;
            }
        }
    }
    out
}

/// Words that show a field deciding only away from the base: bases that move the deciding fields (each
/// at its first legal value; single bits of them flipped; random joint values), each with every other
/// field set to a few of its values.
pub fn away_words(table: &Table, class: &Class, s: &Study, rng: &mut Rng) -> Vec<u128> {
    if s.deciding.is_empty() {
        return Vec::new();
    }
    let mut bases = Vec::new();
    let mut first = s.base;
    for &fi in &s.deciding {
        let f = &class.fields[fi];
        if let Some(&v) = field_values(class, f, rng, JOINT_FIELD_VALUES).iter().find(|&&v| prints(table, class, f.insert(first, v))) {
            first = f.insert(first, v);
        }
    }
    bases.push(first);
    let mask: u128 = s.deciding.iter().fold(0, |m, &fi| m | class.fields[fi].mask());
    let mut flips: Vec<u128> = (0..128).filter(|i| mask >> i & 1 == 1).map(|b| s.base ^ (1u128 << b)).filter(|&w| prints(table, class, w)).collect();
    while flips.len() > 6 {
        flips.remove(rng.below(flips.len() as u64) as usize);
    }
    bases.extend(flips);
    bases.extend(joint_samples(table, class, s, rng, 6));
    sweeps_around(table, class, s, &bases, rng)
}

/// Each of `bases`, followed by every swept field that does not decide (yet) set to a few of its
/// values.
pub fn sweeps_around(table: &Table, class: &Class, s: &Study, bases: &[u128], rng: &mut Rng) -> Vec<u128> {
    let mut out = Vec::new();
    for &b in bases {
        out.push(b);
        for (fi, f) in class.fields.iter().enumerate() {
            if !is_swept(class, f) || s.deciding.contains(&fi) {
                continue;
            }
            for value in field_values(class, f, rng, 8) {
                let w = f.insert(b, value);
                if w != b && prints(table, class, w) {
                    out.push(w);
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The base and a dozen joint samples, each followed by its flips of every deciding field's bits.
pub fn bit_flip_words(table: &Table, class: &Class, s: &Study, rng: &mut Rng) -> Vec<u128> {
    let mask: u128 = s.deciding.iter().fold(0, |m, &fi| m | class.fields[fi].mask());
    if mask == 0 {
        return Vec::new();
    }
    let mut bases = vec![s.base];
    bases.extend(joint_samples(table, class, s, rng, 12));
    let mut out = Vec::new();
    for b in bases {
        out.push(b);
        for bit in (0..128).filter(|i| mask >> i & 1 == 1) {
            let w = b ^ (1u128 << bit);
            if prints(table, class, w) {
                out.push(w);
            }
        }
    }
    out
}

/// Per site, the bits whose flip changed its outcome in `words` (bases, each followed by its flips).
pub fn deciding_bits(class: &Class, s: &mut Study, words: &[(u128, Observed)]) -> Vec<u128> {
    let mask: u128 = s.deciding.iter().fold(0, |m, &fi| m | class.fields[fi].mask());
    let mut odd = Vec::new();
    let outs: BTreeMap<u128, Vec<Option<Outcome>>> =
        words.iter().map(|(w, o)| (*w, s.sites.outcomes(*w, o, &mut odd))).collect();
    let n = s.sites.all().count();
    let mut care = vec![0u128; n];
    for (w, out) in &outs {
        for bit in (0..128).filter(|i| mask >> i & 1 == 1) {
            let Some(other) = outs.get(&(w ^ (1u128 << bit))) else { continue };
            for (i, c) in care.iter_mut().enumerate() {
                if matches!((out.get(i), other.get(i)), (Some(Some(x)), Some(Some(y))) if x != y) {
                    *c |= 1u128 << bit;
                }
            }
        }
    }
    // No flip showed it (flips of those fields make illegal words): all their bits.
    if care.iter().all(|&c| c == 0) && mask != 0 {
        care.iter_mut().for_each(|c| *c = mask);
    }
    care
}

/// Every combination of the deciding bits (at most `JOINT_WORDS`, sampled beyond), each field's
/// bits completed to one of its legal values where the base's bits would make it illegal.
pub fn joint_words(table: &Table, class: &Class, s: &Study, rng: &mut Rng) -> Vec<u128> {
    let bits: Vec<u32> = (0..128).filter(|i| s.care >> i & 1 == 1).collect();
    if bits.is_empty() {
        return Vec::new();
    }
    let values: Vec<(usize, Vec<u64>)> =
        s.deciding.iter().map(|&fi| (fi, field_values(class, &class.fields[fi], rng, JOINT_FIELD_VALUES))).collect();
    let combos: Vec<u64> = if bits.len() <= 14 {
        (0..1u64 << bits.len()).collect()
    } else {
        (0..JOINT_WORDS).map(|_| rng.next_u64() & ((1u64 << bits.len().min(63)) - 1)).collect()
    };
    let mut out = Vec::new();
    for c in combos {
        let mut w = s.base & !s.care;
        for (k, &b) in bits.iter().enumerate() {
            w |= u128::from((c >> k) & 1) << b;
        }
        if !prints(table, class, w) {
            // Another value of each deciding field with the same deciding bits.
            for (fi, v) in &values {
                let f = &class.fields[*fi];
                let want = w & f.mask() & s.care;
                if let Some(&x) = v.iter().find(|&&x| f.insert(0, x) & s.care == want) {
                    w = f.insert(w, x);
                }
            }
        }
        if prints(table, class, w) {
            out.push(w);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether two seen words that differ only in field `fi` have different outcomes somewhere.
pub fn field_decides(class: &Class, fi: usize, seen: &[(u128, Vec<Option<Outcome>>)]) -> bool {
    let mask = class.fields[fi].mask();
    let mut by_rest: BTreeMap<u128, &Vec<Option<Outcome>>> = BTreeMap::new();
    for (w, out) in seen {
        match by_rest.get(&(w & !mask)) {
            Some(other) if differs(other, out) => return true,
            Some(_) => {}
            None => {
                by_rest.insert(w & !mask, out);
            }
        }
    }
    false
}

