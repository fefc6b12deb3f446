//! Batch disassembly of raw words with the pinned nvdisasm, tolerant of illegal words.
//!
//! One illegal word makes nvdisasm print nothing; its stderr names every bad word's address. Those words
//! are replaced by NOP (so every other word keeps its address, and PC-relative text stays comparable) and
//! the batch runs again.

use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `NOP` with default scheduling bits, as nvcc emits it.
pub const NOP: u128 = 0x000fc000_00000000_00000000_00007918;

/// Bytes per word.
const WORD_BYTES: u64 = 16;

pub struct Nvdisasm {
    exe: PathBuf,
    scratch: PathBuf,
    /// The `-b` architecture the words are read as (`SM86`; `cargo xtask arch-compat` asks others).
    arch: String,
}

/// What nvdisasm made of each word of a batch.
pub struct Batch {
    /// `-raw` text per word (trimmed, with nvdisasm's `;`), `None` where nvdisasm rejected the word.
    pub texts: Vec<Option<String>>,
    /// nvdisasm runs the batch took.
    pub runs: usize,
}

impl Nvdisasm {
    pub fn new(exe: PathBuf, scratch: PathBuf) -> Result<Self> {
        Self::for_arch(exe, scratch, "SM86")
    }

    /// Reads words as `arch` (`SM80`, `SM90`, ...) code.
    pub fn for_arch(exe: PathBuf, scratch: PathBuf, arch: &str) -> Result<Self> {
        std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
        Ok(Nvdisasm { exe, scratch, arch: arch.to_owned() })
    }

    /// Disassembles `words` at addresses `base + 16 * i`. Rejected words come back as `None`.
    pub fn disassemble(&self, words: &[u128], base: u64, tag: &str) -> Result<Batch> {
        let mut words = words.to_vec();
        let mut rejected = vec![false; words.len()];
        let file = self.scratch.join(format!("batch-{}-{tag}.bin", self.arch));
        for run in 1..=4 {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&file, &bytes).with_context(|| format!("writing {}", file.display()))?;
            let out = Command::new(&self.exe)
                .args(["-b", &self.arch, "-raw", "-base"])
                .arg(format!("{base:#x}"))
                .arg(&file)
                .output()
                .with_context(|| format!("running {}", self.exe.display()))?;
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.success() {
                let stdout = String::from_utf8_lossy(&out.stdout);
                let mut texts = parse_raw_listing(&stdout, base, words.len())?;
                for (text, &bad) in texts.iter_mut().zip(&rejected) {
                    if bad {
                        *text = None;
                    }
                }
                return Ok(Batch { texts, runs: run });
            }
            let bad = rejected_addresses(&stderr);
            if bad.is_empty() {
                bail!("{} failed ({}) without naming a word: {}", self.exe.display(), out.status, first_line(&stderr));
            }
            for address in bad {
                let index = address
                    .checked_sub(base)
                    .map(|d| d / WORD_BYTES)
                    .and_then(|i| usize::try_from(i).ok())
                    .filter(|&i| i < words.len())
                    .with_context(|| format!("nvdisasm named address {address:#x} outside the batch"))?;
                words[index] = NOP;
                rejected[index] = true;
            }
        }
        bail!("nvdisasm kept rejecting words after NOP replacement; see {}", file.display())
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Addresses nvdisasm's stderr names as illegal (`... at address 0x00000010`).
pub fn rejected_addresses(stderr: &str) -> BTreeSet<u64> {
    stderr
        .lines()
        .filter_map(|line| line.split_once("at address 0x"))
        .filter_map(|(_, rest)| {
            let hex: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
            u64::from_str_radix(&hex, 16).ok()
        })
        .collect()
}

/// Parses `nvdisasm -raw` output of `count` words starting at `base` into one text per word (empty for
/// words nvdisasm printed no line for).
pub fn parse_raw_listing(stdout: &str, base: u64, count: usize) -> Result<Vec<Option<String>>> {
    let mut texts = vec![None; count];
    for line in stdout.lines() {
        let Some((address, text)) = parse_instruction_line(line) else { continue };
        let index = address
            .checked_sub(base)
            .map(|d| d / WORD_BYTES)
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i < count)
            .with_context(|| format!("nvdisasm printed address {address:#x} outside the batch: {line}"))?;
        texts[index] = Some(text.to_owned());
    }
    // Some classes decode but print nothing at all, not even the address: their text is empty.
    Ok(texts.into_iter().map(|t| Some(t.unwrap_or_default())).collect())
}

/// `        /*0010*/                   MOV R5, 0xff ;` → (0x10, "MOV R5, 0xff ;"): the text keeps its `;`
/// exactly as nvdisasm writes it (`NOP;` but `EXIT ;`), without the column padding.
pub fn parse_instruction_line(line: &str) -> Option<(u64, &str)> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let (hex, rest) = rest.split_once("*/")?;
    let address = u64::from_str_radix(hex, 16).ok()?;
    let text = rest.trim();
    // `-hex` appends `/* 0x... */`; `-raw` does not, but strip it when present.
    let text = match text.find("/* 0x") {
        Some(i) => text[..i].trim_end(),
        None => text,
    };
    Some((address, text))
}

/// Our text in the form [`parse_instruction_line`] gives nvdisasm's.
pub fn normalize(text: &str) -> &str {
    text.trim()
}

/// Where verify-isa keeps its batch files.
pub fn scratch_dir(root: &Path) -> PathBuf {
    root.join("target/verify-isa")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_instruction_lines() {
        assert_eq!(parse_instruction_line("        /*0000*/                   NOP;"), Some((0, "NOP;")));
        assert_eq!(
            parse_instruction_line("        /*0010*/                   MOV R5, 0xff ;"),
            Some((0x10, "MOV R5, 0xff ;"))
        );
        assert_eq!(parse_instruction_line(".text.k:"), None);
    }

    #[test]
    fn finds_rejected_addresses() {
        let err = "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000020\n\
                   nvdisasm error   : Illegal instruction found\n\
                   nvdisasm error   : Opclass 'shf__RRR_RRR', undefined value 0xc9 for table 'TABLES_opex_3' at address 0x00000100\n";
        assert_eq!(rejected_addresses(err).into_iter().collect::<Vec<_>>(), vec![0x20, 0x100]);
    }
}
