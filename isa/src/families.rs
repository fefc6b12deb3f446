//! The human-edited family file (`translator/families.txt`): which translator family lowers each
//! mnemonic. `cargo xtask regen` expands it into the translator's dispatch (`translator/src/lower/
//! dispatch.rs`, a match on the decoder's `ClassId`), so each mnemonic and form has exactly one owner.
//!
//! ```text
//! family integer IMAD IADD3 PLOP3            # FAMILY KEY...: a module of translator/src/lower/
//! family predicate P2R PLOP3_0x021f          # a class (form) line wins over its mnemonic's
//! split ATOMS when opcode=0x1f8c 90:87=9 warp_form   # words of KEY whose bits hold go to FAMILY
//! ```
//!
//! A key is a mnemonic or a class name; each appears on at most one `family` line. `split` lines (tried
//! in file order, before the family lines) divide one key's words between families by word bits:
//! `HI:LO=V`, `HI:LO!=V`, `N=V` (one bit), `opcode=V` (the 13-bit opcode key). A split names a family
//! declared above it. Blank lines and `#` comments are ignored; errors carry the 1-based line and column.

use crate::parse::ParseError;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{space0, space1};
use nom::combinator::{all_consuming, map_res, opt};
use nom::multi::{many0, many1};
use nom::sequence::preceded;
use nom::{IResult, Parser};
use std::collections::BTreeMap;

/// What a split condition tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CondField {
    /// Word bits `lo..=hi`.
    Bits { hi: u8, lo: u8 },
    /// The 13-bit opcode key (word bit 91 as bit 12, bits 11:0).
    Opcode,
}

/// One test of a split: the field equals (or, with `equal` false, differs from) `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Condition {
    pub field: CondField,
    pub equal: bool,
    pub value: u64,
}

/// Words of `key` for which every condition holds go to `family`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub key: String,
    pub conditions: Vec<Condition>,
    pub family: String,
    /// 1-based line of the split in the file (for the generator's errors).
    pub line: usize,
}

/// The parsed family file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Families {
    /// Family names in file order.
    pub names: Vec<String>,
    /// Mnemonic or class name → (family, 1-based line).
    pub claims: BTreeMap<String, (String, usize)>,
    pub splits: Vec<Split>,
}

enum Line<'a> {
    Family(&'a str, Vec<(&'a str, &'a str)>),
    Split(&'a str, Vec<Condition>, &'a str, &'a str),
}

type Res<'a, T> = IResult<&'a str, T>;

fn key(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_').parse(i)
}

fn family_name(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_').parse(i)
}

fn number(i: &str) -> Res<'_, u64> {
    alt((
        map_res(
            preceded(tag("0x"), take_while1(|c: char| c.is_ascii_hexdigit())),
            |s| u64::from_str_radix(s, 16),
        ),
        map_res(take_while1(|c: char| c.is_ascii_digit()), str::parse::<u64>),
    ))
    .parse(i)
}

fn bit(i: &str) -> Res<'_, u8> {
    map_res(take_while1(|c: char| c.is_ascii_digit()), str::parse::<u8>).parse(i)
}

fn condition(i: &str) -> Res<'_, Condition> {
    let bits = |i| {
        let (i, hi) = bit(i)?;
        let (i, lo) = opt(preceded(tag(":"), bit)).parse(i)?;
        Ok((
            i,
            CondField::Bits {
                hi,
                lo: lo.unwrap_or(hi),
            },
        ))
    };
    let field = alt((
        nom::combinator::value(CondField::Opcode, tag("opcode")),
        bits,
    ));
    let (i, (f, op, v)) = (field, alt((tag("!="), tag("="))), number).parse(i)?;
    Ok((
        i,
        Condition {
            field: f,
            equal: op == "=",
            value: v,
        },
    ))
}

/// A token with its own text (for the column of an error about it).
fn with_text<'a, T>(
    mut p: impl Parser<&'a str, Output = T, Error = nom::error::Error<&'a str>>,
) -> impl FnMut(&'a str) -> Res<'a, (T, &'a str)> {
    move |i: &'a str| {
        let (r, v) = p.parse(i)?;
        Ok((r, (v, i)))
    }
}

