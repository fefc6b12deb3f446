//! Register accesses: which registers each class's words read and write, learned from nvdisasm's
//! life-range listing ([`crate::plr`]), and a verified listing (`uses`) for every golden word.
//!
//! Per class, from one legal word whose register operands are spread apart (general registers 32
//! apart, uniform ones 6 apart, predicate operands off at `PT`, the guard at `P6`), so that no two
//! operands touch:
//! 1. **Locations** ([`locate`]). Register fields are locations by hypothesis (their bits hold the
//!    number); predicate fields and the guard are swept over `P0`..`P6` to see them appear. Other
//!    registers of the row are found by single-bit flips of the other fields (a second base where a flip
//!    would land on `PT` or `UR0`..`UR3`), registers that only some modifier values switch on (a second
//!    carry-out) by matching the modifier's values to the registers they name, and registers nothing
//!    moves are fixed (a call's ABI registers).
//! 2. **What decides.** Each modifier field is swept over its legal values; the fields that change some
//!    location's direction or width decide, and so do fields that only do so away from the base (swept
//!    again at other values of the deciding ones). Flipping each bit of the deciding fields at a dozen
//!    joint values says which bits decide which location; every combination of those bits is listed
//!    (sampled beyond 16,384).
//! 3. **Rules** ([`rules`]). Per location, the most common outcome is the default and the others become
//!    `when` patterns over its deciding bits (extended, a bit at a time, while words with equal bits
//!    still disagree, then pared to the bits that keep them apart), each grown as long as it covers no
//!    listed word with another outcome.
//! 4. **Checks** ([`refine`]). The rules are checked against fresh words (every swept field at random
//!    values) and fitted again with them, up to three rounds, with sweeps around the words they got
//!    wrong to find fields that decide only there.
//!
//! Reads and writes are separate sets: a register marked `x` is in both, so a call's written
//! predicates and its read predicate operand stay apart even on one register. The golden words' own
//! listings are then recorded and checked against the rules; the probe's summary counts them.

mod decide;
mod locate;
mod observe;
mod report;
mod rules;

use crate::plr::{LifeRanges, Row};
use super::rng::Rng;
use anyhow::Result;
use decide::*;
use locate::{first_look, is_flippable, is_pred_like, spread_word, First, Flip, Probe, Target};
use observe::{Observed, Outcome, Sites};
pub use report::AccessReport;
use sassport_isa::eval;
use sassport_isa::*;
use std::collections::{BTreeMap, BTreeSet};

/// One class under study.
struct Study {
    class: usize,
    base: u128,
    base_obs: Observed,
    sites: Sites,
    /// Deciding fields (indices into the class's fields), the bits of them that decide, and every
    /// word listed with its row.
    deciding: Vec<usize>,
    care: u128,
    site_care: Vec<u128>,
    rows: Vec<(u128, Observed)>,
    notes: Vec<String>,
}

impl Study {
    fn observe(&mut self, w: u128, uses: &[RegisterUse]) {
        self.rows.push((w, Observed::of(uses)));
    }

    /// Every listed word with the outcomes of the sites as they stand.
    fn outcomes(&mut self) -> Vec<(u128, Vec<Option<Outcome>>)> {
        let mut odd = Vec::new();
        let out = self.rows.iter().map(|(w, o)| (*w, self.sites.outcomes(*w, o, &mut odd))).collect();
        self.notes.extend(odd);
        out
    }

    /// Adds the swept fields that decide somewhere among the listed words (two of them differing in the
    /// field alone have different outcomes) to the deciding ones.
    fn add_deciding_fields(&mut self, class: &Class) {
        let seen = self.outcomes();
        let found: Vec<usize> = class
            .fields
            .iter()
            .enumerate()
            .filter(|(fi, f)| is_swept(class, f) && !self.deciding.contains(fi) && field_decides(class, *fi, &seen))
            .map(|(fi, _)| fi)
            .collect();
        self.deciding.extend(found);
        self.deciding.sort_unstable();
    }

