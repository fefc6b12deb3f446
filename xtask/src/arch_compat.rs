//! `cargo xtask arch-compat`: which SMs' machine code is SM86's, measured with the pinned nvdisasm.
//!
//! For each candidate SM:
//! 1. every `corpus/src/*.cu` is compiled with the pinned nvcc (`-cubin -arch=sm_XX -O3`); the SM our
//!    reader takes from `e_flags` must be XX, and each kernel's parameter block must start where SM86's
//!    does (`c[0x0][0x160]`, `EIATTR_PARAM_CBANK`);
//! 2. all code words of those cubins are disassembled with `nvdisasm -b SMXX` and with `nvdisasm -b SM86`
//!    at the same addresses, and by our decoder: the texts must agree word for word, and no word SM86
//!    rejects may be one our decoder accepts;
//! 3. random legal words of our table (made as `verify-isa` makes them) are disassembled with `-b SM86`
//!    and `-b SMXX`; every word both print must print alike. Words SMXX rejects are counted, not held
//!    against it: they cannot occur in its code.
//!
//! An SM passes when all three hold. The figures go into `docs/architectures.md` (between the markers)
//! unless `--no-write`; the allowed set is `SM86_COMPATIBLE` in `translator/src/cubin/arch.rs`.

use anyhow::{bail, Context, Result};
use sassport_gen::{decode, TargetStyle, Word};
use sassport_translator::Cubin;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::regen;
use crate::tools::{nvidia_tool, repo_root};
use crate::verify_isa::compare::{legal_value_lists, random_word, Rng};
use crate::verify_isa::nvdisasm::Nvdisasm;

/// Where the figures go, between these two lines.
const DOC: &str = "docs/architectures.md";
const BEGIN: &str = "<!-- arch-compat begin: written by `cargo xtask arch-compat` -->";
const END: &str = "<!-- arch-compat end -->";

/// SM86's first parameter address in constant bank 0.
const SM86_PARAM_OFFSET: u16 = 0x160;

#[derive(clap::Args)]
pub struct Args {
    /// The SMs to probe (every real architecture the pinned nvcc lists by default).
    #[arg(long, value_delimiter = ',', default_values_t = [75u32, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121])]
    sms: Vec<u32>,
    /// Random legal words of our table to read under every SM.
    #[arg(long, default_value_t = 20_000)]
    words: usize,
    /// Random seed (the same seed and table give the same words).
    #[arg(long, default_value_t = 86)]
    seed: u64,
    /// nvcc processes to run at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Classes with a disagreement to show per SM and comparison.
    #[arg(long, default_value_t = 3)]
    examples: usize,
    /// Print only; do not rewrite docs/architectures.md.
    #[arg(long)]
    no_write: bool,
}

/// What one SM gave.
#[derive(Default)]
struct Figures {
    sm: u32,
    /// Sources that compiled / the ones that did not (with nvcc's first line).
    compiled: usize,
    failed: Vec<(String, String)>,
    kernels: usize,
    /// Cubins whose `e_flags` our reader takes for another SM.
    wrong_sm: Vec<String>,
    /// Distinct first-parameter offsets of the kernels that have parameters.
    param_offsets: BTreeSet<u16>,
    corpus: Comparison,
    random: Comparison,
}

/// Word-by-word comparison of two nvdisasm readings (and ours).
#[derive(Default)]
struct Comparison {
    words: usize,
    /// Both printed, alike / alike but for a space before the `;` / differently.
    same: usize,
    spacing: usize,
    differ: usize,
    /// Printed by SMXX only / by SM86 only.
    only_xx: usize,
    only_86: usize,
    /// Printed by SMXX only, yet our decoder accepts the word.
    only_xx_decoded: usize,
    /// Our decoder's text agrees with SMXX's (of the words SMXX printed).
    ours_same: usize,
    /// Classes of our table with a word that printed differently, with the first example.
    classes: BTreeMap<String, (usize, String)>,
}

impl Figures {
    fn compatible(&self) -> bool {
        self.failed.is_empty()
            && self.wrong_sm.is_empty()
            && self.param_offsets.iter().all(|&o| o == SM86_PARAM_OFFSET)
            && self.corpus.differ == 0
            && self.corpus.only_xx == 0
            && self.corpus.only_xx_decoded == 0
            && self.random.differ == 0
            && self.random.only_xx_decoded == 0
    }
}

