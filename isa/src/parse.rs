//! Text → model: the nom parser for the table format (`docs/isa-table.md`).
//!
//! The format is line-oriented: each non-blank, non-comment line is one directive. Syntax errors carry the
//! 1-based line and column where the parser stopped; semantic errors (unknown field, undefined
//! placeholder, overlapping ranges, ...) carry the line of the offending directive.

use crate::model::*;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, digit1, hex_digit1, space0, space1};
use nom::combinator::{all_consuming, map, map_res, opt, recognize, value};
use nom::multi::{many0, separated_list1};
use nom::sequence::{preceded, separated_pair};
use nom::{IResult, Parser};
use std::collections::BTreeMap;

/// A table parse error: where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (in characters) where the problem starts.
    pub column: usize,
    pub message: String,
}

/// One parsed directive.
enum Line {
    Arch(String),
    Nvdisasm(String),
    Class { name: String, mnemonic: String },
    Opcode(u16),
    Fixed(Pattern),
    Field(Field),
    Print { when: Pattern, template: String },
    Render { placeholder: String, render: Option<Render> },
    Access(Access),
    AccessUnknown(String),
    Uses { word: u128, text: String },
    Golden(Golden),
}

type Res<'a, T> = IResult<&'a str, T>;

fn ident(i: &str) -> Res<'_, &str> {
    recognize((
        take_while1(|c: char| c.is_ascii_alphabetic()),
        many0(take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_')),
    ))
    .parse(i)
}

/// A placeholder name: an identifier, optionally `#N`.
fn placeholder(i: &str) -> Res<'_, &str> {
    recognize((ident, opt((char('#'), digit1)))).parse(i)
}

fn hex_u128(i: &str) -> Res<'_, u128> {
    map_res(preceded(tag("0x"), hex_digit1), |h: &str| u128::from_str_radix(h, 16)).parse(i)
}

fn number_u64(i: &str) -> Res<'_, u64> {
    alt((
        map_res(preceded(tag("0x"), hex_digit1), |h: &str| u64::from_str_radix(h, 16)),
        map_res(digit1, |d: &str| d.parse::<u64>()),
    ))
    .parse(i)
}

fn number_u8(i: &str) -> Res<'_, u8> {
    map_res(digit1, |d: &str| d.parse::<u8>()).parse(i)
}

/// A double-quoted string with `\"`, `\\`, `\xNN` escapes.
fn quoted(i: &str) -> Res<'_, String> {
    let (mut rest, _) = char('"').parse(i)?;
    let mut out = String::new();
    loop {
        let mut chars = rest.chars();
        match chars.next() {
            None => {
                return Err(nom::Err::Error(nom::error::Error::new(rest, nom::error::ErrorKind::Char)));
            }
            Some('"') => return Ok((chars.as_str(), out)),
            Some('\\') => match chars.next() {
                Some('"') => {
                    out.push('"');
                    rest = chars.as_str();
                }
                Some('\\') => {
                    out.push('\\');
                    rest = chars.as_str();
                }
                Some('x') => {
                    let after = chars.as_str();
                    let hex = after.get(..2).and_then(|h| u8::from_str_radix(h, 16).ok());
                    match hex {
                        Some(b) => {
                            out.push(char::from(b));
                            rest = &after[2..];
                        }
                        None => {
                            return Err(nom::Err::Error(nom::error::Error::new(
                                rest,
                                nom::error::ErrorKind::Escaped,
                            )))
                        }
                    }
                }
                _ => {
                    return Err(nom::Err::Error(nom::error::Error::new(rest, nom::error::ErrorKind::Escaped)));
                }
            },
            Some(c) => {
                out.push(c);
                rest = chars.as_str();
            }
        }
    }
}

fn pattern(i: &str) -> Res<'_, Pattern> {
    map(separated_pair(hex_u128, char('/'), hex_u128), |(mask, value)| Pattern { mask, value }).parse(i)
}

fn bit_range(i: &str) -> Res<'_, BitRange> {
    alt((
        map(separated_pair(number_u8, char(':'), number_u8), |(hi, lo)| BitRange { lo, hi }),
        map(number_u8, |b| BitRange { lo: b, hi: b }),
    ))
    .parse(i)
}