    /// Notes for registers of listed words that no site explains (the first few).
    fn note_unexplained(&mut self) {
        let mut n = 0;
        for (w, obs) in &self.rows {
            let rest = self.sites.unexplained(*w, obs);
            if rest.is_empty() {
                continue;
            }
            n += 1;
            if n <= 8 {
                let regs: Vec<String> = rest.registers().iter().map(|(f, r, d)| format!("{}{r}{}", f.prefix(), d.mark())).collect();
                self.notes.push(format!("{w:#034x}: {} not explained", regs.join(" ")));
            }
        }
        if n > 8 {
            self.notes.push(format!("{n} listed words with registers no location explains"));
        }
    }
}

/// A word belongs to the class and prints a line.
fn prints(table: &Table, class: &Class, w: u128) -> bool {
    eval::classify(table, w).is_some_and(|c| c.name == class.name)
        && eval::format_class(class, w, 0).is_ok_and(|t| !t.is_empty())
}

/// Probes the accesses of every class `wanted` accepts, replaces their `accesses` and `uses`, and
/// reports.
pub fn probe(lr: &LifeRanges, rng: &mut Rng, classes: &mut [Class], wanted: &dyn Fn(&Class) -> bool) -> Result<AccessReport> {
    let table = Table { arch: "SM86".into(), nvdisasm: String::new(), classes: classes.to_vec() };
    let mut report = AccessReport::default();
    let mut studies = bases(lr, &table, classes, wanted, &mut report)?;
    locations(lr, &table, &mut studies, &mut report)?;
    deciders(lr, &table, &mut studies, rng, &mut report)?;
    refine(lr, &table, &mut studies, rng, &mut report)?;
    write_rules(&table, &mut studies, classes, &mut report);
    golden_listings(lr, &table, classes, wanted, &mut report)?;
    for c in classes.iter().filter(|c| wanted(c)) {
        match &c.accesses {
            Accesses::Known(_) => report.known += 1,
            Accesses::Unknown(why) => report.unknown.push((c.name.clone(), why.clone())),
        }
    }
    Ok(report)
}

/// A study per class with its spread word and that word's row; a class without one (no word prints a
/// line, or nvdisasm refuses the word or stops its flow analysis for it) gets unknown accesses.
fn bases(lr: &LifeRanges, table: &Table, classes: &mut [Class], wanted: &dyn Fn(&Class) -> bool, report: &mut AccessReport) -> Result<Vec<Study>> {
    // The spread words alone first: a class whose word nvdisasm refuses (or that switches its flow
    // analysis off) is settled without sending its other words.
    let mut studies: Vec<Study> = Vec::new();
    for (ci, c) in classes.iter_mut().enumerate().filter(|(_, c)| wanted(c)) {
        match spread_word(table, &table.classes[ci]) {
            Some(base) => studies.push(Study {
                class: ci,
                base,
                base_obs: Observed::default(),
                sites: Sites::default(),
                deciding: Vec::new(),
                care: 0,
                site_care: Vec::new(),
                rows: Vec::new(),
                notes: Vec::new(),
            }),
            None => c.accesses = Accesses::Unknown("no word of the class prints a line".into()),
        }
    }
    let bases: Vec<u128> = studies.iter().map(|s| s.base).collect();
    let rows = run(lr, table, &bases, report)?;
    for (s, row) in studies.iter_mut().zip(&rows) {
        let why = match row {
            Row::Uses(u) => {
                s.base_obs = Observed::of(u);
                continue;
            }
            Row::Refused(m) => format!("nvdisasm -plr: {m}"),
            Row::Unreached => "nvdisasm -plr lists no row for the class's words".to_owned(),
        };
        classes[s.class].accesses = Accesses::Unknown(why);
        s.class = usize::MAX;
    }
    studies.retain(|s| s.class != usize::MAX);

    Ok(studies)
}

