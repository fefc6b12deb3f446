//! Operand roles and the typed views (`gen/src/generated/views.rs`), and the encoder's fill bits.
//!
//! Roles come from the table where it tells: a class's operand slots are the comma-separated parts of its
//! last print template after the mnemonic; a slot's kind follows from its fields' kinds and its brackets
//! (`c[..][..]` a constant-bank operand, `[..]` memory); a register's direction and width come from the
//! class's access rules (nvdisasm `-plr`) at the field's bits; a one-bit modifier in a slot that prints
//! `-`, `|`, `!` or `~` is a negate, absolute-value or not flag. What the table cannot tell, the names,
//! comes from `isa/roles.txt` (see `sassport_isa::Roles`). Each mnemonic becomes one view struct whose
//! operands are the union of its classes' slot names, each an `Option<Operand>`.

use sassport_isa::{Access, Accesses, Class, Direction, Field, FieldKind, Location, Piece, RegFile, Render, Roles, Table};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A slot's fields and the literal text around them. Fields are owned: an optional predicate folded into
/// another field's table (`P0, -` before a negated source) becomes a field of its own.
#[derive(Default)]
struct Slot {
    fields: Vec<(Field, Render)>,
    text: String,
    /// An operand nvdisasm leaves out at its default value (its table texts carry the `, `, e.g. `P0, `).
    optional: bool,
}

impl Slot {
    fn fields(&self) -> impl Iterator<Item = (&Field, &Render)> {
        self.fields.iter().map(|(f, r)| (f, r))
    }

    /// Whether the slot already holds its operand (a field other than a modifier).
    fn has_operand(&self) -> bool {
        self.fields.iter().any(|(f, _)| !matches!(f.kind, FieldKind::Modifier | FieldKind::Other))
    }
}

/// Whether a register field prints as an optional operand: a table whose texts carry the separator.
fn is_optional(f: &Field, render: &Render) -> bool {
    matches!(f.kind, FieldKind::Register(_))
        && match render {
            Render::Table { entries, .. } => entries.iter().any(|e| e.1.ends_with(", ")),
            Render::Number { rule, .. } => rule.suffix.ends_with(", "),
        }
}

/// A number field that prints an optional predicate with its separator (`prefix=" P" suffix="," 7:""`,
/// `IADD3 R26, P1, R10, ...`'s carry-out, whatever kind the probe gave the field): its register file.
fn optional_pred_number(render: &Render) -> Option<RegFile> {
    let Render::Number { rule, specials } = render else { return None };
    let omitted = specials.iter().any(|(v, s)| *v == 7 && matches!(s, sassport_isa::Special::Text(t) if t.is_empty()));
    let prefix = rule.prefix.trim_start();
    if !omitted || !rule.suffix.starts_with(',') {
        return None;
    }
    match prefix {
        "P" => Some(RegFile::Pred),
        "UP" => Some(RegFile::UniformPred),
        _ => None,
    }
}

/// The predicate number and register file a table text's leading operands name: `P3, P0, -` → [3, 0].
fn printed_preds(text: &str) -> Option<(Vec<u64>, Option<RegFile>, &str)> {
    let mut preds = Vec::new();
    let mut file = None;
    let mut rest = text;
    while let Some((head, tail)) = rest.split_once(", ") {
        let (f, n) = match head.strip_prefix("UP") {
            Some(n) => (RegFile::UniformPred, n),
            None => (RegFile::Pred, head.strip_prefix('P')?),
        };
        preds.push(n.parse().ok()?);
        file = Some(f);
        rest = tail;
    }
    rest.chars().all(|c| matches!(c, '-' | '|' | '!' | '~')).then_some((preds, file, rest))
}

/// The word bits of value bits `k..k + 3` of field `f` (its ranges, first least significant).
fn sub_bits(f: &Field, k: u32) -> Vec<sassport_isa::BitRange> {
    let mut word_bits = Vec::new();
    for r in &f.bits {
        word_bits.extend(r.lo..=r.hi);
    }
    let mut out: Vec<sassport_isa::BitRange> = Vec::new();
    for &b in word_bits.iter().skip(k as usize).take(3) {
        match out.last_mut() {
            Some(last) if last.hi + 1 == b => last.hi = b,
            _ => out.push(sassport_isa::BitRange { lo: b, hi: b }),
        }
    }
    out
}

