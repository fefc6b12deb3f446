//! A direct interpreter of the table: decode a word by walking the classes, print it by walking the
//! template. It is the executable reading of the model's documentation: the probe uses it to check every
//! entry against nvdisasm before writing the table, and the tests use it to check the committed golden
//! pairs. The generated decoder in `gen/` must agree with it; it is not fast and need not be.

use crate::model::*;
use std::fmt::Write as _;

/// Why a word does not decode or print.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// No class's opcode and fixed bits match.
    #[error("no class matches word {word:#034x}")]
    Unknown { word: u128 },
    /// The class matched, but a field holds a value nvdisasm rejects.
    #[error("class {class}: field `{field}` value {value:#x} is illegal")]
    Illegal { class: String, field: String, value: u64 },
    /// The table names a field the class does not define (a malformed table).
    #[error("class {class}: template names unknown field `{field}`")]
    UnknownField { class: String, field: String },
}

/// The 13-bit opcode key of a word (bit 91 as bit 12, bits 11:0).
pub fn opcode_key(word: u128) -> u16 {
    ((((word >> 91) & 1) as u16) << 12) | (word & 0xfff) as u16
}

/// The class a word belongs to: the first class in table order whose opcode and fixed bits match.
pub fn classify(table: &Table, word: u128) -> Option<&Class> {
    let key = opcode_key(word);
    table.classes.iter().find(|c| c.opcode == key && c.fixed.matches(word))
}

/// The variant of `class` that prints `word`.
pub fn variant_for(class: &Class, word: u128) -> Option<&Variant> {
    class.variants.iter().find(|v| v.when.matches(word))
}

/// Decodes and prints `word` at `address` exactly as nvdisasm `-raw` would.
pub fn format_word(table: &Table, word: u128, address: u64) -> Result<String, EvalError> {
    let class = classify(table, word).ok_or(EvalError::Unknown { word })?;
    format_class(class, word, address)
}

/// Prints `word`, known to belong to `class`, at `address`.
pub fn format_class(class: &Class, word: u128, address: u64) -> Result<String, EvalError> {
    let variant = variant_for(class, word).ok_or(EvalError::Unknown { word })?;
    let mut out = String::new();
    for piece in &variant.pieces {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Field { field, render } => {
                let f = class
                    .field(field)
                    .ok_or_else(|| EvalError::UnknownField { class: class.name.clone(), field: field.clone() })?;
                let value = f.extract(word);
                let text = render_value(render, value, f.width(), address).ok_or_else(|| EvalError::Illegal {
                    class: class.name.clone(),
                    field: field.clone(),
                    value,
                })?;
                out.push_str(&text);
            }
        }
    }
    Ok(out)
}

/// The register accesses `word`, known to belong to `class`, makes (see [`Access`] for the rules), each
/// clipped below its file's zero register; `None` when the class's accesses are unknown.
pub fn accesses(class: &Class, word: u128) -> Option<Vec<RegisterAccess>> {
    let rules = class.accesses.known()?;
    let mut decided: Vec<(RegFile, &Location)> = Vec::new();
    let mut out = Vec::new();
    for rule in rules {
        if decided.iter().any(|(f, l)| *f == rule.file && *l == &rule.location) || !rule.when.matches(word) {
            continue;
        }
        decided.push((rule.file, &rule.location));
        let first = rule.location.register(word);
        let zero = rule.file.zero_register();
        if rule.direction == Direction::None || first >= zero {
            continue;
        }
        let width = (zero - first).min(u64::from(rule.width)) as u8;
        out.push(RegisterAccess { file: rule.file, first: first as u8, width, direction: rule.direction });
    }
    Some(out)
}

/// The registers `word` reads and writes, one entry per register in nvdisasm's column order, a register
/// two accesses name marked with both directions; `None` when the class's accesses are unknown.
pub fn register_uses(class: &Class, word: u128) -> Option<Vec<RegisterUse>> {
    Some(merge_uses(accesses(class, word)?.iter()))
}

/// [`register_uses`] as nvdisasm's life-range listing shows it (see [`listed_uses`]).
pub fn listed_register_uses(class: &Class, word: u128) -> Option<Vec<RegisterUse>> {
    Some(listed_uses(&accesses(class, word)?))
}

/// The registers of `accesses` as nvdisasm's life-range listing shows them: merged as [`merge_uses`]
/// does, without the accesses it never lists (those of `UR0`..`UR3`, see [`RegisterAccess::is_listed`]).
pub fn listed_uses(accesses: &[RegisterAccess]) -> Vec<RegisterUse> {
    merge_uses(accesses.iter().filter(|a| a.is_listed()))
}

/// One entry per register of `accesses`, directions merged, in column order.
pub fn merge_uses<'a>(accesses: impl Iterator<Item = &'a RegisterAccess>) -> Vec<RegisterUse> {
    let mut marks: std::collections::BTreeMap<(u8, u8), RegisterUse> = std::collections::BTreeMap::new();
    for a in accesses {
        for index in a.registers() {
            let u = marks.entry((a.file.listing_order(), index)).or_insert(RegisterUse { file: a.file, index, direction: Direction::None });
            u.direction = u.direction.union(a.direction);
        }
    }
    marks.into_values().collect()
}