/// Every study's sites: predicate sweeps and flips from the spread word, then second bases for
/// registers only partly found.
fn locations(lr: &LifeRanges, table: &Table, studies: &mut [Study], report: &mut AccessReport) -> Result<()> {
    // Locations: predicate sweeps and flips from the spread word, then second bases for registers
    // only partly found.
    let mut words: Vec<u128> = Vec::new();
    let mut plans: Vec<Vec<(Probe, usize)>> = Vec::new();
    for s in studies.iter() {
        let class = &table.classes[s.class];
        let mut plan = Vec::new();
        for (fi, f) in class.fields.iter().enumerate() {
            if is_pred_like(class, f) {
                for v in 0..7u64 {
                    let w = f.insert(s.base, v);
                    if w != s.base && prints(table, class, w) {
                        plan.push((Probe::PredSweep(fi, v), push(&mut words, w)));
                    }
                }
            } else if is_flippable(class, f) {
                for b in f.bits.iter().flat_map(|r| r.lo..=r.hi) {
                    let w = s.base ^ (1u128 << b);
                    if prints(table, class, w) {
                        plan.push((Probe::Flip(b), push(&mut words, w)));
                    }
                }
            }
        }
        plans.push(plan);
    }
    let rows = run(lr, table, &words, report)?;
    let observed = |k: usize| match &rows[k] {
        Row::Uses(u) => Some(Observed::of(u)),
        _ => None,
    };
    let mut firsts: Vec<First> = Vec::new();
    for (s, plan) in studies.iter().zip(&plans) {
        let class = &table.classes[s.class];
        let obs: Vec<(Probe, u128, Option<Observed>)> = plan.iter().map(|&(p, k)| (p, words[k], observed(k))).collect();
        firsts.push(first_look(class, s.base, &s.base_obs, &obs));
    }
    let mut second_words: Vec<u128> = Vec::new();
    let mut second_plans: Vec<Vec<SecondLook>> = Vec::new();
    for (s, first) in studies.iter().zip(&firsts) {
        let class = &table.classes[s.class];
        let mut plan = Vec::new();
        for (pi, (t, bits)) in first.pending.iter().enumerate() {
            let Some((nb, _)) = locate::second_base(s.base, &s.base_obs, *t, bits) else { continue };
            if !prints(table, class, nb) {
                continue;
            }
            let known: BTreeSet<u8> = bits.values().map(|v| v.0).collect();
            let mut flips = Vec::new();
            for f in class.fields.iter().filter(|f| is_flippable(class, f)) {
                for b in f.bits.iter().flat_map(|r| r.lo..=r.hi).filter(|b| !known.contains(b)) {
                    let w = nb ^ (1u128 << b);
                    if prints(table, class, w) {
                        flips.push((b, push(&mut second_words, w)));
                    }
                }
            }
            plan.push(SecondLook { pending: pi, base: nb, at: push(&mut second_words, nb), flips });
        }
        second_plans.push(plan);
    }
    let second_rows = run(lr, table, &second_words, report)?;
    let second_observed = |k: usize| match &second_rows[k] {
        Row::Uses(u) => Some(Observed::of(u)),
        _ => None,
    };
    for ((s, first), (plan, second)) in studies.iter_mut().zip(firsts).zip(plans.iter().zip(&second_plans)) {
        let mut bits_sites = first.bits_sites;
        let mut fixed = first.fixed;
        let mut notes = first.notes;
        let mut resolved = vec![false; first.pending.len()];
        for SecondLook { pending: pi, base: nb, at: k, flips } in second {
            let (t, bits) = &first.pending[*pi];
            let Some(nb_obs) = second_observed(*k) else { continue };
            let flip_obs: Vec<(u8, Observed)> = flips.iter().filter_map(|&(b, k)| second_observed(k).map(|o| (b, o))).collect();
            let flips: Vec<Flip<'_>> = flip_obs.iter().map(|(b, o)| Flip { bit: *b, obs: o }).collect();
            let Some((_, reg)) = locate::second_base(s.base, &s.base_obs, *t, bits) else { continue };
            let t2 = Target { reg, ..*t };
            let mut all = bits.clone();
            for (k, v) in locate::locate(*nb, &nb_obs, &flips, t2) {
                all.entry(k).or_insert(v);
            }
            if locate::complete(t.file, &all) {
                let site = locate::bits_site(t.file, &all);
                if !bits_sites.contains(&site) {
                    bits_sites.push(site);
                }
                resolved[*pi] = true;
            }
        }
        for ((t, bits), done) in first.pending.iter().zip(resolved) {
            if !done {
                notes.push(format!("{}{} moves with word bits {bits:?} only: taken as fixed", t.file.prefix(), t.reg));
                fixed.push(*t);
            }
        }
        s.sites = locate::finish(bits_sites, &fixed, s.base, &s.base_obs);
        s.notes.extend(notes);
        let base_row = s.base_obs.clone();
        let uses: Vec<RegisterUse> = base_row
            .registers()
            .into_iter()
            .filter_map(|(file, reg, direction)| u8::try_from(reg).ok().map(|index| RegisterUse { file, index, direction }))
            .collect();
        s.observe(s.base, &uses);
        for &(_, k) in plan {
            if let Row::Uses(u) = &rows[k] {
                s.observe(words[k], u);
            }
        }
    }

    Ok(())
}

