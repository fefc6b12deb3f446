//! The comparison run behind `cargo xtask verify-isa`.

use anyhow::{bail, Context, Result};
use sassport_gen::{decode, TargetStyle, Word};
use std::time::Instant;

use super::{nvdisasm, Args};
use crate::regen::{self, coverage};
use crate::tools::{self, repo_root};

/// SplitMix64: small, fast, and reproducible across platforms.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn word(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SCHED_MASK: u128 = !((1u128 << 105) - 1);

/// Per class: the fields whose printing table lists the legal values (modifier combinations, opex), with
/// those values. Random values of such fields are mostly illegal, so words usually draw from the list.
pub(crate) fn legal_value_lists(class: &sassport_isa::Class) -> Vec<(&sassport_isa::Field, Vec<u64>)> {
    let mut out: Vec<(&sassport_isa::Field, Vec<u64>)> = Vec::new();
    for variant in &class.variants {
        for piece in &variant.pieces {
            if let sassport_isa::Piece::Field { field, render: sassport_isa::Render::Table { entries, default: None } } = piece {
                if let Some(f) = class.field(field) {
                    if !out.iter().any(|(g, _)| g.name == f.name) {
                        out.push((f, entries.iter().map(|e| e.0).collect()));
                    }
                }
            }
        }
    }
    out
}

/// A random word of `class`: fixed bits kept, the rest random.
pub(crate) fn random_word(class: &sassport_isa::Class, legal: &[(&sassport_isa::Field, Vec<u64>)], rng: &mut Rng) -> u128 {
    let mut w = rng.word();
    if !class.golden.is_empty() && rng.below(4) != 0 {
        let g = class.golden[rng.below(class.golden.len())].word;
        w = (w & !SCHED_MASK) | (g & SCHED_MASK);
    }
    for (field, values) in legal {
        if !values.is_empty() && rng.below(4) != 0 {
            w = field.insert(w, values[rng.below(values.len())]);
        }
    }
    // Some fields are more interesting at their extremes (RZ, PT, zero immediates): bias one in eight.
    if rng.below(8) == 0 {
        if let Some(f) = class.fields.get(rng.below(class.fields.len())) {
            let v = if rng.below(2) == 0 { 0 } else { u64::MAX };
            w = f.insert(w, v);
        }
    }
    (w & !class.fixed.mask) | class.fixed.value
}

struct BatchResult {
    outcomes: Vec<Outcome>,
    runs: usize,
    /// Words nvdisasm rejected.
    rejected: u64,
    /// Of those, words our decoder accepts anyway.
    accepted_rejects: u64,
}

struct Outcome {
    class: usize,
    word: u128,
    address: u64,
    ours: String,
    theirs: String,
}

