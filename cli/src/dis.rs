//! `sassport dis`: prints SM86 code in nvdisasm `-raw` syntax.
//!
//! Input is a cubin (every `.text.<symbol>` section, in section-table order, as nvdisasm lists them) or,
//! with `--raw`, a bare run of 16-byte little-endian words as `nvdisasm -b SM86` reads (printed as one
//! section, `.text.raw`, starting at `--base`). Each section starts with a `.text.<symbol>:` line, then one
//! `/*OFFSET*/ TEXT ;` line per word: OFFSET the section-relative hex offset, TEXT nvdisasm's text with its
//! own `;` (`EXIT ;`, `NOP;`), except that branch and call targets print as `` `(0xTARGET) ``
//! (section-relative) where nvdisasm prints labels (also in a relocation's `(sym + .L_x_0@srel)`, printed
//! `(sym + 0x4f0@srel)`). Like nvdisasm, a cubin's relocations print as symbols in the operands they patch and
//! its spill annotations and `YIELD` relocators as `(*"..."*)` comments (`dis_notes`), so that every other
//! byte of each instruction line is nvdisasm's. Undecodable words print as `<unknown 0x...> ;` and are
//! counted in a final `// N undecodable words` line; `--strict` makes them an error. `--accesses` adds the
//! registers each instruction reads and writes as a comment (`// R2:2^ R6v R7v`: two registers from R2
//! written, R6 and R7 read; `// ?` where nvdisasm reports none for the class; no comment for an instruction that touches no
//! register).

use anyhow::{bail, Context, Result};
use sassport_gen::{decode, TargetStyle, Word, WORD_BYTES};
use crate::dis_notes::{cubin_notes, SectionNotes};
use sassport_translator::Cubin;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read, Write as _};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The cubin to disassemble (`-` reads standard input).
    file: PathBuf,
    /// Read a bare sequence of 16-byte little-endian words instead of a cubin.
    #[arg(long)]
    raw: bool,
    /// Address of the first word with `--raw` (like nvdisasm's `-base`).
    #[arg(long, value_parser = parse_u64, default_value = "0", requires = "raw")]
    base: u64,
    /// Fail (exit status 1) when any word cannot be decoded.
    #[arg(long)]
    strict: bool,
    /// After each instruction, the registers it reads (`v`) and writes (`^`, `x` both) as a comment.
    #[arg(long)]
    accesses: bool,
    /// Print each instruction's scheduling bits in the form `sassport asm` reads (`dis_control`).
    #[arg(long, conflicts_with = "accesses")]
    control: bool,
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|e| format!("not a number: {e}"))
}

/// One run of code to print.
pub struct CodeSection<'a> {
    /// Printed as the header line, `<name>:`.
    pub name: String,
    /// Address of the first byte (section-relative code uses 0).
    pub base: u64,
    pub bytes: &'a [u8],
    /// Indirect branches (`BRX`) whose possible targets the cubin lists (`EIATTR_INDIRECT_BRANCH_TARGETS`):
    /// instruction offset → target offsets. nvdisasm prints them after the instruction.
    pub branch_targets: BTreeMap<u64, Vec<u64>>,
    /// Relocated operands and nvdisasm's comments (`SpillRefill`, `RELOCATOR`), by section-relative offset.
    pub notes: SectionNotes,
}

pub fn run(args: Args) -> Result<()> {
    let data = if args.file.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).context("reading standard input")?;
        buf
    } else {
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?
    };
    let sections = if args.raw {
        vec![CodeSection { name: ".text.raw".to_owned(), base: args.base, bytes: &data, branch_targets: BTreeMap::new(), notes: SectionNotes::default() }]
    } else {
        cubin_code_sections(&data).with_context(|| format!("cannot disassemble {}", args.file.display()))?
    };
    let mut out = String::new();
    let mut undecodable = 0usize;
    for (i, section) in sections.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        undecodable += if args.control {
            crate::dis_control::write_section(&mut out, section)
        } else {
            write_section(&mut out, section, args.accesses)
        };
    }
    if undecodable > 0 {
        let _ = writeln!(out, "// {undecodable} undecodable word{}", if undecodable == 1 { "" } else { "s" });
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes()).and_then(|()| stdout.flush()).or_else(ignore_broken_pipe)?;
    if args.strict && undecodable > 0 {
        bail!("{undecodable} undecodable words");
    }
    Ok(())
}

fn ignore_broken_pipe(e: std::io::Error) -> std::io::Result<()> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}

