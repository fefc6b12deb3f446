//! Keeps the `// SASS:` comment at the top of every kernel honest: each instruction mnemonic it names must
//! occur in that kernel's sm_86 code (its own section, its `$kernel$...` subroutines, or the shared
//! `$__internal...` helpers) in the committed `nvdisasm` listing.

use std::collections::{BTreeMap, BTreeSet};

/// Base mnemonics per function section of a listing.
fn functions(sass: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in sass.lines() {
        let t = line.trim();
        if let Some(rest) = t
            .strip_prefix(".section")
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            current = rest
                .trim()
                .strip_prefix(".text.")
                .and_then(|r| r.split(',').next())
                .map(str::to_owned);
            if let Some(name) = &current {
                out.entry(name.clone()).or_default();
            }
            continue;
        }
        let Some(rest) = t
            .strip_prefix("/*")
            .and_then(|r| r.split_once("*/"))
            .map(|(_, r)| r)
        else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(mut op) = words.next() else { continue };
        if op.starts_with('@') {
            let Some(next) = words.next() else { continue };
            op = next;
        }
        let base = op
            .trim_end_matches(';')
            .split('.')
            .next()
            .unwrap_or_default();
        if let (Some(name), false) = (&current, base.is_empty()) {
            out.entry(name.clone()).or_default().insert(base.to_owned());
        }
    }
    out
}

/// (kernel, text of its leading `// SASS:` comment) for every kernel in a source.
fn sass_comments(source: &str) -> Vec<(String, String)> {
    let marker = "extern \"C\" __global__ void ";
    let mut out = Vec::new();
    for (at, _) in source.match_indices(marker) {
        let rest = &source[at + marker.len()..];
        let name = rest.split('(').next().unwrap_or_default().trim().to_owned();
        let body = &rest[rest.find('{').expect("kernel body") + 1..];
        let comment: Vec<&str> = body
            .lines()
            .skip(1)
            .map(str::trim)
            .take_while(|l| l.starts_with("//"))
            .map(|l| l[2..].trim())
            .collect();
        let comment = comment.join(" ");
        let sass = comment.split_once("SASS:").map(|(_, s)| s.to_owned());
        out.push((
            name.clone(),
            sass.unwrap_or_else(|| panic!("kernel {name} has no `// SASS:` comment")),
        ));
    }
    out
}

/// Upper-case words that stand alone (not a `.MODIFIER`, not part of a mixed-case word): the mnemonics named.
fn named_mnemonics(comment: &str) -> BTreeSet<String> {
    let chars: Vec<char> = comment.chars().collect();
    let mut out = BTreeSet::new();
    let mut k = 0;
    while k < chars.len() {
        let boundary = k == 0
            || !(chars[k - 1] == '.' || chars[k - 1].is_alphanumeric() || chars[k - 1] == '_');
        if boundary && chars[k].is_ascii_uppercase() {
            let end = (k..chars.len())
                .find(|&j| {
                    !(chars[j].is_ascii_uppercase() || chars[j].is_ascii_digit() || chars[j] == '_')
                })
                .unwrap_or(chars.len());
            let word: String = chars[k..end].iter().collect();
            let glued_to_lower = end < chars.len() && chars[end].is_lowercase();
            if word.len() >= 2
                && !glued_to_lower
                && !word.starts_with("SR_")
                && !["SB0", "PT"].contains(&word.as_str())
            {
                out.insert(word);
            }
            k = end.max(k + 1);
        } else {
            k += 1;
        }
    }
    out
}

#[test]
fn named_mnemonics_skips_modifiers_and_prose() {
    let got = named_mnemonics(
        "ATOMS.ADD/.MIN, VOTE.ANY/VOTE.ALL, S2R SR_TID.X, Payne-Hanek, DEPBAR.LE SB0, I2F.U32",
    );
    let want: BTreeSet<String> = ["ATOMS", "VOTE", "S2R", "DEPBAR", "I2F"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(got, want);
}

#[test]
fn sass_comments_name_instructions_the_listing_contains() {
    let mut checked = 0;
    let mut problems = Vec::new();
    for source in sassport_corpus::sources() {
        let stem = source.file_stem().unwrap().to_string_lossy().into_owned();
        if sassport_corpus::is_uncommitted(&stem) && !sassport_corpus::root().join("sm86").join(format!("{stem}.sass")).exists() {
            continue; // cuRAND's listings are built by `cargo xtask corpus`, never committed
        }
        let text = std::fs::read_to_string(&source).expect("source");
        let listing = sassport_corpus::root()
            .join("sm86")
            .join(format!("{stem}.sass"));
        let funcs = functions(&std::fs::read_to_string(&listing).expect("listing"));
        for (kernel, comment) in sass_comments(&text) {
            let have: BTreeSet<&String> = funcs
                .iter()
                .filter(|(f, _)| {
                    **f == kernel
                        || f.starts_with(&format!("${kernel}$"))
                        || f.starts_with("$__internal")
                })
                .flat_map(|(_, m)| m)
                .collect();
            assert!(
                !have.is_empty(),
                "{stem}: kernel {kernel} is not in the listing"
            );
            let missing: Vec<String> = named_mnemonics(&comment)
                .into_iter()
                .filter(|m| !have.contains(m))
                .collect();
            if !missing.is_empty() {
                problems.push(format!("{stem}.cu {kernel}: {missing:?}"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 70, "only {checked} kernels found");
    assert!(
        problems.is_empty(),
        "SASS comments name instructions the code does not contain:\n{}",
        problems.join("\n")
    );
}
