//! What nvdisasm prints from a cubin beyond the words themselves: relocated operands and its comments.
//!
//! - Relocations (`.rel.text.<f>`, `.rela.text.<f>`) name a symbol where the word holds a placeholder; nvdisasm
//!   prints the symbol in the operand the relocation type patches: `32@lo(sym)` / `32@hi(sym)` for
//!   `R_CUDA_ABS32_LO_32` / `_HI_32` (`32@lo(fun@fdesc(k))` / `32@hi(...)` for `R_CUDA_FUNC_DESC32_LO_32` /
//!   `_HI_32`, a kernel's descriptor for a device-side launch), `` `(sym) `` for the 32-bit immediate (`ABS32_32`; `ABS16_32`, the
//!   `MOV Rd, `(table)` / `UMOV` of a `__constant__` array's bank offset in `-rdc` code), a call target
//!   (`ABS47_34`) or a shared-memory address (`[R2.X4+`(sym)]`, `ABS24_40`, `ABS20_44`), and `` c[`(sym)] ``
//!   for a constant-bank operand (`CONST_FIELD19_40`, bank and offset both). An explicit addend prints as
//!   `(sym + 0x40)` (`(sym + -0x40)` when negative); against a function symbol it is a label in the function's
//!   section, `(sym + .L_x_0@srel)`, which `sassport dis` prints as the label's offset, `(sym + 0x4f0@srel)`.
//!   A relocated constant operand keeps `IMAD.U32` where nvdisasm would otherwise print the `IMAD.MOV.U32` alias.
//! - `R_CUDA_YIELD_OPCODE9_0` (which turns a `YIELD` into the opcode of its addend when the linker disables
//!   yields) prints as the comment `(*"RELOCATOR OPCODE,YIELD,280"*)`.
//! - `EIATTR_ANNOTATIONS` (0x55) in a function's `.nv.info.<f>` lists (kind, offset) pairs of u32; kind 1
//!   marks the register spills and refills ptxas wrote, printed `(*"SpillRefill"*)`.
//!
//! Comments replace the instruction's ` ;` with ten spaces, `(*"..."*)` and `;`, as nvdisasm writes them.
//! Every form here was read off the pinned nvdisasm's listings of nvcc `-rdc` and `-maxrregcount` cubins.

use sassport_translator::cubin::{Cubin, KernelInfo, SymbolKind};
use std::collections::{BTreeMap, BTreeSet};

/// `R_CUDA_*` relocation types nvdisasm renders in code, by number.
mod kind {
    pub const ABS32_32: u32 = 55;
    pub const ABS32_LO_32: u32 = 56;
    pub const ABS32_HI_32: u32 = 57;
    pub const ABS47_34: u32 = 58;
    pub const ABS16_32: u32 = 59;
    pub const FUNC_DESC32_LO_32: u32 = 62;
    pub const FUNC_DESC32_HI_32: u32 = 63;
    pub const CONST_FIELD19_40: u32 = 64;
    pub const YIELD_OPCODE9_0: u32 = 68;
    pub const ABS24_40: u32 = 74;
    pub const ABS20_44: u32 = 100;
}

/// `EIATTR_ANNOTATIONS`.
const EIATTR_ANNOTATIONS: u8 = 0x55;
/// The annotation kind of a spill or refill.
const ANNOTATION_SPILL_REFILL: u32 = 1;

/// One relocation of a code word, as it prints.
#[derive(Debug, Clone)]
pub struct RelocNote {
    kind: u32,
    symbol: String,
    addend: Option<i64>,
    /// The symbol names a function (its addend is then a label of the function's section).
    function: bool,
    /// The symbol's offset when it is defined in the section being printed (printed like a branch target).
    local_offset: Option<u64>,
}

/// Everything besides the words that a section's listing prints, keyed by section-relative offset.
#[derive(Debug, Clone, Default)]
pub struct SectionNotes {
    pub relocations: BTreeMap<u64, Vec<RelocNote>>,
    pub spill_refills: BTreeSet<u64>,
}

