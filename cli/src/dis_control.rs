//! `sassport dis --control`: each instruction with its scheduling bits, in the form `sassport asm` reads.
//!
//! Lines are `/*OFFSET*/ TEXT  [B------:R-:W-:Y:S04:U----]`: TEXT exactly as `nvdisasm -b SM86 -raw` prints
//! the word at OFFSET (absolute branch targets; no relocation symbols or notes, which the word does not
//! hold), then the control bits (`sassport_gen::Control` documents the form; `docs/isa-table.md` too).
//! Words that do not decode print as `.word 0x…`, so that `sassport asm` gives back every byte.

use crate::dis::CodeSection;
use sassport_gen::{write_control_line, Word, WORD_BYTES};
use std::fmt::Write as _;

/// Appends one section's control listing to `out`; returns how many words did not decode.
pub fn write_section(out: &mut String, section: &CodeSection<'_>) -> usize {
    let _ = writeln!(out, "{}:", section.name);
    let mut undecodable = 0;
    let mut chunks = section.bytes.chunks_exact(WORD_BYTES);
    let mut address = section.base;
    for chunk in &mut chunks {
        let mut bytes = [0u8; WORD_BYTES];
        bytes.copy_from_slice(chunk);
        let word = Word::from_le_bytes(bytes);
        undecodable += usize::from(sassport_gen::decode(word).is_err());
        write_control_line(out, word, address);
        out.push('\n');
        address = address.wrapping_add(WORD_BYTES as u64);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        undecodable += 1;
        let _ = writeln!(out, "// truncated word: {} of {WORD_BYTES} bytes", tail.len());
    }
    undecodable
}