/// Predicates a modifier table folds in before its sign (`P0, ` .. `""` for `PT`, then `-`): per printed
/// predicate, a 3-bit predicate field made of the table field's bits. `None` when the texts are not that
/// or no choice of bits reproduces every entry.
fn folded_preds(f: &Field, render: &Render) -> Option<Vec<Field>> {
    let Render::Table { entries, default: None } = render else { return None };
    let parsed: Vec<(u64, Vec<u64>, Option<RegFile>, &str)> =
        entries.iter().map(|(v, t)| printed_preds(t).map(|(p, file, signs)| (*v, p, file, signs))).collect::<Option<_>>()?;
    let n = parsed.iter().map(|e| e.1.len()).max()?;
    let file = parsed.iter().find_map(|e| e.2)?;
    let width = f.width();
    if n == 0 || n > 2 || width < 3 {
        return None;
    }
    let offsets: Vec<u32> = (0..=width - 3).collect();
    let sub = |v: u64, k: u32| (v >> k) & 7;
    let fits = |ks: &[u32]| {
        parsed.iter().all(|(v, preds, _, _)| {
            let shown: Vec<u64> = ks.iter().map(|&k| sub(*v, k)).filter(|&p| p != 7).collect();
            shown == *preds
        })
    };
    let choice: Vec<u32> = match n {
        1 => offsets.iter().copied().find(|&k| fits(&[k])).map(|k| vec![k])?,
        _ => offsets.iter().flat_map(|&a| offsets.iter().map(move |&b| vec![a, b])).find(|ks| ks[0].abs_diff(ks[1]) >= 3 && fits(ks))?,
    };
    Some(
        choice
            .iter()
            .enumerate()
            .map(|(i, &k)| Field {
                name: if i == 0 { f.name.clone() } else { format!("{}_{}", f.name, i + 1) },
                bits: sub_bits(f, k),
                kind: FieldKind::Register(file),
            })
            .collect(),
    )
}

/// Whether any of a table's texts has a sign after its folded predicates.
fn has_signs(render: &Render) -> bool {
    matches!(render, Render::Table { entries, .. } if entries.iter().any(|(_, t)| printed_preds(t).is_some_and(|p| !p.2.is_empty())))
}

/// Places an optional operand's slot: after the operand the current slot already holds (then a new slot
/// starts), else before the slot being built.
fn place_optional(out: &mut Vec<Slot>, slot: Slot) {
    if out.last().is_some_and(Slot::has_operand) {
        out.push(slot);
        out.push(Slot::default());
    } else {
        let at = out.len().saturating_sub(1);
        out.insert(at, slot);
    }
}

/// The head (guard and modifiers) fields and the operand slots of a class's last template.
fn slots(class: &Class) -> Vec<Slot> {
    let Some(variant) = class.variants.last() else { return Vec::new() };
    let mut out: Vec<Slot> = Vec::new();
    let mut in_head = true;
    for piece in &variant.pieces {
        match piece {
            Piece::Text(t) => {
                let mut t = t.as_str();
                if in_head {
                    match t.split_once(' ') {
                        Some((_, after)) => {
                            in_head = false;
                            out.push(Slot::default());
                            t = after;
                        }
                        None => continue,
                    }
                }
                let mut parts = t.split(", ");
                if let (Some(first), Some(slot)) = (parts.next(), out.last_mut()) {
                    slot.text.push_str(first);
                }
                for p in parts {
                    out.push(Slot { text: p.to_owned(), ..Slot::default() });
                }
            }
            Piece::Field { field, render } => {
                let base = field.split('#').next().unwrap_or(field);
                let Some(f) = class.fields.iter().find(|f| f.name == base) else { continue };
                // An optional predicate printed right after the modifiers (`LOP3.LUT{imm0} {r0}`, ` P1,`) is
                // the first operand.
                if in_head && optional_pred_number(render).is_some() && field != "pg" {
                    in_head = false;
                    out.push(Slot::default());
                }
                if in_head || field == "sched" || field.starts_with("opex") {
                    continue;
                }
                let folded = folded_preds(f, render);
                if let Some(preds) = &folded {
                    for p in preds {
                        place_optional(&mut out, Slot { fields: vec![(p.clone(), render.clone())], text: String::new(), optional: true });
                    }
                    // The sign after the predicates belongs to the next operand, as its modifier.
                    if !has_signs(render) {
                        continue;
                    }
                } else if is_optional(f, render) {
                    let slot = Slot { fields: vec![(f.clone(), render.clone())], text: String::new(), optional: true };
                    place_optional(&mut out, slot);
                    continue;
                }
                if let Some(file) = optional_pred_number(render).filter(|_| folded.is_none()) {
                    let g = Field { kind: FieldKind::Register(file), ..f.clone() };
                    place_optional(&mut out, Slot { fields: vec![(g, render.clone())], text: String::new(), optional: true });
                    continue;
                }
                if let Some(slot) = out.last_mut() {
                    if !slot.fields.iter().any(|(g, _)| g.name == f.name) {
                        slot.fields.push((f.clone(), render.clone()));
                    }
                }
            }
        }
    }
    out.retain(|s| !s.fields.is_empty());
    out
}

