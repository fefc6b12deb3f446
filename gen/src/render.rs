//! The print-template interpreter behind the generated formatter.
//!
//! Each class variant's template is a static slice of [`Piece`]s generated from the table; printing walks
//! it. Keeping templates as data (not one generated function per class) keeps the generated crate quick to
//! compile, and the loop is short enough to print millions of instructions a second.
//!
//! The formatter's time goes per piece, so the data is laid out for few, small pieces: a piece is 8 bytes
//! (a text's span, or a field with the index of its table or number rule), the generator folds the texts
//! around a number or small table into that field's texts, and every text is a span of one pool, whose
//! frequently printed texts come first. The line is gathered in a stack buffer and handed to the writer
//! once.

use crate::float::{write_float, FloatBits};
use crate::word::Word;
use std::fmt::{self, Write};

/// Where a field's bits are: `(lo, width)` ranges, the first least significant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits {
    pub ranges: &'static [(u8, u8)],
    /// Total width in bits (at most 64).
    pub width: u8,
}

impl Bits {
    /// The field's value in `w`.
    #[inline(always)]
    pub fn extract(&self, w: Word) -> u64 {
        if let [(lo, width)] = self.ranges {
            return w.bits(u32::from(*lo), u32::from(*width));
        }
        let mut v = 0u64;
        let mut shift = 0u32;
        for &(lo, width) in self.ranges {
            v |= w.bits(u32::from(lo), u32::from(width)) << shift;
            shift += u32::from(width);
        }
        v
    }
}

/// Whether `value` lies in one of the sorted, disjoint inclusive `ranges` (legality tables too large to
/// inline in the decoder).
#[inline]
pub fn in_ranges(ranges: &[(u64, u64)], value: u64) -> bool {
    let i = ranges.partition_point(|r| r.1 < value);
    ranges.get(i).is_some_and(|r| r.0 <= value)
}

/// Where a text lies in the pool: its byte offset in bits 31:8, its length in bits 7:0.
pub type Span = u32;
/// A table value without a text.
pub const NO_TEXT: Span = u32::MAX;

/// Everything the templates refer to by number: the text pool, multi-range fields, tables, number rules.
#[derive(Debug)]
pub struct Format {
    /// Every text the formatter prints, concatenated; pieces, tables and rules name theirs by [`Span`].
    pub pool: &'static str,
    pub fields: &'static [Bits],
    pub tables: &'static [Table],
    pub rules: &'static [NumberRule],
}

/// Field value → text: a text per listed value, else the default (values with neither were refused by the
/// decoder).
#[derive(Debug)]
pub struct Table {
    /// Sorted values, parallel to `spans`; `None` when `spans` is indexed by the value itself.
    pub keys: Option<&'static [u64]>,
    /// Texts; [`NO_TEXT`] marks a value with no entry.
    pub spans: &'static [Span],
    /// The text of values without an entry, or [`NO_TEXT`].
    pub default: Span,
}

impl Table {
    #[inline(always)]
    fn get(&self, value: u64) -> Span {
        let slot = match self.keys {
            None => usize::try_from(value).ok(),
            Some(keys) => keys.binary_search(&value).ok(),
        };
        match slot.and_then(|i| self.spans.get(i)) {
            Some(&span) if span != NO_TEXT => span,
            _ => self.default,
        }
    }
}

#[allow(dead_code)]
/// Number formats nvdisasm uses; see `sassport_isa::NumberFormat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberFormat {
    Dec,
    Hex,
    SignedHex,
    OffsetHex,
    F32,
    F64Hi,
    F16,
    F64,
}

/// A number printed by rule; see `sassport_isa::NumberRule`.
#[derive(Debug)]
pub struct NumberRule {
    pub format: NumberFormat,
    pub signed: bool,
    pub shift: u8,
    pub pc_relative: bool,
    pub prefix: Span,
    pub suffix: Span,
    /// Values printed as fixed text instead (sorted by value). Illegal values never reach the formatter.
    pub specials: &'static [(u64, Span)],
}

/// The bits a piece prints: one range held in place (bits 13:7 its lowest bit, 6:0 its width), or with
/// bit 15 set, the index of a [`Bits`] in [`Format::fields`] (fields made of several ranges).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field(u16);

impl Field {
    /// `width` (1 to 64) bits from bit `lo`.
    pub const fn range(lo: u8, width: u8) -> Field {
        Field(((lo as u16 & 0x7f) << 7) | (width as u16 & 0x7f))
    }

