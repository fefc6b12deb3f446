//! Device `printf`: the records a launch's `vprintf` calls left in the printf area (`abi::printf_word`), and
//! their formatting on the host as CUDA does it (the CUDA driver formats device printf output on the host with
//! C's `printf` rules; the argument buffer is packed with each argument at its natural alignment: `int`-sized
//! and smaller integers and `char` as 4 bytes, `long`, `long long`, pointers and doubles as 8 bytes at 8-byte
//! alignment, `float` promoted to `double`).
//!
//! Everything here reads bytes a kernel wrote, so nothing trusts them: a malformed record list ends parsing
//! with a typed [`PrintfError`]; a bad format string, a missing argument, a `%s` pointer outside the window or
//! an unsupported conversion puts a visible `<printf: ...>` marker in the text. Nothing panics.

use sassport_translator::abi;

/// What a launch printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintfOutput {
    /// One entry per `printf` call, in the order the calls claimed room in the buffer.
    pub records: Vec<PrintfRecord>,
    /// Calls whose record did not fit in the printf buffer (their output is lost).
    pub dropped: u32,
    /// Why reading the records stopped early, if it did (the records before it are kept).
    pub problem: Option<PrintfError>,
}

impl PrintfOutput {
    /// The printed text, all records in order.
    pub fn text(&self) -> String {
        self.records.iter().map(|r| r.text.as_str()).collect()
    }

    /// Whether nothing was printed or lost.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.dropped == 0 && self.problem.is_none()
    }
}

/// One `printf` call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintfRecord {
    /// Byte offset of the call in the kernel's code section.
    pub pc: u32,
    /// `blockIdx` of the calling thread.
    pub block: [u32; 3],
    /// `threadIdx` of the calling thread.
    pub thread: [u32; 3],
    /// Guest address of the format string.
    pub format_address: u64,
    /// The formatted text.
    pub text: String,
}

/// A malformed printf record list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrintfError {
    /// The area's size is not a whole number of 32-bit words.
    #[error("printf area of {bytes} bytes is not a whole number of words")]
    Unaligned {
        /// Its size.
        bytes: usize,
    },
    /// A record is shorter than its header.
    #[error("printf record at word {word}: length {len} is shorter than the {header}-word header")]
    ShortRecord {
        /// Word index of the record.
        word: usize,
        /// Its length field.
        len: u32,
        /// Header words.
        header: u32,
    },
    /// A record runs past the words that were written.
    #[error("printf record at word {word}: length {len} runs past the {available} words available")]
    Truncated {
        /// Word index of the record.
        word: usize,
        /// Its length field.
        len: u32,
        /// Words from the record to the end of the area.
        available: usize,
    },
    /// A record's argument byte count does not fit the record.
    #[error("printf record at word {word}: {arg_bytes} argument bytes do not fit in {len} words")]
    BadArgBytes {
        /// Word index of the record.
        word: usize,
        /// Its length field.
        len: u32,
        /// Its argument byte count.
        arg_bytes: u32,
    },
}

/// A record as the device wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRecord<'a> {
    /// Byte offset of the call.
    pub pc: u32,
    /// Guest address of the format string.
    pub format: u64,
    /// One of `abi::PRINTF_ARGS_*`.
    pub arg_source: u32,
    /// `blockIdx`.
    pub block: [u32; 3],
    /// `threadIdx`.
    pub thread: [u32; 3],
    /// The argument bytes copied at call time.
    pub args: &'a [u8],
}

