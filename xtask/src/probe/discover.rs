//! Class discovery and fixed-bit discrimination.
//!
//! Setting the opex field (bits 124:122 and 109:105) to 0x10 — illegal in every opex table — makes
//! nvdisasm reject any word whose opcode and fixed bits select a class with an error naming that class.
//! The name only groups words and tells classes apart; it is never written out.

use super::nvdisasm::Nvdisasm;
use super::rng::Rng;
use anyhow::Result;
use std::collections::BTreeMap;

/// Bit 91 and bits 11:0.
pub const OPCODE_MASK: u128 = (1 << 91) | 0xfff;
/// The opex field: bits 109:105 (low five) and 124:122 (high three).
pub const OPEX_MASK: u128 = (0x1f << 105) | (7 << 122);
/// Opex value 0x10: bit 109 set, the rest clear.
pub const ORACLE_OPEX: u128 = 1 << 109;

/// The word bits of a 13-bit opcode key.
pub fn key_bits(op: u16) -> u128 {
    (u128::from(op >> 12 & 1) << 91) | u128::from(op & 0xfff)
}

/// Turns a word into its oracle form.
pub fn oracle_form(w: u128) -> u128 {
    (w & !OPEX_MASK) | ORACLE_OPEX
}

/// A discovered class: its opcode, the oracle's name for it (internal, never written), sample words (in
/// oracle form, corpus words first) and the fixed bits.
#[derive(Clone, Debug)]
pub struct Found {
    pub opcode: u16,
    pub oracle: String,
    pub samples: Vec<u128>,
    /// How many of `samples` came from real code (kept in the discovery cache).
    #[allow(dead_code)]
    pub corpus_samples: usize,
    pub fixed_mask: u128,
    pub fixed_value: u128,
    /// Bits seen with both values over every word the oracle put in this class (not only the kept
    /// samples). A bit that varies is never a fixed bit, even when its single flip is illegal: two-bit
    /// fields whose legal values are 01 and 10 (F2F's destination format) look fixed to single flips.
    pub varying: u128,
}

/// Samples kept per class: at most `MAX_CORPUS_SAMPLES` from real code, so that random fills (which
/// reach the rarer legal values of joint fields) are always represented.
const MAX_SAMPLES: usize = 24;
const MAX_CORPUS_SAMPLES: usize = 12;

/// Per class while scanning: kept samples, how many came from the corpus, the first word seen and the
/// bits seen varying.
#[derive(Default)]
struct Seen {
    samples: Vec<u128>,
    corpus: usize,
    first: Option<u128>,
    varying: u128,
}

impl Seen {
    fn observe(&mut self, w: u128, from_corpus: bool) {
        let first = *self.first.get_or_insert(w);
        let new_bits = (w ^ first) & !self.varying;
        self.varying |= w ^ first;
        if self.samples.contains(&w) {
            return;
        }
        let room = if from_corpus { self.corpus < MAX_CORPUS_SAMPLES } else { self.samples.len() < MAX_SAMPLES };
        // A word that shows a bit varying for the first time is always kept (bounded by 2 * MAX_SAMPLES).
        if room || (new_bits != 0 && self.samples.len() < 2 * MAX_SAMPLES) {
            self.samples.push(w);
            if from_corpus {
                self.corpus += 1;
            }
        }
    }
}

fn template(op: u16, kind: usize, rng: &mut Rng) -> u128 {
    let body: u128 = match kind {
        0 => 0,
        1 => u128::MAX,
        // Registers RZ, predicates PT: what compilers emit for unused operands.
        2 => (0xff_ffff << 16) | (0xff << 64) | (0x3ff << 81) | (7 << 12),
        _ => rng.next_u128(),
    };
    oracle_form((body & !OPCODE_MASK) | key_bits(op))
}

