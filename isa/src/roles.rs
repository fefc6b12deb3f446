//! The human-edited role file (`isa/roles.txt`): what the probe cannot tell about operands.
//!
//! The generator derives each class's operand slots, their kinds (register, uniform register, predicate,
//! immediate, constant bank, memory, target) and the direction and width of register operands from the
//! table (`docs/isa-table.md`, "Operand roles"). This file adds the names: the operand names of a mnemonic
//! (or of one class, which wins over its mnemonic), and the modifier flags a view answers. One fact per
//! line:
//!
//! ```text
//! operands IMAD dst a b c          # slot names in syntax order
//! operands IMAD_0x0225 dst a b c   # one class (form) overrides its mnemonic
//! flag IMAD wide WIDE              # Imad::wide() is true when the modifiers print `.WIDE`
//! optional LOP3 pout               # the optional operands (`P0, ` .. nothing for PT), in syntax order
//! ```
//!
//! Blank lines and `#` comments are ignored. Errors carry the 1-based line and column.

use crate::parse::ParseError;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{space0, space1};
use nom::combinator::{all_consuming, opt};
use nom::multi::many1;
use nom::sequence::preceded;
use nom::{IResult, Parser};
use std::collections::BTreeMap;

/// The parsed role file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roles {
    /// Mnemonic or class name → operand names in syntax order.
    pub operands: BTreeMap<String, Vec<String>>,
    /// Mnemonic → (flag name, modifier token) in file order.
    pub flags: BTreeMap<String, Vec<(String, String)>>,
    /// Mnemonic or class name → names of the optional operands (those nvdisasm leaves out at their default,
    /// `P0, ` .. nothing for `PT`) in syntax order.
    pub optional: BTreeMap<String, Vec<String>>,
}

impl Roles {
    /// The operand names of a class: its own line, else its mnemonic's.
    pub fn operand_names(&self, class: &str, mnemonic: &str) -> Option<&[String]> {
        self.operands.get(class).or_else(|| self.operands.get(mnemonic)).map(Vec::as_slice)
    }

    /// The optional operands' names of a class: its own line, else its mnemonic's.
    pub fn optional_names(&self, class: &str, mnemonic: &str) -> Option<&[String]> {
        self.optional.get(class).or_else(|| self.optional.get(mnemonic)).map(Vec::as_slice)
    }
}

enum Line {
    Operands(String, Vec<String>),
    Optional(String, Vec<String>),
    Flag(String, String, String),
}

type Res<'a, T> = IResult<&'a str, T>;

fn word(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_').parse(i)
}

fn name(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_').parse(i)
}

fn line(i: &str) -> Res<'_, Line> {
    let comment = || opt(preceded(space0, preceded(tag("#"), nom::combinator::rest)));
    // The keyword chooses the parser, so that an error points into the directive it belongs to.
    if let Some(rest) = i.strip_prefix("operands") {
        let (r, (_, key, names, _, _)) = all_consuming((space1, word, many1(preceded(space1, name)), space0, comment())).parse(rest)?;
        return Ok((r, Line::Operands(key.to_owned(), names.into_iter().map(str::to_owned).collect())));
    }
    if let Some(rest) = i.strip_prefix("optional") {
        let (r, (_, key, names, _, _)) = all_consuming((space1, word, many1(preceded(space1, name)), space0, comment())).parse(rest)?;
        return Ok((r, Line::Optional(key.to_owned(), names.into_iter().map(str::to_owned).collect())));
    }
    if let Some(rest) = i.strip_prefix("flag") {
        let token = take_while1(|c: char| !c.is_whitespace());
        let (r, (_, m, _, n, _, t, _, _)) = all_consuming((space1, word, space1, name, space1, token, space0, comment())).parse(rest)?;
        return Ok((r, Line::Flag(m.to_owned(), n.to_owned(), t.to_owned())));
    }
    Err(nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Tag)))
}

/// Parses a role file.
pub fn parse_roles(text: &str) -> Result<Roles, ParseError> {
    let mut roles = Roles::default();
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
            Ok((_, Line::Operands(key, names))) => {
                let mut seen = std::collections::BTreeSet::new();
                if let Some(dup) = names.iter().find(|n| !seen.insert(n.as_str())) {
                    let at = trimmed.rfind(dup.as_str()).map_or("", |p| &trimmed[p..]);
                    return Err(fail(at, &format!("operand name `{dup}` twice")));
                }
                if roles.operands.insert(key.clone(), names).is_some() {
                    return Err(fail(&trimmed["operands ".len()..], &format!("second `operands` line for `{key}`")));
                }
            }
            Ok((_, Line::Optional(key, names))) => {
                if roles.optional.insert(key.clone(), names).is_some() {
                    return Err(fail(&trimmed["optional ".len()..], &format!("second `optional` line for `{key}`")));
                }
            }
            Ok((_, Line::Flag(m, name, token))) => roles.flags.entry(m).or_default().push((name, token)),
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
                let what = if trimmed.starts_with("operands") || trimmed.starts_with("flag") || trimmed.starts_with("optional") {
                    "expected `operands KEY name...`, `optional KEY name...` or `flag MNEMONIC name TOKEN` (names lowercase)"
                } else {
                    "expected a directive: `operands`, `optional` or `flag`"
                };
                return Err(fail(e.input, what));
            }
            Err(nom::Err::Incomplete(_)) => return Err(fail("", "incomplete line")),
        }
    }
    Ok(roles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_flags() {
        let r = parse_roles("# c\noperands IMAD dst a b c  # x\n\nflag IMAD wide WIDE\noperands IMAD_0x0225 d a b c\n").unwrap();
        assert_eq!(r.operand_names("IMAD_0x0224", "IMAD").unwrap(), ["dst", "a", "b", "c"]);
        assert_eq!(r.operand_names("IMAD_0x0225", "IMAD").unwrap(), ["d", "a", "b", "c"]);
        assert_eq!(r.flags["IMAD"], [("wide".to_owned(), "WIDE".to_owned())]);
        let r = parse_roles("optional IADD3 carry carry2\noptional IADD3_0x0810_2 c\n").unwrap();
        assert_eq!(r.optional_names("IADD3_0x0210", "IADD3").unwrap(), ["carry", "carry2"]);
        assert_eq!(r.optional_names("IADD3_0x0810_2", "IADD3").unwrap(), ["c"]);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_roles("operands IMAD dst a\noperands IMAD Dst\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 15));
        let e = parse_roles("\n  frob IMAD\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        let e = parse_roles("operands IMAD a a\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("twice"));
    }
}
