//! Stamps the translator with a hash of everything that decides the code it emits (its own sources, the
//! generated decoder and the encoding table), so on-disk caches of translated modules never outlive a change.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let roots = [manifest.join("src"), manifest.join("../gen/src"), manifest.join("../isa/sm86.txt")];
    let mut files = Vec::new();
    for root in &roots {
        collect(root, &mut files);
    }
    files.sort();
    // FNV-1a 64 over (relative name, contents) of every file.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let name = file.strip_prefix(manifest.parent().unwrap_or(&manifest)).unwrap_or(file);
        feed(name.to_string_lossy().as_bytes());
        feed(&std::fs::read(file).unwrap_or_default());
    }
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
    }
    println!("cargo:rustc-env=SASSPORT_TRANSLATOR_STAMP={hash:016x}");
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
            collect(&entry.path(), out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}
