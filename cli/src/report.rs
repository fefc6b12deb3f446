//! `sassport report PATH... [--nvdisasm NVDISASM]`: how much of a set of cubins sassport handles.
//!
//! PATH is a cubin or a directory (searched recursively for `*.cubin`). Every kernel is translated (as
//! `sassport translate` would, in parallel) and each module checked with `spirv-val --target-env vulkan1.3`
//! when that is on `PATH`. The report prints totals — kernels translated and valid, their share of kernels and
//! of instructions (a kernel's instructions: its symbol's code size / 16) — then, per refused form (the first
//! refusal of each kernel: the instruction as printed with the reason, `LEA.HI: negated operand ...`), how many
//! kernels it blocks and how many instructions those kernels have, most kernels first. With `--nvdisasm`, also
//! how many instruction lines of `sassport dis` equal `nvdisasm -c -raw`'s (labels compared as offsets),
//! with the first differing lines. A cubin that cannot be read is counted and named, never fatal.

use crate::dis::{cubin_code_sections, write_section};
use crate::listing;
use anyhow::{Context, Result};
use rayon::prelude::*;
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(clap::Args)]
pub struct Args {
    /// Cubins, or directories searched recursively for `*.cubin`.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Compare `sassport dis` with this nvdisasm's `-c -raw` listing of each cubin.
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Translate for 32-wide subgroups (as `translate --warp-subgroups`).
    #[arg(long)]
    warp_subgroups: bool,
    /// How many differing disassembly lines to show.
    #[arg(long, default_value_t = 20)]
    show_differences: usize,
}

/// What became of one kernel.
enum Outcome {
    Valid,
    /// Translated; spirv-val is not installed.
    Unvalidated,
    /// The first refusal (or spirv-val's complaint), as a form to count.
    Blocked(String),
}

#[derive(Default)]
struct Totals {
    cubins: usize,
    unreadable: Vec<(PathBuf, String)>,
    kernels: usize,
    instructions: u64,
    translated_kernels: usize,
    translated_instructions: u64,
    unvalidated: usize,
    /// form → (kernels, instructions).
    blocked: BTreeMap<String, (usize, u64)>,
    dis_lines: u64,
    dis_equal: u64,
    dis_differences: Vec<String>,
}

pub fn run(args: Args) -> Result<()> {
    let mut files = Vec::new();
    for p in &args.paths {
        collect(p, &mut files)?;
    }
    let validator = spirv_val_present();
    let options = Options {
        control: ControlForm::Structured,
        profile: args.warp_subgroups.then(sassport_translator::lower::subgroup::warp_subgroup_profile),
        ..Options::default()
    };
    let mut totals = Totals::default();
    for file in &files {
        totals.cubins += 1;
        let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
        let cubin = match Cubin::parse(&bytes) {
            Ok(c) => c,
            Err(e) => {
                totals.unreadable.push((file.clone(), e.to_string()));
                continue;
            }
        };
        measure_kernels(&cubin, &options, validator, &mut totals);
        if let Some(nvdisasm) = &args.nvdisasm {
            compare_disassembly(nvdisasm, file, &bytes, args.show_differences, &mut totals)?;
        }
    }
    print!("{}", render(&totals, validator, args.nvdisasm.is_some()));
    Ok(())
}

