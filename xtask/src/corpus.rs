//! `cargo xtask corpus [--check]`: builds the committed corpus from `corpus/src/*.cu` with the pinned nvcc.
//!
//! For each source `<stem>.cu` it writes
//! - `corpus/sm86/<stem>.cubin`: `nvcc -cubin -arch=sm_86 -O3` (what the translator reads),
//! - `corpus/sm86/<stem>.sass`: `nvdisasm -c -raw -hex` of that cubin,
//! - `corpus/sm86/<stem>.elf.txt`: `cuobjdump -elf` of that cubin (the reference for `sassport info`),
//! - `corpus/sm86/<stem>.uses`: the registers `nvdisasm -plr` marks on each instruction's row, one line per
//!   instruction (`SECTION OFFSET LISTING`; the reference for register accesses),
//! - `corpus/sm90/<stem>.cubin`: `nvcc -cubin -arch=sm_90 -O3` (what the silicon recorder launches).
//!
//! Sources named `rdc_*.cu` are compiled with `-rdc=true` too (relocatable device code, what multi-file
//! projects give the linker; see [`RDC_PREFIX`]).
//!
//! Outputs depend only on the source text and the pinned tools (compilation runs in `corpus/src` with
//! relative paths and no debug or line info), so a rebuild is byte-identical; `--check` rebuilds into memory
//! and fails when any committed file differs, is missing, or has no source any more. Every source must
//! compile without a single warning (see `WARNING_FLAGS`).

use crate::tools::{nvidia_tool, repo_root};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every warning is an error, except ptxas's note that recursion makes the stack size unknowable
/// statically (`calls.cu` recurses on purpose; the runtime provides the stack). Neither flag changes code.
const WARNING_FLAGS: [&str; 4] = [
    "-Werror",
    "all-warnings",
    "-Xptxas",
    "-suppress-stack-size-warning",
];

/// The corpus must stay small enough to commit comfortably (raised from 5 MiB when issue 16's recorded launches
/// and their dumps took it to 5.2 MiB, then to 8 MiB for the coop_tiles and rdc_* sources at 6.1 MiB, then to
/// 10 MiB for issue 16's CUB and math-API sources at 8.8 MiB: libdevice's double special functions alone are
/// 5,800 instructions, whose listing, register uses and ELF dump (its constant tables) take 2.4 MB; goldens
/// hold every buffer, inputs included).
const SIZE_LIMIT_BYTES: u64 = 10 * 1024 * 1024;
/// `corpus/silicon` (instruction sweeps recorded on silicon: MUFU, conversions) has a budget of its own.
const SILICON_LIMIT_BYTES: u64 = 5 * 1024 * 1024;

#[derive(clap::Args)]
pub struct Args {
    /// Rebuild in a temporary directory and fail if the committed files differ from the rebuild.
    #[arg(long)]
    check: bool,
}

/// Stems starting with this are compiled as relocatable device code (`-rdc=true`): every function in its
/// own section, calls and variable addresses left to the linker as relocations.
const RDC_PREFIX: &str = "rdc_";

/// Stems starting with this include cuRAND's device headers (`curand_kernel.h`, nvidia-curand). NVIDIA's EULA
/// covers those headers and the jump tables they compile into the cubin, and forbids making them subject to an
/// open-source licence, so their derived files are built here but never committed (`.gitignore` names them):
/// `--check` neither compares them nor misses them, the size budget leaves them out, and without the headers
/// the source is skipped with a note.
const UNCOMMITTED_PREFIX: &str = "curand_";

/// Where `curand_kernel.h` lies: `SASSPORT_CURAND_INCLUDE`, else the pinned venv's `nvidia/cu13/include`.
fn curand_include(tools: &Tools) -> Option<PathBuf> {
    let dir = match std::env::var_os("SASSPORT_CURAND_INCLUDE") {
        Some(dir) => PathBuf::from(dir),
        None => tools.nvcc.parent()?.parent()?.join("include"),
    };
    dir.join("curand_kernel.h").is_file().then_some(dir)
}

/// The source path nvcc's front end hashes into the names of internal-linkage objects (`_INTERNAL_9c15d201_...`,
/// libcu++'s customisation-point objects in cooperative groups and CUB code): by default the real absolute path,
/// so every checkout built different bytes. Passing this fixed directory (where the committed corpus was first
/// built) makes a rebuild byte-identical anywhere; it changes nothing else in the cubin.
const CANONICAL_SRC_DIR: &str = "/work/main/corpus/src";

