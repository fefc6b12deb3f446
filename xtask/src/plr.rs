//! Batch driver for nvdisasm's register life ranges (`nvdisasm -plr`), which only works on ELF input; the
//! probe learns access rules from it and verify-isa checks them against it.
//!
//! Probe words are laid into the code of a host kernel (`extern "C" __global__ void probe_host() {}`,
//! compiled with the pinned nvcc when the driver starts): the `.text` section is replaced by
//! `WIDENERS`, the words, and the host's own `EXIT; BRA self` tail, and the listing's row for each word
//! says which registers it reads (`v`), writes (`^`) or both (`x`). The widening words touch `R254`,
//! `UR62`, `P6` and `UP6` first, because the listing has columns only up to the highest register the
//! function uses: without them a call's clobbers would be cut off at whatever the probe words use.
//!
//! Some words never get a row: those after a branch or exit that no path passes (the listing leaves
//! unreachable code blank). They are run again at the front of a later batch, where they are reached.
//! Words that nvdisasm refuses in ELF mode (an error naming their pc, or one it cannot place, found by
//! splitting the batch) are reported as refused; so are words that switch its flow analysis off (indirect branches
//! without a relocated jump table).

use anyhow::{bail, Context, Result};
use sassport_isa::{eval, Direction, FieldKind, RegFile, RegisterUse, Table};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;


/// `NOP` with an ordinary control field; legal everywhere (refused words become one).
const NOP: u128 = 0x000fc000_00000000_00000000_00007918;

/// `MOV R254, RZ`, `UMOV UR62, 0x0`, `ISETP.NE.AND P6, PT, RZ, RZ, PT`,
/// `UISETP.NE.U32.AND UP6, UPT, URZ, URZ, UPT`: they widen the listing to every register.
pub const WIDENERS: [(u128, &str); 4] = [
    (0x000fc40000000f00000000ff00fe7202, "MOV R254, RZ ;"),
    (0x000fc6000000000000000000003e7882, "UMOV UR62, 0x0 ;"),
    (0x000fc40003fc5270000000ffff00720c, "ISETP.NE.AND P6, PT, RZ, RZ, PT ;"),
    (0x000fc4000bfc50000000003f3f00728c, "UISETP.NE.U32.AND UP6, UPT, URZ, URZ, UPT ;"),
];

/// The host kernel's source: no code of its own but the `EXIT; BRA` tail.
const HOST_SOURCE: &str = "extern \"C\" __global__ void probe_host() {}\n";
const HOST_TEXT: &[u8] = b".text.probe_host";

/// Words per nvdisasm process (10,000 words take ~2.2 s; startup ~0.2 s).
const CHUNK: usize = 4_000;
/// Words per process for words likely to fail (a failing chunk is split and run again).
const BRANCHY_CHUNK: usize = 8;

/// One chunk's rows (`None`: the word has no row).
type ChunkRows = Result<Vec<Option<Row>>>;

/// What the listing says of one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    /// The registers the word touches, in column order (GPR, PRED, UGPR, UPRED).
    Uses(Vec<RegisterUse>),
    /// No row: the word was never reached, even at the front of a batch (it prints no line, say).
    Unreached,
    /// nvdisasm refused the word or stopped analysing because of it; its message.
    Refused(String),
}

pub struct LifeRanges {
    exe: PathBuf,
    host: Host,
    dir: PathBuf,
    jobs: usize,
    counter: AtomicUsize,
    /// Statistics: processes started and words listed.
    pub runs: AtomicUsize,
    pub words: AtomicUsize,
}

/// The host cubin and where its code section and the symbols sized by it are.
struct Host {
    bytes: Vec<u8>,
    /// Offset of the `.text.probe_host` section header.
    text_header: usize,
    /// Offsets of the symbol table entries whose size is the section's.
    sized_symbols: Vec<usize>,
    /// The host's `EXIT` and the `BRA` to itself after it.
    tail: [u128; 2],
}