/// A second base for a partly located register: which pending target, the word, its index in the
/// batch, and its flips (bit, index).
struct SecondLook {
    pending: usize,
    base: u128,
    at: usize,
    flips: Vec<(u8, usize)>,
}

/// Every study's deciding fields and bits, and the words that show what they decide.
fn deciders(lr: &LifeRanges, table: &Table, studies: &mut [Study], rng: &mut Rng, report: &mut AccessReport) -> Result<()> {
    // What decides: single-field sweeps, then joint enumeration of the deciding fields (and a second
    // round when a field turns out to decide away from the base).
    let mut sweep_words: Vec<u128> = Vec::new();
    let mut sweeps: Vec<Vec<(usize, usize)>> = Vec::new();
    for s in studies.iter() {
        let class = &table.classes[s.class];
        let mut v = Vec::new();
        for (fi, f) in class.fields.iter().enumerate().filter(|(_, f)| is_swept(class, f)) {
            for value in field_values(class, f, rng, FIELD_VALUES) {
                let w = f.insert(s.base, value);
                if w != s.base && prints(table, class, w) {
                    v.push((fi, push(&mut sweep_words, w)));
                }
            }
        }
        sweeps.push(v);
    }
    let rows = run(lr, table, &sweep_words, report)?;
    for (s, sweep) in studies.iter_mut().zip(&sweeps) {
        let class = &table.classes[s.class];
        let listed: Vec<(usize, u128, Observed)> = sweep
            .iter()
            .filter_map(|&(fi, k)| match &rows[k] {
                Row::Uses(u) => Some((fi, sweep_words[k], Observed::of(u))),
                _ => None,
            })
            .collect();
        // Registers a field's values name that the base did not show (an optional carry-out
        // predicate, off in the base): located from the values themselves.
        for (fi, f) in class.fields.iter().enumerate().filter(|(_, f)| is_swept(class, f)) {
            let samples: Vec<(u64, Observed, Observed)> = listed
                .iter()
                .filter(|(i, _, _)| *i == fi)
                .map(|(_, w, o)| {
                    let (rest, all) = s.sites.unexplained_operands(*w, o);
                    (f.extract(*w), rest, all)
                })
                .collect();
            for site in locate::from_values(f, &samples) {
                if !s.sites.bits.contains(&site) {
                    s.sites.bits.push(site);
                }
            }
        }
        for (_, w, o) in &listed {
            s.rows.push((*w, o.clone()));
        }
        let all = s.outcomes();
        let base_out = all.first().map(|x| x.1.clone()).unwrap_or_default();
        let mut deciding = BTreeSet::new();
        for ((fi, _, _), (_, out)) in listed.iter().zip(all.iter().skip(all.len() - listed.len())) {
            if differs(&base_out, out) {
                deciding.insert(*fi);
            }
        }
        s.deciding = deciding.into_iter().collect();
    }
    // Fields that decide only away from the base: every other field swept at a few joint values of
    // the deciding ones.
    let away = batch(lr, table, report, studies, |_, s| away_words(table, &table.classes[s.class], s, rng))?;
    for s in studies.iter_mut() {
        s.add_deciding_fields(&table.classes[s.class]);
    }
    drop(away);
    // Which bits of the deciding fields decide: each flipped from a dozen joint values.
    let flips = batch(lr, table, report, studies, |_, s| bit_flip_words(table, &table.classes[s.class], s, rng))?;
    for (s, words) in studies.iter_mut().zip(&flips) {
        let class = &table.classes[s.class];
        s.site_care = deciding_bits(class, s, words);
        s.care = s.site_care.iter().fold(0, |m, c| m | c);
    }
    // Every combination of the deciding bits (sampled beyond `JOINT_WORDS`).
    batch(lr, table, report, studies, |_, s| joint_words(table, &table.classes[s.class], s, rng))?;

    Ok(())
}

/// Rounds of [`refine`], and the words each checks per class: few where no field decides anything,
/// more where some do, many for a class whose rules the round before got wrong.
const REFINE_ROUNDS: usize = 3;
const CHECK_PLAIN: usize = 32;
const CHECK_DECIDED: usize = 256;
const CHECK_WRONG: usize = 1024;

