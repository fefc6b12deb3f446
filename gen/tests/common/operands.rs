//! Comparing a typed view's operands with nvdisasm's text of the same word (the tests' own parsing, from
//! nvdisasm's syntax): used by `tests/views.rs` (corpus listings) and `tests/view_slots.rs` (golden pairs).

use sassport_gen::{Operand, Src};

/// nvdisasm's operand text without modifiers: (core, negated, absolute, not).
pub fn core(text: &str) -> (&str, bool, bool, bool) {
    // A target after a register (`R2 `(sym)`) is not judged.
    let mut t = text.trim().split(' ').next().unwrap_or("");
    let neg = t.starts_with('-');
    t = t.trim_start_matches('-');
    let not = t.starts_with('!') || t.starts_with('~');
    t = t.trim_start_matches(['!', '~']);
    let abs = t.starts_with('|');
    t = t.trim_matches('|');
    // Suffixes: `.reuse`, `.H1`, `.64`, `.X4`, ...
    let t = t.split('.').next().unwrap_or(t).trim_end_matches('|');
    (t, neg, abs, not)
}

pub fn register(name: &str, prefix: &str, zero: &str) -> Option<u8> {
    if name == zero {
        return Some(if prefix == "UR" { 63 } else { 255 });
    }
    name.strip_prefix(prefix)?.parse().ok()
}

pub fn pred(name: &str, prefix: &str) -> Option<u8> {
    if name == format!("{prefix}T") {
        return Some(7);
    }
    name.strip_prefix(prefix)?.parse().ok()
}

pub fn hex(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()? as i64;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `R2.64+UR4+0x10` → (base, ubase, offset); `UR4` may come first (`[UR4+0x10]`).
pub fn address(inner: &str) -> (Option<u8>, Option<u8>, i64) {
    let (mut base, mut ubase, mut offset) = (None, None, 0i64);
    let mut rest = inner;
    loop {
        let end = rest[1..].find(['+', '-']).map_or(rest.len(), |i| i + 1);
        let part = &rest[..end];
        let p = part.trim_start_matches('+');
        let c = p.split('.').next().unwrap_or(p);
        if let Some(r) = register(c, "UR", "URZ") {
            ubase = Some(r);
        } else if let Some(r) = register(c, "R", "RZ") {
            base = Some(r);
        } else if let Some(v) = hex(p) {
            offset = v;
        }
        if end >= rest.len() {
            break;
        }
        rest = &rest[end..];
    }
    (base, ubase, offset)
}

/// Whether operand `o` prints as `text`; `None` when this test does not judge that kind.
pub fn agrees(o: &Operand, text: &str) -> Option<bool> {
    let (c, neg, abs, not) = core(text);
    let flags = o.neg == neg && o.abs == abs;
    Some(match o.src {
        Src::Reg(r) => flags && o.not == not && register(c, "R", "RZ") == Some(r.0),
        Src::UReg(r) => flags && o.not == not && register(c, "UR", "URZ") == Some(r.0),
        Src::Pred(p, n) => flags && (o.not || n) == not && pred(c, "P") == Some(p.0),
        Src::UPred(p, n) => flags && (o.not || n) == not && pred(c, "UP") == Some(p.0),
        Src::Imm(v) => {
            let parsed = hex(text
                .trim()
                .trim_start_matches(['-', '|'])
                .split(' ')
                .next()?)?;
            let neg_text = text.trim().starts_with('-');
            let want = if neg_text && !o.neg {
                parsed.wrapping_neg()
            } else {
                parsed
            };
            v as i64 == want || (v as i64 as i32 as i64) == want || v == want as u64 & 0xffff_ffff
        }
        Src::Cbuf {
            bank,
            ubank,
            offset,
            index,
        } => {
            // nvdisasm prints some constants with a space between the brackets (`c[0x19] [0x59c4]`).
            let t = text
                .trim()
                .trim_start_matches(['-', '|', '!', '~'])
                .replace("] [", "][");
            let inner = t.strip_prefix("c[").or_else(|| t.strip_prefix("cx["))?;
            let (b, rest) = inner.split_once("][")?;
            let off = rest.split(']').next()?;
            let bank_ok = match ubank {
                Some(u) => register(b, "UR", "URZ") == Some(u.0),
                None => hex(b) == Some(i64::from(bank)),
            };
            let (base, _, o_off) = address(off);
            bank_ok && o_off == offset && base == index.map(|r| r.0) && flags
        }
        Src::Mem {
            base,
            ubase,
            offset,
        } => {
            let t = text.trim();
            let inner = t.rsplit_once('[')?.1.strip_suffix(']')?;
            let (b, u, off) = address(inner);
            // A `desc[URx][...]` operand's descriptor is its own field; judge the address part.
            // nvdisasm leaves out an `RZ` base next to a uniform one (`[URZ]`), and `URZ` next to a register.
            let same = |printed: Option<u8>, ours: Option<u8>, zero: u8| {
                printed == ours || printed.is_none() && ours.is_none_or(|r| r == zero)
            };
            (base.is_none() || same(b, base.map(|r| r.0), 255))
                && (ubase.is_none() || same(u, ubase.map(|r| r.0), 63) || t.starts_with("desc["))
                && off == offset
        }
        Src::Barrier(_) | Src::Target(_) | Src::Other(_) => return None,
    })
}

/// Whether nvdisasm leaves an optional operand out: a predicate at `PT`.
pub fn omitted(o: &Operand) -> bool {
    matches!(o.src, Src::Pred(p, false) if p.0 == 7)
        || matches!(o.src, Src::UPred(p, false) if p.0 == 7)
}

/// The operands of an nvdisasm line: after the mnemonic and its modifiers, split at `, `.
pub fn operand_texts(text: &str) -> Vec<&str> {
    let t = text.trim_end_matches(';').trim_end();
    let t = match t.strip_prefix('@') {
        Some(r) => r.split_once(' ').map_or("", |(_, m)| m),
        None => t,
    };
    match t.split_once(' ') {
        Some((_, ops)) if !ops.trim().is_empty() => ops.split(", ").collect(),
        _ => Vec::new(),
    }
}