    /// The field `Format::fields[index]`.
    pub const fn multi(index: u16) -> Field {
        Field(0x8000 | (index & 0x7fff))
    }

    /// The field's value in `w` and its width.
    #[inline(always)]
    fn extract(self, w: Word, fields: &[Bits]) -> (u64, u8) {
        if self.0 & 0x8000 == 0 {
            let width = (self.0 & 0x7f) as u8;
            let lo = u32::from(self.0 >> 7 & 0x7f);
            let mask = u64::MAX.checked_shr(64 - u32::from(width)).unwrap_or(0);
            (((w.0 >> lo) as u64) & mask, width)
        } else {
            fields.get(usize::from(self.0 & 0x7fff)).map_or((0, 0), |b| (b.extract(w), b.width))
        }
    }
}

/// One piece of a print template, 8 bytes: a text, or a field printed through a table or a number rule.
#[derive(Debug, Clone, Copy)]
pub struct Piece {
    kind: PieceKind,
    field: Field,
    /// The text's span, or the index of the table or rule in [`Format`].
    arg: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PieceKind {
    Text,
    Table,
    Number,
}

impl Piece {
    pub const fn text(span: Span) -> Piece {
        Piece { kind: PieceKind::Text, field: Field(0), arg: span }
    }
    pub const fn table(field: Field, table: u32) -> Piece {
        Piece { kind: PieceKind::Table, field, arg: table }
    }
    pub const fn number(field: Field, rule: u32) -> Piece {
        Piece { kind: PieceKind::Number, field, arg: rule }
    }
}

/// How PC-relative targets print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TargetStyle {
    /// As `nvdisasm -b SM86 -raw` prints them: the absolute address, `BRA 0x30`.
    #[default]
    Absolute,
    /// As `sassport dis` prints them in place of nvdisasm's labels: `` BRA `(0x30) ``.
    Label,
}

/// Bytes gathered before they go to the writer.
const LINE: usize = 256;
/// Room past `LINE` that one piece may fill through the fast paths (a number's digits, a text's 16-byte
/// copy); whatever does not fit takes the general path, which flushes.
const SLACK: usize = 128;
const BUF: usize = LINE + SLACK;
/// Texts up to this long are copied as one fixed-size block.
const SHORT: usize = 16;

/// Prints a template for word `w` at `address`.
///
/// The text is gathered in a stack buffer and handed to `out` in one `write_str` (per 256 bytes): most
/// pieces are a few bytes, and a short text is one fixed 16-byte copy out of the pool (the bytes after it
/// are overwritten by what comes next). The buffer's length lives in a local, not behind a reference, so
/// that it stays in a register across the pieces.
#[inline]
pub fn write_pieces<W: Write + ?Sized>(
    out: &mut W,
    format: &Format,
    pieces: &[Piece],
    w: Word,
    address: u64,
    style: TargetStyle,
) -> fmt::Result {
    let mut buf = [0u8; BUF];
    let mut len = 0usize;
    let pool = format.pool.as_bytes();
    for p in pieces {
        if len > LINE {
            flush(out, &buf, len)?;
            len = 0;
        }
        len = match p.kind {
            PieceKind::Text => put_span(out, &mut buf, len, pool, p.arg)?,
            PieceKind::Table => {
                let (value, _) = p.field.extract(w, format.fields);
                match format.tables.get(p.arg as usize).map_or(NO_TEXT, |t| t.get(value)) {
                    NO_TEXT => put_slow(out, &mut buf, len, b"<illegal>")?,
                    span => put_span(out, &mut buf, len, pool, span)?,
                }
            }
            PieceKind::Number => {
                let (value, width) = p.field.extract(w, format.fields);
                match format.rules.get(p.arg as usize) {
                    Some(rule) => put_number(out, &mut buf, len, pool, rule, value, width, address, style)?,
                    None => len,
                }
            }
        };
    }
    flush(out, &buf, len)
}

/// Hands `buf[..len]` to the writer. Pieces are whole texts, so the bytes are whole characters.
fn flush<W: Write + ?Sized>(out: &mut W, buf: &[u8; BUF], len: usize) -> fmt::Result {
    out.write_str(std::str::from_utf8(buf.get(..len).unwrap_or(&[])).map_err(|_| fmt::Error)?)
}

