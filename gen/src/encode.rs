//! Text → word: the formatter's templates read backwards.
//!
//! An instruction's text (nvdisasm `-raw` syntax, as [`crate::Instruction::write_text`] prints it with
//! [`TargetStyle::Absolute`]) and its [`Control`] bits give the word. The encoder walks the same generated
//! templates the formatter prints from: for each class with the text's mnemonic and each of its print
//! variants, it matches the pieces against the text left to right, each table piece trying the values whose
//! text is there, each number piece parsing its number back into the raw field, while every choice must
//! agree with the bits known so far (the class's fixed bits, the control bits, fields already matched). A
//! complete match is accepted only if the word it builds decodes to that class and prints exactly the text
//! again, so whatever the encoder returns is a word the decoder (verified against nvdisasm) prints as
//! asked. Bits that neither the text nor the control bits pin down are taken from the class's first golden
//! word (`FILL`, generated), else left zero.

use crate::classify::variant_conditions;
use crate::generated::decode::CANDIDATES;
use crate::control::{Control, CONTROL_MASK};
use crate::generated::classes::ClassId;
use crate::generated::format::{FORMAT, TEMPLATES};
use crate::generated::views::FILL;
use crate::instruction::decode;
use crate::render::{FieldLayout, NumberFormat, NumberRule, Piece, PieceKind, Span, TargetStyle, NO_TEXT};
use crate::word::Word;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Why a text could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{text:?}: no instruction class prints the mnemonic {mnemonic:?}")]
    UnknownMnemonic { text: String, mnemonic: String },
    #[error("{text:?}: no word of the {mnemonic} classes prints this text")]
    NoMatch { text: String, mnemonic: String },
    #[error("{text:?}: gave up after {steps} matching steps")]
    TooComplex { text: String, steps: u32 },
}

/// Matching steps one text may take before the encoder gives up (real code takes well under a thousand).
const STEP_LIMIT: u32 = 1_000_000;

/// Encodes one instruction `text` lying at `address` with the scheduling bits `control`.
pub fn encode_text(text: &str, address: u64, control: Control) -> Result<Word, EncodeError> {
    encode_text_with(text, address, control, CONTROL_MASK)
}

/// [`encode_text`] taking only the control bits under `known` (a subset of [`CONTROL_MASK`]) from
/// `control`; the text decides the others (the reuse bits by its `.reuse` flags, say).
pub fn encode_text_with(text: &str, address: u64, control: Control, known: u128) -> Result<Word, EncodeError> {
    let known_control = known & CONTROL_MASK;
    let mnemonic = mnemonic_of(text);
    let classes = classes_by_mnemonic().get(mnemonic).filter(|_| !mnemonic.is_empty()).ok_or_else(|| {
        EncodeError::UnknownMnemonic { text: text.to_owned(), mnemonic: mnemonic.to_owned() }
    })?;
    let mut search = Search { text: text.as_bytes(), address, steps: 0, class: ClassId::ALL[0], want: text };
    for &(class, fixed) in classes {
        search.class = class;
        let known = Known { mask: fixed.0 | known_control, value: fixed.1 | (control.bits() & known_control) };
        for (variant, pieces) in TEMPLATES.get(class as usize).copied().unwrap_or(&[]).iter().enumerate() {
            // The bits that select this print variant (a field the text does not show, say).
            for (mask, value) in variant_conditions(class, variant as u8) {
                if (known.value ^ value) & known.mask & mask != 0 {
                    continue;
                }
                let start = Known { mask: known.mask | mask, value: known.value | value };
                if let Some(word) = search.go(pieces, 0, start) {
                    return Ok(Word(word));
                }
            }
            if search.steps > STEP_LIMIT {
                return Err(EncodeError::TooComplex { text: text.to_owned(), steps: search.steps });
            }
        }
    }
    Err(EncodeError::NoMatch { text: text.to_owned(), mnemonic: mnemonic.to_owned() })
}