impl LifeRanges {
    pub fn new(nvdisasm: PathBuf, nvcc: &Path, jobs: usize) -> Result<LifeRanges> {
        let dir = std::env::temp_dir().join(format!("sassport-plr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let src = dir.join("probe_host.cu");
        let cubin = dir.join("probe_host.cubin");
        std::fs::write(&src, HOST_SOURCE)?;
        let out = Command::new(nvcc)
            .args(["-cubin", "-arch=sm_86", "-O3", "-o"])
            .arg(&cubin)
            .arg(&src)
            .output()
            .context("running nvcc for the life-range host kernel")?;
        if !out.status.success() {
            bail!("nvcc failed on the host kernel: {}", String::from_utf8_lossy(&out.stderr));
        }
        let host = Host::parse(std::fs::read(&cubin)?)?;
        // The widening words must be what this file says they are.
        let raw = dir.join("wideners.bin");
        let bytes: Vec<u8> = WIDENERS.iter().flat_map(|w| w.0.to_le_bytes()).collect();
        std::fs::write(&raw, bytes)?;
        let out = Command::new(&nvdisasm).args(["-b", "SM86", "-raw"]).arg(&raw).output().context("running nvdisasm")?;
        let listing = String::from_utf8_lossy(&out.stdout);
        for (w, text) in WIDENERS {
            if !listing.lines().any(|l| l.trim_end().ends_with(text)) {
                bail!("widening word {w:#034x} does not print `{text}`:\n{listing}");
            }
        }
        Ok(LifeRanges {
            exe: nvdisasm,
            host,
            dir,
            jobs: jobs.max(1),
            counter: AtomicUsize::new(0),
            runs: AtomicUsize::new(0),
            words: AtomicUsize::new(0),
        })
    }

    /// The life-range row of every word. Words without a row are run again, at the front of a batch,
    /// until a round reaches none of them.
    ///
    /// Words go to nvdisasm `chunk` at a time ([`CHUNK`] normally): small chunks suit words that often
    /// make nvdisasm fail without naming the word (branches whose target it cannot follow), where a
    /// failure costs splitting the chunk.
    fn run_in(&self, words: &[u128], chunk: usize) -> Result<Vec<Row>> {
        let mut rows: Vec<Option<Row>> = vec![None; words.len()];
        let mut pending: Vec<usize> = (0..words.len()).collect();
        while !pending.is_empty() {
            let batch: Vec<u128> = pending.iter().map(|&i| words[i]).collect();
            let got = self.run_parallel(&batch, chunk.max(1))?;
            let mut still = Vec::new();
            for (&i, row) in pending.iter().zip(got) {
                match row {
                    Some(r) => rows[i] = Some(r),
                    None => still.push(i),
                }
            }
            if still.len() == pending.len() {
                break;
            }
            pending = still;
        }
        Ok(rows.into_iter().map(|r| r.unwrap_or(Row::Unreached)).collect())
    }

    /// [`LifeRanges::run_in`] with the words of `table`'s classes with a branch target (whose odd forms
    /// make nvdisasm stop without naming the word) in chunks of [`BRANCHY_CHUNK`], the others in chunks
    /// of [`CHUNK`].
    pub fn run_split(&self, table: &Table, words: &[u128]) -> Result<Vec<Row>> {
        let branchy = |w: u128| eval::classify(table, w).is_some_and(|c| c.fields.iter().any(|f| f.kind == FieldKind::BranchTarget));
        let (risky, plain): (Vec<usize>, Vec<usize>) = (0..words.len()).partition(|&i| branchy(words[i]));
        let mut rows = vec![Row::Unreached; words.len()];
        for (part, chunk) in [(plain, CHUNK), (risky, BRANCHY_CHUNK)] {
            let these: Vec<u128> = part.iter().map(|&i| words[i]).collect();
            for (i, r) in part.into_iter().zip(self.run_in(&these, chunk)?) {
                rows[i] = r;
            }
        }
        Ok(rows)
    }

    /// One round: chunks in parallel; `None` for words without a row.
    fn run_parallel(&self, words: &[u128], chunk: usize) -> Result<Vec<Option<Row>>> {
        let chunks: Vec<&[u128]> = words.chunks(chunk).collect();
        let results: Mutex<Vec<Option<ChunkRows>>> =
            Mutex::new((0..chunks.len()).map(|_| None).collect());
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..self.jobs.min(chunks.len()) {
                s.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(chunk) = chunks.get(k) else { break };
                    let r = self.run_chunk(chunk);
                    if let Ok(mut g) = results.lock() {
                        g[k] = Some(r);
                    }
                });
            }
        });
        let mut out = Vec::with_capacity(words.len());
        for r in results.into_inner().map_err(|_| anyhow::anyhow!("worker panicked"))? {
            out.extend(r.context("chunk not run")??);
        }
        Ok(out)
    }

    /// One chunk; words nvdisasm names in an error become NOPs and the chunk runs again; an error that
    /// names no word splits the chunk into sixteen.
    fn run_chunk(&self, words: &[u128]) -> Result<Vec<Option<Row>>> {
        let id = self.counter.fetch_add(1, Ordering::SeqCst);
        let path = self.dir.join(format!("chunk{id}.cubin"));
        let base = WIDENERS.len();
        let mut refused: BTreeMap<usize, String> = BTreeMap::new();
        for attempt in 0.. {
            if attempt == 256 {
                bail!("nvdisasm -plr kept failing on {}: {}", path.display(), refused.len());
            }
            let body: Vec<u128> = WIDENERS
                .iter()
                .map(|w| w.0)
                .chain(words.iter().enumerate().map(|(i, &w)| if refused.contains_key(&i) { NOP } else { w }))
                .collect();
            std::fs::write(&path, self.host.with_code(&body)?).with_context(|| format!("writing {}", path.display()))?;
            let out = Command::new(&self.exe)
                .args(["-plr", "-lrm", "narrow", "-c"])
                .arg(&path)
                .output()
                .context("running nvdisasm -plr")?;
            self.runs.fetch_add(1, Ordering::Relaxed);
            self.words.fetch_add(words.len(), Ordering::Relaxed);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let analysis_off = stderr.contains("analysis disabled") || stderr.contains("flow analysis is disabled");
            if out.status.success() && !analysis_off {
                let _ = std::fs::remove_file(&path);
                let listed = parse_listing(&String::from_utf8_lossy(&out.stdout))?;
                return Ok((0..words.len())
                    .map(|i| match refused.get(&i) {
                        Some(m) => Some(Row::Refused(m.clone())),
                        None => listed.get(&(16 * (base + i) as u64)).cloned().map(Row::Uses),
                    })
                    .collect());
            }
            let mut new = 0;
            if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
                eprintln!("attempt {attempt}: {}", stderr.lines().take(6).collect::<Vec<_>>().join(" | "));
            }
            for line in stderr.lines() {
                let Some(pc) = pc_in(line) else { continue };
                let Some(i) = (pc / 16).checked_sub(base as u64).map(|i| i as usize) else { continue };
                if i < words.len() && !refused.contains_key(&i) {
                    refused.insert(i, message_of(line));
                    new += 1;
                }
            }
            if new == 0 {
                let _ = std::fs::remove_file(&path);
                if words.len() == 1 {
                    let last = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("nvdisasm failed");
                    return Ok(vec![Some(Row::Refused(message_of(last)))]);
                }
                let patched: Vec<u128> =
                    words.iter().enumerate().map(|(i, &w)| if refused.contains_key(&i) { NOP } else { w }).collect();
                // Sixteen parts rather than halves: each level reruns all its words.
                let part = patched.len().div_ceil(16);
                let mut rows = Vec::with_capacity(patched.len());
                for piece in patched.chunks(part) {
                    rows.extend(self.run_chunk(piece)?);
                }
                for (i, m) in refused {
                    rows[i] = Some(Row::Refused(m));
                }
                return Ok(rows);
            }
        }
        unreachable!("the loop returns or fails")
    }
}