/// The notes of every code section of `cubin`, by section name.
pub fn cubin_notes<'a>(cubin: &Cubin<'a>) -> BTreeMap<&'a str, SectionNotes> {
    let mut notes: BTreeMap<&'a str, SectionNotes> = BTreeMap::new();
    for section in &cubin.code_sections {
        let entry = notes.entry(section.name).or_default();
        for r in &section.relocations {
            let symbol = cubin.symbols.get(r.symbol as usize);
            let local_offset = symbol.filter(|s| s.section == Some(section.index)).map(|s| s.value);
            let note = RelocNote {
                kind: r.kind.0,
                symbol: r.symbol_name.to_owned(),
                addend: r.addend,
                function: symbol.is_some_and(|s| s.kind == SymbolKind::Function),
                local_offset,
            };
            entry.relocations.entry(r.offset).or_default().push(note);
        }
    }
    let kernels = cubin.kernels.iter().map(|k| (k.function.section_name, &k.info));
    let functions = cubin.device_function_info.iter().filter_map(|f| {
        let function = cubin.device_functions.iter().find(|d| d.symbol == f.symbol)?;
        Some((function.section_name, &f.info))
    });
    for (section, info) in kernels.chain(functions) {
        notes.entry(section).or_default().spill_refills.extend(spill_refills(info));
    }
    notes
}

/// The offsets `EIATTR_ANNOTATIONS` marks as spills or refills.
fn spill_refills<'i>(info: &'i KernelInfo<'_>) -> impl Iterator<Item = u64> + 'i {
    info.attributes.iter().filter(|a| a.id == EIATTR_ANNOTATIONS).flat_map(|a| {
        a.payload.chunks_exact(8).filter_map(|pair| {
            let kind = u32::from_le_bytes([pair[0], pair[1], pair[2], pair[3]]);
            let offset = u32::from_le_bytes([pair[4], pair[5], pair[6], pair[7]]);
            (kind == ANNOTATION_SPILL_REFILL).then_some(u64::from(offset))
        })
    })
}

impl SectionNotes {
    /// Rewrites the instruction text at `offset` (nvdisasm's text with its `;`) as nvdisasm prints it there.
    pub fn apply(&self, offset: u64, text: &mut String) {
        for note in self.relocations.get(&offset).into_iter().flatten() {
            note.apply(text);
        }
        if self.spill_refills.contains(&offset) {
            append_comment(text, "SpillRefill");
        }
    }

    /// Whether the word at `offset` carries a relocation whose operand nvdisasm prints from the symbol.
    pub fn relocated(&self, offset: u64) -> bool {
        self.relocations.contains_key(&offset)
    }
}

impl RelocNote {
    /// The symbol expression: `sym`, `(sym + 0x40)`, `(sym + -0x40)`, `(sym + 0x4f0@srel)`.
    fn expression(&self) -> String {
        match self.addend {
            None | Some(0) => self.symbol.clone(),
            Some(a) if self.function => format!("({} + {a:#x}@srel)", self.symbol),
            Some(a) if a < 0 => format!("({} + -{:#x})", self.symbol, a.unsigned_abs()),
            Some(a) => format!("({} + {a:#x})", self.symbol),
        }
    }

    /// `` `(sym) ``, or `` `(0xOFFSET) `` for a symbol of the section itself, like any label.
    fn quoted(&self) -> String {
        match (self.local_offset, self.addend) {
            (Some(offset), None | Some(0)) => format!("`({offset:#x})"),
            _ => format!("`({})", self.expression()),
        }
    }

    fn apply(&self, text: &mut String) {
        match self.kind {
            kind::ABS32_LO_32 => replace_last_immediate(text, &format!("32@lo({})", self.expression())),
            kind::ABS32_HI_32 => replace_last_immediate(text, &format!("32@hi({})", self.expression())),
            kind::FUNC_DESC32_LO_32 => replace_last_immediate(text, &format!("32@lo(fun@fdesc({}))", self.expression())),
            kind::FUNC_DESC32_HI_32 => replace_last_immediate(text, &format!("32@hi(fun@fdesc({}))", self.expression())),
            kind::ABS32_32 | kind::ABS16_32 | kind::ABS47_34 => replace_last_immediate(text, &self.quoted()),
            kind::CONST_FIELD19_40 => replace_constant(text, &self.quoted()),
            kind::ABS24_40 | kind::ABS20_44 => replace_address_offset(text, &self.quoted()),
            kind::YIELD_OPCODE9_0 => {
                let mnemonic = mnemonic(text).to_owned();
                append_comment(text, &format!("RELOCATOR OPCODE,{mnemonic},{}", self.addend.unwrap_or(0)));
            }
            // Others (`YIELD_CLEAR_PRED4_87`, and types not seen in code) change nothing nvdisasm prints.
            _ => {}
        }
    }
}

/// The mnemonic with its modifiers (after any `@P0` guard).
fn mnemonic(text: &str) -> &str {
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    if first.starts_with('@') {
        words.next().unwrap_or("")
    } else {
        first
    }
}

/// The text without its final ` ;` (or `;`), and the position where that ending starts.
fn body_end(text: &str) -> usize {
    text.trim_end().trim_end_matches(';').trim_end().len()
}

