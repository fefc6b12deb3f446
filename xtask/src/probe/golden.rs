//! The final check and the golden pairs: random words per class and every corpus word are printed by
//! nvdisasm and by the table interpreter; classes keep verified (address, word, text) triples.

use super::analyze::{addr_of, Batch};
use super::discover::{Found, OPEX_MASK};
use super::nvdisasm::Nvdisasm;
use super::rng::Rng;
use anyhow::{Context, Result};
use sassport_isa::eval;
use sassport_isa::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Golden pairs kept per class.
const GOLDEN_PER_CLASS: usize = 6;

/// Distinct instruction words of every `.text.*` section of the corpus cubins, sorted.
pub fn corpus_words(dir: &Path) -> Result<Vec<u128>> {
    let mut words = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(Vec::new()) };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "cubin")).collect();
    paths.sort();
    for p in paths {
        let bytes = std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
        for text in elf_text_sections(&bytes) {
            for chunk in text.chunks_exact(16) {
                let mut b = [0u8; 16];
                b.copy_from_slice(chunk);
                words.insert(u128::from_le_bytes(b));
            }
        }
    }
    Ok(words.into_iter().collect())
}

/// The contents of ELF64 little-endian sections named `.text.*` (malformed files yield nothing).
fn elf_text_sections(b: &[u8]) -> Vec<&[u8]> {
    let rd = |o: usize, n: usize| -> Option<u64> {
        let s = b.get(o..o + n)?;
        Some(s.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)))
    };
    let mut out = Vec::new();
    if b.get(..4) != Some(b"\x7fELF") || b.get(4) != Some(&2) || b.get(5) != Some(&1) {
        return out;
    }
    let (Some(shoff), Some(shentsize), Some(shnum), Some(shstrndx)) = (rd(0x28, 8), rd(0x3a, 2), rd(0x3c, 2), rd(0x3e, 2))
    else {
        return out;
    };
    let sh = |i: u64| -> Option<(u64, u64, u64)> {
        let base = (shoff + i * shentsize) as usize;
        Some((rd(base, 4)?, rd(base + 0x18, 8)?, rd(base + 0x20, 8)?))
    };
    let Some((_, stroff, _)) = sh(shstrndx) else { return out };
    for i in 0..shnum {
        let Some((name, off, size)) = sh(i) else { continue };
        let start = (stroff + name) as usize;
        let Some(rest) = b.get(start..) else { continue };
        let end = rest.iter().position(|&c| c == 0).unwrap_or(0);
        let name = &rest[..end];
        if name.starts_with(b".text.") {
            if let Some(data) = b.get(off as usize..(off + size) as usize) {
                out.push(data);
            }
        }
    }
    out
}

pub struct Report {
    pub classes: usize,
    pub checked: usize,
    pub agreed: usize,
    pub exact_classes: usize,
    pub corpus: usize,
    pub corpus_agreed: usize,
    pub corpus_failures: Vec<String>,
    pub partial: Vec<(String, usize, usize)>,
    pub goldens: usize,
}

impl Report {
    pub fn summary(&self) -> String {
        let mut s = format!(
            "check: {}/{} random words agree ({:.2}%), {} of {} classes exact; corpus {}/{} agree; {} golden pairs",
            self.agreed,
            self.checked,
            100.0 * self.agreed as f64 / self.checked.max(1) as f64,
            self.exact_classes,
            self.classes,
            self.corpus_agreed,
            self.corpus,
            self.goldens
        );
        for f in self.corpus_failures.iter().take(40) {
            s.push_str("\n  corpus: ");
            s.push_str(f);
        }
        s
    }

    pub fn comment_lines(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "Probe check: {} of {} random words ({:.2}%) print identically through this table; {} of {} classes exact.",
                self.agreed,
                self.checked,
                100.0 * self.agreed as f64 / self.checked.max(1) as f64,
                self.exact_classes,
                self.classes
            ),
            format!("Corpus words (corpus/sm86/*.cubin): {} of {} print identically.", self.corpus_agreed, self.corpus),
        ];
        if !self.partial.is_empty() {
            v.push("Classes with disagreements in the probe check (agreeing/checked):".into());
            let mut line = String::new();
            for (n, a, c) in &self.partial {
                let item = format!(" {n} {a}/{c}");
                if line.len() + item.len() > 100 {
                    v.push(line.trim_start().to_owned());
                    line.clear();
                }
                line.push_str(&item);
            }
            if !line.is_empty() {
                v.push(line.trim_start().to_owned());
            }
        }
        v
    }
}

