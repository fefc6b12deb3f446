//! Linking a kernel's code as nvlink (or the driver, for a relocatable cubin) would: relocatable (`-rdc`) cubins
//! give every function its own `.text.<name>` section and leave calls, return addresses and variable
//! operands to relocations of the code (`.rel.text.<f>`, `.rela.text.<f>`), with a zero placeholder in the word.
//!
//! [`Cubin::link_kernel`] lays out one image: the kernel's section at 0, then every section a relocated call
//! reaches (transitively, each at a 128-byte boundary, in discovery order), and patches each relocated field:
//! - `R_CUDA_ABS47_34` on `CALL.ABS.NOINC imm` to a function of the cubin: the call becomes the same call in its
//!   relative form (`CALL.REL.NOINC`, opcode 0x944 instead of 0x943, every other bit kept) with the callee's
//!   place in the image, which the translator lowers like any direct call. A call to a function the cubin does
//!   not define (`vprintf`, an `extern` another file defines) or into the device runtime stays as it is and is
//!   listed in [`LinkedCode::extern_calls`], for `lower::externs` to bind or refuse by name.
//! - `R_CUDA_ABS32_LO_32`, `_HI_32`, `_32`, `R_CUDA_ABS16_32`, `R_CUDA_ABS24_32`, `R_CUDA_ABS24_40`,
//!   `R_CUDA_ABS20_44` (a 32-, 16-, 24- or 20-bit operand at bit 32, 40 or 44; `LDGSTS`'s shared address is the
//!   last) get `S + A`, whole or its low or high half, where `S` is
//!   - for a function: its code address [`abi::code_address`] with the kernel's section index and the function's
//!     place in the image (the return addresses `32@lo((k + .L_x_1@srel))` that `RET.ABS.NODEC R20` reads back);
//!   - for a constant-bank variable (`.nv.constant<N>`, which the runtime binds unchanged): its offset in the bank;
//!   - for a shared variable: its offset in the kernel's shared memory, laid out here (below);
//!   - for a `__device__` variable (`.nv.global*`): nothing known before the module is loaded, so every use is
//!     listed in [`LinkedCode::refused`] and the translator refuses it by name where it is reachable.
//! - `YIELD` relocators and `UNUSED_CLEAR` entries leave the word as compiled (a hint to the linker).
//!
//! Shared memory: in relocatable cubins a shared variable's `st_value` is its alignment, not its place. The
//! layout puts the kernel's own `.nv.shared.<kernel>` objects first (symbol order), then every other shared
//! object the linked code names (in relocation order, each at its alignment; `.nv_debug.shared` holds the weak
//! shared variables of all template instances, so objects are placed one by one); dynamic shared memory (`extern
//! __shared__`, an undefined shared symbol) starts at the end, rounded to 16 bytes, which is also the static
//! size the kernel declares ([`LinkedCode::shared_bytes`]).
//!
//! A whole-program cubin (`nvcc -cubin` without `-rdc`) has no code relocations; its section is used as it is.

use super::sections::SHT_CUDA_SHARED;
use super::{Cubin, Kernel, Relocation, SymbolKind};
use crate::abi;
use crate::error::DeviceRuntimeCall;
use std::borrow::Cow;

const R_CUDA_ABS32_32: u32 = 55;
const R_CUDA_ABS32_LO_32: u32 = 56;
const R_CUDA_ABS32_HI_32: u32 = 57;
const R_CUDA_ABS47_34: u32 = 58;
const R_CUDA_ABS16_32: u32 = 59;
const R_CUDA_ABS24_32: u32 = 60;
const R_CUDA_YIELD_OPCODE9_0: u32 = 68;
const R_CUDA_YIELD_CLEAR_PRED4_87: u32 = 69;
const R_CUDA_UNUSED_CLEAR32: u32 = 72;
const R_CUDA_UNUSED_CLEAR64: u32 = 73;
const R_CUDA_ABS24_40: u32 = 74;
const R_CUDA_CONST_FIELD19_40: u32 = 64;
const R_CUDA_ABS20_44: u32 = 100;

