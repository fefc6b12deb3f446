//! The runtime half of the typed views: operand types the generated [`crate::views`] structs hold.
//!
//! `cargo xtask regen` derives each class's operand slots and their roles from the table (see
//! `xtask/src/regen/views.rs` and `docs/isa-table.md`, "Operand roles") and names them from
//! `isa/roles.txt`; this module is what those generated views are made of.

use crate::generated::classes::ClassId;
use crate::operand::{Barrier, Pred, Reg, UPred, UReg};
use crate::render::TargetStyle;
use crate::word::Word;

/// The guard predicate (`@P0`, `@!P3`; `PT` when the instruction always runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guard {
    pub pred: Pred,
    pub not: bool,
}

impl Guard {
    /// No guard (`PT`).
    pub const ALWAYS: Guard = Guard { pred: Pred::PT, not: false };

    /// The guard of field value `v` (bits 15:12: predicate 14:12, negated by 15).
    pub fn of(v: u64) -> Guard {
        Guard { pred: Pred((v & 7) as u8), not: v & 8 != 0 }
    }
}

/// How an operand's register is accessed, from the table's access rules (nvdisasm `-plr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Read,
    Write,
    ReadWrite,
    /// Not a register, or no rule names the operand's bits (memory bases, constant-bank indices, ...).
    Unknown,
}

/// What an operand is. Numbers are the field's value after the render's sign extension and scaling
/// (`Imm` holds float immediates as their bit pattern); `Target` is bytes from the end of the instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Src {
    Reg(Reg),
    UReg(UReg),
    /// A predicate and whether it is negated where the register number carries the `!`.
    Pred(Pred, bool),
    UPred(UPred, bool),
    Barrier(Barrier),
    Imm(u64),
    /// `c[bank][offset]`, `c[UR][offset]` (`ubank`), or `c[bank][R+offset]` (`index`).
    Cbuf { bank: u8, ubank: Option<UReg>, offset: i64, index: Option<Reg> },
    /// `[R+UR+offset]` and its simpler forms.
    Mem { base: Option<Reg>, ubase: Option<UReg>, offset: i64 },
    Target(i64),
    /// A slot holding only a modifier-like field (its raw value).
    Other(u64),
}

/// One operand slot: what it is, its modifiers, and for registers the direction and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operand {
    pub src: Src,
    pub neg: bool,
    pub abs: bool,
    pub not: bool,
    /// The raw value of the slot's other modifier field (`.H1`, `.64`, ...), if it has one.
    pub modifier: Option<u64>,
    pub dir: Dir,
    /// Consecutive registers accessed (2 for a `.64` pair); 0 when unknown.
    pub width: u8,
}

impl Operand {
    pub fn new(src: Src, dir: Dir, width: u8) -> Operand {
        Operand { src, neg: false, abs: false, not: false, modifier: None, dir, width }
    }
    pub fn neg(mut self, on: bool) -> Operand {
        self.neg = on;
        self
    }
    pub fn abs(mut self, on: bool) -> Operand {
        self.abs = on;
        self
    }
    pub fn not(mut self, on: bool) -> Operand {
        self.not = on;
        self
    }
    pub fn modifier(mut self, raw: u64) -> Operand {
        self.modifier = Some(raw);
        self
    }

    /// The register this operand names directly, if any.
    pub fn reg(&self) -> Option<Reg> {
        match self.src {
            Src::Reg(r) => Some(r),
            _ => None,
        }
    }
}

/// Whether the modifiers after the mnemonic print `.TOKEN` (the formatter's text, verified against nvdisasm).
pub fn has_modifier(class: ClassId, word: Word, token: &str) -> bool {
    let Ok(inst) = crate::decode(word) else { return false };
    if inst.class() != class {
        return false;
    }
    let text = inst.text(0, TargetStyle::Absolute);
    let head = match text.strip_prefix('@') {
        Some(r) => r.split_once(' ').map_or("", |(_, m)| m),
        None => &text,
    };
    let head = head.split([' ', ';']).next().unwrap_or("");
    head.split('.').skip(1).any(|t| t == token)
}

/// A view the encoder cannot write: an operand of another kind than its class's slot (a register where
/// the class has an immediate, ...), or modifier flags the class's field cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("class {}: operand `{operand}` cannot be encoded as given", class.name())]
pub struct ViewError {
    pub class: ClassId,
    pub operand: &'static str,
}

/// `w` with the field made of `ranges` (`(lo, width)`, first least significant) set to `v`.
#[inline(always)]
pub(crate) fn put(w: u128, ranges: &[(u8, u8)], v: u64) -> u128 {
    let mut w = w;
    let mut shift = 0u32;
    for &(lo, width) in ranges {
        let m = ((1u128 << width) - 1) << lo;
        w = (w & !m) | ((u128::from(v >> shift.min(63)) << lo) & m);
        shift += u32::from(width);
    }
    w
}