pub fn run(args: Args) -> Result<()> {
    let root = repo_root();
    let table = regen::load_table(&root.join(regen::TABLE))?;
    if table.classes.len() != sassport_gen::CLASS_COUNT {
        bail!("the generated decoder does not match the table: run `cargo xtask regen` first");
    }
    let nvcc = nvidia_tool("nvcc")?;
    let nvdisasm = nvidia_tool("nvdisasm")?;
    let scratch = root.join("target/arch-compat");
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let src = root.join("corpus/src");
    let sources = cu_stems(&src)?;

    // The random words and their SM86 reading, once for every SM.
    let mut rng = Rng(args.seed);
    let legal: Vec<_> = table.classes.iter().map(legal_value_lists).collect();
    let mut random = Vec::with_capacity(args.words);
    let mut random_classes = Vec::with_capacity(args.words);
    for i in 0..args.words {
        let c = i % table.classes.len();
        random.push(random_word(&table.classes[c], &legal[c], &mut rng));
        random_classes.push(table.classes[c].name.clone());
    }
    let sm86 = Nvdisasm::for_arch(nvdisasm.clone(), scratch.clone(), "SM86")?;
    let random86 = sm86.disassemble(&random, 0, "random")?.texts;

    let mut all = Vec::new();
    for &sm in &args.sms {
        let mut f = Figures {
            sm,
            ..Figures::default()
        };
        let code = build_corpus(&nvcc, &src, &sources, sm, &scratch, args.jobs, &mut f)?;
        let arch = format!("SM{sm}");
        let xx = Nvdisasm::for_arch(nvdisasm.clone(), scratch.clone(), &arch)?;
        let classes: Vec<String> = code.iter().map(|&w| class_of(w)).collect();
        let corpus86 = sm86.disassemble(&code, 0, &format!("corpus{sm}"))?.texts;
        let corpus_xx = xx.disassemble(&code, 0, "corpus")?.texts;
        f.corpus = compare(&code, &classes, &corpus86, &corpus_xx);
        let random_xx = xx.disassemble(&random, 0, "random")?.texts;
        f.random = compare(&random, &random_classes, &random86, &random_xx);
        println!("{}", summary_line(&f));
        all.push(f);
    }
    let page = render(&all, &args);
    print!("{page}");
    if !args.no_write {
        write_doc(&root.join(DOC), &page)?;
        println!("wrote {DOC}");
    }
    Ok(())
}

/// Stems of `dir/*.cu`, sorted.
fn cu_stems(dir: &Path) -> Result<Vec<String>> {
    let mut stems = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "cu") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                stems.push(stem.to_owned());
            }
        }
    }
    stems.sort();
    Ok(stems)
}

/// Compiles every source for `sm` (`jobs` at a time), checks each cubin's header and parameter bank, and
/// returns all code words in order.
fn build_corpus(
    nvcc: &Path,
    src: &Path,
    sources: &[String],
    sm: u32,
    scratch: &Path,
    jobs: usize,
    f: &mut Figures,
) -> Result<Vec<u128>> {
    let outputs: Vec<(String, PathBuf, std::process::Output)> = std::thread::scope(|s| {
        let mut done = Vec::new();
        for chunk in sources.chunks(jobs.max(1)) {
            let handles: Vec<_> = chunk
                .iter()
                .map(|stem| {
                    let out = scratch.join(format!("{stem}.sm{sm}.cubin"));
                    s.spawn(move || {
                        let run = Command::new(nvcc)
                            .current_dir(src)
                            .args(["-cubin", &format!("-arch=sm_{sm}"), "-O3", "-o"])
                            .arg(&out)
                            .arg(format!("{stem}.cu"))
                            .output();
                        (stem.clone(), out, run)
                    })
                })
                .collect();
            for h in handles {
                done.push(
                    h.join()
                        .map_err(|_| anyhow::anyhow!("an nvcc thread panicked"))?,
                );
            }
        }
        done.into_iter()
            .map(|(stem, out, run)| Ok((stem, out, run.context("running nvcc")?)))
            .collect::<Result<Vec<_>>>()
    })?;
    let mut words = Vec::new();
    for (stem, path, run) in outputs {
        if !run.status.success() {
            let err = String::from_utf8_lossy(&run.stderr);
            let first = err
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("nvcc failed");
            // Temporary file names (`/tmp/tmpxft_...ptx`) change from run to run; keep the doc stable.
            let first: Vec<&str> = first
                .split_whitespace()
                .filter(|w| !w.starts_with("/tmp/"))
                .collect();
            f.failed.push((stem, first.join(" ")));
            continue;
        }
        f.compiled += 1;
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let cubin = Cubin::parse_any_architecture(&bytes)
            .with_context(|| format!("parsing {}", path.display()))?;
        if cubin.sm != sm {
            f.wrong_sm.push(format!("{stem}: read as sm_{}", cubin.sm));
        }
        f.kernels += cubin.kernels.len();
        for k in &cubin.kernels {
            if let Some(bank) = k.info.param_bank {
                f.param_offsets.insert(bank.offset);
            }
        }
        for section in &cubin.code_sections {
            words.extend(section.bytes.chunks_exact(16).map(|c| {
                let mut b = [0u8; 16];
                b.copy_from_slice(c);
                u128::from_le_bytes(b)
            }));
        }
    }
    Ok(words)
}

/// The class our decoder gives `w`, or `(undecodable)`.
fn class_of(w: u128) -> String {
    decode(Word(w)).map_or_else(
        |_| "(undecodable)".to_owned(),
        |i| i.class().name().to_owned(),
    )
}

