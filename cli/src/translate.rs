//! `sassport translate FILE.cubin [-o DIR] [--kernel NAME]`: one SPIR-V module per kernel.
//!
//! Kernels translate in parallel (rayon); a progress bar shows on a terminal. One line per kernel, in the
//! cubin's order: `name: translated: N words, B blocks, I instructions` or `name: refused: reason`. Exit status
//! is non-zero if any kernel was refused.

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The cubin (`nvcc -cubin -arch=sm_86`).
    pub file: PathBuf,
    /// Directory for the `<kernel>.spv` files (created if missing; default: the current directory).
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

/// A file name for a kernel: its name with path separators replaced.
fn file_name(kernel: &str) -> String {
    let safe: String = kernel.chars().map(|c| if matches!(c, '/' | '\\' | '\0') { '_' } else { c }).collect();
    format!("{safe}.spv")
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bytes = std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
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
    let control = if args.dispatch { ControlForm::Dispatch } else { ControlForm::Structured };
    let profile = args.warp_subgroups.then(sassport_translator::lower::subgroup::warp_subgroup_profile);
    let options = Options { control, profile };
    let results: Vec<_> = names
        .par_iter()
        .map(|name| {
            let r = translate_kernel(&cubin, name, &options);
            bar.inc(1);
            (*name, r)
        })
        .collect();
    bar.finish_and_clear();

    let mut refused = 0;
    for (name, r) in &results {
        match r {
            Ok(t) => {
                let path = dir.join(file_name(name));
                let out: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&path, out).with_context(|| format!("writing {}", path.display()))?;
                println!(
                    "{name}: translated: {} words, {} blocks, {} instructions; {}",
                    t.report.words,
                    t.report.blocks,
                    t.report.instructions,
                    t.report.form.as_ref().map_or_else(|| "form unknown".to_string(), ToString::to_string)
                );
            }
            Err(e) => {
                refused += 1;
                println!("{name}: refused: {e}");
            }
        }
    }
    if refused > 0 {
        bail!("{refused} of {} kernels refused", results.len());
    }
    Ok(())
}