fn field_kind(i: &str) -> Res<'_, FieldKind> {
    alt((
        value(FieldKind::Register(RegFile::Gpr), tag("gpr")),
        value(FieldKind::Register(RegFile::Uniform), tag("ureg")),
        value(FieldKind::Register(RegFile::Pred), tag("pred")),
        value(FieldKind::Register(RegFile::UniformPred), tag("upred")),
        value(FieldKind::Register(RegFile::Barrier), tag("breg")),
        value(FieldKind::Immediate, tag("imm")),
        value(FieldKind::ConstBank, tag("cbank")),
        value(FieldKind::ConstOffset, tag("coff")),
        value(FieldKind::BranchTarget, tag("target")),
        value(FieldKind::Modifier, tag("mod")),
        value(FieldKind::Other, tag("other")),
    ))
    .parse(i)
}

fn number_format(i: &str) -> Res<'_, NumberFormat> {
    alt((
        value(NumberFormat::Dec, tag("dec")),
        value(NumberFormat::Hex, tag("hex")),
        value(NumberFormat::SignedHex, tag("shex")),
        value(NumberFormat::OffsetHex, tag("off")),
        value(NumberFormat::F64Hi, tag("f64hi")),
        value(NumberFormat::F32, tag("f32")),
        value(NumberFormat::F16, tag("f16")),
        value(NumberFormat::F64, tag("f64")),
    ))
    .parse(i)
}

fn table_entry(i: &str) -> Res<'_, (u64, String)> {
    separated_pair(number_u64, char(':'), quoted).parse(i)
}

#[derive(Clone)]
enum NumOpt {
    Signed,
    Shift(u8),
    PcRel,
    Prefix(String),
    Suffix(String),
    Special(u64, Special),
}

fn num_opt(i: &str) -> Res<'_, NumOpt> {
    alt((
        value(NumOpt::Signed, tag("signed")),
        map(preceded(tag("shift="), number_u8), NumOpt::Shift),
        value(NumOpt::PcRel, tag("pcrel")),
        map(preceded(tag("prefix="), quoted), NumOpt::Prefix),
        map(preceded(tag("suffix="), quoted), NumOpt::Suffix),
        map(
            separated_pair(
                number_u64,
                char(':'),
                alt((value(Special::Illegal, tag("illegal")), map(quoted, Special::Text))),
            ),
            |(v, s)| NumOpt::Special(v, s),
        ),
    ))
    .parse(i)
}

fn render(i: &str) -> Res<'_, Render> {
    alt((
        map(
            preceded(tag("table"), (many0(preceded(space1, table_entry)), opt(preceded((space1, tag("*:")), quoted)))),
            |(entries, default)| Render::Table { entries, default },
        ),
        map(
            (preceded((tag("num"), space1), number_format), many0(preceded(space1, num_opt))),
            |(format, opts)| {
                let mut rule = NumberRule::plain(format);
                let mut specials = Vec::new();
                for o in opts {
                    match o {
                        NumOpt::Signed => rule.signed = true,
                        NumOpt::Shift(s) => rule.shift = s,
                        NumOpt::PcRel => rule.pc_relative = true,
                        NumOpt::Prefix(p) => rule.prefix = p,
                        NumOpt::Suffix(s) => rule.suffix = s,
                        NumOpt::Special(v, s) => specials.push((v, s)),
                    }
                }
                Render::Number { rule, specials }
            },
        ),
    ))
    .parse(i)
}

fn direction(i: &str) -> Res<'_, Direction> {
    alt((
        value(Direction::ReadWrite, tag("readwrite")),
        value(Direction::Read, tag("read")),
        value(Direction::Write, tag("write")),
        value(Direction::None, tag("none")),
    ))
    .parse(i)
}

/// A register file as access lines and register listings name it.
fn reg_file(i: &str) -> Res<'_, RegFile> {
    alt((
        value(RegFile::Uniform, tag("UR")),
        value(RegFile::UniformPred, tag("UP")),
        value(RegFile::Gpr, tag("R")),
        value(RegFile::Pred, tag("P")),
        value(RegFile::Barrier, tag("B")),
    ))
    .parse(i)
}

/// `=N` (a fixed register) or bit ranges, `~` first when the word stores the number complemented.
fn location(i: &str) -> Res<'_, Location> {
    alt((
        map(preceded(char('='), number_u8), Location::Fixed),
        map((opt(char('~')), separated_list1(char(','), bit_range)), |(inv, ranges)| Location::Bits {
            ranges,
            inverted: inv.is_some(),
        }),
    ))
    .parse(i)
}

/// `FILE LOCATION DIRECTION WIDTH [when PATTERN]`.
fn access(i: &str) -> Res<'_, Access> {
    map(
        (
            reg_file,
            preceded(space1, location),
            preceded(space1, direction),
            preceded(space1, number_u8),
            opt(preceded((space1, tag("when"), space1), pattern)),
        ),
        |(file, location, direction, width, when)| Access {
            file,
            location,
            direction,
            width,
            when: when.unwrap_or(Pattern::ANY),
        },
    )
    .parse(i)
}

