//! Operand types the generated accessors return, and field descriptions.

use crate::render::Bits;
use crate::word::Word;
use std::fmt;

/// A general-purpose register `R0`..`R254`; 255 is `RZ` (reads zero, writes are dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

/// A uniform register `UR0`..`UR62`; 63 is `URZ`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UReg(pub u8);

/// A predicate register `P0`..`P6`; 7 is `PT` (always true).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pred(pub u8);

/// A uniform predicate `UP0`..`UP6`; 7 is `UPT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UPred(pub u8);

/// A convergence barrier register `B0`..`B15`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Barrier(pub u8);

impl Reg {
    pub const RZ: Reg = Reg(255);
    pub fn is_zero(self) -> bool {
        self == Self::RZ
    }
}
impl UReg {
    pub const URZ: UReg = UReg(63);
    pub fn is_zero(self) -> bool {
        self == Self::URZ
    }
}
impl Pred {
    pub const PT: Pred = Pred(7);
    pub fn is_true(self) -> bool {
        self == Self::PT
    }
}
impl UPred {
    pub const UPT: UPred = UPred(7);
    pub fn is_true(self) -> bool {
        self == Self::UPT
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() { f.write_str("RZ") } else { write!(f, "R{}", self.0) }
    }
}
impl fmt::Display for UReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() { f.write_str("URZ") } else { write!(f, "UR{}", self.0) }
    }
}
impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_true() { f.write_str("PT") } else { write!(f, "P{}", self.0) }
    }
}
impl fmt::Display for UPred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_true() { f.write_str("UPT") } else { write!(f, "UP{}", self.0) }
    }
}
impl fmt::Display for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "B{}", self.0)
    }
}

/// Register files that fields index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    Gpr,
    Uniform,
    Pred,
    UniformPred,
    Barrier,
}

/// What a field is, as the table records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    Register(RegFile),
    Immediate,
    ConstBank,
    ConstOffset,
    BranchTarget,
    Modifier,
    Other,
}

/// One operand or modifier field of a class.
#[derive(Debug, Clone, Copy)]
pub struct FieldInfo {
    /// The table's name for it (`rd`, `ra`, `imm`, ...).
    pub name: &'static str,
    pub bits: Bits,
    pub kind: FieldKind,
}

impl FieldInfo {
    /// The raw field value of `w`.
    pub fn extract(&self, w: Word) -> u64 {
        self.bits.extract(w)
    }
}
