//! Which registers an instruction reads and writes, as nvdisasm's life-range analysis (`nvdisasm -plr`)
//! reports them: the generated `access` module holds each class's rules (the table's `access` lines),
//! this module applies them to a word.
//!
//! A class's rules come in groups, one per register location (bits of the word that hold a register
//! number, or a fixed register such as a call's ABI registers); the first rule of a group whose
//! condition matches decides the location's direction and width, or switches it off. Registers from the
//! file's zero register up (`RZ`, `URZ`, `PT`, `UPT`) are not accesses: `RZ` is never read or written,
//! and a pair at `R254` is `R254` alone.

use crate::operand::RegFile;
use crate::render::Bits;
use crate::word::Word;
use std::fmt;

/// Whether an access reads, writes or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    Read,
    Write,
    /// Read, then written (an accumulator, an atomic's destination that is also a source, ...).
    ReadWrite,
}

impl Direction {
    pub fn reads(self) -> bool {
        matches!(self, Direction::Read | Direction::ReadWrite)
    }

    pub fn writes(self) -> bool {
        matches!(self, Direction::Write | Direction::ReadWrite)
    }

    /// Both directions (a register two operands name).
    pub fn union(self, other: Direction) -> Direction {
        if self == other {
            self
        } else {
            Direction::ReadWrite
        }
    }

    /// nvdisasm's life-range mark: `v` used, `^` assigned, `x` both.
    pub fn mark(self) -> char {
        match self {
            Direction::Read => 'v',
            Direction::Write => '^',
            Direction::ReadWrite => 'x',
        }
    }
}

/// One register operand of one instruction: `count` consecutive registers of `file` from `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegisterAccess {
    pub file: RegFile,
    pub first: u8,
    pub count: u8,
    pub direction: Direction,
}

impl RegisterAccess {
    /// The register numbers accessed.
    pub fn registers(&self) -> impl Iterator<Item = u8> {
        let first = self.first;
        (0..self.count).map(move |i| first + i)
    }
}

impl fmt::Display for RegisterAccess {
    /// `R2:2^` (two registers from `R2`, written), `P0v`, `UR4:2v`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", file_prefix(self.file), self.first)?;
        if self.count != 1 {
            write!(f, ":{}", self.count)?;
        }
        write!(f, "{}", self.direction.mark())
    }
}

/// The register name prefix nvdisasm prints (`R`, `UR`, `P`, `UP`, `B`).
pub fn file_prefix(file: RegFile) -> &'static str {
    match file {
        RegFile::Gpr => "R",
        RegFile::Uniform => "UR",
        RegFile::Pred => "P",
        RegFile::UniformPred => "UP",
        RegFile::Barrier => "B",
    }
}

/// The first register number that is no register (`RZ` 255, `URZ` 63, `PT`/`UPT` 7).
pub fn zero_register(file: RegFile) -> u16 {
    match file {
        RegFile::Gpr => 255,
        RegFile::Uniform => 63,
        RegFile::Pred | RegFile::UniformPred => 7,
        RegFile::Barrier => 16,
    }
}

/// Where a rule's register number comes from.
#[derive(Debug)]
pub(crate) enum Location {
    /// Word bits (complemented within their width when `inverted`).
    Bits(Bits, bool),
    Fixed(u8),
}

/// One `access` line of the table.
#[derive(Debug)]
pub(crate) struct AccessRule {
    pub when_mask: u128,
    pub when_value: u128,
    pub file: RegFile,
    pub location: Location,
    /// `None` switches the location off.
    pub direction: Option<Direction>,
    pub width: u8,
    /// The last rule of its location's group.
    pub group_end: bool,
}

impl AccessRule {
    fn access(&self, w: Word) -> Option<RegisterAccess> {
        let direction = self.direction?;
        let first = match &self.location {
            Location::Fixed(n) => u64::from(*n),
            Location::Bits(bits, inverted) => {
                let v = bits.extract(w);
                if *inverted {
                    v ^ ((1u64 << bits.width) - 1)
                } else {
                    v
                }
            }
        };
        let zero = u64::from(zero_register(self.file));
        if first >= zero {
            return None;
        }
        let count = (zero - first).min(u64::from(self.width)) as u8;
        Some(RegisterAccess { file: self.file, first: first as u8, count, direction })
    }
}

/// The accesses of one word, in the table's order of locations.
#[derive(Debug, Clone)]
pub struct Accesses {
    rules: &'static [AccessRule],
    word: Word,
    next: usize,
}

impl Accesses {
    pub(crate) fn new(rules: &'static [AccessRule], word: Word) -> Accesses {
        Accesses { rules, word, next: 0 }
    }
}

impl Iterator for Accesses {
    type Item = RegisterAccess;

    fn next(&mut self) -> Option<RegisterAccess> {
        while let Some(rule) = self.rules.get(self.next) {
            self.next += 1;
            if self.word.0 & rule.when_mask != rule.when_value {
                continue;
            }
            // This rule decides its location: skip the rest of the group.
            let mut end = rule.group_end;
            while !end {
                end = self.rules.get(self.next).is_none_or(|r| r.group_end);
                self.next += 1;
            }
            if let Some(a) = rule.access(self.word) {
                return Some(a);
            }
        }
        None
    }
}
