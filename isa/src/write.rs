//! Model → text: writes a [`Table`] in the format `docs/isa-table.md` describes (and [`crate::parse`]
//! reads). The output is deterministic: the same table always gives the same bytes.

use crate::model::*;
use std::fmt::Write as _;

/// Writes `table` as text. `comments` are emitted first, each line prefixed with `# `.
pub fn write_table(table: &Table, comments: &[&str]) -> String {
    let mut out = String::new();
    for c in comments {
        if c.is_empty() {
            out.push_str("#\n");
        } else {
            let _ = writeln!(out, "# {c}");
        }
    }
    let _ = writeln!(out, "arch {}", table.arch);
    let _ = writeln!(out, "nvdisasm {}", table.nvdisasm);
    for class in &table.classes {
        out.push('\n');
        write_class(&mut out, class);
    }
    out
}

fn write_class(out: &mut String, c: &Class) {
    let _ = writeln!(out, "class {} {}", c.name, quote(&c.mnemonic));
    let _ = writeln!(out, "  opcode {:#06x}", c.opcode);
    let _ = writeln!(out, "  fixed {}", pattern(&c.fixed));
    for f in &c.fields {
        let ranges: Vec<String> = f.bits.iter().map(|r| r.to_string()).collect();
        let _ = writeln!(out, "  field {} {} {}", f.name, ranges.join(","), kind_name(f.kind));
    }
    let mut previous: Vec<(String, Render)> = Vec::new();
    for v in &c.variants {
        previous = write_variant(out, v, &previous);
    }
    match &c.accesses {
        Accesses::Unknown(reason) => {
            let _ = writeln!(out, "  access unknown {}", quote(reason));
        }
        Accesses::Known(rules) => {
            for a in rules {
                let _ = writeln!(out, "  access {}", access(a));
            }
        }
    }
    for g in &c.golden {
        let _ = writeln!(out, "  golden {:#x} {:#034x} {}", g.address, g.word, quote(&g.text));
    }
    for u in &c.uses {
        let _ = writeln!(out, "  uses {:#034x} {}", u.word, quote(&register_listing(&u.registers)));
    }
}

/// An access rule's text after `access `.
fn access(a: &Access) -> String {
    let location = match &a.location {
        Location::Fixed(n) => format!("={n}"),
        Location::Bits { ranges, inverted } => {
            let r: Vec<String> = ranges.iter().map(|r| r.to_string()).collect();
            format!("{}{}", if *inverted { "~" } else { "" }, r.join(","))
        }
    };
    let dir = match a.direction {
        Direction::None => "none",
        Direction::Read => "read",
        Direction::Write => "write",
        Direction::ReadWrite => "readwrite",
    };
    let mut s = format!("{} {location} {dir} {}", a.file.prefix(), a.width);
    if a.when != Pattern::ANY {
        let _ = write!(s, " when {}", pattern(&a.when));
    }
    s
}

/// A register listing as `uses` lines write it (`R2^ R6v P0x`).
pub fn register_listing(registers: &[RegisterUse]) -> String {
    let marks: Vec<String> = registers.iter().map(|r| r.to_string()).collect();
    marks.join(" ")
}

