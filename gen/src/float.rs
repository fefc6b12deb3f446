//! Float immediates printed the way nvdisasm prints them.
//!
//! nvdisasm prints `%.20g` (or `%.20e` from 1e9 up): 20 or 21 significant digits, correctly rounded from the
//! exact binary value. Most float immediates have an exact decimal expansion that fits a `u128` (`m × 5^k`
//! for `m × 2^-k`), and rounding that integer is far cheaper than Rust's exact precision formatting, which
//! falls back to big-number arithmetic for 20 digits. Tiny and huge magnitudes (an `f32` below about 1e-10,
//! most `f64` bit patterns) keep their leading 26 to 36 digits and whether any digit after them is
//! nonzero, worked out with a few 64-bit limbs (see [`Exact::huge`] and [`Exact::tiny`]): Rust's exact
//! formatting took about 14,000 instructions for each of them, a sixth of the golden mix's decode+format
//! time. It remains the path of last resort.

use std::fmt::{self, Write};

/// A float immediate's bit pattern.
#[derive(Debug, Clone, Copy)]
pub enum FloatBits {
    F16(u16),
    F32(u32),
    F64(u64),
}

/// Significant digits of `%.20g`.
const GENERAL_DIGITS: usize = 20;
/// Significant digits of `%.20e`.
const EXPONENT_DIGITS: usize = 21;

/// Prints a float immediate the way nvdisasm does (measured on 13.5.37): `+INF `, `-QNAN `, `+SNAN `, ...
/// (with a trailing space) for non-finite values, `-0.0 ` for negative zero, `%.20e` (C style, trailing zeros
/// kept) for magnitudes of at least 1e9, and `%.20g` otherwise. The digits are exact: every binary float has
/// a finite decimal expansion, rounded to nearest (ties to even) like glibc's printf.
pub fn write_float<W: Write + ?Sized>(out: &mut W, bits: FloatBits) -> fmt::Result {
    let f = Float::of(bits);
    let sign = if f.negative { "-" } else { "+" };
    if let Some((frac, quiet_bit)) = f.special {
        out.write_str(sign)?;
        // nvdisasm follows these (and `-0.0`) with a space.
        return out.write_str(match frac {
            0 => "INF ",
            f if f & quiet_bit != 0 => "QNAN ",
            _ => "SNAN ",
        });
    }
    if f.value == 0.0 {
        return out.write_str(if f.negative { "-0.0 " } else { "0" });
    }
    let exponent_form = f.value.abs() >= 1e9;
    if let Some(exact) = Exact::of(f.mantissa, f.exp2) {
        let mut text = [0u8; 64];
        let len = exact.write(&mut text, f.negative, exponent_form);
        // Only ASCII digits and signs were written.
        return out.write_str(std::str::from_utf8(text.get(..len).unwrap_or(&[])).map_err(|_| fmt::Error)?);
    }
    if exponent_form {
        write_c_exponent(out, f.value, EXPONENT_DIGITS - 1, false)
    } else {
        write_c_general(out, f.value, GENERAL_DIGITS)
    }
}

/// A decoded float: its value, sign, `mantissa × 2^exp2` magnitude, and for non-finite values the fraction
/// with its quiet bit.
struct Float {
    value: f64,
    negative: bool,
    mantissa: u64,
    exp2: i32,
    special: Option<(u64, u64)>,
}

