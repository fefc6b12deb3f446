//! The H200 recording archive (`tests/silicon/textures.tgz`, written by
//! `corpus/silicon/textures/record_textures.py` on the device and committed unchanged), read in memory.

use std::collections::BTreeMap;
use std::io::Read;

/// Every file of the archive by its path inside it.
pub fn files() -> BTreeMap<String, Vec<u8>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/silicon/textures.tgz");
    let gz = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut tar)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = BTreeMap::new();
    let mut at = 0;
    // ustar: 512-byte headers (name 0..100, size in octal 124..136, type flag 156), data padded to 512.
    while at + 512 <= tar.len() && tar[at] != 0 {
        let h = &tar[at..at + 512];
        let name = String::from_utf8_lossy(&h[..100])
            .trim_end_matches('\0')
            .to_string();
        let prefix = String::from_utf8_lossy(&h[345..500])
            .trim_end_matches('\0')
            .to_string();
        let size_text = String::from_utf8_lossy(&h[124..136])
            .trim_matches(|c: char| c == '\0' || c == ' ')
            .to_string();
        let size =
            usize::from_str_radix(&size_text, 8).unwrap_or_else(|e| panic!("tar size {size_text:?}: {e}"));
        let full = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if h[156] == b'0' || h[156] == 0 {
            out.insert(full, tar[at + 512..at + 512 + size].to_vec());
        }
        at += 512 + size.div_ceil(512) * 512;
    }
    out
}
