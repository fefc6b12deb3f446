//! The scheduling ("control") bits of a word and their text form.
//!
//! nvdisasm never prints them (only `.reuse`), so `sassport dis --control` appends them to each line and
//! `sassport asm` reads them back. Bits (SM70+ layout, checked against the probe and public encoders):
//! stall count 108:105, yield 109, write scoreboard 112:110, read scoreboard 115:113, wait mask 121:116,
//! operand reuse 125:122. The text form, modelled on the public CuAssembler's, is one bracket:
//!
//! ```text
//! [B0-2---:R-:W1:Y:S04:U----]
//! ```
//!
//! * `B` and six places: wait-mask bit *i* set prints digit *i*, clear prints `-`.
//! * `R`, `W`: the read and write scoreboard, a digit `0`..`6`, `-` for 7 (none).
//! * `Y` when bit 109 is set, `-` when clear (the raw bit, whatever the scheduler makes of it).
//! * `S` and two decimal digits: the stall count, 0 to 15.
//! * `U` and four places: reuse bit *i* (bit 122 + *i*) set prints digit *i*, clear prints `-`.
//! * Optionally `:X0x…`: bits of the word that neither the text nor the fields above pin down (nvdisasm
//!   ignores them, or two encodings print alike), XORed into the assembled word; `dis --control` prints it
//!   only when it is not zero.

use std::fmt;

/// Bits 125:105, all that [`Control`] holds.
pub const CONTROL_MASK: u128 = ((1u128 << 21) - 1) << 105;

/// The scheduling bits of one word, raw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Control {
    /// Stall count, bits 108:105 (0..=15).
    pub stall: u8,
    /// Bit 109.
    pub yield_bit: bool,
    /// Write scoreboard, bits 112:110 (7: none).
    pub write_barrier: u8,
    /// Read scoreboard, bits 115:113 (7: none).
    pub read_barrier: u8,
    /// Scoreboards waited on, bits 121:116.
    pub wait_mask: u8,
    /// Operand reuse flags, bits 125:122.
    pub reuse: u8,
}

/// A control text that is not in the documented form; `column` counts characters from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("control bits {text:?}, column {column}: {what}")]
pub struct ControlError {
    pub text: String,
    pub column: usize,
    pub what: &'static str,
}

impl Control {
    /// The control bits of `word`.
    pub fn of(word: u128) -> Control {
        let bits = |lo: u32, width: u32| ((word >> lo) & ((1u128 << width) - 1)) as u8;
        Control {
            stall: bits(105, 4),
            yield_bit: bits(109, 1) != 0,
            write_barrier: bits(110, 3),
            read_barrier: bits(113, 3),
            wait_mask: bits(116, 6),
            reuse: bits(122, 4),
        }
    }

    /// The bits as they sit in a word (only bits 125:105 set).
    pub fn bits(self) -> u128 {
        (u128::from(self.stall & 0xf) << 105)
            | (u128::from(self.yield_bit) << 109)
            | (u128::from(self.write_barrier & 7) << 110)
            | (u128::from(self.read_barrier & 7) << 113)
            | (u128::from(self.wait_mask & 0x3f) << 116)
            | (u128::from(self.reuse & 0xf) << 122)
    }