/// Whether a slot is a constant operand: `c[bank][offset]`, or the bindless `cx[UR][offset]`.
fn is_constant(slot: &Slot) -> bool {
    slot.text.contains("c[") || slot.text.contains("cx[")
}

/// Rust expression for a field's raw value in `w`.
fn value_expr(f: &Field) -> String {
    let mut parts = Vec::new();
    let mut shift = 0u32;
    for r in &f.bits {
        let e = format!("w.bits({}, {})", r.lo, r.width());
        parts.push(if shift == 0 { e } else { format!("({e} << {shift})") });
        shift += r.width();
    }
    if parts.len() == 1 { parts.remove(0) } else { format!("({})", parts.join(" | ")) }
}

/// A number field's value after the render's sign extension and shift, as `i64`.
fn number_expr(f: &Field, render: &Render) -> String {
    let v = value_expr(f);
    let (signed, shift) = match render {
        Render::Number { rule, .. } => (rule.signed, rule.shift),
        Render::Table { .. } => (false, 0),
    };
    let w = f.width();
    let v = if signed && w < 64 { format!("((({v} as i64) << {s}) >> {s})", s = 64 - w) } else { format!("({v} as i64)") };
    if shift > 0 { format!("({v} << {shift})") } else { v }
}

/// The access rule that decides a register field's direction and width (the first of its location).
fn access_of<'a>(class: &'a Class, f: &Field, file: RegFile) -> Option<&'a Access> {
    let Accesses::Known(rules) = &class.accesses else { return None };
    rules.iter().find(|a| {
        a.file == file && a.direction != Direction::None && matches!(&a.location, Location::Bits { ranges, inverted: false } if *ranges == f.bits)
    })
}

fn direction_expr(a: Option<&Access>) -> (&'static str, u8) {
    match a {
        Some(a) => (
            match a.direction {
                Direction::Read => "Dir::Read",
                Direction::Write => "Dir::Write",
                Direction::ReadWrite => "Dir::ReadWrite",
                Direction::None => "Dir::Unknown",
            },
            a.width,
        ),
        None => ("Dir::Unknown", 0),
    }
}