/// One register of a listing: `R12^`, `UP3v`, `P0x`.
fn register_use(i: &str) -> Res<'_, RegisterUse> {
    map(
        (
            reg_file,
            number_u8,
            alt((
                value(Direction::Read, char('v')),
                value(Direction::Write, char('^')),
                value(Direction::ReadWrite, char('x')),
            )),
        ),
        |(file, index, direction)| RegisterUse { file, index, direction },
    )
    .parse(i)
}

/// A register listing as `uses` lines write it: marks separated by single spaces, possibly none.
pub fn parse_register_listing(text: &str) -> Result<Vec<RegisterUse>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    match all_consuming(separated_list1(char(' '), register_use)).parse(text) {
        Ok((_, v)) => Ok(v),
        Err(_) => Err(format!("bad register listing `{text}` (want marks such as `R2^ R6v P0x`)")),
    }
}

fn version(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| !c.is_whitespace()).parse(i)
}

fn directive(i: &str) -> Res<'_, Line> {
    let (start, _) = space0(i)?;
    let (rest, keyword) = ident(start)?;
    // Dispatch on the keyword so that errors point into the directive, not at its start.
    let (i, _) = space1(rest)?;
    match keyword {
        "arch" => map(ident, |a| Line::Arch(a.to_owned())).parse(i),
        "nvdisasm" => map(version, |v| Line::Nvdisasm(v.to_owned())).parse(i),
        "class" => map(separated_pair(ident, space1, quoted), |(n, m)| Line::Class {
            name: n.to_owned(),
            mnemonic: m,
        })
        .parse(i),
        "opcode" => map(map_res(number_u64, u16::try_from), Line::Opcode).parse(i),
        "fixed" => map(pattern, Line::Fixed).parse(i),
        "field" => map(
            (ident, preceded(space1, separated_list1(char(','), bit_range)), preceded(space1, field_kind)),
            |(name, bits, kind)| Line::Field(Field { name: name.to_owned(), bits, kind }),
        )
        .parse(i),
        "print" => map((opt((tag("when"), space1, pattern, space1)), quoted), |(when, template)| Line::Print {
            when: when.map(|(_, _, p, _)| p).unwrap_or(Pattern::ANY),
            template,
        })
        .parse(i),
        "render" => map(
            separated_pair(placeholder, space1, alt((map(tag("same"), |_| None), map(render, Some)))),
            |(p, r)| Line::Render { placeholder: p.to_owned(), render: r },
        )
        .parse(i),
        "access" => alt((
            map(preceded((tag("unknown"), space1), quoted), Line::AccessUnknown),
            map(access, Line::Access),
        ))
        .parse(i),
        "uses" => map(separated_pair(hex_u128, space1, quoted), |(word, text)| Line::Uses { word, text }).parse(i),
        "golden" => map(
            (number_u64, preceded(space1, hex_u128), preceded(space1, quoted)),
            |(address, word, text)| Line::Golden(Golden { address, word, text }),
        )
        .parse(i),
        // Unknown keyword: point at it.
        _ => Err(nom::Err::Error(nom::error::Error::new(start, nom::error::ErrorKind::Tag))),
    }
}

/// Splits a template into text and placeholder names (`{{`/`}}` are literal braces).
fn split_template(t: &str) -> Result<Vec<TemplatePart>, String> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut chars = t.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some((_, '}')) => break,
                        Some((_, ch)) => name.push(ch),
                        None => return Err("unterminated `{` in template".into()),
                    }
                }
                if all_consuming(placeholder).parse(name.as_str()).is_err() {
                    return Err(format!("bad placeholder `{{{name}}}`"));
                }
                if !text.is_empty() {
                    parts.push(TemplatePart::Text(std::mem::take(&mut text)));
                }
                parts.push(TemplatePart::Slot(name));
            }
            '}' => return Err("lone `}` in template (write `}}`)".into()),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        parts.push(TemplatePart::Text(text));
    }
    Ok(parts)
}

enum TemplatePart {
    Text(String),
    Slot(String),
}

/// A variant being assembled: its template and the renders seen so far.
struct PendingVariant {
    line: usize,
    when: Pattern,
    parts: Vec<TemplatePart>,
    renders: BTreeMap<String, Render>,
}