/// Splits the record words of a printf area (`min(USED, capacity)` words from `abi::printf_word::RECORDS`)
/// into records. Stops at a zero length (the end mark of an overflowing launch) or at the end; a malformed
/// record ends the list with its error.
pub fn parse_records(area: &[u8]) -> (Vec<RawRecord<'_>>, Option<PrintfError>) {
    use abi::printf_record as r;
    let mut out = Vec::new();
    if area.len() % 4 != 0 {
        return (out, Some(PrintfError::Unaligned { bytes: area.len() }));
    }
    let words = area.len() / 4;
    let word = |i: usize| -> u32 {
        let b = &area[4 * i..4 * i + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    };
    let mut at = 0usize;
    while at < words {
        let len = word(at);
        if len == 0 {
            break;
        }
        if len < r::HEADER_WORDS {
            return (out, Some(PrintfError::ShortRecord { word: at, len, header: r::HEADER_WORDS }));
        }
        let available = words - at;
        if len as usize > available {
            return (out, Some(PrintfError::Truncated { word: at, len, available }));
        }
        let f = |k: u32| word(at + k as usize);
        let arg_bytes = f(r::ARG_BYTES);
        let header_bytes = 4 * r::HEADER_WORDS as usize;
        if u64::from(arg_bytes) > 4 * u64::from(len) - header_bytes as u64 {
            return (out, Some(PrintfError::BadArgBytes { word: at, len, arg_bytes }));
        }
        let start = 4 * at + header_bytes;
        out.push(RawRecord {
            pc: f(r::PC),
            format: u64::from(f(r::FORMAT)) | (u64::from(f(r::FORMAT + 1)) << 32),
            arg_source: f(r::ARG_SOURCE),
            block: [f(r::CTAID), f(r::CTAID + 1), f(r::CTAID + 2)],
            thread: [f(r::TID), f(r::TID + 1), f(r::TID + 2)],
            args: &area[start..start + arg_bytes as usize],
        });
        at += len as usize;
    }
    (out, None)
}

/// Most bytes read for one string (the format or a `%s` argument).
pub const MAX_STRING_BYTES: usize = 64 * 1024;

/// Reads a NUL-terminated guest string (without the NUL) at an address; `Err` says why it cannot.
pub type StringReader<'r> = dyn FnMut(u64) -> Result<Vec<u8>, String> + 'r;

/// Formats one record: reads its format string and `%s` arguments through `strings`.
pub fn format_record(record: &RawRecord<'_>, strings: &mut StringReader<'_>) -> String {
    if record.format == 0 {
        return "<printf: null format string>".into();
    }
    let fmt = match strings(record.format) {
        Ok(f) => f,
        Err(why) => return format!("<printf: format string at {:#x}: {why}>", record.format),
    };
    let mut text = format(&fmt, record.args, strings);
    if record.arg_source == abi::PRINTF_ARGS_ELSEWHERE && !record.args.is_empty() {
        text.push_str("<printf: arguments were not in local memory>");
    } else if record.arg_source == abi::PRINTF_ARGS_ELSEWHERE && text.contains("<printf: missing argument") {
        text.push_str("<printf: the argument buffer was not in local memory and was not copied>");
    }
    text
}

/// Formats `fmt` with the packed argument bytes `args` as CUDA's device printf does. Problems become
/// `<printf: ...>` markers in the text.
pub fn format(fmt: &[u8], args: &[u8], strings: &mut StringReader<'_>) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(fmt.len() + 16);
    let mut args = Args { bytes: args, at: 0 };
    let mut i = 0usize;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let Some(spec) = Spec::parse(fmt, &mut i) else {
            out.extend_from_slice(b"<printf: incomplete conversion at the end of the format>");
            break;
        };
        spec.write(&fmt[start..i], &mut args, strings, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct Args<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Args<'_> {
    /// The next `size`-byte argument at its natural alignment.
    fn take(&mut self, size: usize) -> Option<u64> {
        let start = self.at.div_ceil(size) * size;
        let b = self.bytes.get(start..start.checked_add(size)?)?;
        self.at = start + size;
        let mut w = [0u8; 8];
        w[..size].copy_from_slice(b);
        Some(u64::from_le_bytes(w))
    }
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<Count>,
    precision: Option<Count>,
    /// Length modifier: 0 none, 1 hh, 2 h, 3 l, 4 ll (also j, z, t), 5 L.
    length: u8,
    conversion: u8,
}

#[derive(Clone, Copy)]
enum Count {
    Given(usize),
    Star,
}

/// Widths and precisions beyond this are clamped (a hostile format must not allocate gigabytes).
const MAX_FIELD: usize = 4096;

impl Spec {
    /// Parses after the `%`; `None` when the format ends inside the specification.
    fn parse(fmt: &[u8], i: &mut usize) -> Option<Spec> {
        let mut s = Spec::default();
        while let Some(&c) = fmt.get(*i) {
            match c {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            *i += 1;
        }
        s.width = Self::count(fmt, i);
        if fmt.get(*i) == Some(&b'.') {
            *i += 1;
            s.precision = Some(Self::count(fmt, i).unwrap_or(Count::Given(0)));
        }
        loop {
            match fmt.get(*i) {
                Some(b'h') if s.length == 2 => s.length = 1,
                Some(b'h') if s.length == 0 => s.length = 2,
                Some(b'l') if s.length == 3 => s.length = 4,
                Some(b'l') if s.length == 0 => s.length = 3,
                Some(b'j' | b'z' | b't') if s.length == 0 => s.length = 4,
                Some(b'L') if s.length == 0 => s.length = 5,
                _ => break,
            }
            *i += 1;
        }
        s.conversion = *fmt.get(*i)?;
        *i += 1;
        Some(s)
    }

    fn count(fmt: &[u8], i: &mut usize) -> Option<Count> {
        if fmt.get(*i) == Some(&b'*') {
            *i += 1;
            return Some(Count::Star);
        }
        let mut n: Option<usize> = None;
        while let Some(&c) = fmt.get(*i) {
            if !c.is_ascii_digit() {
                break;
            }
            n = Some((n.unwrap_or(0).saturating_mul(10).saturating_add(usize::from(c - b'0'))).min(MAX_FIELD));
            *i += 1;
        }
        n.map(Count::Given)
    }

    fn write(mut self, raw: &[u8], args: &mut Args<'_>, strings: &mut StringReader<'_>, out: &mut Vec<u8>) {
        let missing = |out: &mut Vec<u8>| {
            out.extend_from_slice(b"<printf: missing argument for ");
            out.extend_from_slice(raw);
            out.push(b'>');
        };
        // `*` widths and precisions are int arguments before the value.
        let mut width = 0usize;
        match self.width {
            Some(Count::Given(w)) => width = w,
            Some(Count::Star) => match args.take(4) {
                Some(v) => {
                    let v = v as u32 as i32;
                    if v < 0 {
                        self.left = true;
                    }
                    width = (v.unsigned_abs() as usize).min(MAX_FIELD);
                }
                None => return missing(out),
            },
            None => {}
        }
        let precision = match self.precision {
            Some(Count::Given(p)) => Some(p),
            Some(Count::Star) => match args.take(4) {
                Some(v) => {
                    let v = v as u32 as i32;
                    (v >= 0).then_some((v as usize).min(MAX_FIELD))
                }
                None => return missing(out),
            },
            None => None,
        };
        let conv = self.conversion;
        let body: Vec<u8>;
        let mut sign: &[u8] = b"";
        let mut prefix: &[u8] = b"";
        let mut zero_pad = self.zero && !self.left;
        match conv {
            b'%' => {
                out.push(b'%');
                return;
            }
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'c' => {
                if self.length == 5 {
                    out.extend_from_slice(b"<printf: unsupported length modifier in ");
                    out.extend_from_slice(raw);
                    out.push(b'>');
                    return;
                }
                let size = if self.length >= 3 { 8 } else { 4 };
                let Some(v) = args.take(size) else { return missing(out) };
                if conv == b'c' {
                    body = vec![v as u8];
                    zero_pad = false;
                } else {
                    let signed = matches!(conv, b'd' | b'i');
                    let (neg, magnitude) = if signed {
                        let s = match self.length {
                            1 => i64::from(v as u8 as i8),
                            2 => i64::from(v as u16 as i16),
                            3 | 4 => v as i64,
                            _ => i64::from(v as u32 as i32),
                        };
                        (s < 0, s.unsigned_abs())
                    } else {
                        let u = match self.length {
                            1 => u64::from(v as u8),
                            2 => u64::from(v as u16),
                            3 | 4 => v,
                            _ => u64::from(v as u32),
                        };
                        (false, u)
                    };
                    let mut digits = match conv {
                        b'o' => format!("{magnitude:o}"),
                        b'x' => format!("{magnitude:x}"),
                        b'X' => format!("{magnitude:X}"),
                        _ => magnitude.to_string(),
                    }
                    .into_bytes();
                    if let Some(p) = precision {
                        zero_pad = false;
                        if p == 0 && magnitude == 0 {
                            digits.clear();
                        }
                        if digits.len() < p {
                            let mut d = vec![b'0'; p - digits.len()];
                            d.extend_from_slice(&digits);
                            digits = d;
                        }
                    }
                    if self.alt && conv == b'o' && digits.first() != Some(&b'0') {
                        digits.insert(0, b'0');
                    }
                    if self.alt && magnitude != 0 && conv == b'x' {
                        prefix = b"0x";
                    }
                    if self.alt && magnitude != 0 && conv == b'X' {
                        prefix = b"0X";
                    }
                    if signed {
                        sign = if neg {
                            b"-"
                        } else if self.plus {
                            b"+"
                        } else if self.space {
                            b" "
                        } else {
                            b""
                        };
                    }
                    body = digits;
                }
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                if self.length == 5 {
                    out.extend_from_slice(b"<printf: long double is not supported in ");
                    out.extend_from_slice(raw);
                    out.push(b'>');
                    return;
                }
                let Some(v) = args.take(8) else { return missing(out) };
                let x = f64::from_bits(v);
                sign = if x.is_sign_negative() {
                    b"-"
                } else if self.plus {
                    b"+"
                } else if self.space {
                    b" "
                } else {
                    b""
                };
                let upper = conv.is_ascii_uppercase();
                if !x.is_finite() {
                    zero_pad = false;
                    let s: &[u8] = match (x.is_nan(), upper) {
                        (true, false) => b"nan",
                        (true, true) => b"NAN",
                        (false, false) => b"inf",
                        (false, true) => b"INF",
                    };
                    body = s.to_vec();
                } else {
                    let a = x.abs();
                    let text = match conv.to_ascii_lowercase() {
                        b'f' => fixed(a, precision.unwrap_or(6), self.alt),
                        b'e' => exponential(a, precision.unwrap_or(6), self.alt),
                        b'g' => general(a, precision.unwrap_or(6), self.alt),
                        _ => {
                            prefix = if upper { b"0X" } else { b"0x" };
                            hex_float(a, precision, self.alt)
                        }
                    };
                    body = if upper { text.to_ascii_uppercase().into_bytes() } else { text.into_bytes() };
                }
            }
            b's' => {
                if self.length >= 3 {
                    out.extend_from_slice(b"<printf: wide strings are not supported in ");
                    out.extend_from_slice(raw);
                    out.push(b'>');
                    args.take(8);
                    return;
                }
                let Some(p) = args.take(8) else { return missing(out) };
                zero_pad = false;
                // The precision cuts the string, never a marker.
                let cut = |mut s: Vec<u8>| {
                    if let Some(p) = precision {
                        s.truncate(p);
                    }
                    s
                };
                body = if p == 0 {
                    cut(b"(null)".to_vec())
                } else {
                    match strings(p) {
                        Ok(s) => cut(s),
                        Err(why) => format!("<printf: %s argument {p:#x}: {why}>").into_bytes(),
                    }
                };
            }
            b'p' => {
                let Some(p) = args.take(8) else { return missing(out) };
                zero_pad = false;
                if p == 0 {
                    body = b"(nil)".to_vec();
                } else {
                    prefix = b"0x";
                    body = format!("{p:x}").into_bytes();
                }
            }
            b'n' => {
                args.take(8);
                out.extend_from_slice(b"<printf: %n is not supported>");
                return;
            }
            _ => {
                out.extend_from_slice(b"<printf: unknown conversion ");
                out.extend_from_slice(raw);
                out.push(b'>');
                return;
            }
        }
        let len = sign.len() + prefix.len() + body.len();
        let pad = width.saturating_sub(len);
        if self.left {
            out.extend_from_slice(sign);
            out.extend_from_slice(prefix);
            out.extend_from_slice(&body);
            out.resize(out.len() + pad, b' ');
        } else if zero_pad {
            out.extend_from_slice(sign);
            out.extend_from_slice(prefix);
            out.resize(out.len() + pad, b'0');
            out.extend_from_slice(&body);
        } else {
            out.resize(out.len() + pad, b' ');
            out.extend_from_slice(sign);
            out.extend_from_slice(prefix);
            out.extend_from_slice(&body);
        }
    }
}

/// `%f` of a finite non-negative value (Rust's fixed formatting rounds the exact binary value to nearest,
/// ties to even, as glibc does).
fn fixed(a: f64, precision: usize, alt: bool) -> String {
    let mut s = format!("{a:.precision$}");
    if alt && precision == 0 {
        s.push('.');
    }
    s
}

/// Mantissa text and decimal exponent of `%e` with `precision` digits after the point.
fn exp_parts(a: f64, precision: usize) -> (String, i32) {
    let s = format!("{a:.precision$e}");
    match s.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse().unwrap_or(0)),
        None => (s, 0),
    }
}

fn exp_suffix(e: i32) -> String {
    format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.unsigned_abs())
}