/// Checks each study's rules against fresh words (every swept field at random values, see
/// [`check_words`]) and refits them with those words added, for as long as some are mispredicted.
/// The joint enumeration samples combinations past 2^14, and each rule's pattern grows over the
/// combinations nobody listed: a texture's destination pair was fitted to one F16 bit of two, and
/// wrong for the other F16 rounding.
fn refine(lr: &LifeRanges, table: &Table, studies: &mut [Study], rng: &mut Rng, report: &mut AccessReport) -> Result<()> {
    let mut wrong: BTreeSet<usize> = BTreeSet::new();
    for round in 0..REFINE_ROUNDS {
        let wanted: Vec<usize> = studies
            .iter()
            .map(|s| {
                if round == 0 && s.deciding.is_empty() {
                    CHECK_PLAIN
                } else if round == 0 {
                    CHECK_DECIDED
                } else if wrong.contains(&s.class) {
                    CHECK_WRONG
                } else {
                    0
                }
            })
            .collect();
        // The rules as they stand, fitted before the fresh words are listed.
        let fitted: Vec<Option<Class>> = studies
            .iter_mut()
            .zip(&wanted)
            .map(|(s, &n)| {
                (n > 0).then(|| {
                    let mut class = table.classes[s.class].clone();
                    class.accesses = Accesses::Known(fit_rules(&class, s, &mut Vec::new()));
                    class
                })
            })
            .collect();
        let checks = batch(lr, table, report, studies, |i, s| match wanted[i] {
            0 => Vec::new(),
            n => check_words(table, &table.classes[s.class], s, rng, n),
        })?;
        let (mut checked, mut missed) = (0, 0);
        let again = wrong.len();
        wrong.clear();
        let mut mispredicted: Vec<Vec<u128>> = Vec::new();
        for ((s, words), class) in studies.iter().zip(&checks).zip(&fitted) {
            let Some(class) = class else {
                mispredicted.push(Vec::new());
                continue;
            };
            let misses: Vec<u128> = words
                .iter()
                .filter(|(w, obs)| eval::listed_register_uses(class, *w).is_some_and(|p| Observed::of(&p) != *obs))
                .map(|(w, _)| *w)
                .collect();
            checked += words.len();
            missed += misses.len();
            if !misses.is_empty() {
                wrong.insert(s.class);
                if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
                    eprintln!("    {}: {} of {} mispredicted", class.name, misses.len(), words.len());
                }
            }
            mispredicted.push(misses);
        }
        // Around a few mispredicted words, every field that does not decide swept: a field deciding
        // only there shows in words differing from them in it alone.
        batch(lr, table, report, studies, |i, s| {
            let mine = &mispredicted[i];
            sweeps_around(table, &table.classes[s.class], s, &mine[..mine.len().min(8)], rng)
        })?;
        for s in studies.iter_mut().filter(|s| wrong.contains(&s.class)) {
            s.add_deciding_fields(&table.classes[s.class]);
        }
        let of = if round > 0 { format!(" (of {again} checked again)") } else { String::new() };
        println!(
            "  access rules checked (round {}): {missed} of {checked} fresh words mispredicted, in {} classes{of}",
            round + 1,
            wrong.len(),
        );
        if wrong.is_empty() {
            break;
        }
    }
    Ok(())
}

/// A study's rules from every word it listed.
fn fit_rules(class: &Class, s: &mut Study, notes: &mut Vec<String>) -> Vec<Access> {
    let seen = s.outcomes();
    let sites: Vec<&observe::Site> = s.sites.all().collect();
    let all: u128 = s.deciding.iter().fold(0, |m, &fi| m | class.fields[fi].mask());
    rules::fit(&sites, &s.site_care, all, &seen, notes)
}