fn line(i: &str) -> Res<'_, Line<'_>> {
    let comment = || opt(preceded(space0, preceded(tag("#"), nom::combinator::rest)));
    if let Some(rest) = i.strip_prefix("family") {
        let (r, (_, name, keys, _, _)) = all_consuming((
            space1,
            family_name,
            many0(preceded(space1, with_text(key))),
            space0,
            comment(),
        ))
        .parse(rest)?;
        return Ok((r, Line::Family(name, keys)));
    }
    if let Some(rest) = i.strip_prefix("split") {
        let (r, (_, k, _, _, conds, _, (fam, at), _, _)) = all_consuming((
            space1,
            key,
            space1,
            tag("when"),
            many1(preceded(space1, condition)),
            space1,
            with_text(family_name),
            space0,
            comment(),
        ))
        .parse(rest)?;
        return Ok((r, Line::Split(k, conds, fam, at)));
    }
    Err(nom::Err::Error(nom::error::Error::new(
        i,
        nom::error::ErrorKind::Tag,
    )))
}

/// Parses a family file.
pub fn parse_families(text: &str) -> Result<Families, ParseError> {
    let mut out = Families::default();
    for (n, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = raw.len() - trimmed.len();
        let fail = |at: &str, message: &str| ParseError {
            line: n + 1,
            column: indent + trimmed.len() - at.len() + 1,
            message: message.to_owned(),
        };
        match line(trimmed.trim_end()) {
            Ok((_, Line::Family(name, keys))) => {
                if out.names.iter().any(|f| f == name) {
                    return Err(fail(
                        &trimmed["family ".len()..],
                        &format!("second `family` line for `{name}`"),
                    ));
                }
                out.names.push(name.to_owned());
                for (k, at) in keys {
                    if let Some((other, line)) = out.claims.get(k) {
                        return Err(fail(
                            at,
                            &format!("`{k}` is already claimed by family `{other}` (line {line})"),
                        ));
                    }
                    out.claims.insert(k.to_owned(), (name.to_owned(), n + 1));
                }
            }
            Ok((_, Line::Split(k, conditions, fam, at))) => {
                if !out.names.iter().any(|f| f == fam) {
                    return Err(fail(at, &format!("family `{fam}` is not declared above")));
                }
                out.splits.push(Split {
                    key: k.to_owned(),
                    conditions,
                    family: fam.to_owned(),
                    line: n + 1,
                });
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
                let what = if trimmed.starts_with("family") || trimmed.starts_with("split") {
                    "expected `family NAME KEY...` or `split KEY when COND... FAMILY` (COND: `HI:LO=V`, `N!=V`, `opcode=V`)"
                } else {
                    "expected a directive: `family` or `split`"
                };
                return Err(fail(e.input, what));
            }
            Err(nom::Err::Incomplete(_)) => return Err(fail("", "incomplete line")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_families_and_splits() {
        let f = parse_families("# c\nfamily integer IMAD PLOP3  # x\nfamily predicate P2R PLOP3_0x021f\n\nsplit ATOMS when opcode=0x1f8c 90:87=9 74:73!=0 predicate\n").unwrap();
        assert_eq!(f.names, ["integer", "predicate"]);
        assert_eq!(f.claims["PLOP3"].0, "integer");
        assert_eq!(f.claims["PLOP3_0x021f"].0, "predicate");
        let s = &f.splits[0];
        assert_eq!(
            (s.key.as_str(), s.family.as_str(), s.line),
            ("ATOMS", "predicate", 5)
        );
        assert_eq!(
            s.conditions[0],
            Condition {
                field: CondField::Opcode,
                equal: true,
                value: 0x1f8c
            }
        );
        assert_eq!(
            s.conditions[1],
            Condition {
                field: CondField::Bits { hi: 90, lo: 87 },
                equal: true,
                value: 9
            }
        );
        assert_eq!(
            s.conditions[2],
            Condition {
                field: CondField::Bits { hi: 74, lo: 73 },
                equal: false,
                value: 0
            }
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_families("family integer IMAD\nfamily float FADD IMAD\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 19));
        assert!(e.message.contains("already claimed"), "{}", e.message);
        let e = parse_families("family integer IMAD\nsplit IMAD when 1=1 float\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 21));
        let e = parse_families("\n  frob IMAD\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        let e = parse_families("family integer IMAD\nsplit IMAD when 90:87 integer\n").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