/// What a modifier of a slot does, from the texts it prints: for each of negate (`-`), absolute value
/// (`|`) and not (`!`, `~`), the values whose text holds that sign (`-|`: both; after an optional operand the probe
/// folded into the same field, `P0, -`). `None` when the texts are something else (`.H1`, `.64`, ...).
fn modifier_roles(render: &Render) -> Option<Vec<(&'static str, Vec<u64>)>> {
    let Render::Table { entries, default: None } = render else { return None };
    let mut roles: Vec<(&'static str, Vec<u64>)> = vec![("neg", Vec::new()), ("abs", Vec::new()), ("not", Vec::new())];
    for (v, text) in entries {
        let signs = text.rsplit(", ").next().unwrap_or(text);
        for c in signs.chars() {
            let slot = match c {
                '-' => 0,
                '|' => 1,
                '!' | '~' => 2,
                _ => return None,
            };
            roles[slot].1.push(*v);
        }
    }
    roles.retain(|r| !r.1.is_empty());
    (!roles.is_empty()).then_some(roles)
}

/// The `Operand` expression of a slot, and whether it is written.
fn operand_expr(class: &Class, slot: &Slot) -> (String, bool) {
    let of_kind = |k: &dyn Fn(FieldKind) -> bool| slot.fields().find(|(f, _)| k(f.kind));
    let gpr = of_kind(&|k| k == FieldKind::Register(RegFile::Gpr));
    let ureg = of_kind(&|k| k == FieldKind::Register(RegFile::Uniform));
    let imm = of_kind(&|k| matches!(k, FieldKind::Immediate | FieldKind::ConstOffset));
    let bank = of_kind(&|k| k == FieldKind::ConstBank);
    let reg_of = |f: &Field| format!("Reg({} as u8)", value_expr(f));
    let ureg_of = |f: &Field| format!("UReg({} as u8)", value_expr(f));
    let opt = |x: Option<String>| x.map_or("None".to_owned(), |e| format!("Some({e})"));
    let mut access = None;
    let src = if is_constant(slot) {
        // The probe records a constant operand's bank and offset as numbers (`c[{imm0}][{imm1}]`) or as
        // cbank/coff fields: first the bank, then the offset, unless the bank is a uniform register.
        let numbers: Vec<(&Field, &Render)> =
            slot.fields().filter(|(f, _)| matches!(f.kind, FieldKind::Immediate | FieldKind::ConstBank | FieldKind::ConstOffset)).collect();
        let (bank, offset) = match (bank, numbers.as_slice()) {
            (Some(b), _) => (Some(b), numbers.iter().find(|(f, _)| f.kind != FieldKind::ConstBank).copied()),
            (None, [only]) if ureg.is_some() => (None, Some(*only)),
            (None, [b, o, ..]) => (Some(*b), Some(*o)),
            (None, [only]) => (None, Some(*only)),
            (None, []) => (None, None),
        };
        format!(
            "Src::Cbuf {{ bank: {}, ubank: {}, offset: {}, index: {} }}",
            bank.map_or("0".to_owned(), |(f, _)| format!("{} as u8", value_expr(f))),
            opt(ureg.map(|(f, _)| ureg_of(f))),
            offset.map_or("0".to_owned(), |(f, r)| number_expr(f, r)),
            opt(gpr.map(|(f, _)| reg_of(f))),
        )
    } else if slot.text.contains('[') {
        format!(
            "Src::Mem {{ base: {}, ubase: {}, offset: {} }}",
            opt(gpr.map(|(f, _)| reg_of(f))),
            opt(ureg.map(|(f, _)| ureg_of(f))),
            imm.map_or("0".to_owned(), |(f, r)| number_expr(f, r)),
        )
    } else if let Some((f, render)) = slot.fields().find(|(f, _)| !matches!(f.kind, FieldKind::Modifier | FieldKind::Other)) {
        match f.kind {
            FieldKind::Register(file) => {
                access = access_of(class, f, file);
                let v = value_expr(f);
                match file {
                    RegFile::Gpr => format!("Src::Reg(Reg({v} as u8))"),
                    RegFile::Uniform => format!("Src::UReg(UReg({v} as u8))"),
                    RegFile::Pred if f.width() == 4 => format!("Src::Pred(Pred(({v} & 7) as u8), {v} & 8 != 0)"),
                    RegFile::UniformPred if f.width() == 4 => format!("Src::UPred(UPred(({v} & 7) as u8), {v} & 8 != 0)"),
                    RegFile::Pred => format!("Src::Pred(Pred({v} as u8), false)"),
                    RegFile::UniformPred => format!("Src::UPred(UPred({v} as u8), false)"),
                    RegFile::Barrier => format!("Src::Barrier(Barrier({v} as u8))"),
                }
            }
            FieldKind::BranchTarget => format!("Src::Target({})", number_expr(f, render)),
            _ => format!("Src::Imm({} as u64)", number_expr(f, render)),
        }
    } else {
        let f = &slot.fields[0].0;
        format!("Src::Other({})", value_expr(f))
    };
    let (dir, width) = direction_expr(access);
    let mut e = format!("Operand::new({src}, {dir}, {width})");
    for (f, render) in &slot.fields {
        if f.kind != FieldKind::Modifier {
            continue;
        }
        match modifier_roles(render) {
            Some(roles) => {
                for (role, values) in roles {
                    let set: Vec<String> = values.iter().map(|v| format!("{v:#x}")).collect();
                    let _ = write!(e, ".{role}(matches!({}, {}))", value_expr(f), set.join(" | "));
                }
            }
            None => {
                let _ = write!(e, ".modifier({})", value_expr(f));
            }
        }
    }
    let written = access.is_some_and(|a| matches!(a.direction, Direction::Write | Direction::ReadWrite));
    (e, written)
}

/// A field's bit ranges as a Rust `&[(lo, width)]` literal.
fn ranges_lit(f: &Field) -> String {
    let r: Vec<String> = f.bits.iter().map(|r| format!("({}, {})", r.lo, r.width())).collect();
    format!("&[{}]", r.join(", "))
}

/// A number field's raw value for the view's number `n` (the inverse of [`number_expr`]).
fn raw_expr(f: &Field, render: &Render, n: &str) -> String {
    let shift = match render {
        Render::Number { rule, .. } => rule.shift,
        Render::Table { .. } => 0,
    };
    let _ = f;
    if shift > 0 { format!("(({n} as i64) >> {shift}) as u64") } else { format!("({n} as i64) as u64") }
}

/// Statements that write operand `name` of a view `v` into `w` (the inverse of [`operand_expr`]); a
/// source of another kind than the class's slot is an error naming the operand.
fn operand_insert(slot: &Slot, name: &str) -> String {
    let of_kind = |k: &dyn Fn(FieldKind) -> bool| slot.fields().find(|(f, _)| k(f.kind));
    let gpr = of_kind(&|k| k == FieldKind::Register(RegFile::Gpr));
    let ureg = of_kind(&|k| k == FieldKind::Register(RegFile::Uniform));
    let imm = of_kind(&|k| matches!(k, FieldKind::Immediate | FieldKind::ConstOffset));
    let put = |f: &Field, v: &str| format!("w = put(w, {}, {v});", ranges_lit(f));
    let opt_put = |x: Option<(&Field, &Render)>, var: &str, conv: &str| {
        x.map_or(String::new(), |(f, _)| format!("if let Some(r) = {var} {{ {} }}", put(f, &format!("u64::from(r.0{conv})"))))
    };
    let mut body = String::new();
    let wrong = format!("_ => return Err(ViewError {{ class, operand: {name:?} }}),");
    if is_constant(slot) {
        let numbers: Vec<(&Field, &Render)> =
            slot.fields().filter(|(f, _)| matches!(f.kind, FieldKind::Immediate | FieldKind::ConstBank | FieldKind::ConstOffset)).collect();
        let bank = of_kind(&|k| k == FieldKind::ConstBank);
        let (bank, offset) = match (bank, numbers.as_slice()) {
            (Some(b), _) => (Some(b), numbers.iter().find(|(f, _)| f.kind != FieldKind::ConstBank).copied()),
            (None, [only]) if ureg.is_some() => (None, Some(*only)),
            (None, [b, o, ..]) => (Some(*b), Some(*o)),
            (None, [only]) => (None, Some(*only)),
            (None, []) => (None, None),
        };
        let _ = write!(body, "match o.src {{ Src::Cbuf {{ bank, ubank, offset, index }} => {{ ");
        if let Some((f, _)) = bank {
            body.push_str(&put(f, "u64::from(bank)"));
        } else {
            body.push_str("let _ = bank;");
        }
        if let Some((f, r)) = offset {
            body.push_str(&put(f, &raw_expr(f, r, "offset")));
        } else {
            body.push_str("let _ = offset;");
        }
        body.push_str(&opt_put(ureg, "ubank", ""));
        body.push_str(&opt_put(gpr, "index", ""));
        let _ = write!(body, " }} {wrong} }}");
    } else if slot.text.contains('[') {
        let _ = write!(body, "match o.src {{ Src::Mem {{ base, ubase, offset }} => {{ ");
        body.push_str(&opt_put(gpr, "base", ""));
        body.push_str(&opt_put(ureg, "ubase", ""));
        match imm {
            Some((f, r)) => body.push_str(&put(f, &raw_expr(f, r, "offset"))),
            None => body.push_str("let _ = offset;"),
        }
        let _ = write!(body, " }} {wrong} }}");
    } else if let Some((f, render)) = slot.fields().find(|(f, _)| !matches!(f.kind, FieldKind::Modifier | FieldKind::Other)) {
        let arm = match f.kind {
            FieldKind::Register(file) => match file {
                RegFile::Gpr => format!("Src::Reg(r) => {{ {} }}", put(f, "u64::from(r.0)")),
                RegFile::Uniform => format!("Src::UReg(r) => {{ {} }}", put(f, "u64::from(r.0)")),
                RegFile::Pred if f.width() == 4 => format!("Src::Pred(p, n) => {{ {} }}", put(f, "u64::from(p.0 & 7) | u64::from(n) << 3")),
                RegFile::UniformPred if f.width() == 4 => {
                    format!("Src::UPred(p, n) => {{ {} }}", put(f, "u64::from(p.0 & 7) | u64::from(n) << 3"))
                }
                RegFile::Pred => format!("Src::Pred(p, _) => {{ {} }}", put(f, "u64::from(p.0)")),
                RegFile::UniformPred => format!("Src::UPred(p, _) => {{ {} }}", put(f, "u64::from(p.0)")),
                RegFile::Barrier => format!("Src::Barrier(b) => {{ {} }}", put(f, "u64::from(b.0)")),
            },
            FieldKind::BranchTarget => format!("Src::Target(t) => {{ {} }}", put(f, &raw_expr(f, render, "t"))),
            _ => format!("Src::Imm(v) => {{ {} }}", put(f, &raw_expr(f, render, "v"))),
        };
        let _ = write!(body, "match o.src {{ {arm} {wrong} }}");
    } else {
        let f = &slot.fields[0].0;
        let _ = write!(body, "match o.src {{ Src::Other(v) => {{ {} }} {wrong} }}", put(f, "v"));
    }
    // Modifiers whose value the flags decide alone (one value per combination of the field's roles).
    for (f, render) in &slot.fields {
        if f.kind != FieldKind::Modifier {
            continue;
        }
        let (Some(roles), Render::Table { entries, .. }) = (modifier_roles(render), render) else { continue };
        let names: Vec<&str> = roles.iter().map(|r| r.0).collect();
        let mut by_flags: BTreeMap<Vec<bool>, u64> = BTreeMap::new();
        let mut injective = true;
        for (v, _) in entries {
            let key: Vec<bool> = roles.iter().map(|r| r.1.contains(v)).collect();
            if by_flags.insert(key, *v).is_some() {
                injective = false;
            }
        }
        if !injective {
            continue;
        }
        let key = names.iter().map(|n| format!("o.{n}")).collect::<Vec<_>>().join(", ");
        let arms: Vec<String> = by_flags
            .iter()
            .map(|(k, v)| format!("({},) => {v:#x},", k.iter().map(bool::to_string).collect::<Vec<_>>().join(", ")))
            .collect();
        let _ = write!(body, " w = put(w, {}, match ({key},) {{ {} #[allow(unreachable_patterns)] _ => return Err(ViewError {{ class, operand: {name:?} }}) }});", ranges_lit(f), arms.join(" "));
    }
    format!("if let Some(o) = v.{name} {{ {body} }}")
}

/// `IMAD` → `Imad`, `I2F` → `I2f`.
pub fn family_ident(mnemonic: &str) -> String {
    let mut s = String::new();
    for (i, c) in mnemonic.trim_start_matches('_').chars().enumerate() {
        s.push(if i == 0 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() });
    }
    s
}

