//! `cargo xtask probe`: derives `isa/sm86.txt` by black-box probing of the pinned nvdisasm.
//!
//! Steps: discover classes over all 8192 opcode keys with the opex-0x10 oracle and find the fixed bits
//! that separate classes sharing an opcode ([`discover`]); find a legal base word per class; learn each
//! class's modifier table, operand fields and print template by flipping bits, enumerating small fields
//! and fitting number rules to large ones ([`fields`]); check the result against nvdisasm on random words
//! and keep verified golden pairs ([`golden`]); write the table through `sassport_isa::write_table`.
//! Deterministic for a given seed: every random choice comes from one seeded generator and every
//! collection is ordered.

use anyhow::{Context, Result};
use std::path::PathBuf;
use std::time::Instant;

mod access;
mod analyze;
mod discover;
mod golden;
mod nvdisasm;
mod rng;
mod text;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the table (default `isa/sm86.txt`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Parallel nvdisasm processes.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Seed for every random choice.
    #[arg(long, default_value_t = 86)]
    seed: u64,
    /// Fills per opcode key in the first discovery pass (3 fixed + random).
    #[arg(long, default_value_t = 32)]
    fills: usize,
    /// Random fills per live opcode in the second pass.
    #[arg(long, default_value_t = 480)]
    live_fills: usize,
    /// Only analyse classes whose mnemonic or opcode (hex) matches one of these (debugging aid).
    #[arg(long)]
    only: Vec<String>,
    /// Reuse (or create) a discovery cache at this path, outside the repository (debugging aid).
    #[arg(long)]
    discovery_cache: Option<PathBuf>,
    /// Random words per class for the final check.
    #[arg(long, default_value_t = 48)]
    check_words: usize,
    /// Keep the committed table's classes and golden pairs and probe only the register accesses
    /// (debugging aid: the full probe derives everything).
    #[arg(long)]
    accesses_only: bool,
    /// Probe only these opcode keys (hex, `0x0b10`; repeatable) and merge their classes into the committed
    /// table, every other class kept as it is: discovery scans these keys and their bit-91 siblings only.
    /// For fixing what one class got wrong without the full run (whose random choices would all move).
    #[arg(long)]
    reprobe: Vec<String>,
}

pub fn run(args: Args) -> Result<()> {
    let start = Instant::now();
    let root = crate::tools::repo_root();
    let out_path = args.out.clone().unwrap_or_else(|| root.join("isa/sm86.txt"));
    let nv = nvdisasm::Nvdisasm::new(nvdisasm::pinned()?, args.jobs)?;
    let version = nv.version()?;
    let mut rng = rng::Rng::new(args.seed);

    let lr = crate::plr::LifeRanges::new(nvdisasm::pinned()?, &crate::tools::nvidia_tool("nvcc")?, args.jobs)?;
    if args.accesses_only {
        return accesses_only(&lr, &mut rng, &root.join("isa/sm86.txt"), &out_path, &args.only);
    }
    let seeds = golden::corpus_words(&root.join("corpus/sm86"))?;
    println!("corpus: {} distinct words", seeds.len());
    if !args.reprobe.is_empty() {
        return reprobe(&args, &nv, &lr, &mut rng, &seeds, &root.join("isa/sm86.txt"), &out_path);
    }
    let all_keys: Vec<u16> = (0..8192).collect();

    let found = match &args.discovery_cache {
        Some(p) if p.exists() => discover::load(p)?,
        other => {
            let f = discover::discover(&nv, &mut rng, &seeds, &all_keys, args.fills, args.live_fills)?;
            if let Some(p) = other {
                discover::save(&f, p)?;
            }
            f
        }
    };
    let opcodes = {
        let mut v: Vec<u16> = found.iter().map(|f| f.opcode).collect();
        v.dedup();
        v.len()
    };
    let bad = discover::misclassified(&found);
    println!(
        "discovered {} classes over {} opcodes in {:.1}s ({} samples misclassified by fixed bits)",
        found.len(),
        opcodes,
        start.elapsed().as_secs_f64(),
        bad.len()
    );

    let mut classes = analyze::analyze_all(&nv, &mut rng, &found, &args.only)?;
    println!("analysed {} classes in {:.1}s", classes.len(), start.elapsed().as_secs_f64());

    let report = golden::check_and_pick(&nv, &mut rng, &mut classes, &found, &seeds, args.check_words)?;
    println!("{}", report.summary());
    let accesses = access::probe(&lr, &mut rng, &mut classes, &|_| true)?;
    println!("{}", accesses.summary());

    let table = sassport_isa::Table { arch: "SM86".to_owned(), nvdisasm: version.clone(), classes };
    let elapsed = start.elapsed().as_secs_f64();
    let mut comments: Vec<String> = vec![
        "sassport SM86 encoding table: our own record of how nvdisasm decodes and prints SM86 words.".into(),
        format!("Derived by `cargo xtask probe` (seed {}) from nvdisasm {version} (-b SM86 -raw).", args.seed),
        "Format: docs/isa-table.md. Edit an entry, then run `cargo xtask regen`.".into(),
        String::new(),
    ];
    comments.extend(report.comment_lines());
    comments.extend(accesses.comment_lines());
    let refs: Vec<&str> = comments.iter().map(String::as_str).collect();
    let text = sassport_isa::write_table(&table, &refs);
    // The table must read back as written.
    let again = sassport_isa::parse_table(&text).context("the probe wrote a table that does not parse")?;
    anyhow::ensure!(again == table, "the written table does not parse back to the same model");
    std::fs::write(&out_path, text).with_context(|| format!("writing {}", out_path.display()))?;
    println!(
        "wrote {} ({} classes, {} opcodes) in {elapsed:.1}s; nvdisasm: {} runs, {} words",
        out_path.display(),
        table.classes.len(),
        opcodes,
        nv.runs.load(std::sync::atomic::Ordering::Relaxed),
        nv.words.load(std::sync::atomic::Ordering::Relaxed)
    );
    Ok(())
}