/// One architecture's compilation: the output directory and the nvcc `-arch` value.
struct Target {
    dir: &'static str,
    arch: &'static str,
}

const TARGETS: [Target; 2] = [
    Target {
        dir: "sm86",
        arch: "sm_86",
    },
    Target {
        dir: "sm90",
        arch: "sm_90",
    },
];

/// Everything one source produces, keyed by path relative to `corpus/`.
type Outputs = BTreeMap<String, Vec<u8>>;

struct Tools {
    nvcc: PathBuf,
    nvdisasm: PathBuf,
    cuobjdump: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let tools = Tools {
        nvcc: nvidia_tool("nvcc")?,
        nvdisasm: nvidia_tool("nvdisasm")?,
        cuobjdump: nvidia_tool("cuobjdump")?,
    };
    let corpus = repo_root().join("corpus");
    let src = corpus.join("src");
    let sources = cu_sources(&src)?;
    if sources.is_empty() {
        bail!("no .cu files in {}", src.display());
    }
    let scratch = Scratch::new()?;
    let mut outputs = Outputs::new();
    let mut summary = Vec::new();
    for stem in &sources {
        let include = if stem.starts_with(UNCOMMITTED_PREFIX) {
            let Some(dir) = curand_include(&tools) else {
                println!("{stem}.cu skipped: curand_kernel.h not found (cargo xtask tools installs nvidia-curand)");
                continue;
            };
            Some(dir)
        } else {
            None
        };
        let built = build_one(&tools, &src, stem, include.as_deref(), scratch.path())?;
        summary.push(Summary::of(stem, &built));
        outputs.extend(built);
    }
    let total: u64 = outputs.values().map(|v| v.len() as u64).sum();
    print_summary(&summary, total);
    let uncommitted: u64 = outputs.iter().filter(|(rel, _)| is_uncommitted(rel)).map(|(_, v)| v.len() as u64).sum();
    if args.check {
        check(&corpus, &outputs)?;
    } else {
        write(&corpus, &outputs)?;
    }
    // Sources, derived files, manifest and goldens together; the silicon sweeps apart.
    let silicon = dir_size(&corpus.join("silicon"))?;
    let size = dir_size(&corpus)?.saturating_sub(silicon + uncommitted);
    println!("corpus/ holds {size} bytes (limit {SIZE_LIMIT_BYTES}), corpus/silicon {silicon} (limit {SILICON_LIMIT_BYTES})");
    if size > SIZE_LIMIT_BYTES {
        bail!("corpus/ holds {size} bytes besides silicon/, over the {SIZE_LIMIT_BYTES}-byte limit");
    }
    if silicon > SILICON_LIMIT_BYTES {
        bail!("corpus/silicon holds {silicon} bytes, over the {SILICON_LIMIT_BYTES}-byte limit");
    }
    Ok(())
}

fn dir_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            dir_size(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// Stems of `dir/*.cu`, sorted.
fn cu_sources(dir: &Path) -> Result<Vec<String>> {
    let mut stems = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "cu") {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .context("non-UTF-8 source name")?;
            stems.push(stem.to_owned());
        }
    }
    stems.sort();
    Ok(stems)
}

/// Whether a derived file (`sm86/<stem>.cubin`, ...) belongs to an uncommitted source (see [`UNCOMMITTED_PREFIX`]).
fn is_uncommitted(rel: &str) -> bool {
    rel.rsplit('/').next().is_some_and(|name| name.starts_with(UNCOMMITTED_PREFIX))
}