/// Every study's rules, into its class.
fn write_rules(table: &Table, studies: &mut [Study], classes: &mut [Class], report: &mut AccessReport) {
    for s in studies.iter_mut() {
        let class = &table.classes[s.class];
        // Debugging aid: how often each site had each outcome.
        if std::env::var("SASSPORT_PROBE_CLASS").is_ok_and(|c| c == class.name) {
            let seen = s.outcomes();
            let names: Vec<&str> = s.deciding.iter().map(|&fi| class.fields[fi].name.as_str()).collect();
            eprintln!("{}: deciding {names:?} care {:#034x}, {} words", class.name, s.care, seen.len());
            for (i, site) in s.sites.all().enumerate() {
                let mut d: BTreeMap<Option<Outcome>, usize> = BTreeMap::new();
                for (_, out) in &seen {
                    *d.entry(out.get(i).copied().flatten()).or_default() += 1;
                }
                eprintln!("  {site:?}: {d:?}");
            }
        }
        s.note_unexplained();
        let mut notes = Vec::new();
        let rules = fit_rules(class, s, &mut notes);
        s.notes.extend(notes);
        report.rules += rules.len();
        classes[s.class].accesses = Accesses::Known(rules);
        for n in std::mem::take(&mut s.notes).into_iter().collect::<BTreeSet<_>>() {
            report.notes.push((class.name.clone(), n));
        }
    }
}

/// A verified listing (`uses`) for every golden word that prints a line, and how many the rules
/// predict.
fn golden_listings(lr: &LifeRanges, table: &Table, classes: &mut [Class], wanted: &dyn Fn(&Class) -> bool, report: &mut AccessReport) -> Result<()> {
    let mut words = Vec::new();
    let mut owners = Vec::new();
    for (ci, c) in classes.iter_mut().enumerate().filter(|(_, c)| wanted(c)) {
        c.uses.clear();
        if c.accesses.known().is_none() {
            continue;
        }
        for g in c.golden.iter().filter(|g| !g.text.is_empty()) {
            words.push(g.word);
            owners.push(ci);
        }
    }
    let rows = run(lr, table, &words, report)?;
    let mut per: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for ((&w, &ci), row) in words.iter().zip(&owners).zip(&rows) {
        let Row::Uses(u) = row else { continue };
        let c = &mut classes[ci];
        c.uses.push(UsesGolden { word: w, registers: u.clone() });
        let Some(predicted) = eval::listed_register_uses(c, w) else { continue };
        let e = per.entry(ci).or_default();
        e.1 += 1;
        report.golden += 1;
        if predicted == *u {
            e.0 += 1;
            report.golden_agreed += 1;
        } else if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
            eprintln!("{} {w:#034x}: nvdisasm {:?}, rules {:?}", c.name, register_listing(u), register_listing(&predicted));
        }
    }
    for (ci, (a, n)) in per {
        if a != n {
            report.partial.push((classes[ci].name.clone(), a, n));
        }
    }
    Ok(())
}

fn push(words: &mut Vec<u128>, w: u128) -> usize {
    words.push(w);
    words.len() - 1
}

/// Rows for `words`; those of classes with a branch target go in small chunks of their own (nvdisasm
/// stops on some of them without naming the word, and a failing chunk is split and run again).
fn run(lr: &LifeRanges, table: &Table, words: &[u128], report: &mut AccessReport) -> Result<Vec<Row>> {
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let t = std::time::Instant::now();
    let rows = lr.run_split(table, words)?;
    report.words += words.len();
    println!("  nvdisasm -plr pass: {} words, {:.1}s", words.len(), t.elapsed().as_secs_f64());
    Ok(rows)
}


/// One life-range pass over the words `make` gives each study (with its index in `studies`); every
/// listed word is observed by its study. Returns each study's (word, row) pairs.
fn batch(
    lr: &LifeRanges,
    table: &Table,
    report: &mut AccessReport,
    studies: &mut [Study],
    mut make: impl FnMut(usize, &Study) -> Vec<u128>,
) -> Result<Vec<Vec<(u128, Observed)>>> {
    let mut words: Vec<u128> = Vec::new();
    let mut spans = Vec::new();
    for (i, s) in studies.iter().enumerate() {
        let start = words.len();
        words.extend(make(i, s));
        spans.push(start..words.len());
    }
    let rows = run(lr, table, &words, report)?;
    let mut out = Vec::new();
    for (s, span) in studies.iter_mut().zip(spans) {
        let mut mine = Vec::new();
        for k in span {
            if let Row::Uses(u) = &rows[k] {
                s.observe(words[k], u);
                mine.push((words[k], Observed::of(u)));
            }
        }
        out.push(mine);
    }
    Ok(out)
}

