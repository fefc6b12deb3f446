//! A reader for nvdisasm `-c -raw [-hex]` listings, independent of the code under test: it knows the
//! listing's line shapes and nothing of the decoder.

use std::collections::BTreeMap;

/// One instruction line of a listing.
#[derive(Debug, Clone)]
pub struct ListedInstruction {
    /// Section-relative byte offset (`/*0040*/`).
    pub offset: u64,
    /// nvdisasm's text with its `;` (`NOP;`, `EXIT ;`), branch targets still as labels (`` `(.L_x_3) ``).
    pub text: String,
    /// The word, when the listing carries `-hex` comments.
    pub word: Option<u128>,
}

/// One code section of a listing.
#[derive(Debug, Clone, Default)]
pub struct ListedSection {
    /// `.text.<symbol>`.
    pub name: String,
    pub instructions: Vec<ListedInstruction>,
    /// Every label (`.L_x_3`, function symbols, `.text.k`) with the offset it stands for.
    pub labels: BTreeMap<String, u64>,
}

impl ListedSection {
    /// The text with every `` `(LABEL) `` replaced by `` `(0xOFFSET) ``, the form `sassport dis` prints.
    pub fn resolve_labels(&self, text: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("`(") {
            let after = &rest[start + 2..];
            let end = after.find(')').ok_or_else(|| format!("unclosed label in `{text}`"))?;
            let label = &after[..end];
            let offset = self.labels.get(label).ok_or_else(|| format!("label {label} is not defined in {}", self.name))?;
            out.push_str(&rest[..start]);
            out.push_str(&format!("`(0x{offset:x})"));
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

fn hex_comment(s: &str) -> Option<u64> {
    let inner = s.trim().strip_prefix("/*")?.strip_suffix("*/")?.trim();
    u64::from_str_radix(inner.strip_prefix("0x")?, 16).ok()
}

/// Parses a whole listing into its code sections.
pub fn parse(listing: &str) -> Result<Vec<ListedSection>, String> {
    let mut sections: Vec<ListedSection> = Vec::new();
    let mut pending_labels: Vec<String> = Vec::new();
    let mut awaiting_high = false;
    for (n, line) in listing.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix(".section").filter(|r| r.starts_with(char::is_whitespace)) {
            flush_labels(&mut sections, &mut pending_labels);
            let name = rest.trim().split(',').next().unwrap_or("").trim().to_owned();
            sections.push(ListedSection { name, ..Default::default() });
            awaiting_high = false;
            continue;
        }
        if trimmed.starts_with('.') && !trimmed.ends_with(':') {
            continue; // directives: .align, .type, .size, ...
        }
        if !line.starts_with(char::is_whitespace) && trimmed.ends_with(':') {
            pending_labels.push(trimmed.trim_end_matches(':').to_owned());
            continue;
        }
        if awaiting_high {
            if let Some(high) = hex_comment(trimmed) {
                let section = sections.last_mut().ok_or("hex word outside a section")?;
                if let Some(inst) = section.instructions.last_mut() {
                    inst.word = inst.word.map(|low| low | (u128::from(high) << 64));
                }
                awaiting_high = false;
                continue;
            }
        }
        let Some(rest) = trimmed.strip_prefix("/*") else { continue };
        let Some((hex, rest)) = rest.split_once("*/") else { continue };
        let Ok(offset) = u64::from_str_radix(hex, 16) else { continue };
        let (text, low) = match rest.find("/* 0x") {
            Some(i) => (&rest[..i], hex_comment(&rest[i..])),
            None => (rest, None),
        };
        let text = text.trim();
        if !text.ends_with(';') {
            return Err(format!("line {}: no `;`: {line}", n + 1));
        }
        let section = sections.last_mut().ok_or_else(|| format!("line {}: instruction outside a section", n + 1))?;
        for label in pending_labels.drain(..) {
            section.labels.insert(label, offset);
        }
        section.instructions.push(ListedInstruction { offset, text: text.to_owned(), word: low.map(u128::from) });
        awaiting_high = low.is_some();
    }
    flush_labels(&mut sections, &mut pending_labels);
    Ok(sections)
}

/// Labels after a section's last instruction stand for its end.
fn flush_labels(sections: &mut [ListedSection], pending: &mut Vec<String>) {
    if let Some(section) = sections.last_mut() {
        let end = section.instructions.last().map_or(0, |i| i.offset + 16);
        for label in pending.drain(..) {
            section.labels.insert(label, end);
        }
    }
    pending.clear();
}
