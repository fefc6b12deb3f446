//! `sassport dis`: prints SM86 code in nvdisasm `-raw` syntax, one `/*OFFSET*/ TEXT ;` line per word.
//!
//! Input is a cubin (every `.text.<symbol>` section, in file order) or, with `--raw`, a bare run of 16-byte
//! little-endian words as `nvdisasm -b SM86` reads. Branch and call targets print as `` `(0xTARGET) ``,
//! section-relative. Undecodable words print as `<unknown 0x...>` and are counted at the end.

use anyhow::{bail, Context, Result};
use sassport_gen::{decode, TargetStyle, Word, WORD_BYTES};
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
        vec![CodeSection { name: ".text.raw".to_owned(), base: args.base, bytes: &data }]
    } else {
        cubin_code_sections(&data).with_context(|| format!("{} is not a readable cubin", args.file.display()))?
    };
    let mut out = String::new();
    let mut undecodable = 0usize;
    for (i, section) in sections.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        undecodable += write_section(&mut out, section);
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

/// Appends one section's listing to `out`; returns how many words could not be decoded.
pub fn write_section(out: &mut String, section: &CodeSection<'_>) -> usize {
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
                let _ = inst.write_text(out, address, TargetStyle::Label);
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

/// The `.text.<symbol>` sections of a cubin, in section-header order.
fn cubin_code_sections(data: &[u8]) -> Result<Vec<CodeSection<'_>>> {
    let elf = elf64::Sections::parse(data)?;
    let mut out = Vec::new();
    for section in elf.iter() {
        let section = section?;
        if section.name.starts_with(".text.") {
            out.push(CodeSection { name: section.name.to_owned(), base: 0, bytes: section.bytes });
        }
    }
    if out.is_empty() {
        bail!("no .text.<symbol> sections");
    }
    Ok(out)
}

/// Just enough ELF64 to list sections, with every offset checked. Replaced by the translator's cubin reader
/// once that exposes its sections.
mod elf64 {
    use anyhow::{bail, Context, Result};

    pub struct Sections<'a> {
        data: &'a [u8],
        shoff: usize,
        shentsize: usize,
        shnum: usize,
        names: &'a [u8],
    }

    pub struct Section<'a> {
        pub name: &'a str,
        pub bytes: &'a [u8],
    }

    fn slice(data: &[u8], offset: u64, len: u64) -> Result<&[u8]> {
        let start = usize::try_from(offset).ok();
        let end = start.zip(usize::try_from(len).ok()).and_then(|(s, l)| s.checked_add(l));
        start.zip(end).and_then(|(s, e)| data.get(s..e)).with_context(|| {
            format!("bytes {offset:#x}..+{len:#x} lie outside the {}-byte file", data.len())
        })
    }

    fn u16_at(d: &[u8], o: usize) -> Result<u16> {
        Ok(u16::from_le_bytes(slice(d, o as u64, 2)?.try_into()?))
    }
    fn u32_at(d: &[u8], o: usize) -> Result<u32> {
        Ok(u32::from_le_bytes(slice(d, o as u64, 4)?.try_into()?))
    }
    fn u64_at(d: &[u8], o: usize) -> Result<u64> {
        Ok(u64::from_le_bytes(slice(d, o as u64, 8)?.try_into()?))
    }

    impl<'a> Sections<'a> {
        pub fn parse(data: &'a [u8]) -> Result<Self> {
            if data.get(..4) != Some(b"\x7fELF") {
                bail!("no ELF magic");
            }
            if data.get(4) != Some(&2) || data.get(5) != Some(&1) {
                bail!("not a little-endian ELF64 file");
            }
            let shoff = usize::try_from(u64_at(data, 0x28)?)?;
            let shentsize = usize::from(u16_at(data, 0x3a)?);
            let shnum = usize::from(u16_at(data, 0x3c)?);
            let shstrndx = usize::from(u16_at(data, 0x3e)?);
            if shentsize < 0x40 {
                bail!("section header size {shentsize} is too small");
            }
            let mut s = Sections { data, shoff, shentsize, shnum, names: &[] };
            let (_, names_off, names_size) = s.header(shstrndx).context("section-name table")?;
            s.names = slice(data, names_off, names_size)?;
            Ok(s)
        }

        /// (name offset, file offset, size) of section `index`; NOBITS sections report size 0.
        fn header(&self, index: usize) -> Result<(usize, u64, u64)> {
            if index >= self.shnum {
                bail!("section {index} does not exist ({} sections)", self.shnum);
            }
            let h = index
                .checked_mul(self.shentsize)
                .and_then(|o| o.checked_add(self.shoff))
                .context("section header offset overflows")?;
            let name = u32_at(self.data, h)? as usize;
            let kind = u32_at(self.data, h + 4)?;
            let offset = u64_at(self.data, h + 0x18)?;
            let size = if kind == 8 { 0 } else { u64_at(self.data, h + 0x20)? };
            Ok((name, offset, size))
        }

        pub fn iter(&self) -> impl Iterator<Item = Result<Section<'a>>> + '_ {
            (0..self.shnum).map(move |i| {
                let (name_off, offset, size) = self.header(i)?;
                let name_bytes = self.names.get(name_off..).context("section name outside the name table")?;
                let end = name_bytes.iter().position(|&b| b == 0).context("unterminated section name")?;
                let name = std::str::from_utf8(&name_bytes[..end]).context("section name is not UTF-8")?;
                let bytes = slice(self.data, offset, size).with_context(|| format!("section {name}"))?;
                Ok(Section { name, bytes })
            })
        }
    }
}