impl Drop for LifeRanges {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The pc an nvdisasm diagnostic names (`pc= 0x1fe0` or `at address 0x1fe0`).
fn pc_in(line: &str) -> Option<u64> {
    let at = line.find("pc= 0x").map(|p| p + 6).or_else(|| line.find("address 0x").map(|p| p + 10))?;
    let hex: String = line[at..].chars().take_while(char::is_ascii_hexdigit).collect();
    u64::from_str_radix(&hex, 16).ok()
}

/// A diagnostic without its `nvdisasm error :` prefix and section/pc part.
fn message_of(line: &str) -> String {
    let m = line.split_once(':').map_or(line, |(_, rest)| rest).trim();
    let m = m.rsplit_once(", pc= ").map_or(m, |(_, rest)| rest);
    let m = m.split_once(", ").filter(|(pc, _)| pc.starts_with("0x")).map_or(m, |(_, rest)| rest);
    m.trim().to_owned()
}

impl Host {
    fn parse(bytes: Vec<u8>) -> Result<Host> {
        let elf = Elf { b: &bytes };
        let shoff = elf.u64(0x28)? as usize;
        let shentsize = usize::from(elf.u16(0x3a)?);
        let shnum = usize::from(elf.u16(0x3c)?);
        let shstrndx = usize::from(elf.u16(0x3e)?);
        let header = |i: usize| shoff + i * shentsize;
        let strtab = elf.u64(header(shstrndx) + 0x18)? as usize;
        let mut text = None;
        let mut symtabs = Vec::new();
        for i in 0..shnum {
            let h = header(i);
            let name = elf.cstr(strtab + elf.u32(h)? as usize)?;
            if name == HOST_TEXT {
                text = Some(i);
            }
            if elf.u32(h + 4)? == 2 {
                symtabs.push(h);
            }
        }
        let text_index = text.context("the host cubin has no .text.probe_host")?;
        let text_header = header(text_index);
        let mut sized_symbols = Vec::new();
        for h in symtabs {
            let (off, size) = (elf.u64(h + 0x18)? as usize, elf.u64(h + 0x20)? as usize);
            for e in (off..off + size).step_by(24) {
                if usize::from(elf.u16(e + 6)?) == text_index && elf.u64(e + 16)? > 0 {
                    sized_symbols.push(e);
                }
            }
        }
        let (off, size) = (elf.u64(text_header + 0x18)? as usize, elf.u64(text_header + 0x20)? as usize);
        let code = bytes.get(off..off + size).context("the host's code lies outside the file")?;
        let words: Vec<u128> = code.chunks_exact(16).map(|c| u128::from_le_bytes(c.try_into().unwrap_or([0; 16]))).collect();
        let exit = words.iter().position(|w| w & 0xfff == 0x94d).context("the host kernel has no EXIT")?;
        let tail = [words[exit], *words.get(exit + 1).context("no BRA after the host's EXIT")?];
        Ok(Host { bytes, text_header, sized_symbols, tail })
    }