pub fn run(args: Args) -> Result<()> {
    if args.round_trip {
        return super::round_trip::run(&args);
    }
    let root = repo_root();
    let table = regen::load_table(&root.join(regen::TABLE))?;
    if table.classes.is_empty() {
        bail!("the table has no classes");
    }
    if table.classes.len() != sassport_gen::CLASS_COUNT {
        bail!(
            "the generated decoder has {} classes but the table {}: run `cargo xtask regen` first",
            sassport_gen::CLASS_COUNT,
            table.classes.len()
        );
    }
    let exe = tools::nvidia_tool("nvdisasm")?;
    let disassembler = nvdisasm::Nvdisasm::new(exe, nvdisasm::scratch_dir(&root))?;
    let started = Instant::now();
    let mut rng = Rng(args.seed);
    let mut per_class: Vec<coverage::ClassFigures> = vec![Default::default(); table.classes.len()];
    let (mut compared, mut rejected, mut accepted_rejects, mut runs, mut batch_no) = (0u64, 0u64, 0u64, 0usize, 0usize);
    let jobs = args.jobs.max(1);
    let legal: Vec<_> = table.classes.iter().map(legal_value_lists).collect();
    let mut next_class = 0usize;
    // Words that printed alike, per class, for the listing comparison.
    let per_class_listings = args.listings.div_ceil(table.classes.len());
    let mut listing_words: Vec<Vec<u128>> = vec![Vec::new(); table.classes.len()];
    while compared < args.words {
        // One round: `jobs` batches, disassembled in parallel.
        let mut batches = Vec::new();
        for _ in 0..jobs {
            let mut words = Vec::with_capacity(args.batch);
            let mut classes = Vec::with_capacity(args.batch);
            for _ in 0..args.batch {
                let c = next_class % table.classes.len();
                next_class += 1;
                words.push(random_word(&table.classes[c], &legal[c], &mut rng));
                classes.push(c);
            }
            batches.push((batch_no, words, classes));
            batch_no += 1;
        }
        let results: Vec<Result<BatchResult>> = std::thread::scope(|s| {
            let handles: Vec<_> = batches
                .iter()
                .map(|(no, words, classes)| {
                    let d = &disassembler;
                    s.spawn(move || compare_batch(d, *no, words, classes))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| bail!("a comparison thread panicked"))).collect()
        });
        for r in results {
            let r = r?;
            runs += r.runs;
            rejected += r.rejected;
            accepted_rejects += r.accepted_rejects;
            for o in r.outcomes {
                let f = &mut per_class[o.class];
                f.words += 1;
                compared += 1;
                if o.ours == o.theirs {
                    f.agreed += 1;
                    if listing_words[o.class].len() < per_class_listings {
                        listing_words[o.class].push(o.word);
                    }
                } else if f.example.is_none() {
                    f.example = Some(coverage::Disagreement { word: o.word, address: o.address, ours: o.ours, nvdisasm: o.theirs });
                }
            }
        }
        let agreed: u64 = per_class.iter().map(|f| f.agreed).sum();
        println!(
            "verify-isa: {compared} words compared, {agreed} agree ({:.3}%), {rejected} rejected by nvdisasm ({accepted_rejects} of them decoded by us), {runs} nvdisasm runs, {:.0} s",
            100.0 * agreed as f64 / compared.max(1) as f64,
            started.elapsed().as_secs_f64()
        );
        if compared == 0 && batch_no >= 8 * jobs {
            bail!("nvdisasm rejected every generated word");
        }
    }
    let agreed: u64 = per_class.iter().map(|f| f.agreed).sum();
    let percent = 100.0 * agreed as f64 / compared as f64;
    let mut figures = coverage::VerifyFigures {
        summary: format!(
            "seed {}, {} batches of {} words; {} words rejected by nvdisasm {} ({} of them decoded anyway)",
            args.seed, batch_no, args.batch, rejected, table.nvdisasm, accepted_rejects
        ),
        ..Default::default()
    };
    let listing = if args.listings > 0 {
        Some(compare_listings(&table, &listing_words, &mut per_class, args.jobs.max(1))?)
    } else {
        None
    };
    if let Some(l) = &listing {
        figures.listing_summary = l.summary.clone();
    }
    let mut disagreeing = 0;
    for (class, f) in table.classes.iter().zip(per_class) {
        if f.agreed < f.words {
            disagreeing += 1;
            if let Some(d) = &f.example {
                println!(
                    "  {:<28} {:>6} of {:>6} disagree, e.g. {:#034x} at {:#x}\n      ours:     {}\n      nvdisasm: {}",
                    class.name,
                    f.words - f.agreed,
                    f.words,
                    d.word,
                    d.address,
                    d.ours,
                    d.nvdisasm
                );
            }
        }
        figures.classes.insert(class.name.clone(), f);
    }
    let untested: Vec<&str> = table
        .classes
        .iter()
        .filter(|c| figures.classes.get(&c.name).is_none_or(|f| f.words == 0))
        .map(|c| c.name.as_str())
        .collect();
    println!(
        "verify-isa: {agreed} of {compared} agree ({percent:.3}%); {disagreeing} classes disagree somewhere; {} classes got no legal word{}",
        untested.len(),
        if untested.is_empty() { String::new() } else { format!(": {}", untested.join(" ")) }
    );
    if !args.no_write {
        let page = coverage::render(&regen::coverage_rows(&table), &regen::table_header(&table), &figures);
        let path = root.join(regen::COVERAGE_DOC);
        std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}", regen::COVERAGE_DOC);
    }
    if percent < args.min_agreement {
        bail!("agreement {percent:.3}% is below {}%", args.min_agreement);
    }
    if let Some(l) = listing {
        println!("verify-isa: register listings {} of {} agree ({:.3}%)", l.agreed, l.compared, l.percent());
        if l.percent() < args.min_listing_agreement {
            bail!("register listing agreement {:.3}% is below {}%", l.percent(), args.min_listing_agreement);
        }
    }
    Ok(())
}

struct ListingResult {
    compared: u64,
    agreed: u64,
    summary: String,
}

impl ListingResult {
    fn percent(&self) -> f64 {
        100.0 * self.agreed as f64 / self.compared.max(1) as f64
    }
}