/// The mnemonic of an instruction text: after the guard (`@P0 `, `@!PT `), up to a `.`, space or `;`.
fn mnemonic_of(text: &str) -> &str {
    let rest = match text.strip_prefix('@') {
        Some(r) => r.split_once(' ').map_or("", |(_, m)| m),
        None => text,
    };
    let end = rest.find(['.', ' ', ';']).unwrap_or(rest.len());
    &rest[..end]
}

/// Each mnemonic's classes in decode order, with each class's fixed bits (mask, value), opcode included.
/// A class whose variants decode through several candidates appears once per candidate.
fn classes_by_mnemonic() -> &'static HashMap<&'static str, Vec<(ClassId, (u128, u128))>> {
    static MAP: OnceLock<HashMap<&'static str, Vec<(ClassId, (u128, u128))>>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map: HashMap<&'static str, Vec<(ClassId, (u128, u128))>> = HashMap::new();
        for c in CANDIDATES.iter().filter(|c| c.gate == 0) {
            let key = c.class.opcode();
            let opcode_mask = (1u128 << 91) | 0xfff;
            let opcode_value = (u128::from(key >> 12 & 1) << 91) | u128::from(key & 0xfff);
            map.entry(c.class.mnemonic()).or_default().push((c.class, (c.mask | opcode_mask, c.value | opcode_value)));
        }
        map
    })
}

/// Bits decided so far.
#[derive(Debug, Clone, Copy)]
struct Known {
    mask: u128,
    value: u128,
}

impl Known {
    /// `self` with the field at `layout` set to `v`, or `None` when that contradicts a known bit (or `v`
    /// does not fit the field).
    fn with(self, layout: FieldLayout, v: u64) -> Option<Known> {
        let (fmask, fbits) = scatter(layout, v)?;
        ((self.value ^ fbits) & self.mask & fmask == 0).then_some(Known { mask: self.mask | fmask, value: self.value | fbits })
    }
}

/// The field's bits as a mask, and `v` placed in them; `None` when `v` is wider than the field.
fn scatter(layout: FieldLayout, v: u64) -> Option<(u128, u128)> {
    let one;
    let ranges: &[(u8, u8)] = match layout {
        FieldLayout::One(lo, width) => {
            one = [(lo, width)];
            &one
        }
        FieldLayout::Many(r) => r,
    };
    let (mut mask, mut bits, mut shift) = (0u128, 0u128, 0u32);
    for &(lo, width) in ranges {
        let m = ((1u128 << width) - 1) << lo;
        mask |= m;
        bits |= ((u128::from(v) >> shift) << lo) & m;
        shift += u32::from(width);
    }
    (shift >= 64 || v >> shift == 0).then_some((mask, bits))
}

/// The field's value in `w` and its width.
fn gather(layout: FieldLayout, w: u128) -> (u64, u32) {
    match layout {
        FieldLayout::One(lo, width) => (((w >> lo) & ((1u128 << width) - 1)) as u64, u32::from(width)),
        FieldLayout::Many(ranges) => {
            let (mut v, mut shift) = (0u64, 0u32);
            for &(lo, width) in ranges {
                v |= (((w >> lo) & ((1u128 << width) - 1)) as u64) << shift;
                shift += u32::from(width);
            }
            (v, shift)
        }
    }
}

fn span_text(span: Span) -> &'static [u8] {
    let (start, len) = ((span >> 8) as usize, (span & 0xff) as usize);
    FORMAT.pool.as_bytes().get(start..start + len).unwrap_or(&[])
}

struct Search<'a> {
    text: &'a [u8],
    address: u64,
    steps: u32,
    class: ClassId,
    want: &'a str,
}