    /// The host with its code replaced by `body` and the host's tail, padded with NOPs to 128 bytes.
    fn with_code(&self, body: &[u128]) -> Result<Vec<u8>> {
        let mut code: Vec<u128> = body.to_vec();
        code.extend(self.tail);
        while code.len() % 8 != 0 {
            code.push(NOP);
        }
        let mut out = self.bytes.clone();
        while out.len() % 128 != 0 {
            out.push(0);
        }
        let at = out.len() as u64;
        let size = (code.len() * 16) as u64;
        for w in &code {
            out.extend_from_slice(&w.to_le_bytes());
        }
        put_u64(&mut out, self.text_header + 0x18, at)?;
        put_u64(&mut out, self.text_header + 0x20, size)?;
        for &e in &self.sized_symbols {
            put_u64(&mut out, e + 16, size)?;
        }
        Ok(out)
    }
}

fn put_u64(b: &mut [u8], at: usize, v: u64) -> Result<()> {
    b.get_mut(at..at + 8).context("ELF offset outside the host")?.copy_from_slice(&v.to_le_bytes());
    Ok(())
}

struct Elf<'a> {
    b: &'a [u8],
}

impl Elf<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> Result<[u8; N]> {
        let s = self.b.get(at..at + N).context("ELF read outside the host")?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn u16(&self, at: usize) -> Result<u16> {
        Ok(u16::from_le_bytes(self.bytes(at)?))
    }
    fn u32(&self, at: usize) -> Result<u32> {
        Ok(u32::from_le_bytes(self.bytes(at)?))
    }
    fn u64(&self, at: usize) -> Result<u64> {
        Ok(u64::from_le_bytes(self.bytes(at)?))
    }
    fn cstr(&self, at: usize) -> Result<&[u8]> {
        let rest = self.b.get(at..).context("ELF string outside the host")?;
        Ok(&rest[..rest.iter().position(|&c| c == 0).unwrap_or(rest.len())])
    }
}

