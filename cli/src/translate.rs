//! `sassport translate FILE.cubin [-o DIR] [--kernel NAME]`: one SPIR-V module per kernel.
//!
//! Kernels translate in parallel (rayon); a progress bar shows on a terminal. One line per kernel, in the
//! cubin's order, whatever happens to the others: `name: translated: N words, B blocks, I instructions; form`,
//! `name: refused: reason`, or `name: failed: reason` (the module could not be written). Exit status is
//! non-zero if any kernel was refused or failed.
//!
//! File names are bounded: a kernel named with at most [`PLAIN_NAME_BYTES`] bytes of file-name-safe
//! characters is written as `<name>.spv`; any other (CUB and Thrust kernels have mangled names of 400+
//! bytes, past the 255 bytes a file name may have) as `<readable prefix>-<16 hex digits>.spv`, the digits a
//! hash of the full name, and its line names the file. `kernels.tsv` in the output directory maps every
//! written file to its kernel's full name.

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sassport_translator::translate::{translate_kernel, ControlForm, Options, Translation};
use sassport_translator::Cubin;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Kernel names up to this many bytes keep their own file name (NAME_MAX is 255; room is left for `.spv`
/// and for tools that add suffixes).
pub const PLAIN_NAME_BYTES: usize = 200;
/// Bytes of the name kept in front of the hash in a bounded file name.
const PREFIX_BYTES: usize = 64;
/// The listing of written files and their kernels' full names.
pub const LISTING: &str = "kernels.tsv";

#[derive(clap::Args)]
#[command(
    after_help = "Every kernel gets one line, in the cubin's order, even when others are refused or \
    fail. Kernels with long or unusual names are written as <prefix>-<16 hex digits>.spv; kernels.tsv in \
    the output directory maps each file to its kernel's full name. Exit status: 0 when every kernel was \
    translated and written, 1 when any was refused or failed."
)]
pub struct Args {
    /// The cubin (`nvcc -cubin -arch=sm_86`).
    pub file: PathBuf,
    /// Directory for the `.spv` files and `kernels.tsv` (created if missing; default: the current directory).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Translate only this kernel.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Emit the whole-kernel pc-dispatch loop instead of structured control flow.
    #[arg(long)]
    pub dispatch: bool,
    /// Translate for a device whose subgroups hold a 32-thread warp (NVIDIA; others with subgroup-size
    /// control): warp instructions become subgroup operations in the structured form. Without it, warps run
    /// in turns, which every device can run. (`sassport run` and `corpus` ask the device itself.)
    #[arg(long)]
    pub warp_subgroups: bool,
}

/// Whether `name` can be a file name as it is: short, and only characters no file system or shell treats
/// specially.
fn is_plain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= PLAIN_NAME_BYTES
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'$'))
}

/// FNV-1a, 64 bits: a stable hash of the full name (stable across runs, platforms and Rust versions).
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The file name for a kernel: `<name>.spv` for a plain name, else `<prefix>-<hash>.spv` with the prefix
/// the name's first [`PREFIX_BYTES`] bytes, characters other than ASCII letters, digits and `_` as `_`.
pub fn file_name(kernel: &str) -> String {
    if is_plain(kernel) {
        return format!("{kernel}.spv");
    }
    let prefix: String = kernel
        .bytes()
        .take(PREFIX_BYTES)
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' {
                char::from(b)
            } else {
                '_'
            }
        })
        .collect();
    format!("{prefix}-{:016x}.spv", name_hash(kernel))
}

/// What happened to one kernel.
enum Outcome {
    Written {
        file: String,
        translation: Translation,
    },
    Refused(String),
    Failed(String),
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let cubin = Cubin::parse(&bytes).with_context(|| format!("parsing {}", args.file.display()))?;
    let names: Vec<&str> = match &args.kernel {
        Some(k) => {
            if cubin.kernel(k).is_none() {
                bail!("no kernel named {k:?} in {}", args.file.display());
            }
            vec![k.as_str()]
        }
        None => cubin.kernels.iter().map(|k| k.name()).collect(),
    };
    let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;

