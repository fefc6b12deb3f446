//! Every instruction of the committed corpus listings (`nvdisasm -c -raw -hex`) prints identically.
//!
//! The listing is read by its own small parser (`common/listing.rs`); the words come from the listing's
//! `-hex` comments when present, else from the cubin's `.text.<symbol>` section at the listed offset (read
//! with the `object` crate, not with anything under test). nvdisasm's label targets (`` `(.L_x_3) ``) are
//! resolved to their section offsets, the form `TargetStyle::Label` prints.

mod common;

use common::{listing, text_sections};
use sassport_gen::{decode, TargetStyle, Word, WORD_BYTES};
use std::collections::BTreeSet;

/// Corpus instructions the table does not yet print like nvdisasm, one `FILE SECTION OFFSET` per line. The
/// test is a ratchet: a mismatch missing from the list fails, and so does a listed one that now matches
/// (remove it). Regenerate after a table change with `SASSPORT_BLESS_GAPS=1 cargo test -p sassport-gen --test corpus`.
const KNOWN_GAPS: &str = "tests/known-gaps/corpus-mismatches.txt";

fn known_gaps() -> BTreeSet<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN_GAPS);
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Whether a cubin is relocatable (ELF type ET_REL: built with -rdc=true).
fn cubin_is_relocatable(path: &std::path::Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.len() > 18 && u16::from_le_bytes([b[16], b[17]]) == 1)
}

#[test]
fn corpus_listings_print_identically() {
    let cubins = sassport_corpus::cubins();
    assert!(!cubins.is_empty(), "the corpus has no cubins (corpus/sm86/*.cubin)");
    let (mut total, mut listings) = (0usize, 0usize);
    let mut mismatches = Vec::new();
    let mut keys = BTreeSet::new();
    for cubin in &cubins {
        let sass_path = sassport_corpus::companion(cubin, ".sass");
        let sass = std::fs::read_to_string(&sass_path).unwrap_or_else(|e| panic!("{}: {e}", sass_path.display()));
        listings += 1;
        let sections = text_sections(&std::fs::read(cubin).expect("cubin readable"));
        let parsed = listing::parse(&sass).unwrap_or_else(|e| panic!("{}: {e}", sass_path.display()));
        assert!(!parsed.is_empty(), "{}: no code sections", sass_path.display());
        for section in &parsed {
            let bytes = sections.get(&section.name).unwrap_or_else(|| panic!("{}: no section {}", cubin.display(), section.name));
            assert_eq!(
                section.instructions.len() * WORD_BYTES,
                bytes.len(),
                "{} {}: the listing does not cover the section",
                cubin.display(),
                section.name
            );
            for listed in &section.instructions {
                total += 1;
                let word = listed.word.map(Word).unwrap_or_else(|| {
                    let at = listed.offset as usize;
                    Word::from_le_bytes(bytes[at..at + WORD_BYTES].try_into().expect("16 bytes"))
                });
                let expected = match section.resolve_labels(&listed.text) {
                    Ok(e) => e,
                    // A label in another section (an -rdc cubin's callee or variable): this section's listing
                    // cannot resolve it, so the line is not compared.
                    Err(e) if e.contains("is not defined in") && cubin_is_relocatable(cubin) => continue,
                    Err(e) => {
                        mismatches.push((String::new(), format!("{} /*{:04x}*/: {e}", section.name, listed.offset)));
                        continue;
                    }
                };
                let ours = match decode(word) {
                    Ok(inst) => inst.text(listed.offset, TargetStyle::Label),
                    Err(e) => format!("<{e}>"),
                };
                // nvdisasm appends jump-table notes from the cubin's metadata (`(*"BRANCH_TARGETS ..."*)`),
                // not from the word; `sassport dis` adds them (its own test checks that). Compare the rest.
                let (ours, expected) = match expected.split_once("          (*\"") {
                    Some((head, _)) => (ours.trim().trim_end_matches(';').trim_end().to_owned(), head.to_owned()),
                    None => (ours.trim().to_owned(), expected),
                };
                if ours != expected {
                    let file = cubin.file_name().unwrap_or_default().to_string_lossy().to_string();
                    let key = format!("{file} {} {:04x}", section.name, listed.offset);
                    keys.insert(key.clone());
                    mismatches.push((
                        key,
                        format!(
                            "{file} {} /*{:04x}*/ {word}\n    ours:     {ours}\n    nvdisasm: {expected}",
                            section.name, listed.offset
                        ),
                    ));
                }
            }
        }
    }
    assert!(total > 0, "the corpus listings hold no instructions");
    println!(
        "{} of {total} corpus instructions ({listings} listings) print like nvdisasm ({:.2}%)",
        total - mismatches.len(),
        100.0 * (total - mismatches.len()) as f64 / total as f64
    );
    // `SASSPORT_SHOW_GAPS=1 cargo test ... -- --nocapture` lists every mismatch (for work on the table).
    if std::env::var_os("SASSPORT_SHOW_GAPS").is_some() {
        for (_, m) in &mismatches {
            println!("{m}");
        }
    }
    if std::env::var_os("SASSPORT_BLESS_GAPS").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN_GAPS);
        let mut text = String::from("# Corpus instructions the table does not yet print like nvdisasm (see tests/corpus.rs).\n");
        for k in &keys {
            text.push_str(k);
            text.push('\n');
        }
        std::fs::write(path, text).expect("write the known-gap list");
        return;
    }
    let known = known_gaps();
    let new: Vec<&String> = mismatches.iter().filter(|(k, _)| !known.contains(k)).map(|(_, m)| m).collect();
    let fixed: Vec<&String> = known.iter().filter(|k| !keys.contains(*k)).collect();
    assert!(
        new.is_empty(),
        "{} corpus instructions print differently and are not known gaps:\n{}",
        new.len(),
        new.iter().take(40).map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(fixed.is_empty(), "these known gaps now print like nvdisasm; remove them from {KNOWN_GAPS}: {fixed:?}");
}

#[test]
fn listing_reader_resolves_labels() {
    let text = "        .section        .text.k,\"ax\",@progbits\nk:\n.text.k:\n        /*0000*/                   @P0 BRA `(.L_x_1) ;\n.L_x_1:\n        /*0010*/                   EXIT ;\n.L_x_2:\n";
    let sections = listing::parse(text).unwrap();
    assert_eq!(sections.len(), 1);
    let s = &sections[0];
    assert_eq!(s.name, ".text.k");
    assert_eq!(s.instructions.len(), 2);
    assert_eq!(s.labels[".L_x_1"], 0x10);
    assert_eq!(s.labels[".L_x_2"], 0x20);
    assert_eq!(s.resolve_labels(&s.instructions[0].text).unwrap(), "@P0 BRA `(0x10) ;");
}