/// One register column of the listing: its character position (after the row's `//`), file, number.
#[derive(Clone, Copy, Debug)]
struct Column {
    at: usize,
    file: RegFile,
    index: u8,
}

/// Row address → registers, for every instruction row of a `-plr` listing.
///
/// The column header is
/// ```text
/// // +----------------------+--------+
/// // |         GPR          | PRED   |
/// // |                      |        |
/// // |    0000000000111111  |        |     (tens; a hundreds line above it past 99 registers)
/// // |  # 0123456789012345  |  # 0   |     (ones)
/// // +----------------------+--------+
/// ```
/// and rows are `/*0040*/  TEXT ;  // |  3  : v  x  |  ...`, aligned to it after their `//`.
pub fn parse_listing(listing: &str) -> Result<BTreeMap<u64, Vec<RegisterUse>>> {
    let lines: Vec<&str> = listing.lines().collect();
    let mut columns: Vec<Column> = Vec::new();
    let mut rows = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(ones) = comment(line).filter(|c| c.contains("# ") && c.starts_with(" |")) {
            columns = header_columns(&lines[..i], ones)?;
            continue;
        }
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("/*") else { continue };
        let Some((addr, _)) = rest.split_once("*/") else { continue };
        let Ok(addr) = u64::from_str_radix(addr, 16) else { continue };
        let Some(marks) = comment(line) else { continue };
        let mut uses = Vec::new();
        for c in &columns {
            let direction = match marks.as_bytes().get(c.at) {
                Some(b'v') => Direction::Read,
                Some(b'^') => Direction::Write,
                Some(b'x') => Direction::ReadWrite,
                _ => continue,
            };
            uses.push(RegisterUse { file: c.file, index: c.index, direction });
        }
        uses.sort_by_key(RegisterUse::listing_key);
        rows.insert(addr, uses);
    }
    Ok(rows)
}

/// One code section's rows: its name, and row address → registers.
pub type SectionRows = (String, BTreeMap<u64, Vec<RegisterUse>>);

/// [`parse_listing`] per code section of a cubin's listing (rows are section-relative, so sections are
/// kept apart), in listing order.
pub fn parse_sections(listing: &str) -> Result<Vec<SectionRows>> {
    let mut sections: Vec<(String, String)> = Vec::new();
    for line in listing.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix(".section") {
            let name = rest.trim_start().split(',').next().unwrap_or("").trim();
            if name.starts_with(".text.") {
                sections.push((name.to_owned(), String::new()));
                continue;
            }
        }
        if let Some((_, text)) = sections.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    sections.into_iter().map(|(name, text)| Ok((name, parse_listing(&text)?))).collect()
}

/// The part of a line after its first `//` (a listing row's life-range columns).
fn comment(line: &str) -> Option<&str> {
    line.find("//").map(|p| &line[p + 2..])
}