impl Float {
    fn of(bits: FloatBits) -> Float {
        // (sign, biased exponent, fraction, fraction bits, exponent bias, all-ones exponent)
        let (negative, exp, frac, frac_bits, bias, max_exp) = match bits {
            FloatBits::F16(b) => (b & 0x8000 != 0, u64::from(b >> 10 & 0x1f), u64::from(b & 0x3ff), 10, 15, 0x1f),
            FloatBits::F32(b) => (b >> 31 != 0, u64::from(b >> 23 & 0xff), u64::from(b & 0x7f_ffff), 23, 127, 0xff),
            FloatBits::F64(b) => (b >> 63 != 0, b >> 52 & 0x7ff, b & 0xf_ffff_ffff_ffff, 52, 1023, 0x7ff),
        };
        let special = (exp == max_exp).then_some((frac, 1u64 << (frac_bits - 1)));
        // Subnormals have exponent 1 - bias and no implicit bit.
        let (mantissa, exp2) = match exp {
            0 => (frac, 1 - bias - frac_bits),
            e => (frac | 1 << frac_bits, e as i32 - bias - frac_bits),
        };
        let value = match bits {
            FloatBits::F16(b) => f16_to_f64(b),
            FloatBits::F32(b) => f64::from(f32::from_bits(b)),
            FloatBits::F64(b) => f64::from_bits(b),
        };
        Float { value, negative, mantissa, exp2, special }
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

/// A positive value as `(digits + ε) × 10^-scale`, with `0 ≤ ε < 1` and `ε > 0` exactly when `inexact`:
/// the leading decimal digits of the value, and whether any nonzero digit follows them.
struct Exact {
    digits: u128,
    scale: i32,
    inexact: bool,
}

/// Leading digits the wide paths keep: more than the 21 printed and the one that rounds them, so that
/// rounding sees every digit that matters and the rest only as `inexact`.
const KEPT_DIGITS: u32 = 26;

impl Exact {
    /// `mantissa × 2^exp2` (mantissa nonzero): exactly when its decimal form fits a `u128`, else its
    /// leading digits (see [`Exact::huge`], [`Exact::tiny`]).
    fn of(mantissa: u64, exp2: i32) -> Option<Exact> {
        if mantissa == 0 {
            return None;
        }
        let zeros = mantissa.trailing_zeros();
        let m = mantissa >> zeros;
        let e = exp2 + zeros as i32;
        if e >= 0 {
            let e = e.unsigned_abs();
            // `m << e` must keep every bit.
            if 128 - u128::from(m).leading_zeros() + e <= 128 {
                return Some(Exact { digits: u128::from(m) << e, scale: 0, inexact: false });
            }
            return Exact::huge(m, e);
        }
        // m × 2^-k = m × 5^k / 10^k.
        let k = e.unsigned_abs();
        match 5u128.checked_pow(k).and_then(|p| p.checked_mul(u128::from(m))) {
            Some(digits) => Some(Exact { digits, scale: k as i32, inexact: false }),
            None => Exact::tiny(m, k),
        }
    }

    /// `m × 2^e` past `u128`: the integer computed in base 10^9 (at most 2^1024, 35 limbs), its
    /// leading limbs kept.
    fn huge(m: u64, e: u32) -> Option<Exact> {
        const BASE: u64 = 1_000_000_000;
        let mut limbs = [0u32; 40];
        let mut len = 0;
        let mut rest = m;
        while rest != 0 {
            *limbs.get_mut(len)? = (rest % BASE) as u32;
            rest /= BASE;
            len += 1;
        }
        let mut left = e;
        while left > 0 {
            // 2^29 × (10^9 - 1) + carry stays below 2^64.
            let step = left.min(29);
            let mut carry = 0u64;
            for limb in limbs.get_mut(..len)? {
                let t = (u64::from(*limb) << step) + carry;
                *limb = (t % BASE) as u32;
                carry = t / BASE;
            }
            if carry != 0 {
                *limbs.get_mut(len)? = carry as u32;
                len += 1;
            }
            left -= step;
        }
        // At least 39 digits (the value is past 2^128): the top limb and the next three hold 28 to 36.
        let low = len.checked_sub(4)?;
        let mut digits = 0u128;
        for &limb in limbs.get(low..len)?.iter().rev() {
            digits = digits * u128::from(BASE) + u128::from(limb);
        }
        let inexact = limbs.get(..low)?.iter().any(|&l| l != 0);
        Some(Exact { digits, scale: -9 * low as i32, inexact })
    }

    /// `m × 2^-k` whose exact digits `m × 5^k` pass `u128`. With `D` the number of those digits and `s =
    /// D - KEPT_DIGITS`, the leading digits are `m × 5^k / 10^s = m × 5^(k-s) / 2^s`: an integer of at
    /// most 870 bits (for the smallest `f64`) shifted right, the bits shifted out being the digits after
    /// them. `D` comes from a logarithm and may be one off: the digits kept are checked.
    fn tiny(m: u64, k: u32) -> Option<Exact> {
        // log10(m × 5^k) + 1, rounded down.
        let log10_5 = 1.0 - std::f64::consts::LOG10_2;
        let estimate = (m as f64).log10() + f64::from(k) * log10_5;
        let d = estimate.floor() as i64 + 1;
        let s = u32::try_from(d - i64::from(KEPT_DIGITS)).ok().filter(|&s| s <= k)?;
        // m × 5^(k - s) in 64-bit limbs, least significant first.
        let mut limbs = [0u64; 16];
        limbs[0] = m;
        let mut len = 1;
        let mut left = k - s;
        while left > 0 {
            // 5^27 < 2^63.
            let step = left.min(27);
            let factor = 5u64.pow(step);
            let mut carry = 0u128;
            for limb in limbs.get_mut(..len)? {
                let t = u128::from(*limb) * u128::from(factor) + carry;
                *limb = t as u64;
                carry = t >> 64;
            }
            if carry != 0 {
                *limbs.get_mut(len)? = carry as u64;
                len += 1;
            }
            left -= step;
        }
        // The digits: bits s.. of the integer (at most 10^28, under 2^94).
        let (word, bit) = ((s / 64) as usize, s % 64);
        let limb = |i: usize| limbs.get(i).copied().unwrap_or(0);
        let shifted = |i: usize| if bit == 0 { limb(i) } else { limb(i) >> bit | limb(i + 1) << (64 - bit) };
        if (word + 2..len).any(|i| shifted(i) != 0) {
            return None;
        }
        let digits = u128::from(shifted(word)) | u128::from(shifted(word + 1)) << 64;
        let below = bit != 0 && limb(word) & ((1u64 << bit) - 1) != 0;
        let inexact = below || limbs.get(..word)?.iter().any(|&l| l != 0);
        // `D` was right to within one: the kept digits number KEPT_DIGITS ± 1.
        let kept = digits.checked_ilog10()? + 1;
        (kept.abs_diff(KEPT_DIGITS) <= 1).then_some(Exact { digits, scale: (k - s) as i32, inexact })
    }

    /// Writes `%.20e` (`exponent_form`) or `%.20g` into `text`; returns the length written.
    fn write(&self, text: &mut [u8; 64], negative: bool, exponent_form: bool) -> usize {
        // Decimal digits of the integer, most significant first.
        let mut all = [0u8; 40];
        let count = decimal_digits(self.digits, &mut all);
        let all = &mut all[..count];
        // The decimal exponent of the first digit.
        let mut exp10 = count as i32 - 1 - self.scale;
        let wanted = if exponent_form { EXPONENT_DIGITS } else { GENERAL_DIGITS };
        let (kept, carried) = round_to(all, wanted, self.inexact);
        if carried {
            exp10 += 1;
        }
        let digits = &all[..kept];
        let mut w = Cursor { text, len: 0 };
        if negative {
            w.push(b'-');
        }
        if exponent_form {
            // `%.20e`: every decimal kept.
            write_mantissa(&mut w, digits, wanted, false);
            write_exponent(&mut w, exp10);
        } else if !(-4..GENERAL_DIGITS as i32).contains(&exp10) {
            write_mantissa(&mut w, digits, wanted, true);
            write_exponent(&mut w, exp10);
        } else {
            // Fixed notation, trailing zeros (and a bare point) removed.
            let significant = digits.iter().rposition(|&d| d != 0).map_or(1, |i| i + 1);
            let digits = &digits[..significant];
            if exp10 < 0 {
                w.push(b'0');
                w.push(b'.');
                for _ in 0..(-exp10 - 1) {
                    w.push(b'0');
                }
                digits.iter().for_each(|&d| w.push(b'0' + d));
            } else {
                let int_len = exp10 as usize + 1;
                for i in 0..int_len {
                    w.push(b'0' + digits.get(i).copied().unwrap_or(0));
                }
                if digits.len() > int_len {
                    w.push(b'.');
                    digits[int_len..].iter().for_each(|&d| w.push(b'0' + d));
                }
            }
        }
        w.len
    }
}

/// Writes the decimal digits (values 0-9) of `n > 0` into `out`; returns how many.
fn decimal_digits(n: u128, out: &mut [u8; 40]) -> usize {
    const CHUNK: u128 = 10_000_000_000_000_000_000; // 10^19
    // At most three chunks of 19 digits, least significant first.
    let mut chunks = [0u64; 3];
    let mut used = 0;
    let mut rest = n;
    while rest != 0 && used < 3 {
        chunks[used] = (rest % CHUNK) as u64;
        rest /= CHUNK;
        used += 1;
    }
    let mut len = 0;
    for (i, &chunk) in chunks[..used].iter().enumerate().rev() {
        let mut buf = [0u8; 19];
        let mut v = chunk;
        for d in buf.iter_mut().rev() {
            *d = (v % 10) as u8;
            v /= 10;
        }
        // The leading chunk without its leading zeros; the others in full.
        let skip = if i + 1 == used { buf.iter().position(|&d| d != 0).unwrap_or(18) } else { 0 };
        for &d in &buf[skip..] {
            if let Some(slot) = out.get_mut(len) {
                *slot = d;
                len += 1;
            }
        }
    }
    len
}

/// Rounds `digits` to `wanted` significant digits, to nearest with ties to even; returns how many digits
/// now count (at most `wanted`) and whether rounding carried into a new leading digit (`999.. → 1000..`,
/// written as `1` then zeros). `inexact`: nonzero digits follow `digits` (there are more than `wanted`).
fn round_to(digits: &mut [u8], wanted: usize, inexact: bool) -> (usize, bool) {
    if digits.len() <= wanted {
        return (digits.len(), false);
    }
    let next = digits[wanted];
    let rest_zero = !inexact && digits[wanted + 1..].iter().all(|&d| d == 0);
    let up = next > 5 || (next == 5 && (!rest_zero || digits[wanted - 1] & 1 == 1));
    if !up {
        return (wanted, false);
    }
    for d in digits[..wanted].iter_mut().rev() {
        if *d == 9 {
            *d = 0;
        } else {
            *d += 1;
            return (wanted, false);
        }
    }
    digits[0] = 1;
    (wanted, true)
}

/// `d.ddd` with `wanted - 1` decimals (zeros added), or with trailing zeros and a bare point removed.
fn write_mantissa(w: &mut Cursor<'_>, digits: &[u8], wanted: usize, strip: bool) {
    let shown = if strip { digits.iter().rposition(|&d| d != 0).map_or(1, |i| i + 1) } else { wanted };
    w.push(b'0' + digits.first().copied().unwrap_or(0));
    if shown > 1 {
        w.push(b'.');
        for i in 1..shown {
            w.push(b'0' + digits.get(i).copied().unwrap_or(0));
        }
    }
}

/// `e+XX`: sign and at least two digits.
fn write_exponent(w: &mut Cursor<'_>, exp10: i32) {
    w.push(b'e');
    w.push(if exp10 < 0 { b'-' } else { b'+' });
    let e = exp10.unsigned_abs();
    if e >= 100 {
        w.push(b'0' + (e / 100) as u8);
    }
    w.push(b'0' + (e / 10 % 10) as u8);
    w.push(b'0' + (e % 10) as u8);
}

struct Cursor<'a> {
    text: &'a mut [u8; 64],
    len: usize,
}

impl Cursor<'_> {
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.text.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }
}