/// Compares the SM86 and SMXX readings of `words` (all at base 0), and ours with SMXX's.
fn compare(
    words: &[u128],
    classes: &[String],
    sm86: &[Option<String>],
    xx: &[Option<String>],
) -> Comparison {
    let mut c = Comparison {
        words: words.len(),
        ..Comparison::default()
    };
    let mut ours = String::new();
    for (i, (&w, class)) in words.iter().zip(classes).enumerate() {
        let address = 16 * i as u64;
        let decoded = decode(Word(w)).ok();
        if let (Some(theirs), Some(inst)) = (&xx[i], &decoded) {
            ours.clear();
            let _ = inst.write_text(&mut ours, address, TargetStyle::Absolute);
            if ours.trim() == theirs {
                c.ours_same += 1;
            }
        }
        match (&sm86[i], &xx[i]) {
            (Some(a), Some(b)) if a == b => c.same += 1,
            // nvdisasm's printers for some SMs drop the space before `;` on some words (`R20;` for `R20 ;`).
            (Some(a), Some(b)) if a.replace(" ;", ";") == b.replace(" ;", ";") => c.spacing += 1,
            (Some(a), Some(b)) => {
                c.differ += 1;
                let entry = c
                    .classes
                    .entry(class.clone())
                    .or_insert_with(|| (0, format!("`{w:#034x}`: SM86 `{a}`, this SM `{b}`")));
                entry.0 += 1;
            }
            (None, Some(_)) => {
                c.only_xx += 1;
                if decoded.is_some() {
                    c.only_xx_decoded += 1;
                }
            }
            (Some(_), None) => c.only_86 += 1,
            (None, None) => {}
        }
    }
    c
}

fn summary_line(f: &Figures) -> String {
    format!(
        "sm_{}: {} sources ({} failed), {} kernels, params at {}; corpus {} words: {} alike, {} differ, {} SM86 rejects; random {} words: {} alike, {} differ, {} rejected here => {}",
        f.sm,
        f.compiled,
        f.failed.len(),
        f.kernels,
        offsets(&f.param_offsets),
        f.corpus.words,
        f.corpus.same + f.corpus.spacing,
        f.corpus.differ,
        f.corpus.only_xx,
        f.random.words,
        f.random.same + f.random.spacing,
        f.random.differ,
        f.random.only_86,
        if f.compatible() { "compatible" } else { "not compatible" }
    )
}

fn offsets(set: &BTreeSet<u16>) -> String {
    if set.is_empty() {
        return "-".to_owned();
    }
    set.iter()
        .map(|o| format!("{o:#x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The generated part of the doc: the table, then per SM the first disagreements.
fn render(all: &[Figures], args: &Args) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "nvcc/nvdisasm {}; corpus: the {} sources of `corpus/src`; random: {} words of `isa/sm86.txt`, seed {}.\n",
        crate::tools::NVIDIA_VERSION,
        all.first().map_or(0, |f| f.compiled + f.failed.len()),
        args.words,
        args.seed
    );
    out.push_str("| SM | `e_flags` SM | params at | corpus words | alike | differ | SM86 rejects | ours alike | random words printed by SM86 | alike | differ | rejected by this SM | verdict |\n");
    out.push_str("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for f in all {
        let printed86 = f.random.same + f.random.spacing + f.random.differ + f.random.only_86;
        let _ = writeln!(
            out,
            "| sm_{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            f.sm,
            if f.wrong_sm.is_empty() {
                "right".to_owned()
            } else {
                f.wrong_sm.join("; ")
            },
            offsets(&f.param_offsets),
            f.corpus.words,
            f.corpus.same + f.corpus.spacing,
            f.corpus.differ,
            f.corpus.only_xx,
            f.corpus.ours_same,
            printed86,
            f.random.same + f.random.spacing,
            f.random.differ,
            f.random.only_86,
            if f.compatible() {
                "**compatible**"
            } else {
                "refused"
            }
        );
    }
    for f in all {
        if f.failed.is_empty() && f.corpus.classes.is_empty() && f.random.classes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\nsm_{}:", f.sm);
        for (stem, why) in &f.failed {
            let _ = writeln!(out, "- `{stem}.cu` does not compile: {why}");
        }
        for (what, c) in [("corpus", &f.corpus), ("random", &f.random)] {
            let total = c.classes.len();
            for (class, (n, example)) in c.classes.iter().take(args.examples) {
                let _ = writeln!(out, "- {what}: `{class}` ({n}), e.g. {example}");
            }
            if total > args.examples {
                let _ = writeln!(
                    out,
                    "- {what}: {} more classes differ",
                    total - args.examples
                );
            }
        }
    }
    out
}

/// Replaces the text between the markers of `path` with `page`.
fn write_doc(path: &Path, page: &str) -> Result<()> {
    let doc =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (Some(begin), Some(end)) = (doc.find(BEGIN), doc.find(END)) else {
        bail!("{} lacks the markers {BEGIN:?} and {END:?}", path.display());
    };
    let head = &doc[..begin + BEGIN.len()];
    let tail = &doc[end..];
    let new = format!("{head}\n{page}{tail}");
    std::fs::write(path, new).with_context(|| format!("writing {}", path.display()))
}
