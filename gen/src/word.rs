//! One 128-bit SM86 instruction word and bit-range extraction.

use std::fmt;

/// Bytes per SM86 instruction word.
pub const WORD_BYTES: usize = 16;

/// One 128-bit instruction word, as the 16 little-endian bytes of a `.text` section read.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Word(pub u128);

impl Word {
    /// The word stored in 16 little-endian bytes.
    #[inline]
    pub const fn from_le_bytes(bytes: [u8; WORD_BYTES]) -> Self {
        Word(u128::from_le_bytes(bytes))
    }

    /// The word from its low (bits 63:0) and high (bits 127:64) halves, the order nvdisasm's `-hex` prints.
    #[inline]
    pub const fn from_halves(low: u64, high: u64) -> Self {
        Word(((high as u128) << 64) | low as u128)
    }

    /// The 16 little-endian bytes of the word.
    #[inline]
    pub const fn to_le_bytes(self) -> [u8; WORD_BYTES] {
        self.0.to_le_bytes()
    }

    /// Bits 63:0.
    #[inline]
    pub const fn low(self) -> u64 {
        self.0 as u64
    }

    /// Bits 127:64.
    #[inline]
    pub const fn high(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// `width` bits starting at bit `lo` (`width` at most 64), zero-extended.
    #[inline(always)]
    pub const fn bits(self, lo: u32, width: u32) -> u64 {
        debug_assert!(width >= 1 && width <= 64 && lo + width <= 128);
        ((self.0 >> lo) as u64) & (u64::MAX >> (64 - width))
    }

    /// One bit.
    #[inline(always)]
    pub const fn bit(self, n: u32) -> bool {
        (self.0 >> n) & 1 != 0
    }

    /// `width` bits starting at bit `lo`, sign-extended from the field's top bit.
    #[inline(always)]
    pub const fn signed_bits(self, lo: u32, width: u32) -> i64 {
        let shift = 64 - width;
        ((self.bits(lo, width) << shift) as i64) >> shift
    }

    /// The 13-bit opcode key the decoder dispatches on: bit 91 as bit 12, then bits 11:0.
    #[inline(always)]
    pub const fn opcode_key(self) -> u16 {
        (((self.0 >> 79) as u16) & 0x1000) | (self.0 as u16 & 0x0fff)
    }

    /// The word with `width` bits at `lo` replaced by the low bits of `value`.
    #[inline]
    pub const fn with_bits(self, lo: u32, width: u32, value: u64) -> Self {
        let mask = ((u64::MAX >> (64 - width)) as u128) << lo;
        Word((self.0 & !mask) | (((value as u128) << lo) & mask))
    }
}

impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Word({self})")
    }
}

/// Prints as nvdisasm's `-hex` halves: `0x<low>_<high>` is ambiguous, so the full 32-digit value is printed.
impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:032x}", self.0)
    }
}

impl fmt::LowerHex for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_key_takes_bit_91_as_bit_12() {
        // `UIADD3` has opcode key 0x1290: bits 11:0 = 0x290 and bit 91 set.
        let w = Word::from_halves(0x290, 1 << (91 - 64));
        assert_eq!(w.opcode_key(), 0x1290);
        assert_eq!(Word::from_halves(0xf947, 0).opcode_key(), 0x0947);
    }

    #[test]
    fn fields_extract_across_the_halves() {
        let w = Word::from_halves(0x8000_0000_0000_0000, 0x5);
        assert_eq!(w.bits(63, 3), 0b011);
        assert_eq!(w.signed_bits(63, 3), 3);
        assert_eq!(w.signed_bits(64, 3), -3);
        assert_eq!(w.with_bits(64, 3, 2).high(), 2);
        assert_eq!(w.bits(0, 64), 0x8000_0000_0000_0000);
    }
}