/// Random words of a class: fixed bits kept, modifier value from its table, opex from its legal set,
/// everything else random.
fn random_word(class: &Class, rng: &mut Rng) -> u128 {
    let mut w = (rng.next_u128() & !class.fixed.mask) | class.fixed.value;
    for f in class.fields.iter().filter(|f| f.name.starts_with("mods")) {
        if let Some(Render::Table { entries, .. }) = find_render(class, &f.name) {
            if !entries.is_empty() {
                let k = rng.below(entries.len() as u64) as usize;
                w = f.insert(w, entries[k].0);
            }
        }
    }
    if let (Some(opex), Some(Render::Table { entries, .. })) = (class.field("opex"), find_render(class, "opex")) {
        if !entries.is_empty() {
            let k = rng.below(entries.len() as u64) as usize;
            w = opex.insert(w, entries[k].0);
        }
    } else {
        w = (w & !OPEX_MASK) | (1 << 105);
    }
    // Mostly no scoreboards (some classes accept nothing else); sometimes clear the scheduling bits
    // that add the space before `;`.
    if rng.below(2) == 0 {
        w |= 0x3fu128 << 110;
    }
    if rng.below(4) == 0 {
        w &= !((3u128 << 102) | (0xfu128 << 105) | (0x3fu128 << 116));
    }
    w
}

fn find_render<'a>(class: &'a Class, field: &str) -> Option<&'a Render> {
    class.variants.iter().flat_map(|v| v.pieces.iter()).find_map(|p| match p {
        Piece::Field { field: f, render } if f == field => Some(render),
        _ => None,
    })
}

/// Makes class names unique (`NAME`, `NAME_2`, ...), checks every class against nvdisasm on random words
/// and the corpus, and stores golden pairs.
pub fn check_and_pick(
    nv: &Nvdisasm,
    rng: &mut Rng,
    classes: &mut [Class],
    _found: &[Found],
    corpus: &[u128],
    per_class: usize,
) -> Result<Report> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for c in classes.iter_mut() {
        let n = seen.entry(c.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            c.name = format!("{}_{}", c.name, n);
        }
    }
    let table = Table { arch: "SM86".into(), nvdisasm: String::new(), classes: classes.to_vec() };
    let mut batch = Batch::default();
    let mut plan: Vec<(usize, usize)> = Vec::new(); // (class index, batch index)
    for (ci, c) in classes.iter().enumerate() {
        for _ in 0..per_class {
            plan.push((ci, batch.push(random_word(c, rng))));
        }
    }
    let corpus_start = batch.words.len();
    for &w in corpus {
        batch.push(w);
    }
    let out = batch.run(nv)?;
    let mut per: Vec<(usize, usize, Vec<Golden>)> = vec![(0, 0, Vec::new()); classes.len()];
    for &(ci, k) in &plan {
        let Some(want) = out[k].text() else { continue };
        let word = batch.words[k];
        per[ci].1 += 1;
        let got = eval::format_word(&table, word, addr_of(k));
        let owner = eval::classify(&table, word).map(|c| c.name.as_str());
        if got.as_deref() == Ok(want) && owner == Some(classes[ci].name.as_str()) {
            per[ci].0 += 1;
            per[ci].2.push(Golden { address: addr_of(k), word, text: want.to_owned() });
        } else if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
            eprintln!("{} {word:#034x} @{:#x}\n  nvdisasm {want:?}\n  table    {got:?} via {owner:?}", classes[ci].name, addr_of(k));
        }
    }
    let mut corpus_agreed = 0;
    let mut corpus_failures = Vec::new();
    let mut corpus_golden: BTreeMap<String, Vec<Golden>> = BTreeMap::new();
    for (i, &w) in corpus.iter().enumerate() {
        let k = corpus_start + i;
        let want = out[k].text();
        let got = eval::format_word(&table, w, addr_of(k));
        match (want, &got) {
            (Some(t), Ok(g)) if t == g => {
                corpus_agreed += 1;
                if let Some(c) = eval::classify(&table, w) {
                    corpus_golden.entry(c.name.clone()).or_default().push(Golden { address: addr_of(k), word: w, text: t.to_owned() });
                }
            }
            _ => corpus_failures.push(format!("{w:#034x}: nvdisasm {want:?}, table {got:?}")),
        }
    }
    let mut report = Report {
        classes: classes.len(),
        checked: 0,
        agreed: 0,
        exact_classes: 0,
        corpus: corpus.len(),
        corpus_agreed,
        corpus_failures,
        partial: Vec::new(),
        goldens: 0,
    };
    for (ci, c) in classes.iter_mut().enumerate() {
        let (agreed, checked, goldens) = &per[ci];
        report.checked += checked;
        report.agreed += agreed;
        if agreed == checked {
            report.exact_classes += 1;
        } else {
            report.partial.push((c.name.clone(), *agreed, *checked));
        }
        let mut g: Vec<Golden> = Vec::new();
        if let Some(real) = corpus_golden.get(&c.name) {
            g.extend(real.iter().take(2).cloned());
        }
        for x in goldens {
            if g.len() >= GOLDEN_PER_CLASS {
                break;
            }
            g.push(x.clone());
        }
        report.goldens += g.len();
        c.golden = g;
    }
    Ok(report)
}
