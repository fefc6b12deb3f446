//! Listings with control bits: what `sassport dis --control` prints and `sassport asm` reads.
//!
//! One instruction a line: `/*OFFSET*/ TEXT  [CONTROL]`, TEXT exactly as nvdisasm `-raw` prints the word at
//! OFFSET (absolute branch targets), CONTROL the bracket form of [`Control`] (with `:X0x…` for bits neither
//! pins down). A word that does not decode prints as `/*OFFSET*/ .word 0x…` (32 hex digits). The assembler
//! also takes, for hand-written code: lines without `/*OFFSET*/` (the next word's offset), without a control
//! bracket (no scoreboards, stall 0, reuse as the text's `.reuse` says), labels (`NAME:` alone on a line;
//! section headers such as `.text.k:` are labels too) and targets written `` `(NAME) `` or `` `(0x30) ``,
//! blank lines and `//` comments.

use crate::control::{Control, ControlError, CONTROL_MASK};
use crate::encode::{encode_text_with, EncodeError};
use crate::instruction::decode;
use crate::render::TargetStyle;
use crate::word::{Word, WORD_BYTES};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Why a listing could not be assembled, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsmError {
    #[error("line {line}: {source}")]
    Encode { line: usize, source: EncodeError },
    #[error("line {line}: {source}")]
    Control { line: usize, source: ControlError },
    #[error("line {line}: bad offset or word {text:?}")]
    Number { line: usize, text: String },
    #[error("line {line}: label `{label}` is not defined")]
    UndefinedLabel { line: usize, label: String },
    #[error("line {line}: label `{label}` is defined twice")]
    DuplicateLabel { line: usize, label: String },
}

/// Appends one word's line (without a newline): `/*OFFSET*/ TEXT  [CONTROL]`, or `.word` for a word that
/// does not decode.
pub fn write_control_line(out: &mut String, word: Word, address: u64) {
    let _ = write!(out, "/*{address:04x}*/ ");
    let Ok(inst) = decode(word) else {
        let _ = write!(out, ".word {word}");
        return;
    };
    let start = out.len();
    let _ = inst.write_text(out, address, TargetStyle::Absolute);
    let control = Control::of(word.0);
    let residue = match encode_text_with(&out[start..], address, control, CONTROL_MASK) {
        Ok(w) => w.0 ^ word.0,
        Err(_) => {
            // Text the encoder cannot read back: keep the word itself.
            out.truncate(start);
            let _ = write!(out, ".word {word}");
            return;
        }
    };
    let _ = write!(out, "  {control}");
    if residue != 0 {
        out.pop();
        let _ = write!(out, ":X{residue:#x}]");
    }
}

/// One line taken apart.
enum Line<'a> {
    Label(&'a str),
    Word { at: Option<u64>, body: Body<'a> },
}

enum Body<'a> {
    Raw(u128),
    Text { text: &'a str, control: Option<&'a str> },
}

fn split_line(line: usize, raw: &str) -> Result<Option<Line<'_>>, AsmError> {
    let s = raw.split("//").next().unwrap_or("").trim();
    if s.is_empty() {
        return Ok(None);
    }
    if let Some(label) = s.strip_suffix(':') {
        if !label.contains(char::is_whitespace) {
            return Ok(Some(Line::Label(label)));
        }
    }
    let number = |t: &str| AsmError::Number { line, text: t.to_owned() };
    let (at, rest) = match s.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
        Some((hex, rest)) => (Some(u64::from_str_radix(hex.trim(), 16).map_err(|_| number(hex))?), rest.trim()),
        None => (None, s),
    };
    if let Some(w) = rest.strip_prefix(".word") {
        let w = w.trim();
        let v = w.strip_prefix("0x").and_then(|h| u128::from_str_radix(h, 16).ok()).ok_or_else(|| number(w))?;
        return Ok(Some(Line::Word { at, body: Body::Raw(v) }));
    }
    let (text, control) = match rest.rfind("[B") {
        Some(i) if rest.ends_with(']') => (rest[..i].trim_end(), Some(&rest[i..])),
        _ => (rest, None),
    };
    Ok(Some(Line::Word { at, body: Body::Text { text, control } }))
}

/// `` `(NAME) `` and `` `(0x30) `` targets replaced by the addresses nvdisasm prints.
fn resolve_targets(line: usize, text: &str, labels: &HashMap<&str, u64>) -> Result<String, AsmError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("`(") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find(')').ok_or_else(|| AsmError::UndefinedLabel { line, label: after.to_owned() })?;
        let name = &after[..end];
        if name.starts_with("0x") {
            out.push_str(name);
        } else {
            let a = labels.get(name).ok_or_else(|| AsmError::UndefinedLabel { line, label: name.to_owned() })?;
            let _ = write!(out, "{a:#x}");
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Assembles a listing into words, in line order.
pub fn assemble(source: &str) -> Result<Vec<Word>, AsmError> {
    let mut lines = Vec::new();
    let mut labels = HashMap::new();
    let mut address = 0u64;
    for (i, raw) in source.lines().enumerate() {
        match split_line(i + 1, raw)? {
            None => {}
            Some(Line::Label(l)) => {
                // A section header starts a section at offset 0, as `dis` prints them.
                if l.starts_with(".text.") {
                    address = 0;
                }
                if labels.insert(l, address).is_some() {
                    return Err(AsmError::DuplicateLabel { line: i + 1, label: l.to_owned() });
                }
            }
            Some(Line::Word { at, body }) => {
                address = at.unwrap_or(address);
                lines.push((i + 1, address, body));
                address = address.wrapping_add(WORD_BYTES as u64);
            }
        }
    }
    let mut words = Vec::with_capacity(lines.len());
    for (line, address, body) in lines {
        let word = match body {
            Body::Raw(v) => Word(v),
            Body::Text { text, control } => {
                let text = resolve_targets(line, text, &labels)?;
                let (control, residue, known) = match control {
                    Some(c) => {
                        let (c, x) = Control::parse(c).map_err(|source| AsmError::Control { line, source })?;
                        (c, x, CONTROL_MASK)
                    }
                    // No scoreboards, stall 0; the reuse bits (125:122) as the text says.
                    None => (Control { write_barrier: 7, read_barrier: 7, ..Control::default() }, 0, CONTROL_MASK & !(0xf << 122)),
                };
                let w = encode_text_with(&text, address, control, known).map_err(|source| AsmError::Encode { line, source })?;
                Word(w.0 ^ residue)
            }
        };
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_plain_lines_assemble() {
        // `BRA` back to itself (nvcc's trailing loop) and an `EXIT`, as nvdisasm prints them.
        let src = ".text.k:\nEXIT ;  [B------:R-:W-:Y:S05:U----]\nL:\n/*0010*/ BRA `(L) ;  [B------:R-:W-:Y:S04:U----]\n";
        let words = assemble(src).unwrap();
        assert_eq!(words.len(), 2);
        let mut out = String::new();
        write_control_line(&mut out, words[1], 0x10);
        assert_eq!(out, "/*0010*/ BRA 0x10 ;  [B------:R-:W-:Y:S04:U----]");
        assert!(matches!(assemble("BRA `(M) ;"), Err(AsmError::UndefinedLabel { line: 1, .. })));
        assert!(matches!(assemble("\nFROB ;"), Err(AsmError::Encode { line: 2, .. })));
    }
}