/// `path` itself if it is a file, else every `*.cubin` below it, sorted.
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !path.is_dir() {
        out.push(path.to_owned());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("reading {}", path.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for e in entries {
        if e.is_dir() {
            collect(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "cubin") {
            out.push(e);
        }
    }
    Ok(())
}

fn measure_kernels(cubin: &Cubin<'_>, options: &Options, validator: bool, totals: &mut Totals) {
    let outcomes: Vec<(u64, Outcome)> = cubin
        .kernels
        .par_iter()
        .map(|k| {
            let instructions = k.function.size / 16;
            let translated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| translate_kernel(cubin, k.name(), options)));
            let outcome = match translated {
                Err(_) => Outcome::Blocked("translator panicked".to_owned()),
                Ok(Err(e)) => Outcome::Blocked(e.kind()),
                Ok(Ok(_)) if !validator => Outcome::Unvalidated,
                Ok(Ok(t)) => match spirv_val(&t.words) {
                    Ok(()) => Outcome::Valid,
                    Err(e) => Outcome::Blocked(format!("spirv-val rejects the module: {}", first_line(&e))),
                },
            };
            (instructions, outcome)
        })
        .collect();
    for (instructions, outcome) in outcomes {
        totals.kernels += 1;
        totals.instructions += instructions;
        match outcome {
            Outcome::Valid | Outcome::Unvalidated => {
                totals.translated_kernels += 1;
                totals.translated_instructions += instructions;
                totals.unvalidated += usize::from(matches!(outcome, Outcome::Unvalidated));
            }
            Outcome::Blocked(form) => {
                let entry = totals.blocked.entry(form).or_default();
                entry.0 += 1;
                entry.1 += instructions;
            }
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

fn spirv_val_present() -> bool {
    Command::new("spirv-val").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// `spirv-val --target-env vulkan1.3` on a module; Err(its message) if invalid.
fn spirv_val(words: &[u32]) -> Result<(), String> {
    let mut child = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spirv-val: {e}"))?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&bytes).map_err(|e| format!("spirv-val: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("spirv-val: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// Counts the instruction lines where `sassport dis` and `nvdisasm -c -raw` agree, section by section.
fn compare_disassembly(nvdisasm: &Path, file: &Path, bytes: &[u8], show: usize, totals: &mut Totals) -> Result<()> {
    let out = Command::new(nvdisasm)
        .args(["-c", "-raw"])
        .arg(file)
        .output()
        .with_context(|| format!("running {}", nvdisasm.display()))?;
    let theirs = listing::parse(&String::from_utf8_lossy(&out.stdout));
    let ours: BTreeMap<String, Vec<String>> = match cubin_code_sections(bytes) {
        Ok(sections) => sections
            .iter()
            .map(|s| {
                let mut text = String::new();
                write_section(&mut text, s, false);
                (s.name.clone(), text.lines().skip(1).map(str::to_owned).collect())
            })
            .collect(),
        Err(_) => BTreeMap::new(),
    };
    for section in &theirs {
        let mine = ours.get(&section.name).map(Vec::as_slice).unwrap_or(&[]);
        for (i, line) in section.lines.iter().enumerate() {
            totals.dis_lines += 1;
            match mine.get(i) {
                Some(m) if m == line => totals.dis_equal += 1,
                m => {
                    if totals.dis_differences.len() < show {
                        totals.dis_differences.push(format!(
                            "{} {}:\n    ours:     {}\n    nvdisasm: {line}",
                            file.display(),
                            section.name,
                            m.map_or("(nothing)", String::as_str)
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_owned()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

fn render(t: &Totals, validator: bool, compared: bool) -> String {
    let mut s = String::new();
    s.push_str(&format!("cubins: {} ({} unreadable)\n", t.cubins, t.unreadable.len()));
    for (file, e) in &t.unreadable {
        s.push_str(&format!("  unreadable: {}: {e}\n", file.display()));
    }
    let check = if validator { "translated and valid (spirv-val)" } else { "translated (spirv-val not found: not validated)" };
    s.push_str(&format!(
        "kernels: {}; {check}: {} ({}); their instructions: {} of {} ({})\n",
        t.kernels,
        t.translated_kernels,
        percent(t.translated_kernels as u64, t.kernels as u64),
        t.translated_instructions,
        t.instructions,
        percent(t.translated_instructions, t.instructions)
    ));
    if compared {
        s.push_str(&format!(
            "disassembly: {} of {} instructions print as nvdisasm -c -raw ({})\n",
            t.dis_equal,
            t.dis_lines,
            percent(t.dis_equal, t.dis_lines)
        ));
        for d in &t.dis_differences {
            s.push_str(&format!("  {d}\n"));
        }
    }
    if !t.blocked.is_empty() {
        let mut rows: Vec<(&String, &(usize, u64))> = t.blocked.iter().collect();
        rows.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(b.1 .1.cmp(&a.1 .1)).then(a.0.cmp(b.0)));
        s.push_str("refused (first refusal per kernel):\n  kernels  instructions  form\n");
        for (form, (kernels, instructions)) in rows {
            s.push_str(&format!("  {kernels:>7}  {instructions:>12}  {form}\n"));
        }
    }
    s
}