fn exponential(a: f64, precision: usize, alt: bool) -> String {
    let (mut m, e) = exp_parts(a, precision);
    if alt && precision == 0 {
        m.push('.');
    }
    m + &exp_suffix(e)
}

fn strip_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

fn general(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let (_, x) = exp_parts(a, p - 1);
    if (x as i64) < p as i64 && x >= -4 {
        let digits = (p as i64 - 1 - x as i64).max(0) as usize;
        let mut s = fixed(a, digits, alt);
        if !alt {
            strip_zeros(&mut s);
        }
        s
    } else {
        let (mut m, e) = exp_parts(a, p - 1);
        if !alt {
            strip_zeros(&mut m);
        } else if !m.contains('.') {
            m.push('.');
        }
        m + &exp_suffix(e)
    }
}

/// `%a` without the `0x` prefix: `h.hhhp±d`, exact when no precision is given, else rounded to nearest even.
fn hex_float(a: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = bits & ((1u64 << 52) - 1);
    if biased == 0 && mant == 0 {
        let mut s = String::from("0");
        if let Some(p) = precision.filter(|&p| p > 0) {
            s.push('.');
            s.extend(std::iter::repeat_n('0', p.min(MAX_FIELD)));
        } else if alt {
            s.push('.');
        }
        return s + "p+0";
    }
    let (mut lead, exp) = if biased == 0 { (0u64, -1022i64) } else { (1u64, biased - 1023) };
    let mut digits = 13usize;
    if let Some(p) = precision {
        if p < 13 {
            let drop = 4 * (13 - p) as u32;
            let half = 1u64 << (drop - 1);
            let rest = mant & ((1u64 << drop) - 1);
            mant >>= drop;
            if rest > half || (rest == half && mant & 1 == 1) {
                mant += 1;
                if mant >> (4 * p) != 0 {
                    mant &= (1u64 << (4 * p)).wrapping_sub(1);
                    lead += 1;
                }
            }
            digits = p;
        }
    }
    let mut frac = if digits == 0 { String::new() } else { format!("{mant:0digits$x}") };
    if precision.is_none() {
        while frac.ends_with('0') {
            frac.pop();
        }
    } else if let Some(p) = precision.filter(|&p| p > 13) {
        frac.extend(std::iter::repeat_n('0', p.min(MAX_FIELD) - 13));
    }
    let mut s = lead.to_string();
    if !frac.is_empty() || alt {
        s.push('.');
    }
    s.push_str(&frac);
    s + &format!("p{}{}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: &str, args: &[u8]) -> String {
        format(f.as_bytes(), args, &mut |a| if a == 0x1000 { Ok(b"guest".to_vec()) } else { Err("outside the window".into()) })
    }
    fn le32(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn integers_follow_c() {
        let a = le32(&[42, (-7i32) as u32, 0xbeef, 0]);
        assert_eq!(fmt("%d|%5d|%-4d|%x", &a), "42|   -7|48879|0");
        assert_eq!(fmt("%+d %08.3d %#x %#o %X", &le32(&[5, 3, 255, 8, 0xabc])), "+5      003 0xff 010 ABC");
        assert_eq!(fmt("%.0d|%u|%c%c", &le32(&[0, u32::MAX, u32::from(b'o'), u32::from(b'k')])), "|4294967295|ok");
        assert_eq!(fmt("%hhd %hd", &le32(&[0x1ff, 0x18000])), "-1 -32768");
    }

    #[test]
    fn wide_arguments_are_8_aligned() {
        // int at 0, then a long long at 8 (4 bytes of padding), then a double at 16.
        let mut a = le32(&[1, 0xdead]);
        a.extend((-3i64).to_le_bytes());
        a.extend(2.5f64.to_le_bytes());
        assert_eq!(fmt("%d %lld %f", &a), "1 -3 2.500000");
    }

    #[test]
    fn floats_follow_c() {
        let d = |v: f64| v.to_le_bytes().to_vec();
        assert_eq!(fmt("%e", &d(1234.5)), "1.234500e+03");
        assert_eq!(fmt("%g", &d(0.0001)), "0.0001");
        assert_eq!(fmt("%g", &d(1e-5)), "1e-05");
        assert_eq!(fmt("%g", &d(123456789.0)), "1.23457e+08");
        assert_eq!(fmt("%.3G", &d(0.5)), "0.5");
        assert_eq!(fmt("%8.2f|%-8.1f|", &d(-3.25)), "   -3.25|<printf: missing argument for %-8.1f>|");
        assert_eq!(fmt("%f %F", &[d(f64::INFINITY), d(f64::NAN)].concat()), "inf NAN");
        assert_eq!(fmt("%a", &d(1.0)), "0x1p+0");
        assert_eq!(fmt("%a", &d(3.0)), "0x1.8p+1");
        assert_eq!(fmt("%.1a", &d(1.96875)), "0x2.0p+0");
        assert_eq!(fmt("%010.3f", &d(-1.5)), "-00001.500");
    }

    #[test]
    fn strings_and_pointers() {
        let mut a = 0x1000u64.to_le_bytes().to_vec();
        a.extend(0u64.to_le_bytes());
        a.extend(0x1000u64.to_le_bytes());
        a.extend(0x2000u64.to_le_bytes());
        assert_eq!(fmt("[%s] %s %.3s %p", &a), "[guest] (null) gue 0x2000");
        assert_eq!(fmt("%s", &0x5u64.to_le_bytes()), "<printf: %s argument 0x5: outside the window>");
        assert_eq!(fmt("%p", &0u64.to_le_bytes()), "(nil)");
    }

    #[test]
    fn bad_formats_are_marked() {
        assert_eq!(fmt("100%", &[]), "100<printf: incomplete conversion at the end of the format>");
        assert_eq!(fmt("%q %%", &[]), "<printf: unknown conversion %q> %");
        assert_eq!(fmt("%d", &[1, 2]), "<printf: missing argument for %d>");
        assert_eq!(fmt("%n", &[0; 8]), "<printf: %n is not supported>");
    }

    #[test]
    fn records_parse_and_stop_at_the_end_mark() {
        use abi::printf_record as r;
        let mut rec = vec![0u32; r::HEADER_WORDS as usize + 1];
        rec[r::LEN as usize] = r::HEADER_WORDS + 1;
        rec[r::PC as usize] = 0x1e0;
        rec[r::FORMAT as usize] = 0x1000;
        rec[r::ARG_BYTES as usize] = 4;
        rec[r::TID as usize] = 7;
        rec[r::HEADER_WORDS as usize] = 9;
        let mut words = rec.clone();
        words.extend(&rec);
        words.push(0);
        words.extend([5, 5, 5]);
        let bytes = le32(&words);
        let (recs, problem) = parse_records(&bytes);
        assert_eq!(problem, None);
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].args, &9u32.to_le_bytes());
        assert_eq!(recs[0].thread, [7, 0, 0]);
        let (recs, problem) = parse_records(&bytes[..4 * rec.len() + 40]);
        assert_eq!(recs.len(), 1);
        assert!(matches!(problem, Some(PrintfError::Truncated { .. })), "{problem:?}");
        let (_, problem) = parse_records(&le32(&[3, 0, 0]));
        assert!(matches!(problem, Some(PrintfError::ShortRecord { .. })));
    }
}