struct PendingClass {
    line: usize,
    class: Class,
    opcode_seen: bool,
    fixed_seen: bool,
    variant: Option<PendingVariant>,
    /// The previous variant's renders, for `render NAME same`.
    previous: BTreeMap<String, Render>,
}

fn err(line: usize, column: usize, message: impl Into<String>) -> ParseError {
    ParseError { line, column, message: message.into() }
}

/// Parses a whole table.
pub fn parse_table(text: &str) -> Result<Table, ParseError> {
    let mut table = Table::default();
    let mut arch_seen = false;
    let mut version_seen = false;
    let mut current: Option<PendingClass> = None;
    let mut names = std::collections::HashSet::new();
    for (idx, raw) in text.lines().enumerate() {
        let lno = idx + 1;
        let trimmed = raw.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let line = match all_consuming((directive, space0)).parse(raw) {
            Ok((_, (l, _))) => l,
            Err(e) => {
                let rest = match &e {
                    nom::Err::Error(e) | nom::Err::Failure(e) => e.input,
                    nom::Err::Incomplete(_) => "",
                };
                let consumed = raw.len() - rest.len();
                let column = raw[..consumed].chars().count() + 1;
                let word = trimmed.split_whitespace().next().unwrap_or("");
                return Err(err(lno, column, format!("syntax error in `{word}` directive")));
            }
        };
        match line {
            Line::Arch(a) => {
                if current.is_some() || arch_seen {
                    return Err(err(lno, 1, "`arch` must appear once, before the first class"));
                }
                arch_seen = true;
                table.arch = a;
            }
            Line::Nvdisasm(v) => {
                if current.is_some() || version_seen {
                    return Err(err(lno, 1, "`nvdisasm` must appear once, before the first class"));
                }
                version_seen = true;
                table.nvdisasm = v;
            }
            Line::Class { name, mnemonic } => {
                if let Some(c) = current.take() {
                    table.classes.push(finish_class(c)?);
                }
                if !arch_seen || !version_seen {
                    return Err(err(lno, 1, "`arch` and `nvdisasm` must precede the first class"));
                }
                if !names.insert(name.clone()) {
                    return Err(err(lno, 7, format!("duplicate class name `{name}`")));
                }
                current = Some(PendingClass {
                    line: lno,
                    class: Class { name, mnemonic, ..Class::default() },
                    opcode_seen: false,
                    fixed_seen: false,
                    variant: None,
                    previous: BTreeMap::new(),
                });
            }
            other => {
                let Some(c) = current.as_mut() else {
                    return Err(err(lno, 1, "directive outside a class"));
                };
                class_line(c, other, lno)?;
            }
        }
    }
    if let Some(c) = current.take() {
        table.classes.push(finish_class(c)?);
    }
    if !arch_seen || !version_seen {
        return Err(err(text.lines().count().max(1), 1, "missing `arch` or `nvdisasm` header"));
    }
    Ok(table)
}

