//! The print-template interpreter behind the generated formatter.
//!
//! Each class variant's template is a static slice of [`Piece`]s generated from the table; printing walks
//! it. Keeping templates as data (not one generated function per class) keeps the generated crate quick to
//! compile, and the loop is short enough to print millions of instructions a second.

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

/// Every text the tables print, concatenated; text `i` ends at `ends[i]` and starts where text `i - 1`
/// ends.
#[derive(Debug)]
pub struct Pool {
    pub text: &'static str,
    pub ends: &'static [u32],
}

impl Pool {
    #[inline]
    fn get(&self, id: u32) -> Option<&'static str> {
        let i = id as usize;
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { *self.ends.get(i - 1)? as usize };
        self.text.get(start..end)
    }
}

/// Field value → text: a text id per listed value, else the default (values with neither were refused by
/// the decoder).
#[derive(Debug)]
pub struct Table {
    /// Sorted values, parallel to `ids`; `None` when `ids` is indexed by the value itself.
    pub keys: Option<&'static [u64]>,
    /// Text ids in the pool; `u32::MAX` marks a value with no entry.
    pub ids: &'static [u32],
    pub default: Option<&'static str>,
}

impl Table {
    #[inline]
    pub fn get(&self, pool: &Pool, value: u64) -> Option<&'static str> {
        let slot = match self.keys {
            None => usize::try_from(value).ok(),
            Some(keys) => keys.binary_search(&value).ok(),
        };
        match slot.and_then(|i| self.ids.get(i)) {
            Some(&id) if id != u32::MAX => pool.get(id),
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
    pub prefix: &'static str,
    pub suffix: &'static str,
    /// Values printed as fixed text instead (sorted by value). Illegal values never reach the formatter.
    pub specials: &'static [(u64, &'static str)],
}

