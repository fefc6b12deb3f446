//! Which registers an instruction reads and writes, as nvdisasm's life-range analysis (`nvdisasm -plr`)
//! reports them: the generated `access` module holds each class's rules (the table's `access` lines),
//! this module applies them to a word.
//!
//! A class's rules come in groups, one per register location (bits of the word that hold a register
//! number, or a fixed register such as a call's ABI registers); the first rule of a group whose
//! condition matches decides the location's direction and width, or switches it off. Registers from the
//! file's zero register up (`RZ`, `URZ`, `PT`, `UPT`) are not accesses: `RZ` is never read or written,
//! and a pair at `R254` is `R254` alone.
//!
//! Speed: the rules are flat 14-byte records (see [`AccessRule`]) and most classes need none of the
//! group machinery (see [`Accesses`]); decode+accesses runs at about 39 M instructions/s on the corpus
//! mix and 37 M/s on the golden mix (CPU time, `examples/throughput.rs`), against 20 and 16 M/s with
//! 80-byte rules holding slices, a 128-bit condition tested on every rule and an inner loop to skip a
//! decided group.

use crate::generated::access;
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
pub const fn zero_register(file: RegFile) -> u16 {
    match file {
        RegFile::Gpr => 255,
        RegFile::Uniform => 63,
        RegFile::Pred | RegFile::UniformPred => 7,
        RegFile::Barrier => 16,
    }
}

/// Where a rule's register number comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Location {
    /// `((word >> lo) & mask) ^ flip`, in 8 bits: one range of at most 8 bits (`flip` equal to `mask` when
    /// the word stores the number complemented), or a fixed register (`mask` 0, `flip` the number). Every
    /// location of today's table is one of these.
    Byte { lo: u8, mask: u8, flip: u8 },
    /// Word bits of several ranges, or of more than 8 bits: `OTHER_LOCATIONS[index]`, complemented within
    /// their width when inverted. Today's table has none (the variant is kept for tables that do).
    #[allow(dead_code)]
    Other(u16),
}

/// A location's bits as the [`Location::Other`] table holds them.
pub(crate) type OtherLocation = (Bits, bool);

/// A class's run of [`access::RULES`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClassRules {
    pub start: u16,
    pub len: u8,
    /// Every rule matches every word and has a [`Location::Byte`] (so each location has one rule, which
    /// gives an access): the classes of 87% of the corpus's instructions.
    pub plain: bool,
}

/// [`AccessRule::other`] of a rule with a [`Location::Byte`].
const BYTE_LOCATION: u16 = u16::MAX;

/// One `access` line of the table, flattened so that a rule costs a few instructions: the condition an
/// index (most rules have none: index 0, which every word matches), the register number a shift, mask
/// and flip of one half of the word, the zero register and the length of the rest of the group
/// precomputed. 14 bytes (the table's 5767 rules took 80 bytes each before, 461 KB: as much as the
/// level-2 cache of the machine measured).
#[derive(Debug, Clone, Copy)]
pub(crate) struct AccessRule {
    /// The rule applies to words `w` with `w & mask == value`, `(mask, value) = CONDITIONS[condition]`.
    condition: u16,
    /// The index of a [`Location::Other`], or [`BYTE_LOCATION`].
    other: u16,
    /// A [`Location::Byte`]'s number is `((half >> shift) as u8 & mask) ^ flip`, `half` the word's bits
    /// 127:64 when `high`, else 63:0 (its range lies in one half).
    high: bool,
    shift: u8,
    mask: u8,
    flip: u8,
    /// The first register number that is no register ([`zero_register`] of `file`).
    zero: u8,
    width: u8,
    /// How many rules of its location's group follow this one (skipped once this one decides).
    group_rest: u8,
    file: RegFile,
    /// `None` switches the location off.
    direction: Option<Direction>,
}

impl AccessRule {
    /// `direction` `None` switches the location off. A `Location::Byte` range must lie in one half of
    /// the word (bits 63:0 or 127:64).
    pub(crate) const fn new(
        condition: u16,
        location: Location,
        file: RegFile,
        direction: Option<Direction>,
        width: u8,
        group_rest: u8,
    ) -> AccessRule {
        let (other, high, shift, mask, flip) = match location {
            Location::Byte { lo, mask, flip } => (BYTE_LOCATION, lo >= 64, lo % 64, mask, flip),
            Location::Other(index) => (index, false, 0, 0, 0),
        };
        let zero = zero_register(file) as u8;
        AccessRule { condition, other, high, shift, mask, flip, zero, width, group_rest, file, direction }
    }