/// Scans the opcode keys `keys` (all 8192 in a full probe) with zero, all-ones, RZ/PT and random fills, gives
/// keys still without a class their bit-91 sibling's words (see [`sibling_words`]), then more random fills on
/// the opcodes that decoded; returns classes sorted by (opcode, first sample).
pub fn discover(
    nv: &Nvdisasm,
    rng: &mut Rng,
    seeds: &[u128],
    keys: &[u16],
    first_fills: usize,
    live_fills: usize,
) -> Result<Vec<Found>> {
    let mut classes: BTreeMap<(u16, String), Seen> = BTreeMap::new();
    // Corpus words first, so that real words become the preferred bases.
    if !seeds.is_empty() {
        let words: Vec<u128> = seeds.iter().map(|&w| oracle_form(w)).collect();
        let out = nv.run(&words)?;
        for (w, o) in words.iter().zip(&out) {
            if let Some(name) = o.oracle_class() {
                classes.entry((opcode_of(*w), name.to_owned())).or_default().observe(*w, true);
            }
        }
    }
    let add = |words: &[u128], out: &[super::nvdisasm::Outcome], classes: &mut BTreeMap<(u16, String), Seen>| {
        for (w, o) in words.iter().zip(out) {
            if let Some(name) = o.oracle_class() {
                classes.entry((opcode_of(*w), name.to_owned())).or_default().observe(*w, false);
            }
        }
    };
    let mut words = Vec::new();
    for &op in keys {
        for k in 0..first_fills {
            words.push(template(op, k, rng));
        }
    }
    let t = std::time::Instant::now();
    let out = nv.run(&words)?;
    add(&words, &out, &mut classes);
    println!("  first pass: {} words, {:.1}s", words.len(), t.elapsed().as_secs_f64());
    let words = sibling_words(&classes, keys);
    let out = nv.run(&words)?;
    add(&words, &out, &mut classes);
    println!("  sibling pass: {} words", words.len());
    let live: Vec<u16> = {
        let mut v: Vec<u16> = classes.keys().map(|k| k.0).collect();
        v.dedup();
        v
    };
    let mut words = Vec::new();
    for &op in &live {
        for _ in 0..live_fills {
            words.push(template(op, 3, rng));
        }
    }
    let t = std::time::Instant::now();
    let out = nv.run(&words)?;
    add(&words, &out, &mut classes);
    println!("  live pass: {} words, {:.1}s", words.len(), t.elapsed().as_secs_f64());

    // Fixed bits: bits whose flip changes the oracle's answer, restricted to bits constant across samples.
    let keys: Vec<(u16, String)> = classes.keys().cloned().collect();
    let flip_bits: Vec<u32> = (12..128).filter(|&b| (OPCODE_MASK | OPEX_MASK) >> b & 1 == 0).collect();
    let mut words = Vec::new();
    let mut plan = Vec::new(); // (class index, sample index)
    for (ci, k) in keys.iter().enumerate() {
        let samples = &classes[k].samples;
        for (si, &s) in samples.iter().enumerate().take(4) {
            plan.push((ci, si));
            for &b in &flip_bits {
                words.push(s ^ (1u128 << b));
            }
        }
    }
    let out = nv.run(&words)?;
    let mut identity = vec![0u128; keys.len()];
    for (pi, &(ci, _)) in plan.iter().enumerate() {
        for (bi, &b) in flip_bits.iter().enumerate() {
            let o = &out[pi * flip_bits.len() + bi];
            // Another class, or no class at all. Other errors (a different table rejecting a value
            // first) say nothing about class identity.
            let other_class = o.oracle_class().is_some_and(|n| n != keys[ci].1);
            let no_class = matches!(o, super::nvdisasm::Outcome::Error(e) if e.contains("Unrecognized operation"));
            if other_class || no_class {
                identity[ci] |= 1u128 << b;
            }
        }
    }
    let mut found = Vec::new();
    for (ci, k) in keys.iter().enumerate() {
        let seen = &classes[k];
        let first = seen.samples[0];
        let mask = (identity[ci] & !seen.varying) | OPCODE_MASK;
        found.push(Found {
            opcode: k.0,
            oracle: k.1.clone(),
            samples: seen.samples.clone(),
            corpus_samples: seen.corpus,
            fixed_mask: mask,
            fixed_value: first & mask,
            varying: seen.varying,
        });
    }
    // Most specific first within an opcode.
    found.sort_by(|a, b| {
        a.opcode
            .cmp(&b.opcode)
            .then(b.fixed_mask.count_ones().cmp(&a.fixed_mask.count_ones()))
            .then(a.fixed_value.cmp(&b.fixed_value))
    });
    Ok(found)
}