/// C's `%.{precision}e`: `d.ddde+XX` with at least two exponent digits; `strip` removes trailing zeros
/// (and a bare point), as `%g` does. The general path, through Rust's exact formatting.
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

/// C's `%.{precision}g`, the general path.
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

    fn text(bits: FloatBits) -> String {
        let mut s = String::new();
        write_float(&mut s, bits).unwrap();
        s
    }

    /// The general path only (Rust's exact formatting), for comparison with the integer path.
    fn general(bits: FloatBits) -> String {
        let f = Float::of(bits);
        let mut s = String::new();
        if f.value.abs() >= 1e9 {
            write_c_exponent(&mut s, f.value, EXPONENT_DIGITS - 1, false).unwrap();
        } else {
            write_c_general(&mut s, f.value, GENERAL_DIGITS).unwrap();
        }
        s
    }

    /// Every finite nonzero value takes one of the integer paths (the general one is a last resort), and
    /// the extremes print as Rust's exact formatting prints them.
    #[test]
    fn integer_paths_cover_every_magnitude() {
        let extremes = [1u64, 2, 3, 0x000f_ffff_ffff_ffff, 0x0010_0000_0000_0000, 0x7fef_ffff_ffff_ffff, 0x7fe0_0000_0000_0001, 0x0000_0000_8000_0001];
        for bits in extremes {
            assert_eq!(text(FloatBits::F64(bits)), general(FloatBits::F64(bits)), "{bits:#x}");
            assert_eq!(text(FloatBits::F64(bits | 1 << 63)), general(FloatBits::F64(bits | 1 << 63)), "{bits:#x}");
        }
        for bits in [1u32, 2, 0x007f_ffff, 0x0080_0000, 0x7f7f_ffff, 0x0000_ffff] {
            assert_eq!(text(FloatBits::F32(bits)), general(FloatBits::F32(bits)), "{bits:#x}");
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let covered = |bits: FloatBits| {
            let f = Float::of(bits);
            if f.special.is_none() && f.value != 0.0 {
                assert!(Exact::of(f.mantissa, f.exp2).is_some(), "{bits:?}");
            }
        };
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            covered(FloatBits::F64(x));
            covered(FloatBits::F32(x as u32));
        }
        for bits in extremes {
            covered(FloatBits::F64(bits));
        }
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
        for (bits, expected) in cases {
            assert_eq!(text(FloatBits::F32(bits)), expected, "{bits:#010x}");
        }
        assert_eq!(text(FloatBits::F64(0x4690000000000000)), "8.11296384146066816958e+31");
    }

    /// The integer path agrees with Rust's exact formatting (which rounds correctly, ties to even) on
    /// every kind of value: ties at the 20th digit (`2^-30` = 9.31322574615478515625e-10 has exactly 21),
    /// carries (`99999999999999999999.5`-like), both notations and their boundaries, subnormals.
    #[test]
    fn integer_path_matches_exact_formatting() {
        let mut checked = 0;
        let mut check = |bits: FloatBits| {
            let f = Float::of(bits);
            if f.special.is_some() || f.value == 0.0 {
                return;
            }
            assert_eq!(text(bits), general(bits), "{bits:?}");
            checked += 1;
        };
        // Odd mantissas over a range of binary exponents: all digit counts, ties included.
        for m in (1u64..4000).step_by(2) {
            for k in -80i32..80 {
                let v = m as f64 * 2f64.powi(k);
                check(FloatBits::F64(v.to_bits()));
                check(FloatBits::F64((-v).to_bits()));
                check(FloatBits::F32((v as f32).to_bits()));
            }
        }
        // Every F16, and a pseudo-random walk over F32 and F64 bit patterns.
        for b in 0..=u16::MAX {
            check(FloatBits::F16(b));
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check(FloatBits::F32(x as u32));
            check(FloatBits::F64(x));
            // Short mantissas (F64Hi immediates: the low half is zero).
            check(FloatBits::F64(x & 0xffff_ffff_0000_0000));
        }
        // Around the notation boundaries: 1e-4, 1e9, 1e20.
        for v in [1e-4f64, 1e-5, 1e9, 1e20, 99999999999999999999.0, 999999999.5, 0.0001220703125] {
            for d in -3i64..=3 {
                let b = (v.to_bits() as i64 + d) as u64;
                check(FloatBits::F64(b));
                check(FloatBits::F32(((v as f32).to_bits() as i64 + d) as u32));
            }
        }
        assert!(checked > 1_000_000);
    }
}
