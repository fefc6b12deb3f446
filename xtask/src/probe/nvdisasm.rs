//! Batch driver for the pinned nvdisasm in raw mode.
//!
//! Word `i` of a batch always sits at address `16 * i` (chunks are run with the matching `-base`), so a
//! caller knows every word's address. One illegal word makes nvdisasm print nothing, but stderr names each
//! bad address: those words are replaced by NOP (same address) and the chunk is run again, usually twice
//! in all. At most `jobs` processes run at once.

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `NOP` with an ordinary control field; legal everywhere.
pub const NOP: u128 = 0x000fc000_00000000_00000000_00007918;

/// What nvdisasm made of one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The printed text, trimmed (empty for the classes that print an empty line).
    Text(String),
    /// nvdisasm refused the word; the first error line it gave for the word's address.
    Error(String),
}

impl Outcome {
    pub fn text(&self) -> Option<&str> {
        match self {
            Outcome::Text(t) => Some(t),
            Outcome::Error(_) => None,
        }
    }

    /// The internal class name from the opex-0x10 oracle message, if this is one. Used only to group
    /// words; never written anywhere.
    pub fn oracle_class(&self) -> Option<&str> {
        let Outcome::Error(e) = self else { return None };
        let rest = e.strip_prefix("Opclass '")?;
        let end = rest.find('\'')?;
        if !rest[end..].contains("undefined value 0x10 for table") {
            return None;
        }
        Some(&rest[..end])
    }
}

pub struct Nvdisasm {
    exe: PathBuf,
    dir: PathBuf,
    jobs: usize,
    counter: AtomicUsize,
    /// Statistics: processes started and words disassembled.
    pub runs: AtomicUsize,
    pub words: AtomicUsize,
}

/// Words per nvdisasm process (startup is ~0.2 s; 25k words take ~0.4 s).
const CHUNK: usize = 25_000;

impl Nvdisasm {
    pub fn new(exe: PathBuf, jobs: usize) -> Result<Nvdisasm> {
        let dir = std::env::temp_dir().join(format!("sassport-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Nvdisasm {
            exe,
            dir,
            jobs: jobs.max(1),
            counter: AtomicUsize::new(0),
            runs: AtomicUsize::new(0),
            words: AtomicUsize::new(0),
        })
    }

    /// The version line nvdisasm reports (`V13.5.37` → `13.5.37`).
    pub fn version(&self) -> Result<String> {
        let out = Command::new(&self.exe).arg("--version").output().context("running nvdisasm --version")?;
        let text = String::from_utf8_lossy(&out.stdout);
        let v = text
            .split_whitespace()
            .find_map(|w| w.strip_prefix('V').filter(|v| v.chars().next().is_some_and(|c| c.is_ascii_digit())))
            .context("no version in nvdisasm --version")?;
        Ok(v.to_owned())
    }

