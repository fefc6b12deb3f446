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

/// The key of a listing line that is not compared (a label this section's listing cannot resolve).
const NOT_COMPARED: &str = "(not compared)";

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
                // A label in another section (an -rdc cubin's callee or variable) cannot be resolved from
                // this section's listing: such a line is not compared (as in gen's corpus test).
                let key = format!("{file} {} {:04x}", section.name, i.offset);
                let Ok(resolved) = section.resolve_labels(&i.text) else {
                    expected.push((NOT_COMPARED.to_owned(), String::new()));
                    continue;
                };
                let text = resolve_branch_targets(&section, &resolved);
                expected.push((key, format!("/*{:04x}*/ {text}", i.offset)));
            }
        }
        // The undecodable-word count (`// N undecodable words`) is ours alone.
        let got: Vec<&str> = stdout.lines().filter(|l| !l.is_empty() && !l.starts_with("// ")).collect();
        assert_eq!(got.len(), expected.len(), "{}: line count differs", cubin.display());
        for (g, (key, e)) in got.iter().zip(&expected) {
            if key == NOT_COMPARED {
                continue;
            }
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

/// `dis --accesses` comments, expanded to one mark per register, are the rows `nvdisasm -plr` printed
/// for the corpus (`corpus/sm86/<stem>.uses`), calls aside (their rows show the callee's clobbers).
#[test]
fn accesses_comments_match_the_life_range_listings() {
    let mut checked = 0;
    for cubin in sassport_corpus::cubins() {
        let out = sassport().args(["dis", "--accesses"]).arg(&cubin).output().expect("sassport runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).expect("UTF-8");
        let mut ours = std::collections::BTreeMap::new();
        let mut section = String::new();
        for line in stdout.lines() {
            if let Some(name) = line.strip_suffix(':') {
                section = name.to_owned();
                continue;
            }
            let Some(rest) = line.strip_prefix("/*") else { continue };
            let (offset, text) = rest.split_once("*/").expect("offset");
            let offset = u64::from_str_radix(offset, 16).expect("hex");
            let (text, comment) = text.split_once("  // ").unwrap_or((text, ""));
            ours.insert((section.clone(), offset), (text.trim().to_owned(), expand(comment)));
        }
        let uses = std::fs::read_to_string(sassport_corpus::companion(&cubin, ".uses")).expect(".uses");
        for line in uses.lines().filter(|l| !l.starts_with('#')) {
            let mut parts = line.splitn(3, ' ');
            let (Some(section), Some(offset)) = (parts.next(), parts.next()) else { continue };
            let offset = u64::from_str_radix(offset.trim_start_matches("0x"), 16).expect("hex");
            let want = parts.next().unwrap_or("");
            let (text, got) = &ours[&(section.to_owned(), offset)];
            if text.split_whitespace().any(|t| t.starts_with("CALL")) {
                continue;
            }
            checked += 1;
            assert_eq!(got, want, "{} {section} {offset:#x} `{text}`", cubin.display());
        }
    }
    assert!(checked > 10_000, "{checked} rows");
}

/// `R2:2^ R6v UR4:2v` → `R2^ R3^ R6v UR4v UR5v` in nvdisasm's column order (GPR, PRED, UGPR, UPRED),
/// accesses from UR0..UR3 left out (nvdisasm's columns never show them).
fn expand(comment: &str) -> String {
    let mut marks: std::collections::BTreeMap<(u8, u32), char> = std::collections::BTreeMap::new();
    let mut names = std::collections::BTreeMap::new();
    for token in comment.split_whitespace() {
        let (prefix, order) = [("UR", 2u8), ("UP", 3), ("R", 0), ("P", 1)]
            .into_iter()
            .find(|(p, _)| token.starts_with(p) && token[p.len()..].starts_with(|c: char| c.is_ascii_digit()))
            .expect("a register");
        let body = &token[prefix.len()..];
        let mark = body.chars().last().expect("a mark");
        let (first, count) = match body[..body.len() - 1].split_once(':') {
            Some((f, c)) => (f.parse::<u32>().expect("number"), c.parse::<u32>().expect("count")),
            None => (body[..body.len() - 1].parse().expect("number"), 1),
        };
        if prefix == "UR" && first < 4 {
            continue;
        }
        for r in first..first + count {
            let m = marks.entry((order, r)).or_insert(mark);
            if *m != mark {
                *m = 'x';
            }
            names.insert((order, r), prefix);
        }
    }
    marks.iter().map(|(k, m)| format!("{}{}{m}", names[k], k.1)).collect::<Vec<_>>().join(" ")
}

/// The listing text with labels as `sassport dis` prints them: `` `(LABEL) `` and `LABEL@srel` (a
/// relocation's addend against a function symbol) become offsets; names of other sections (relocated
/// call targets, data symbols) stay names.
fn resolve_all_labels(section: &listing::ListedSection, text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("`(") {
        out.push_str(&rest[..start + 2]);
        rest = &rest[start + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        if let Some(offset) = section.labels.get(&rest[..end]) {
            out.push_str(&format!("{offset:#x}"));
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    while let Some(at) = out.find("@srel") {
        let start = out[..at].rfind([' ', '(']).map_or(0, |i| i + 1);
        let offset = section.labels.get(&out[start..at]).unwrap_or_else(|| panic!("label in `{text}`"));
        out.replace_range(start..at + "@srel".len(), &format!("{offset:#x}@SREL"));
    }
    resolve_branch_targets(section, &out.replace("@SREL", "@srel"))
}

/// Our own kernels for what real code showed `dis` printing differently (`cli/tests/data/dis_*.cu`, each
/// with the nvcc line that built it): spills under `-maxrregcount` (`(*"SpillRefill"*)`), an `-rdc` cubin's
/// relocations (`32@lo(sym)`, `` `(sym) ``, `` c[`(sym)] ``, `[R7.X4+`(sym)]`, `RELOCATOR`), and the
/// `F2F.F64.F32 R, c[..][..]` and `LDS [UR4]` forms. Every line must be nvdisasm's (its committed listing).
#[test]
fn relocations_comments_and_real_code_forms_print_like_nvdisasm() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut seen = String::new();
    for stem in ["dis_spills", "dis_rdc", "dis_operands"] {
        let cubin = data.join(format!("{stem}.cubin"));
        let sass = std::fs::read_to_string(data.join(format!("{stem}.sass"))).expect("listing");
        seen.push_str(&sass);
        let out = sassport().arg("dis").arg("--strict").arg(&cubin).output().expect("sassport runs");
        assert!(out.status.success(), "{stem}: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).expect("UTF-8");
        let mut expected = Vec::new();
        for section in listing::parse(&sass).expect("listing parses") {
            expected.push(format!("{}:", section.name));
            for i in &section.instructions {
                expected.push(format!("/*{:04x}*/ {}", i.offset, resolve_all_labels(&section, &i.text)));
            }
        }
        let got: Vec<&str> = stdout.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(got.len(), expected.len(), "{stem}: line count differs");
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g, e, "{stem}");
        }
    }
    for form in ["(*\"SpillRefill\"*)", "(*\"RELOCATOR OPCODE,YIELD,280\"*)", "32@lo(", "32@hi((", "@srel", "c[`(", "+`(", "`((", "F2F.F64.F32 R2, c[0x0][0x160]", "LDS.128 R8, [UR4]"] {
        assert!(seen.contains(form), "no listing shows {form}");
    }
}
