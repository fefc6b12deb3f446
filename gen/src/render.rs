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
use std::sync::OnceLock;

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
    /// Whether `pool` is all ASCII, worked out on first use (a scan of its 3 MB: a compile-time check
    /// took the compiler 10 seconds).
    ascii_pool: OnceLock<bool>,
}

impl Format {
    pub const fn new(pool: &'static str, fields: &'static [Bits], tables: &'static [Table], rules: &'static [NumberRule]) -> Format {
        Format { pool, fields, tables, rules, ascii_pool: OnceLock::new() }
    }

    /// Whether every byte of the pool is ASCII (so that every span of it is whole characters).
    #[inline]
    fn pool_is_ascii(&self) -> bool {
        *self.ascii_pool.get_or_init(|| self.pool.is_ascii())
    }
}

/// Field value → text: a text per listed value, else the default (values with neither were refused by the
/// decoder).
#[derive(Debug)]
pub struct Table {
    /// Sorted values, parallel to `spans`; `None` when `spans` is indexed by the value itself.
    pub keys: Option<&'static [u64]>,
    /// Texts; [`NO_TEXT`] marks a value with no entry. Indexed by value, values without an entry hold the
    /// default.
    pub spans: &'static [Span],
    /// The text of values without an entry, or [`NO_TEXT`].
    pub default: Span,
}