/// `--accesses-only`: the table at `from` with its accesses and listings probed again, written to `to`.
fn accesses_only(lr: &crate::plr::LifeRanges, rng: &mut rng::Rng, from: &std::path::Path, to: &std::path::Path, only: &[String]) -> Result<()> {
    let start = Instant::now();
    let text = std::fs::read_to_string(from).with_context(|| format!("reading {}", from.display()))?;
    let mut table = sassport_isa::parse_table(&text).map_err(|e| anyhow::anyhow!("{}: {e}", from.display()))?;
    let wanted = |c: &sassport_isa::Class| only.is_empty() || only.iter().any(|o| *o == c.name || *o == c.mnemonic);
    let report = access::probe(lr, rng, &mut table.classes, &wanted)?;
    println!("{}", report.summary());
    // Keep the table's own header comments, replacing the access line.
    let mut comments: Vec<String> = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim_start().to_owned())
        .filter(|l| !l.starts_with("Register accesses") && !l.starts_with("Classes whose golden listings"))
        .collect();
    while comments.last().is_some_and(String::is_empty) {
        comments.pop();
    }
    comments.extend(report.comment_lines());
    let refs: Vec<&str> = comments.iter().map(String::as_str).collect();
    let out = sassport_isa::write_table(&table, &refs);
    let again = sassport_isa::parse_table(&out).context("the probe wrote a table that does not parse")?;
    anyhow::ensure!(again == table, "the written table does not parse back to the same model");
    std::fs::write(to, out).with_context(|| format!("writing {}", to.display()))?;
    println!("wrote {} in {:.1}s; nvdisasm -plr: {} runs", to.display(), start.elapsed().as_secs_f64(), lr.runs.load(std::sync::atomic::Ordering::Relaxed));
    Ok(())
}

/// `--reprobe KEY...`: the classes of those opcode keys derived again (discovery over the keys and their
/// bit-91 siblings, analysis, golden check, accesses) and merged into the table at `from`, written to `to`.
fn reprobe(
    args: &Args,
    nv: &nvdisasm::Nvdisasm,
    lr: &crate::plr::LifeRanges,
    rng: &mut rng::Rng,
    seeds: &[u128],
    from: &std::path::Path,
    to: &std::path::Path,
) -> Result<()> {
    let start = Instant::now();
    let keys: Vec<u16> = args
        .reprobe
        .iter()
        .map(|k| u16::from_str_radix(k.trim_start_matches("0x"), 16).with_context(|| format!("opcode key {k:?}")))
        .collect::<Result<_>>()?;
    anyhow::ensure!(keys.iter().all(|&k| k < 0x2000), "opcode keys are 13 bits");
    let mut scan: Vec<u16> = keys.iter().flat_map(|&k| [k, k ^ 0x1000]).collect();
    scan.sort_unstable();
    scan.dedup();
    let text = std::fs::read_to_string(from).with_context(|| format!("reading {}", from.display()))?;
    let mut table = sassport_isa::parse_table(&text).map_err(|e| anyhow::anyhow!("{}: {e}", from.display()))?;
    let found: Vec<discover::Found> = discover::discover(nv, rng, seeds, &scan, args.fills, args.live_fills)?
        .into_iter()
        .filter(|f| keys.contains(&f.opcode))
        .collect();
    println!("discovered {} classes over keys {keys:#06x?}", found.len());
    let mut classes = analyze::analyze_all(nv, rng, &found, &[])?;
    let report = golden::check_and_pick(nv, rng, &mut classes, &found, seeds, args.check_words)?;
    println!("{}", report.summary());
    let accesses = access::probe(lr, rng, &mut classes, &|_| true)?;
    println!("{}", accesses.summary());
    for c in &classes {
        println!("  {} {:#06x}: {} variants, {} golden pairs", c.name, c.opcode, c.variants.len(), c.golden.len());
    }
    table.classes.retain(|c| !keys.contains(&c.opcode));
    table.classes.extend(classes);
    // The full probe's order: by opcode key, a key's classes in analysis order (a stable sort keeps it).
    table.classes.sort_by_key(|c| c.opcode);
    let comments: Vec<String> = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim_start().to_owned())
        .collect();
    let refs: Vec<&str> = comments.iter().map(String::as_str).collect();
    let out = sassport_isa::write_table(&table, &refs);
    let again = sassport_isa::parse_table(&out).context("the probe wrote a table that does not parse")?;
    anyhow::ensure!(again == table, "the written table does not parse back to the same model");
    std::fs::write(to, out).with_context(|| format!("writing {}", to.display()))?;
    println!("wrote {} in {:.1}s", to.display(), start.elapsed().as_secs_f64());
    Ok(())
}