fn class_line(c: &mut PendingClass, line: Line, lno: usize) -> Result<(), ParseError> {
    match line {
        Line::Opcode(op) => {
            if op >= 1 << 13 {
                return Err(err(lno, 1, format!("opcode {op:#x} is wider than 13 bits")));
            }
            c.class.opcode = op;
            c.opcode_seen = true;
        }
        Line::Fixed(p) => {
            if p.value & !p.mask != 0 {
                return Err(err(lno, 1, "fixed value has bits outside its mask"));
            }
            c.class.fixed = p;
            c.fixed_seen = true;
        }
        Line::Field(f) => {
            if c.variant.is_some() || !c.class.variants.is_empty() {
                return Err(err(lno, 1, "`field` must precede the first `print`"));
            }
            if c.class.field(&f.name).is_some() {
                return Err(err(lno, 1, format!("duplicate field `{}`", f.name)));
            }
            for r in &f.bits {
                if r.lo > r.hi || r.hi > 127 {
                    return Err(err(lno, 1, format!("bad bit range {}:{} in field `{}`", r.hi, r.lo, f.name)));
                }
            }
            if f.width() > 64 {
                return Err(err(lno, 1, format!("field `{}` is wider than 64 bits", f.name)));
            }
            if f.mask().count_ones() != f.width() {
                return Err(err(lno, 1, format!("field `{}` has overlapping ranges", f.name)));
            }
            c.class.fields.push(f);
        }
        Line::Print { when, template } => {
            if when.value & !when.mask != 0 {
                return Err(err(lno, 1, "`when` value has bits outside its mask"));
            }
            if let Some(v) = c.variant.take() {
                c.previous = v.renders.clone();
                let done = finish_variant(&c.class, v)?;
                c.class.variants.push(done);
            }
            let parts = split_template(&template).map_err(|m| err(lno, 1, m))?;
            c.variant = Some(PendingVariant { line: lno, when, parts, renders: BTreeMap::new() });
        }
        Line::Render { placeholder, render } => {
            let Some(v) = c.variant.as_mut() else {
                return Err(err(lno, 1, "`render` before any `print`"));
            };
            let render = match render {
                Some(r) => r,
                None => c.previous.get(&placeholder).cloned().ok_or_else(|| {
                    err(lno, 1, format!("`render {placeholder} same` but the previous variant has no `{placeholder}`"))
                })?,
            };
            if v.renders.insert(placeholder.clone(), render).is_some() {
                return Err(err(lno, 1, format!("placeholder `{placeholder}` rendered twice")));
            }
            if !v.parts.iter().any(|p| matches!(p, TemplatePart::Slot(s) if *s == placeholder)) {
                return Err(err(lno, 1, format!("placeholder `{placeholder}` is not in the template")));
            }
        }
        Line::Access(a) => {
            if (a.direction == Direction::None) != (a.width == 0) {
                return Err(err(lno, 1, "an access has width 0 exactly when its direction is `none`"));
            }
            if a.when.value & !a.when.mask != 0 {
                return Err(err(lno, 1, "`when` value has bits outside its mask"));
            }
            if let Location::Bits { ranges, .. } = &a.location {
                let width: u32 = ranges.iter().map(BitRange::width).sum();
                if ranges.iter().any(|r| r.lo > r.hi || r.hi > 127) || width > 8 {
                    return Err(err(lno, 1, "an access location is at most 8 bits within the word"));
                }
            }
            match &mut c.class.accesses {
                Accesses::Known(v) => v.push(a),
                Accesses::Unknown(_) => return Err(err(lno, 1, "`access` after `access unknown`")),
            }
        }
        Line::AccessUnknown(reason) => match &c.class.accesses {
            Accesses::Known(v) if v.is_empty() => c.class.accesses = Accesses::Unknown(reason),
            _ => return Err(err(lno, 1, "`access unknown` together with other `access` lines")),
        },
        Line::Uses { word, text } => {
            let registers = parse_register_listing(&text).map_err(|m| err(lno, 1, m))?;
            c.class.uses.push(UsesGolden { word, registers });
        }
        Line::Golden(g) => c.class.golden.push(g),
        Line::Arch(_) | Line::Nvdisasm(_) | Line::Class { .. } => unreachable!("handled by the caller"),
    }
    Ok(())
}

fn finish_variant(class: &Class, v: PendingVariant) -> Result<Variant, ParseError> {
    let mut pieces = Vec::with_capacity(v.parts.len());
    for part in v.parts {
        match part {
            TemplatePart::Text(t) => pieces.push(Piece::Text(t)),
            TemplatePart::Slot(s) => {
                let field = s.split('#').next().unwrap_or(&s).to_owned();
                if class.field(&field).is_none() {
                    return Err(err(v.line, 1, format!("template names unknown field `{field}`")));
                }
                let Some(render) = v.renders.get(&s) else {
                    return Err(err(v.line, 1, format!("placeholder `{s}` has no `render` line")));
                };
                pieces.push(Piece::Field { field, render: render.clone() });
            }
        }
    }
    Ok(Variant { when: v.when, pieces })
}

fn finish_class(mut c: PendingClass) -> Result<Class, ParseError> {
    let lno = c.line;
    if let Some(v) = c.variant.take() {
        let done = finish_variant(&c.class, v)?;
        c.class.variants.push(done);
    }
    let name = &c.class.name;
    if !c.opcode_seen || !c.fixed_seen {
        return Err(err(lno, 1, format!("class `{name}` lacks `opcode` or `fixed`")));
    }
    if c.class.variants.is_empty() {
        return Err(err(lno, 1, format!("class `{name}` has no `print`")));
    }
    if c.class.variants.last().is_some_and(|v| v.when.mask != 0) {
        return Err(err(lno, 1, format!("the last variant of class `{name}` must have no `when`")));
    }
    let key_mask: u128 = (1 << 91) | 0xfff;
    let op = c.class.opcode;
    let key_value: u128 = (u128::from(op >> 12) << 91) | u128::from(op & 0xfff);
    if c.class.fixed.mask & key_mask != key_mask || c.class.fixed.value & key_mask != key_value {
        return Err(err(lno, 1, format!("class `{name}`: `fixed` does not contain opcode {op:#x}")));
    }
    Ok(c.class)
}