fn build_one(tools: &Tools, src: &Path, stem: &str, include: Option<&Path>, scratch: &Path) -> Result<Outputs> {
    let mut out = Outputs::new();
    for target in &TARGETS {
        let cubin_path = scratch.join(format!("{stem}.{}.cubin", target.dir));
        let file = format!("{stem}.cu");
        let nvcc = captured(
            Command::new(&tools.nvcc)
                .current_dir(src)
                .args(["-cubin", &format!("-arch={}", target.arch), "-O3"])
                .args(WARNING_FLAGS)
                .args(stem.starts_with(RDC_PREFIX).then_some("-rdc=true"))
                .args(include.map(|dir| format!("-I{}", dir.display())))
                .args(["-Xcicc", &format!("--orig_src_path_name={CANONICAL_SRC_DIR}/{file}")])
                .arg("-o")
                .arg(&cubin_path)
                .arg(&file),
        )?;
        if !nvcc.is_empty() {
            // nvcc prints nothing on a clean compile; anything else is a diagnostic we do not accept.
            bail!(
                "nvcc -arch={} {file} printed diagnostics:\n{}",
                target.arch,
                String::from_utf8_lossy(&nvcc)
            );
        }
        let cubin_path = if target.dir == "sm90" && stem.starts_with(RDC_PREFIX) {
            link_for_silicon(tools, &cubin_path)?
        } else {
            cubin_path
        };
        let cubin = std::fs::read(&cubin_path)
            .with_context(|| format!("reading {}", cubin_path.display()))?;
        if target.dir == "sm86" {
            let sass = captured(
                Command::new(&tools.nvdisasm)
                    .args(["-c", "-raw", "-hex"])
                    .arg(&cubin_path),
            )?;
            let elf = captured(Command::new(&tools.cuobjdump).arg("-elf").arg(&cubin_path))?;
            let plr = captured(Command::new(&tools.nvdisasm).args(["-plr", "-lrm", "narrow", "-c"]).arg(&cubin_path))?;
            out.insert(format!("sm86/{stem}.uses"), uses_file(&String::from_utf8_lossy(&plr))?.into_bytes());
            out.insert(format!("sm86/{stem}.sass"), sass);
            out.insert(format!("sm86/{stem}.elf.txt"), elf);
        }
        out.insert(format!("{}/{stem}.cubin", target.dir), cubin);
    }
    Ok(out)
}

/// An -rdc source's sm_90 cubin linked into an executable one by the pinned nvlink (beside nvcc): the recorder
/// loads it directly, since the H200's CUDA 13.0 driver linker refuses nvcc 13.5's relocatable cubins
/// (cuLinkAddData: CUDA_ERROR_NO_BINARY_FOR_GPU). The sm_86 cubin stays relocatable: sassport links it.
fn link_for_silicon(tools: &Tools, relocatable: &Path) -> Result<std::path::PathBuf> {
    let linked = relocatable.with_extension("linked.cubin");
    let nvlink = tools.nvcc.with_file_name("nvlink");
    let printed = captured(Command::new(&nvlink).arg("-arch=sm_90").arg(relocatable).arg("-o").arg(&linked))?;
    if !printed.is_empty() {
        bail!("nvlink {} printed diagnostics:\n{}", relocatable.display(), String::from_utf8_lossy(&printed));
    }
    Ok(linked)
}