impl Search<'_> {
    /// Matches `pieces[i..]` against the text from `pos`; the first word that decodes and prints the text.
    fn go(&mut self, pieces: &[Piece], pos: usize, known: Known) -> Option<u128> {
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return None;
        }
        let Some(piece) = pieces.first() else {
            if pos != self.text.len() {
                return None;
            }
            // Open bits as in the class's first golden word (nvcc's output where the probe had some: it
            // writes PT and RZ into operands the text does not show), else zero.
            let fill = FILL.get(self.class as usize).copied().unwrap_or(0) & !known.mask;
            return [known.value | fill, known.value].into_iter().find(|&w| self.accepts(w));
        };
        let rest = &pieces[1..];
        match piece.kind {
            PieceKind::Text => {
                let t = span_text(piece.arg);
                self.text[pos..].starts_with(t).then(|| self.go(rest, pos + t.len(), known)).flatten()
            }
            PieceKind::Table => self.table(piece, rest, pos, known),
            PieceKind::Number => self.number(piece, rest, pos, known),
        }
    }

    /// Whether `word` decodes as the class being tried and prints exactly the wanted text.
    fn accepts(&self, word: u128) -> bool {
        decode(Word(word)).is_ok_and(|inst| inst.class() == self.class && inst.text(self.address, TargetStyle::Absolute) == self.want)
    }

    fn table(&mut self, piece: &Piece, rest: &[Piece], pos: usize, known: Known) -> Option<u128> {
        let table = FORMAT.tables.get(piece.arg as usize)?;
        let layout = piece.field.layout(FORMAT.fields);
        let here = &self.text[pos..];
        for (i, &span) in table.spans.iter().enumerate() {
            let value = match table.keys {
                Some(keys) => *keys.get(i)?,
                None => i as u64,
            };
            if span == NO_TEXT || !here.starts_with(span_text(span)) {
                continue;
            }
            if let Some(k) = known.with(layout, value) {
                if let Some(w) = self.go(rest, pos + span_text(span).len(), k) {
                    return Some(w);
                }
            }
        }
        // Values with no entry print the default: try those that agree with the known bits.
        if table.default != NO_TEXT && here.starts_with(span_text(table.default)) {
            let (fmask, _) = scatter(layout, 0)?;
            let (known_part, width) = gather(layout, known.value & known.mask);
            let (unknown, _) = gather(layout, !known.mask & fmask);
            let free = unknown.count_ones();
            for combo in 0..(1u64 << free.min(8)) {
                let value = known_part | deposit(combo, unknown);
                if width < 64 && value >> width != 0 || table.get(value) != table.default {
                    continue;
                }
                if let Some(w) = known.with(layout, value).and_then(|k| self.go(rest, pos + span_text(table.default).len(), k)) {
                    return Some(w);
                }
            }
        }
        None
    }

    fn number(&mut self, piece: &Piece, rest: &[Piece], pos: usize, known: Known) -> Option<u128> {
        let rule = FORMAT.rules.get(piece.arg as usize)?;
        let layout = piece.field.layout(FORMAT.fields);
        let (_, width) = gather(layout, 0);
        let here = &self.text[pos..];
        for &(value, span) in rule.specials {
            if here.starts_with(span_text(span)) {
                if let Some(w) = known.with(layout, value).and_then(|k| self.go(rest, pos + span_text(span).len(), k)) {
                    return Some(w);
                }
            }
        }
        let prefix = span_text(rule.prefix);
        let at = pos + prefix.len();
        if !here.starts_with(prefix) {
            return None;
        }
        let (n, used) = parse_number(&self.text[at..], rule.format)?;
        let raw = raw_value(rule, n, width, self.address)?;
        let after = at + used;
        let suffix = span_text(rule.suffix);
        if !self.text[after..].starts_with(suffix) {
            return None;
        }
        known.with(layout, raw).and_then(|k| self.go(rest, after + suffix.len(), k))
    }
}

/// The bits of `bits` placed at the set bits of `mask` (a software `pdep`).
fn deposit(bits: u64, mask: u64) -> u64 {
    let (mut out, mut m, mut i) = (0u64, mask, 0u32);
    while m != 0 {
        let low = m & m.wrapping_neg();
        if bits >> i & 1 != 0 {
            out |= low;
        }
        m &= m - 1;
        i += 1;
    }
    out
}