/// One piece of a print template.
#[derive(Debug)]
pub enum Piece {
    Text(&'static str),
    Table(Bits, &'static Table),
    Number(Bits, &'static NumberRule),
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

/// Prints a template for word `w` at `address`.
#[inline]
pub fn write_pieces<W: Write + ?Sized>(
    out: &mut W,
    pool: &Pool,
    pieces: &[Piece],
    w: Word,
    address: u64,
    style: TargetStyle,
) -> fmt::Result {
    for piece in pieces {
        match piece {
            Piece::Text(s) => out.write_str(s)?,
            Piece::Table(bits, table) => out.write_str(table.get(pool, bits.extract(w)).unwrap_or("<illegal>"))?,
            Piece::Number(bits, rule) => write_number(out, rule, bits.extract(w), bits.width, address, style)?,
        }
    }
    Ok(())
}

fn write_number<W: Write + ?Sized>(
    out: &mut W,
    rule: &NumberRule,
    raw: u64,
    width: u8,
    address: u64,
    style: TargetStyle,
) -> fmt::Result {
    if let Ok(i) = rule.specials.binary_search_by_key(&raw, |e| e.0) {
        return out.write_str(rule.specials[i].1);
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
    out.write_str(rule.prefix)?;
    let label = rule.pc_relative && style == TargetStyle::Label;
    if label {
        out.write_str("`(")?;
    }
    match rule.format {
        NumberFormat::Dec => write_dec(out, n)?,
        NumberFormat::Hex => write_hex(out, "0x", n as u64)?,
        NumberFormat::SignedHex => {
            if n < 0 {
                write_hex(out, "-0x", n.unsigned_abs())?
            } else {
                write_hex(out, "0x", n as u64)?
            }
        }
        NumberFormat::OffsetHex => match n {
            0 => {}
            n if n < 0 => write_hex(out, "-0x", n.unsigned_abs())?,
            n => write_hex(out, "+0x", n as u64)?,
        },
        NumberFormat::F32 => write_float(out, FloatBits::F32(n as u32))?,
        NumberFormat::F64Hi => write_float(out, FloatBits::F64((n as u64 & 0xffff_ffff) << 32))?,
        NumberFormat::F16 => write_float(out, FloatBits::F16(n as u16))?,
        NumberFormat::F64 => write_float(out, FloatBits::F64(n as u64))?,
    }
    if label {
        out.write_str(")")?;
    }
    out.write_str(rule.suffix)
}

fn write_hex<W: Write + ?Sized>(out: &mut W, prefix: &str, v: u64) -> fmt::Result {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 19];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        buf[i] = DIGITS[(v & 0xf) as usize];
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    let p = prefix.as_bytes();
    i -= p.len();
    buf[i..i + p.len()].copy_from_slice(p);
    // Only ASCII was written.
    out.write_str(std::str::from_utf8(&buf[i..]).map_err(|_| fmt::Error)?)
}

fn write_dec<W: Write + ?Sized>(out: &mut W, n: i64) -> fmt::Result {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut v = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if n < 0 {
        out.write_char('-')?;
    }
    out.write_str(std::str::from_utf8(&buf[i..]).map_err(|_| fmt::Error)?)
}

/// A float immediate's bit pattern.
#[derive(Debug, Clone, Copy)]
pub enum FloatBits {
    F16(u16),
    F32(u32),
    F64(u64),
}

/// Prints a float immediate the way nvdisasm does (measured on 13.5.37): `+INF `, `-QNAN `, `+SNAN `, ...
/// (with a trailing space) for non-finite values, `-0.0 ` for negative zero, `%.20e` (C style, trailing zeros kept) for magnitudes
/// of at least 1e9, and `%.20g` otherwise. The digits are exact: every binary float has a finite decimal
/// expansion, and Rust's precision formatting rounds it correctly, like glibc's printf.
pub fn write_float<W: Write + ?Sized>(out: &mut W, bits: FloatBits) -> fmt::Result {
    let (value, negative, special) = match bits {
        FloatBits::F16(b) => {
            let exp = (b >> 10) & 0x1f;
            let frac = b & 0x3ff;
            let special = (exp == 0x1f).then_some((frac, 0x200u64));
            (f16_to_f64(b), b & 0x8000 != 0, special.map(|(f, q)| (u64::from(f), q)))
        }
        FloatBits::F32(b) => {
            let special = ((b >> 23) & 0xff == 0xff).then_some((u64::from(b & 0x7f_ffff), 0x40_0000u64));
            (f64::from(f32::from_bits(b)), b & 0x8000_0000 != 0, special)
        }
        FloatBits::F64(b) => {
            let special = ((b >> 52) & 0x7ff == 0x7ff).then_some((b & 0xf_ffff_ffff_ffff, 1u64 << 51));
            (f64::from_bits(b), b >> 63 != 0, special)
        }
    };
    let sign = if negative { "-" } else { "+" };
    if let Some((frac, quiet_bit)) = special {
        out.write_str(sign)?;
        // nvdisasm follows these (and `-0.0`) with a space.
        return out.write_str(match frac {
            0 => "INF ",
            f if f & quiet_bit != 0 => "QNAN ",
            _ => "SNAN ",
        });
    }
    if value == 0.0 {
        return out.write_str(if negative { "-0.0 " } else { "0" });
    }
    if value.abs() >= 1e9 {
        write_c_exponent(out, value, 20, false)
    } else {
        write_c_general(out, value, 20)
    }
}

fn f16_to_f64(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((b >> 10) & 0x1f);
    let frac = f64::from(b & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// C's `%.{precision}e`: `d.ddde+XX` with at least two exponent digits; `strip` removes trailing zeros
/// (and a bare point), as `%g` does.
fn write_c_exponent<W: Write + ?Sized>(out: &mut W, value: f64, precision: usize, strip: bool) -> fmt::Result {
    let mut buf = FloatBuf::new();
    let _ = write!(buf, "{value:.precision$e}");
    let s = buf.as_str();
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mantissa = if strip { strip_zeros(mantissa) } else { mantissa };
    out.write_str(mantissa)?;
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    out.write_char('e')?;
    out.write_char(sign)?;
    if digits.len() < 2 {
        out.write_char('0')?;
    }
    out.write_str(digits)
}

/// C's `%.{precision}g`.
fn write_c_general<W: Write + ?Sized>(out: &mut W, value: f64, precision: usize) -> fmt::Result {
    // The exponent `%e` would print after rounding to `precision` significant digits.
    let mut buf = FloatBuf::new();
    let _ = write!(buf, "{value:.prec$e}", prec = precision - 1);
    let exp: i32 = buf.as_str().split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    if exp < -4 || exp >= precision as i32 {
        return write_c_exponent(out, value, precision - 1, true);
    }
    let decimals = (precision as i32 - 1 - exp) as usize;
    let mut buf = FloatBuf::new();
    let _ = write!(buf, "{value:.decimals$}");
    out.write_str(strip_zeros(buf.as_str()))
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A stack buffer for one formatted float (the longest, `%.20f` of a value below 1e9, fits easily).
struct FloatBuf {
    bytes: [u8; 64],
    len: usize,
}

impl FloatBuf {
    fn new() -> Self {
        FloatBuf { bytes: [0; 64], len: 0 }
    }
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl Write for FloatBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let dst = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_text(bits: u32) -> String {
        let mut s = String::new();
        write_float(&mut s, FloatBits::F32(bits)).unwrap();
        s
    }

    /// Pairs printed by nvdisasm 13.5.37 (`FMUL.RZ R8, R8, <imm>`).
    #[test]
    fn floats_print_like_nvdisasm() {
        let cases = [
            (0x4265681b, "57.351665496826171875"),
            (0x947c10ab, "-1.2726035856633558532e-26"),
            (0x3f800000, "1"),
            (0xc0200000, "-2.5"),
            (0x3dcccccd, "0.10000000149011611938"),
            (0x2edbe6ff, "1.00000001335143196e-10"),
            (0x60ad78ec, "1.00000002004087734272e+20"),
            (0x5f0ac723, "9.99999998050644787200e+18"),
            (0x3727c5ac, "9.9999997473787516356e-06"),
            (0x3a83126f, "0.0010000000474974513054"),
            (0x4e5a3a26, "915310976"),
            (0x4f596727, "3.64741606400000000000e+09"),
            (0x00000001, "1.4012984643248170709e-45"),
            (0x00000000, "0"),
            (0x80000000, "-0.0 "),
            (0x7f800000, "+INF "),
            (0xff800000, "-INF "),
            (0x7fc00000, "+QNAN "),
            (0xffc00000, "-QNAN "),
            (0x7f800001, "+SNAN "),
            (0xff800001, "-SNAN "),
            (0x7fffffff, "+QNAN "),
        ];
        for (bits, text) in cases {
            assert_eq!(f32_text(bits), text, "{bits:#010x}");
        }
        let mut s = String::new();
        write_float(&mut s, FloatBits::F64(0x4690000000000000)).unwrap();
        assert_eq!(s, "8.11296384146066816958e+31");
    }

    #[test]
    fn range_lookup() {
        let r = [(0, 2), (5, 5), (9, 20)];
        let hits: Vec<u64> = (0..25).filter(|&v| in_ranges(&r, v)).collect();
        assert_eq!(hits, vec![0, 1, 2, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
        assert!(!in_ranges(&[], 0));
        let w = Word::from_halves(0b1011 << 4, 1);
        assert_eq!(Bits { ranges: &[(4, 2), (64, 1), (6, 2)], width: 5 }.extract(w), 0b10_1_11);
    }

    #[test]
    fn integers_print_in_nvdisasm_forms() {
        let mut s = String::new();
        write_hex(&mut s, "-0x", 0x1f).unwrap();
        write_dec(&mut s, -12).unwrap();
        write_hex(&mut s, "0x", 0).unwrap();
        assert_eq!(s, "-0x1f-120x0");
    }
}
