//! The register access rules (`gen/src/generated/access.rs`): every class's `access` lines, grouped by
//! location (rules of one location kept in table order, groups in the order their first rule appears),
//! one rule a line, in the flat form `gen/src/access.rs` applies: conditions as indices into one list of
//! distinct `(mask, value)` pairs (the first, matching every word, is shared by most rules), a location
//! of one range of at most 8 bits within one half of the word, or a fixed register, as a
//! `Location::Byte`, any other as an index into a list of bit ranges, and each rule with the number of
//! rules after it in its group. Rules that never decide are left out (see [`deciding_rules`]), and a
//! class whose rules all match every word is marked plain: the runtime skips conditions and groups there.

use super::plan::Interner;
use sassport_isa::{Accesses, Direction, Location, RegFile, Table};
use std::fmt::Write as _;

fn file(f: RegFile) -> &'static str {
    match f {
        RegFile::Gpr => "RegFile::Gpr",
        RegFile::Uniform => "RegFile::Uniform",
        RegFile::Pred => "RegFile::Pred",
        RegFile::UniformPred => "RegFile::UniformPred",
        RegFile::Barrier => "RegFile::Barrier",
    }
}

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::None => "None",
        Direction::Read => "Some(Direction::Read)",
        Direction::Write => "Some(Direction::Write)",
        Direction::ReadWrite => "Some(Direction::ReadWrite)",
    }
}

/// Whether `l` is a `Location::Byte`: a fixed register, or one range of at most 8 bits within one half of
/// the word (bits 63:0 or 127:64).
fn is_byte(l: &Location) -> bool {
    match l {
        Location::Fixed(_) => true,
        Location::Bits { ranges, .. } => {
            matches!(ranges.as_slice(), [r] if r.width() <= 8 && u32::from(r.lo % 64) + r.width() <= 64)
        }
    }
}

/// The `Location` expression of a rule; locations other than [`is_byte`] ones go to `others`.
fn location(l: &Location, others: &mut Interner<(Vec<(u8, u32)>, bool)>) -> String {
    match l {
        Location::Fixed(n) => format!("Location::Byte {{ lo: 0, mask: 0, flip: {n} }}"),
        Location::Bits { ranges, inverted } => match ranges.as_slice() {
            [r] if is_byte(l) => {
                let mask = (1u32 << r.width()) - 1;
                let flip = if *inverted { mask } else { 0 };
                format!("Location::Byte {{ lo: {}, mask: {mask:#x}, flip: {flip:#x} }}", r.lo)
            }
            _ => {
                let i = others.intern((ranges.iter().map(|r| (r.lo, r.width())).collect(), *inverted));
                format!("Location::Other({i})")
            }
        },
    }
}

/// A group's rules as they decide: without those that match no word, those after one that matches
/// every word (they never decide) and those at the end that switch the location off (as does no match).
fn deciding_rules<'a>(rules: &[&'a sassport_isa::Access]) -> Vec<&'a sassport_isa::Access> {
    let mut kept = Vec::new();
    for &a in rules {
        if a.when.value & !a.when.mask != 0 {
            continue;
        }
        kept.push(a);
        if a.when.mask == 0 {
            break;
        }
    }
    while kept.last().is_some_and(|a| a.direction == Direction::None) {
        kept.pop();
    }
    kept
}

pub fn module_text(table: &Table) -> String {
    let mut out = String::new();
    out.push_str(
        "//! Register access rules per class, from the table's `access` lines (`nvdisasm -plr`): `CLASSES[class]`\n\
         //! is the class's run of `RULES` (`None` where nvdisasm reports none), grouped by location; rules\n\
         //! that never decide are left out.\n\
         #![allow(clippy::all, unused_imports)]\n\n\
         use super::classes::CLASS_COUNT;\n\
         use crate::access::{AccessRule, ClassRules, Direction, Location, OtherLocation};\n\
         use crate::operand::RegFile;\n\
         use crate::render::Bits;\n\n",
    );
    let mut classes = Vec::new();
    let mut rules = Vec::new();
    let mut conditions: Interner<(u128, u128)> = Interner::new();
    conditions.intern((0, 0));
    let mut others = Interner::new();
    for class in &table.classes {
        let Accesses::Known(list) = &class.accesses else {
            classes.push("None".to_owned());
            continue;
        };
        // Groups in first-appearance order, rules within a group in table order.
        let mut groups: Vec<(RegFile, &Location, Vec<&sassport_isa::Access>)> = Vec::new();
        for a in list {
            match groups.iter_mut().find(|(f, l, _)| *f == a.file && *l == &a.location) {
                Some(g) => g.2.push(a),
                None => groups.push((a.file, &a.location, vec![a])),
            }
        }
        let groups: Vec<Vec<&sassport_isa::Access>> =
            groups.iter().map(|g| deciding_rules(&g.2)).filter(|g| !g.is_empty()).collect();
        let count: usize = groups.iter().map(Vec::len).sum();
        let plain = groups.iter().flatten().all(|a| a.when.mask == 0 && is_byte(&a.location));
        classes.push(format!("Some(ClassRules {{ start: {}, len: {count}, plain: {plain} }})", rules.len()));
        for members in &groups {
            for (i, a) in members.iter().enumerate() {
                let condition = conditions.intern((a.when.mask, a.when.value));
                // Condition indices and the start of a class's rules are `u16`, a class's number of rules,
                // a group's rest and zero registers `u8`: the table stays far inside them (a few hundred
                // conditions, classes of at most 81 rules), and one that did not would fail to compile
                // (an out-of-range literal), not print wrongly.
                let mut line = String::new();
                let _ = write!(
                    line,
                    "AccessRule::new({condition}, {}, {}, {}, {}, {})",
                    location(&a.location, &mut others),
                    file(a.file),
                    direction(a.direction),
                    a.width,
                    members.len() - 1 - i
                );
                rules.push(line);
            }
        }
    }
    let _ = writeln!(out, "/// Class → its rules.");
    let _ = writeln!(out, "pub(crate) static CLASSES: [Option<ClassRules>; CLASS_COUNT] = [");
    for c in &classes {
        let _ = writeln!(out, "    {c},");
    }
    out.push_str("];\n\n");
    let _ = writeln!(out, "/// Every class's rules, one after another.");
    let _ = writeln!(out, "pub(crate) static RULES: [AccessRule; {}] = [", rules.len());
    for r in &rules {
        let _ = writeln!(out, "    {r},");
    }
    out.push_str("];\n\n");
    let _ = writeln!(out, "/// The rules' conditions `(mask, value)`: a word `w` meets one when `w & mask == value`. The first");
    let _ = writeln!(out, "/// is met by every word.");
    let _ = writeln!(out, "pub(crate) static CONDITIONS: [(u128, u128); {}] = [", conditions.items.len());
    for (mask, value) in &conditions.items {
        let _ = writeln!(out, "    ({mask:#x}, {value:#x}),");
    }
    out.push_str("];\n\n");
    let _ = writeln!(out, "/// Locations other than one range of at most 8 bits or a fixed register: bits, and whether inverted.");
    let _ = writeln!(out, "pub(crate) static OTHER_LOCATIONS: [OtherLocation; {}] = [", others.items.len());
    for (ranges, inverted) in &others.items {
        let r: Vec<String> = ranges.iter().map(|(lo, w)| format!("({lo}, {w})")).collect();
        let width: u32 = ranges.iter().map(|r| r.1).sum();
        let _ = writeln!(out, "    (Bits {{ ranges: &[{}], width: {width} }}, {inverted}),", r.join(", "));
    }
    out.push_str("];\n");
    out
}