impl Table {
    /// The text of `value`: a dense table holds the default in the slots of values without an entry.
    #[inline(always)]
    pub(crate) fn get(&self, value: u64) -> Span {
        let slot = match self.keys {
            None => usize::try_from(value).ok(),
            Some(keys) => keys.binary_search(&value).ok(),
        };
        slot.and_then(|i| self.spans.get(i)).copied().unwrap_or(self.default)
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

    /// Where the field's bits are (the encoder writes through this).
    pub(crate) fn layout(self, fields: &'static [Bits]) -> FieldLayout {
        if self.0 & 0x8000 == 0 {
            FieldLayout::One((self.0 >> 7 & 0x7f) as u8, (self.0 & 0x7f) as u8)
        } else {
            FieldLayout::Many(fields.get(usize::from(self.0 & 0x7fff)).map_or(&[], |b| b.ranges))
        }
    }

    /// The field's value in `w` and its width.
    #[inline(always)]
    pub(crate) fn extract(self, w: Word, fields: &[Bits]) -> (u64, u8) {
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

/// A field's bits: one `(lo, width)` range, or several, the first least significant.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldLayout {
    One(u8, u8),
    Many(&'static [(u8, u8)]),
}

/// One piece of a print template, 8 bytes: a text, or a field printed through a table or a number rule.
#[derive(Debug, Clone, Copy)]
pub struct Piece {
    pub(crate) kind: PieceKind,
    pub(crate) field: Field,
    /// The text's span, or the index of the table or rule in [`Format`].
    pub(crate) arg: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PieceKind {
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

/// Bytes gathered before they go to the writer: nvdisasm's lines are at most 128 bytes (46 for half the
/// golden words), and a longer one goes in two writes.
const LINE: usize = 128;
/// Room past `LINE` that one piece may fill through the fast paths (a number's digits, a text's 16-byte
/// copy); whatever does not fit takes the general path, which flushes. The buffer is zeroed for every
/// line: 384 bytes were a call to `memset`, 3% of decode+format.
const SLACK: usize = 64;
const BUF: usize = LINE + SLACK;
/// Texts up to this long are copied as one fixed-size block.
const SHORT: usize = 16;

/// Where a line goes: the writer, and whether the pool is all ASCII (see [`flush`]).
struct Sink<'a, W: ?Sized> {
    out: &'a mut W,
    ascii_pool: bool,
}

/// Prints a template for word `w` at `address`.
///
/// The text is gathered in a stack buffer and handed to `out` in one `write_str` (per `LINE` bytes):
/// most pieces are a few bytes, and a short text is one fixed 16-byte copy out of the pool (the bytes
/// after it are overwritten by what comes next). The buffer's length lives in a local, not behind a
/// reference, so that it stays in a register across the pieces.
#[inline]
pub fn write_pieces<W: Write + ?Sized>(
    out: &mut W,
    format: &Format,
    pieces: &[Piece],
    w: Word,
    address: u64,
    style: TargetStyle,
) -> fmt::Result {
    let sink = &mut Sink { out, ascii_pool: format.pool_is_ascii() };
    let mut buf = [0u8; BUF];
    let mut len = 0usize;
    for p in pieces {
        if len > LINE {
            flush(sink, &buf, len)?;
            len = 0;
        }
        // Nearly every piece is a table (texts are folded into them, narrow numbers tabulated).
        len = match p.kind {
            PieceKind::Table => {
                let (value, _) = p.field.extract(w, format.fields);
                match format.tables.get(p.arg as usize).map_or(NO_TEXT, |t| t.get(value)) {
                    NO_TEXT => put_str(sink, &mut buf, len, "<illegal>")?,
                    span => put_span(sink, &mut buf, len, format.pool, span)?,
                }
            }
            PieceKind::Number => {
                let (value, width) = p.field.extract(w, format.fields);
                match format.rules.get(p.arg as usize) {
                    Some(rule) => put_number(sink, &mut buf, len, format.pool, rule, value, width, address, style)?,
                    None => len,
                }
            }
            PieceKind::Text => put_span(sink, &mut buf, len, format.pool, p.arg)?,
        };
    }
    flush(sink, &buf, len)
}

/// Hands `buf[..len]` to the writer.
///
/// The buffer only ever holds whole `&str` texts (pieces are flushed between, never within, texts) and
/// bytes copied out of the pool at its spans: when the pool is all ASCII, any span of it is whole
/// characters too, and `buf[..len]` needs no validating. Validating it was 7% of the golden mix's
/// decode+format instructions and a fifth of its mispredicted branches.
#[inline(always)]
fn flush<W: Write + ?Sized>(sink: &mut Sink<'_, W>, buf: &[u8; BUF], len: usize) -> fmt::Result {
    let bytes = buf.get(..len).unwrap_or(&[]);
    let text = if sink.ascii_pool {
        // SAFETY: `bytes` is a concatenation of whole `&str` texts and of bytes of the pool, which is all
        // ASCII (checked once, `Format::pool_is_ascii`): valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    } else {
        std::str::from_utf8(bytes).map_err(|_| fmt::Error)?
    };
    sink.out.write_str(text)
}

/// Appends the pool text `span`; returns the new length.
#[inline(always)]
fn put_span<W: Write + ?Sized>(sink: &mut Sink<'_, W>, buf: &mut [u8; BUF], len: usize, pool: &str, span: Span) -> Result<usize, fmt::Error> {
    let start = (span >> 8) as usize;
    let n = (span & 0xff) as usize;
    if n <= SHORT {
        // Near the end of the pool, or of the buffer, take the general path.
        if let (Some(src), Some(dst)) = (pool.as_bytes().get(start..start + SHORT), buf.get_mut(len..len + SHORT)) {
            let src: &[u8; SHORT] = src.try_into().map_err(|_| fmt::Error)?;
            let dst: &mut [u8; SHORT] = dst.try_into().map_err(|_| fmt::Error)?;
            *dst = *src;
            return Ok(len + n);
        }
    }
    put_str(sink, buf, len, pool.get(start..start + n).ok_or(fmt::Error)?)
}

/// Appends a whole text of any length, flushing as needed; returns the new length.
#[inline(never)]
fn put_str<W: Write + ?Sized>(sink: &mut Sink<'_, W>, buf: &mut [u8; BUF], len: usize, text: &str) -> Result<usize, fmt::Error> {
    let mut len = len;
    if len + text.len() > BUF {
        flush(sink, buf, len)?;
        len = 0;
        if text.len() > BUF {
            sink.out.write_str(text)?;
            return Ok(0);
        }
    }
    if let Some(dst) = buf.get_mut(len..len + text.len()) {
        dst.copy_from_slice(text.as_bytes());
        len += text.len();
    }
    Ok(len)
}

/// Appends a number printed by rule; returns the new length. Out of line: the wide immediates, addresses
/// and floats that take it are a few percent of the pieces.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn put_number<W: Write + ?Sized>(
    sink: &mut Sink<'_, W>,
    buf: &mut [u8; BUF],
    len: usize,
    pool: &str,
    rule: &NumberRule,
    raw: u64,
    width: u8,
    address: u64,
    style: TargetStyle,
) -> Result<usize, fmt::Error> {
    if let Some(&(_, span)) = rule.specials.iter().find(|e| e.0 == raw) {
        return put_span(sink, buf, len, pool, span);
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
    let mut len = put_span(sink, buf, len, pool, rule.prefix)?;
    let label = rule.pc_relative && style == TargetStyle::Label;
    if label {
        len = put_str(sink, buf, len, "`(")?;
    }
    len = match rule.format {
        NumberFormat::Dec => put_dec(sink, buf, len, n)?,
        NumberFormat::Hex => put_hex(sink, buf, len, "0x", n as u64)?,
        NumberFormat::SignedHex if n < 0 => put_hex(sink, buf, len, "-0x", n.unsigned_abs())?,
        NumberFormat::SignedHex => put_hex(sink, buf, len, "0x", n as u64)?,
        NumberFormat::OffsetHex => match n {
            0 => len,
            n if n < 0 => put_hex(sink, buf, len, "-0x", n.unsigned_abs())?,
            n => put_hex(sink, buf, len, "+0x", n as u64)?,
        },
        NumberFormat::F32 => put_float(sink, buf, len, FloatBits::F32(n as u32))?,
        NumberFormat::F64Hi => put_float(sink, buf, len, FloatBits::F64((n as u64 & 0xffff_ffff) << 32))?,
        NumberFormat::F16 => put_float(sink, buf, len, FloatBits::F16(n as u16))?,
        NumberFormat::F64 => put_float(sink, buf, len, FloatBits::F64(n as u64))?,
    };
    if label {
        len = put_str(sink, buf, len, ")")?;
    }
    put_span(sink, buf, len, pool, rule.suffix)
}

/// Signed decimal (ASCII digits).
#[inline(always)]
fn put_dec<W: Write + ?Sized>(sink: &mut Sink<'_, W>, buf: &mut [u8; BUF], len: usize, n: i64) -> Result<usize, fmt::Error> {
    let mut len = len;
    // A sign and 20 digits.
    if len + 21 > BUF {
        flush(sink, buf, len)?;
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

/// `prefix` and lowercase hex digits (ASCII).
fn put_hex<W: Write + ?Sized>(sink: &mut Sink<'_, W>, buf: &mut [u8; BUF], len: usize, prefix: &str, v: u64) -> Result<usize, fmt::Error> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut len = len;
    // A prefix of 3 and 16 digits.
    if len + 19 > BUF {
        flush(sink, buf, len)?;
        len = 0;
    }
    len = put_str(sink, buf, len, prefix)?;
    let digits = (64 - v.leading_zeros() as usize).div_ceil(4).max(1);
    let end = len + digits;
    let mut v = v;
    for slot in buf.get_mut(len..end).unwrap_or(&mut []).iter_mut().rev() {
        *slot = DIGITS[(v & 0xf) as usize];
        v >>= 4;
    }
    Ok(end)
}

fn put_float<W: Write + ?Sized>(sink: &mut Sink<'_, W>, buf: &mut [u8; BUF], len: usize, bits: FloatBits) -> Result<usize, fmt::Error> {
    let mut text = FloatText { bytes: [0; 64], len: 0 };
    write_float(&mut text, bits)?;
    put_str(sink, buf, len, std::str::from_utf8(text.bytes.get(..text.len).unwrap_or(&[])).map_err(|_| fmt::Error)?)
}

/// A float's text (at most 28 bytes: sign, 21 digits, point, `e+308`), whole `&str` texts one after another.
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
        let sink = &mut Sink { out: &mut out, ascii_pool: false };
        let mut buf = [0u8; BUF];
        let mut len = put_hex(sink, &mut buf, 0, "-0x", 0x1f).unwrap();
        len = put_dec(sink, &mut buf, len, 12).unwrap();
        len = put_hex(sink, &mut buf, len, "0x", 0).unwrap();
        len = put_dec(sink, &mut buf, len, 0).unwrap();
        len = put_hex(sink, &mut buf, len, "0x", u64::MAX).unwrap();
        len = put_dec(sink, &mut buf, len, i64::MIN).unwrap();
        flush(sink, &buf, len).unwrap();
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
        let format = Format::new(POOL, &[], &[], &[]);
        let mut out = String::new();
        write_pieces(&mut out, &format, &pieces, Word(0), 0, TargetStyle::Absolute).unwrap();
        assert!(expected.len() > 4 * LINE);
        assert_eq!(out, expected);
        // A pool with other characters is validated: its spans are whole characters all the same.
        static WIDE: &str = "añb→c";
        let pieces = [Piece::text(span(0, 1)), Piece::text(span(1, 2)), Piece::text(span(4, 3)), Piece::text(span(7, 1))];
        let format = Format::new(WIDE, &[], &[], &[]);
        let mut out = String::new();
        write_pieces(&mut out, &format, &pieces, Word(0), 0, TargetStyle::Absolute).unwrap();
        assert_eq!(out, "añ→c");
        // A span that cuts a character fails rather than printing half of it.
        let format = Format::new(WIDE, &[], &[], &[]);
        assert!(write_pieces(&mut String::new(), &format, &[Piece::text(span(1, 1))], Word(0), 0, TargetStyle::Absolute).is_err());
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