/// Appends one section's listing to `out` (with each instruction's register accesses when `accesses`);
/// returns how many words could not be decoded.
pub fn write_section(out: &mut String, section: &CodeSection<'_>, accesses: bool) -> usize {
    let _ = writeln!(out, "{}:", section.name);
    let mut undecodable = 0;
    let mut chunks = section.bytes.chunks_exact(WORD_BYTES);
    let mut address = section.base;
    for chunk in &mut chunks {
        let mut bytes = [0u8; WORD_BYTES];
        bytes.copy_from_slice(chunk);
        let word = Word::from_le_bytes(bytes);
        let _ = write!(out, "/*{address:04x}*/ ");
        match decode(word) {
            // The text ends in nvdisasm's own `;` (`NOP;`, `EXIT ;`).
            Ok(inst) => {
                let start = out.len();
                let offset = address.wrapping_sub(section.base);
                let _ = inst.write_text(out, address, TargetStyle::Label);
                if section.notes.relocated(offset) || section.notes.spill_refills.contains(&offset) {
                    let mut text = out.split_off(start);
                    section.notes.apply(offset, &mut text);
                    out.push_str(&text);
                }
                if let Some(targets) = section.branch_targets.get(&offset) {
                    annotate_branch_targets(out, start, targets);
                }
                if accesses {
                    match inst.accesses() {
                        Some(mut list) => {
                            if let Some(first) = list.next() {
                                let _ = write!(out, "  // {first}");
                                list.for_each(|a| {
                                    let _ = write!(out, " {a}");
                                });
                            }
                        }
                        None => out.push_str("  // ?"),
                    }
                }
            }
            Err(_) => {
                undecodable += 1;
                let _ = write!(out, "<unknown {word}> ;");
            }
        }
        out.push('\n');
        address = address.wrapping_add(WORD_BYTES as u64);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        undecodable += 1;
        let _ = writeln!(out, "/*{address:04x}*/ <truncated word: {} of {WORD_BYTES} bytes> ;", tail.len());
    }
    undecodable
}

/// Appends nvdisasm's jump-table note to the instruction text written from `start`:
/// `BRX R4 -0x100          (*"BRANCH_TARGETS .L_x_43,.L_x_44"*);` (ten spaces, no space before `;`), with
/// the targets as section-relative offsets instead of labels.
fn annotate_branch_targets(out: &mut String, start: usize, targets: &[u64]) {
    let text = out[start..].trim_end().trim_end_matches(';').trim_end().len();
    out.truncate(start + text);
    out.push_str("          (*\"BRANCH_TARGETS ");
    // Each target once, in the order the jump table first names it (as nvdisasm lists them).
    let mut seen = Vec::new();
    for t in targets {
        if seen.contains(t) {
            continue;
        }
        if !seen.is_empty() {
            out.push(',');
        }
        seen.push(*t);
        let _ = write!(out, "{t:#x}");
    }
    out.push_str("\"*);");
}

/// The `.text.<symbol>` sections of a cubin, in section-table order (nvdisasm's order). Code for an SM
/// whose encoding is not SM86's is refused (`UnsupportedArchitecture`), never printed as SM86.
pub fn cubin_code_sections(data: &[u8]) -> Result<Vec<CodeSection<'_>>> {
    let cubin = Cubin::parse(data)?;
    // Jump tables are recorded per function, with section-relative offsets.
    let mut jump_tables: BTreeMap<&str, BTreeMap<u64, Vec<u64>>> = BTreeMap::new();
    let kernel_tables = cubin.kernels.iter().map(|k| (k.function.section_name, &k.info.indirect_branches));
    let function_tables = cubin.device_function_info.iter().filter_map(|f| {
        let function = cubin.device_functions.iter().find(|d| d.symbol == f.symbol)?;
        Some((function.section_name, &f.info.indirect_branches))
    });
    for (section, branches) in kernel_tables.chain(function_tables) {
        for b in branches {
            jump_tables
                .entry(section)
                .or_default()
                .insert(u64::from(b.offset), b.targets.iter().map(|&t| u64::from(t)).collect());
        }
    }
    let mut notes = cubin_notes(&cubin);
    let sections: Vec<CodeSection<'_>> = cubin
        .code_sections
        .iter()
        .map(|s| CodeSection {
            name: s.name.to_owned(),
            base: 0,
            bytes: s.bytes,
            branch_targets: jump_tables.remove(s.name).unwrap_or_default(),
            notes: notes.remove(s.name).unwrap_or_default(),
        })
        .collect();
    if sections.is_empty() {
        bail!("no .text.<symbol> sections");
    }
    Ok(sections)
}