/// Appends the pool text `span`; returns the new length.
#[inline(always)]
fn put_span<W: Write + ?Sized>(out: &mut W, buf: &mut [u8; BUF], len: usize, pool: &[u8], span: Span) -> Result<usize, fmt::Error> {
    let start = (span >> 8) as usize;
    let n = (span & 0xff) as usize;
    if n <= SHORT {
        // Near the end of the pool, or of the buffer, take the general path.
        if let (Some(src), Some(dst)) = (pool.get(start..start + SHORT), buf.get_mut(len..len + SHORT)) {
            let src: &[u8; SHORT] = src.try_into().map_err(|_| fmt::Error)?;
            let dst: &mut [u8; SHORT] = dst.try_into().map_err(|_| fmt::Error)?;
            *dst = *src;
            return Ok(len + n);
        }
    }
    put_slow(out, buf, len, pool.get(start..start + n).ok_or(fmt::Error)?)
}

/// Appends whole UTF-8 text of any length, flushing as needed; returns the new length.
#[inline(never)]
fn put_slow<W: Write + ?Sized>(out: &mut W, buf: &mut [u8; BUF], len: usize, bytes: &[u8]) -> Result<usize, fmt::Error> {
    let mut len = len;
    if len + bytes.len() > BUF {
        flush(out, buf, len)?;
        len = 0;
        if bytes.len() > BUF {
            out.write_str(std::str::from_utf8(bytes).map_err(|_| fmt::Error)?)?;
            return Ok(0);
        }
    }
    if let Some(dst) = buf.get_mut(len..len + bytes.len()) {
        dst.copy_from_slice(bytes);
        len += bytes.len();
    }
    Ok(len)
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn put_number<W: Write + ?Sized>(
    out: &mut W,
    buf: &mut [u8; BUF],
    len: usize,
    pool: &[u8],
    rule: &NumberRule,
    raw: u64,
    width: u8,
    address: u64,
    style: TargetStyle,
) -> Result<usize, fmt::Error> {
    if let Some(&(_, span)) = rule.specials.iter().find(|e| e.0 == raw) {
        return put_span(out, buf, len, pool, span);
    }
    let mut n = raw as i64;
    if rule.signed && width < 64 {
        let s = 64 - u32::from(width);
        n = (n << s) >> s;
    }
    n = n.wrapping_shl(u32::from(rule.shift));
    if rule.pc_relative {
        n = (address as i64).wrapping_add(16).wrapping_add(n);
    }
    let mut len = put_span(out, buf, len, pool, rule.prefix)?;
    let label = rule.pc_relative && style == TargetStyle::Label;
    if label {
        len = put_slow(out, buf, len, b"`(")?;
    }
    len = match rule.format {
        NumberFormat::Dec => put_dec(out, buf, len, n)?,
        NumberFormat::Hex => put_hex(out, buf, len, b"0x", n as u64)?,
        NumberFormat::SignedHex if n < 0 => put_hex(out, buf, len, b"-0x", n.unsigned_abs())?,
        NumberFormat::SignedHex => put_hex(out, buf, len, b"0x", n as u64)?,
        NumberFormat::OffsetHex => match n {
            0 => len,
            n if n < 0 => put_hex(out, buf, len, b"-0x", n.unsigned_abs())?,
            n => put_hex(out, buf, len, b"+0x", n as u64)?,
        },
        NumberFormat::F32 => put_float(out, buf, len, FloatBits::F32(n as u32))?,
        NumberFormat::F64Hi => put_float(out, buf, len, FloatBits::F64((n as u64 & 0xffff_ffff) << 32))?,
        NumberFormat::F16 => put_float(out, buf, len, FloatBits::F16(n as u16))?,
        NumberFormat::F64 => put_float(out, buf, len, FloatBits::F64(n as u64))?,
    };
    if label {
        len = put_slow(out, buf, len, b")")?;
    }
    put_span(out, buf, len, pool, rule.suffix)
}

/// Signed decimal.
#[inline(always)]
fn put_dec<W: Write + ?Sized>(out: &mut W, buf: &mut [u8; BUF], len: usize, n: i64) -> Result<usize, fmt::Error> {
    let mut len = len;
    // A sign and 20 digits.
    if len + 21 > BUF {
        flush(out, buf, len)?;
        len = 0;
    }
    if n < 0 {
        if let Some(slot) = buf.get_mut(len) {
            *slot = b'-';
            len += 1;
        }
    }
    let mut v = n.unsigned_abs();
    let digits = v.checked_ilog10().map_or(1, |l| l as usize + 1);
    let end = len + digits;
    for slot in buf.get_mut(len..end).unwrap_or(&mut []).iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
    Ok(end)
}

fn put_hex<W: Write + ?Sized>(out: &mut W, buf: &mut [u8; BUF], len: usize, prefix: &[u8], v: u64) -> Result<usize, fmt::Error> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut len = len;
    // A prefix of 3 and 16 digits.
    if len + 19 > BUF {
        flush(out, buf, len)?;
        len = 0;
    }
    len = put_slow(out, buf, len, prefix)?;
    let digits = (64 - v.leading_zeros() as usize).div_ceil(4).max(1);
    let end = len + digits;
    let mut v = v;
    for slot in buf.get_mut(len..end).unwrap_or(&mut []).iter_mut().rev() {
        *slot = DIGITS[(v & 0xf) as usize];
        v >>= 4;
    }
    Ok(end)
}