/// `st_other` bit of shared-memory objects.
const STO_CUDA_SHARED: u8 = 0x40;
/// Opcode bits 11:0 of `CALL.ABS.NOINC imm` and of `CALL.REL.NOINC imm`.
const CALL_ABS_IMM: u128 = 0x943;
const CALL_REL_IMM: u128 = 0x944;
/// Opcode bits 11:0 of `MOV Rd, imm32` / `MOV Rd, c[b][o]` and `UMOV URd, imm32` / `ULDC URd, c[b][o]`.
const MOV_IMM: u128 = 0x802;
const MOV_CBANK: u128 = 0xa02;
const UMOV_IMM: u128 = 0x882;
const ULDC: u128 = 0xab9;
/// The constant bank a linker merges device functions' constants into (nvcc's bank for compiler constants).
pub const MERGED_BANK: u32 = 2;
/// Sections of the image start at this alignment (what nvcc gives code sections).
const SECTION_ALIGN: u32 = 128;

/// One code section in the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedSection {
    /// Offset of the section in the image.
    pub base: u32,
    pub len: u32,
    /// ELF index and name of the section.
    pub index: usize,
    pub name: String,
}

/// A relocated operand that cannot be resolved before the module is loaded, at an image offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedRelocation {
    pub offset: u32,
    pub symbol: String,
    /// The `R_CUDA_*` name.
    pub relocation: String,
    /// What the symbol is, for the refusal message.
    pub reason: String,
}

/// What goes where in the kernel's merged constant bank ([`MERGED_BANK`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankPiece {
    /// The bytes of constant-bank section `section` (with its own relocations applied) at byte `at`.
    Section { section: usize, at: u32 },
    /// The guest address (8 bytes) of data symbol `symbol` (an index into the symbol table) at byte `at`.
    Address { symbol: usize, at: u32 },
}

/// The kernel's constant bank [`MERGED_BANK`] as the linker lays it out: the kernel's own
/// `.nv.constant2.<kernel>` at 0, then each linked function's `.nv.constant2.<function>` (8-byte aligned),
/// then one 8-byte slot per `__device__` variable whose address the code takes. The runtime builds it
/// (`Runtime::load_module_data`), as the driver does when it loads a linked module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergedBank {
    pub pieces: Vec<BankPiece>,
    pub size: u32,
}

impl MergedBank {
    fn place(&mut self, piece: impl Fn(u32) -> BankPiece, bytes: u64) -> u32 {
        let at = align_up(u64::from(self.size), 8) as u32;
        self.pieces.push(piece(at));
        self.size = at.saturating_add(u32::try_from(bytes).unwrap_or(u32::MAX));
        at
    }

    fn section_at(&self, section: usize) -> Option<u32> {
        self.pieces.iter().find_map(|p| match *p {
            BankPiece::Section { section: s, at } if s == section => Some(at),
            _ => None,
        })
    }

    fn address_at(&self, symbol: usize) -> Option<u32> {
        self.pieces.iter().find_map(|p| match *p {
            BankPiece::Address { symbol: s, at } if s == symbol => Some(at),
            _ => None,
        })
    }
}

/// A kernel's code with its relocations applied.
#[derive(Debug, Clone)]
pub struct LinkedCode<'data> {
    pub bytes: Cow<'data, [u8]>,
    /// The sections in the image, the kernel's first at 0.
    pub sections: Vec<LinkedSection>,
    /// Image offsets of calls to functions outside the cubin (or into the device runtime), with the symbol.
    pub extern_calls: Vec<(u32, &'data str)>,
    /// Relocated operands left unresolved, sorted by offset.
    pub refused: Vec<RefusedRelocation>,
    /// Static shared memory of the kernel with the linked functions' shared variables.
    pub shared_bytes: u64,
    /// The merged constant bank, when the linked code needs one (a linked function's own constants, a
    /// `__device__` variable's address); `None` when the kernel's bank 2 is used as the cubin has it.
    pub bank: Option<MergedBank>,
}

impl LinkedCode<'_> {
    /// The section and section offset of image offset `offset` (the kernel's section for offsets outside all).
    pub fn place(&self, offset: u32) -> Option<(&str, u32)> {
        let i = self.sections.partition_point(|s| s.base <= offset).checked_sub(1)?;
        self.sections.get(i).map(|s| (s.name.as_str(), offset - s.base))
    }
}

/// What applying one relocation does to its word.
enum Patch {
    Word(u128),
    /// Nothing to change.
    Keep,
    /// A call to a function outside the image.
    Extern,
    Refuse(String),
}