/// Replaces ` ;` with nvdisasm's comment form: ten spaces, `(*"NOTE"*)`, `;`.
fn append_comment(text: &mut String, note: &str) {
    text.truncate(body_end(text));
    text.push_str("          (*\"");
    text.push_str(note);
    text.push_str("\"*);");
}

/// Replaces the last operand (an immediate the relocation fills) with `with`.
fn replace_last_immediate(text: &mut String, with: &str) {
    let end = body_end(text);
    let start = text[..end].rfind([' ', ',']).map_or(0, |i| i + 1);
    let operand = &text[start..end];
    if operand.starts_with("0x") || operand.starts_with("-0x") {
        text.replace_range(start..end, with);
    }
}

/// Replaces the first constant-bank operand `c[0x0][0x0]` with `` c[`(sym)] ``; the relocated form is never
/// printed as the `IMAD.MOV` alias.
fn replace_constant(text: &mut String, with: &str) {
    let Some(start) = text.find("c[") else { return };
    let Some(first) = text[start..].find(']') else { return };
    let second_end = match text[start + first + 1..].strip_prefix('[') {
        Some(rest) => rest.find(']').map(|i| start + first + 1 + 1 + i + 1),
        None => Some(start + first + 1),
    };
    let Some(end) = second_end else { return };
    text.replace_range(start..end, &format!("c[{with}]"));
    if let Some(at) = text.find("IMAD.MOV.U32 ") {
        text.replace_range(at..at + "IMAD.MOV.U32".len(), "IMAD.U32");
    }
}

/// Puts `with` as the immediate part of the first address operand: `[R2.X4]` → `[R2.X4+`(sym)]`,
/// `[R3+0x10]` → `[R3+`(sym)]`, `[RZ]` → `` [`(sym)] ``.
fn replace_address_offset(text: &mut String, with: &str) {
    let Some(open) = text.find('[') else { return };
    let Some(len) = text[open..].find(']') else { return };
    let inner = &text[open + 1..open + len];
    let mut parts: Vec<&str> = inner.split('+').filter(|p| !p.is_empty()).collect();
    if parts.last().is_some_and(|p| p.starts_with("0x") || p.starts_with("-0x")) {
        parts.pop();
    }
    if parts.first() == Some(&"RZ") {
        parts.remove(0);
    }
    let mut rewritten = parts.join("+");
    if !rewritten.is_empty() {
        rewritten.push('+');
    }
    rewritten.push_str(with);
    text.replace_range(open + 1..open + len, &rewritten);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(kind: u32, addend: Option<i64>, function: bool) -> RelocNote {
        RelocNote { kind, symbol: "sym".into(), addend, function, local_offset: None }
    }

    fn applied(n: &RelocNote, text: &str) -> String {
        let mut t = text.to_owned();
        n.apply(&mut t);
        t
    }

    #[test]
    fn operands_take_the_symbol() {
        assert_eq!(applied(&note(kind::ABS32_LO_32, None, false), "UMOV UR4, 0x0 ;"), "UMOV UR4, 32@lo(sym) ;");
        assert_eq!(
            applied(&note(kind::FUNC_DESC32_HI_32, None, false), "UMOV UR5, 0x0 ;"),
            "UMOV UR5, 32@hi(fun@fdesc(sym)) ;"
        );
        assert_eq!(
            applied(&note(kind::ABS32_HI_32, Some(0x4f0), true), "MOV R21, 0x0 ;"),
            "MOV R21, 32@hi((sym + 0x4f0@srel)) ;"
        );
        assert_eq!(applied(&note(kind::ABS47_34, None, false), "CALL.ABS.NOINC 0x0 ;"), "CALL.ABS.NOINC `(sym) ;");
        assert_eq!(applied(&note(kind::ABS16_32, None, false), "UMOV UR4, 0x0 ;"), "UMOV UR4, `(sym) ;");
        assert_eq!(
            applied(&note(kind::CONST_FIELD19_40, Some(4), false), "IMAD.MOV.U32 R8, RZ, RZ, c[0x0][0x0] ;"),
            "IMAD.U32 R8, RZ, RZ, c[`((sym + 0x4))] ;"
        );
        assert_eq!(applied(&note(kind::ABS24_40, None, false), "STS [R0.X4], R3 ;"), "STS [R0.X4+`(sym)], R3 ;");
        assert_eq!(
            applied(&note(kind::ABS24_40, Some(-0x400), false), "LDS R3, [RZ] ;"),
            "LDS R3, [`((sym + -0x400))] ;"
        );
        assert_eq!(
            applied(&note(kind::YIELD_OPCODE9_0, Some(280), false), "YIELD ;"),
            "YIELD          (*\"RELOCATOR OPCODE,YIELD,280\"*);"
        );
    }
}