fn put_float<W: Write + ?Sized>(out: &mut W, buf: &mut [u8; BUF], len: usize, bits: FloatBits) -> Result<usize, fmt::Error> {
    let mut text = FloatText { bytes: [0; 64], len: 0 };
    write_float(&mut text, bits)?;
    put_slow(out, buf, len, text.bytes.get(..text.len).unwrap_or(&[]))
}

/// A float's text (at most 28 bytes: sign, 21 digits, point, `e+308`).
struct FloatText {
    bytes: [u8; 64],
    len: usize,
}

impl Write for FloatText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_lookup() {
        let r = [(0, 2), (5, 5), (9, 20)];
        let hits: Vec<u64> = (0..25).filter(|&v| in_ranges(&r, v)).collect();
        assert_eq!(hits, vec![0, 1, 2, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
        assert!(!in_ranges(&[], 0));
        let w = Word::from_halves(0b1011 << 4, 1);
        assert_eq!(Bits { ranges: &[(4, 2), (64, 1), (6, 2)], width: 5 }.extract(w), 0b10111);
    }

    #[test]
    fn integers_print_in_nvdisasm_forms() {
        let mut out = String::new();
        let mut buf = [0u8; BUF];
        let mut len = put_hex(&mut out, &mut buf, 0, b"-0x", 0x1f).unwrap();
        len = put_dec(&mut out, &mut buf, len, 12).unwrap();
        len = put_hex(&mut out, &mut buf, len, b"0x", 0).unwrap();
        len = put_dec(&mut out, &mut buf, len, 0).unwrap();
        len = put_hex(&mut out, &mut buf, len, b"0x", u64::MAX).unwrap();
        len = put_dec(&mut out, &mut buf, len, i64::MIN).unwrap();
        flush(&mut out, &buf, len).unwrap();
        assert_eq!(out, "-0x1f120x000xffffffffffffffff-9223372036854775808");
    }

    #[test]
    fn texts_copy_exactly_at_every_length_and_place() {
        // Texts at the end of the pool (no 16 bytes after them), long texts, and lines past the buffer.
        static POOL: &str = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let span = |start: usize, len: usize| ((start as u32) << 8) | len as u32;
        let mut expected = String::new();
        let mut pieces = Vec::new();
        for start in 0..POOL.len() {
            for len in [0, 1, 5, 16, 17, 40].into_iter().filter(|&l| start + l <= POOL.len()) {
                pieces.push(Piece::text(span(start, len)));
                expected.push_str(&POOL[start..start + len]);
            }
        }
        let format = Format { pool: POOL, fields: &[], tables: &[], rules: &[] };
        let mut out = String::new();
        write_pieces(&mut out, &format, &pieces, Word(0), 0, TargetStyle::Absolute).unwrap();
        assert!(expected.len() > 4 * LINE);
        assert_eq!(out, expected);
    }

    #[test]
    fn fields_extract_in_place_and_by_index() {
        let w = Word::from_halves(0b1011 << 4, 0b101);
        static FIELDS: [Bits; 1] = [Bits { ranges: &[(4, 2), (64, 1), (6, 2)], width: 5 }];
        assert_eq!(Field::range(4, 4).extract(w, &FIELDS), (0b1011, 4));
        assert_eq!(Field::range(64, 3).extract(w, &FIELDS), (0b101, 3));
        assert_eq!(Field::range(0, 64).extract(w, &FIELDS), (0b1011 << 4, 64));
        // Bits 7:6, then 64, then 5:4.
        assert_eq!(Field::multi(0).extract(w, &FIELDS), (0b10111, 5));
        assert_eq!(Field::multi(1).extract(w, &FIELDS), (0, 0));
    }
}