/// Default slot names: `dst` (then `dst2`, ...) for leading written registers, then `a`, `b`, `c`, ...
fn default_names(written: &[bool]) -> Vec<String> {
    let mut names = Vec::new();
    let mut dsts = 0;
    let mut srcs = 0;
    for (i, &w) in written.iter().enumerate() {
        if w && i == dsts {
            dsts += 1;
            names.push(if dsts == 1 { "dst".to_owned() } else { format!("dst{dsts}") });
        } else {
            let letters = "abcdefghijklmnopqrstuvwxyz";
            names.push(letters.get(srcs..srcs + 1).map_or(format!("op{i}"), str::to_owned));
            srcs += 1;
        }
    }
    names
}

struct ClassView {
    class: String,
    family: String,
    guard: Option<String>,
    operands: Vec<(String, String)>,
    /// Per operand: whether nvdisasm leaves it out at its default value.
    optional: Vec<bool>,
    /// The statements writing the operands back (the view encoder).
    inserts: Vec<String>,
    guard_field: Option<String>,
}

/// The generated `views.rs`.
pub fn module_text(table: &Table, roles: &Roles) -> String {
    let mut views = Vec::new();
    // Family → operand names in first-seen order.
    let mut families: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    for class in &table.classes {
        if class.mnemonic.is_empty() {
            continue;
        }
        let slots = slots(class);
        let exprs: Vec<(String, bool)> = slots.iter().map(|s| operand_expr(class, s)).collect();
        // Positional names (defaults, then the role file's) go to the regular operands; an optional one
        // is named after its field (`opt_p0`).
        let written: Vec<bool> = exprs.iter().zip(&slots).filter(|(_, s)| !s.optional).map(|(e, _)| e.1).collect();
        let mut regular = default_names(&written);
        if let Some(given) = roles.operand_names(&class.name, &class.mnemonic) {
            for (n, g) in regular.iter_mut().zip(given) {
                n.clone_from(g);
            }
        }
        let mut regular = regular.into_iter();
        // Optional operands take the role file's `optional` names in order, else `opt_<field>`.
        let mut optional_names = roles.optional_names(&class.name, &class.mnemonic).unwrap_or(&[]).iter();
        let mut names: Vec<String> = slots
            .iter()
            .enumerate()
            .map(|(i, s)| match s.optional {
                true => optional_names.next().cloned().unwrap_or_else(|| format!("opt_{}", s.fields[0].0.name.to_ascii_lowercase())),
                false => regular.next().unwrap_or_else(|| format!("op{i}")),
            })
            .collect();
        // A default name that a given one took goes positional.
        for i in 0..names.len() {
            if names[..i].contains(&names[i]) {
                names[i] = format!("op{i}");
            }
        }
        let optional: Vec<bool> = slots.iter().map(|s| s.optional).collect();
        let inserts: Vec<String> = slots.iter().zip(&names).map(|(s, n)| operand_insert(s, n)).collect();
        let guard_field = class.fields.iter().find(|f| f.name == "pg").map(ranges_lit);
        let family = family_ident(&class.mnemonic);
        let entry = families.entry(class.mnemonic.clone()).or_insert_with(|| (family.clone(), Vec::new()));
        for n in &names {
            if !entry.1.contains(n) {
                entry.1.push(n.clone());
            }
        }
        let guard = class.fields.iter().find(|f| f.name == "pg").map(value_expr);
        views.push(ClassView {
            class: class.name.clone(),
            family,
            guard,
            operands: names.into_iter().zip(exprs.into_iter().map(|e| e.0)).collect(),
            optional,
            inserts,
            guard_field,
        });
    }
    let mut out = String::new();
    out.push_str("//! Typed views per mnemonic family (operands from the table's templates and access rules, names\n");
    out.push_str("//! from `isa/roles.txt`), and the encoder's fill bits.\n");
    out.push_str("#![allow(clippy::all, unused_parens, unused_variables)]\n");
    out.push_str("use super::classes::ClassId;\nuse crate::operand::{Barrier, Pred, Reg, UPred, UReg};\n");
    out.push_str("use crate::view::{put, Dir, Guard, Operand, Src, ViewError};\nuse crate::word::Word;\n\n");
    for (mnemonic, (family, names)) in &families {
        let _ = writeln!(out, "/// A decoded `{mnemonic}` (any of its classes); operands a class does not have are `None`.");
        let _ = writeln!(out, "#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub struct {family} {{");
        out.push_str("    pub class: ClassId,\n    pub word: Word,\n    pub guard: Guard,\n");
        for n in names {
            let _ = writeln!(out, "    pub {n}: Option<Operand>,");
        }
        out.push_str("}\n");
        let _ = writeln!(out, "impl {family} {{");
        let _ = writeln!(out, "    fn none(class: ClassId, word: Word, guard: Guard) -> {family} {{");
        let _ = write!(out, "        {family} {{ class, word, guard");
        for n in names {
            let _ = write!(out, ", {n}: None");
        }
        out.push_str(" }\n    }\n");
        for (flag, token) in roles.flags.get(mnemonic).into_iter().flatten() {
            let _ = writeln!(out, "    /// Whether the modifiers print `.{token}`.");
            let _ = writeln!(out, "    pub fn {flag}(&self) -> bool {{\n        crate::view::has_modifier(self.class, self.word, {token:?})\n    }}");
        }
        out.push_str("}\n\n");
    }
    out.push_str("/// A decoded instruction as its mnemonic family's view.\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum View {\n");
    for (family, _) in families.values() {
        let _ = writeln!(out, "    {family}({family}),");
    }
    out.push_str("    /// A class that prints nothing (nvdisasm decodes it but prints an empty line).\n    Unnamed(ClassId),\n}\n\n");
    out.push_str("/// The view of `w`, a word of `class`.\npub fn view(class: ClassId, w: Word) -> View {\n    match class {\n");
    for v in &views {
        let guard = v.guard.as_ref().map_or("Guard::ALWAYS".to_owned(), |g| format!("Guard::of({g})"));
        let _ = write!(out, "        ClassId::{} => View::{}({} {{ ", v.class, v.family, v.family);
        for (n, e) in &v.operands {
            let _ = write!(out, "{n}: Some({e}), ");
        }
        let _ = writeln!(out, "..{}::none(class, w, {guard}) }}),", v.family);
    }
    out.push_str("        _ => View::Unnamed(class),\n    }\n}\n\n");
    out.push_str("impl View {\n    /// The operand named `name` (a field of the family's struct), if the class has it.\n");
    out.push_str("    pub fn operand(&self, name: &str) -> Option<Operand> {\n");
    out.push_str("        let name = name.strip_prefix('?').unwrap_or(name);\n        match self {\n");
    for (family, names) in families.values() {
        if names.is_empty() {
            let _ = writeln!(out, "            View::{family}(_) => None,");
            continue;
        }
        let _ = write!(out, "            View::{family}(v) => match name {{ ");
        for n in names {
            let _ = write!(out, "{n:?} => v.{n}, ");
        }
        out.push_str("_ => None },\n");
    }
    out.push_str("            View::Unnamed(_) => None,\n        }\n    }\n}\n\n");
    out.push_str(&encoder_text(&views));
    out.push_str("/// Per class (table order): its operand names in syntax order (the order nvdisasm prints them); a\n");
    out.push_str("/// name starting with `?` is an optional operand nvdisasm leaves out at its default (`PT`).\n");
    let _ = writeln!(out, "pub static SLOTS: [&[&str]; {}] = [", table.classes.len());
    let mut by_class: BTreeMap<&str, &ClassView> = BTreeMap::new();
    for v in &views {
        by_class.insert(v.class.as_str(), v);
    }
    for c in &table.classes {
        let names: Vec<String> = by_class.get(c.name.as_str()).map_or(Vec::new(), |v| {
            v.operands.iter().zip(&v.optional).map(|(o, &opt)| format!("{:?}", if opt { format!("?{}", o.0) } else { o.0.clone() })).collect()
        });
        let _ = writeln!(out, "    &[{}], // {}", names.join(", "), c.name);
    }
    out.push_str("];\n\n");
    out.push_str(&fill_text(table));
    out
}

