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
}

pub fn run(args: Args) -> Result<()> {
    let start = Instant::now();
    let root = crate::tools::repo_root();
    let out_path = args.out.clone().unwrap_or_else(|| root.join("isa/sm86.txt"));
    let nv = nvdisasm::Nvdisasm::new(nvdisasm::pinned()?, args.jobs)?;
    let version = nv.version()?;
    let mut rng = rng::Rng::new(args.seed);

    let seeds = golden::corpus_words(&root.join("corpus/sm86"))?;
    println!("corpus: {} distinct words", seeds.len());

    let found = match &args.discovery_cache {
        Some(p) if p.exists() => discover::load(p)?,
        other => {
            let f = discover::discover(&nv, &mut rng, &seeds, args.fills, args.live_fills)?;
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

    let table = sassport_isa::Table { arch: "SM86".to_owned(), nvdisasm: version.clone(), classes };
    let elapsed = start.elapsed().as_secs_f64();
    let mut comments: Vec<String> = vec![
        "sassport SM86 encoding table: our own record of how nvdisasm decodes and prints SM86 words.".into(),
        format!("Derived by `cargo xtask probe` (seed {}) from nvdisasm {version} (-b SM86 -raw).", args.seed),
        "Format: docs/isa-table.md. Edit an entry, then run `cargo xtask regen`.".into(),
        String::new(),
    ];
    comments.extend(report.comment_lines());
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