/// Placeholder names: the field name for the first render of a field in a variant, `field#2`, `field#3`
/// for further distinct renders. A render equal to the previous variant's render of the same
/// placeholder is written `same`. Returns this variant's (placeholder, render) list.
fn write_variant(out: &mut String, v: &Variant, previous: &[(String, Render)]) -> Vec<(String, Render)> {
    let mut names: Vec<(String, &Render, String)> = Vec::new(); // (field, render, placeholder)
    let mut template = String::new();
    for p in &v.pieces {
        match p {
            Piece::Text(t) => {
                for ch in t.chars() {
                    match ch {
                        '{' => template.push_str("{{"),
                        '}' => template.push_str("}}"),
                        _ => template.push(ch),
                    }
                }
            }
            Piece::Field { field, render } => {
                let existing = names.iter().find(|(f, r, _)| f == field && *r == render);
                let ph = match existing {
                    Some((_, _, ph)) => ph.clone(),
                    None => {
                        let n = names.iter().filter(|(f, _, _)| f == field).count();
                        let ph = if n == 0 { field.clone() } else { format!("{field}#{}", n + 1) };
                        names.push((field.clone(), render, ph.clone()));
                        ph
                    }
                };
                template.push('{');
                template.push_str(&ph);
                template.push('}');
            }
        }
    }
    if v.when.mask == 0 {
        let _ = writeln!(out, "  print {}", quote(&template));
    } else {
        let _ = writeln!(out, "  print when {} {}", pattern(&v.when), quote(&template));
    }
    for (_, render, ph) in &names {
        if previous.iter().any(|(p, r)| p == ph && r == *render) {
            let _ = writeln!(out, "  render {ph} same");
        } else {
            let _ = writeln!(out, "  render {ph} {}", render_text(render));
        }
    }
    names.into_iter().map(|(_, r, ph)| (ph, r.clone())).collect()
}

fn render_text(r: &Render) -> String {
    match r {
        Render::Table { entries, default } => {
            let mut s = String::from("table");
            for (v, t) in entries {
                let _ = write!(s, " {v}:{}", quote(t));
            }
            if let Some(d) = default {
                let _ = write!(s, " *:{}", quote(d));
            }
            s
        }
        Render::Number { rule, specials } => {
            let mut s = format!("num {}", format_name(rule.format));
            if rule.signed {
                s.push_str(" signed");
            }
            if rule.shift != 0 {
                let _ = write!(s, " shift={}", rule.shift);
            }
            if rule.pc_relative {
                s.push_str(" pcrel");
            }
            if !rule.prefix.is_empty() {
                let _ = write!(s, " prefix={}", quote(&rule.prefix));
            }
            if !rule.suffix.is_empty() {
                let _ = write!(s, " suffix={}", quote(&rule.suffix));
            }
            for (v, sp) in specials {
                match sp {
                    Special::Text(t) => {
                        let _ = write!(s, " {v}:{}", quote(t));
                    }
                    Special::Illegal => {
                        let _ = write!(s, " {v}:illegal");
                    }
                }
            }
            s
        }
    }
}

/// `0xMASK/0xVALUE`, both as 32 hex digits.
fn pattern(p: &Pattern) -> String {
    format!("{:#034x}/{:#034x}", p.mask, p.value)
}

/// The table-text name of a field kind.
pub fn kind_name(k: FieldKind) -> &'static str {
    match k {
        FieldKind::Register(RegFile::Gpr) => "gpr",
        FieldKind::Register(RegFile::Uniform) => "ureg",
        FieldKind::Register(RegFile::Pred) => "pred",
        FieldKind::Register(RegFile::UniformPred) => "upred",
        FieldKind::Register(RegFile::Barrier) => "breg",
        FieldKind::Immediate => "imm",
        FieldKind::ConstBank => "cbank",
        FieldKind::ConstOffset => "coff",
        FieldKind::BranchTarget => "target",
        FieldKind::Modifier => "mod",
        FieldKind::Other => "other",
    }
}

/// The table-text name of a number format.
pub fn format_name(f: NumberFormat) -> &'static str {
    match f {
        NumberFormat::Dec => "dec",
        NumberFormat::Hex => "hex",
        NumberFormat::SignedHex => "shex",
        NumberFormat::OffsetHex => "off",
        NumberFormat::F32 => "f32",
        NumberFormat::F64Hi => "f64hi",
        NumberFormat::F16 => "f16",
        NumberFormat::F64 => "f64",
    }
}

/// A double-quoted string with `\"`, `\\` and `\xNN` (control characters) escaped.
pub fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for ch in s.chars() {
        match ch {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(q, "\\x{:02x}", c as u32);
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
