//! Shared by the translator's tests: nvdisasm as an independent source of mnemonics, spirv-val.
#![allow(dead_code)]

use sassport_gen::Word;
use sassport_translator::program::Disassembler;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The pinned nvdisasm, if installed.
pub fn nvdisasm() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../.tools/venv/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm");
    p.exists().then_some(p)
}

/// Mnemonics of a code section as nvdisasm prints them (`-b SM86 -raw`), keyed by offset.
pub struct Listing {
    /// By word index.
    names: Vec<Option<&'static str>>,
}

impl Listing {
    pub fn of(code: &[u8]) -> Listing {
        let tool = nvdisasm().expect("pinned nvdisasm (cargo xtask tools)");
        let dir = std::env::temp_dir().join(format!("sassport-tr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = std::sync::atomic::AtomicUsize::new(0);
        let path = dir.join(format!(
            "code-{}-{}.bin",
            code.len(),
            n.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + code.iter().map(|b| *b as usize).sum::<usize>()
        ));
        std::fs::write(&path, code).unwrap();
        let out = Command::new(tool).args(["-b", "SM86", "-raw"]).arg(&path).output().unwrap();
        let _ = std::fs::remove_file(&path);
        let text = String::from_utf8_lossy(&out.stdout);
        let mut names = vec![None; code.len() / 16];
        for line in text.lines() {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("/*") else { continue };
            let Some(end) = rest.find("*/") else { continue };
            let Ok(addr) = u64::from_str_radix(&rest[..end], 16) else { continue };
            let mut toks = rest[end + 2..].split_whitespace();
            let mut first = toks.next().unwrap_or("");
            if first.starts_with('@') {
                first = toks.next().unwrap_or("");
            }
            let m = first.split('.').next().unwrap_or("").trim_end_matches(';');
            if !m.is_empty() {
                if let Some(slot) = names.get_mut((addr / 16) as usize) {
                    *slot = Some(&*Box::leak(m.to_string().into_boxed_str()));
                }
            }
        }
        Listing { names }
    }
}

impl Disassembler for Listing {
    fn mnemonic(&self, offset: u64, _word: Word) -> Result<&'static str, String> {
        self.names.get((offset / 16) as usize).copied().flatten().ok_or_else(|| "nvdisasm printed nothing here".to_string())
    }
}

/// Runs `spirv-val --target-env vulkan1.3`; Err(message) if the module is invalid.
pub fn spirv_val(words: &[u32]) -> Result<(), String> {
    let mut child = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spirv-val: {e}"))?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    child.stdin.take().unwrap().write_all(&bytes).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// `spirv-dis` text of a module.
pub fn spirv_dis(words: &[u32]) -> String {
    let mut child = Command::new("spirv-dis")
        .args(["--raw-id", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spirv-dis");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).into_owned()
}
