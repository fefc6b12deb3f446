//! The translator's lowering dispatch (`translator/src/lower/dispatch.rs`) from the family file
//! (`translator/families.txt`, parsed by `sassport_isa::parse_families`): for each class of the table, the
//! one family that lowers its words, split by word bits where the file says so.
//!
//! A class takes, in order: the first `split` of its class name or mnemonic whose conditions hold (an
//! `opcode=` condition is decided here from the class's opcode, bit conditions at run time), else the
//! `family` line naming the class, else the one naming its mnemonic. Keys that name no class, and family
//! lines without a module, are errors naming the line.

use anyhow::{bail, Result};
use sassport_isa::{CondField, Condition, Families, Table};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The family file, relative to the repository root.
pub const FAMILIES: &str = "translator/families.txt";
/// The generated dispatch, relative to the repository root.
pub const DISPATCH: &str = "translator/src/lower/dispatch.rs";

/// `warp_form` → `WarpForm`.
fn variant(family: &str) -> String {
    family
        .split('_')
        .map(|p| p[..1].to_ascii_uppercase() + &p[1..])
        .collect()
}

/// What a split condition comes to for one class.
enum Test {
    /// Decided by the class (an `opcode=` condition): holds, or fails.
    Holds,
    Fails,
    /// A run-time test of word bits, as Rust over `w`.
    Run(String),
}

fn bits_expr(c: &Condition) -> String {
    let op = if c.equal { "==" } else { "!=" };
    match c.field {
        CondField::Opcode => format!("u64::from(w.opcode_key()) {op} {:#x}", c.value),
        CondField::Bits { hi, lo } => format!(
            "w.bits({lo}, {}) {op} {:#x}",
            u32::from(hi - lo) + 1,
            c.value
        ),
    }
}

fn test(c: &Condition, opcode: u16) -> Test {
    match c.field {
        CondField::Opcode if (u64::from(opcode) == c.value) == c.equal => Test::Holds,
        CondField::Opcode => Test::Fails,
        CondField::Bits { .. } => Test::Run(bits_expr(c)),
    }
}

/// `if A { Some(Family::X) } else if ... else FALLBACK`.
fn chain(tests: &[(String, &str)], fallback: Option<&str>) -> String {
    let mut e = String::new();
    for (t, f) in tests {
        let _ = write!(e, "if {t} {{ Some(Family::{}) }} else ", variant(f));
    }
    let last = fallback.map_or("None".to_owned(), |f| {
        format!("Some(Family::{})", variant(f))
    });
    if tests.is_empty() {
        last
    } else {
        format!("{e}{{ {last} }}")
    }
}