/// The field's raw value for the printed number `n` (the inverse of [`NumberRule`]'s steps), if it fits.
fn raw_value(rule: &NumberRule, n: i128, width: u32, address: u64) -> Option<u64> {
    let mut n = n;
    if rule.pc_relative {
        n = i128::from((n as u64).wrapping_sub(address).wrapping_sub(16) as i64);
    }
    let shift = u32::from(rule.shift);
    if n & ((1i128 << shift) - 1) != 0 {
        return None;
    }
    n >>= shift;
    let width = width.min(64);
    let fits = if rule.signed {
        let half = 1i128 << (width - 1);
        (-half..half).contains(&n)
    } else {
        // Printed as an unsigned 64-bit number (hex) or a non-negative one; a 64-bit field may hold any.
        (0..(1i128 << width)).contains(&n) || (width == 64 && n < 0 && n >= i128::from(i64::MIN))
    };
    fits.then(|| (n as u64) & u64::MAX.checked_shr(64 - width).unwrap_or(0))
}

/// A number in `format` at the start of `s`: its value (an integer, or a float's bits) and the bytes it
/// took. Hex prints `n` as an unsigned 64-bit number, so `0xffffffffffffffff` comes back as -1.
fn parse_number(s: &[u8], format: NumberFormat) -> Option<(i128, usize)> {
    let hex_at = |s: &[u8], at: usize| -> Option<(i128, usize)> {
        let digits = s.get(at..)?.iter().take_while(|c| c.is_ascii_hexdigit()).count();
        if digits == 0 || digits > 16 {
            return None;
        }
        let v = u64::from_str_radix(std::str::from_utf8(&s[at..at + digits]).ok()?, 16).ok()?;
        Some((i128::from(v), at + digits))
    };
    match format {
        NumberFormat::Dec => {
            let neg = s.first() == Some(&b'-');
            let start = usize::from(neg);
            let digits = s.get(start..)?.iter().take_while(|c| c.is_ascii_digit()).count();
            let v: i128 = std::str::from_utf8(s.get(start..start + digits)?).ok()?.parse().ok()?;
            (digits > 0).then_some((if neg { -v } else { v }, start + digits))
        }
        NumberFormat::Hex => {
            let (v, used) = if s.starts_with(b"0x") { hex_at(s, 2)? } else { return None };
            Some((i128::from(v as u64 as i64), used))
        }
        NumberFormat::SignedHex | NumberFormat::OffsetHex => {
            let (neg, at) = match s {
                [b'-', b'0', b'x', ..] => (true, 3),
                [b'+', b'0', b'x', ..] if format == NumberFormat::OffsetHex => (false, 3),
                [b'0', b'x', ..] if format == NumberFormat::SignedHex => (false, 2),
                // An offset of zero prints nothing.
                _ if format == NumberFormat::OffsetHex => return Some((0, 0)),
                _ => return None,
            };
            let (v, used) = hex_at(s, at)?;
            Some((if neg { -v } else { v }, used))
        }
        NumberFormat::F32 | NumberFormat::F64Hi | NumberFormat::F16 | NumberFormat::F64 => parse_float(s, format),
    }
}

