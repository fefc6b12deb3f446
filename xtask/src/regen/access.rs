//! The register access rules (`gen/src/generated/access.rs`): every class's `access` lines, grouped by
//! location (rules of one location kept in table order, groups in the order their first rule appears),
//! one rule a line. `gen/src/access.rs` applies them.

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

fn location(l: &Location) -> String {
    match l {
        Location::Fixed(n) => format!("Location::Fixed({n})"),
        Location::Bits { ranges, inverted } => {
            let r: Vec<String> = ranges.iter().map(|r| format!("({}, {})", r.lo, r.width())).collect();
            let width: u32 = ranges.iter().map(|r| r.width()).sum();
            format!("Location::Bits(Bits {{ ranges: &[{}], width: {width} }}, {inverted})", r.join(", "))
        }
    }
}

pub fn module_text(table: &Table) -> String {
    let mut out = String::new();
    out.push_str(
        "//! Register access rules per class, from the table's `access` lines (`nvdisasm -plr`): `SPANS[class]`\n\
         //! is the class's run of `RULES` (`UNKNOWN` where nvdisasm reports none), grouped by location.\n\
         #![allow(clippy::all, unused_imports)]\n\n\
         use super::classes::CLASS_COUNT;\n\
         use crate::access::{AccessRule, Direction, Location};\n\
         use crate::operand::RegFile;\n\
         use crate::render::Bits;\n\n\
         /// A class whose accesses nvdisasm does not report.\n\
         pub(crate) const UNKNOWN: (u16, u16) = (u16::MAX, 0);\n\n",
    );
    let mut spans = Vec::new();
    let mut rules = Vec::new();
    for class in &table.classes {
        let Accesses::Known(list) = &class.accesses else {
            spans.push("UNKNOWN".to_owned());
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
        spans.push(format!("({}, {})", rules.len(), list.len()));
        for (_, _, members) in &groups {
            for (i, a) in members.iter().enumerate() {
                let mut line = String::new();
                let _ = write!(
                    line,
                    "AccessRule {{ when_mask: {:#x}, when_value: {:#x}, file: {}, location: {}, direction: {}, width: {}, group_end: {} }}",
                    a.when.mask,
                    a.when.value,
                    file(a.file),
                    location(&a.location),
                    direction(a.direction),
                    a.width,
                    i + 1 == members.len()
                );
                rules.push(line);
            }
        }
    }
    let _ = writeln!(out, "/// Class → (first rule, number of rules).");
    let _ = writeln!(out, "pub(crate) static SPANS: [(u16, u16); CLASS_COUNT] = [");
    for chunk in spans.chunks(10) {
        let _ = writeln!(out, "    {},", chunk.join(", "));
    }
    out.push_str("];\n\n");
    let _ = writeln!(out, "/// Every class's rules, one after another.");
    let _ = writeln!(out, "pub(crate) static RULES: [AccessRule; {}] = [", rules.len());
    for r in &rules {
        let _ = writeln!(out, "    {r},");
    }
    out.push_str("];\n");
    out
}