    /// Disassembles `words`; word `i` sits at address `16 * i`.
    pub fn run(&self, words: &[u128]) -> Result<Vec<Outcome>> {
        let chunks: Vec<(usize, &[u128])> = words.chunks(CHUNK).enumerate().map(|(i, c)| (i * CHUNK, c)).collect();
        let results: Mutex<Vec<Option<Result<Vec<Outcome>>>>> = Mutex::new((0..chunks.len()).map(|_| None).collect());
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..self.jobs.min(chunks.len()) {
                s.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(start, chunk)) = chunks.get(k) else { break };
                    let r = self.run_chunk(chunk, start as u64 * 16);
                    if let Ok(mut g) = results.lock() {
                        g[k] = Some(r);
                    }
                });
            }
        });
        let mut out = Vec::with_capacity(words.len());
        let results = results.into_inner().map_err(|_| anyhow::anyhow!("worker panicked"))?;
        for r in results {
            out.extend(r.context("chunk not run")??);
        }
        Ok(out)
    }

    fn run_chunk(&self, words: &[u128], base: u64) -> Result<Vec<Outcome>> {
        let id = self.counter.fetch_add(1, Ordering::SeqCst);
        let path = self.dir.join(format!("chunk{id}.bin"));
        let mut errors: HashMap<usize, String> = HashMap::new();
        for _attempt in 0..6 {
            let mut bytes = Vec::with_capacity(words.len() * 16);
            for (i, w) in words.iter().enumerate() {
                let w = if errors.contains_key(&i) { NOP } else { *w };
                bytes.extend_from_slice(&w.to_le_bytes());
            }
            std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
            let out = Command::new(&self.exe)
                .args(["-b", "SM86", "-raw", "-base", &format!("{base:#x}")])
                .arg(&path)
                .output()
                .context("running nvdisasm")?;
            self.runs.fetch_add(1, Ordering::Relaxed);
            self.words.fetch_add(words.len(), Ordering::Relaxed);
            if out.status.success() {
                let _ = std::fs::remove_file(&path);
                return parse_listing(&String::from_utf8_lossy(&out.stdout), words.len(), base, &errors);
            }
            let stderr = String::from_utf8_lossy(&out.stderr);
            let mut new = 0;
            for line in stderr.lines() {
                let Some(pos) = line.rfind("at address 0x") else { continue };
                let hex = line[pos + 13..].trim();
                let Ok(addr) = u64::from_str_radix(hex, 16) else { continue };
                let Some(idx) = addr.checked_sub(base).map(|d| (d / 16) as usize) else { continue };
                if idx < words.len() && !errors.contains_key(&idx) {
                    let msg = line.trim_start_matches("nvdisasm error").trim_start().trim_start_matches(':').trim();
                    let msg = msg.rsplit_once(" at address").map_or(msg, |(m, _)| m).trim();
                    errors.insert(idx, msg.to_owned());
                    new += 1;
                }
            }
            if new == 0 {
                // An error without an address: bisect (the known-bad words are already NOPs).
                if words.len() == 1 {
                    if std::env::var_os("SASSPORT_PROBE_DEBUG").is_some() {
                        eprintln!("unaddressed error for {:#034x}: {}", words[0], stderr.trim());
                    }
                    let _ = std::fs::remove_file(&path);
                    return Ok(vec![Outcome::Error(stderr.trim().lines().last().unwrap_or("").to_owned())]);
                }
                let patched: Vec<u128> =
                    words.iter().enumerate().map(|(i, w)| if errors.contains_key(&i) { NOP } else { *w }).collect();
                let half = patched.len() / 2;
                let mut out = self.run_chunk(&patched[..half], base)?;
                out.extend(self.run_chunk(&patched[half..], base + 16 * half as u64)?);
                for (i, e) in errors {
                    out[i] = Outcome::Error(e);
                }
                let _ = std::fs::remove_file(&path);
                return Ok(out);
            }
        }
        bail!("nvdisasm kept failing on {}", path.display())
    }
}

impl Drop for Nvdisasm {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn parse_listing(stdout: &str, n: usize, base: u64, errors: &HashMap<usize, String>) -> Result<Vec<Outcome>> {
    let mut out: Vec<Option<Outcome>> = vec![None; n];
    for line in stdout.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("/*") else { continue };
        let Some(end) = rest.find("*/") else { continue };
        let Ok(addr) = u64::from_str_radix(&rest[..end], 16) else { continue };
        let Some(idx) = addr.checked_sub(base).map(|d| (d / 16) as usize) else { continue };
        if idx < n {
            out[idx] = Some(Outcome::Text(rest[end + 2..].trim().to_owned()));
        }
    }
    let mut result = Vec::with_capacity(n);
    for (i, o) in out.into_iter().enumerate() {
        if let Some(e) = errors.get(&i) {
            result.push(Outcome::Error(e.clone()));
        } else {
            // The few classes that decode to an empty line print no line at all in raw mode.
            result.push(o.unwrap_or(Outcome::Text(String::new())));
        }
    }
    Ok(result)
}

/// Path helper for callers that want the pinned tool.
pub fn pinned() -> Result<PathBuf> {
    crate::tools::nvidia_tool("nvdisasm")
}