/// Where a relocated operand of a function may point.
enum Value {
    /// Resolved: the value `S + A`.
    Known(u64),
    /// Not resolvable here: why.
    Refused(String),
}

/// What kind of field a relocation type patches: (first bit, width, which part of the value).
fn field(kind: u32) -> Option<(u32, u32, Part)> {
    Some(match kind {
        R_CUDA_ABS32_32 => (32, 32, Part::Whole),
        R_CUDA_ABS32_LO_32 => (32, 32, Part::Low),
        R_CUDA_ABS32_HI_32 => (32, 32, Part::High),
        R_CUDA_ABS16_32 => (32, 16, Part::Whole),
        R_CUDA_ABS24_32 => (32, 24, Part::Whole),
        R_CUDA_ABS24_40 => (40, 24, Part::Whole),
        R_CUDA_ABS20_44 => (44, 20, Part::Whole),
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Whole,
    Low,
    High,
}

fn bits(word: u128, lo: u32, width: u32) -> u64 {
    ((word >> lo) & ((1u128 << width) - 1)) as u64
}

fn set_bits(word: u128, lo: u32, width: u32, value: u64) -> u128 {
    let mask = ((1u128 << width) - 1) << lo;
    (word & !mask) | ((u128::from(value) << lo) & mask)
}

fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

/// The shared-memory layout of a kernel and the functions it reaches: offset of each placed object symbol.
struct SharedLayout {
    objects: Vec<(usize, u64)>,
    /// Offset of each shared section placed whole (its section symbol), by section index.
    sections: Vec<(usize, u64)>,
    end: u64,
}

impl SharedLayout {
    fn new() -> Self {
        SharedLayout { objects: Vec::new(), sections: Vec::new(), end: 0 }
    }

    /// Places one object symbol (once): in relocatable cubins its value is its alignment.
    fn place_object(&mut self, cubin: &Cubin<'_>, symbol: usize) {
        if self.objects.iter().any(|o| o.0 == symbol) {
            return;
        }
        let Some(s) = cubin.symbols.get(symbol) else { return };
        let align = if cubin.elf_type == 1 { s.value } else { 16 };
        let at = align_up(self.end, align);
        self.objects.push((symbol, at));
        self.end = at + s.size;
    }

    /// Places every object of shared section `section` (once), in symbol order; in a linked cubin (whose
    /// values are offsets) the section as it is.
    fn place_section(&mut self, cubin: &Cubin<'_>, section: usize) {
        if self.sections.iter().any(|s| s.0 == section) {
            return;
        }
        let align = cubin.sections.get(section).map_or(16, |s| s.align.max(4));
        let base = align_up(self.end, align);
        self.sections.push((section, base));
        self.end = base;
        for s in cubin.symbols.iter().filter(|s| s.section == Some(section) && s.kind != SymbolKind::Section) {
            if cubin.elf_type == 1 {
                self.place_object(cubin, s.index);
            } else if !self.objects.iter().any(|o| o.0 == s.index) {
                self.objects.push((s.index, base + s.value));
            }
        }
        let size = cubin.sections.get(section).map_or(0, |s| s.size);
        self.end = self.end.max(base + size);
    }
}

impl<'data> Cubin<'data> {
    /// The code of `kernel` linked with every function its relocated calls reach (see the module documentation).
    pub fn link_kernel(&self, kernel: &Kernel<'data>) -> LinkedCode<'data> {
        let Some(first) = self.code_sections.iter().find(|c| c.index == kernel.function.section) else {
            return LinkedCode {
                bytes: Cow::Borrowed(kernel.function.code),
                sections: Vec::new(),
                extern_calls: Vec::new(),
                refused: Vec::new(),
                shared_bytes: kernel.shared_size,
                bank: None,
            };
        };
        let plain = LinkedCode {
            bytes: Cow::Borrowed(first.bytes),
            sections: vec![LinkedSection {
                base: 0,
                len: first.bytes.len() as u32,
                index: first.index,
                name: first.name.to_string(),
            }],
            extern_calls: Vec::new(),
            refused: Vec::new(),
            shared_bytes: kernel.shared_size,
            bank: None,
        };
        if first.relocations.is_empty() {
            return plain;
        }
        // Which sections take part: the kernel's, then every code section a relocated call reaches.
        let mut order: Vec<usize> = vec![first.index];
        let mut i = 0;
        while i < order.len() {
            let Some(code) = self.code_sections.iter().find(|c| c.index == order[i]) else { break };
            for r in code.relocations.iter().filter(|r| r.kind.0 == R_CUDA_ABS47_34) {
                if let Some(target) = self.linked_callee(r) {
                    if !order.contains(&target) {
                        order.push(target);
                    }
                }
            }
            i += 1;
        }
        let mut sections = Vec::new();
        let mut image: Vec<u8> = Vec::new();
        for &index in &order {
            let Some(code) = self.code_sections.iter().find(|c| c.index == index) else { continue };
            let base = align_up(image.len() as u64, u64::from(SECTION_ALIGN));
            let (Ok(base32), Ok(len)) = (u32::try_from(base), u32::try_from(code.bytes.len())) else { return plain };
            image.resize(base as usize, 0);
            image.extend_from_slice(code.bytes);
            sections.push(LinkedSection { base: base32, len, index, name: code.name.to_string() });
        }
        // Shared memory: the kernel's own section first, then what the linked code names.
        let mut layout = SharedLayout::new();
        let own = format!(".nv.shared.{}", kernel.name());
        if let Some(s) = self.sections.iter().find(|s| s.name == own) {
            layout.place_section(self, s.index);
        }
        for ls in &sections {
            let Some(code) = self.code_sections.iter().find(|c| c.index == ls.index) else { continue };
            for r in &code.relocations {
                let Some(sym) = self.symbols.get(r.symbol as usize) else { continue };
                let shared = sym.section.filter(|&s| self.sections.get(s).is_some_and(|s| s.kind == SHT_CUDA_SHARED));
                // One object at a time: `.nv_debug.shared` holds the (weak) shared variables of every template
                // instance of the cubin, and a kernel gets only those its code names.
                match shared {
                    Some(sec) if sym.kind == SymbolKind::Section => layout.place_section(self, sec),
                    Some(_) => layout.place_object(self, sym.index),
                    None => {}
                }
            }
        }
        let static_end = align_up(layout.end, 16);
        let bank = self.merged_bank(kernel, &sections);
        let mut linked = LinkedCode {
            bytes: Cow::Owned(Vec::new()),
            sections,
            extern_calls: Vec::new(),
            refused: Vec::new(),
            shared_bytes: static_end.max(kernel.shared_size),
            bank,
        };
        let kernel_section = u16::try_from(first.index).unwrap_or(0);
        for ls in linked.sections.clone() {
            let Some(code) = self.code_sections.iter().find(|c| c.index == ls.index) else { continue };
            for r in &code.relocations {
                let Ok(at) = u32::try_from(r.offset) else { continue };
                let offset = ls.base + at;
                self.apply(r, offset, &mut image, &mut linked, &layout, static_end, kernel_section);
            }
        }
        linked.refused.sort_by_key(|r| r.offset);
        linked.extern_calls.sort_by_key(|c| c.0);
        linked.bytes = Cow::Owned(image);
        linked
    }

    /// The merged bank of `kernel` and its linked `sections`, when any of their relocations needs one.
    fn merged_bank(&self, kernel: &Kernel<'_>, sections: &[LinkedSection]) -> Option<MergedBank> {
        let bank_of = |function: &str| {
            let name = format!(".nv.constant{MERGED_BANK}.{function}");
            self.constant_banks.iter().find(|b| b.name == name)
        };
        let mut bank = MergedBank::default();
        if let Some(own) = bank_of(kernel.name()) {
            bank.place(|at| BankPiece::Section { section: own.section, at }, own.size);
        }
        let own_pieces = bank.pieces.len();
        for ls in sections {
            let Some(code) = self.code_sections.iter().find(|c| c.index == ls.index) else { continue };
            for r in &code.relocations {
                let Some(sym) = self.symbols.get(r.symbol as usize) else { continue };
                let sec = sym.section.and_then(|s| self.sections.get(s));
                if r.kind.0 == R_CUDA_CONST_FIELD19_40 {
                    if let Some(b) = self.constant_banks.iter().find(|b| Some(b.section) == sym.section) {
                        let foreign = b.bank == MERGED_BANK && b.function.is_some_and(|f| f != kernel.name());
                        if foreign && bank.section_at(b.section).is_none() {
                            bank.place(|at| BankPiece::Section { section: b.section, at }, b.size);
                        }
                    }
                } else if sec.is_some_and(|s| s.name.starts_with(".nv.global")) && bank.address_at(sym.index).is_none() {
                    bank.place(|at| BankPiece::Address { symbol: sym.index, at }, 8);
                }
            }
        }
        let needed = bank.pieces.len() > own_pieces;
        (needed && u64::from(bank.size) <= u64::from(abi::MAX_BANK_BYTES)).then_some(bank)
    }

    /// The code section of the function a call relocation names, when it is one the linker joins to the image
    /// (defined in the cubin, and not part of the device runtime, which is refused by name elsewhere).
    fn linked_callee(&self, r: &Relocation<'_>) -> Option<usize> {
        let sym = self.symbols.get(r.symbol as usize)?;
        if sym.kind != SymbolKind::Function || DeviceRuntimeCall::of(sym.name).is_some() {
            return None;
        }
        let section = sym.section?;
        self.code_sections.iter().any(|c| c.index == section).then_some(section)
    }

    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        r: &Relocation<'data>,
        offset: u32,
        image: &mut [u8],
        linked: &mut LinkedCode<'data>,
        layout: &SharedLayout,
        static_end: u64,
        kernel_section: u16,
    ) {
        // The 16-byte instruction word the relocation patches (its offset may point inside it).
        let word_at = offset & !15;
        let Some(bytes) = image.get(word_at as usize..word_at as usize + 16) else { return };
        let mut raw = [0u8; 16];
        raw.copy_from_slice(bytes);
        let word = u128::from_le_bytes(raw);
        let sym_name = self.symbols.get(r.symbol as usize).map_or("?", |s| s.name);
        let patched = match self.patch(r, offset, word, linked, layout, static_end, kernel_section) {
            Patch::Word(w) => w,
            Patch::Keep => return,
            Patch::Extern => {
                linked.extern_calls.push((word_at, sym_name));
                return;
            }
            Patch::Refuse(reason) => {
                linked.refused.push(RefusedRelocation {
                    offset: word_at,
                    symbol: sym_name.to_string(),
                    relocation: r.kind.to_string(),
                    reason,
                });
                return;
            }
        };
        if let Some(out) = image.get_mut(word_at as usize..word_at as usize + 16) {
            out.copy_from_slice(&patched.to_le_bytes());
        }
    }

    /// The word with relocation `r` (at image offset `offset`, inside `word`) applied.
    #[allow(clippy::too_many_arguments)]
    fn patch(
        &self,
        r: &Relocation<'_>,
        offset: u32,
        word: u128,
        linked: &LinkedCode<'_>,
        layout: &SharedLayout,
        static_end: u64,
        kernel_section: u16,
    ) -> Patch {
        let shift = (offset & 15) * 8;
        match r.kind.0 {
            R_CUDA_YIELD_OPCODE9_0 | R_CUDA_YIELD_CLEAR_PRED4_87 | R_CUDA_UNUSED_CLEAR32 | R_CUDA_UNUSED_CLEAR64 => {
                Patch::Keep
            }
            R_CUDA_ABS47_34 => {
                if shift != 0 || word & 0xfff != CALL_ABS_IMM {
                    return Patch::Refuse("a relocated code address outside a CALL.ABS.NOINC (not linked yet)".into());
                }
                let Some(target) = self.linked_callee(r) else { return Patch::Extern };
                let base = linked.sections.iter().find(|s| s.index == target).map_or(0, |s| s.base);
                let addend = r.addend.unwrap_or((bits(word, 34, 45) << 2) as i64);
                let value = self.symbols.get(r.symbol as usize).map_or(0, |s| s.value);
                let callee = i64::from(base) + value as i64 + addend;
                // The relative form: the target from the next instruction, in 4-byte units, at bits 34..82.
                let rel = (callee - (i64::from(offset) + 16)) >> 2;
                let word = (word & !0xfff) | CALL_REL_IMM;
                Patch::Word(set_bits(word, 34, 48, rel as u64 & ((1u64 << 48) - 1)))
            }
            R_CUDA_CONST_FIELD19_40 => self.patch_bank_operand(r, word, shift, linked),
            R_CUDA_ABS32_LO_32 | R_CUDA_ABS32_HI_32 if self.is_device_variable(r) => {
                self.patch_address(r, word, shift, linked)
            }
            kind => {
                let Some((lo, width, part)) = field(kind) else {
                    return Patch::Refuse("relocation type not linked yet".into());
                };
                let lo = lo + shift;
                if lo + width > 128 {
                    return Patch::Refuse("relocated field outside the instruction word".into());
                }
                let implicit = match part {
                    Part::Whole => bits(word, lo, width) as i64,
                    // A split field holds half of the addend; nvcc writes those with explicit addends.
                    _ if bits(word, lo, width) != 0 => {
                        return Patch::Refuse("split field with an implicit addend".into())
                    }
                    _ => 0,
                };
                let addend = r.addend.unwrap_or(implicit);
                let s = match self.symbol_value(r, layout, static_end, linked, kernel_section) {
                    Value::Known(v) => v,
                    Value::Refused(why) => return Patch::Refuse(why),
                };
                let v = s.wrapping_add(addend as u64);
                let v = match part {
                    Part::Whole => v,
                    Part::Low => v & 0xffff_ffff,
                    Part::High => v >> 32,
                };
                // The shared-memory offset of LDS/STS/ATOMS (bits 40..63) is signed: `sym - 4` below the first
                // variable (at 0) is an offset the register part makes up for.
                let signed_fits = kind == R_CUDA_ABS24_40 && (v as i64) < 0 && (v as i64) >= -(1i64 << (width - 1));
                if v >> width != 0 && !signed_fits {
                    return Patch::Refuse(format!("value {v:#x} does not fit the {width}-bit operand"));
                }
                Patch::Word(set_bits(word, lo, width, v & ((1u64 << width) - 1)))
            }
        }
    }

    fn is_device_variable(&self, r: &Relocation<'_>) -> bool {
        let sym = self.symbols.get(r.symbol as usize);
        let sec = sym.and_then(|s| s.section).and_then(|s| self.sections.get(s));
        sec.is_some_and(|s| s.name.starts_with(".nv.global"))
    }

    /// `c[`(sym)]`: a constant-bank operand whose bank and offset (bits 54..58 and 40..53, the offset in
    /// words) the linker fills: the kernel's own or the module's bank as it is, a linked function's bank 2
    /// where the merged bank has put it.
    fn patch_bank_operand(&self, r: &Relocation<'_>, word: u128, shift: u32, linked: &LinkedCode<'_>) -> Patch {
        if shift != 0 || bits(word, 40, 19) != 0 {
            return Patch::Refuse("constant-bank operand with an implicit addend".into());
        }
        let Some(sym) = self.symbols.get(r.symbol as usize) else { return Patch::Refuse("no symbol".into()) };
        let Some(bank) = self.constant_banks.iter().find(|b| Some(b.section) == sym.section) else {
            return Patch::Refuse("constant-bank operand naming no constant bank".into());
        };
        let value = if sym.kind == SymbolKind::Section { 0 } else { sym.value };
        let base = match bank.function {
            None => Some(0),
            Some(f) if f == linked_kernel_name(self, linked) => Some(0),
            Some(_) if bank.bank == MERGED_BANK => linked.bank.as_ref().and_then(|m| m.section_at(bank.section)),
            Some(_) => None,
        };
        let Some(base) = base else {
            return Patch::Refuse(format!("operand in {}, which no bank of this kernel holds", bank.name));
        };
        let offset = u64::from(base) + value;
        let offset = offset.wrapping_add(r.addend.unwrap_or(0) as u64);
        if offset % 4 != 0 || offset >= u64::from(abi::MAX_BANK_BYTES) {
            return Patch::Refuse(format!("bank offset {offset:#x} not encodable"));
        }
        Patch::Word(set_bits(word, 40, 19, (u64::from(bank.bank) << 14) | (offset >> 2)))
    }

    /// `UMOV URd, 32@lo(v)` / `32@hi(v)` (and `MOV Rd, ...`) of a `__device__` variable: the same move from
    /// the variable's address slot in the merged bank (`ULDC URd, c[0x2][slot]`, `MOV Rd, c[0x2][slot]`),
    /// which the runtime fills when it places the variable.
    fn patch_address(&self, r: &Relocation<'_>, word: u128, shift: u32, linked: &LinkedCode<'_>) -> Patch {
        let slot = linked.bank.as_ref().and_then(|b| b.address_at(r.symbol as usize));
        let Some(slot) = slot else {
            return Patch::Refuse("address of a __device__ variable with no slot in the merged bank".into());
        };
        if shift != 0 || r.addend.unwrap_or(0) != 0 || bits(word, 32, 32) != 0 {
            return Patch::Refuse("address of a __device__ variable plus an offset (not linked yet)".into());
        }
        let half = if r.kind.0 == R_CUDA_ABS32_HI_32 { 4 } else { 0 };
        let operand = (u64::from(MERGED_BANK) << 16) | u64::from(slot + half);
        let word = set_bits(word, 32, 32, 0);
        match word & 0xfff {
            MOV_IMM => Patch::Word(set_bits((word & !0xfff) | MOV_CBANK, 38, 21, operand)),
            // ULDC's size field (bits 73..75) says 32 bits (4); UMOV's is unused there.
            UMOV_IMM if bits(word, 64, 40) == 0 => {
                let w = set_bits((word & !0xfff) | ULDC, 38, 21, operand);
                Patch::Word(set_bits(w, 73, 3, 4))
            }
            _ => Patch::Refuse(
                "address of a __device__ variable in an instruction other than MOV or UMOV (not linked yet)".into(),
            ),
        }
    }

    /// `S` of a data-operand relocation (see the module documentation).
    fn symbol_value(
        &self,
        r: &Relocation<'_>,
        layout: &SharedLayout,
        static_end: u64,
        linked: &LinkedCode<'_>,
        kernel_section: u16,
    ) -> Value {
        let Some(sym) = self.symbols.get(r.symbol as usize) else {
            return Value::Refused("symbol out of range".into());
        };
        let Some(section) = sym.section else {
            if sym.other & STO_CUDA_SHARED != 0 {
                // `extern __shared__`: dynamic shared memory, after the static layout.
                return Value::Known(align_up(static_end, sym.value));
            }
            return Value::Refused("symbol the cubin does not define (resolved only by nvlink)".into());
        };
        let Some(sec) = self.sections.get(section) else { return Value::Refused("symbol in no section".into()) };
        if let Some(ls) = linked.sections.iter().find(|s| s.index == section) {
            let value = if sym.kind == SymbolKind::Section { 0 } else { sym.value };
            let Ok(at) = u32::try_from(u64::from(ls.base) + value) else {
                return Value::Refused("code offset beyond 4 GiB".into());
            };
            return Value::Known(abi::code_address(kernel_section, at));
        }
        if sec.name.starts_with(".text.") {
            return Value::Refused("address of a function no call of this kernel reaches (not linked yet)".into());
        }
        if sec.kind == SHT_CUDA_SHARED {
            if sym.kind == SymbolKind::Section {
                if let Some(&(_, base)) = layout.sections.iter().find(|s| s.0 == section) {
                    return Value::Known(base);
                }
            } else if let Some(&(_, at)) = layout.objects.iter().find(|o| o.0 == sym.index) {
                return Value::Known(at);
            }
            return Value::Refused("shared variable outside the kernel's layout".into());
        }
        if let Some(rest) = sec.name.strip_prefix(".nv.constant") {
            // The runtime binds the cubin's banks as they are: a variable's place is its offset in the bank.
            let own_or_module = !rest.contains('.') || rest.split_once('.').is_some_and(|(_, f)| {
                self.kernels.iter().any(|k| k.function.section == linked.sections[0].index && k.name() == f)
            });
            if own_or_module {
                return Value::Known(if sym.kind == SymbolKind::Section { 0 } else { sym.value });
            }
            return Value::Refused(format!("variable in another kernel's constant bank {}", sec.name));
        }
        if sec.name.starts_with(".nv.global") {
            return Value::Refused(
                "address of a __device__ variable in a field other than 32@lo/32@hi (not linked yet)".into(),
            );
        }
        Value::Refused(format!("symbol in section {} (not linked yet)", sec.name))
    }
}

/// The name of the kernel whose linked code `linked` is (its section's first kernel symbol).
fn linked_kernel_name<'a>(cubin: &Cubin<'a>, linked: &LinkedCode<'_>) -> &'a str {
    let index = linked.sections.first().map_or(usize::MAX, |s| s.index);
    cubin.kernels.iter().find(|k| k.function.section == index).map_or("", |k| k.name())
}