/// Words for keys in `keys` that no fill has decoded yet, from the classes of their bit-91 sibling (bit 91
/// selects the uniform-register form of an operand: `c[0x0][0x160]` against `cx[UR4]`; the other fields are
/// shared): each sibling sample with bit 91 flipped. Random fills alone miss classes whose legal words are
/// rare — `F2F.F64.F32 R2, c[0x0][0x160]` (key 0x0b10, about one random word in eleven legal) went missing
/// from the table while its uniform sibling 0x1b10 was found. Deterministic: no random choice.
fn sibling_words(classes: &BTreeMap<(u16, String), Seen>, keys: &[u16]) -> Vec<u128> {
    let live: std::collections::BTreeSet<u16> = classes.keys().map(|k| k.0).collect();
    let mut words = Vec::new();
    for &op in keys {
        let sibling = op ^ 0x1000;
        if live.contains(&op) || !live.contains(&sibling) {
            continue;
        }
        for ((_, _), seen) in classes.range((sibling, String::new())..).take_while(|(k, _)| k.0 == sibling) {
            words.extend(seen.samples.iter().map(|&w| oracle_form(w ^ (1u128 << 91))));
        }
    }
    words
}

/// The 13-bit opcode key of a word.
pub fn opcode_of(w: u128) -> u16 {
    sassport_isa::eval::opcode_key(w)
}

/// How many samples our fixed-bit patterns classify differently from the oracle (a self-check).
pub fn misclassified(found: &[Found]) -> Vec<(String, u128, Option<String>)> {
    let mut bad = Vec::new();
    for f in found {
        for &s in &f.samples {
            let ours = found
                .iter()
                .find(|g| g.opcode == f.opcode && s & g.fixed_mask == g.fixed_value)
                .map(|g| g.oracle.clone());
            if ours.as_deref() != Some(f.oracle.as_str()) {
                bad.push((f.oracle.clone(), s, ours));
            }
        }
    }
    bad
}

/// Saves discovery results (a debugging aid for iterating on the analysis; the file holds internal class
/// names and must stay outside the repository).
pub fn save(found: &[Found], path: &std::path::Path) -> Result<()> {
    let mut s = String::new();
    for f in found {
        s.push_str(&format!("{} {} {:x} {:x} {:x} {}", f.opcode, f.oracle, f.fixed_mask, f.fixed_value, f.varying, f.corpus_samples));
        for w in &f.samples {
            s.push_str(&format!(" {w:x}"));
        }
        s.push('\n');
    }
    std::fs::write(path, s)?;
    Ok(())
}

/// Loads what [`save`] wrote.
pub fn load(path: &std::path::Path) -> Result<Vec<Found>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    for line in text.lines() {
        let p: Vec<&str> = line.split(' ').collect();
        anyhow::ensure!(p.len() >= 7, "bad cache line");
        out.push(Found {
            opcode: p[0].parse()?,
            oracle: p[1].to_owned(),
            fixed_mask: u128::from_str_radix(p[2], 16)?,
            fixed_value: u128::from_str_radix(p[3], 16)?,
            varying: u128::from_str_radix(p[4], 16)?,
            corpus_samples: p[5].parse()?,
            samples: p[6..].iter().map(|w| u128::from_str_radix(w, 16)).collect::<Result<_, _>>()?,
        });
    }
    Ok(out)
}