/// A float as the formatter prints it (`%.20g`-like digits, `-0.0`, `+INF `, `-QNAN `, ...), as bits of
/// the format's width (F64Hi: the high half). NaN payloads do not print: a NaN comes back as the quiet
/// or signalling NaN with the smallest payload.
fn parse_float(s: &[u8], format: NumberFormat) -> Option<(i128, usize)> {
    let (sign_bit, exp_bits, frac_bits): (u32, u32, u32) = match format {
        NumberFormat::F16 => (15, 5, 10),
        NumberFormat::F32 => (31, 8, 23),
        _ => (63, 11, 52),
    };
    let special = |word: &[u8], neg: bool| -> Option<u64> {
        let inf = ((1u64 << exp_bits) - 1) << frac_bits;
        let bits = match word {
            b"INF " => inf,
            b"QNAN " => inf | 1 << (frac_bits - 1),
            b"SNAN " => inf | 1,
            _ => return None,
        };
        Some(bits | u64::from(neg) << sign_bit)
    };
    let named = match (s.first(), s.get(1..)) {
        (Some(&c @ (b'+' | b'-')), Some(word)) => {
            [&b"INF "[..], b"QNAN ", b"SNAN "].iter().find(|w| word.starts_with(w)).and_then(|w| Some((special(w, c == b'-')?, w.len() + 1)))
        }
        _ => None,
    };
    let (bits, used) = match named {
        Some(found) => found,
        None => {
            let mut len = s.iter().take_while(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')).count();
            // A `.` before a letter starts a suffix (`1.5.H1`), not a fraction.
            if len > 0 && s[len - 1] == b'.' && s.get(len).is_some_and(u8::is_ascii_alphabetic) {
                len -= 1;
            }
            let text = std::str::from_utf8(&s[..len]).ok()?;
            let v: f64 = text.parse().ok()?;
            let bits = match format {
                NumberFormat::F16 => f64_to_f16(v)?,
                NumberFormat::F32 => u64::from((v as f32).to_bits()),
                _ => v.to_bits(),
            };
            // Negative zero prints `-0.0 `, with a space.
            let len = if v == 0.0 && v.is_sign_negative() && s.get(len) == Some(&b' ') { len + 1 } else { len };
            (bits, len)
        }
    };
    let bits = if format == NumberFormat::F64Hi {
        if bits & 0xffff_ffff != 0 {
            return None;
        }
        bits >> 32
    } else {
        bits
    };
    Some((i128::from(bits), used))
}

/// The binary16 bits of `v`, when `v` is exactly a binary16 value.
fn f64_to_f16(v: f64) -> Option<u64> {
    let sign = u64::from(v.is_sign_negative()) << 15;
    let a = v.abs();
    if a == 0.0 {
        return Some(sign);
    }
    let bits = a.to_bits();
    let exp = (bits >> 52) as i64 - 1023;
    let mant = bits & ((1 << 52) - 1);
    let out = if exp < -14 {
        // Subnormal: a multiple of 2^-24.
        let m = a * (1u64 << 24) as f64;
        (m.fract() == 0.0 && m < 1024.0).then_some(m as u64)?
    } else if exp <= 15 && mant & ((1 << 42) - 1) == 0 {
        (((exp + 15) as u64) << 10) | (mant >> 42)
    } else {
        return None;
    };
    Some(sign | out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_words_nvcc_writes() {
        // Words and texts as nvdisasm 13.5.37 prints them (golden pairs of the table).
        let cases: [(u128, &str); 3] = [
            (0x000fc400078e0000000000ffff027224, "IMAD.MOV.U32 R2, RZ, RZ, R0 ;"),
            (0x000fea0003800000000000000000794d, "EXIT ;"),
            (0x00005a0006027625_u128 | (0x000fc800078e0207_u128 << 64), "IMAD.WIDE R2, R6, R7, c[0x0][0x168] ;"),
        ];
        for (word, text) in cases {
            let got = encode_text(text, 0, Control::of(word)).unwrap();
            assert_eq!(got.0, word, "{text}");
        }
    }

    #[test]
    fn refuses_unknown_text_by_name() {
        assert!(matches!(encode_text("FROB R1 ;", 0, Control::default()), Err(EncodeError::UnknownMnemonic { .. })));
        assert!(matches!(encode_text("EXIT R1 ;", 0, Control::default()), Err(EncodeError::NoMatch { .. })));
    }

    #[test]
    fn halves_come_back() {
        for b in [0u64, 0x3c00, 0x8000, 0x0001, 0x03ff, 0x7bff, 0xc000] {
            let mut s = String::new();
            crate::float::write_float(&mut s, crate::float::FloatBits::F16(b as u16)).unwrap();
            assert_eq!(parse_float(s.as_bytes(), NumberFormat::F16).map(|x| x.0 as u64), Some(b), "{s}");
        }
    }
}