/// The view encoder: per class a function writing the view's guard and operands into its word.
fn encoder_text(views: &[ClassView]) -> String {
    let mut out = String::new();
    out.push_str("/// The word of `view`: its word with the guard and every operand written back into their fields.\n");
    out.push_str("pub fn encode(view: &View) -> Result<Word, ViewError> {\n    let w = match view {\n");
    let mut families: BTreeMap<&str, ()> = BTreeMap::new();
    for v in views {
        families.insert(v.family.as_str(), ());
    }
    for f in families.keys() {
        let _ = writeln!(out, "        View::{f}(v) => enc_{}(v)?,", f.to_ascii_lowercase());
    }
    out.push_str("        View::Unnamed(_) => return Err(ViewError { class: ClassId::ALL[0], operand: \"(class prints nothing)\" }),\n");
    out.push_str("    };\n    Ok(Word(w))\n}\n\n");
    for f in families.keys() {
        let _ = writeln!(out, "fn enc_{}(v: &{f}) -> Result<u128, ViewError> {{", f.to_ascii_lowercase());
        out.push_str("    let class = v.class;\n    let mut w = v.word.0;\n    match class {\n");
        for cv in views.iter().filter(|cv| cv.family == *f) {
            let _ = writeln!(out, "        ClassId::{} => {{", cv.class);
            if let Some(g) = &cv.guard_field {
                let _ = writeln!(out, "            w = put(w, {g}, u64::from(v.guard.pred.0 & 7) | u64::from(v.guard.not) << 3);");
            }
            for i in &cv.inserts {
                let _ = writeln!(out, "            {i}");
            }
            out.push_str("        }\n");
        }
        out.push_str("        _ => return Err(ViewError { class, operand: \"(class of another family)\" }),\n    }\n    Ok(w)\n}\n\n");
    }
    out
}

/// Per class, the bits the encoder gives the word where neither text nor control bits decide: those of
/// the class's first golden word (real compiler output where the probe had one) outside its fixed bits.
fn fill_text(table: &Table) -> String {
    let mut out = String::new();
    out.push_str("/// Per class (table order): the encoder's fill for bits the text and control bits leave open.\n");
    let _ = writeln!(out, "pub(crate) static FILL: [u128; {}] = [", table.classes.len());
    for c in &table.classes {
        let fill = c.golden.first().map_or(0, |g| g.word & !c.fixed.mask);
        let _ = writeln!(out, "    {fill:#034x}, // {}", c.name);
    }
    out.push_str("];\n");
    out
}