/// Lists `words` with `nvdisasm -plr` and compares each word's marked registers with the generated
/// access rules (accesses nvdisasm's columns never show, those starting at `UR0`..`UR3`, left out).
fn compare_listings(
    table: &sassport_isa::Table,
    words: &[Vec<u128>],
    per_class: &mut [coverage::ClassFigures],
    jobs: usize,
) -> Result<ListingResult> {
    let started = Instant::now();
    let lr = crate::plr::LifeRanges::new(tools::nvidia_tool("nvdisasm")?, &tools::nvidia_tool("nvcc")?, jobs)?;
    let mut flat = Vec::new();
    let mut owners = Vec::new();
    for (c, ws) in words.iter().enumerate() {
        if table.classes[c].accesses.known().is_none() {
            continue;
        }
        flat.extend_from_slice(ws);
        owners.extend(std::iter::repeat_n(c, ws.len()));
    }
    let rows = lr.run_split(table, &flat)?;
    let (mut compared, mut agreed, mut unlisted) = (0u64, 0u64, 0u64);
    for ((&w, &c), row) in flat.iter().zip(&owners).zip(&rows) {
        let crate::plr::Row::Uses(theirs) = row else {
            unlisted += 1;
            continue;
        };
        let ours = generated_listing(w);
        let f = &mut per_class[c];
        f.listings += 1;
        compared += 1;
        if ours.as_ref() == Some(theirs) {
            f.listings_agreed += 1;
            agreed += 1;
        } else if f.listing_example.is_none() {
            f.listing_example = Some(coverage::ListingDisagreement {
                word: w,
                ours: ours.map_or_else(|| "(unknown)".to_owned(), |o| sassport_isa::register_listing(&o)),
                nvdisasm: sassport_isa::register_listing(theirs),
            });
        }
    }
    let summary = format!(
        "{} words asked, {unlisted} without a row (refused by nvdisasm -plr or never reached), {} -plr runs, {:.0} s",
        flat.len(),
        lr.runs.load(std::sync::atomic::Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    );
    Ok(ListingResult { compared, agreed, summary })
}

/// The registers the generated decoder says `w` reads and writes, as a listing shows them.
fn generated_listing(w: u128) -> Option<Vec<sassport_isa::RegisterUse>> {
    let inst = decode(Word(w)).ok()?;
    let accesses: Vec<sassport_isa::RegisterAccess> = inst
        .accesses()?
        .map(|a| sassport_isa::RegisterAccess {
            file: match a.file {
                sassport_gen::RegFile::Gpr => sassport_isa::RegFile::Gpr,
                sassport_gen::RegFile::Uniform => sassport_isa::RegFile::Uniform,
                sassport_gen::RegFile::Pred => sassport_isa::RegFile::Pred,
                sassport_gen::RegFile::UniformPred => sassport_isa::RegFile::UniformPred,
                sassport_gen::RegFile::Barrier => sassport_isa::RegFile::Barrier,
            },
            first: a.first,
            width: a.count,
            direction: match a.direction {
                sassport_gen::Direction::Read => sassport_isa::Direction::Read,
                sassport_gen::Direction::Write => sassport_isa::Direction::Write,
                sassport_gen::Direction::ReadWrite => sassport_isa::Direction::ReadWrite,
            },
        })
        .collect();
    Some(sassport_isa::eval::listed_uses(&accesses))
}

/// Disassembles one batch with nvdisasm and with the generated decoder.
fn compare_batch(
    d: &nvdisasm::Nvdisasm,
    no: usize,
    words: &[u128],
    classes: &[usize],
) -> Result<BatchResult> {
    // Each batch at its own base address, so targets vary across batches too.
    let base = (no as u64 % 4096) * 0x10_0000;
    let batch = d.disassemble(words, base, &no.to_string())?;
    let mut outcomes = Vec::with_capacity(words.len());
    let mut rejected = 0;
    let mut accepted_rejects = 0;
    let mut ours = String::new();
    for (i, (text, (&word, &class))) in batch.texts.into_iter().zip(words.iter().zip(classes)).enumerate() {
        let Some(theirs) = text else {
            rejected += 1;
            if decode(Word(word)).is_ok() {
                accepted_rejects += 1;
            }
            continue;
        };
        let address = base + 16 * i as u64;
        ours.clear();
        match decode(Word(word)) {
            Ok(inst) => {
                let _ = inst.write_text(&mut ours, address, TargetStyle::Absolute);
            }
            Err(e) => ours.push_str(&format!("<{e}>")),
        }
        let ours_text = nvdisasm::normalize(&ours);
        outcomes.push(Outcome { class, word, address, ours: ours_text.to_owned(), theirs });
    }
    Ok(BatchResult { outcomes, runs: batch.runs, rejected, accepted_rejects })
}