/// Renders one field value; `None` when the value is illegal.
pub fn render_value(render: &Render, value: u64, width: u32, address: u64) -> Option<String> {
    match render {
        Render::Table { entries, default } => match entries.binary_search_by_key(&value, |e| e.0) {
            Ok(i) => Some(entries[i].1.clone()),
            Err(_) => default.clone(),
        },
        Render::Number { rule, specials } => {
            if let Ok(i) = specials.binary_search_by_key(&value, |e| e.0) {
                return match &specials[i].1 {
                    Special::Text(t) => Some(t.clone()),
                    Special::Illegal => None,
                };
            }
            let n = rule_number(rule, value, width, address);
            let mut s = rule.prefix.clone();
            s.push_str(&format_number(rule.format, n));
            s.push_str(&rule.suffix);
            Some(s)
        }
    }
}

/// Steps 1-3 of [`NumberRule`]: sign extension, scaling, PC-relative adjustment.
pub fn rule_number(rule: &NumberRule, value: u64, width: u32, address: u64) -> i64 {
    let mut n = value as i64;
    if rule.signed && width > 0 && width < 64 {
        let sh = 64 - width;
        n = (n << sh) >> sh;
    }
    n = n.wrapping_shl(u32::from(rule.shift));
    if rule.pc_relative {
        n = (address as i64).wrapping_add(16).wrapping_add(n);
    }
    n
}

/// Prints a number in one of nvdisasm's formats (see [`NumberFormat`]).
pub fn format_number(format: NumberFormat, n: i64) -> String {
    match format {
        NumberFormat::Dec => n.to_string(),
        NumberFormat::Hex => format!("{:#x}", n as u64),
        NumberFormat::SignedHex => {
            if n < 0 {
                format!("-{:#x}", n.unsigned_abs())
            } else {
                format!("{n:#x}")
            }
        }
        NumberFormat::OffsetHex => match n.cmp(&0) {
            std::cmp::Ordering::Equal => String::new(),
            std::cmp::Ordering::Less => format!("-{:#x}", n.unsigned_abs()),
            std::cmp::Ordering::Greater => format!("+{n:#x}"),
        },
        NumberFormat::F32 => {
            let bits = n as u32;
            let x = f32::from_bits(bits);
            format_float(f64::from(x), x.is_nan(), bits & 0x0040_0000 != 0)
        }
        NumberFormat::F64Hi => {
            let x = f64::from_bits(u64::from(n as u32) << 32);
            format_float(x, x.is_nan(), (n as u32) & 0x0008_0000 != 0)
        }
        NumberFormat::F64 => {
            let x = f64::from_bits(n as u64);
            format_float(x, x.is_nan(), (n as u64) & 0x0008_0000_0000_0000 != 0)
        }
        NumberFormat::F16 => {
            let h = n as u16;
            format_float(f16_to_f64(h), (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0, h & 0x200 != 0)
        }
    }
}

/// IEEE binary16 → f64 (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        0x1f if frac == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN.copysign(sign),
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// nvdisasm's float text. `is_nan`/`quiet` describe NaNs (the sign is taken from `x`).
///
/// Observed rules (13.5.37): `+INF `, `-INF `, `+QNAN `, `-QNAN `, `+SNAN `, `-SNAN ` and `-0.0 ` carry a
/// trailing space; `0` for positive zero; magnitudes of at least 1e9 print as C `%.20e`
/// (`1.00000000000000000000e+09`); everything else as C `%.20g` (`0.5`, `0.10000000149011611938`,
/// `9.5367431640625e-07`).
pub fn format_float(x: f64, is_nan: bool, quiet: bool) -> String {
    let sign = if x.is_sign_negative() { '-' } else { '+' };
    if is_nan {
        return format!("{sign}{} ", if quiet { "QNAN" } else { "SNAN" });
    }
    if x.is_infinite() {
        return format!("{sign}INF ");
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0 ".to_owned() } else { "0".to_owned() };
    }
    if x.abs() >= 1e9 {
        c_exp(x, 20)
    } else {
        c_general(x, 20)
    }
}

/// C's `%.{prec}e`: mantissa with `prec` fraction digits, exponent with sign and at least two digits.
fn c_exp(x: f64, prec: usize) -> String {
    let s = format!("{x:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let mut out = String::from(mant);
    let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.unsigned_abs());
    out
}

/// C's `%.{prec}g`.
fn c_general(x: f64, prec: usize) -> String {
    let p = prec.max(1);
    // The exponent %e would print with p-1 fraction digits (after rounding).
    let e_form = format!("{x:.prec$e}", prec = p - 1);
    let exp: i32 = e_form.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let s = if exp < -4 || exp >= p as i32 {
        c_exp(x, p - 1)
    } else {
        let frac = (p as i32 - 1 - exp).max(0) as usize;
        format!("{x:.frac$}")
    };
    strip_zeros(&s)
}

/// Removes trailing fraction zeros (and a trailing point) from a `%f`/`%e` string.
fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.') } else { mant };
    format!("{mant}{exp}")
}
