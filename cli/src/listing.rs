//! A reader for `nvdisasm -c -raw` listings: each code section's instruction lines in the form `sassport dis`
//! prints them (labels replaced by their section-relative offsets), for `sassport report --nvdisasm`.
//! It knows the listing's line shapes and nothing of the decoder.

use std::collections::BTreeMap;

/// One code section: its name and its instructions as `/*OFFSET*/ TEXT` lines.
pub struct ListedSection {
    pub name: String,
    pub lines: Vec<String>,
}

/// Parses a listing; labels print as `0xOFFSET` (`` `(0x1f0) ``, `0x4f0@srel`, `BRANCH_TARGETS 0x100,0x110`).
pub fn parse(listing: &str) -> Vec<ListedSection> {
    struct Raw {
        name: String,
        lines: Vec<(u64, String)>,
        labels: BTreeMap<String, u64>,
    }
    let mut sections: Vec<Raw> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let flush = |sections: &mut Vec<Raw>, pending: &mut Vec<String>| {
        if let Some(s) = sections.last_mut() {
            let end = s.lines.last().map_or(0, |l| l.0 + 16);
            for label in pending.drain(..) {
                s.labels.insert(label, end);
            }
        }
        pending.clear();
    };
    for line in listing.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        if let Some(rest) = t.strip_prefix(".section").filter(|r| r.starts_with(char::is_whitespace)) {
            flush(&mut sections, &mut pending);
            let name = rest.trim().split(',').next().unwrap_or("").trim().to_owned();
            sections.push(Raw { name, lines: Vec::new(), labels: BTreeMap::new() });
            continue;
        }
        if t.starts_with('.') && !t.ends_with(':') {
            continue;
        }
        if !line.starts_with(char::is_whitespace) && t.ends_with(':') {
            pending.push(t.trim_end_matches(':').to_owned());
            continue;
        }
        let Some((hex, text)) = t.strip_prefix("/*").and_then(|r| r.split_once("*/")) else { continue };
        let Ok(offset) = u64::from_str_radix(hex, 16) else { continue };
        let Some(section) = sections.last_mut() else { continue };
        for label in pending.drain(..) {
            section.labels.insert(label, offset);
        }
        section.lines.push((offset, text.trim().to_owned()));
    }
    flush(&mut sections, &mut pending);
    sections
        .into_iter()
        .map(|s| {
            let lines = s.lines.iter().map(|(o, t)| format!("/*{o:04x}*/ {}", resolve(&s.labels, t))).collect();
            ListedSection { name: s.name, lines }
        })
        .collect()
}

/// The text with each label of the section replaced by its offset: in `` `(LABEL) ``, before `@srel`, and in
/// a `BRANCH_TARGETS` list.
fn resolve(labels: &BTreeMap<String, u64>, text: &str) -> String {
    let offset = |label: &str| labels.get(label).map(|o| format!("{o:#x}"));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // `` `(LABEL) ``: a name without parentheses inside (`` `((sym + 0x10)) `` is a relocation expression).
    while let Some(i) = rest.find("`(") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        let close = rest.find(')').unwrap_or(rest.len());
        if let Some(o) = offset(&rest[..close]).filter(|_| !rest[..close].contains('(')) {
            out.push_str(&o);
            rest = &rest[close..];
        }
    }
    out.push_str(rest);
    let mut text = out;
    while let Some(at) = text.find("@srel") {
        let start = text[..at].rfind([' ', '(']).map_or(0, |i| i + 1);
        let Some(o) = offset(&text[start..at]) else { break };
        text.replace_range(start..at + "@srel".len(), &format!("{o}@SREL"));
    }
    let mut text = text.replace("@SREL", "@srel");
    const TARGETS: &str = "(*\"BRANCH_TARGETS ";
    if let Some(i) = text.find(TARGETS) {
        let from = i + TARGETS.len();
        if let Some(len) = text[from..].find('"') {
            let list: Vec<String> =
                text[from..from + len].split(',').map(|l| offset(l).unwrap_or_else(|| l.to_owned())).collect();
            text.replace_range(from..from + len, &list.join(","));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_offsets() {
        let listing = "\t.section\t.text.k,\"ax\",@progbits\nk:\n.text.k:\n        /*0000*/                   BRA `(.L_x_1) ;\n.L_x_1:\n        /*0010*/                   MOV R20, 32@lo((k + .L_x_1@srel)) ;\n        /*0020*/                   CALL.ABS.NOINC `(free) ;\n";
        let s = parse(listing);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].name, ".text.k");
        assert_eq!(
            s[0].lines,
            ["/*0000*/ BRA `(0x10) ;", "/*0010*/ MOV R20, 32@lo((k + 0x10@srel)) ;", "/*0020*/ CALL.ABS.NOINC `(free) ;"]
        );
    }
}