/// The columns a header describes; `ones` is its `# 0123...` line, `above` the lines before it.
fn header_columns(above: &[&str], ones: &str) -> Result<Vec<Column>> {
    // Upwards from the ones line: digit lines (tens, hundreds), then the line naming the files.
    let mut digits: Vec<&str> = Vec::new();
    let mut names = None;
    for l in above.iter().rev() {
        let Some(c) = comment(l) else { break };
        if c.trim_start().starts_with('+') {
            break;
        }
        if c.chars().any(|ch| ch.is_ascii_alphabetic()) {
            names = Some(c);
            break;
        }
        digits.push(c);
    }
    let names = names.context("a life-range header without register file names")?;
    let bytes = ones.as_bytes();
    let bars: Vec<usize> = ones.match_indices('|').map(|(p, _)| p).collect();
    let mut columns = Vec::new();
    for pair in bars.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        let name = names.get(start + 1..end).unwrap_or("").trim();
        let file = match name {
            "GPR" => RegFile::Gpr,
            "PRED" => RegFile::Pred,
            "UGPR" => RegFile::Uniform,
            "UPRED" => RegFile::UniformPred,
            other => bail!("unknown life-range register file `{other}`"),
        };
        let Some(hash) = ones[start..end].find('#').map(|p| start + p) else { continue };
        for (at, &ones_digit) in bytes.iter().enumerate().take(end).skip(hash + 1) {
            if !ones_digit.is_ascii_digit() {
                continue;
            }
            let mut number = String::new();
            for d in digits.iter().rev() {
                if let Some(&c) = d.as_bytes().get(at).filter(|c| c.is_ascii_digit()) {
                    number.push(char::from(c));
                }
            }
            number.push(char::from(ones_digit));
            let index: u8 = number.parse().with_context(|| format!("bad column number {number}"))?;
            columns.push(Column { at, file, index });
        }
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows as nvdisasm 13.5.37 prints them for nvcc's saxpy (excerpt of `nvdisasm -plr -lrm narrow -c`).
    const LISTING: &str = r#"
                                                                                          // +----------------------+--------+-----------+
                                                                                          // |         GPR          | PRED   |   UGPR    |
                                                                                          // |                      |        |           |
                                                                                          // |    0000000000111111  |        |           |
                                                                                          // |  # 0123456789012345  |  # 0   | # 012345  |
                                                                                          // +----------------------+--------+-----------+
        /*0040*/                   ISETP.GE.AND P0, PT, R6, c[0x0][0x180], PT ;           // |  2  :    v           |  1 ^   |           |
        /*0080*/                   IMAD.WIDE R2, R6, R7, c[0x0][0x168] ;                  // |  5  :^^  vv          |        | 2     ::  |
        /*00a0*/                   LDG.E.128 R8, [R2.64] ;                                // | 11  :vv::::^^^^      |        | 2     vv  |
        /*00c0*/                   IMAD.WIDE R6, R6, R7, c[0x0][0x178] ;                  // | 11  :    xx::::::::  |        | 2     ::  |
"#;

    #[test]
    fn rows_read_through_the_header() {
        let rows = parse_listing(LISTING).expect("parses");
        let text = |a: u64| sassport_isa::register_listing(&rows[&a]);
        assert_eq!(text(0x40), "R6v P0^");
        assert_eq!(text(0x80), "R2^ R3^ R6v R7v");
        assert_eq!(text(0xa0), "R2v R3v R8^ R9^ R10^ R11^ UR4v UR5v");
        assert_eq!(text(0xc0), "R6x R7x");
    }

    #[test]
    fn diagnostics_name_their_pc() {
        let l = "nvdisasm warning : Section '.text.probe_host', pc= 0x1fe0, Indirect branch address must go via symbolic table base";
        assert_eq!(pc_in(l), Some(0x1fe0));
        assert_eq!(message_of(l), "Indirect branch address must go via symbolic table base");
    }
}