    /// Parses the bracket form (see the module doc); returns the control bits and the `X` residue.
    pub fn parse(text: &str) -> Result<(Control, u128), ControlError> {
        let fail = |column: usize, what: &'static str| ControlError { text: text.to_owned(), column, what };
        let b = text.as_bytes();
        let expect = |at: usize, c: u8, what: &'static str| if b.get(at) == Some(&c) { Ok(()) } else { Err(fail(at + 1, what)) };
        expect(0, b'[', "expected `[`")?;
        expect(1, b'B', "expected `B` (wait mask)")?;
        let mut wait_mask = 0u8;
        for i in 0..6 {
            match b.get(2 + i) {
                Some(b'-') => {}
                Some(&c) if c == b'0' + i as u8 => wait_mask |= 1 << i,
                _ => return Err(fail(3 + i, "expected the wait-mask digit of this place or `-`")),
            }
        }
        expect(8, b':', "expected `:`")?;
        expect(9, b'R', "expected `R` (read scoreboard)")?;
        let barrier = |at: usize| match b.get(at) {
            Some(b'-') => Ok(7u8),
            Some(&c @ b'0'..=b'6') => Ok(c - b'0'),
            _ => Err(fail(at + 1, "expected a scoreboard 0-6 or `-`")),
        };
        let read_barrier = barrier(10)?;
        expect(11, b':', "expected `:`")?;
        expect(12, b'W', "expected `W` (write scoreboard)")?;
        let write_barrier = barrier(13)?;
        expect(14, b':', "expected `:`")?;
        let yield_bit = match b.get(15) {
            Some(b'Y') => true,
            Some(b'-') => false,
            _ => return Err(fail(16, "expected `Y` or `-` (yield bit)")),
        };
        expect(16, b':', "expected `:`")?;
        expect(17, b'S', "expected `S` (stall count)")?;
        let stall = match (b.get(18), b.get(19)) {
            (Some(&t @ b'0'..=b'1'), Some(&u @ b'0'..=b'9')) if (t - b'0') * 10 + (u - b'0') <= 15 => (t - b'0') * 10 + (u - b'0'),
            _ => return Err(fail(19, "expected a two-digit stall count 00-15")),
        };
        expect(20, b':', "expected `:`")?;
        expect(21, b'U', "expected `U` (reuse flags)")?;
        let mut reuse = 0u8;
        for i in 0..4 {
            match b.get(22 + i) {
                Some(b'-') => {}
                Some(&c) if c == b'0' + i as u8 => reuse |= 1 << i,
                _ => return Err(fail(23 + i, "expected the reuse digit of this place or `-`")),
            }
        }
        let mut residue = 0u128;
        let mut at = 26;
        if b.get(at) == Some(&b':') {
            if b.get(at + 1..at + 4) != Some(b"X0x") {
                return Err(fail(at + 2, "expected `X0x` (residue bits)"));
            }
            let start = at + 4;
            let end = start + b[start..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
            if end == start || end - start > 32 {
                return Err(fail(start + 1, "expected 1 to 32 hex digits"));
            }
            residue = u128::from_str_radix(&text[start..end], 16).map_err(|_| fail(start + 1, "bad hex number"))?;
            at = end;
        }
        expect(at, b']', "expected `]`")?;
        if at + 1 != b.len() {
            return Err(fail(at + 2, "text after `]`"));
        }
        Ok((Control { stall, yield_bit, write_barrier, read_barrier, wait_mask, reuse }, residue))
    }
}

/// The bracket form without a residue.
impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = [0u8; 26];
        s[..2].copy_from_slice(b"[B");
        for i in 0..6 {
            s[2 + i] = if self.wait_mask >> i & 1 != 0 { b'0' + i as u8 } else { b'-' };
        }
        let barrier = |b: u8| if b & 7 == 7 { b'-' } else { b'0' + (b & 7) };
        s[8..12].copy_from_slice(&[b':', b'R', barrier(self.read_barrier), b':']);
        s[12..17].copy_from_slice(&[b'W', barrier(self.write_barrier), b':', if self.yield_bit { b'Y' } else { b'-' }, b':']);
        let stall = self.stall & 0xf;
        s[17..22].copy_from_slice(&[b'S', b'0' + stall / 10, b'0' + stall % 10, b':', b'U']);
        for i in 0..4 {
            s[22 + i] = if self.reuse >> i & 1 != 0 { b'0' + i as u8 } else { b'-' };
        }
        // All ASCII by construction.
        f.write_str(std::str::from_utf8(&s).map_err(|_| fmt::Error)?)?;
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_value_prints_and_parses_back() {
        for bits in (0u32..1 << 21).step_by(7) {
            let word = u128::from(bits) << 105;
            let c = Control::of(word);
            assert_eq!(c.bits(), word);
            let text = c.to_string();
            // A scoreboard value 7 prints `-`; the parse gives 7 back.
            assert_eq!(Control::parse(&text), Ok((c, 0)), "{text}");
        }
        let (c, x) = Control::parse("[B0-2--5:R-:W1:Y:S04:U-1--:X0x30]").unwrap();
        assert_eq!((c.wait_mask, c.read_barrier, c.write_barrier, c.yield_bit, c.stall, c.reuse, x), (0b100101, 7, 1, true, 4, 2, 0x30));
    }

    #[test]
    fn malformed_control_names_the_column() {
        let e = Control::parse("[B------:R-:W-:Y:S16:U----]").unwrap_err();
        assert_eq!(e.column, 19);
        let e = Control::parse("[B1-----:R-:W-:Y:S01:U----]").unwrap_err();
        assert_eq!(e.column, 3);
        assert!(Control::parse("[B------:R-:W-:Y:S01:U----] x").is_err());
        assert!(Control::parse("[B------:R7:W-:Y:S01:U----]").is_err());
    }
}