/// The generated dispatch module.
pub fn module_text(root: &Path, table: &Table, families: &Families) -> Result<String> {
    let mut keys: BTreeSet<&str> = BTreeSet::new();
    for c in &table.classes {
        keys.insert(&c.name);
        keys.insert(&c.mnemonic);
    }
    for (k, (_, line)) in &families.claims {
        if !keys.contains(k.as_str()) {
            bail!("{FAMILIES}:{line}: `{k}` is neither a mnemonic nor a class of the table");
        }
    }
    for s in &families.splits {
        if !keys.contains(s.key.as_str()) {
            bail!(
                "{FAMILIES}:{}: `{}` is neither a mnemonic nor a class of the table",
                s.line,
                s.key
            );
        }
    }
    for f in &families.names {
        let lower = root.join("translator/src/lower");
        if !lower.join(format!("{f}.rs")).exists() && !lower.join(f).join("mod.rs").exists() {
            bail!("{FAMILIES}: family `{f}` has no module translator/src/lower/{f}.rs (or {f}/mod.rs)");
        }
    }
    let mut arms = String::new();
    let mut unconditional: Vec<(String, Vec<&str>)> = families
        .names
        .iter()
        .map(|f| (f.clone(), Vec::new()))
        .collect();
    for c in &table.classes {
        if c.mnemonic.is_empty() {
            continue;
        }
        let owner = families
            .claims
            .get(&c.name)
            .or_else(|| families.claims.get(&c.mnemonic))
            .map(|(f, _)| f.as_str());
        let mut tests: Vec<(String, &str)> = Vec::new();
        for s in families
            .splits
            .iter()
            .filter(|s| s.key == c.name || s.key == c.mnemonic)
        {
            let parts: Vec<Test> = s.conditions.iter().map(|k| test(k, c.opcode)).collect();
            if parts.iter().any(|t| matches!(t, Test::Fails)) {
                continue;
            }
            let run: Vec<String> = parts
                .into_iter()
                .filter_map(|t| if let Test::Run(e) = t { Some(e) } else { None })
                .collect();
            tests.push((
                if run.is_empty() {
                    "true".to_owned()
                } else {
                    run.join(" && ")
                },
                s.family.as_str(),
            ));
        }
        if tests.is_empty() {
            if let Some(f) = owner {
                if let Some(u) = unconditional.iter_mut().find(|u| u.0 == f) {
                    u.1.push(&c.name);
                }
            }
            continue;
        }
        let _ = writeln!(
            arms,
            "        ClassId::{} => {},",
            c.name,
            chain(&tests, owner)
        );
    }
    for (f, classes) in &unconditional {
        if classes.is_empty() {
            continue;
        }
        let _ = writeln!(
            arms,
            "        {} => Some(Family::{}),",
            classes
                .iter()
                .map(|c| format!("ClassId::{c}"))
                .collect::<Vec<_>>()
                .join("\n        | "),
            variant(f)
        );
    }
    let mut out = String::new();
    out.push_str(
        "// generated by `cargo xtask regen` from translator/families.txt; do not edit.\n\n",
    );
    out.push_str("//! The lowering dispatch: the one family that lowers each decoded class (and, where the family file\n");
    out.push_str("//! splits a class, each of its words), from `translator/families.txt`.\n\n");
    out.push_str("use super::Ctx;\nuse crate::error::TranslateError;\nuse sassport_gen::{ClassId, Word};\n\n");
    out.push_str("/// A family of `translator/src/lower/`, in the family file's order.\n");
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub(super) enum Family {\n");
    for f in &families.names {
        let _ = writeln!(out, "    /// `lower/{f}.rs`.\n    {},", variant(f));
    }
    out.push_str(
        "}\n\n/// The family that lowers word `w` of `class`; `None`: no family claims it.\n",
    );
    out.push_str("#[allow(unused_variables)]\npub(super) fn family(class: ClassId, w: Word) -> Option<Family> {\n    match class {\n");
    out.push_str(&arms);
    out.push_str("        _ => None,\n    }\n}\n\n");
    out.push_str("/// The family of a word that another disassembler (tests) names `m` where the decoder disagrees: the\n");
    out.push_str("/// mnemonic's `split` lines, all conditions tested on the word, then its `family` line (class lines do not apply).\n");
    out.push_str("#[allow(unused_variables)]\npub(super) fn family_by_mnemonic(m: &str, w: Word) -> Option<Family> {\n    match m {\n");
    let mut mnemonics: Vec<&str> = table
        .classes
        .iter()
        .map(|c| c.mnemonic.as_str())
        .filter(|m| !m.is_empty())
        .collect();
    mnemonics.sort_unstable();
    mnemonics.dedup();
    for m in mnemonics {
        let tests: Vec<(String, &str)> = families
            .splits
            .iter()
            .filter(|s| s.key == m)
            .map(|s| {
                (
                    s.conditions
                        .iter()
                        .map(bits_expr)
                        .collect::<Vec<_>>()
                        .join(" && "),
                    s.family.as_str(),
                )
            })
            .collect();
        let owner = families.claims.get(m).map(|(f, _)| f.as_str());
        if tests.is_empty() && owner.is_none() {
            continue;
        }
        let _ = writeln!(out, "        {m:?} => {},", chain(&tests, owner));
    }
    out.push_str("        _ => None,\n    }\n}\n\n");
    out.push_str("/// Lowers the instruction with family `f`'s handler (`false`: the family does not translate this form).\n");
    out.push_str("pub(super) fn lower(f: Family, cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {\n    match f {\n");
    for f in &families.names {
        let _ = writeln!(
            out,
            "        Family::{} => super::{f}::lower(cx, m),",
            variant(f)
        );
    }
    out.push_str("    }\n}\n");
    Ok(out)
}