    /// The register number of a [`Location::Byte`].
    #[inline(always)]
    fn byte_register(&self, w: Word) -> u8 {
        let half = if self.high { w.high() } else { w.low() };
        ((half >> (self.shift & 63)) as u8 & self.mask) ^ self.flip
    }

    /// The register number of any location; past a byte, `u8::MAX` (above every file's zero register).
    #[inline(always)]
    fn register(&self, w: Word) -> u8 {
        if self.other == BYTE_LOCATION {
            return self.byte_register(w);
        }
        match access::OTHER_LOCATIONS.get(usize::from(self.other)) {
            Some((bits, inverted)) => {
                let mut v = bits.extract(w);
                if *inverted {
                    v ^= u64::MAX.checked_shr(64 - u32::from(bits.width)).unwrap_or(0);
                }
                u8::try_from(v).unwrap_or(u8::MAX)
            }
            None => u8::MAX,
        }
    }

    /// The access to register `first` (below the zero register) in `direction`: a pair at `R254` is
    /// `R254` alone.
    #[inline(always)]
    fn access(&self, first: u8, direction: Direction) -> RegisterAccess {
        RegisterAccess { file: self.file, first, count: (self.zero - first).min(self.width), direction }
    }
}

/// The accesses of one word, in the table's order of locations, worked out as they are asked for.
///
/// Classes whose rules all hold for every word (most of real code: one rule per location, no condition
/// to test) take a short path. The iterator is a few scalars, which stay in registers once inlined.
/// Measured and dropped: working out all accesses up front without a branch on the word (flags for
/// "decides" and "below the zero register", the accesses gathered into an array or as a bit per
/// location) spares the mispredicted branch at `RZ` operands but costs more instructions than it saves
/// (20 to 30 M/s on the corpus mix against 39), and an array in the iterator cost a failed
/// store-to-load forwarding whenever the iterator was moved.
#[derive(Debug, Clone)]
pub struct Accesses {
    word: Word,
    /// The rules still to apply.
    rules: &'static [AccessRule],
    plain: bool,
}

impl Accesses {
    #[inline(always)]
    pub(crate) fn new(class: ClassRules, w: Word) -> Accesses {
        let start = usize::from(class.start);
        let rules = access::RULES.get(start..start + usize::from(class.len)).unwrap_or(&[]);
        Accesses { word: w, rules, plain: class.plain }
    }
}

impl Iterator for Accesses {
    type Item = RegisterAccess;

    #[inline]
    fn next(&mut self) -> Option<RegisterAccess> {
        let w = self.word;
        if self.plain {
            // One rule per location, which decides it and gives an access.
            while let Some((rule, rest)) = self.rules.split_first() {
                self.rules = rest;
                let first = rule.byte_register(w);
                if first < rule.zero {
                    return Some(rule.access(first, rule.direction.unwrap_or(Direction::Read)));
                }
            }
            return None;
        }
        while let Some((rule, rest)) = self.rules.split_first() {
            // An index past the table (there is none) matches no word.
            let (mask, value) = access::CONDITIONS.get(usize::from(rule.condition)).copied().unwrap_or((0, 1));
            if w.0 & mask != value {
                self.rules = rest;
                continue;
            }
            // This rule decides its location: skip the rest of the group.
            self.rules = rest.get(usize::from(rule.group_rest)..).unwrap_or(&[]);
            let Some(direction) = rule.direction else { continue };
            let first = rule.register(w);
            if first < rule.zero {
                return Some(rule.access(first, direction));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_locations_read_any_range_within_a_half() {
        let w = Word(0xfedc_ba98_7654_3210_0123_4567_89ab_cdef);
        for lo in 0..128u8 {
            for width in 1..=8u8 {
                if lo % 64 + width > 64 {
                    continue;
                }
                let mask = ((1u16 << width) - 1) as u8;
                for flip in [0, mask] {
                    let rule = AccessRule::new(0, Location::Byte { lo, mask, flip }, RegFile::Gpr, None, 1, 0);
                    let expected = w.bits(u32::from(lo), u32::from(width)) ^ u64::from(flip);
                    assert_eq!(u64::from(rule.register(w)), expected, "{lo} {width}");
                }
            }
        }
    }
}