/// The `.uses` file of a cubin from its `nvdisasm -plr` listing.
fn uses_file(listing: &str) -> Result<String> {
    use std::fmt::Write as _;
    let mut out = String::from(
        "# nvdisasm -plr -lrm narrow: per instruction, the registers its row marks (v read, ^ written, x both)\n\
         # SECTION OFFSET LISTING (written by `cargo xtask corpus`)\n",
    );
    for (section, rows) in crate::plr::parse_sections(listing)? {
        for (offset, uses) in rows {
            let line = format!("{section} {offset:#06x} {}", sassport_isa::register_listing(&uses));
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    Ok(out)
}

/// Runs a tool and returns its stdout. Fails when it fails or writes anything to stderr: the tools are
/// silent on success, and a warning would otherwise pass unnoticed.
fn captured(cmd: &mut Command) -> Result<Vec<u8>> {
    let output = cmd
        .output()
        .with_context(|| format!("cannot start {cmd:?}"))?;
    if !output.status.success() || !output.stderr.is_empty() {
        bail!(
            "{cmd:?} exited with {}:\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output.stdout)
}

/// Files in the output directories that `cargo xtask corpus` manages (by extension).
fn managed_files(corpus: &Path) -> Result<BTreeSet<String>> {
    let mut found = BTreeSet::new();
    for target in &TARGETS {
        let dir = corpus.join(target.dir);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if [".cubin", ".sass", ".elf.txt", ".uses"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
                found.insert(format!("{}/{name}", target.dir));
            }
        }
    }
    Ok(found)
}

fn write(corpus: &Path, outputs: &Outputs) -> Result<()> {
    let mut changed = 0;
    for (rel, bytes) in outputs {
        let path = corpus.join(rel);
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::create_dir_all(path.parent().expect("corpus paths have a directory"))?;
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
            changed += 1;
        }
    }
    let mut removed = 0;
    for stale in managed_files(corpus)?
        .iter()
        .filter(|f| !outputs.contains_key(*f) && !is_uncommitted(f))
    {
        std::fs::remove_file(corpus.join(stale))?;
        println!("removed stale corpus/{stale}");
        removed += 1;
    }
    println!(
        "{} files up to date, {changed} written, {removed} removed",
        outputs.len() - changed
    );
    Ok(())
}

fn check(corpus: &Path, outputs: &Outputs) -> Result<()> {
    let mut problems = Vec::new();
    for (rel, bytes) in outputs.iter().filter(|(rel, _)| !is_uncommitted(rel)) {
        match std::fs::read(corpus.join(rel)) {
            Ok(committed) if committed == *bytes => {}
            Ok(_) => problems.push(format!("corpus/{rel} differs from a rebuild")),
            Err(_) => problems.push(format!("corpus/{rel} is missing")),
        }
    }
    for stale in managed_files(corpus)?
        .iter()
        .filter(|f| !outputs.contains_key(*f) && !is_uncommitted(f))
    {
        problems.push(format!("corpus/{stale} has no source"));
    }
    if !problems.is_empty() {
        bail!(
            "corpus is out of date (run `cargo xtask corpus`):\n  {}",
            problems.join("\n  ")
        );
    }
    println!("corpus matches a rebuild ({} files)", outputs.len());
    Ok(())
}

/// Per-source figures for the printed summary, read from the sm_86 listing.
struct Summary {
    stem: String,
    kernels: usize,
    instructions: usize,
    mnemonics: BTreeSet<String>,
}

impl Summary {
    fn of(stem: &str, outputs: &Outputs) -> Summary {
        let sass = outputs
            .get(&format!("sm86/{stem}.sass"))
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default();
        let kernels = sass
            .lines()
            .filter(|l| l.contains("STO_CUDA_ENTRY"))
            .count();
        let mut instructions = 0;
        let mut mnemonics = BTreeSet::new();
        for line in sass.lines() {
            if let Some(m) = mnemonic(line) {
                instructions += 1;
                mnemonics.insert(m.to_owned());
            }
        }
        Summary {
            stem: stem.to_owned(),
            kernels,
            instructions,
            mnemonics,
        }
    }
}

/// The mnemonic (without modifiers) of a listing line such as `/*0040*/  @!P0 ISETP.GE.AND P0, ...`.
pub fn mnemonic(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let (offset, rest) = rest.split_once("*/")?;
    if offset.is_empty() || !offset.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mut words = rest.split_whitespace();
    let mut op = words.next()?;
    if op.starts_with('@') {
        op = words.next()?;
    }
    let op = op.trim_end_matches(';');
    let base = op.split('.').next()?;
    (!base.is_empty()).then_some(base)
}

fn print_summary(summary: &[Summary], total: u64) {
    let mut all = BTreeSet::new();
    println!(
        "{:<28} {:>8} {:>13} {:>10}",
        "source", "kernels", "instructions", "mnemonics"
    );
    for s in summary {
        println!(
            "{:<28} {:>8} {:>13} {:>10}",
            s.stem,
            s.kernels,
            s.instructions,
            s.mnemonics.len()
        );
        all.extend(s.mnemonics.iter().cloned());
    }
    let kernels: usize = summary.iter().map(|s| s.kernels).sum();
    let instructions: usize = summary.iter().map(|s| s.instructions).sum();
    println!(
        "{:<28} {:>8} {:>13} {:>10}",
        "total",
        kernels,
        instructions,
        all.len()
    );
    println!(
        "{} sources, {total} bytes of outputs; sm_86 mnemonics: {}",
        summary.len(),
        all.into_iter().collect::<Vec<_>>().join(" ")
    );
}

/// A temporary directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("sassport-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Scratch(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::mnemonic;

    #[test]
    fn mnemonic_of_listing_lines() {
        assert_eq!(
            mnemonic(
                "        /*0040*/                   ISETP.GE.AND P0, PT, R4, c[0x0][0x170], PT ;"
            ),
            Some("ISETP")
        );
        assert_eq!(
            mnemonic("        /*0050*/                   @!P0 EXIT ;"),
            Some("EXIT")
        );
        assert_eq!(
            mnemonic("        /*0130*/                   NOP;"),
            Some("NOP")
        );
        assert_eq!(mnemonic(".L_x_1:"), None);
        assert_eq!(
            mnemonic("        .section        .text.k,\"ax\",@progbits"),
            None
        );
    }
}
