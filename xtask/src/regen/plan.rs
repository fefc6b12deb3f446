//! What the generator will emit, worked out from the table before any tokens are written: class order,
//! opcode groups, deduplicated render tables and number rules, and legality checks.

use anyhow::{bail, Result};
use sassport_isa::eval::{format_number, rule_number};
use sassport_isa::{Class, Field, FieldKind, NumberFormat, NumberRule, Pattern, Piece, Render, Special, Table};
use std::collections::{BTreeMap, BTreeSet};

/// A field's bits as `(lo, width)` ranges, first least significant.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bits {
    pub ranges: Vec<(u8, u8)>,
}

impl Bits {
    pub fn of(field: &Field) -> Result<Bits> {
        if field.bits.is_empty() {
            bail!("field {} has no bits", field.name);
        }
        if field.width() > 64 {
            bail!("field {} is {} bits wide (at most 64)", field.name, field.width());
        }
        Ok(Bits { ranges: field.bits.iter().map(|r| (r.lo, r.width() as u8)).collect() })
    }
    pub fn width(&self) -> u32 {
        self.ranges.iter().map(|r| u32::from(r.1)).sum()
    }
}

/// A render table, deduplicated across the whole table.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RenderTable {
    pub entries: Vec<(u64, String)>,
    pub default: Option<String>,
}

/// A number rule with its specials (illegal values removed: the decoder refuses them).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RenderRule {
    pub format: String,
    pub signed: bool,
    pub shift: u8,
    pub pc_relative: bool,
    pub prefix: String,
    pub suffix: String,
    pub specials: Vec<(u64, String)>,
}

pub enum PiecePlan {
    Text(String),
    Table { bits: Bits, table: usize },
    Number { bits: Bits, rule: usize },
}

/// A value test the decoder makes for one field before accepting a variant.
pub struct Check {
    pub bits: Bits,
    /// Legal values, as inclusive ranges.
    pub legal: Vec<(u64, u64)>,
}

pub struct VariantPlan {
    pub when: Pattern,
    pub pieces: Vec<PiecePlan>,
    pub checks: Vec<Check>,
}

pub struct FieldPlan {
    pub name: String,
    pub bits: Bits,
    pub kind: FieldKind,
}

pub struct ClassPlan<'t> {
    pub class: &'t Class,
    pub fields: Vec<FieldPlan>,
    pub variants: Vec<VariantPlan>,
}

pub struct Plan<'t> {
    pub table: &'t Table,
    pub classes: Vec<ClassPlan<'t>>,
    /// Opcode key → class indices, in the order the table says to try them.
    pub opcodes: BTreeMap<u16, Vec<usize>>,
    pub tables: Vec<RenderTable>,
    pub rules: Vec<RenderRule>,
}

/// Distinct values in first-use order, each with its index.
pub(super) struct Interner<T: Ord + Clone> {
    pub(super) items: Vec<T>,
    index: BTreeMap<T, usize>,
}

impl<T: Ord + Clone> Interner<T> {
    pub(super) fn new() -> Self {
        Interner { items: Vec::new(), index: BTreeMap::new() }
    }
    pub(super) fn intern(&mut self, item: T) -> usize {
        if let Some(&i) = self.index.get(&item) {
            return i;
        }
        let i = self.items.len();
        self.items.push(item.clone());
        self.index.insert(item, i);
        i
    }
}

/// Inclusive ranges covering a sorted set.
fn ranges(values: impl IntoIterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for v in values {
        match out.last_mut() {
            Some((_, hi)) if hi.checked_add(1) == Some(v) => *hi = v,
            _ => out.push((v, v)),
        }
    }
    out
}

