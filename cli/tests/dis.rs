//! `sassport dis` end to end: corpus cubins against their nvdisasm listings, and raw words.

#[path = "../../gen/tests/common/listing.rs"]
mod listing;

use std::process::Command;

fn sassport() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
}

/// The decoder's known gaps (`gen/tests/known-gaps/corpus-mismatches.txt`, a ratchet kept by gen's corpus
/// test): those instructions may differ here too; every other line must be nvdisasm's.
fn known_gaps() -> std::collections::BTreeSet<String> {
    include_str!("../../gen/tests/known-gaps/corpus-mismatches.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The output contract: `.text.<symbol>:` per section, then `/*OFFSET*/ TEXT` per word, TEXT being
/// nvdisasm's with label targets as `` `(0xTARGET) ``.
#[test]
fn cubins_print_like_their_listings() {
    let known = known_gaps();
    let cubins = sassport_corpus::cubins();
    assert!(!cubins.is_empty(), "the corpus has no cubins");
    let mut mismatches = Vec::new();
    let mut lines_checked = 0;
    for cubin in &cubins {
        let out = sassport().arg("dis").arg(cubin).output().expect("sassport runs");
        assert!(out.status.success(), "{}: {}", cubin.display(), String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
        let sass = std::fs::read_to_string(sassport_corpus::companion(cubin, ".sass")).expect("listing");
        let file = cubin.file_name().unwrap_or_default().to_string_lossy().to_string();
        let mut expected = Vec::new();
        for section in listing::parse(&sass).expect("listing parses") {
            expected.push((String::new(), format!("{}:", section.name)));
            for i in &section.instructions {
                let text = resolve_branch_targets(&section, &section.resolve_labels(&i.text).expect("labels resolve"));
                let key = format!("{file} {} {:04x}", section.name, i.offset);
                expected.push((key, format!("/*{:04x}*/ {text}", i.offset)));
            }
        }
        // The undecodable-word count (`// N undecodable words`) is ours alone.
        let got: Vec<&str> = stdout.lines().filter(|l| !l.is_empty() && !l.starts_with("// ")).collect();
        assert_eq!(got.len(), expected.len(), "{}: line count differs", cubin.display());
        for (g, (key, e)) in got.iter().zip(&expected) {
            lines_checked += 1;
            if g != e && !known.contains(key) {
                mismatches.push(format!("{}:\n    ours:     {g}\n    expected: {e}", cubin.display()));
            }
        }
    }
    assert!(lines_checked > 0);
    assert!(
        mismatches.is_empty(),
        "{} of {lines_checked} lines differ:\n{}",
        mismatches.len(),
        mismatches.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// nvdisasm's jump-table note lists labels: `(*"BRANCH_TARGETS .L_x_43,.L_x_44"*)`; `sassport dis` lists
/// their offsets (`0x100,0x110`).
fn resolve_branch_targets(section: &listing::ListedSection, text: &str) -> String {
    const OPEN: &str = "(*\"BRANCH_TARGETS ";
    let Some(start) = text.find(OPEN) else { return text.to_owned() };
    let rest = &text[start + OPEN.len()..];
    let end = rest.find('"').expect("closed note");
    let offsets: Vec<String> = rest[..end]
        .split(',')
        .map(|label| format!("{:#x}", section.labels.get(label).unwrap_or_else(|| panic!("label {label}"))))
        .collect();
    format!("{}{OPEN}{}{}", &text[..start], offsets.join(","), &rest[end..])
}

#[test]
fn raw_words_with_garbage_and_a_short_tail() {
    let dir = std::env::temp_dir().join(format!("sassport-dis-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("words.bin");
    // nvdisasm 13.5.37 prints this word at 0x30 as `BRA 0x30;` (a branch to itself).
    let bra: u128 = 0x000fc0000383ffff_fffffff000007947;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&bra.to_le_bytes());
    bytes.extend_from_slice(&u128::MAX.to_le_bytes()); // opcode key 0x1fff: no class
    bytes.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&path, &bytes).unwrap();

    let out = sassport().args(["dis", "--raw", "--base", "0x30"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], ".text.raw:");
    assert_eq!(lines[1], "/*0030*/ BRA `(0x30);");
    assert!(lines[2].contains("<unknown 0xffffffffffffffffffffffffffffffff>"), "{}", lines[2]);
    assert!(lines[3].contains("truncated"), "{}", lines[3]);
    assert_eq!(lines.last().copied(), Some("// 2 undecodable words"));

    let strict = sassport().args(["dis", "--raw", "--strict"]).arg(&path).output().unwrap();
    assert!(!strict.status.success(), "--strict accepts undecodable words");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_file_that_is_not_a_cubin_is_refused() {
    let dir = std::env::temp_dir().join(format!("sassport-dis-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("not.cubin");
    std::fs::write(&path, b"\x7fELF\x02\x01 truncated").unwrap();
    let out = sassport().arg("dis").arg(&path).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}
