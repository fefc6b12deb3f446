//! Every instruction of the committed corpus reads and writes the registers `nvdisasm -plr` marks on its
//! row (`corpus/sm86/<stem>.uses`, written by `cargo xtask corpus` from nvdisasm's listing of the cubin:
//! real code, real control flow), except calls.
//!
//! A call's row in a real cubin shows the callee's clobbers, which nvdisasm takes from the callee it
//! finds in the cubin (and cuts at the caller's highest register); the table's rules record what it
//! reports for a callee it does not know. Calls are counted and left out.

mod common;

use common::{generated_accesses, text_sections};
use sassport_gen::{decode, Word, WORD_BYTES};
use sassport_isa::eval;

/// The registers the generated rules give, as a listing writes them: one mark per register in column
/// order, accesses nvdisasm's columns never show (from `UR0`..`UR3`) left out.
fn listing(w: Word) -> Option<String> {
    let accesses = generated_accesses(w.0)?;
    Some(sassport_isa::register_listing(&eval::listed_uses(&accesses)))
}

#[test]
fn corpus_rows_are_what_the_rules_give() {
    let cubins = sassport_corpus::cubins();
    assert!(!cubins.is_empty(), "the corpus has no cubins");
    let (mut rows, mut calls) = (0usize, 0usize);
    let mut failures = Vec::new();
    for cubin in &cubins {
        let path = sassport_corpus::companion(cubin, ".uses");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let sections = text_sections(&std::fs::read(cubin).expect("cubin readable"));
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let mut parts = line.splitn(3, ' ');
            let (Some(section), Some(offset)) = (parts.next(), parts.next()) else { panic!("{}: bad line `{line}`", path.display()) };
            let want = parts.next().unwrap_or("");
            let offset = usize::from_str_radix(offset.trim_start_matches("0x"), 16).expect("hex offset");
            let bytes = &sections[section][offset..offset + WORD_BYTES];
            let word = Word::from_le_bytes(bytes.try_into().expect("16 bytes"));
            let inst = decode(word).unwrap_or_else(|e| panic!("{} {section} {offset:#x}: {e}", cubin.display()));
            if inst.mnemonic() == "CALL" {
                calls += 1;
                continue;
            }
            rows += 1;
            let got = listing(word);
            if got.as_deref() != Some(want) {
                failures.push(format!(
                    "{} {section} {offset:#06x} `{}`: rules {got:?}, nvdisasm `{want}`",
                    cubin.file_name().unwrap_or_default().to_string_lossy(),
                    inst.text(offset as u64, sassport_gen::TargetStyle::Label)
                ));
            }
        }
    }
    assert!(rows > 10_000, "only {rows} corpus rows");
    assert!(failures.is_empty(), "{} of {rows} corpus rows differ ({calls} calls left out):\n{}", failures.len(), failures.join("\n"));
}