    let bar = if std::io::stderr().is_terminal() && names.len() > 1 {
        let b = ProgressBar::new(names.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let control = if args.dispatch {
        ControlForm::Dispatch
    } else {
        ControlForm::Structured
    };
    let profile = args
        .warp_subgroups
        .then(sassport_translator::lower::subgroup::warp_subgroup_profile);
    let options = Options { control, profile, ..Options::default() };
    let files = unique_file_names(&names);
    let outcomes: Vec<Outcome> = names
        .par_iter()
        .zip(&files)
        .map(|(name, file)| {
            let outcome = match translate_kernel(&cubin, name, &options) {
                Ok(translation) => match write_module(&dir, file, &translation) {
                    Ok(()) => Outcome::Written {
                        file: file.clone(),
                        translation,
                    },
                    Err(e) => Outcome::Failed(format!("{e:#}")),
                },
                Err(e) => Outcome::Refused(e.to_string()),
            };
            bar.inc(1);
            outcome
        })
        .collect();
    bar.finish_and_clear();

    let mut unsuccessful = 0;
    let mut listing = String::from("# file\tkernel (written by `sassport translate`)\n");
    for (name, outcome) in names.iter().zip(&outcomes) {
        match outcome {
            Outcome::Written {
                file,
                translation: t,
            } => {
                let form = t
                    .report
                    .form
                    .as_ref()
                    .map_or_else(|| "form unknown".to_string(), ToString::to_string);
                let shown = if *file == format!("{name}.spv") {
                    String::new()
                } else {
                    format!("; file {file}")
                };
                println!(
                    "{name}: translated: {} words, {} blocks, {} instructions; {form}{shown}",
                    t.report.words, t.report.blocks, t.report.instructions
                );
                let _ = writeln!(listing, "{file}\t{name}");
            }
            Outcome::Refused(reason) => {
                unsuccessful += 1;
                println!("{name}: refused: {reason}");
            }
            Outcome::Failed(reason) => {
                unsuccessful += 1;
                println!("{name}: failed: {reason}");
            }
        }
    }
    let path = dir.join(LISTING);
    std::fs::write(&path, listing).with_context(|| format!("writing {}", path.display()))?;
    if unsuccessful > 0 {
        bail!(
            "{unsuccessful} of {} kernels refused or failed",
            outcomes.len()
        );
    }
    Ok(())
}

/// [`file_name`] for each kernel, made distinct (a second kernel with the same file name, which only a
/// hash collision or names differing in an unsafe character can give, gets `-2`, `-3`, ... before `.spv`).
fn unique_file_names(names: &[&str]) -> Vec<String> {
    let mut used = HashSet::new();
    names
        .iter()
        .map(|name| {
            let base = file_name(name);
            let mut file = base.clone();
            let mut n = 1;
            while !used.insert(file.clone()) {
                n += 1;
                file = format!("{}-{n}.spv", base.trim_end_matches(".spv"));
            }
            file
        })
        .collect()
}

/// Writes one module: to a temporary name first, then renamed, so that a failed write leaves no partial
/// module under the kernel's name.
fn write_module(dir: &Path, file: &str, t: &Translation) -> anyhow::Result<()> {
    let path = dir.join(file);
    let partial = dir.join(format!(".{file}.partial"));
    let out: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&partial, out).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, &path)
        .with_context(|| format!("renaming {} to {}", partial.display(), path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_keep_their_file_name_and_others_are_bounded() {
        assert_eq!(file_name("saxpy"), "saxpy.spv");
        let long = format!("_Z6kernelI8SequenceIJ{}EEEvPfi", "Li7E".repeat(120));
        let bounded = file_name(&long);
        assert!(bounded.len() <= PREFIX_BYTES + 1 + 16 + 4, "{bounded}");
        assert!(bounded.starts_with(&long[..PREFIX_BYTES]), "{bounded}");
        // Unsafe characters never reach the file system, and the hash tells such names apart.
        let a = file_name("a/b");
        let b = file_name("a\\b");
        assert!(!a.contains('/') && !b.contains('\\') && a != b, "{a} {b}");
        assert_eq!(
            file_name("a/b"),
            a,
            "the name is a function of the kernel name alone"
        );
    }

    #[test]
    fn file_names_are_distinct() {
        let files = unique_file_names(&["k", "k", "k"]);
        assert_eq!(files, ["k.spv", "k-2.spv", "k-3.spv"]);
    }
}