fn full_range(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A Rust identifier from arbitrary text: keeps ASCII alphanumerics and `_`.
pub fn ident_from(text: &str) -> String {
    let mut s: String = text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if matches!(
        s.as_str(),
        "as" | "break" | "const" | "continue" | "crate" | "else" | "enum" | "extern" | "false" | "fn" | "for"
            | "if" | "impl" | "in" | "let" | "loop" | "match" | "mod" | "move" | "mut" | "pub" | "ref"
            | "return" | "self" | "Self" | "static" | "struct" | "super" | "trait" | "true" | "type"
            | "unsafe" | "use" | "where" | "while" | "async" | "await" | "dyn" | "abstract" | "become"
            | "box" | "do" | "final" | "macro" | "override" | "priv" | "typeof" | "unsized" | "virtual"
            | "yield" | "try" | "gen"
    ) {
        s.push('_');
    }
    s
}

impl<'t> Plan<'t> {
    pub fn new(table: &'t Table) -> Result<Plan<'t>> {
        let mut tables = Interner::new();
        let mut rules = Interner::new();
        let mut classes = Vec::new();
        let mut opcodes: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
        let mut names = BTreeSet::new();
        for (index, class) in table.classes.iter().enumerate() {
            if !names.insert(class.name.as_str()) {
                bail!("class {} is defined twice", class.name);
            }
            if ident_from(&class.name) != class.name {
                bail!("class name {} is not an identifier", class.name);
            }
            opcodes.entry(class.opcode).or_default().push(index);
            let mut fields = Vec::new();
            for field in &class.fields {
                let bits = Bits::of(field).map_err(|e| anyhow::anyhow!("class {}: {e}", class.name))?;
                fields.push(FieldPlan { name: field.name.clone(), bits, kind: field.kind });
            }
            if class.variants.is_empty() {
                bail!("class {} has no print variant", class.name);
            }
            let mut variants = Vec::new();
            for variant in &class.variants {
                let mut pieces = Vec::new();
                let mut checks = Vec::new();
                for piece in &variant.pieces {
                    match piece {
                        Piece::Text(t) => push_text(&mut pieces, t),
                        Piece::Field { field, render } => {
                            let f = class
                                .field(field)
                                .ok_or_else(|| anyhow::anyhow!("class {}: template names unknown field {field}", class.name))?;
                            let bits = Bits::of(f)?;
                            let max = full_range(bits.width());
                            match render {
                                Render::Table { entries, default } => {
                                    let keys: Vec<u64> = entries.iter().map(|e| e.0).collect();
                                    let covers_all = bits.width() < 64 && keys.len() as u64 == max + 1;
                                    if !covers_all && default.is_none() {
                                        checks.push(Check { bits: bits.clone(), legal: ranges(keys) });
                                    }
                                    // A table printing one text for every value it accepts (the decoder refuses the
                                    // others) is that text: most reuse-flag and opex tables print nothing at all.
                                    let mut texts = entries.iter().map(|e| &e.1).chain(default.as_ref());
                                    let first = texts.next();
                                    if let Some(text) = first.filter(|f| texts.all(|t| t == *f)) {
                                        push_text(&mut pieces, text);
                                        continue;
                                    }
                                    let t = tables.intern(RenderTable { entries: entries.clone(), default: default.clone() });
                                    pieces.push(PiecePlan::Table { bits, table: t });
                                }
                                Render::Number { rule, specials } => {
                                    let illegal: BTreeSet<u64> = specials
                                        .iter()
                                        .filter(|s| matches!(s.1, Special::Illegal))
                                        .map(|s| s.0)
                                        .collect();
                                    if !illegal.is_empty() {
                                        let mut legal = Vec::new();
                                        let mut next = 0u64;
                                        for &v in &illegal {
                                            if v > next {
                                                legal.push((next, v - 1));
                                            }
                                            next = v.saturating_add(1);
                                        }
                                        if illegal.last() != Some(&max) {
                                            legal.push((next, max));
                                        }
                                        checks.push(Check { bits: bits.clone(), legal });
                                    }
                                    let texts: Vec<(u64, String)> = specials
                                        .iter()
                                        .filter_map(|(v, s)| match s {
                                            Special::Text(t) => Some((*v, t.clone())),
                                            Special::Illegal => None,
                                        })
                                        .collect();
                                    let r = rules.intern(RenderRule {
                                        format: format!("{:?}", rule.format),
                                        signed: rule.signed,
                                        shift: rule.shift,
                                        pc_relative: rule.pc_relative,
                                        prefix: rule.prefix.clone(),
                                        suffix: rule.suffix.clone(),
                                        specials: texts,
                                    });
                                    pieces.push(PiecePlan::Number { bits, rule: r });
                                }
                            }
                        }
                    }
                }
                // Two pieces printing the same field through tables with the same keys test the same thing.
                let mut unique: Vec<Check> = Vec::new();
                for c in checks {
                    if !unique.iter().any(|u| u.bits == c.bits && u.legal == c.legal) {
                        unique.push(c);
                    }
                }
                let pieces = fold_texts(pieces, &mut tables, &mut rules);
                let pieces = tabulate_numbers(pieces, &mut tables, &rules.items);
                variants.push(VariantPlan { when: variant.when, pieces, checks: unique });
            }
            classes.push(ClassPlan { class, fields, variants });
        }
        if classes.len() > usize::from(u16::MAX) {
            bail!("{} classes do not fit a u16 class id", classes.len());
        }
        // A class after one whose fixed bits are a subset of its own can never be chosen.
        for members in opcodes.values() {
            for (k, &later) in members.iter().enumerate() {
                let l = &table.classes[later].fixed;
                if let Some(&earlier) = members[..k].iter().find(|&&e| {
                    let e = &table.classes[e].fixed;
                    e.mask & l.mask == e.mask && l.value & e.mask == e.value
                }) {
                    eprintln!(
                        "regen: warning: class {} can never decode: class {} before it matches all its words",
                        table.classes[later].name, table.classes[earlier].name
                    );
                }
            }
        }
        let (tables, rules) = keep_used(&mut classes, tables.items, rules.items);
        Ok(Plan { table, classes, opcodes, tables, rules })
    }
}

/// Tables with at most this many entries take in the texts around them (larger ones are not copied).
const FOLD_TABLE_ENTRIES: usize = 32;
/// Texts longer than this are neither folded nor folded into (three of them stay within a span's 254 bytes).
const FOLD_MAX_TEXT: usize = 64;

/// Joins each text to the field printed next to it: the text before a field becomes part of every text the
/// field prints (table entries, number prefix and specials), and so does the text after it. `{pg}IMAD{mods}
/// {r0}, {r1}` prints as four pieces instead of seven. The formatter's time goes per piece, and the tables
/// and rules this makes are few and small (large tables are left alone).
fn fold_texts(pieces: Vec<PiecePlan>, tables: &mut Interner<RenderTable>, rules: &mut Interner<RenderRule>) -> Vec<PiecePlan> {
    let mut out: Vec<PiecePlan> = Vec::new();
    let mut rest = pieces.into_iter().peekable();
    while let Some(piece) = rest.next() {
        let foldable = match &piece {
            PiecePlan::Text(_) => false,
            PiecePlan::Table { table, .. } => tables.items[*table].entries.len() <= FOLD_TABLE_ENTRIES,
            PiecePlan::Number { .. } => true,
        };
        if !foldable {
            out.push(piece);
            continue;
        }
        // Folded texts must stay short (the formatter's spans hold at most 254 bytes).
        let longest = match &piece {
            PiecePlan::Table { table, .. } => {
                let t = &tables.items[*table];
                t.entries.iter().map(|e| e.1.len()).chain(t.default.as_ref().map(String::len)).max().unwrap_or(0)
            }
            PiecePlan::Number { rule, .. } => {
                let r = &rules.items[*rule];
                r.specials.iter().map(|s| s.1.len()).chain([r.prefix.len(), r.suffix.len()]).max().unwrap_or(0)
            }
            PiecePlan::Text(_) => 0,
        };
        let short = |p: Option<&PiecePlan>| matches!(p, Some(PiecePlan::Text(t)) if t.len() <= FOLD_MAX_TEXT);
        if longest > FOLD_MAX_TEXT {
            out.push(piece);
            continue;
        }
        let before = match out.last() {
            Some(p) if !short(Some(p)) => String::new(),
            Some(PiecePlan::Text(_)) => match out.pop() {
                Some(PiecePlan::Text(t)) => t,
                _ => String::new(),
            },
            _ => String::new(),
        };
        let after = match rest.peek() {
            Some(p) if !short(Some(p)) => String::new(),
            Some(PiecePlan::Text(_)) => match rest.next() {
                Some(PiecePlan::Text(t)) => t,
                _ => String::new(),
            },
            _ => String::new(),
        };
        let wrap = |t: &str| format!("{before}{t}{after}");
        out.push(match piece {
            PiecePlan::Table { bits, table } => {
                let t = &tables.items[table];
                let folded = RenderTable {
                    entries: t.entries.iter().map(|(v, text)| (*v, wrap(text))).collect(),
                    default: t.default.as_deref().map(wrap),
                };
                PiecePlan::Table { bits, table: tables.intern(folded) }
            }
            PiecePlan::Number { bits, rule } => {
                let r = &rules.items[rule];
                let folded = RenderRule {
                    prefix: format!("{before}{}", r.prefix),
                    suffix: format!("{}{after}", r.suffix),
                    specials: r.specials.iter().map(|(v, text)| (*v, wrap(text))).collect(),
                    ..r.clone()
                };
                PiecePlan::Number { bits, rule: rules.intern(folded) }
            }
            text => text,
        });
    }
    out
}

/// Number fields of at most this many bits print through a table of every value's text instead.
const TABULATE_MAX_WIDTH: u32 = 8;

/// Turns the narrow integer numbers of a template (register numbers, small immediates: nearly all its
/// numbers) into tables of every value's text, their folded prefix and suffix included: the formatter
/// copies one text instead of formatting a number (decode+format went from 4.3 to 5.7 M/s on the golden
/// mix, 7.4 to 9.0 on the corpus mix). Numbers relative to the instruction's address, and floats, keep
/// their rule.
fn tabulate_numbers(pieces: Vec<PiecePlan>, tables: &mut Interner<RenderTable>, rules: &[RenderRule]) -> Vec<PiecePlan> {
    pieces
        .into_iter()
        .map(|piece| {
            let PiecePlan::Number { bits, rule } = &piece else { return piece };
            let r = &rules[*rule];
            let format = match r.format.as_str() {
                "Dec" => NumberFormat::Dec,
                "Hex" => NumberFormat::Hex,
                "SignedHex" => NumberFormat::SignedHex,
                "OffsetHex" => NumberFormat::OffsetHex,
                _ => return piece,
            };
            let width = bits.width();
            if r.pc_relative || width > TABULATE_MAX_WIDTH {
                return piece;
            }
            let number = NumberRule { format, signed: r.signed, shift: r.shift, pc_relative: false, prefix: String::new(), suffix: String::new() };
            // Illegal values (refused by the decoder) print as numbers like the rule, so that the table
            // prints exactly what the rule did for every value.
            let entries = (0..1u64 << width)
                .map(|v| {
                    let text = match r.specials.iter().find(|s| s.0 == v) {
                        Some((_, text)) => text.clone(),
                        None => format!("{}{}{}", r.prefix, format_number(format, rule_number(&number, v, width, 0)), r.suffix),
                    };
                    (v, text)
                })
                .collect();
            let table = tables.intern(RenderTable { entries, default: None });
            PiecePlan::Table { bits: bits.clone(), table }
        })
        .collect()
}

/// The tables and rules the templates print through, renumbered in order of first use; folding and
/// tabulating leave the ones they replaced unused.
fn keep_used(classes: &mut [ClassPlan<'_>], tables: Vec<RenderTable>, rules: Vec<RenderRule>) -> (Vec<RenderTable>, Vec<RenderRule>) {
    let mut table_index: BTreeMap<usize, usize> = BTreeMap::new();
    let mut rule_index: BTreeMap<usize, usize> = BTreeMap::new();
    let mut kept_tables = Vec::new();
    let mut kept_rules = Vec::new();
    for piece in classes.iter_mut().flat_map(|c| &mut c.variants).flat_map(|v| &mut v.pieces) {
        match piece {
            PiecePlan::Table { table, .. } => {
                *table = *table_index.entry(*table).or_insert_with(|| {
                    kept_tables.push(tables[*table].clone());
                    kept_tables.len() - 1
                });
            }
            PiecePlan::Number { rule, .. } => {
                *rule = *rule_index.entry(*rule).or_insert_with(|| {
                    kept_rules.push(rules[*rule].clone());
                    kept_rules.len() - 1
                });
            }
            PiecePlan::Text(_) => {}
        }
    }
    (kept_tables, kept_rules)
}

/// Appends a text to a template, joining it to a text before it; empty texts print nothing and are dropped.
fn push_text(pieces: &mut Vec<PiecePlan>, text: &str) {
    if text.is_empty() {
        return;
    }
    match pieces.last_mut() {
        Some(PiecePlan::Text(prev)) => prev.push_str(text),
        _ => pieces.push(PiecePlan::Text(text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_identifiers() {
        assert_eq!(ident_from("type"), "type_");
        assert_eq!(ranges([1, 2, 3, 5, 7, 8]), vec![(1, 3), (5, 5), (7, 8)]);
    }
}
